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
#include "lib/log.h"
#include "lib/xmem.h"
#include "store/store.h"
#include "web/api.h"
#include "web/api_report.h"

#include <jansson.h>
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

/* The report's probe of side and measured direction, or NULL. */
static json_t *report_find(json_t *probes, const char *side, const char *measured)
{
	size_t i;
	json_t *p;
	json_array_foreach(probes, i, p)
	{
		if (strcmp(json_string_value(json_object_get(p, "side")), side) == 0 &&
			json_string_value(json_object_get(p, "measured")) != NULL &&
			strcmp(json_string_value(json_object_get(p, "measured")), measured) == 0)
			return p;
	}
	return NULL;
}

static void check_entry(json_t *p, const char *configured, double delivered, bool loss)
{
	CHECK(p != NULL);
	if (p == NULL)
		return;
	CHECK_STR(json_string_value(json_object_get(p, "direction")), configured);
	CHECK_NEAR(json_number_value(json_object_get(p, "delivered_bps")), delivered, 1);
	CHECK_NEAR(json_number_value(json_object_get(p, "offered_bps")), 3e8, 1);
	CHECK(loss ? json_integer_value(json_object_get(p, "lost_packets")) == 12
		   : json_is_null(json_object_get(p, "lost_packets")));
	CHECK_NEAR(json_number_value(json_object_get(p, "busiest_core_load")), 0.5, 1e-9);
	CHECK(json_is_string(json_object_get(p, "time")));
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
	json_t *o = json_loadb(out.data, out.len, 0, NULL);
	json_t *probes = json_object_get(o, "probes");
	CHECK_INT(json_array_size(probes), 4);
	check_entry(report_find(probes, "before", "transmit"), "both", 3e8, false);
	check_entry(report_find(probes, "before", "receive"), "both", 2.95e8, true);
	check_entry(report_find(probes, "after", "transmit"), "both", 1.282e8, false);
	check_entry(report_find(probes, "after", "receive"), "both", 2.9e8, true);
	/* profile rows: cpu the core's integer index, null for a whole-router row; usage in percent */
	json_t *before = json_object_get(json_object_get(o, "profile"), "before");
	size_t i, nnull = 0;
	json_t *row;
	json_array_foreach(before, i, row)
	{
		json_t *cpu = json_object_get(row, "cpu");
		CHECK(json_is_integer(cpu) || json_is_null(cpu));
		CHECK(json_is_number(json_object_get(row, "usage")));
		if (json_is_null(cpu)) {
			nnull++;
			CHECK_STR(json_string_value(json_object_get(row, "name")), "total");
			CHECK_NEAR(json_number_value(json_object_get(row, "usage")), 60, 1e-9);
		}
	}
	CHECK_INT(json_array_size(before), 5);
	CHECK_INT(nnull, 1);
	CHECK_INT(json_array_size(json_object_get(json_object_get(o, "profile"), "after")), 5);
	json_decref(o);
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
	json_t *a = json_loadb(out.data, out.len, 0, NULL);
	CHECK_INT(json_array_size(a), 5);
	static const char *const want[5] = { "both", "both", "both", "both", "transmit" };
	int seen_rx = 0;
	for (size_t i = 0; i < json_array_size(a) && i < 5; i++) {
		json_t *p = json_array_get(a, i);
		const char *m = json_string_value(json_object_get(p, "measured"));
		CHECK_STR(json_string_value(json_object_get(p, "direction")), want[i]);
		CHECK(m != NULL && (strcmp(m, "transmit") == 0 || strcmp(m, "receive") == 0));
		seen_rx += m != NULL && strcmp(m, "receive") == 0;
	}
	CHECK_INT(seen_rx, 2);
	json_decref(a);
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
