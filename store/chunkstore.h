/* SPDX-License-Identifier: Apache-2.0 */
/* chunkstore: the chunks table (schema 015) beside the polls table: a router's rows of a closed
 * hour written as one chunk (store/pollchunk.h) in the caller's transaction that deletes them,
 * and one reader of a router's polls rows over a range from both tables, oldest first, as they
 * were before chunking. Store-internal (store/ and its tests). The maintenance job (maint.c)
 * chunks each router's closed hours; the SQL readers read both through store_polls (pollsvt.h). */
#ifndef WGWATCH_CHUNKSTORE_H
#define WGWATCH_CHUNKSTORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "lib/db.h"
#include "store/pollchunk.h"
#include "store/store.h"

#define CHUNKSTORE_SPAN_MS 3600000LL /* a chunk holds rows of one such span, aligned to it */

/* Called with each row; 0 to go on, anything else stops the read and is returned. */
typedef int (*chunkstore_fn)(void *arg, const struct pollchunk_row *row);

/* Router rid's polls rows in [from, to) from chunks and polls alike, oldest first (a chunk's row
 * before a polls row of the same time), each to fn; on db, any connection, read-only. 0, fn's
 * nonzero answer, or -1 with *cause (caller frees) on an SQLite error or a malformed chunk. */
int chunkstore_rows(
	sqlite3 *db, int64_t rid, int64_t from, int64_t to, chunkstore_fn fn, void *arg, char **cause);

/* The same read as a cursor: NULL with *cause, or one to walk with chunkstore_next. */
typedef struct chunkstore_cur chunkstore_cur_t;
chunkstore_cur_t *chunkstore_open(sqlite3 *db, int64_t rid, int64_t from, int64_t to, char **cause);
/* The same, with the BLOBs bit b of blobs (1 << POLLCHUNK_CPU...) does not name read as NULL:
 * a reader of few columns leaves their pages unread in polls and their values undecoded in chunks;
 * with CHUNKSTORE_SKIP_MALFORMED too, a malformed chunk's rows are left out, not an error (the
 * SQL readers: one damaged hour must not fail a router's every read; maint.c logs it). */
#define CHUNKSTORE_ALL_BLOBS      ((1u << POLLCHUNK_NBLOB) - 1)
#define CHUNKSTORE_SKIP_MALFORMED (1u << 8)
chunkstore_cur_t *chunkstore_open_cols(
	sqlite3 *db, int64_t rid, int64_t from, int64_t to, unsigned blobs, char **cause);
/* The same, its statements taken from shelf and given back at chunkstore_close (a reader that
 * opens many cursors on one connection: store_polls); one from chunkstore_shelf_new. */
chunkstore_cur_t *chunkstore_open_shelf(
	sqlite3 *db, db_shelf_t *shelf, int64_t rid, int64_t from, int64_t to, unsigned blobs, char **cause);
db_shelf_t *chunkstore_shelf_new(void); /* free with db_shelf_free */
/* The next row into *row (valid until the next call): 1, 0 after the last, -1 with *cause. */
int chunkstore_next(chunkstore_cur_t *c, const struct pollchunk_row **row, char **cause);
void chunkstore_close(chunkstore_cur_t *c); /* NULL is a no-op */

/* Whether router rid has a row at time t, in a chunk or in polls: 1, 0, -1 with st->errmsg. */
int chunkstore_holds(store_t *st, int64_t rid, int64_t t);

/* Router rid's rows of the span at span_ms (a multiple of CHUNKSTORE_SPAN_MS), those of polls
 * and of a chunk already written there alike, made one chunk, and the rows they were deleted,
 * in the writer's open transaction (st's connection): both or, when it fails, neither. 0 (also
 * when there is nothing), 1 with st->errmsg when the rows cannot be chunked as they are (a row
 * the chunk refuses, a chunk there malformed: nothing changes), -1 with st->errmsg. A polls row
 * of a time a chunk holds is dropped, as the writer's insert would have. */
int chunkstore_span(store_t *st, int64_t rid, int64_t span_ms);
/* The same, keeping only the rows from `from` on (retention: those before are deleted). */
int chunkstore_trim(store_t *st, int64_t rid, int64_t span_ms, int64_t from);

#endif
