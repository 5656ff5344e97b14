/* SPDX-License-Identifier: Apache-2.0 */
/* chunkstore: the chunks table (chunkstore.h): a read merges a router's chunks and polls rows in
 * time order; a write reads a span through that same read, so that rows and a chunk written
 * before become one chunk, then replaces them in the caller's transaction. It must never delete
 * a row that is not in the chunk written in the same transaction. */
#include "config.h"
#include "store/chunkstore.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* A chunk's rows lie within one span, so one that starts a span or more before a range ends
 * before it: the lower bound lets SQLite seek chunks_key. */
static const char cs_chunks_sql[] = "SELECT data FROM chunks WHERE router_id = ?1 AND time_ms > ?4"
				    " AND time_ms < ?3 AND end_ms >= ?2 ORDER BY time_ms";
/* A BLOB column the reader does not want is read as NULL: SQLite then leaves its overflow pages
 * (a peers BLOB runs past a page) unread. */
static const char cs_polls_sql[] =
	"SELECT time_ms, duration_ms, source, err, error, cpu_mhz, %s, %s, %s, %s FROM polls"
	" WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3 ORDER BY time_ms";
static const char *const cs_blob_col[POLLCHUNK_NBLOB] = { "cpu", "ifaces", "peers", "health" };
/* A shelf's slots: the chunks' read, then the polls' by the BLOBs it reads. */
enum { CS_SLOT_CHUNKS, CS_SLOT_POLLS, CS_NSLOTS = CS_SLOT_POLLS + CHUNKSTORE_ALL_BLOBS + 1 };

struct chunkstore_cur { /* a read of one router's rows over a range */
	sqlite3 *db;
	db_shelf_t *shelf; /* where its statements come from and go back to; NULL: none */
	sqlite3_stmt *chunks, *polls;
	int64_t from, to;
	pollchunk_read_t *rd; /* the chunk being read (its bytes: the chunks statement's row) */
	struct pollchunk_row crow, prow;
	bool chave, phave; /* crow, prow hold the next row of each table in range */
	int last;          /* the table of the row returned last: 1 chunks, 2 polls, 0 none yet */
	bool malformed;    /* the error was a chunk that cannot be read, not SQLite's */
	bool skip;         /* CHUNKSTORE_SKIP_MALFORMED: read on past such a chunk */
	unsigned blobs;    /* the BLOBs wanted (bit b: blob b): the others read as NULL */
	char **cause;
};

static int cs_fail(chunkstore_cur_t *r, const char *what)
{
	*r->cause = xasprintf("%s: %s", what, sqlite3_errmsg(r->db));
	return -1;
}

static int cs_malformed(chunkstore_cur_t *r, const char *why)
{
	*r->cause = xasprintf("a chunk of polls rows: %s", why);
	r->malformed = true;
	return -1;
}

/* The next row of the chunks in range into r->crow (r->chave false after the last). */
static int cs_chunk_next(chunkstore_cur_t *r)
{
	const char *why = NULL;
	for (;;) {
		int rc = r->rd != NULL ? pollchunk_next(r->rd, &r->crow, &why) : 0;
		if (rc == 1 && r->crow.time_ms < r->from)
			continue;
		if (rc == 1 && r->crow.time_ms < r->to)
			return r->chave = true, 0;
		if (rc < 0 && !r->skip)
			return cs_malformed(r, why);
		pollchunk_read_free(r->rd); /* read, or past the range */
		r->rd = NULL;
		r->chave = false;
		if ((rc = sqlite3_step(r->chunks)) == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW)
			return cs_fail(r, "reading chunks");
		const void *p = sqlite3_column_blob(r->chunks, 0);
		r->rd = pollchunk_decode_some(p, (size_t)sqlite3_column_bytes(r->chunks, 0), r->blobs, &why);
		if (r->rd == NULL && !r->skip)
			return cs_malformed(r, why);
		if (r->rd != NULL) /* a range that starts inside the chunk: its earlier rows unmade */
			pollchunk_seek(r->rd, r->from);
	}
}

/* The next polls row in range into r->prow (r->phave false after the last). */
static int cs_polls_next(chunkstore_cur_t *r)
{
	sqlite3_stmt *q = r->polls;
	int rc = sqlite3_step(q);
	r->phave = rc == SQLITE_ROW;
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? 0 : cs_fail(r, "reading polls");
	struct pollchunk_row *w = &r->prow;
	*w = (struct pollchunk_row){ .time_ms = sqlite3_column_int64(q, 0),
		.duration_ms = sqlite3_column_int64(q, 1) };
	w->source = (const char *)sqlite3_column_text(q, 2);
	w->err = (const char *)sqlite3_column_text(q, 3);
	w->error = (const char *)sqlite3_column_text(q, 4);
	w->have_mhz = sqlite3_column_type(q, 5) != SQLITE_NULL;
	w->cpu_mhz = sqlite3_column_int64(q, 5);
	for (int b = 0; b < POLLCHUNK_NBLOB; b++) {
		w->blob[b] = sqlite3_column_blob(q, 6 + b);
		w->len[b] = (size_t)sqlite3_column_bytes(q, 6 + b);
	}
	return 0;
}

static int cs_prepare(chunkstore_cur_t *r, int64_t rid, unsigned blobs)
{
	const char *col[POLLCHUNK_NBLOB];
	for (int b = 0; b < POLLCHUNK_NBLOB; b++)
		col[b] = blobs & (1u << b) ? cs_blob_col[b] : "NULL";
	char *sql = xasprintf(cs_polls_sql, col[0], col[1], col[2], col[3]);
	r->chunks = db_shelf_take(r->shelf, r->db, CS_SLOT_CHUNKS, cs_chunks_sql);
	if (r->chunks != NULL)
		r->polls = db_shelf_take(r->shelf, r->db, CS_SLOT_POLLS + blobs, sql);
	free(sql);
	if (r->polls == NULL)
		return cs_fail(r, "preparing the read of polls rows");
	int64_t before = r->from > INT64_MIN + CHUNKSTORE_SPAN_MS ? r->from - CHUNKSTORE_SPAN_MS : INT64_MIN;
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *q = i ? r->polls : r->chunks;
		sqlite3_bind_int64(q, 1, rid);
		sqlite3_bind_int64(q, 2, r->from);
		sqlite3_bind_int64(q, 3, r->to);
	}
	sqlite3_bind_int64(r->chunks, 4, before);
	return 0;
}

/* A cursor in *out, also when the first rows fail to read (-1: r->malformed tells why). */
static int cs_open(sqlite3 *db, db_shelf_t *shelf, int64_t rid, int64_t from, int64_t to, unsigned blobs,
	char **cause, chunkstore_cur_t **out)
{
	chunkstore_cur_t *r = xcalloc(1, sizeof(*r));
	*r = (chunkstore_cur_t){ .db = db,
		.shelf = shelf,
		.from = from,
		.to = to,
		.cause = cause,
		.skip = (blobs & CHUNKSTORE_SKIP_MALFORMED) != 0,
		.blobs = blobs & CHUNKSTORE_ALL_BLOBS };
	*out = r;
	return cs_prepare(r, rid, r->blobs) < 0 || cs_chunk_next(r) < 0 || cs_polls_next(r) < 0 ? -1 : 0;
}

db_shelf_t *chunkstore_shelf_new(void)
{
	return db_shelf_new(CS_NSLOTS);
}

chunkstore_cur_t *chunkstore_open_shelf(
	sqlite3 *db, db_shelf_t *shelf, int64_t rid, int64_t from, int64_t to, unsigned blobs, char **cause)
{
	chunkstore_cur_t *r = NULL;
	if (cs_open(db, shelf, rid, from, to, blobs, cause, &r) < 0) {
		chunkstore_close(r);
		return NULL;
	}
	return r;
}

chunkstore_cur_t *chunkstore_open_cols(
	sqlite3 *db, int64_t rid, int64_t from, int64_t to, unsigned blobs, char **cause)
{
	return chunkstore_open_shelf(db, NULL, rid, from, to, blobs, cause);
}

chunkstore_cur_t *chunkstore_open(sqlite3 *db, int64_t rid, int64_t from, int64_t to, char **cause)
{
	return chunkstore_open_cols(db, rid, from, to, CHUNKSTORE_ALL_BLOBS, cause);
}

/* A polls row of a time a chunk holds came after the chunk was written: the writer's insert
 * (ON CONFLICT DO NOTHING) would have kept the first, so the chunk's row is the one. */
static int cs_skip_dup(chunkstore_cur_t *r)
{
	while (r->chave && r->phave && r->prow.time_ms == r->crow.time_ms)
		if (cs_polls_next(r) < 0)
			return -1;
	return 0;
}

int chunkstore_next(chunkstore_cur_t *r, const struct pollchunk_row **row, char **cause)
{
	r->cause = cause;
	if ((r->last == 1 && cs_chunk_next(r) < 0) || (r->last == 2 && cs_polls_next(r) < 0) ||
		cs_skip_dup(r) < 0) {
		r->last = 0;
		r->chave = r->phave = false; /* nothing more after an error */
		return -1;
	}
	if (!r->chave && !r->phave) {
		r->last = 0;
		return 0;
	}
	r->last = r->chave && (!r->phave || r->crow.time_ms <= r->prow.time_ms) ? 1 : 2;
	*row = r->last == 1 ? &r->crow : &r->prow;
	return 1;
}

void chunkstore_close(chunkstore_cur_t *r)
{
	if (r == NULL)
		return;
	pollchunk_read_free(r->rd);
	db_shelf_give(r->shelf, CS_SLOT_CHUNKS, r->chunks);
	db_shelf_give(r->shelf, CS_SLOT_POLLS + r->blobs, r->polls);
	free(r);
}

int chunkstore_rows(
	sqlite3 *db, int64_t rid, int64_t from, int64_t to, chunkstore_fn fn, void *arg, char **cause)
{
	const struct pollchunk_row *row = NULL;
	chunkstore_cur_t *r = chunkstore_open(db, rid, from, to, cause);
	int rc = r == NULL ? -1 : 0;
	while (rc == 0 && (rc = chunkstore_next(r, &row, cause)) == 1)
		rc = fn(arg, row);
	chunkstore_close(r);
	return rc;
}

struct cs_span { /* the rows of a span being chunked */
	pollchunk_t *pc;
	int64_t first, last;
};

/* The span's chunks and polls rows deleted, s's chunk (when it has rows) inserted. */
static int cs_replace(store_t *st, int64_t rid, int64_t span, const struct cs_span *s)
{
	static const char *const sql[] = {
		"DELETE FROM chunks WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3",
		"DELETE FROM polls WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3",
		"INSERT INTO chunks (router_id, time_ms, end_ms, nrows, data) VALUES (?1, ?4, ?5, ?6, ?7)",
	};
	size_t nsql = pollchunk_len(s->pc) > 0 ? 3 : 2;
	buf_t out;
	buf_init(&out);
	pollchunk_encode(s->pc, &out);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nsql; i++) {
		sqlite3_stmt *q = store_stmt(st, sql[i]);
		if (q == NULL) {
			rc = -1;
			break;
		}
		int64_t v[] = { rid, span, span + CHUNKSTORE_SPAN_MS, s->first, s->last,
			(int64_t)pollchunk_len(s->pc) };
		for (int k = 0; k < sqlite3_bind_parameter_count(q) && k < 6; k++)
			sqlite3_bind_int64(q, k + 1, v[k]);
		if (i == 2)
			db_bind_blob(q, 7, out.data, out.len);
		rc = store_step(st, q);
		sqlite3_finalize(q);
	}
	buf_free(&out);
	return rc;
}

/* The span's rows from `from` on into s: 0, 1 when they cannot be chunked (a row the chunk
 * refuses, a malformed chunk), -1 on an SQLite error; with st->errmsg but for 0. */
static int cs_collect(store_t *st, int64_t rid, int64_t span, int64_t from, struct cs_span *s)
{
	char *cause = NULL;
	const char *why = NULL;
	const struct pollchunk_row *row = NULL;
	chunkstore_cur_t *r = NULL;
	int rc = cs_open(
		st->db, NULL, rid, from, span + CHUNKSTORE_SPAN_MS, CHUNKSTORE_ALL_BLOBS, &cause, &r);
	while (rc == 0 && (rc = chunkstore_next(r, &row, &cause)) == 1) {
		rc = 0;
		if (pollchunk_add(s->pc, row, &why) < 0) {
			snprintf(st->errmsg, sizeof(st->errmsg), "the row of %" PRId64 ": %s", row->time_ms,
				why);
			rc = 1;
			break;
		}
		if (pollchunk_len(s->pc) == 1)
			s->first = row->time_ms;
		s->last = row->time_ms;
	}
	if (rc < 0) {
		snprintf(st->errmsg, sizeof(st->errmsg), "%s", cause ? cause : "out of memory");
		rc = r->malformed ? 1 : -1;
	}
	chunkstore_close(r);
	free(cause);
	return rc;
}

int chunkstore_trim(store_t *st, int64_t rid, int64_t span_ms, int64_t from)
{
	struct cs_span s = { .pc = pollchunk_new() };
	int rc = cs_collect(st, rid, span_ms, from, &s);
	if (rc == 0 && (pollchunk_len(s.pc) > 0 || from > span_ms))
		rc = cs_replace(st, rid, span_ms, &s);
	pollchunk_free(s.pc);
	return rc;
}

int chunkstore_span(store_t *st, int64_t rid, int64_t span_ms)
{
	return chunkstore_trim(st, rid, span_ms, span_ms);
}

int chunkstore_holds(store_t *st, int64_t rid, int64_t t)
{
	char *cause = NULL;
	const struct pollchunk_row *row = NULL;
	chunkstore_cur_t *r = chunkstore_open_cols(st->db, rid, t, t + 1, 0, &cause);
	int rc = r == NULL ? -1 : chunkstore_next(r, &row, &cause);
	if (rc < 0)
		snprintf(st->errmsg, sizeof(st->errmsg), "%s", cause ? cause : "out of memory");
	chunkstore_close(r);
	free(cause);
	return rc;
}
