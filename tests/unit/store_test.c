/* SPDX-License-Identifier: Apache-2.0 */
/* store_test: the SQLite store on temp files: a fresh database, refusal of bad or busy ones,
 * version history, counter deltas across reboots, resets and clock steps, roll-ups and
 * retention driven by a fake clock, a failing commit that is kept and written later, and ingest
 * figures. Migrations are storemigrate_test's, the readers storehistory_test's. It links the
 * store; store_int.h gives it the writer's fields and the clock seam. */
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
#include "unit.h"

static void test_fresh(void)
{
	char *p = storefix_path("fresh.db");
	store_t *st = storefix_open(p);
	CHECK(st != NULL);
	CHECK(store_heartbeat_ms(st) > 0);
	int cache = 0; /* the writer's: a commit of 100 routers' polls must not spill */
	CHECK(db_query_int(st->db, "PRAGMA cache_size", &cache) == 0 && cache == -8192);
	struct store_stats ss;
	store_get_stats(st, &ss);
	CHECK(!ss.failing && ss.queued == 0 && ss.polls_stored == 0);
	store_close(st);
	CHECK_INT(storefix_int(p, "PRAGMA user_version"),
		(int64_t)schema_migrations[schema_nmigrations - 1].version);
	CHECK_STR(storefix_text(p, "PRAGMA journal_mode"), "wal");
	/* 001-initial: 12 tables, 002-verdicts: 2, 003-packed: -3 (packed into polls), 006: 1,
	 * 007-diag: 2, 008-rollout-allow: 1, 014-evidence-fleet: 1, 015-chunks: 1,
	 * 016-rollup-chunks: 1, 017-rollup-hourly: 3 */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 21);
	/* 014: one fleet evidence id of 32 hex digits, made once */
	CHECK_INT(
		storefix_int(p,
			"SELECT count(*) FROM evidence_fleet WHERE length(id) = 32 AND id NOT GLOB '*[^0-9a-f]*'"),
		1);
	storefix_integrity(p);
	free(p);
}

static void submit_history(store_t *st)
{
	store_submit(st, storefix_sample("r1", STOREFIX_T0, "7.15.3", "7.15.3", 100000));
	store_submit(st, storefix_sample("r1", STOREFIX_T0 + 30000, "7.15.3", "7.15.3", 130000));
	store_submit(st, storefix_sample("r1", STOREFIX_T0 + 60000, "7.16", "7.15.3", 5000)); /* upgrade */
	store_submit(st, storefix_sample("r1", STOREFIX_T0 + 90000, "7.16", "7.16", 35000));  /* firmware */
	store_submit(st, storefix_sample("r1", STOREFIX_T0 + 120000, "7.16", "7.16", 3000));  /* reboot */
	store_submit(st, storefix_sample("r1", STOREFIX_T0 + 150000, "7.9", "7.16", 4000));   /* downgrade */
	sample_t *f = sample_new("r1", STOREFIX_T0 + 180000, "rest");
	sample_fail(f, SAMPLE_ERR_TIMEOUT, "no answer within %ds", 10);
	store_submit(st, f);
}

#define KINDS                                                              \
	"SELECT group_concat(kind) FROM (SELECT kind FROM version_history" \
	" WHERE router_id = (SELECT id FROM routers WHERE name = 'r1') ORDER BY id)"

static void test_history(void)
{
	char *p = storefix_path("hist.db");
	store_t *st = storefix_open(p);
	submit_history(st);
	store_flush(st);
	struct store_stats ss;
	store_get_stats(st, &ss);
	CHECK_INT(ss.polls_stored, 7);
	CHECK(ss.last_commit_ms > 0);
	store_close(st);
	CHECK_STR(storefix_text(p, KINDS), "first,upgrade,firmware,reboot,downgrade");
	CHECK_STR(storefix_text(p,
			  "SELECT old_version || '>' || new_version FROM version_history"
			  " WHERE kind = 'upgrade'"),
		"7.15.3>7.16");
	CHECK_STR(storefix_text(p,
			  "SELECT old_firmware || '>' || new_firmware FROM version_history"
			  " WHERE kind = 'firmware'"),
		"7.15.3>7.16");
	CHECK_STR(storefix_text(p, "SELECT version || ' ' || board || ' ' || architecture FROM routers"),
		"7.9 RB5009UG+S+ arm64");
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls WHERE err = 'timeout'"), 1);
	CHECK_INT(storefix_int(p, "SELECT last_poll_ms - last_ok_ms FROM routers"), 30000);

	/* Reopen: everything is kept and a continuing router makes no false event. */
	st = storefix_open(p);
	store_submit(st, storefix_sample("r1", STOREFIX_T0 + 210000, "7.9", "7.16", 64000));
	store_submit(st, storefix_sample("r2", STOREFIX_T0 + 210000, "7.22.3", NULL, 1000));
	store_close(st);
	CHECK_STR(storefix_text(p, KINDS), "first,upgrade,firmware,reboot,downgrade");
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 9);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM version_history WHERE kind = 'first'"), 2);
	storefix_integrity(p);
	free(p);
}

static sample_t *mk_counters(int64_t t, int64_t up, uint64_t rx, uint64_t tx)
{
	sample_t *s = storefix_sample("r1", t, "7.16", "7.16", up);
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0");
	f->type = xstrdup("wg");
	f->rx_bytes = rx;
	f->tx_bytes = tx;
	struct sample_peer *pe = sample_add_peer(s);
	pe->interface = xstrdup("wg0");
	pe->peer = xstrdup("laptop");
	pe->public_key = xstrdup("KEY+abc=");
	pe->rx_bytes = rx / 2;
	pe->tx_bytes = tx / 2;
	pe->last_handshake_ms = 5000;
	f = sample_add_iface(s);
	f->name = xstrdup("big");
	f->rx_bytes = UINT64_MAX - 1000 + (uint64_t)(t - STOREFIX_T0) / 10000;
	s->have_peers = true;
	return s;
}

static void test_rates(void)
{
	char *p = storefix_path("rates.db");
	store_t *st = storefix_open(p);
	store_submit(st, mk_counters(STOREFIX_T0, 1000000, 1000, 500));
	store_submit(st, mk_counters(STOREFIX_T0 + 10000, 1010000, 11000, 1500));
	store_submit(st, mk_counters(STOREFIX_T0 + 20000, 2000, 500, 100));  /* reboot */
	store_submit(st, mk_counters(STOREFIX_T0 + 30000, 12000, 100, 200)); /* reset-counters */
	store_submit(st, mk_counters(STOREFIX_T0 + 40000, 22000, 1100, 300));
	store_close(st);
	st = storefix_open(p); /* deltas go on */
	store_submit(st, mk_counters(STOREFIX_T0 + 50000, 32000, 2100, 400));
	store_close(st);
	const char *wg0 = "FROM iface_samples WHERE iface_id = (SELECT id FROM interfaces"
			  " WHERE name = 'wg0')";
	char *sql = xasprintf("SELECT group_concat(d) FROM (SELECT rx_delta || '/' || tx_delta"
			      " || '/' || reset AS d %s ORDER BY time_ms)",
		wg0);
	/* reset-counters (rx down, no reboot): a reset with no delta, not 100 counted from 0 */
	CHECK_STR(storefix_text(p, sql), "10000/1000/0,500/100/1,1000/100/0,1000/100/0");
	free(sql);
	sql = xasprintf("SELECT count(*) %s AND (rx_delta < 0 OR tx_delta < 0"
			" OR rx_delta > 1000000 OR tx_delta > 1000000)",
		wg0);
	CHECK_INT(storefix_int(p, sql), 0);
	free(sql);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM iface_samples WHERE dt_ms IS NULL"), 3);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM iface_samples WHERE dt_ms IS NULL AND reset"), 1);
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(rx_delta) FROM (SELECT rx_delta FROM peer_samples"
			  " ORDER BY time_ms)"),
		"5000,250,500,500");
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM peers"), 1);
	/* counters over 2^63 read back intact */
	CHECK(storefix_int(p,
		      "SELECT rx_bytes FROM iface_samples WHERE time_ms = 1699999850000 AND"
		      " iface_id = (SELECT id FROM interfaces WHERE name = 'big')") ==
		(int64_t)(UINT64_MAX - 1000 + 5));
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM version_history WHERE kind = 'reboot'"), 1);
	storefix_integrity(p);
	free(p);
}

static sample_t *mk_load(int64_t t, int k, double load0, uint64_t rx)
{
	sample_t *s = storefix_sample("r1", t, "7.16", "7.16", 1000000 + (int64_t)k * 60000);
	sample_set_cores(s, 2);
	s->cores[0].load = load0;
	s->cores[1].load = 0.5;
	s->cores[1].irq = 0.02;
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0");
	f->rx_bytes = rx;
	f->tx_bytes = rx / 4;
	return s;
}

static void test_rollup(void)
{
	char *p = storefix_path("rollup.db");
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	static const uint64_t rx[10] = { 0, 60000, 120000, 300000, 360000, 420000, 480000, 540000, 600000,
		660000 };
	for (int k = 0; k < 10; k++)
		store_submit(st, mk_load(STOREFIX_T0 + k * 60000, k, k < 5 ? (k + 1) * 0.1 : 0.9, rx[k]));
	store_flush(st);
	atomic_store(&storefix_now, STOREFIX_T0 + 600000 + STORE_GRACE_MS);
	storefix_maintain(st);
	const char *c0 = "FROM store_cpu_rollup WHERE core = 0 AND bucket_ms = 1699999800000";
	char *sql = xasprintf("SELECT n || ' ' || load_min || ' ' || load_avg || ' ' || load_max %s", c0);
	CHECK_STR(storefix_text(p, sql), "5 100 300 500");
	free(sql);
	CHECK_INT(
		storefix_int(p,
			"SELECT load_avg FROM store_cpu_rollup WHERE core = 0 AND bucket_ms = 1700000100000"),
		900);
	CHECK_INT(
		storefix_int(p,
			"SELECT load_avg FROM store_cpu_rollup WHERE core = 1 AND bucket_ms = 1700000100000"),
		500);
	CHECK_STR(storefix_text(p,
			  "SELECT n || ' ' || rx_rate_avg || ' ' || rx_rate_max || ' ' || rx_bytes_end"
			  " || ' ' || tx_rate_avg FROM store_iface_rollup WHERE bucket_ms = 1699999800000"),
		"5 1500 3000 360000 375");
	CHECK_INT(
		storefix_int(p, "SELECT rx_rate_avg FROM store_iface_rollup WHERE bucket_ms = 1700000100000"),
		1000);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_cpu_rollup"), 4);
	/* a late sample (stamped behind the roll-up mark) has its bucket rolled up again, with it;
	 * its counter went back with no reboot known: no delta, the bucket's rate stands */
	sample_t *late = mk_load(STOREFIX_T0 + 30000, 0, 1.0, 30000);
	late->uptime_ms = -1;
	store_submit(st, late);
	store_flush(st);
	storefix_maintain(st);
	CHECK_INT(storefix_int(
			  p, "SELECT n FROM store_cpu_rollup WHERE core = 0 AND bucket_ms = 1699999800000"),
		6);
	CHECK_INT(
		storefix_int(p,
			"SELECT load_max FROM store_cpu_rollup WHERE core = 0 AND bucket_ms = 1699999800000"),
		1000);
	CHECK_INT(
		storefix_int(p, "SELECT rx_rate_avg FROM store_iface_rollup WHERE bucket_ms = 1699999800000"),
		1500);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM cpu_samples"), 22);

	/* after the raw retention (1 day) the raw rows are gone, the roll-ups stay */
	atomic_store(&storefix_now, STOREFIX_T0 + STORE_DAY_MS + 2 * 3600000);
	storefix_maintain(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM cpu_samples"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM iface_samples"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_cpu_rollup"), 4);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_iface_rollup"), 2);
	/* after the roll-up retention (3 days) they go too; history stays */
	atomic_store(&storefix_now, STOREFIX_T0 + 3 * STORE_DAY_MS + 2 * 3600000);
	storefix_maintain(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_cpu_rollup"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_iface_rollup"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM version_history"), 1);
	store_close(st);
	storefix_integrity(p);
	free(p);
}

static bool same_file(const char *path, const char *want, size_t n)
{
	char got[8192];
	FILE *f = fopen(path, "rb");
	size_t r = f ? fread(got, 1, sizeof(got), f) : 0;
	if (f)
		fclose(f);
	return r == n && memcmp(got, want, n) == 0;
}

static void test_refusals(void)
{
	char garbage[8192];
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)('a' + i % 26);
	char *p = storefix_path("garbage.db");
	FILE *f = fopen(p, "wb");
	CHECK(f != NULL && fwrite(garbage, 1, sizeof(garbage), f) == sizeof(garbage));
	fclose(f);
	storefix_open_fails(p, "not a SQLite database");
	CHECK(same_file(p, garbage, sizeof(garbage)));
	char *wal = xasprintf("%s-wal", p);
	CHECK(access(wal, F_OK) != 0);
	free(wal);
	free(p);

	/* a newer schema than we know */
	p = storefix_path("newer.db");
	store_close(storefix_open(p));
	sqlite3 *db = storefix_db(p);
	CHECK(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	storefix_open_fails(p, "newer than this wgwatchd");
	CHECK_INT(storefix_int(p, "PRAGMA user_version"), 99);
	free(p);

	/* a second open of the same database */
	p = storefix_path("locked.db");
	store_t *st = storefix_open(p);
	char *want = xasprintf("is in use by another process (pid %ld)", (long)getpid());
	storefix_open_fails(p, want);
	free(want);
	/* the same file under another name (issue 21 item 12): a hard link is the same database */
	char *link2 = storefix_path("locked-link.db");
	CHECK(link(p, link2) == 0);
	storefix_open_fails(link2, "in use by another process, under another name");
	store_close(st);
	st = storefix_open(link2);
	storefix_open_fails(p, "in use by another process, under another name");
	store_close(st);
	free(link2);
	st = storefix_open(p);
	CHECK(st != NULL);
	store_close(st);
	free(p);
}

/* A valid header with a damaged page in the middle is refused, not replaced. */
static void test_corrupt(void)
{
	char *p = storefix_path("corrupt.db");
	sqlite3 *db = storefix_db(p);
	CHECK(sqlite3_exec(db,
		      "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT);"
		      "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3000)"
		      " INSERT INTO t SELECT i, printf('%0100d', i) FROM c;",
		      NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	int fd = open(p, O_RDWR);
	char junk[4096];
	memset(junk, 0x5a, sizeof(junk));
	CHECK(fd >= 0 && pwrite(fd, junk, sizeof(junk), 4096 * 5) == (ssize_t)sizeof(junk));
	close(fd);
	storefix_open_fails(p, p);
	struct stat sb;
	CHECK(stat(p, &sb) == 0 && sb.st_size > 100000);
	free(p);
}

/* ---- roll-ups (rollup.c) against the SQL over the views that wrote them before ---- */

#define RU_RATES(tab, col)                                                                              \
	"INSERT OR REPLACE INTO " tab "_rollup SELECT " col ", b, count(*),"                            \
	" CAST(round(sum(rx_delta) * 1000.0 / sum(dt_ms)) AS INTEGER),"                                 \
	" CAST(round(max(rx_delta * 1000.0 / dt_ms)) AS INTEGER),"                                      \
	" CAST(round(sum(tx_delta) * 1000.0 / sum(dt_ms)) AS INTEGER),"                                 \
	" CAST(round(max(tx_delta * 1000.0 / dt_ms)) AS INTEGER),"                                      \
	" (SELECT e.rx_bytes FROM " tab "_samples e WHERE e.router_id = s.router_id AND e.time_ms >= b" \
	"  AND e.time_ms < b + 300000 AND e." col " = s." col " ORDER BY e.time_ms DESC LIMIT 1),"      \
	" (SELECT e.tx_bytes FROM " tab "_samples e WHERE e.router_id = s.router_id AND e.time_ms >= b" \
	"  AND e.time_ms < b + 300000 AND e." col " = s." col " ORDER BY e.time_ms DESC LIMIT 1)"       \
	" FROM (SELECT *, time_ms - time_ms % 300000 AS b FROM " tab "_samples WHERE router_id IN"      \
	" (SELECT id FROM routers) AND time_ms >= ?1 AND time_ms < ?2) s GROUP BY " col ", b"

static const char *const ru_views_sql[] = {
	"INSERT OR REPLACE INTO cpu_rollup SELECT router_id, time_ms - time_ms % 300000, core,"
	" count(*), min(load), CAST(round(avg(load)) AS INTEGER), max(load) FROM cpu_samples"
	" WHERE router_id IN (SELECT id FROM routers) AND time_ms >= ?1 AND time_ms < ?2"
	" GROUP BY router_id, time_ms / 300000, core",
	RU_RATES("iface", "iface_id"),
	RU_RATES("peer", "peer_id"),
};

/* Router "a" every 9 s: 4 cores, then 6 from 60 min; wg0, ether1 and (from 30 min) wg1; peers
 * p0..p4, p3 gone from 50 min, p5 from 70 min; a reboot at 80 min; every 23rd poll fails.
 * Router "b" every 30 s: one core, one interface whose counter starts at 2^62 and goes back now
 * and then. */
static sample_t *ru_poll(const char *router, int64_t k, int64_t t)
{
	bool a = router[0] == 'a';
	int64_t min = (t - STOREFIX_T0) / 60000,
		since = a && min >= 80 ? t - (STOREFIX_T0 + 80 * 60000) : t - STOREFIX_T0;
	sample_t *s = storefix_sample(router, t, "7.22.3", "7.22.3", 1000 + since);
	if (a && k % 23 == 7) {
		sample_fail(s, SAMPLE_ERR_TIMEOUT, "timed out");
		return s;
	}
	sample_set_cores(s, !a ? 1 : min >= 60 ? 6 : 4);
	for (size_t c = 0; c < s->ncores; c++)
		s->cores[c].load = (double)((k * 37 + (int64_t)c * 101) % 1000) / 1000.0;
	static const char *const names[] = { "wg0", "ether1", "wg1" };
	for (int i = 0; i < (!a ? 1 : min >= 30 ? 3 : 2); i++) {
		struct sample_iface *f = sample_add_iface(s);
		f->name = xstrdup(names[i]);
		f->type = xstrdup(i == 1 ? "ether" : "wg");
		f->rx_bytes = (uint64_t)(since / 1000) * (uint64_t)(1000 + 7 * (k % 13)) +
			(a ? 0 : (1ULL << 62));
		f->tx_bytes = (uint64_t)(since / 1000) * (uint64_t)(300 + i);
	}
	for (int i = 0; a && i < 6; i++) {
		if ((i == 3 && min >= 50) || (i == 5 && min < 70))
			continue;
		struct sample_peer *pe = sample_add_peer(s);
		pe->interface = sample_strdup(s, "wg0");
		pe->public_key = xasprintf("KEY%d=", i);
		pe->peer = xasprintf("p%d", i);
		pe->rx_bytes = (uint64_t)(since / 1000) * (uint64_t)(50 * i + (k % 5));
		pe->tx_bytes = (uint64_t)(since / 1000) * (uint64_t)(20 * i);
		pe->last_handshake_ms = 1000 * (k % 90);
	}
	s->have_peers = a;
	return s;
}

static int64_t ru_differ(const char *p, const char *table)
{
	char *sql = xasprintf(
		"SELECT (SELECT count(*) FROM (SELECT * FROM c_%s EXCEPT SELECT * FROM store_%s))"
		" + (SELECT count(*) FROM (SELECT * FROM store_%s EXCEPT SELECT * FROM c_%s))",
		table, table, table, table);
	int64_t n = storefix_int(p, sql);
	free(sql);
	return n;
}

static void test_rollup_views(void)
{
	char *p = storefix_path("rollup-views.db");
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	int64_t end = STOREFIX_T0 + 140 * 60000, ka = 0, kb = 0;
	for (int64_t t = STOREFIX_T0 + 3000; t < end; t += 1000) {
		if ((t - STOREFIX_T0) % 9000 == 3000)
			store_submit(st, ru_poll("a", ka++, t));
		if ((t - STOREFIX_T0) % 30000 == 4000)
			store_submit(st, ru_poll("b", kb++, t));
	}
	store_flush(st);
	atomic_store(&storefix_now, end + STORE_GRACE_MS + 300000);
	storefix_maintain(st);
	store_close(st);
	/* the buckets before midnight (STOREFIX_T0 is 22:10 UTC) are chunks, compared as read: two
	 * routers' cores, four interfaces, six peers */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind < 3"), 2 + 4 + 6);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3"), 2 + 4 + 6);
	static const char *const tables[] = { "cpu_rollup", "iface_rollup", "peer_rollup" };
	sqlite3 *db = storefix_db(p);
	for (size_t i = 0; i < 3; i++) {
		char *sql = xasprintf("CREATE TABLE c_%s AS SELECT * FROM store_%s; DELETE FROM %s",
			tables[i], tables[i], tables[i]);
		CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
		free(sql);
	}
	for (size_t i = 0; i < 3; i++) {
		sqlite3_stmt *q = NULL;
		CHECK(sqlite3_prepare_v2(db, ru_views_sql[i], -1, &q, NULL) == SQLITE_OK);
		sqlite3_bind_int64(q, 1, STOREFIX_T0);
		sqlite3_bind_int64(q, 2, end - end % 300000);
		CHECK(sqlite3_step(q) == SQLITE_DONE);
		sqlite3_finalize(q);
	}
	CHECK(sqlite3_exec(db, "DELETE FROM rollup_chunks", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	for (size_t i = 0; i < 3; i++)
		CHECK_INT(ru_differ(p, tables[i]), 0);
	/* and the case is not empty: 28 buckets of a (4, then 6 cores) and of b (1) */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM c_cpu_rollup"), 12 * 4 + 16 * 6 + 28);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM c_peer_rollup WHERE rx_rate_avg IS NULL"), 0);
	CHECK(storefix_int(p, "SELECT count(*) FROM c_iface_rollup") > 28 * 3);
	storefix_integrity(p);
	free(p);
}

/* A counter past 2^63 counted from zero poll after poll (a reboot each time; a counter that
 * only goes back has no delta since issue 39): each delta is clamped to INT64_MAX, and a bucket's
 * sum of them overflows 64 bits. The SQL's sum() failed there, every retry, so roll-ups (and the
 * raw purge behind them) stopped for good; now the bucket is written. */
static void test_rollup_wide(void)
{
	char *p = storefix_path("rollup-wide.db");
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	for (int k = 0; k < 60; k++) {
		sample_t *s = storefix_sample(
			"w", STOREFIX_T0 + k * 10000, "7.22.3", "7.22.3", 1000); /* up 1 s: rebooted */
		struct sample_iface *f = sample_add_iface(s);
		f->name = xstrdup("wg0");
		f->type = xstrdup("wg");
		f->rx_bytes = UINT64_MAX - (uint64_t)k;
		f->tx_bytes = 1000; /* since each reboot: 100 B/s */
		store_submit(st, s);
	}
	store_flush(st);
	atomic_store(&storefix_now, STOREFIX_T0 + 600000 + STORE_GRACE_MS);
	storefix_maintain(st);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT value FROM store_state WHERE key = 'rollup_ms'"),
		STOREFIX_T0 + 600000);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_iface_rollup"), 2);
	CHECK_INT(
		storefix_int(p,
			"SELECT count(*) FROM store_iface_rollup WHERE rx_rate_avg > 1e17 AND tx_rate_avg = 100"),
		2);
	sqlite3 *db = storefix_db(p); /* what the views' SQL made of it */
	sqlite3_stmt *q = NULL;
	CHECK(sqlite3_prepare_v2(db, ru_views_sql[1], -1, &q, NULL) == SQLITE_OK);
	sqlite3_bind_int64(q, 1, STOREFIX_T0);
	sqlite3_bind_int64(q, 2, STOREFIX_T0 + 600000);
	CHECK(sqlite3_step(q) == SQLITE_ERROR && strcmp(sqlite3_errmsg(db), "integer overflow") == 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	free(p);
}

static sample_t *mk_wide(const char *router, int64_t t, int nifaces)
{
	sample_t *s = storefix_sample(router, t, "7.16", "7.16", 1000 + t - STOREFIX_T0);
	for (int i = 0; i < nifaces; i++) {
		struct sample_iface *f = sample_add_iface(s);
		f->name = xasprintf("wireguard-tunnel-to-branch-office-%04d", i);
		f->type = xstrdup("wg");
		f->rx_bytes = (uint64_t)(t - STOREFIX_T0) * 1000 + (uint64_t)i;
	}
	return s;
}

/* 005: the CPU clock per poll and each interface's MTU, errors, tx-queue-drop and running. */
static void test_links(void)
{
	char *p = storefix_path("links.db");
	store_t *st = storefix_open(p);
	for (int k = 0; k < 2; k++) {
		sample_t *s = storefix_sample(
			"r1", STOREFIX_T0 + k * 10000, "7.16", "7.16", 1000000 + k * 10000);
		s->cpu_freq_mhz = k ? 800 : 0; /* 0: the board did not tell */
		struct sample_iface *f = sample_add_iface(s);
		f->name = xstrdup("ether1");
		f->type = xstrdup("ether");
		f->running = true;
		f->mtu = 1500;
		f->rx_errors = 3;
		f->tx_errors = 12 + (uint64_t)k;
		f->tx_queue_drops = (UINT64_C(1) << 40) + (uint64_t)k * 120;
		f = sample_add_iface(s);
		f->name = xstrdup("wg0");
		f->type = xstrdup("wg");
		store_submit(st, s);
	}
	store_close(st);
	CHECK_STR(
		storefix_text(p,
			"SELECT group_concat(coalesce(cpu_mhz, '-')) FROM (SELECT cpu_mhz FROM polls ORDER BY time_ms)"),
		"-,800");
	CHECK_STR(
		storefix_text(p,
			"SELECT group_concat(i.name || '/' || coalesce(s.mtu, '-') || '/' || s.running || '/' ||"
			" s.rx_errors || '/' || s.tx_errors || '/' || s.tx_queue_drops, ' ') FROM (SELECT * FROM"
			" iface_samples ORDER BY time_ms, iface_id) s JOIN interfaces i ON i.id = s.iface_id"),
		"ether1/1500/1/3/12/1099511627776 wg0/-/0/0/0/0 ether1/1500/1/3/13/1099511627896 wg0/-/0/0/0/0");
	storefix_integrity(p);
	free(p);
}

/* Issue 21 item 7: the WAL, or the database file itself, deleted or replaced while the writer
 * has it open. The writer must notice, stop writing and say why (it went on "healthy" before
 * while readers saw another file). */
static void test_files_gone(void)
{
	const char *what[] = { "wal", "db" };
	for (int i = 0; i < 2; i++) {
		char *p = storefix_path(i == 0 ? "gone-wal.db" : "gone-db.db");
		store_t *st = storefix_open(p);
		store_submit(st, mk_wide("r0", STOREFIX_T0, 1));
		store_flush(st);
		struct store_stats ss;
		store_get_stats(st, &ss);
		CHECK(!ss.failing && !ss.files_gone && ss.polls_stored == 1);
		char *victim = i == 0 ? xasprintf("%s-wal", p) : xstrdup(p);
		char *aside = xasprintf("%s.aside", victim);
		CHECK_INT(rename(victim, aside), 0);
		if (i == 1) { /* a restore over it: a file of the same name, another inode */
			int fd = open(victim, O_CREAT | O_WRONLY, 0644);
			CHECK(fd >= 0 && close(fd) == 0);
		}
		store_submit(st, mk_wide("r0", STOREFIX_T0 + 30000, 1));
		storefix_wait_write_error(st);
		store_get_stats(st, &ss);
		CHECK(ss.failing && ss.files_gone);
		CHECK(strstr(ss.last_error,
			      i == 0 ? "write-ahead log" : "database file was deleted or replaced") != NULL);
		printf("  %s gone: %s\n", what[i], ss.last_error);
		CHECK_INT(ss.polls_stored, 1);
		store_close(st);
		free(victim);
		free(aside);
		free(p);
	}
}

static void test_fault(void)
{
	char *p = storefix_path("fault.db");
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	store_submit(st, mk_wide("r0", STOREFIX_T0, 1));
	store_flush(st);
	CHECK(sqlite3_exec(st->db, "PRAGMA max_page_count = 1", NULL, NULL, NULL) == SQLITE_OK);
	store_submit(st, mk_wide("big", STOREFIX_T0, 300));
	storefix_wait_write_error(st);
	store_queue_max = 5;
	for (int k = 1; k <= 20; k++)
		store_submit(st, mk_wide("r0", STOREFIX_T0 + k * 30000, 1));
	struct store_stats ss;
	store_get_stats(st, &ss);
	CHECK(ss.failing);
	CHECK(strstr(ss.last_error, "full") != NULL);
	CHECK_INT(ss.dropped, 15);
	CHECK_INT(ss.queued, 6);
	CHECK_INT(ss.polls_stored, 1);
	CHECK(sqlite3_exec(st->db, "PRAGMA max_page_count = 1073741823", NULL, NULL, NULL) == SQLITE_OK);
	store_flush(st);
	store_get_stats(st, &ss);
	CHECK(!ss.failing);
	CHECK(ss.write_errors >= 1);
	CHECK_INT(ss.polls_stored, 7);
	CHECK_INT(ss.queued, 0);
	store_queue_max = 100000;
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 7);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM interfaces"), 301);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM iface_samples"), 306);
	CHECK_INT(storefix_int(p, "SELECT max(time_ms) FROM polls"), STOREFIX_T0 + 20 * 30000);
	storefix_integrity(p);
	free(p);
}

static sample_t *mk_bench(int kind, int k)
{
	int64_t t = STOREFIX_T0 + (int64_t)k * 30000;
	sample_t *s = storefix_sample(kind == 0 ? "ifaces"
			: kind == 1             ? "cores"
						: "peers",
		t, "7.16", "7.16", 86400000 + (int64_t)k * 30000);
	if (kind == 1) {
		sample_set_cores(s, 8);
		for (int i = 0; i < 8; i++)
			s->cores[i].load = (double)((k * 7 + i * 13) % 100) / 100;
	}
	for (int i = 0; kind != 1 && i < 100; i++) {
		uint64_t base = 40000000000ULL + (uint64_t)k * (uint64_t)(2000 + i * 37) * 30;
		if (kind == 0) {
			struct sample_iface *f = sample_add_iface(s);
			f->name = xasprintf("wg%d", i);
			f->type = xstrdup("wg");
			f->rx_bytes = base;
			f->tx_bytes = base / 3;
			f->rx_packets = base / 900;
			f->tx_packets = base / 1000;
			f->rx_drops = (uint64_t)k / 100;
			continue;
		}
		struct sample_peer *pe = sample_add_peer(s);
		pe->interface = xstrdup("wg0");
		pe->peer = xasprintf("site-%d", i);
		pe->public_key = xasprintf("%043dabc=", i);
		pe->rx_bytes = base;
		pe->tx_bytes = base / 3;
		pe->last_handshake_ms = (k * 30000 + i * 1000) % 120000;
	}
	return s;
}

static void bench_size(const char *p, const char *table)
{
	char *sql = xasprintf("SELECT (SELECT sum(pgsize) FROM dbstat WHERE name = '%s'),"
			      " (SELECT count(*) FROM %s)",
		table, table);
	sqlite3 *db = storefix_db(p);
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW) {
		int64_t bytes = sqlite3_column_int64(q, 0), rows = sqlite3_column_int64(q, 1);
		printf("  %-14s %7" PRId64 " rows %9" PRId64 " bytes: %5.1f bytes/row on disk\n", table, rows,
			bytes, rows ? (double)bytes / (double)rows : 0.0);
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	free(sql);
}

static void test_bench(void)
{
	char *p = storefix_path("bench.db");
	static const int polls[3] = { 1000, 12500, 1000 }; /* 100k rows each */
	static const char *const what[3] = { "interface", "cpu", "peer" };
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	st->retention_ms = 35 * STORE_DAY_MS; /* read by the writer after storefix_maintain() locks */
	st->rollup_retention_ms = 400 * STORE_DAY_MS;
	for (int kind = 0; kind < 3; kind++) {
		double t0 = storefix_seconds();
		for (int k = 0; k < polls[kind]; k++)
			store_submit(st, mk_bench(kind, k));
		store_flush(st);
		double dt = storefix_seconds() - t0;
		printf("  ingest: 100000 %s rows (%d polls) in %.2f s: %.0f rows/s\n", what[kind],
			polls[kind], dt, 100000 / dt);
	}
	atomic_store(&storefix_now, STOREFIX_T0 + 12500LL * 30000 + 600000);
	double t0 = storefix_seconds();
	storefix_maintain(st);
	printf("  roll-up of %.0f h of raw samples: %.2f s\n", 12500 * 30 / 3600.0, storefix_seconds() - t0);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM iface_samples"), 100000);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM cpu_samples"), 100000);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM peer_samples"), 100000);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_cpu_rollup"), 12500 / 10 * 8);
	CHECK_INT(storefix_int(p, "SELECT max(rx_rate_max) FROM store_iface_rollup"), (2000 + 99 * 37));
	static const char *const tables[] = { "polls", "cpu_samples", "iface_samples", "peer_samples",
		"cpu_rollup", "iface_rollup", "peer_rollup" };
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		bench_size(p, tables[i]);
	storefix_integrity(p);
	free(p);
}

/* A poll of router cs: 1000 B/s on wg0 since mono 0, uptime 10 days and mono, one core. */
static sample_t *mk_step(int64_t wall, int64_t mono)
{
	sample_t *s = storefix_sample("cs", wall, "7.16", "7.16", 864000000 + mono);
	s->mono_ms = mono;
	sample_set_cores(s, 1);
	s->cores[0].load = 0.25;
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0");
	f->type = xstrdup("wg");
	f->rx_bytes = (uint64_t)mono;
	f->tx_bytes = (uint64_t)mono / 2;
	struct sample_peer *pe = sample_add_peer(s);
	pe->interface = xstrdup("wg0");
	pe->peer = xstrdup("laptop");
	pe->public_key = xstrdup("KEY+cs=");
	pe->rx_bytes = (uint64_t)mono;
	pe->last_handshake_ms = 5000;
	s->have_peers = true;
	return s;
}

#define STEP_MS (6 * 3600000LL)

#define WG0_CS \
	"FROM iface_samples WHERE iface_id = (SELECT id FROM interfaces WHERE name = 'wg0' AND router_id = (SELECT id FROM routers WHERE name = 'cs'))"

/* How many buckets from STOREFIX_T0 + from_s on show a wg0 rate in the history API's series; *peer_ms
 * (unless NULL): the time of the peer's newest sample there. */
/* Buckets of the history [STOREFIX_T0, STOREFIX_T0 + to_s) starting at from_s or later: how many have a rate
 * (the return), how many of them start at or before the last poll, to_s - 10 (*all), and their
 * width (*bucket_ms). */
static int history_rated(
	const char *p, int64_t from_s, int64_t to_s, int64_t *peer_ms, int *all, int64_t *bucket_ms)
{
	history_t *h = NULL;
	char *cause = NULL;
	struct history_req hq = {
		.db_path = p, .router = "cs", .from_ms = STOREFIX_T0, .to_ms = STOREFIX_T0 + to_s * 1000
	};
	CHECK_INT(history_load(&hq, &h, &cause), 0);
	free(cause);
	if (peer_ms != NULL)
		*peer_ms = h != NULL && h->npeers == 1 ? h->peers[0].time_ms : -1;
	int n = 0;
	*all = 0;
	*bucket_ms = h != NULL ? h->bucket_ms : 0;
	for (size_t b = 0; h != NULL && h->nifaces == 1 && b < h->nbuckets; b++) {
		int64_t start = h->from_ms + (int64_t)b * h->bucket_ms;
		bool in = start >= STOREFIX_T0 + from_s * 1000;
		*all += in && start <= STOREFIX_T0 + (to_s - 10) * 1000;
		n += in && !isnan(h->ifaces[0].rx_bps[b]);
	}
	history_free(h);
	return n;
}

/* Issue 39 item 1: the wall clock steps 6 h forward for a minute, and back 6 h and 80 s, over
 * polls stored before. Polls come every 10 s of monotonic time. Every poll after the first has
 * its delta over those 10 s, the polls stamped where older ones lie are all kept, the history
 * shows the rates after the step, the roll-ups reach the polls stored behind the mark the
 * forward minute left, retention deletes none before, and after a restart the deltas go on
 * from the last poll, not from the newest time. */
static void test_clock_step(void)
{
	char *p = storefix_path("clockstep.db");
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	int k = 0;
	for (; k < 6; k++) /* STOREFIX_T0 .. STOREFIX_T0 + 50 s */
		store_submit(st, mk_step(STOREFIX_T0 + k * 10000, k * 10000));
	for (; k < 12; k++) /* 6 h ahead */
		store_submit(st, mk_step(STOREFIX_T0 + STEP_MS + k * 10000, k * 10000));
	store_flush(st);
	atomic_store(&storefix_now, STOREFIX_T0 + STEP_MS + 120000 + STORE_GRACE_MS);
	storefix_maintain(st); /* the roll-up mark runs 6 h ahead */
	for (; k < 42;
		k++) /* back: STOREFIX_T0 + 30 s .. STOREFIX_T0 + 320 s, over the polls at 30, 40 and 50 s */
		store_submit(st, mk_step(STOREFIX_T0 + 30000 + (k - 12) * 10000, k * 10000));
	store_flush(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_polls"), 42);
	CHECK_INT(storefix_int(p, "SELECT rx_bytes " WG0_CS " AND time_ms = 1699999830000"), 30000);
	CHECK_INT(storefix_int(p, "SELECT rx_bytes " WG0_CS " AND time_ms = 1699999830001"), 120000);
	CHECK_INT(storefix_int(p,
			  "SELECT count(*) " WG0_CS " AND dt_ms = 10000 AND rx_delta = 10000 AND NOT reset"),
		41);
	int64_t peer_ms, width;
	int all;
	/* The polls at 60 .. 320 s, after the step, in buckets of two stored polls (10 s apart):
	 * every one rated, none lost to the 6 h ahead. */
	int rated = history_rated(p, 60, 330, &peer_ms, &all, &width);
	int64_t sp = storefix_int(p,
		"SELECT (max(time_ms) - min(time_ms)) / (count(*) - 1) FROM store_polls"
		" WHERE time_ms >= 1699999800000 AND time_ms < 1700000130000"); /* STOREFIX_T0 .. STOREFIX_T0 + 330 s */
	CHECK(sp > 0 && width >= 2 * sp && width < 2 * sp + 1000); /* two stored polls, whole seconds */
	CHECK_INT(rated, all);
	CHECK(rated >= 13);
	CHECK_INT(peer_ms, STOREFIX_T0 + 320000); /* the last poll's, not the newest time's (6 h ahead) */

	atomic_store(&storefix_now, STOREFIX_T0 + 420000 + STORE_GRACE_MS);
	storefix_maintain(
		st); /* [STOREFIX_T0, STOREFIX_T0 + 5 min) again: 6 polls before the step, 27 after */
	CHECK_INT(storefix_int(p, "SELECT n FROM store_cpu_rollup WHERE bucket_ms = 1699999800000"), 33);
	CHECK_STR(storefix_text(p,
			  "SELECT n || ' ' || rx_rate_avg || ' ' || rx_rate_max FROM store_iface_rollup"
			  " WHERE bucket_ms = 1699999800000"),
		"33 1000 1000");
	store_close(st);

	st = storefix_open(p); /* a restart: no monotonic time to go on with, the wall clock's 10 s */
	sample_t *s = mk_step(STOREFIX_T0 + 330000, 420000);
	s->mono_ms = -1;
	store_submit(st, s);
	store_flush(st);
	CHECK_INT(storefix_int(p, "SELECT rx_delta " WG0_CS " AND time_ms = 1700000130000 AND dt_ms = 10000"),
		10000);

	atomic_store(&storefix_now, STOREFIX_T0 + STEP_MS + STORE_DAY_MS + 2 * 3600000);
	storefix_maintain(st); /* raw retention (1 day): every poll went into a roll-up first */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_polls"), 0);
	CHECK_INT(storefix_int(p, "SELECT sum(n) FROM store_cpu_rollup"), 43);
	CHECK_INT(storefix_int(p, "SELECT max(rx_rate_max) FROM store_iface_rollup"), 1000);
	store_close(st);
	storefix_integrity(p);
	free(p);
}

/* A poll of router r at t: interface "a" always, "b" too when with_b; both counting up. */
static sample_t *mk_back(const char *r, int64_t t, bool with_b)
{
	sample_t *s = storefix_sample(r, t, "7.16", "7.16", 1000000 + (t - STOREFIX_T0));
	const char *names[] = { "a", "b" };
	for (int i = 0; i < (with_b ? 2 : 1); i++) {
		struct sample_iface *f = sample_add_iface(s);
		f->name = xstrdup(names[i]);
		f->type = xstrdup("wg");
		f->rx_bytes = f->tx_bytes = (uint64_t)(t - STOREFIX_T0) / 10 + 1000;
	}
	return s;
}

#define BACK_DELTA(r, i, t)                                                                               \
	"SELECT coalesce(dt_ms || '/' || rx_delta, 'none') FROM iface_samples s JOIN interfaces f ON"     \
	" f.id = s.iface_id JOIN routers r ON r.id = f.router_id WHERE r.name = '" r "' AND f.name = '" i \
	"' AND time_ms = " #t

/* After a restart each series' delta goes on from its last poll, looked back for over the
 * chunked hours before (an interface missing from the newest polls), but over no more than
 * 2,880 polls: "b", last seen 2,880 polls back, gets its delta on lc and none on ld (2,881). */
static void test_lookback(void)
{
	char *p = storefix_path("lookback.db");
	store_t *st = storefix_open(p);
	int64_t step = 30000;
	for (int k = 0; k <= 200; k++) /* 100 min: into a third hour */
		store_submit(st, mk_back("lb", STOREFIX_T0 + k * step, k == 0));
	for (int k = 0; k <= 2880; k++) {
		store_submit(st, mk_back("lc", STOREFIX_T0 + k * step, k == 1));
		store_submit(st, mk_back("ld", STOREFIX_T0 + k * step, k == 0));
	}
	store_flush(st);
	atomic_store(&storefix_now, STOREFIX_T0 + 3 * 3600000 + STORE_GRACE_MS);
	storefix_maintain(st); /* lb's closed hours chunked */
	CHECK(storefix_int(p,
		      "SELECT count(*) FROM chunks WHERE router_id = (SELECT id FROM routers WHERE name = 'lb')") >=
		2);
	store_close(st);
	st = storefix_open(p);
	store_submit(st, mk_back("lb", STOREFIX_T0 + 201 * step, true));
	store_submit(st, mk_back("lc", STOREFIX_T0 + 2881 * step, true));
	store_submit(st, mk_back("ld", STOREFIX_T0 + 2881 * step, true));
	store_close(st);
	CHECK_STR(storefix_text(p, BACK_DELTA("lb", "a", 1700005830000)), "30000/3000");
	CHECK_STR(storefix_text(p, BACK_DELTA("lb", "b", 1700005830000)), "6030000/603000");
	CHECK_STR(storefix_text(p, BACK_DELTA("lc", "b", 1700086230000)), "86400000/8640000");
	CHECK_STR(storefix_text(p, BACK_DELTA("ld", "b", 1700086230000)), "none");
	CHECK_STR(storefix_text(p, BACK_DELTA("ld", "a", 1700086230000)), "30000/3000");
	storefix_integrity(p);
	free(p);
}

/* The writer keeps a series' previous time once, monotonic when the poll had it, and its id in 32
 * bits: a stamped poll, then one without a monotonic time (never in the daemon) has no delta, the
 * next stamped one its delta again; a database with a series id past 32 bits is refused. */
static void test_series_compact(void)
{
	char *p = storefix_path("compact.db");
	store_t *st = storefix_open(p);
	store_submit(st, mk_step(STOREFIX_T0, 0));
	store_submit(st, mk_step(STOREFIX_T0 + 10000, 10000));
	sample_t *s = mk_step(STOREFIX_T0 + 20000, 20000);
	s->mono_ms = -1;
	store_submit(st, s);
	store_submit(st, mk_step(STOREFIX_T0 + 30000, 30000));
	store_flush(st);
	store_close(st);
	CHECK_STR(storefix_text(p,
			  "SELECT group_concat(coalesce(dt_ms, '-'), ' ') FROM (SELECT dt_ms " WG0_CS
			  " ORDER BY time_ms)"),
		"- 10000 - 10000");
	sqlite3 *db = storefix_db(p);
	CHECK(sqlite3_exec(db, "UPDATE interfaces SET id = 4294967296 WHERE name = 'wg0'", NULL, NULL,
		      NULL) == SQLITE_OK);
	sqlite3_close(db);
	storefix_open_fails(p, "a series id out of range: 4294967296");
	free(p);
}

/* Issue 39 item 6: a counter that goes back without a reboot (uptime grew) is a reset with no
 * rate, live and stored: not 14.39 TB counted from zero in 10 s, in the poll, its roll-up
 * (kept 400 days) and the history. */
static void test_counter_back(void)
{
	char *p = storefix_path("counterback.db");
	atomic_store(&storefix_now, STOREFIX_T0);
	store_t *st = storefix_open(p);
	static const uint64_t rx[] = { 14400000000000ull, 14400000010000ull, 14390000000000ull,
		14390000010000ull };
	for (int k = 0; k < 4; k++) {
		sample_t *s = mk_step(STOREFIX_T0 + k * 10000, k * 10000);
		s->ifaces[0].rx_bytes = rx[k];
		store_submit(st, s);
	}
	store_flush(st);
	CHECK_STR(
		storefix_text(p,
			"SELECT group_concat(d) FROM (SELECT coalesce(rx_delta, 'none') || '/' || reset AS d " WG0_CS
			" ORDER BY time_ms)"),
		"none/0,10000/0,none/1,10000/0");
	atomic_store(&storefix_now, STOREFIX_T0 + 600000);
	storefix_maintain(st);
	CHECK_STR(storefix_text(
			  p, "SELECT n || ' ' || rx_rate_avg || ' ' || rx_rate_max FROM store_iface_rollup"),
		"4 1000 1000");
	int all2;
	int64_t width2;
	CHECK(history_rated(p, 0, 40, NULL, &all2, &width2) >= 2);
	history_t *h = NULL;
	char *cause = NULL;
	struct history_req hq = {
		.db_path = p, .router = "cs", .from_ms = STOREFIX_T0, .to_ms = STOREFIX_T0 + 40000
	};
	CHECK_INT(history_load(&hq, &h, &cause), 0);
	free(cause);
	for (size_t b = 0; h != NULL && h->nifaces == 1 && b < h->nbuckets; b++)
		CHECK(isnan(h->ifaces[0].rx_bps[b]) || h->ifaces[0].rx_bps[b] <= 8000);
	history_free(h);
	store_close(st);
	free(p);
}

/* A poll of npeers peers whose strings lie in block b (as restpeers.c makes them): the
 * interface, then per peer its key, allowed addresses and endpoint address (port 51820 + i). */
static sample_t *mk_shared(int64_t t, sample_strs_t *b, int npeers)
{
	sample_t *s = storefix_sample("sh", t, "7.22.3", NULL, 1000 + t - STOREFIX_T0);
	s->have_peers = true;
	sample_hold(s, b);
	const char *at = sample_strs_data(b), *ifc = at;
	at += strlen(at) + 1;
	for (int i = 0; i < npeers; i++) {
		struct sample_peer *pe = sample_add_peer(s);
		pe->interface = sample_strdup(s, ifc);
		pe->public_key = sample_strdup(s, at);
		pe->peer = pe->public_key;
		at += strlen(at) + 1;
		pe->allowed = sample_strdup(s, at);
		at += strlen(at) + 1;
		pe->endpoint = sample_strdup(s, at);
		at += strlen(at) + 1;
		pe->endpoint_port = 51820 + i;
		pe->rx_bytes = pe->tx_bytes = (uint64_t)(t - STOREFIX_T0);
	}
	return s;
}

/* The writer's peer series point into the polls' block of strings, not copies (cache.c): over a
 * new block (a full reply) with a changed allowed address and a peer gone, the rows are right;
 * the series of the gone peer keeps its strings after the old block goes (ASan tells). */
static void test_shared_peers(void)
{
	static const char one[] = "wg0\0KEY1=\0"
				  "10.0.0.1/32\0"
				  "198.51.100.7\0KEY2=\0"
				  "10.0.0.2/32\0"
				  "2001:db8::7";
	static const char two[] = "wg0\0KEY1=\0"
				  "10.0.0.1/32,10.9.0.0/16\0"
				  "198.51.100.8";
	char *p = storefix_path("shared.db");
	store_t *st = storefix_open(p);
	sample_strs_t *b1 = sample_strs_new(one, sizeof(one)), *b2 = sample_strs_new(two, sizeof(two));
	store_submit(st, mk_shared(STOREFIX_T0, b1, 2));
	store_submit(st, mk_shared(STOREFIX_T0 + 30000, b1, 2));
	store_flush(st);
	struct store_router *r = cache_router_find(st, "sh"); /* the writer waits: flushed */
	CHECK(r != NULL && r->npeers == 2 && r->strs == b1);
	CHECK(r != NULL && r->npeers == 2 && cache_shared(r->peers[1].name) &&
		cache_shared(r->peers[1].key) && cache_shared(r->peers[1].allowed) &&
		cache_shared(r->peers[1].endpoint) && strcmp(cache_str(r, r->peers[1].key), "KEY2=") == 0);
	sample_strs_unref(b1); /* the writer's reference keeps it */
	store_submit(st, mk_shared(STOREFIX_T0 + 60000, b2, 1));
	store_submit(st, mk_shared(STOREFIX_T0 + 90000, b2, 1));
	store_flush(st);
	CHECK(r != NULL && r->strs == b2 && !cache_shared(r->peers[1].name) &&
		!cache_shared(r->peers[1].key) && strcmp(cache_str(r, r->peers[1].key), "KEY2=") == 0);
	CHECK(r != NULL && strcmp(cache_str(r, r->peers[1].endpoint), "[2001:db8::7]:51821") == 0);
	CHECK(r != NULL && cache_shared(r->peers[0].endpoint) &&
		strcmp(cache_str(r, r->peers[0].endpoint), "198.51.100.8") == 0 &&
		r->peers[0].endpoint_port == 51820);
	CHECK(r != NULL && strcmp(cache_str(r, r->peers[0].allowed), "10.0.0.1/32,10.9.0.0/16") == 0 &&
		cache_shared(r->peers[0].allowed) && cache_shared(r->peers[0].key));
	/* the own strings hold no dead ones after a poll: the copies made at the block's change went */
	CHECK(r != NULL && r->own != NULL && r->own->dead == 0 && r->own->len == r->own->cap);
	sample_strs_unref(b2);
	store_close(st);
	CHECK(strcmp(storefix_text(p, "SELECT allowed_address FROM peers WHERE pkey = 'KEY1='"),
		      "10.0.0.1/32,10.9.0.0/16") == 0);
	CHECK(strcmp(storefix_text(p, "SELECT allowed_address FROM peers WHERE pkey = 'KEY2='"),
		      "10.0.0.2/32") == 0);
	CHECK(strcmp(storefix_text(p, "SELECT endpoint FROM peers WHERE pkey = 'KEY1='"),
		      "198.51.100.8:51820") == 0);
	CHECK(strcmp(storefix_text(p, "SELECT endpoint FROM peers WHERE pkey = 'KEY2='"),
		      "[2001:db8::7]:51821") == 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM peers"), 2);
	free(p);
}

int main(void)
{
	if (storefix_begin("store_test") < 0)
		return 99;
	test_fresh();
	test_history();
	test_rates();
	test_rollup();
	test_rollup_views();
	test_rollup_wide();
	test_refusals();
	test_corrupt();
	test_fault();
	test_files_gone();
	test_links();
	test_clock_step();
	test_lookback();
	test_series_compact();
	test_counter_back();
	test_shared_peers();
	test_bench();
	return unitfs_end(unit_done("store_test"));
}
