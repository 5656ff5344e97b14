/* SPDX-License-Identifier: Apache-2.0 */
/* storemigrate_test: databases of older schemas (2, 9, 10, 11, 15) made by hand and migrated by
 * store_open: every value kept, the progress hook ticked, integrity ok. Temp files only. */
#include "config.h"
#include "store/store_int.h"
#include "store/history.h"
#include "store/schema_sql.h"
#include "store/overrides.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "storefix.h"
#include "rollfix.h"
#include "unit.h"

/* A database of the release before 003 (schema 2, one row per core, interface and peer)
 * is migrated: every old sample reads back through the views, the old tables are gone, and
 * the deltas of the next poll go on from the migrated counters. */
static const char v2_rows[] =
	"INSERT INTO routers (id, name, first_seen_ms, last_poll_ms, uptime_ms, info_ms, version)"
	" VALUES (1, 'old', 1000, 61000, 500000, 61000, '7.15');"
	"INSERT INTO interfaces VALUES (5, 1, 'wg0', 'wg'), (9, 1, 'ether1', 'ether');"
	"INSERT INTO peers VALUES (3, 1, 'wg0', 'KEY=', 'site');"
	"INSERT INTO polls VALUES (1, 1000, 10, 'rest', NULL, NULL), (1, 31000, 10, 'rest', NULL,"
	" NULL), (1, 61000, 9, 'snmp', 'timeout', 'no answer');"
	"INSERT INTO cpu_samples VALUES (1, 1000, 0, 120, NULL), (1, 1000, 1, 1000, 15),"
	" (1, 31000, 0, 0, 0), (1, 31000, 1, 999, NULL), (1, 91000, 0, 7, NULL);"
	"INSERT INTO iface_samples VALUES (5, 1000, -9, 100, 5, 6, 0, 1, NULL, NULL, NULL, 0),"
	" (5, 31000, 2000, 400, 7, 8, 2, 3, 30000, 2009, 300, 1),"
	" (9, 31000, 40000000000, 1, 1, 1, 1, 1, NULL, NULL, NULL, 0);"
	"INSERT INTO peer_samples VALUES (3, 1000, 50, 60, NULL, NULL, NULL, NULL, 0),"
	" (3, 31000, 150, 260, 4000, 30000, 100, 200, 0);";

static void make_v2(const char *p)
{
	sqlite3 *db = storefix_db(p);
	for (size_t i = 0; i < 2; i++)
		CHECK(sqlite3_exec(db, schema_migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 2", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, v2_rows, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
}

static void test_migrate_v2(void)
{
	char *p = storefix_path("v2.db");
	storefix_raw = 1;
	make_v2(p);
	storefix_raw = 0;
	store_t *st = storefix_open(p);
	store_close(st);
	CHECK_INT(storefix_int(p, "PRAGMA user_version"),
		(int64_t)schema_migrations[schema_nmigrations - 1].version);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%samples'"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 4); /* + the lone cpu sample's */
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(router_id || '/' || time_ms || '/' || core || '/' ||"
			  " load || '/' || coalesce(irq, '-'), ' ') FROM cpu_samples"),
		"1/1000/0/120/- 1/1000/1/1000/15 1/31000/0/0/0 1/31000/1/999/- 1/91000/0/7/-");
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(iface_id || '/' || time_ms || '/' || rx_bytes || '/' ||"
			  " tx_bytes || '/' || rx_packets || '/' || tx_packets || '/' || rx_drops || '/' ||"
			  " tx_drops || '/' || coalesce(dt_ms, '-') || '/' || coalesce(rx_delta, '-') ||"
			  " '/' || coalesce(tx_delta, '-') || '/' || reset, ' ') FROM iface_samples"),
		"5/1000/-9/100/5/6/0/1/-/-/-/0 5/31000/2000/400/7/8/2/3/30000/2009/300/1"
		" 9/31000/40000000000/1/1/1/1/1/-/-/-/0");
	/* 005: rows packed before it have no link values: unknown, never zero */
	CHECK_INT(storefix_int(p,
			  "SELECT count(*) FROM iface_samples WHERE mtu IS NULL AND running IS NULL AND"
			  " rx_errors IS NULL AND tx_errors IS NULL AND tx_queue_drops IS NULL"),
		3);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls WHERE cpu_mhz IS NOT NULL"), 0);
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(peer_id || '/' || time_ms || '/' || rx_bytes || '/' ||"
			  " tx_bytes || '/' || coalesce(handshake_age_ms, '-') || '/' || coalesce(dt_ms, '-')"
			  " || '/' || coalesce(rx_delta, '-') || '/' || reset, ' ') FROM peer_samples"),
		"3/1000/50/60/-/-/-/0 3/31000/150/260/4000/30000/100/0");
	CHECK_STR(storefix_text(p, "SELECT err || ' ' || error FROM polls WHERE time_ms = 61000"),
		"timeout no answer");
	/* The next poll's deltas count from the migrated counters. */
	st = storefix_open(p);
	sample_t *s = storefix_sample("old", 121000, "7.15", NULL, 500000 + 60000);
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0");
	f->type = xstrdup("wg");
	f->rx_bytes = 2500;
	f->tx_bytes = 1400;
	store_submit(st, s);
	store_close(st);
	CHECK_STR(storefix_text(p,
			  "SELECT dt_ms || ' ' || rx_delta || ' ' || tx_delta || ' ' || reset"
			  " FROM iface_samples WHERE time_ms = 121000"),
		"90000 500 1000 0");
	storefix_integrity(p);
	free(p);
}

/* A database at schema version (every migration up to it) holding rows (SQL), closed. */
static void make_at(const char *p, int version, const char *rows)
{
	storefix_raw = 1;
	sqlite3 *db = storefix_db(p);
	storefix_raw = 0;
	CHECK(sqlfn_register(db) == SQLITE_OK); /* 003's store_pack_* aggregates */
	for (size_t i = 0; i < schema_nmigrations && schema_migrations[i].version <= version; i++)
		CHECK(sqlite3_exec(db, schema_migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
	char *sql = xasprintf("PRAGMA user_version = %d; %s", version, rows);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	free(sql);
	sqlite3_close(db);
}

/* 010: probes stored before it were configured as they measured; new rows keep both names. */
static void test_migrate_probes(void)
{
	char *p = storefix_path("v9.db");
	make_at(p, 9,
		"INSERT INTO routers (id, name, first_seen_ms) VALUES (1, 'ccr', 1000);"
		"INSERT INTO probes (router_id, time_ms, duration_ms, direction, offered_bps,"
		" delivered_bps) VALUES (1, 2000, 3000, 'transmit', 3e8, 3e8),"
		" (1, 3000, 3000, 'receive', 3e8, 2e8)");
	store_t *st = storefix_open(p);
	probe_t *pb = probe_new("ccr", 4000, "receive");
	pb->configured = "both";
	store_submit_probe(st, pb);
	store_flush(st);
	store_close(st);
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(direction || '/' || configured, ' ') FROM"
			  " (SELECT * FROM probes ORDER BY time_ms)"),
		"transmit/transmit receive/receive receive/both");
	probe_t **v = NULL;
	size_t n = 0;
	char *cause = NULL;
	CHECK_INT(history_probes(p, "ccr", 10, &v, &n, &cause), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(v[0]->configured, "both");
		CHECK_STR(v[0]->direction, "receive");
		CHECK_STR(v[1]->configured, "receive");
		CHECK_STR(v[2]->configured, "transmit");
	}
	history_probes_free(v, n);
	storefix_integrity(p);
	free(p);
}

static void count_progress(void *arg)
{
	(*(int *)arg)++;
}

/* 011: polls, WITHOUT ROWID before, becomes a rowid table with a unique (router_id, time_ms)
 * index: every row and value comes across, queries by router and time use the index, and a poll
 * stored again at the same time goes to the next free millisecond: it never replaces the old
 * row (issue 39). The progress hook is called. */
static void test_migrate_rowid(void)
{
	char *p = storefix_path("v10.db");
	make_at(p, 10,
		"INSERT INTO routers (id, name, first_seen_ms) VALUES (1, 'a', 1000), (2, 'b', 1000);"
		"INSERT INTO polls VALUES (2, 2000, 5, 'snmp', 'timeout', 'no answer', NULL, NULL,"
		" NULL, NULL, NULL), (1, 3000, 7, 'rest', NULL, NULL, x'0105', x'02', x'03', 800,"
		" x'04'), (1, 2000, 6, 'rest', NULL, NULL, x'0102', NULL, NULL, NULL, NULL)");
	CHECK_INT(
		storefix_int(p,
			"SELECT count(*) FROM sqlite_schema WHERE name = 'polls' AND sql LIKE '%WITHOUT ROWID%'"),
		1);
	int progress = 0;
	store_on_migrate_progress(count_progress, &progress);
	store_t *st = storefix_open(p);
	store_close(st);
	store_on_migrate_progress(NULL, NULL);
	CHECK(progress >= 1); /* told when 011 started */
	CHECK_INT(
		storefix_int(p,
			"SELECT count(*) FROM sqlite_schema WHERE name = 'polls' AND sql LIKE '%WITHOUT ROWID%'"),
		0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM sqlite_schema WHERE name = 'polls_new'"), 0);
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(router_id || '/' || time_ms || '/' || duration_ms || '/' ||"
			  " quote(source) || '/' || quote(err) || '/' || quote(error) || '/' || quote(cpu) ||"
			  " '/' || quote(ifaces) || '/' || quote(peers) || '/' || quote(cpu_mhz) || '/' ||"
			  " quote(health), ' ') FROM (SELECT * FROM polls ORDER BY rowid)"),
		"1/2000/6/'rest'/NULL/NULL/X'0102'/NULL/NULL/NULL/NULL"
		" 1/3000/7/'rest'/NULL/NULL/X'0105'/X'02'/X'03'/800/X'04'"
		" 2/2000/5/'snmp'/'timeout'/'no answer'/NULL/NULL/NULL/NULL/NULL");
	CHECK_STR(
		storefix_text(p,
			"SELECT group_concat(name, ',') FROM (SELECT i.name FROM pragma_index_list('polls') l,"
			" pragma_index_info(l.name) i WHERE l.name = 'polls_key' AND l.\"unique\" ORDER BY i.seqno)"),
		"router_id,time_ms");
	st = storefix_open(p);
	store_submit(st, storefix_sample("a", 3000, "7.16", "7.16", 1000000)); /* at the same time again */
	store_flush(st);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 4);
	CHECK_INT(storefix_int(p, "SELECT duration_ms FROM polls WHERE router_id = 1 AND time_ms = 3000"), 7);
	CHECK_INT(
		storefix_int(p, "SELECT duration_ms FROM polls WHERE router_id = 1 AND time_ms = 3001"), 12);
	CHECK_INT(storefix_int(p, "SELECT last_poll_ms FROM routers WHERE id = 1"), 3001);
	storefix_integrity(p);
	free(p);
}

/* 012: verdicts may have method matched-rate; every column of a verdict stored before comes
 * across, and the CHECK still refuses a method that does not exist. */
static void test_migrate_matched(void)
{
	char *p = storefix_path("v11.db");
	make_at(p, 11,
		"INSERT INTO routers (id, name, first_seen_ms) VALUES (1, 'ccr', 1000);"
		"INSERT INTO version_history (id, router_id, time_ms, kind) VALUES (7, 1, 5000, 'upgrade');"
		"INSERT INTO verdicts VALUES (7, 'wg0', 'tx', 'regression', 'cpu-cost', 1, 3.8e8, 1.3e8,"
		" 0.34, 0.95, 0.99, 240, 230, 1, 6000, 7000, '3', '', 'cpu clock 1400 -> 800 MHz'),"
		" (7, 'wg0', 'rx', 'insufficient-data', 'none', 0, NULL, NULL, NULL, NULL, NULL, 240, 3,"
		" 0, 6000, 7000, '', 'too few samples after the upgrade yet', '')");
	store_close(storefix_open(p));
	CHECK_STR(
		storefix_text(p,
			"SELECT group_concat(event_id || '/' || interface || '/' || direction || '/' || verdict"
			" || '/' || method || '/' || hint || '/' || quote(before_bps) || '/' || quote(after_bps)"
			" || '/' || quote(ratio) || '/' || quote(before_load) || '/' || quote(after_load) || '/'"
			" || before_n || '/' || after_n || '/' || final || '/' || reached_ms || '/' ||"
			" updated_ms || '/' || cores || '/' || why || '/' || confounders, ' ')"
			" FROM (SELECT * FROM verdicts ORDER BY direction)"),
		"7/wg0/rx/insufficient-data/none/0/NULL/NULL/NULL/NULL/NULL/240/3/0/6000/7000//too few"
		" samples after the upgrade yet/ 7/wg0/tx/regression/cpu-cost/1/380000000.0/130000000.0/"
		"0.34/0.95/0.99/240/230/1/6000/7000/3//cpu clock 1400 -> 800 MHz");
	/* 018: a verdict stored before states no error of its ratio */
	CHECK_STR(storefix_text(p, "SELECT group_concat(quote(ratio_rse), ' ') FROM verdicts"), "NULL NULL");
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "UPDATE verdicts SET method = 'matched-rate' WHERE direction = 'rx'", NULL,
		      NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "UPDATE verdicts SET method = 'guess' WHERE direction = 'rx'", NULL, NULL,
		      NULL) == SQLITE_CONSTRAINT);
	sqlite3_close(db);
	storefix_integrity(p);
	free(p);
}

static bool same_buf(const buf_t *a, const buf_t *b)
{
	return a->len > 0 && a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

/* 017 on a database whose closed days a schema-16 wgwatchd chunked (p: test_migrate_rollups's,
 * its hourly tier taken away): the job makes their hours from the chunks, a few series a step
 * (two here; 1,000 in wgwatchd), each step's series' hourly rows chunked in its transaction,
 * so that no step holds the writer for a whole fleet's day; no migration at start. */
static void test_migrate_hourly(const char *p)
{
	sqlite3 *db = storefix_db(p);
	CHECK(sqlite3_exec(db,
		      "DELETE FROM rollup_chunks WHERE kind >= 3; DROP TABLE cpu_rollup_1h;"
		      " DROP TABLE iface_rollup_1h; DROP TABLE peer_rollup_1h; DELETE FROM store_state"
		      " WHERE key IN ('rollup_1h_ms', 'rollup_1h_purged_ms');"
		      " ALTER TABLE verdicts DROP COLUMN ratio_rse; PRAGMA user_version = 16",
		      NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	store_t *st = storefix_open(p);
	CHECK_INT(storefix_int(p, "PRAGMA user_version"), 18);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3"), 0);
	st->rollchunk_series = 2; /* before the maintenance's hand-over: the writer reads it after */
	storefix_maintain(st);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3"), 10);
	char *sql = xasprintf("SELECT (SELECT count(*) FROM cpu_rollup_1h WHERE bucket_ms < %1$lld) +"
			      " (SELECT count(*) FROM iface_rollup_1h WHERE bucket_ms < %1$lld) +"
			      " (SELECT count(*) FROM peer_rollup_1h WHERE bucket_ms < %1$lld)",
		(long long)(ROLLFIX_D0 + 3 * ROLLSTORE_SPAN_MS));
	CHECK_INT(storefix_int(p, sql), 0); /* the closed days' hours all chunks; the open day's rows */
	CHECK(storefix_int(p, "SELECT count(*) FROM cpu_rollup_1h") > 0);
	free(sql);
	CHECK_INT(rollfix_hourly_wrong(p), 0);
	storefix_integrity(p);
}

/* 016: the roll-ups a schema-15 wgwatchd left, of every column kind (rollfix.h: NULL rates,
 * counters past 2^63 stored negative, rates of wide sums clamped), stay rows at start (016 only
 * adds rollup_chunks), read the same through the store_ tables, and move into chunks a closed
 * day a maintenance step; every value then reads back as it was. */
static void test_migrate_rollups(void)
{
	char *p = storefix_path("v15.db");
	make_at(p, 15, "");
	rollfix_fill(p);
	char *sql = xasprintf(
		"INSERT INTO store_state VALUES ('rollup_ms', %lld), ('rollup_purged_ms', %lld),"
		" ('raw_purged_ms', %lld), ('chunked_ms', %lld)",
		(long long)ROLLFIX_END, (long long)ROLLFIX_D0, (long long)ROLLFIX_END,
		(long long)ROLLFIX_END);
	sqlite3 *db = storefix_db(p);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	free(sql);
	buf_t want, got;
	buf_init(&want);
	buf_init(&got);
	int64_t rows = rollfix_all(p, "", "", &want);
	CHECK(rows > 3 * 288);
	store_t *st = storefix_open(p);
	CHECK_INT(storefix_int(p, "PRAGMA user_version"), 18);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 0);
	CHECK_INT(rollfix_all(p, "store_", "", &got), rows);
	CHECK(same_buf(&want, &got));
	atomic_store(&storefix_now, ROLLFIX_END + STORE_GRACE_MS);
	storefix_maintain(st);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind < 3"), 10);
	/* 017: the hourly tier made of the 5-minute roll-ups already stored, one chunk a series and
	 * day as well, each hour the sums of its 5-minute rows */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3"), 10);
	CHECK_INT(rollfix_hourly_wrong(p), 0);
	sql = xasprintf("SELECT value = %lld FROM store_state WHERE key = 'rollup_chunked_ms'",
		(long long)(ROLLFIX_D0 + 3 * ROLLSTORE_SPAN_MS));
	CHECK_INT(storefix_int(p, sql), 1);
	free(sql);
	CHECK_INT(storefix_int(p, "SELECT sum(nrows) FROM rollup_chunks WHERE kind < 3") +
			storefix_int(p,
				"SELECT (SELECT count(*) FROM cpu_rollup) + (SELECT count(*) FROM"
				" iface_rollup) + (SELECT count(*) FROM peer_rollup)"),
		rows);
	buf_reset(&got);
	CHECK_INT(rollfix_all(p, "store_", "", &got), rows);
	CHECK(same_buf(&want, &got));
	buf_free(&want);
	buf_free(&got);
	storefix_integrity(p);
	test_migrate_hourly(p);
	free(p);
}

int main(void)
{
	if (storefix_begin("storemigrate_test") < 0)
		return 99;
	test_migrate_v2();
	test_migrate_probes();
	test_migrate_rowid();
	test_migrate_matched();
	test_migrate_rollups();
	return unitfs_end(unit_done("storemigrate_test"));
}
