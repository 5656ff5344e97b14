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

#include <stdio.h>
#include <stdlib.h>

/* A chunk's rows lie within one span, so one that starts a span or more before a range ends
 * before it: the lower bound lets SQLite seek chunks_key. */
static const char cs_chunks_sql[] = "SELECT data FROM chunks WHERE router_id = ?1 AND time_ms > ?4"
				    " AND time_ms < ?3 AND end_ms >= ?2 ORDER BY time_ms";
static const char cs_polls_sql[] =
	"SELECT time_ms, duration_ms, source, err, error, cpu_mhz, cpu, ifaces, peers, health FROM polls"
	" WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3 ORDER BY time_ms";

struct chunkstore_cur { /* a read of one router's rows over a range */
	sqlite3 *db;
	sqlite3_stmt *chunks, *polls;
	int64_t from, to;
	pollchunk_read_t *rd; /* the chunk being read (its bytes: the chunks statement's row) */
	struct pollchunk_row crow, prow;
	bool chave, phave; /* crow, prow hold the next row of each table in range */
	int last;          /* the table of the row returned last: 1 chunks, 2 polls, 0 none yet */
	char **cause;
};

static int cs_fail(chunkstore_cur_t *r, const char *what)
{
	*r->cause = xasprintf("%s: %s", what, sqlite3_errmsg(r->db));
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
		if (rc < 0) {
			*r->cause = xasprintf("a chunk of polls rows: %s", why);
			return -1;
		}
		pollchunk_read_free(r->rd); /* read, or past the range */
		r->rd = NULL;
		r->chave = false;
		if ((rc = sqlite3_step(r->chunks)) == SQLITE_DONE)
			return 0;
		if (rc != SQLITE_ROW)
			return cs_fail(r, "reading chunks");
		const void *p = sqlite3_column_blob(r->chunks, 0);
		if ((r->rd = pollchunk_decode(p, (size_t)sqlite3_column_bytes(r->chunks, 0), &why)) == NULL) {
			*r->cause = xasprintf("a chunk of polls rows: %s", why);
			return -1;
		}
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

static int cs_prepare(chunkstore_cur_t *r, int64_t rid)
{
	if (sqlite3_prepare_v2(r->db, cs_chunks_sql, -1, &r->chunks, NULL) != SQLITE_OK ||
		sqlite3_prepare_v2(r->db, cs_polls_sql, -1, &r->polls, NULL) != SQLITE_OK)
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

chunkstore_cur_t *chunkstore_open(sqlite3 *db, int64_t rid, int64_t from, int64_t to, char **cause)
{
	chunkstore_cur_t *r = xcalloc(1, sizeof(*r));
	*r = (chunkstore_cur_t){ .db = db, .from = from, .to = to, .cause = cause };
	if (cs_prepare(r, rid) < 0 || cs_chunk_next(r) < 0 || cs_polls_next(r) < 0) {
		chunkstore_close(r);
		return NULL;
	}
	return r;
}

int chunkstore_next(chunkstore_cur_t *r, const struct pollchunk_row **row, char **cause)
{
	r->cause = cause;
	if ((r->last == 1 && cs_chunk_next(r) < 0) || (r->last == 2 && cs_polls_next(r) < 0)) {
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
	sqlite3_finalize(r->chunks);
	sqlite3_finalize(r->polls);
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

static int cs_collect(void *arg, const struct pollchunk_row *row)
{
	struct cs_span *s = arg;
	const char *why = NULL;
	if (pollchunk_add(s->pc, row, &why) < 0)
		return 1;
	if (pollchunk_len(s->pc) == 1)
		s->first = row->time_ms;
	s->last = row->time_ms;
	return 0;
}

/* The span's chunks and polls rows deleted, s's chunk inserted. */
static int cs_replace(store_t *st, int64_t rid, int64_t span, const struct cs_span *s)
{
	static const char *const sql[] = {
		"DELETE FROM chunks WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3",
		"DELETE FROM polls WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3",
		"INSERT INTO chunks (router_id, time_ms, end_ms, nrows, data) VALUES (?1, ?4, ?5, ?6, ?7)",
	};
	buf_t out;
	buf_init(&out);
	pollchunk_encode(s->pc, &out);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof(sql) / sizeof(*sql); i++) {
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

int chunkstore_span(store_t *st, int64_t rid, int64_t span_ms)
{
	char *cause = NULL;
	struct cs_span s = { .pc = pollchunk_new() };
	int rc = chunkstore_rows(st->db, rid, span_ms, span_ms + CHUNKSTORE_SPAN_MS, cs_collect, &s, &cause);
	if (rc < 0)
		snprintf(st->errmsg, sizeof(st->errmsg), "%s", cause);
	else if (rc == 0 && pollchunk_len(s.pc) > 0)
		rc = cs_replace(st, rid, span_ms, &s);
	free(cause);
	pollchunk_free(s.pc);
	return rc;
}
