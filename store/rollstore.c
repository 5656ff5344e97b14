/* SPDX-License-Identifier: Apache-2.0 */
/* rollstore: the rollup_chunks table (rollstore.h): a read merges a series' chunks and table rows
 * in (bucket, core) order; a write reads a day through that same read, so that rows and a chunk
 * written before become one chunk, then replaces them in the caller's transaction. It must never
 * delete a row that is not in the chunk written in the same transaction. */
#include "config.h"
#include "store/rollstore.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static const struct {
	const char *table, *id, *parent, *cols; /* cols: core, then the value columns */
} rs_kinds[ROLLCHUNK_NKIND] = {
	[ROLLCHUNK_CPU] = { "cpu_rollup", "router_id", "routers", "core, n, load_min, load_avg, load_max" },
	[ROLLCHUNK_IFACE] = { "iface_rollup", "iface_id", "interfaces",
		"0, n, rx_rate_avg, rx_rate_max, tx_rate_avg, tx_rate_max, rx_bytes_end, tx_bytes_end" },
	[ROLLCHUNK_PEER] = { "peer_rollup", "peer_id", "peers",
		"0, n, rx_rate_avg, rx_rate_max, tx_rate_avg, tx_rate_max, rx_bytes_end, tx_bytes_end" },
	[ROLLCHUNK_CPU_1H] = { "cpu_rollup_1h", "router_id", "routers",
		"core, n, load_min, load_sum, load_max" },
	[ROLLCHUNK_IFACE_1H] = { "iface_rollup_1h", "iface_id", "interfaces",
		"0, n, m, rx_rate_sum, rx_rate_max, tx_rate_sum, tx_rate_max, rx_bytes_end, tx_bytes_end" },
	[ROLLCHUNK_PEER_1H] = { "peer_rollup_1h", "peer_id", "peers",
		"0, n, m, rx_rate_sum, rx_rate_max, tx_rate_sum, tx_rate_max, rx_bytes_end, tx_bytes_end" },
};

/* A chunk's rows lie within one day, so one that starts a day or more before a range ends
 * before it: the lower bound lets SQLite seek rollup_chunks_key. */
static const char rs_chunks_sql[] = "SELECT data FROM rollup_chunks WHERE kind = ?5 AND id = ?1"
				    " AND time_ms > ?4 AND time_ms < ?3 AND end_ms >= ?2 ORDER BY time_ms";
static const char rs_rows_sql[] = "SELECT bucket_ms, %s FROM %s WHERE %s = ?1 AND bucket_ms >= ?2"
				  " AND bucket_ms < ?3 ORDER BY bucket_ms, 2";

/* A shelf's slots: the chunks' read, then the table rows' by kind. */
enum { RS_SLOT_CHUNKS, RS_SLOT_ROWS, RS_NSLOTS = RS_SLOT_ROWS + ROLLCHUNK_NKIND };

struct rollstore_cur {
	sqlite3 *db;
	db_shelf_t *shelf; /* where its statements come from and go back to; NULL: none */
	enum rollchunk_kind kind;
	sqlite3_stmt *chunks, *rows;
	int64_t from, to, purged;
	rollchunk_read_t *rd;
	struct rollchunk_row crow, trow;
	bool chave, thave; /* crow, trow hold the next row of each table in range */
	int last;          /* the table of the row returned last: 1 chunks, 2 the roll-up table */
	bool malformed;    /* the error was a chunk that cannot be read, not SQLite's */
	bool skip;         /* read on past such a chunk */
	bool odd;          /* a table row had a value that is not an integer: not chunked */
	char **cause;
};

static int rs_fail(rollstore_cur_t *r, const char *what)
{
	*r->cause = xasprintf("%s: %s", what, sqlite3_errmsg(r->db));
	return -1;
}

/* The next row of the chunks in range into r->crow (r->chave false after the last). */
static int rs_chunk_next(rollstore_cur_t *r)
{
	const char *why = NULL;
	for (;;) {
		int rc = r->rd != NULL ? rollchunk_next(r->rd, &r->crow, &why) : 0;
		if (rc == 1 && (r->crow.bucket_ms < r->from || r->crow.bucket_ms < r->purged))
			continue;
		if (rc == 1 && r->crow.bucket_ms < r->to)
			return r->chave = true, 0;
		if (rc < 0 && !r->skip) {
			*r->cause = xasprintf("a chunk of %s rows: %s", rs_kinds[r->kind].table, why);
			r->malformed = true;
			return -1;
		}
		rollchunk_read_free(r->rd);
		r->rd = NULL;
		r->chave = false;
		if ((rc = sqlite3_step(r->chunks)) == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW)
			return rs_fail(r, "reading rollup_chunks");
		const void *p = sqlite3_column_blob(r->chunks, 0);
		r->rd = rollchunk_decode(r->kind, p, (size_t)sqlite3_column_bytes(r->chunks, 0), &why);
		if (r->rd == NULL && !r->skip) {
			*r->cause = xasprintf("a chunk of %s rows: %s", rs_kinds[r->kind].table, why);
			r->malformed = true;
			return -1;
		}
	}
}

/* The next roll-up table row in range into r->trow (r->thave false after the last). */
static int rs_rows_next(rollstore_cur_t *r)
{
	sqlite3_stmt *q = r->rows;
	int rc = sqlite3_step(q);
	r->thave = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : rs_fail(r, "reading the roll-ups");
	struct rollchunk_row *w = &r->trow;
	*w = (struct rollchunk_row){ .bucket_ms = sqlite3_column_int64(q, 0),
		.core = sqlite3_column_int64(q, 1) };
	for (int c = 0; c < rollchunk_ncols(r->kind); c++) {
		int type = sqlite3_column_type(q, 2 + c);
		if (type == SQLITE_NULL)
			continue;
		r->odd |= type != SQLITE_INTEGER;
		w->have |= 1u << c;
		w->v[c] = sqlite3_column_int64(q, 2 + c);
	}
	return 0;
}

static int rs_prepare(rollstore_cur_t *r, int64_t id)
{
	char *sql = xasprintf(
		rs_rows_sql, rs_kinds[r->kind].cols, rs_kinds[r->kind].table, rs_kinds[r->kind].id);
	r->chunks = db_shelf_take(r->shelf, r->db, RS_SLOT_CHUNKS, rs_chunks_sql);
	if (r->chunks != NULL)
		r->rows = db_shelf_take(r->shelf, r->db, RS_SLOT_ROWS + (size_t)r->kind, sql);
	free(sql);
	if (r->rows == NULL)
		return rs_fail(r, "preparing the read of roll-ups");
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *q = i ? r->rows : r->chunks;
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, r->from);
		sqlite3_bind_int64(q, 3, r->to);
	}
	int64_t before = r->from > INT64_MIN + ROLLSTORE_SPAN_MS ? r->from - ROLLSTORE_SPAN_MS : INT64_MIN;
	sqlite3_bind_int64(r->chunks, 4, before);
	sqlite3_bind_int64(r->chunks, 5, r->kind);
	return 0;
}

/* A cursor in *out, also when the first rows fail to read (-1: r->malformed tells why). */
static int rs_open(sqlite3 *db, db_shelf_t *shelf, enum rollchunk_kind kind, int64_t id, int64_t from,
	int64_t to, int64_t purged, bool skip, char **cause, rollstore_cur_t **out)
{
	rollstore_cur_t *r = xcalloc(1, sizeof(*r));
	*r = (rollstore_cur_t){ .db = db,
		.shelf = shelf,
		.kind = kind,
		.from = from,
		.to = to,
		.purged = purged,
		.skip = skip,
		.cause = cause };
	*out = r;
	return rs_prepare(r, id) < 0 || rs_chunk_next(r) < 0 || rs_rows_next(r) < 0 ? -1 : 0;
}

db_shelf_t *rollstore_shelf_new(void)
{
	return db_shelf_new(RS_NSLOTS);
}

rollstore_cur_t *rollstore_open(sqlite3 *db, db_shelf_t *shelf, enum rollchunk_kind kind, int64_t id,
	int64_t from, int64_t to, int64_t purged, bool skip_malformed, char **cause)
{
	rollstore_cur_t *r = NULL;
	if (rs_open(db, shelf, kind, id, from, to, purged, skip_malformed, cause, &r) < 0) {
		rollstore_close(r);
		return NULL;
	}
	return r;
}

/* -1, 0, 1 as a's (bucket, core) is before, the same as, after b's. */
static int rs_order(const struct rollchunk_row *a, const struct rollchunk_row *b)
{
	if (a->bucket_ms != b->bucket_ms)
		return a->bucket_ms < b->bucket_ms ? -1 : 1;
	return (a->core > b->core) - (a->core < b->core);
}

/* A chunk's row of a bucket and core the table has too was replaced by it (a re-roll whose
 * chunk could not be written): the table's is the one. */
static int rs_skip_dup(rollstore_cur_t *r)
{
	while (r->chave && r->thave && rs_order(&r->crow, &r->trow) == 0)
		if (rs_chunk_next(r) < 0)
			return -1;
	return 0;
}

int rollstore_next(rollstore_cur_t *r, const struct rollchunk_row **row, char **cause)
{
	r->cause = cause;
	if ((r->last == 1 && rs_chunk_next(r) < 0) || (r->last == 2 && rs_rows_next(r) < 0) ||
		rs_skip_dup(r) < 0) {
		r->last = 0;
		r->chave = r->thave = false; /* nothing more after an error */
		return -1;
	}
	if (!r->chave && !r->thave) {
		r->last = 0;
		return 0;
	}
	r->last = r->chave && (!r->thave || rs_order(&r->crow, &r->trow) < 0) ? 1 : 2;
	*row = r->last == 1 ? &r->crow : &r->trow;
	return 1;
}

void rollstore_close(rollstore_cur_t *r)
{
	if (r == NULL)
		return;
	rollchunk_read_free(r->rd);
	db_shelf_give(r->shelf, RS_SLOT_CHUNKS, r->chunks);
	db_shelf_give(r->shelf, RS_SLOT_ROWS + (size_t)r->kind, r->rows);
	free(r);
}

/* The day's chunk and table rows of the series deleted, rc's chunk (when it has rows) inserted. */
static int rs_replace(store_t *st, enum rollchunk_kind kind, int64_t id, int64_t day, const rollchunk_t *rc,
	int64_t first, int64_t last)
{
	char *del = xasprintf("DELETE FROM %s WHERE %s = ?1 AND bucket_ms >= ?2 AND bucket_ms < ?3",
		rs_kinds[kind].table, rs_kinds[kind].id);
	const char *sql[] = {
		"DELETE FROM rollup_chunks WHERE kind = ?4 AND id = ?1 AND time_ms >= ?2 AND time_ms < ?3",
		del,
		"INSERT INTO rollup_chunks (kind, id, time_ms, end_ms, nrows, data) VALUES (?4, ?1, ?5, ?6, ?7, ?8)",
	};
	size_t nsql = rollchunk_len(rc) > 0 ? 3 : 2;
	buf_t out;
	buf_init(&out);
	rollchunk_encode(rc, &out);
	int ret = 0;
	for (size_t i = 0; ret == 0 && i < nsql; i++) {
		sqlite3_stmt *q = store_stmt(st, sql[i]);
		if (q == NULL) {
			ret = -1;
			break;
		}
		int64_t v[] = { id, day, day + ROLLSTORE_SPAN_MS, kind, first, last,
			(int64_t)rollchunk_len(rc) };
		for (int k = 0; k < sqlite3_bind_parameter_count(q) && k < 7; k++)
			sqlite3_bind_int64(q, k + 1, v[k]);
		if (i == 2)
			db_bind_blob(q, 8, out.data, out.len);
		ret = store_step(st, q);
		sqlite3_finalize(q);
	}
	buf_free(&out);
	free(del);
	return ret;
}

/* The series' day made one chunk: 0, 1 when its rows cannot be chunked as they are (logged),
 * -1 on an SQLite error; with st->errmsg but for 0. */
static int rs_span(store_t *st, enum rollchunk_kind kind, int64_t id, int64_t day)
{
	char *cause = NULL;
	const char *why = NULL;
	const struct rollchunk_row *row = NULL;
	rollstore_cur_t *r = NULL;
	rollchunk_t *rc = rollchunk_new(kind);
	int64_t first = 0, last = 0;
	int ret = rs_open(st->db, NULL, kind, id, day, day + ROLLSTORE_SPAN_MS, INT64_MIN, false, &cause, &r);
	while (ret == 0 && (ret = rollstore_next(r, &row, &cause)) == 1) {
		ret = r->odd ? -2 : rollchunk_add(rc, row, &why) < 0 ? -3 : 0;
		first = rollchunk_len(rc) == 1 ? row->bucket_ms : first;
		last = row->bucket_ms;
	}
	if (ret == -1)
		snprintf(st->errmsg, sizeof(st->errmsg), "%s", cause ? cause : "out of memory");
	else if (ret < -1)
		snprintf(st->errmsg, sizeof(st->errmsg), "a row of %" PRId64 " ms: %s", row->bucket_ms,
			ret == -2 ? "a value that is not an integer" : why);
	ret = ret < -1 || (ret == -1 && r->malformed) ? 1 : ret;
	rollstore_close(r);
	free(cause);
	if (ret == 0)
		ret = rs_replace(st, kind, id, day, rc, first, last);
	rollchunk_free(rc);
	return ret;
}

/* Each series of kind with table rows in the day after id *after made one chunk, at most *left
 * of them (counted down; *after the last one's): 0, or -1 with st->errmsg. */
static int rs_day(store_t *st, enum rollchunk_kind kind, int64_t day, int64_t *after, int *left)
{
	char *sql = xasprintf("SELECT p.id FROM %s p WHERE p.id > ?3 AND EXISTS (SELECT 1 FROM %s WHERE"
			      " %s = p.id AND bucket_ms >= ?1 AND bucket_ms < ?2) ORDER BY p.id",
		rs_kinds[kind].parent, rs_kinds[kind].table, rs_kinds[kind].id);
	sqlite3_stmt *q = store_stmt(st, sql);
	free(sql);
	if (q == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, day);
	sqlite3_bind_int64(q, 2, day + ROLLSTORE_SPAN_MS);
	sqlite3_bind_int64(q, 3, *after);
	int rc = SQLITE_DONE, ret = 0;
	while (ret == 0 && *left > 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		ret = rs_span(st, kind, id, day);
		if (ret == 1)
			log_warn("store: %s: %s of %" PRId64 ", the day at %" PRId64
				 " ms: its rows stay rows (%s)",
				st->path, rs_kinds[kind].table, id, day, st->errmsg);
		ret = ret < 0 ? -1 : 0;
		*after = id;
		--*left;
	}
	if (ret == 0 && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_note_error(st);
		ret = -1;
	}
	sqlite3_finalize(q);
	return ret;
}

int rollstore_day_step(store_t *st, int64_t day, struct rollstore_pos *pos, int max)
{
	if (pos->day != day)
		*pos = (struct rollstore_pos){ .day = day, .kind = 0, .after = INT64_MIN };
	int left = max;
	while (pos->kind < ROLLCHUNK_NKIND) {
		if (rs_day(st, (enum rollchunk_kind)pos->kind, day, &pos->after, &left) < 0)
			return -1;
		if (left == 0)
			return 0; /* maybe done: the next step finds out, at the cost of one query */
		pos->kind++;
		pos->after = INT64_MIN;
	}
	return 1;
}

int rollstore_days(store_t *st, int64_t from, int64_t to, int kfirst, int kend)
{
	for (int64_t day = from; day < to; day += ROLLSTORE_SPAN_MS)
		for (int k = kfirst; k < kend; k++) {
			int64_t after = INT64_MIN;
			int left = INT_MAX;
			if (rs_day(st, (enum rollchunk_kind)k, day, &after, &left) < 0)
				return -1;
		}
	return 0;
}
