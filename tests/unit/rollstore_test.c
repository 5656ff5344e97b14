/* SPDX-License-Identifier: Apache-2.0 */
/* rollstore_test: store/rollstore.c and the store_*_rollup tables (store/rollvt.c) over roll-up
 * rows of every column kind (rollfix.h). Closed days chunked, every range reads back as the
 * tables held it; a re-roll of a chunked day (a table row beside the chunk) reads as the table's
 * row and is merged by the next chunking; rows a chunk cannot hold stay rows; a malformed chunk
 * is left out, not an error. Through the real store: the maintenance chunks each closed day, a
 * late poll into one re-rolls and rewrites its chunk, and retention across a chunk leaves its
 * rows before the bound out, then deletes it. */
#include "rollfix.h"

#include <inttypes.h>

#define RS_DAY ROLLSTORE_SPAN_MS

static void rs_exec(const char *path, const char *sql)
{
	sqlite3 *db = storefix_db(path);
	char *err = NULL;
	CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
	if (err)
		fprintf(stderr, "%s: %s\n", sql, err);
	sqlite3_free(err);
	sqlite3_close(db);
}

/* The days of [from, to) chunked in a transaction of their own; rollstore_days's answer. */
static int rs_days(const char *path, int64_t from, int64_t to)
{
	sqlite3 *db = storefix_db(path);
	store_t st = { .db = db, .path = (char *)path };
	CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
	int rc = rollstore_days(&st, from, to, 0, ROLLCHUNK_NKIND);
	if (rc < 0)
		fprintf(stderr, "rollstore_days: %s\n", st.errmsg);
	CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	return rc;
}

/* A database of rollfix's rows at *path and its copy at *orig (caller frees both). */
static void rs_fill(const char *name, char **path, char **orig)
{
	*path = storefix_path(name);
	*orig = xasprintf("%s.orig", *path);
	store_close(storefix_open(*path));
	rollfix_fill(*path);
	char *sql = xasprintf("VACUUM INTO '%s'", *orig);
	rs_exec(*path, sql);
	free(sql);
}

/* The store_ tables of path read what the tables of orig hold, whole and over ranges. */
static void rs_same(const char *orig, const char *path)
{
	for (int64_t from = ROLLFIX_D0; from < ROLLFIX_END; from += 7 * 3600000 + 300000)
		for (int w = 0; w < 5; w++) {
			long long x = from, y = from + RS_DAY / 3;
			char *cond = w == 0 ? xstrdup("")
				: w == 1    ? xasprintf("WHERE bucket_ms >= %lld AND bucket_ms < %lld", x, y)
				: w == 2    ? xasprintf("WHERE bucket_ms = %lld", x)
				: w == 3    ? xasprintf("WHERE bucket_ms > %lld AND bucket_ms <= %lld", x, y)
					    : xasprintf("WHERE bucket_ms < %lld", x);
			buf_t a, b;
			buf_init(&a);
			buf_init(&b);
			int64_t n = rollfix_all(orig, "", cond, &a);
			CHECK_INT(rollfix_all(path, "store_", cond, &b), n);
			CHECK(a.len == b.len && (a.len == 0 || memcmp(a.data, b.data, a.len) == 0));
			buf_free(&a);
			buf_free(&b);
			free(cond);
		}
	/* by id, as the readers join */
	buf_t a, b;
	buf_init(&a);
	buf_init(&b);
	rollfix_dump(orig,
		"SELECT i.id, s.* FROM interfaces i JOIN iface_rollup s ON s.iface_id = i.id ORDER BY 1, 3",
		&a);
	rollfix_dump(path,
		"SELECT i.id, s.* FROM interfaces i JOIN store_iface_rollup s ON s.iface_id = i.id ORDER BY 1, 3",
		&b);
	CHECK(a.len > 0 && a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	buf_free(&a);
	buf_free(&b);
}

/* storefix_int of the SQL printf makes. */
static int64_t rs_int(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int64_t rs_int(const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = xvasprintf(fmt, ap);
	va_end(ap);
	int64_t v = storefix_int(path, sql);
	free(sql);
	return v;
}

static void rs_execf(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rs_execf(const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *sql = xvasprintf(fmt, ap);
	va_end(ap);
	rs_exec(path, sql);
	free(sql);
}

#define RS_TABLE_ROWS                                                                              \
	"SELECT (SELECT count(*) FROM cpu_rollup) + (SELECT count(*) FROM iface_rollup) + (SELECT" \
	" count(*) FROM peer_rollup)"

static void test_days(void)
{
	char *p, *o;
	rs_fill("days.db", &p, &o);
	rs_same(o, p); /* no chunks yet: the store_ tables read the tables */
	CHECK_INT(rs_days(p, ROLLFIX_D0, ROLLFIX_D0 + 3 * RS_DAY), 0);
	/* r1's cpu, interface 5 and peer 3 three days each; interface 7 one */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 10);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM cpu_rollup WHERE bucket_ms < %lld",
			  (long long)(ROLLFIX_D0 + 3 * RS_DAY)),
		0);
	CHECK(storefix_int(p, "SELECT count(*) FROM iface_rollup") > 0); /* the fourth day's */
	int64_t rows = storefix_int(o, RS_TABLE_ROWS);
	CHECK_INT(storefix_int(p, "SELECT sum(nrows) FROM rollup_chunks") + storefix_int(p, RS_TABLE_ROWS),
		rows);
	printf("  %" PRId64 " roll-up rows: %" PRId64 " bytes of chunks for %" PRId64 " of them\n", rows,
		storefix_int(p, "SELECT sum(length(data)) FROM rollup_chunks"),
		storefix_int(p, "SELECT sum(nrows) FROM rollup_chunks"));
	rs_same(o, p);
	CHECK_INT(rs_days(p, ROLLFIX_D0, ROLLFIX_D0 + 3 * RS_DAY), 0); /* again: nothing changes */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 10);
	rs_same(o, p);
	storefix_integrity(p);

	/* a re-roll of a chunked day writes table rows beside its chunk (rollup.c's INSERT OR
	 * REPLACE): the table's row is the one, and the next chunking keeps it */
	long long a = ROLLFIX_D0 + RS_DAY + 3600000, b = a + 1800000;
	rs_execf(p,
		"INSERT OR REPLACE INTO cpu_rollup SELECT * FROM store_cpu_rollup WHERE bucket_ms >= %lld"
		" AND bucket_ms < %lld",
		a, b);
	for (int i = 0; i < 2; i++)
		rs_execf(i ? o : p,
			"UPDATE cpu_rollup SET n = n + 100 WHERE bucket_ms >= %lld AND bucket_ms < %lld;"
			" INSERT INTO iface_rollup VALUES (5, %lld, 1, NULL, NULL, NULL, NULL, 1, 2)",
			a, b, a + 1); /* and a bucket the day had not */
	rs_same(o, p);
	CHECK_INT(rs_days(p, ROLLFIX_D0 + RS_DAY, ROLLFIX_D0 + 2 * RS_DAY), 0);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM cpu_rollup WHERE bucket_ms < %lld",
			  (long long)(ROLLFIX_D0 + 3 * RS_DAY)),
		0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 10);
	CHECK_INT(rs_int(p, "SELECT n FROM store_cpu_rollup WHERE bucket_ms = %lld AND core = 1", a), 109);
	rs_same(o, p);
	storefix_integrity(p);
	free(p);
	free(o);
}

/* The int of sql on db. */
static int64_t rs_db_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q = NULL;
	int64_t v = -1;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* The store_ tables keep their statements on their connection between reads (a shelf): a chunk
 * rewritten or deleted on that connection since reads as it is now, two reads at once (a
 * self-join) each have statements of their own, and the connection still closes. */
static void test_kept(void)
{
	static const char sum[] = "SELECT sum(n) FROM store_cpu_rollup WHERE router_id = 1",
			  join[] = "SELECT count(*) FROM store_cpu_rollup a JOIN store_cpu_rollup b ON"
				   " b.router_id = 1 AND b.bucket_ms = a.bucket_ms AND b.core = a.core"
				   " WHERE a.router_id = 1";
	char *p, *o;
	rs_fill("kept.db", &p, &o);
	CHECK_INT(rs_days(p, ROLLFIX_D0, ROLLFIX_D0 + 3 * RS_DAY), 0);
	sqlite3 *db = storefix_db(p);
	store_t st = { .db = db, .path = p };
	int64_t n = rs_db_int(db, sum),
		rows = storefix_int(o, "SELECT count(*) FROM cpu_rollup WHERE router_id = 1");
	CHECK_INT(n, storefix_int(o, "SELECT sum(n) FROM cpu_rollup WHERE router_id = 1"));
	CHECK(sqlite3_exec(db,
		      "INSERT OR REPLACE INTO cpu_rollup SELECT * FROM store_cpu_rollup;"
		      " UPDATE cpu_rollup SET n = n + 1; DELETE FROM rollup_chunks WHERE kind = 0",
		      NULL, NULL, NULL) == SQLITE_OK);
	CHECK_INT(rs_db_int(db, sum), n + rows); /* the chunks gone, the table's rows read */
	CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
	CHECK_INT(rollstore_days(&st, ROLLFIX_D0, ROLLFIX_D0 + 3 * RS_DAY, 0, ROLLCHUNK_NKIND),
		0); /* chunked anew */
	CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
	CHECK(rs_db_int(db, "SELECT count(*) FROM rollup_chunks WHERE kind = 0") > 0);
	CHECK_INT(rs_db_int(db, sum), n + rows);
	CHECK_INT(rs_db_int(db, join), rows);
	CHECK_INT(sqlite3_close(db), SQLITE_OK);
	free(p);
	free(o);
}

/* Rows a chunk cannot hold (a value no integer) stay rows; a malformed chunk's rows are left
 * out by the readers, and its day is not chunked again (its rows stay rows), never an error. */
static void test_refused(void)
{
	char *p, *o;
	rs_fill("refused.db", &p, &o);
	long long d1 = ROLLFIX_D0 + RS_DAY;
	rs_execf(p, "UPDATE peer_rollup SET rx_rate_max = 1.5 WHERE bucket_ms = %lld", d1);
	CHECK_INT(rs_days(p, ROLLFIX_D0, ROLLFIX_D0 + 3 * RS_DAY), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 9); /* peer 3's day 2 stays */
	CHECK_INT(rs_int(p, "SELECT count(*) FROM peer_rollup WHERE bucket_ms >= %lld AND bucket_ms < %lld",
			  d1, d1 + RS_DAY),
		288);
	/* a damaged chunk: interface 5's first day */
	rs_execf(p,
		"UPDATE rollup_chunks SET data = X'01020304' WHERE kind = 1 AND id = 5 AND time_ms < %lld",
		d1);
	int64_t day0 = rs_int(
		o, "SELECT count(*) FROM iface_rollup WHERE iface_id = 5 AND bucket_ms < %lld", d1);
	CHECK(day0 > 100);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_iface_rollup WHERE iface_id = 5"),
		storefix_int(o, "SELECT count(*) FROM iface_rollup WHERE iface_id = 5") - day0);
	rs_execf(
		p, "INSERT INTO iface_rollup VALUES (5, %lld, 1, NULL, NULL, NULL, NULL, 1, 2)", d1 - 300000);
	CHECK_INT(rs_days(p, ROLLFIX_D0, d1), 0); /* logged: the row stays a row */
	CHECK_INT(rs_int(p, "SELECT count(*) FROM iface_rollup WHERE bucket_ms = %lld", d1 - 300000), 1);
	CHECK_INT(
		rs_int(p,
			"SELECT length(data) FROM rollup_chunks WHERE kind = 1 AND id = 5 AND time_ms < %lld",
			d1),
		4);
	storefix_integrity(p);
	free(p);
	free(o);
}

/* One step of the chunking of day, at most max series from *pos, committed or rolled back. */
static int rs_step(const char *path, int64_t day, struct rollstore_pos *pos, int max, bool commit)
{
	sqlite3 *db = storefix_db(path);
	store_t st = { .db = db, .path = (char *)path };
	CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
	int rc = rollstore_day_step(&st, day, pos, max);
	CHECK(sqlite3_exec(db, commit ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	return rc;
}

/* A day in steps of one series each (the job's bound, so that a fleet's day is many short
 * transactions): the second day's four series (r1's cores, interfaces 5 and 7, peer 3) take four
 * steps and a fifth that finds none left; a step rolled back (its position forgotten, as the
 * job does) is done again; the end is the same as in one step. */
static void test_steps(void)
{
	char *p, *o;
	rs_fill("steps.db", &p, &o);
	int64_t d1 = ROLLFIX_D0 + RS_DAY;
	struct rollstore_pos pos = { .day = INT64_MIN };
	CHECK_INT(rs_step(p, d1, &pos, 1, false), 0);
	pos.day = INT64_MIN;
	int steps = 0, rc;
	while ((rc = rs_step(p, d1, &pos, 1, true)) == 0 && steps < 20)
		steps++;
	CHECK_INT(rc, 1);
	CHECK_INT(steps, 4);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 4);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM iface_rollup WHERE bucket_ms >= %lld AND bucket_ms < %lld",
			  (long long)d1, (long long)(d1 + RS_DAY)),
		0);
	rs_same(o, p);
	CHECK_INT(rs_step(p, d1, &pos, 1, true), 1); /* done: nothing more */
	storefix_integrity(p);
	free(p);
	free(o);
}

/* A poll of router "m" at t: two cores, wg0 at 1000 B/s in and 10 out, one peer. */
static sample_t *rs_poll(int64_t t)
{
	int64_t up = t - (STOREFIX_T0 - 3 * 3600000);
	sample_t *s = storefix_sample("m", t, "7.22.3", "7.22.3", up);
	sample_set_cores(s, 2);
	for (size_t c = 0; c < s->ncores; c++)
		s->cores[c].load = (double)((t / 60000 + (int64_t)c * 7) % 100) / 100.0;
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0");
	f->type = xstrdup("wg");
	f->rx_bytes = (uint64_t)up;
	f->tx_bytes = (uint64_t)(up / 100);
	struct sample_peer *pe = sample_add_peer(s);
	pe->interface = sample_strdup(s, "wg0");
	pe->public_key = xstrdup("KEY=");
	pe->peer = xstrdup("site");
	pe->rx_bytes = (uint64_t)(up / 2);
	pe->tx_bytes = (uint64_t)(up / 4);
	s->have_peers = true;
	return s;
}

static void rs_maintain(store_t *st, int64_t now)
{
	atomic_store(&storefix_now, now);
	storefix_maintain(st);
}

/* The real store: polls across midnight (M) rolled up, the closed day chunked; a late poll into
 * it re-rolls its bucket and rewrites its chunks; retention across the day leaves its rows before
 * the bound out, then deletes its chunks. */
static void test_maint(void)
{
	char *p = storefix_path("maint.db");
	int64_t m = STOREFIX_T0 - STOREFIX_T0 % RS_DAY + RS_DAY, first = STOREFIX_T0 - 2 * 3600000;
	store_t *st = storefix_open(p);
	for (int64_t t = first; t < STOREFIX_T0 + 3 * 3600000; t += 60000)
		store_submit(st, rs_poll(t));
	store_flush(st);
	rs_maintain(st, STOREFIX_T0 + 3 * 3600000 + STORE_GRACE_MS + 300000);
	CHECK_INT(
		rs_int(p,
			"SELECT count(*) FROM rollup_chunks WHERE kind < 3 AND time_ms >= %lld AND end_ms < %lld",
			(long long)(m - RS_DAY), (long long)m),
		3);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM cpu_rollup WHERE bucket_ms < %lld", (long long)m), 0);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM iface_rollup WHERE bucket_ms < %lld", (long long)m), 0);
	int64_t polls = (m - first) / 60000;
	CHECK_INT(rs_int(p, "SELECT sum(n) FROM store_cpu_rollup WHERE bucket_ms < %lld", (long long)m),
		2 * polls);
	CHECK_INT(rs_int(p, "SELECT sum(n) FROM store_iface_rollup WHERE bucket_ms < %lld", (long long)m),
		polls);
	CHECK_INT(rs_int(p, "SELECT n FROM store_peer_rollup WHERE bucket_ms = %lld", (long long)STOREFIX_T0),
		5);
	CHECK_INT(rs_int(p, "SELECT rx_rate_avg FROM store_iface_rollup WHERE bucket_ms = %lld",
			  (long long)STOREFIX_T0),
		1000);

	/* the hourly tier: an hour's row holds its polls (one a minute), each core's and each
	 * series' rows the sums of their 5-minute rows */
	int64_t hour = STOREFIX_T0 - STOREFIX_T0 % 3600000;
	CHECK_INT(rs_int(p, "SELECT n FROM store_cpu_rollup_1h WHERE bucket_ms = %lld AND core = 1",
			  (long long)hour),
		60);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3 AND time_ms < %lld",
			  (long long)m),
		3);
	CHECK_INT(rollfix_hourly_wrong(p), 0);

	store_submit(st, rs_poll(STOREFIX_T0 + 30000)); /* late, into the chunked day */
	store_flush(st);
	rs_maintain(st, STOREFIX_T0 + 3 * 3600000 + STORE_GRACE_MS + 300000);
	/* the closed hour rolled up again, its chunk rewritten, no row of it left beside */
	CHECK_INT(rs_int(p, "SELECT n FROM store_cpu_rollup_1h WHERE bucket_ms = %lld AND core = 1",
			  (long long)hour),
		61);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM cpu_rollup_1h WHERE bucket_ms < %lld", (long long)m), 0);
	CHECK_INT(rollfix_hourly_wrong(p), 0);
	CHECK_INT(rs_int(p, "SELECT n FROM store_peer_rollup WHERE bucket_ms = %lld", (long long)STOREFIX_T0),
		6);
	CHECK_INT(rs_int(p, "SELECT n FROM store_cpu_rollup WHERE bucket_ms = %lld AND core = 1",
			  (long long)STOREFIX_T0),
		6);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM cpu_rollup WHERE bucket_ms < %lld", (long long)m), 0);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM peer_rollup WHERE bucket_ms < %lld", (long long)m), 0);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind < 3 AND time_ms < %lld",
			  (long long)m),
		3);

	/* retention (3 days) to an hour before M: the chunks stay, their rows before it are gone */
	rs_maintain(st, m + 3 * RS_DAY - 3600000);
	CHECK_INT(
		rs_int(p, "SELECT count(*) FROM store_cpu_rollup WHERE bucket_ms < %lld", (long long)m), 24);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM store_iface_rollup WHERE bucket_ms < %lld", (long long)m),
		12);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind < 3 AND time_ms < %lld",
			  (long long)m),
		3);
	rs_maintain(st, m + 3 * RS_DAY + 3600000);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM store_cpu_rollup WHERE bucket_ms < %lld", (long long)m), 0);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind < 3 AND time_ms < %lld",
			  (long long)m),
		0);
	CHECK(storefix_int(p, "SELECT count(*) FROM store_cpu_rollup") > 0); /* after M: an hour left */
	/* retention by tier: the hourly one (5 days) keeps the day the 5-minute one let go */
	CHECK_INT(rs_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3 AND time_ms < %lld",
			  (long long)m),
		3);
	CHECK_INT(rs_int(p, "SELECT sum(n) FROM store_cpu_rollup_1h WHERE bucket_ms < %lld AND core = 1",
			  (long long)m),
		(m - first) / 60000 + 1);
	rs_maintain(st, m + 5 * RS_DAY + 3600000);
	CHECK_INT(rs_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind >= 3 AND time_ms < %lld",
			  (long long)m),
		0);
	CHECK_INT(
		rs_int(p, "SELECT count(*) FROM store_iface_rollup_1h WHERE bucket_ms < %lld", (long long)m),
		0);
	store_close(st);
	storefix_integrity(p);
	free(p);
}

/* e33a41d: a re-roll into the day being chunked (its first series done, the others not yet)
 * starts that day's chunking over, so that the series already done take the rows it writes into
 * their chunks rather than keeping them beside. Driven a job step at a time: the test holds the
 * writer's lock (the writer, idle between rounds, waits for it) and runs the steps itself on the
 * writer's connection, one series a chunking step. */
static void test_rechunk_restart(void)
{
	char *p = storefix_path("restart.db");
	int64_t m = STOREFIX_T0 - STOREFIX_T0 % RS_DAY + RS_DAY, d = m - RS_DAY;
	store_t *st = storefix_open(p);
	for (int64_t t = STOREFIX_T0; t < m + 3600000; t += 60000)
		store_submit(st, rs_poll(t));
	store_flush(st);
	rs_maintain(st, m - 600000); /* rolled up, but the day not closed: no chunk */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM rollup_chunks"), 0);
	pthread_mutex_lock(&st->mu);
	st->rollchunk_series = 1;
	int64_t now = m + 3600000 + STORE_GRACE_MS;
	int steps = 0, rc = 1;
	while (st->rollchunk_pos.day != d && rc == 1 && steps++ < 100)
		rc = maint_step(st, now);
	CHECK(st->rollchunk_pos.day == d && st->rollup_chunked_ms == d); /* the router's CPU chunked */
	CHECK_INT(rs_int(p, "SELECT count(*) FROM cpu_rollup WHERE bucket_ms < %lld", (long long)m), 0);
	CHECK(rs_int(p, "SELECT count(*) FROM peer_rollup WHERE bucket_ms < %lld", (long long)m) > 0);
	/* a poll stored at T0 + 30 s moves the roll-up mark back to its bucket, in its transaction */
	CHECK(store_exec(st, "BEGIN IMMEDIATE") == 0 && maint_rollup_back(st, STOREFIX_T0 + 30000) == 0 &&
		store_exec(st, "COMMIT") == 0);
	CHECK_INT(maint_step(st, now), 1); /* the re-roll's first hour: the day's chunking starts over */
	CHECK(st->rollup_ms < m && st->rollchunk_pos.day == INT64_MIN);
	while ((rc = maint_step(st, now)) == 1 && steps++ < 1000)
		;
	CHECK_INT(rc, 0);
	st->rollchunk_series = 0;
	pthread_mutex_unlock(&st->mu);
	CHECK_INT(rs_int(p, "SELECT value FROM store_state WHERE key = '%s'", "rollup_chunked_ms"), m);
	static const char *const tables[] = { "cpu_rollup", "iface_rollup", "peer_rollup", "cpu_rollup_1h",
		"iface_rollup_1h", "peer_rollup_1h" };
	for (size_t i = 0; i < sizeof(tables) / sizeof(*tables); i++)
		CHECK_INT(
			rs_int(p, "SELECT count(*) FROM %s WHERE bucket_ms < %lld", tables[i], (long long)m),
			0);
	CHECK_INT(rs_int(p, "SELECT sum(n) FROM store_cpu_rollup WHERE core = 1 AND bucket_ms < %lld",
			  (long long)m),
		(m - STOREFIX_T0) / 60000);
	CHECK_INT(rollfix_hourly_wrong(p), 0);
	store_close(st);
	storefix_integrity(p);
	free(p);
}

int main(void)
{
	if (storefix_begin("rollstore_test") < 0)
		return 99;
	test_days();
	test_kept();
	test_refused();
	test_steps();
	test_maint();
	test_rechunk_restart();
	return unitfs_end(unit_done("rollstore_test"));
}
