/* SPDX-License-Identifier: Apache-2.0 */
/* scrape_test: web/scrape.c and the per-router side of web/metrics.c. A router's scrape holds
 * its per-router families and no other router's or the daemon's; an unknown router is a 404;
 * the gzip stream inflates to what the plain render gives, over many flushed pieces;
 * peer_metrics = no drops the peer series; the targets JSON and its address. */
#include "config.h"
#include "web/scrape.h"
#include "unit.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/jsonr.h"
#include "lib/xmem.h"

static conf_t *test_conf(size_t n)
{
	conf_t *c = xcalloc(1, sizeof(*c));
	c->routers = xcalloc(n, sizeof(*c->routers));
	c->nrouters = n;
	for (size_t i = 0; i < n; i++) {
		conf_router_t *r = &c->routers[i];
		r->name = xasprintf("hub-%04zu", i);
		r->password = xstrdup("hunter2-secret");
		r->peer_metrics = i != 1; /* hub-0001: peer_metrics = no */
		r->labels = xcalloc(2, sizeof(*r->labels));
		r->labels[0] = (struct conf_label){ xstrdup("site"), xstrdup(i % 2 ? "east" : "we\"st") };
		r->labels[1] = (struct conf_label){ xstrdup("job"), xstrdup("reserved") };
		r->nlabels = 2;
	}
	return c;
}

static sample_t *test_sample(const char *name)
{
	sample_t *s = sample_new(name, 1700000000000, "rest");
	s->version = xstrdup("7.22.3"), s->board = xstrdup("CCR2004-16G-2S+");
	sample_set_cores(s, 4);
	for (size_t k = 0; k < 4; k++)
		s->cores[k].load = 0.25 * (double)k;
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0"), f->type = xstrdup("wg"), f->rx_bytes = 1000;
	s->have_peers = true;
	for (int k = 0; k < 3; k++) {
		struct sample_peer *p = sample_add_peer(s);
		p->interface = xstrdup("wg0"), p->peer = xasprintf("peer%d", k);
		p->rx_bytes = 10, p->last_handshake_ms = 1000 * k;
	}
	return s;
}

static fleet_t *test_fleet(conf_t *c)
{
	fleet_t *f = fleet_create(c);
	for (size_t i = 0; i < c->nrouters; i++) {
		sample_t *s = test_sample(c->routers[i].name);
		fleet_update(f, s);
		sample_free(s);
	}
	return f;
}

static bool test_has_line_prefix(const char *text, const char *prefix)
{
	for (const char *p = text; (p = strstr(p, prefix)) != NULL; p++)
		if (p == text || p[-1] == '\n')
			return true;
	return false;
}

static void test_router(fleet_t *f)
{
	buf_t b;
	buf_init(&b);
	struct metrics_req req = { .fleet = f, .router = "hub-0002" };
	CHECK_INT(metrics_write(&req, &b), 0);
	CHECK(test_has_line_prefix(b.data, "wgwatch_router_up{router=\"hub-0002\",site=\"we\\\"st\"} 1\n"));
	CHECK(test_has_line_prefix(b.data, "wgwatch_wireguard_peer_receive_bytes_total{router=\"hub-0002\""));
	CHECK(strstr(b.data, "hub-0001") == NULL && strstr(b.data, "hub-0003") == NULL);
	CHECK(strstr(b.data, "# HELP wgwatch_router_up ") != NULL);
	CHECK(strstr(b.data, "# TYPE wgwatch_cpu_core_load_ratio gauge\nwgwatch_cpu_core_load_ratio{") !=
		NULL);
	CHECK(strstr(b.data, "# HELP wgwatch_upgrade_regression") == NULL); /* no series, no head */
	static const char *const daemon_fams[] = { "wgwatch_build_info", "process_", "wgwatch_store_",
		"wgwatch_http_", "wgwatch_poll_duration_seconds", "wgwatch_shard_info",
		"wgwatch_rollout_decision" };
	for (size_t k = 0; k < sizeof(daemon_fams) / sizeof(daemon_fams[0]); k++)
		CHECK(strstr(b.data, daemon_fams[k]) == NULL);
	CHECK(strstr(b.data, "hunter2") == NULL && strstr(b.data, "reserved") == NULL);
	size_t len = b.len;
	req.router = "hub-9999";
	CHECK_INT(metrics_write(&req, &b), -1);
	CHECK_INT(b.len, len);
	buf_reset(&b);
	struct metrics_req self = { .fleet = f, .daemon_only = true };
	CHECK_INT(metrics_write(&self, &b), 0);
	CHECK(test_has_line_prefix(b.data, "wgwatch_build_info{"));
	CHECK(test_has_line_prefix(b.data, "wgwatch_poll_duration_seconds_count "));
	CHECK(strstr(b.data, "router=") == NULL && strstr(b.data, "\nwgwatch_router_up") == NULL);
	bool gz = true;
	buf_reset(&b);
	struct scrape_req sr = { .fleet = f, .router = "nope" };
	CHECK_INT(scrape_metrics(&sr, &b, &gz), 404);
	CHECK(!gz && strstr(b.data, "no router of that name") != NULL);
	buf_reset(&b);
	sr = (struct scrape_req){ .fleet = f, .router = "hub-0002", .daemon_only = true, .gzip = true };
	CHECK_INT(scrape_metrics(&sr, &b, &gz), 400); /* the two exclude each other */
	CHECK(!gz && strstr(b.data, "exclude each other") != NULL);
	buf_free(&b);
}

/* peer_metrics = no (hub-0001): interfaces stay, every per-peer family goes. */
static void test_peer_metrics(fleet_t *f)
{
	buf_t b;
	buf_init(&b);
	metrics_render(f, NULL, NULL, NULL, &b);
	CHECK(strstr(b.data, "wgwatch_interface_receive_bytes_total{router=\"hub-0001\"") != NULL);
	CHECK(strstr(b.data, "{router=\"hub-0001\",interface=\"wg0\",peer=") == NULL);
	CHECK(strstr(b.data, "wgwatch_wireguard_peer_last_handshake_timestamp_seconds{router=\"hub-0001\"") ==
		NULL);
	CHECK(strstr(b.data, "wgwatch_wireguard_peer_info{router=\"hub-0000\",interface=\"wg0\",peer=") !=
		NULL);
	buf_free(&b);
}

/* The whole fleet through the gzip stream (many pieces of METRICS_CHUNK) inflates to the plain
 * render, but for the process_* lines, which move between two renders. */
static void test_gzip_stream(fleet_t *f)
{
	buf_t plain, z;
	buf_init(&plain);
	buf_init(&z);
	metrics_render(f, NULL, NULL, NULL, &plain);
	bool gz = false;
	struct scrape_req sr = { .fleet = f, .gzip = true };
	CHECK_INT(scrape_metrics(&sr, &z, &gz), 200);
	CHECK(gz && z.len < plain.len / 8);
	char *back = xmalloc(plain.len * 2);
	z_stream s = { 0 };
	CHECK_INT(inflateInit2(&s, 15 + 16), Z_OK);
	s.next_in = (Bytef *)z.data, s.avail_in = (uInt)z.len;
	s.next_out = (Bytef *)back, s.avail_out = (uInt)(plain.len * 2);
	CHECK_INT(inflate(&s, Z_FINISH), Z_STREAM_END);
	size_t n = s.total_out;
	inflateEnd(&s);
	CHECK(n > 3 * 256 * 1024); /* several pieces of METRICS_CHUNK */
	const char *cut = strstr(plain.data, "# HELP process_");
	size_t head = cut ? (size_t)(cut - plain.data) : plain.len;
	CHECK(n >= head && memcmp(back, plain.data, head) == 0);
	free(back);
	buf_free(&plain);
	buf_free(&z);
}

static void test_address(void)
{
	static const struct {
		const char *listen, *host, *want;
	} cases[] = {
		{ "127.0.0.1:9477", "example.org:80", "127.0.0.1:9477" },
		{ "[::1]:9477", NULL, "[::1]:9477" },
		{ "0.0.0.0:9477", "wg.example.org:9477", "wg.example.org:9477" },
		{ "0.0.0.0:9477", "wg.example.org", "wg.example.org:9477" },
		{ "[::]:9477", "[2001:db8::1]:9477", "[2001:db8::1]:9477" },
		{ "[::]:9477", "[2001:db8::1]", "[2001:db8::1]:9477" },
		{ NULL, "wg.example.org", "wg.example.org:9477" }, /* no listen known (the HTTP fuzzer's) */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = scrape_address(cases[i].listen, 9477, cases[i].host);
		CHECK_STR(got, cases[i].want);
		free(got);
	}
	char *got = scrape_address("0.0.0.0:9477", 9477, "evil\"host/x"); /* refused: our name */
	CHECK(strstr(got, "evil") == NULL && strlen(got) > 5 && strcmp(got + strlen(got) - 5, ":9477") == 0);
	free(got);
}

static void test_targets(fleet_t *f, const conf_t *c)
{
	buf_t a, b;
	buf_init(&a);
	buf_init(&b);
	scrape_targets_fleet(f, "127.0.0.1:9477", true, &a);
	scrape_targets_conf(c, "127.0.0.1:9477", true, &b);
	CHECK_STR(a.data, b.data);
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *arr = jsonr_parse(d, a.data, a.len);
	CHECK(jsonr_is_array(arr) && jsonr_size(arr) == c->nrouters);
	const jsonr_node_t *l = jsonr_get(jsonr_at(arr, 1), "labels");
	CHECK_STR(jsonr_str(jsonr_at(jsonr_get(jsonr_at(arr, 1), "targets"), 0)), "127.0.0.1:9477");
	CHECK_STR(jsonr_str(jsonr_get(l, "__param_router")), "hub-0001");
	CHECK_STR(jsonr_str(jsonr_get(l, "router")), "hub-0001");
	CHECK_STR(jsonr_str(jsonr_get(l, "__metrics_path__")), "/metrics");
	CHECK_STR(jsonr_str(jsonr_get(l, "__scheme__")), "https");
	CHECK_STR(jsonr_str(jsonr_get(l, "site")), "east");
	CHECK(jsonr_get(l, "job") == NULL && strstr(a.data, "hunter2") == NULL);
	jsonr_destroy(d);
	buf_free(&a);
	buf_free(&b);
}

int main(void)
{
	conf_t *c = test_conf(1000);
	fleet_t *f = test_fleet(c);
	test_router(f);
	test_peer_metrics(f);
	test_gzip_stream(f);
	test_address();
	test_targets(f, c);
	fleet_destroy(f);
	conf_free(c);
	return unit_done("scrape_test");
}
