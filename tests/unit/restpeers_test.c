/* SPDX-License-Identifier: Apache-2.0 */
/* restpeers_test: the peers' details asked every peer_details_every polls (collectors/restpeers.c)
 * against a stand-in router over HTTP that, like RouterOS, answers only the .proplist asked.
 * Each sample is compared with one of a router polled with every poll full. */
#include "collectors/rest.c"
#include "unit.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>

/* ---- the stand-in router: its peers, uptime and version, changed by the tests ---- */

struct speer {
	char id[8];
	const char *ifc, *name, *comment, *key, *hs, *allowed, *ep;
	int port;
	bool disabled;
	unsigned long long rx, tx;
};

static pthread_mutex_t srv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct speer srv_peers[8];
static int srv_npeers;
static const char *srv_uptime = "1w4d23h26m9s", *srv_version = "7.19.2";
static bool srv_peers_fail;        /* the next peers request answers 500 */
static int srv_full, srv_counters; /* peers requests with and without the details */
static char srv_last_props[512];   /* .proplist of the last peers request */

static const struct speer srv_base[] = {
	{ "*3", "wg0", "branch-lj", "site B", "klTy6VO+Bh9OY0tsI7uAxZdSywAWcIGZb3m21vFvZ5M=", "1m23s",
		"10.0.0.2/32,10.1.0.0/24", "198.51.100.7", 51820, false, 8395000, 58834536 },
	{ "*4", "wg0", NULL, "laptop", "8OLF=", NULL, "10.0.0.3/32", NULL, 0, true, 0, 0 },
	{ "*5", "wg1", "", NULL, "Zm9v=", "2d00:00:01", "", "2001:db8::9", 13231, false, 7, 5 },
};

static void srv_set_base(void)
{
	pthread_mutex_lock(&srv_lock);
	srv_npeers = 3;
	memcpy(srv_peers, srv_base, sizeof(srv_base));
	srv_uptime = "1w4d23h26m9s";
	srv_version = "7.19.2";
	srv_full = srv_counters = 0;
	pthread_mutex_unlock(&srv_lock);
}

/* ,"key":"value" when prop is asked (all are without a .proplist) and value is set. */
static void srv_prop(buf_t *b, const char *props, const char *key, const char *value)
{
	size_t n = strlen(key);
	const char *p = props;
	while (p != NULL && (strncmp(p, key, n) != 0 || (p[n] != ',' && p[n] != '\0'))) {
		p = strchr(p, ',');
		p = p != NULL ? p + 1 : NULL;
	}
	if (value == NULL || (props != NULL && p == NULL))
		return;
	buf_printf(b, "%s\"%s\":\"%s\"", b->data[b->len - 1] == '{' ? "" : ",", key, value);
}

static void srv_peer_json(buf_t *b, const char *props, const struct speer *p)
{
	char port[16], rx[24], tx[24];
	snprintf(port, sizeof(port), "%d", p->port);
	snprintf(rx, sizeof(rx), "%llu", p->rx);
	snprintf(tx, sizeof(tx), "%llu", p->tx);
	buf_puts(b, "{");
	srv_prop(b, props, ".id", p->id);
	srv_prop(b, props, "interface", p->ifc);
	srv_prop(b, props, "name", p->name);
	srv_prop(b, props, "comment", p->comment);
	srv_prop(b, props, "public-key", p->key);
	srv_prop(b, props, "last-handshake", p->hs);
	srv_prop(b, props, "rx", rx);
	srv_prop(b, props, "tx", tx);
	srv_prop(b, props, "allowed-address", p->allowed);
	srv_prop(b, props, "current-endpoint-address", p->ep);
	srv_prop(b, props, "current-endpoint-port", p->ep ? port : NULL);
	srv_prop(b, props, "disabled", p->disabled ? "true" : "false");
	buf_puts(b, "}");
}

/* The reply to url (malloc'd), under srv_lock. */
static char *srv_reply(struct MHD_Connection *conn, const char *url, unsigned *status)
{
	*status = 200;
	if (strcmp(url, "/rest/system/resource") == 0)
		return xasprintf("{\"board-name\":\"CCR2004-16G-2S+\",\"uptime\":\"%s\",\"version\":\"%s "
				 "(stable)\"}",
			srv_uptime, srv_version);
	if (strcmp(url, "/rest/system/resource/cpu") == 0)
		return xstrdup("[{\".id\":\"*0\",\"cpu\":\"cpu0\",\"load\":\"3\",\"irq\":\"1\"}]");
	if (strcmp(url, "/rest/system/routerboard") == 0)
		return xstrdup("{\"routerboard\":\"false\"}");
	if (strcmp(url, "/rest/interface") == 0)
		return xstrdup("[{\"name\":\"wg0\",\"type\":\"wg\",\"rx-byte\":\"1\",\"tx-byte\":\"2\","
			       "\"running\":\"true\"}]");
	*status = 400;
	if (strcmp(url, "/rest/interface/wireguard/peers") != 0)
		return xstrdup("{\"error\":400,\"message\":\"Bad Request\"}");
	const char *props = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, ".proplist");
	snprintf(srv_last_props, sizeof(srv_last_props), "%s", props ? props : "");
	if (props == NULL || strstr(props, "public-key") != NULL)
		srv_full++;
	else
		srv_counters++;
	if (srv_peers_fail) {
		srv_peers_fail = false;
		*status = 500;
		return xstrdup("{\"error\":500,\"message\":\"Internal Server Error\"}");
	}
	*status = 200;
	buf_t b;
	buf_init(&b);
	buf_puts(&b, "[");
	for (int i = 0; i < srv_npeers; i++) {
		if (i > 0)
			buf_puts(&b, ",");
		srv_peer_json(&b, props, &srv_peers[i]);
	}
	buf_puts(&b, "]");
	return buf_steal(&b, NULL);
}

static enum MHD_Result srv_handler(void *cls, struct MHD_Connection *conn, const char *url,
	const char *method, const char *version, const char *upload, size_t *upload_size, void **req)
{
	static int first;
	if (*req == NULL) {
		*req = &first;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		*upload_size = 0;
		return MHD_YES;
	}
	unsigned status;
	pthread_mutex_lock(&srv_lock);
	char *text = srv_reply(conn, url, &status);
	pthread_mutex_unlock(&srv_lock);
	struct MHD_Response *resp = MHD_create_response_from_buffer(
		strlen(text), text, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result rc = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return rc;
}

static struct MHD_Daemon *srv_start(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct MHD_Daemon *d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, srv_handler,
		NULL, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_END);
	if (d == NULL)
		return NULL;
	*port = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port;
	return d;
}

/* ---- two routers on one loop, polled in turns: the one under test, then the reference ---- */

static char s_mon[] = "mon", s_pass[] = "s3cret", s_r1[] = "r1", s_r2[] = "r2";

/* One poll of a test: the stand-in changed first, then what the poll must ask and give. */
struct step {
	void (*change)(void);
	int full, counters; /* peers requests with and without the details */
	size_t npeers;
	const char *props; /* the last peers request's .proplist contains it, when set */
	bool no_name;      /* ... and does not ask "name" */
	bool fails;        /* the poll fails (no reference poll) */
};

struct drv {
	loop_t *loop;
	rest_t *r;
	collector_t col;
	void *h;
	conf_router_t rc;
};

struct run {
	loop_t *loop;
	struct drv d, ref;
	const struct step *steps;
	size_t nsteps, at;
	int full0, counters0;
	sample_t *s;
};

static void drv_open(struct drv *d, loop_t *loop, char *name, char *url, int every)
{
	*d = (struct drv){ .loop = loop };
	d->rc = (conf_router_t){ .name = name,
		.rest = url,
		.user = s_mon,
		.password = s_pass,
		.tls_verify = true,
		.timeout_ms = 5000,
		.peer_details_every = every };
	d->r = rest_create(loop, 1 << 20);
	d->col = rest_collector(d->r);
	d->h = d->col.attach(d->r, &d->rc);
}

static void drv_close(struct drv *d)
{
	d->col.detach(d->r, d->h);
	rest_destroy(d->r);
}

static bool same_str(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* Whether a's peers are b's, every field. */
static bool same_peers(const sample_t *a, const sample_t *b)
{
	if (a->npeers != b->npeers || a->have_peers != b->have_peers)
		return false;
	for (size_t i = 0; i < a->npeers; i++) {
		const struct sample_peer *p = &a->peers[i], *q = &b->peers[i];
		if (!same_str(p->interface, q->interface) || !same_str(p->peer, q->peer) ||
			!same_str(p->public_key, q->public_key) || !same_str(p->endpoint, q->endpoint) ||
			!same_str(p->allowed, q->allowed) || p->endpoint_port != q->endpoint_port ||
			p->disabled != q->disabled || p->rx_bytes != q->rx_bytes ||
			p->tx_bytes != q->tx_bytes || p->last_handshake_ms != q->last_handshake_ms)
			return false;
	}
	return true;
}

static void run_next(struct run *run);

/* The reference's full poll of the same state: run->s must match it. */
static void run_ref_done(sample_t *want, void *arg)
{
	struct run *run = arg;
	CHECK_INT(want->err, SAMPLE_OK);
	if (!same_peers(run->s, want))
		fprintf(stderr, "step %zu: the peers differ from a full poll's\n", run->at);
	CHECK(same_peers(run->s, want));
	sample_free(run->s);
	sample_free(want);
	run->s = NULL;
	run->at++;
	run_next(run);
}

static void run_done(sample_t *s, void *arg)
{
	struct run *run = arg;
	const struct step *st = &run->steps[run->at];
	pthread_mutex_lock(&srv_lock);
	int full = srv_full - run->full0, counters = srv_counters - run->counters0;
	bool props = st->props == NULL || strstr(srv_last_props, st->props) != NULL;
	bool name = strstr(srv_last_props, "name") != NULL;
	pthread_mutex_unlock(&srv_lock);
	if (full != st->full || counters != st->counters || (!st->fails && s->npeers != st->npeers))
		fprintf(stderr, "step %zu:\n", run->at);
	CHECK_INT(full, st->full);
	CHECK_INT(counters, st->counters);
	CHECK(props && (!st->no_name || !name));
	if (st->fails) {
		CHECK(s->err != SAMPLE_OK);
		sample_free(s);
		run->at++;
		run_next(run);
		return;
	}
	CHECK_INT(s->err, SAMPLE_OK);
	CHECK_INT(s->npeers, st->npeers);
	run->s = s;
	CHECK_INT(run->ref.col.poll(run->ref.r, run->ref.h, &run->ref.rc, run_ref_done, run), 0);
}

static void run_next(struct run *run)
{
	if (run->at == run->nsteps) {
		loop_stop(run->loop);
		return;
	}
	const struct step *st = &run->steps[run->at];
	pthread_mutex_lock(&srv_lock);
	if (st->change != NULL)
		st->change();
	run->full0 = srv_full;
	run->counters0 = srv_counters;
	pthread_mutex_unlock(&srv_lock);
	CHECK_INT(run->d.col.poll(run->d.r, run->d.h, &run->d.rc, run_done, run), 0);
}

static void run_guard(void *arg)
{
	loop_stop(arg);
}

/* Polls a router of peer_details_every = every through steps, from the base state. */
static void run_steps(char *url, int every, const struct step *steps, size_t nsteps)
{
	struct run run = { .loop = loop_create(), .steps = steps, .nsteps = nsteps };
	srv_set_base();
	drv_open(&run.d, run.loop, s_r1, url, every);
	drv_open(&run.ref, run.loop, s_r2, url, 1);
	loop_after(run.loop, 20000, run_guard, run.loop);
	run_next(&run);
	loop_run(run.loop);
	CHECK_INT(run.at, nsteps);
	sample_free(run.s);
	drv_close(&run.d);
	drv_close(&run.ref);
	loop_destroy(run.loop);
}

#define RUN(url, every, steps) run_steps(url, every, steps, sizeof(steps) / sizeof(steps[0]))

/* The changes, called under srv_lock. */
static void bump_counters(void)
{
	for (int i = 0; i < srv_npeers; i++) {
		srv_peers[i].rx += 1000 * (i + 1);
		srv_peers[i].tx += 7;
	}
	srv_peers[1].hs = "3s"; /* a first handshake */
}

static void move_endpoint(void)
{
	srv_peers[0].ep = "203.0.113.1";
	bump_counters();
}

static void add_peer(void)
{
	srv_peers[srv_npeers++] = (struct speer){ "*9", "wg1", "new", NULL, "bmV3=", NULL, "10.9.0.1/32",
		NULL, 0, false, 1, 2 };
}

static void remove_peer(void)
{
	srv_peers[1] = srv_peers[2];
	srv_npeers = 2;
}

static void replace_peer(void)
{
	srv_peers[1] = (struct speer){ "*A", "wg1", "other", NULL, "b3Ro=", NULL, "10.8.0.1/32", NULL, 0,
		false, 3, 4 };
}

/* A restart, after which the first two peers have swapped their .ids (RouterOS may renumber). */
static void reboot(void)
{
	srv_uptime = "5s";
	memcpy(srv_peers[0].id, "*4", 3);
	memcpy(srv_peers[1].id, "*3", 3);
	bump_counters();
}

/* Five more peers, unnamed (their label is their key), on one interface, with long allowed
 * addresses: more strings than the kept block starts with. */
static void many_peers(void)
{
	static const char *const keys[] = { "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=",
		"CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC=",
		"DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD=",
		"EEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEEE=" };
	for (int i = 0; i < 5; i++) {
		struct speer *p = &srv_peers[3 + i];
		*p = (struct speer){ .ifc = "wg2",
			.key = keys[i],
			.hs = "9s",
			.allowed = "10.20.0.0/16,10.21.0.0/16,10.22.0.0/16,fd00:20::/48,fd00:21::/48",
			.ep = i % 2 ? "192.0.2.10" : NULL,
			.port = 51820 + i,
			.disabled = i == 4,
			.rx = 10u * i };
		snprintf(p->id, sizeof(p->id), "*1%d", i);
	}
	srv_npeers = 8;
}

/* The router lists its peers in another order (the same .ids): the first to the end. */
static void rotate_peers(void)
{
	struct speer first = srv_peers[0];
	memmove(&srv_peers[0], &srv_peers[1], (size_t)(srv_npeers - 1) * sizeof(srv_peers[0]));
	srv_peers[srv_npeers - 1] = first;
	bump_counters();
}

static void old_version(void)
{
	srv_version = "7.12.1";
}

static void new_version(void)
{
	srv_version = "7.19.2";
}

static void peers_fail(void)
{
	srv_peers_fail = true;
}

#define FULL(n)     .full = 1, .npeers = (n)
#define COUNTERS(n) .counters = 1, .npeers = (n)
#define AGAIN(n)    .full = 1, .counters = 1, .npeers = (n)

/* Counters-only polls carry a full poll's details and new counters; every 4th poll is full;
 * a detail changed shows at the next full poll. */
static const struct step counters_only[] = {
	{ FULL(3), .props = "name," },
	{ bump_counters, COUNTERS(3), .props = ".id,rx,tx,last-handshake" },
	{ bump_counters, COUNTERS(3) },
	{ bump_counters, COUNTERS(3) },
	{ move_endpoint, FULL(3) },
	{ bump_counters, COUNTERS(3) },
};

/* A peer added, removed, replaced by one of a new .id: the same poll asks again, full. */
static const struct step added_removed[] = {
	{ NULL, FULL(3) },
	{ add_peer, AGAIN(4) },
	{ bump_counters, COUNTERS(4) },
	{ remove_peer, AGAIN(2) },
	{ NULL, COUNTERS(2) },
	{ replace_peer, AGAIN(2) },
	{ NULL, COUNTERS(2) },
};

/* Eight peers kept: counters-only polls give them back as the full ones had them. */
static const struct step many[] = {
	{ NULL, FULL(3) },
	{ many_peers, AGAIN(8) },
	{ bump_counters, COUNTERS(8) },
	{ bump_counters, COUNTERS(8) },
	{ remove_peer, AGAIN(2) },
	{ NULL, COUNTERS(2) },
};

/* Peers listed in another order, twice: each counters-only poll finds every detail by .id,
 * as the poll before listed them. */
static const struct step reordered[] = {
	{ NULL, FULL(3) },
	{ rotate_peers, COUNTERS(3) },
	{ rotate_peers, COUNTERS(3) },
	{ bump_counters, COUNTERS(3) },
	{ many_peers, AGAIN(8) },
	{ rotate_peers, COUNTERS(8) },
	{ rotate_peers, COUNTERS(8) },
};

/* A restart: full at once, though the same .ids come back. */
static const struct step restarted[] = {
	{ NULL, FULL(3) },
	{ bump_counters, COUNTERS(3) },
	{ reboot, FULL(3) },
	{ bump_counters, COUNTERS(3) },
};

/* Another version (names asked from 7.15 only); a failed peers step. */
static const struct step version_failure[] = {
	{ old_version, FULL(3), .no_name = true },
	{ bump_counters, COUNTERS(3), .no_name = true },
	{ new_version, FULL(3), .props = "name," },
	{ peers_fail, .full = 0, .counters = 1, .fails = true },
	{ NULL, FULL(3) },
	{ NULL, COUNTERS(3) },
};

/* peer_details_every = 1: every poll full, as before the cache. */
static const struct step every_one[] = {
	{ NULL, FULL(3) },
	{ bump_counters, FULL(3) },
	{ bump_counters, FULL(3) },
	{ move_endpoint, FULL(3) },
};

int main(void)
{
	int port = 0;
	struct MHD_Daemon *srv = srv_start(&port);
	CHECK(srv != NULL);
	if (srv == NULL)
		return unit_done("restpeers_test");
	char *url = xasprintf("http://127.0.0.1:%d", port);
	RUN(url, 4, counters_only);
	RUN(url, 10, added_removed);
	RUN(url, 10, restarted);
	RUN(url, 10, many);
	RUN(url, 10, reordered);
	RUN(url, 10, version_failure);
	RUN(url, 1, every_one);
	MHD_stop_daemon(srv);
	free(url);
	return unit_done("restpeers_test");
}
