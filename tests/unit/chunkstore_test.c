/* SPDX-License-Identifier: Apache-2.0 */
/* chunkstore_test: store/chunkstore.c over a database the real store wrote (pollfix: every
 * column kind). Its spans chunked, every range of rows reads back as the polls table held it;
 * a late row beside a chunk reads in order and is merged by the next chunking; a chunking
 * interrupted (a process gone mid-transaction, a rollback) leaves the rows as they were; rows
 * the chunk cannot hold stay rows; a schema-14 database migrates to 015 and reads the same.
 * store_polls (store/pollsvt.c) gives, by router and range or whole, what polls held. */
#include "pollfix.h"
#include "store/chunkstore.h"

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
	ct_exec(p, "DROP TABLE chunks; PRAGMA user_version = 14"); /* as a schema-14 wgwatchd left it */
	store_t *st = storefix_open(p);
	store_close(st);
	CHECK_INT(storefix_int(p, "PRAGMA user_version"), 15);
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

int main(void)
{
	if (storefix_begin("chunkstore_test") < 0)
		return 99;
	test_roundtrip();
	test_interrupted();
	test_migrate();
	test_vtab();
	return unitfs_end(unit_done("chunkstore_test"));
}
