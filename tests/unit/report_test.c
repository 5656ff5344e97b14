/* SPDX-License-Identifier: Apache-2.0 */
/* report_test: probes and profiles through the store into the upgrade report (JSON and
 * Markdown) and /api/v1/routers/NAME/probes: a probe_direction = both probe is two rows of one
 * time, each served with "direction" as configured ("both") and "measured" for its figures,
 * paired across the upgrade by the direction measured; the profiles' diff and per-core loads.
 * A temp database, no detector. */
#include "config.h"
#include "daemon/sample.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/jsonr.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "store/store.h"
#include "web/api.h"
#include "web/api_report.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "daemon/fleet.h"
#include "unit.h"
#include "unitfs.h"

static sample_t *report_sample(int64_t t, const char *version)
{
	sample_t *s = sample_new("ccr", t, "rest");
	s->version = xstrdup(version);
	s->board = xstrdup("CCR1009-7G-1C-1S+");
	s->architecture = xstrdup("tile");
	s->uptime_ms = 1000000 + t % 1000000;
	return s;
}

/* A probe of probe_direction configured measuring direction, ended at t. */
static probe_t *report_probe(int64_t t, const char *direction, const char *configured, double delivered)
{
	probe_t *p = probe_new("ccr", t, direction);
	p->configured = configured;
	p->duration_ms = 3000;
	p->offered_bps = 3e8;
	p->delivered_bps = delivered;
	p->lost_packets = direction[0] == 'r' ? 12 : -1;
	p->busiest_core_load = 0.5;
	return p;
}

/* ccr upgraded at now - 30 s; a both probe before it, a both probe after, a transmit one older. */
static void report_fill(const char *path, int64_t now)
{
	conf_t conf = { .retention_ms = 86400000, .rollup_retention_ms = 86400000 };
	store_t *st = NULL;
	char *cause = NULL;
	CHECK(store_open(path, &conf, &st, &cause) == 0);
	free(cause);
	if (st == NULL)
		return;
	store_submit(st, report_sample(now - 60000, "7.21.5"));
	store_submit(st, report_sample(now - 30000, "7.22.3"));
	profile_t *b = profile_new("ccr", now - 45000), *a = profile_new("ccr", now - 5000);
	profile_add(b, -1, "total", 60); /* a whole-router row */
	profile_add(b, 0, "total", 20);
	profile_add(b, 1, "total", 100);
	profile_add(b, 1, "networking", 38);
	profile_add(b, 1, "encrypting", 9);
	profile_add(a, 0, "total", 21);
	profile_add(a, 1, "total", 100);
	profile_add(a, 1, "networking", 90.5);
	profile_add(a, 1, "encrypting", 9.5);
	profile_add(a, 2, "networking", 4); /* no summary row: its load is unknown */
	b->duration_ms = a->duration_ms = 3000;
	store_submit_profile(st, b);
	store_submit_profile(st, a);
	store_submit_probe(st, report_probe(now - 55000, "transmit", "transmit", 2.9e8));
	store_submit_probe(st, report_probe(now - 50000, "transmit", "both", 3e8));
	store_submit_probe(st, report_probe(now - 50000, "receive", "both", 2.95e8));
	store_submit_probe(st, report_probe(now - 10000, "transmit", "both", 1.282e8));
	store_submit_probe(st, report_probe(now - 10000, "receive", "both", 2.9e8));
	store_flush(st);
	store_close(st);
}

static int64_t report_upgrade_id(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int64_t id = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
		sqlite3_prepare_v2(db, "SELECT id FROM version_history WHERE kind = 'upgrade'", -1, &q,
			NULL) == SQLITE_OK &&
		sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return id;
}

/* A number's value, 0 for anything else (as jansson's json_number_value). */
static double report_num(const jsonr_node_t *n)
{
	double v = 0;
	jsonr_num(n, &v);
	return v;
}

/* The report's probe of side and measured direction, or NULL. */
static const jsonr_node_t *report_find(const jsonr_node_t *probes, const char *side, const char *measured)
{
	for (size_t i = 0; i < jsonr_size(probes); i++) {
		const jsonr_node_t *p = jsonr_at(probes, i);
		if (strcmp(jsonr_str(jsonr_get(p, "side")), side) == 0 &&
			jsonr_str(jsonr_get(p, "measured")) != NULL &&
			strcmp(jsonr_str(jsonr_get(p, "measured")), measured) == 0)
			return p;
	}
	return NULL;
}

static void check_entry(const jsonr_node_t *p, const char *configured, double delivered, bool loss)
{
	CHECK(p != NULL);
	if (p == NULL)
		return;
	int64_t lost = 0;
	CHECK_STR(jsonr_str(jsonr_get(p, "direction")), configured);
	CHECK_NEAR(report_num(jsonr_get(p, "delivered_bps")), delivered, 1);
	CHECK_NEAR(report_num(jsonr_get(p, "offered_bps")), 3e8, 1);
	CHECK(loss ? jsonr_int(jsonr_get(p, "lost_packets"), &lost) && lost == 12
		   : jsonr_is_null(jsonr_get(p, "lost_packets")));
	CHECK_NEAR(report_num(jsonr_get(p, "busiest_core_load")), 0.5, 1e-9);
	CHECK(jsonr_is_string(jsonr_get(p, "time")));
}

static void test_report_json(const conf_t *conf, int64_t id)
{
	char rest[64];
	snprintf(rest, sizeof(rest), "%lld/report", (long long)id);
	struct api_report_req req = { .conf = conf, .rest = rest };
	buf_t out;
	buf_init(&out);
	bool md = true;
	CHECK_INT(api_report(&req, &out, &md), 200);
	CHECK(!md);
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *o = jsonr_parse(d, out.data, out.len);
	const jsonr_node_t *probes = jsonr_get(o, "probes");
	CHECK_INT(jsonr_size(probes), 4);
	check_entry(report_find(probes, "before", "transmit"), "both", 3e8, false);
	check_entry(report_find(probes, "before", "receive"), "both", 2.95e8, true);
	check_entry(report_find(probes, "after", "transmit"), "both", 1.282e8, false);
	check_entry(report_find(probes, "after", "receive"), "both", 2.9e8, true);
	/* profile rows: cpu the core's integer index, null for a whole-router row; usage in percent */
	const jsonr_node_t *before = jsonr_get(jsonr_get(o, "profile"), "before");
	size_t nnull = 0;
	for (size_t i = 0; i < jsonr_size(before); i++) {
		const jsonr_node_t *row = jsonr_at(before, i);
		const jsonr_node_t *cpu = jsonr_get(row, "cpu");
		CHECK(jsonr_is_integer(cpu) || jsonr_is_null(cpu));
		CHECK(jsonr_is_number(jsonr_get(row, "usage")));
		if (jsonr_is_null(cpu)) {
			nnull++;
			CHECK_STR(jsonr_str(jsonr_get(row, "name")), "total");
			CHECK_NEAR(report_num(jsonr_get(row, "usage")), 60, 1e-9);
		}
	}
	CHECK_INT(jsonr_size(before), 5);
	CHECK_INT(nnull, 1);
	CHECK_INT(jsonr_size(jsonr_get(jsonr_get(o, "profile"), "after")), 5);
	jsonr_destroy(d);
	buf_free(&out);
	snprintf(rest, sizeof(rest), "%lld/report.md", (long long)id);
	buf_init(&out);
	CHECK_INT(api_report(&req, &out, &md), 200);
	CHECK(md);
	buf_putc(&out, '\0');
	CHECK(strstr(out.data, "| Side | Time | Direction | Measured | Offered | Delivered |") != NULL);
	CHECK(strstr(out.data, " | both | transmit | 300.0 Mbit/s | 300.0 Mbit/s | - | 50 % |") != NULL);
	CHECK(strstr(out.data, " | both | receive | 300.0 Mbit/s | 295.0 Mbit/s | 12 | 50 % |") != NULL);
	CHECK(strstr(out.data, " | both | transmit | 300.0 Mbit/s | 128.2 Mbit/s | - | 50 % |") != NULL);
	CHECK(strstr(out.data, " | both | receive | 300.0 Mbit/s | 290.0 Mbit/s | 12 | 50 % |") != NULL);
	/* the profiles: the diff on the busiest core, and every core's load before and after */
	CHECK(strstr(out.data,
		      "networking 38 % \xe2\x86\x92 90 % on cpu1, encrypting 9 % \xe2\x86\x92 10 %") != NULL);
	CHECK(strstr(out.data,
		      "| Core | Before | After |\n|---|---|---|\n| cpu0 | 20 % | 21 % |\n"
		      "| cpu1 | 100 % | 100 % |\n| cpu2 | - | - |\n\n") != NULL);
	buf_free(&out);
}

/* /api/v1/routers/ccr/probes: all five, newest first, each with direction and measured; 404
 * for a router the fleet does not poll (one the database knows, not the configuration). */
static void test_probes_api(const conf_t *conf)
{
	buf_t out;
	buf_init(&out);
	fleet_t *fleet = fleet_create(conf);
	CHECK_INT(api_probes(conf, fleet, "gone", &out), 404);
	buf_reset(&out);
	CHECK_INT(api_probes(conf, fleet, "ccr", &out), 200);
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *a = jsonr_parse(d, out.data, out.len);
	CHECK_INT(jsonr_size(a), 5);
	static const char *const want[5] = { "both", "both", "both", "both", "transmit" };
	int seen_rx = 0;
	for (size_t i = 0; i < jsonr_size(a) && i < 5; i++) {
		const jsonr_node_t *p = jsonr_at(a, i);
		const char *m = jsonr_str(jsonr_get(p, "measured"));
		CHECK_STR(jsonr_str(jsonr_get(p, "direction")), want[i]);
		CHECK(m != NULL && (strcmp(m, "transmit") == 0 || strcmp(m, "receive") == 0));
		seen_rx += m != NULL && strcmp(m, "receive") == 0;
	}
	CHECK_INT(seen_rx, 2);
	jsonr_destroy(d);
	buf_free(&out);
	fleet_destroy(fleet);
}

int main(void)
{
	const char *dir = unitfs_root("report_test");
	if (dir == NULL)
		return 99;
	log_set_level(LOG_LVL_WARN);
	char *path = xasprintf("%s/wgwatch.db", dir);
	int64_t now = clock_wall_ms();
	report_fill(path, now);
	int64_t id = report_upgrade_id(path);
	CHECK(id > 0);
	char name[] = "ccr";
	conf_router_t rc = { .name = name };
	conf_t conf = { .database = path, .routers = &rc, .nrouters = 1 };
	test_report_json(&conf, id);
	test_probes_api(&conf);
	free(path);
	return unitfs_end(unit_done("report_test"));
}
