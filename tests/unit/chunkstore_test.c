/* SPDX-License-Identifier: Apache-2.0 */
/* chunkstore_test: store/chunkstore.c over a database the real store wrote (pollfix: every
 * column kind). Its spans chunked, every range of rows reads back as the polls table held it;
 * a late row beside a chunk reads in order and is merged by the next chunking; a chunking
 * interrupted (a process gone mid-transaction, a rollback) leaves the rows as they were; rows
 * the chunk cannot hold stay rows; a schema-14 database migrates to 015 and reads the same.
 * store_polls (store/pollsvt.c) gives, by router and range or whole, what polls held, and after a
 * chunk rewritten or deleted on its connection what is there now. */
#include "pollfix.h"
#include "store/chunkstore.h"
#include "store/history.h"

#include <inttypes.h>

#include <sys/wait.h>
#include <unistd.h>

#define CT_SPAN0 (STOREFIX_T0 - STOREFIX_T0 % CHUNKSTORE_SPAN_MS) /* r1's polls: this span and the next */
#define CT_SPAN1 (CT_SPAN0 + CHUNKSTORE_SPAN_MS)

static int64_t ct_rid(sqlite3 *db, const char *router)
{
	sqlite3_stmt *q = NULL;
	int64_t id = -1;
	CHECK(sqlite3_prepare_v2(db, "SELECT id FROM routers WHERE name = ?1", -1, &q, NULL) == SQLITE_OK);
	sqlite3_bind_text(q, 1, router, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return id;
}

static int ct_flat(void *arg, const struct pollchunk_row *row)
{
	pollfix_flat(arg, row);
	return 0;
}

/* The rows of router in [from, to) as the polls table of the database at path holds them. */
static size_t ct_want(const char *path, const char *router, int64_t from, int64_t to, buf_t *out)
{
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	struct pollchunk_row r;
	size_t n = 0;
	CHECK(sqlite3_prepare_v2(db,
		      "SELECT time_ms, duration_ms, source, err, error, cpu_mhz, cpu, ifaces, peers, health FROM"
		      " polls WHERE router_id = (SELECT id FROM routers WHERE name = ?1) AND time_ms >= ?2 AND"
		      " time_ms < ?3 ORDER BY time_ms",
		      -1, &q, NULL) == SQLITE_OK);
	sqlite3_bind_text(q, 1, router, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
	for (; sqlite3_step(q) == SQLITE_ROW; n++) {
		pollfix_row_of(q, &r);
		pollfix_flat(out, &r);
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	return n;
}

/* chunkstore_rows of router in [from, to) on the database at path reads what orig's polls held;
 * returns the rows. */
static size_t ct_same(const char *orig, const char *path, const char *router, int64_t from, int64_t to)
{
	buf_t want, got;
	char *cause = NULL;
	buf_init(&want);
	buf_init(&got);
	size_t n = ct_want(orig, router, from, to, &want);
	sqlite3 *db = storefix_db(path);
	CHECK_INT(chunkstore_rows(db, ct_rid(db, router), from, to, ct_flat, &got, &cause), 0);
	if (cause)
		fprintf(stderr, "chunkstore_rows: %s\n", cause);
	free(cause);
	sqlite3_close(db);
	CHECK(want.len == got.len && (want.len == 0 || memcmp(want.data, got.data, want.len) == 0));
	buf_free(&want);
	buf_free(&got);
	return n;
}

/* Every range the tests read, for both routers. */
static void ct_ranges(const char *orig, const char *path)
{
	CHECK_INT(ct_same(orig, path, "r1", INT64_MIN, INT64_MAX), POLLFIX_POLLS);
	CHECK_INT(ct_same(orig, path, "r2", INT64_MIN, INT64_MAX), POLLFIX_POLLS);
	CHECK(ct_same(orig, path, "r1", STOREFIX_T0 + 7 * 60000 + 3, STOREFIX_T0 + 55 * 60000) > 100);
	CHECK_INT(ct_same(orig, path, "r1", CT_SPAN1 - 20000, CT_SPAN1 + 20000), 2);
	CHECK_INT(ct_same(orig, path, "r1", CT_SPAN1, CT_SPAN1), 0);
	for (int64_t m = 0; m < 60; m += 7) /* ranges that start inside a chunk: seeks into it */
		CHECK(ct_same(orig, path, "r1", STOREFIX_T0 + m * 60000 + 1, STOREFIX_T0 + 61 * 60000) > 0);
}

/* Exec sql on the database at path (after the sample views: storefix_db). */
static void ct_exec(const char *path, const char *sql)
{
	sqlite3 *db = storefix_db(path);
	char *err = NULL;
	CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
	if (err)
		fprintf(stderr, "%s: %s\n", sql, err);
	sqlite3_free(err);
	sqlite3_close(db);
}

/* Router's span chunked in a transaction of its own, committed or rolled back; chunkstore_span's
 * answer. */
static int ct_chunk(const char *path, const char *router, int64_t span, bool commit)
{
	sqlite3 *db = storefix_db(path);
	store_t st = { .db = db };
	CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
	int rc = chunkstore_span(&st, ct_rid(db, router), span);
	if (rc < 0)
		fprintf(stderr, "chunkstore_span: %s\n", st.errmsg);
	CHECK(sqlite3_exec(db, commit ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	return rc;
}

/* A filled database at *path and its copy at *orig (caller frees both). */
static void ct_fill(const char *name, char **path, char **orig)
{
	*path = storefix_path(name);
	*orig = xasprintf("%s.orig", *path);
	pollfix_fill(*path);
	char *sql = xasprintf("VACUUM INTO '%s'", *orig);
	ct_exec(*path, sql);
	free(sql);
}

static void test_roundtrip(void)
{
	char *p, *o;
	ct_fill("span.db", &p, &o);
	int64_t polls_bytes = storefix_int(
		p, "SELECT sum(length(cpu) + length(ifaces) + length(peers)) FROM polls");
	for (int64_t s = CT_SPAN0; s <= CT_SPAN1; s += CHUNKSTORE_SPAN_MS) {
		CHECK_INT(ct_chunk(p, "r1", s, true), 0);
		CHECK_INT(ct_chunk(p, "r2", s, true), 0);
	}
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 4);
	CHECK_INT(storefix_int(p, "SELECT sum(nrows) FROM chunks"), 2 * POLLFIX_POLLS);
	printf("  2 routers' rows: BLOBs %lld bytes, chunks %lld bytes\n", (long long)polls_bytes,
		(long long)storefix_int(p, "SELECT sum(length(data)) FROM chunks"));
	ct_ranges(o, p);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 0); /* again: the same chunk */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 4);
	ct_ranges(o, p);

	/* a late row in a chunked span (the wall clock went back): read in order, then merged */
	static const char late[] =
		"INSERT INTO polls (router_id, time_ms, duration_ms, source, err, error)"
		" SELECT id, %lld, 9, 'rest', 'timeout', 'late' FROM routers WHERE name = 'r1'";
	char *sql = xasprintf(late, (long long)(STOREFIX_T0 + 20001));
	ct_exec(p, sql);
	ct_exec(o, sql);
	free(sql);
	CHECK_INT(ct_same(o, p, "r1", INT64_MIN, INT64_MAX), POLLFIX_POLLS + 1);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 4);
	CHECK_INT(ct_same(o, p, "r1", INT64_MIN, INT64_MAX), POLLFIX_POLLS + 1);
	storefix_integrity(p);
	free(p);
	free(o);
}

static void test_interrupted(void)
{
	char *p, *o;
	ct_fill("crash.db", &p, &o);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, false), 0); /* rolled back */
	pid_t pid = fork();
	if (pid == 0) { /* gone mid-transaction: the chunk inserted, the rows deleted, no commit */
		sqlite3 *db = storefix_db(p);
		store_t st = { .db = db };
		sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		_exit(chunkstore_span(&st, ct_rid(db, "r1"), CT_SPAN0) == 0 &&
					storefix_int(p, "SELECT count(*) FROM chunks") == 0
				? 0
				: 1);
	}
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 2 * POLLFIX_POLLS);
	ct_ranges(o, p);

	/* rows the chunk cannot hold (a truncated BLOB) stay rows, and the span's others with them */
	ct_exec(p, "UPDATE polls SET cpu = x'01ff' WHERE time_ms = (SELECT min(time_ms) FROM polls)");
	ct_exec(o, "UPDATE polls SET cpu = x'01ff' WHERE time_ms = (SELECT min(time_ms) FROM polls)");
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 1);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 0);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN1, true), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 1);
	ct_ranges(o, p);
	free(p);
	free(o);
}

static void test_migrate(void)
{
	char *p, *o;
	ct_fill("old.db", &p, &o);
	/* as a schema-14 wgwatchd left it */
	ct_exec(p,
		"DROP TABLE chunks; DROP TABLE rollup_chunks; DROP TABLE cpu_rollup_1h;"
		" DROP TABLE iface_rollup_1h; DROP TABLE peer_rollup_1h;"
		" ALTER TABLE verdicts DROP COLUMN ratio_rse; PRAGMA user_version = 14");
	store_t *st = storefix_open(p);
	store_close(st);
	CHECK_INT(storefix_int(p, "PRAGMA user_version"), 18);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 0);
	ct_ranges(o, p);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 0);
	ct_ranges(o, p);
	storefix_integrity(p);
	free(p);
	free(o);
}

/* The rows sql (the columns of pollfix_row_of, ?1 and ?2 bound) gives on the database at path. */
static size_t ct_sql_rows(const char *path, const char *sql, int64_t a, int64_t b, buf_t *out)
{
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	struct pollchunk_row r;
	size_t n = 0;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK);
	if (q == NULL)
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
	sqlite3_bind_int64(q, 1, a);
	sqlite3_bind_int64(q, 2, b);
	int rc;
	for (; (rc = sqlite3_step(q)) == SQLITE_ROW; n++) {
		pollfix_row_of(q, &r);
		pollfix_flat(out, &r);
	}
	CHECK_INT(rc, SQLITE_DONE);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return n;
}

#define CT_COLS "SELECT time_ms, duration_ms, source, err, error, cpu_mhz, cpu, ifaces, peers, health FROM "

/* store_polls on path reads with where what polls on orig does; returns the rows. */
static size_t ct_vtab_same(const char *orig, const char *path, const char *where, int64_t a, int64_t b)
{
	buf_t want, got;
	buf_init(&want);
	buf_init(&got);
	char *w = xasprintf(CT_COLS "polls %s", where), *g = xasprintf(CT_COLS "store_polls %s", where);
	size_t n = ct_sql_rows(orig, w, a, b, &want);
	CHECK_INT(ct_sql_rows(path, g, a, b, &got), n);
	CHECK(want.len == got.len && (want.len == 0 || memcmp(want.data, got.data, want.len) == 0));
	free(w);
	free(g);
	buf_free(&want);
	buf_free(&got);
	return n;
}

static void test_vtab(void)
{
	char *p, *o;
	ct_fill("vtab.db", &p, &o);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 0); /* r1: a chunk, then rows; r2: rows */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 1);
	static const char *const where[] = {
		"ORDER BY router_id, time_ms",
		"WHERE router_id = ?1 ORDER BY time_ms",
		"WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?2 + 900000 ORDER BY time_ms",
		"WHERE time_ms >= ?2 AND time_ms < ?2 + 600000 ORDER BY router_id, time_ms",
		"WHERE router_id = ?1 AND time_ms > ?2 AND time_ms <= ?2 + 600000 ORDER BY time_ms",
		"WHERE router_id = ?1 AND time_ms >= 1.5 ORDER BY time_ms DESC",
		"WHERE router_id = ?1 AND health IS NOT NULL ORDER BY time_ms DESC LIMIT 3",
		"WHERE router_id IN (?1, ?1 + 1) AND time_ms >= ?2 ORDER BY time_ms",
		"WHERE router_id IN (?1 + 1, ?1) AND time_ms >= ?2 ORDER BY router_id, time_ms",
	};
	sqlite3 *db = storefix_db(p);
	int64_t r1 = ct_rid(db, "r1");
	sqlite3_close(db);
	CHECK_INT(ct_vtab_same(o, p, where[0], r1, 0), 2 * POLLFIX_POLLS);
	CHECK_INT(ct_vtab_same(o, p, where[1], r1, 0), POLLFIX_POLLS);
	for (size_t i = 2; i < sizeof(where) / sizeof(*where); i++)
		CHECK(ct_vtab_same(o, p, where[i], r1, CT_SPAN1 - 300000) > 0);
	CHECK_INT(ct_vtab_same(o, p, "WHERE router_id = NULL", 0, 0), 0);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM store_polls WHERE router_id = 999"), 0);
	free(p);
	free(o);
}

/* The int of sql with ?1 = a on db. */
static int64_t ct_int(sqlite3 *db, const char *sql, int64_t a)
{
	sqlite3_stmt *q = NULL;
	int64_t v = -1;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK);
	sqlite3_bind_int64(q, 1, a);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

/* store_polls keeps its statements on its connection between reads (chunkstore_open_shelf): a
 * chunk rewritten or deleted on that connection since reads as it is now, two reads at once
 * (a self-join) each have statements of their own, and the connection still closes. */
static void test_vtab_kept(void)
{
	static const char count[] = "SELECT count(*) FROM store_polls WHERE router_id = ?1";
	static const char late[] = "SELECT sum(duration_ms = 9 AND error = 'late') FROM store_polls"
				   " WHERE router_id = ?1 AND time_ms >= 0 AND time_ms < 9e18";
	char *p, *o;
	ct_fill("kept.db", &p, &o);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 0);
	sqlite3 *db = storefix_db(p);
	int64_t r1 = ct_rid(db, "r1"), in0 = storefix_int(p, "SELECT nrows FROM chunks");
	store_t st = { .db = db };
	CHECK_INT(ct_int(db, count, r1), POLLFIX_POLLS);
	CHECK_INT(ct_int(db, late, r1), 0);
	char *sql = xasprintf("INSERT INTO polls (router_id, time_ms, duration_ms, source, err, error)"
			      " VALUES (%lld, %lld, 9, 'rest', 'timeout', 'late')",
		(long long)r1, (long long)(STOREFIX_T0 + 20001));
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	free(sql);
	CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
	CHECK_INT(chunkstore_span(&st, r1, CT_SPAN0), 0); /* the chunk rewritten, the late row in it */
	CHECK(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);
	CHECK_INT(ct_int(db, "SELECT sum(nrows) FROM chunks WHERE router_id = ?1", r1), in0 + 1);
	CHECK_INT(ct_int(db, count, r1), POLLFIX_POLLS + 1);
	CHECK_INT(ct_int(db, late, r1), 1);
	CHECK(sqlite3_exec(db, "DELETE FROM chunks", NULL, NULL, NULL) == SQLITE_OK);
	CHECK_INT(ct_int(db, count, r1), POLLFIX_POLLS - in0);
	CHECK_INT(ct_int(db, late, r1), 0);
	CHECK_INT(ct_int(db,
			  "SELECT count(*) FROM store_polls a JOIN store_polls b ON b.router_id = ?1"
			  " AND b.time_ms = a.time_ms WHERE a.router_id = ?1",
			  r1),
		POLLFIX_POLLS - in0);
	CHECK_INT(sqlite3_close(db), SQLITE_OK);
	free(p);
	free(o);
}

/* Every column of every row sql gives on the database at path, as text, into out. */
static void ct_dump(const char *path, const char *sql, buf_t *out)
{
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	CHECK(sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK);
	while (q != NULL && sqlite3_step(q) == SQLITE_ROW)
		for (int i = 0; i < sqlite3_column_count(q); i++) {
			const char *t = (const char *)sqlite3_column_text(q, i);
			buf_printf(out, "%s%c", t ? t : "NULL", i + 1 < sqlite3_column_count(q) ? '|' : '\n');
		}
	sqlite3_finalize(q);
	sqlite3_close(db);
}

/* What the history API reads of router over [from, to) on the database at path, as text. */
static void ct_history(const char *path, const char *router, int64_t from, int64_t to, buf_t *out)
{
	struct history_req hq = { .db_path = path,
		.router = router,
		.from_ms = from,
		.to_ms = to,
		.raw_retention_ms = STORE_DAY_MS,
		.max_points = 90 };
	history_t *h = NULL;
	char *cause = NULL;
	CHECK_INT(history_load(&hq, &h, &cause), 0);
	free(cause);
	if (h == NULL)
		return;
	buf_printf(out, "%" PRId64 " %zu %d %" PRId64 " %" PRId64 " %" PRId64 "\n", h->bucket_ms, h->nbuckets,
		h->rolled, h->health_ms, h->mem_free, h->disk_free);
	for (size_t b = 0; b < h->nbuckets; b++) {
		for (size_t i = 0; i < h->nifaces; i++)
			buf_printf(out, " %.6g %.6g", h->ifaces[i].rx_bps[b], h->ifaces[i].tx_bps[b]);
		for (size_t c = 0; c < h->ncores; c++)
			buf_printf(out, " %.6g", history_load_at(h, c, b));
		for (size_t i = 0; i < h->nsensors; i++)
			buf_printf(out, " %.6g", h->sensors[i].v[b]);
		buf_printf(out, "\n");
	}
	for (size_t i = 0; i < h->npeers; i++)
		buf_printf(out, "%" PRId64 " %" PRIu64 " %.6g\n", h->peers[i].time_ms, h->peers[i].rx_bytes,
			h->peers[i].rx_bps);
	for (size_t i = 0; i < h->nsensors; i++)
		buf_printf(
			out, "%.6g %.6g %.6g\n", h->sensors[i].value, h->sensors[i].min, h->sensors[i].max);
	history_free(h);
}

/* What the readers read on the database at path: rows, views, roll-ups, the history API. */
static void ct_readers(const char *path, const char *polls, buf_t *out)
{
	static const char *const sql[] = {
		"SELECT * FROM cpu_samples ORDER BY router_id, time_ms, core",
		"SELECT * FROM iface_samples ORDER BY router_id, time_ms, iface_id",
		"SELECT * FROM peer_samples ORDER BY router_id, time_ms, peer_id",
		"SELECT * FROM store_cpu_rollup ORDER BY 1, 2, 3",
		"SELECT * FROM store_iface_rollup ORDER BY 1, 2, 3",
		"SELECT * FROM store_peer_rollup ORDER BY 1, 2, 3",
		"SELECT key, value FROM store_state WHERE key NOT IN ('chunked_ms') ORDER BY key",
	};
	char *rows = xasprintf(CT_COLS "%s ORDER BY router_id, time_ms", polls);
	ct_dump(path, rows, out);
	free(rows);
	for (size_t i = 0; i < sizeof(sql) / sizeof(*sql); i++)
		ct_dump(path, sql[i], out);
	for (int64_t from = STOREFIX_T0 - 3600000; from < STOREFIX_T0 + 3600000; from += 1500000)
		for (int r = 0; r < 2; r++)
			ct_history(path, r ? "r2" : "r1", from, from + 2 * 3600000, out);
}

/* The store at path maintained at time now (the roll-ups, retention and chunking as due). */
static void ct_maintain(const char *path, int64_t now)
{
	atomic_store(&storefix_now, now);
	store_t *st = storefix_open(path);
	storefix_maintain(st);
	store_close(st);
}

/* The maintenance job chunks the closed hour and leaves the open one rows; every reader reads
 * what it read before, on orig (its chunking's mark past all time: never chunked); and again
 * after retention trimmed the chunk across its bound. */
static void test_maint(void)
{
	char *p, *o;
	ct_fill("maint.db", &p, &o);
	ct_exec(o, "INSERT INTO store_state VALUES ('chunked_ms', 9223372036854775807)");
	int64_t hour = STOREFIX_T0 / CHUNKSTORE_SPAN_MS * CHUNKSTORE_SPAN_MS;
	int64_t now[] = { hour + 2 * CHUNKSTORE_SPAN_MS + STORE_GATHER_MS - 1,
		STOREFIX_T0 + STORE_DAY_MS + 1200000 }; /* the hour after T0's still open; then a day on */
	for (int round = 0; round < 2; round++) {
		ct_maintain(p, now[round]);
		ct_maintain(o, now[round]);
		CHECK_INT(storefix_int(o, "SELECT count(*) FROM chunks"), 0);
		CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 2 + 2 * round); /* r1 and r2 */
		CHECK_INT(storefix_int(p,
				  round ? "SELECT count(*) FROM polls"
					: "SELECT count(*) FROM polls"
					  " WHERE time_ms < 1699999200000 + 3600000"),
			0);
		buf_t want, got;
		buf_init(&want);
		buf_init(&got);
		ct_readers(o, "polls", &want);
		ct_readers(p, "store_polls", &got);
		CHECK(want.len > 1000 && want.len == got.len && memcmp(want.data, got.data, want.len) == 0);
		printf("  maintenance round %d: readers' %zu bytes the same, %" PRId64 " rows in chunks\n",
			round, got.len, storefix_int(p, "SELECT sum(nrows) FROM chunks"));
		buf_free(&want);
		buf_free(&got);
	}
	storefix_integrity(p);
	free(p);
	free(o);
}

/* A malformed chunk does not stall the job: its hour is logged and left as it is (its late row
 * too), the other router's chunked, and the mark passes it. */
static void test_maint_malformed(void)
{
	char *p, *o;
	ct_fill("malformed.db", &p, &o);
	CHECK_INT(ct_chunk(p, "r1", CT_SPAN0, true), 0);
	ct_exec(p, "UPDATE chunks SET data = zeroblob(length(data))");
	ct_exec(p,
		"INSERT INTO polls (router_id, time_ms, duration_ms, source) SELECT id, 1699999200001,"
		" 10, 'rest' FROM routers WHERE name = 'r1'");
	ct_maintain(p, CT_SPAN1 + CHUNKSTORE_SPAN_MS + STORE_GATHER_MS);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM chunks"), 4); /* r1's old one, three new */
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 1);
	CHECK_INT(storefix_int(p, "SELECT value FROM store_state WHERE key = 'chunked_ms'"),
		CT_SPAN1 + CHUNKSTORE_SPAN_MS);
	free(p);
	free(o);
}

int main(void)
{
	if (storefix_begin("chunkstore_test") < 0)
		return 99;
	test_roundtrip();
	test_interrupted();
	test_migrate();
	test_vtab();
	test_vtab_kept();
	test_maint();
	test_maint_malformed();
	return unitfs_end(unit_done("chunkstore_test"));
}
