/* SPDX-License-Identifier: Apache-2.0 */
/* rollstore: the rollup_chunks table (schema 016) beside the roll-up tables: a series' rows of a
 * closed day written as one chunk (store/rollchunk.h) in the caller's transaction that deletes
 * them, and one reader of a series' roll-up rows over a range from both, in (bucket_ms, core)
 * order, as the tables held them. Store-internal (store/ and its tests). The maintenance job
 * (maint.c) chunks each closed day; the SQL readers read both through store_cpu_rollup,
 * store_iface_rollup and store_peer_rollup (rollvt.h). */
#ifndef WGWATCH_ROLLSTORE_H
#define WGWATCH_ROLLSTORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "lib/db.h"
#include "store/rollchunk.h"
#include "store/store.h"

#define ROLLSTORE_SPAN_MS 86400000LL /* a chunk holds the rows of one UTC day */

/* Series id's rows of kind in buckets [from, to), from the chunks and the table alike (a table
 * row before a chunk's of the same bucket and core, which it replaced): NULL with *cause, or a
 * cursor to walk with rollstore_next. Chunks' rows before purged (the roll-up purge's mark: a
 * chunk across it keeps them until its day is past) are left out. skip_malformed: a chunk that
 * cannot be read is left out, not an error (the SQL readers; maint.c logs it). On db, any
 * connection, read-only; its statements taken from shelf (NULL: prepared) and given back at
 * rollstore_close (a reader that opens many cursors on one connection: rollvt.c). */
typedef struct rollstore_cur rollstore_cur_t;
rollstore_cur_t *rollstore_open(sqlite3 *db, db_shelf_t *shelf, enum rollchunk_kind kind, int64_t id,
	int64_t from, int64_t to, int64_t purged, bool skip_malformed, char **cause);
db_shelf_t *rollstore_shelf_new(void); /* one for rollstore_open; free with db_shelf_free */
/* The next row into *row (valid until the next call): 1, 0 after the last, -1 with *cause. */
int rollstore_next(rollstore_cur_t *c, const struct rollchunk_row **row, char **cause);
void rollstore_close(rollstore_cur_t *c); /* NULL is a no-op */

/* Every series of the kinds [kfirst, kend) with table rows in the days of [from, to) (from a
 * day's start) made one chunk a day with what that day's chunk held, in the writer's open
 * transaction: 0, or -1 with st->errmsg. A series whose rows cannot be chunked as they are
 * keeps them, logged. */
int rollstore_days(store_t *st, int64_t from, int64_t to, int kfirst, int kend);

struct rollstore_pos { /* how far the chunking of a day has got: the series after kind, id */
	int64_t day;   /* INT64_MIN: none begun */
	int kind;
	int64_t after;
};

/* The same for day, but at most max series from *pos on (a new day, or pos of another: from its
 * first), so that one transaction stays short however many series a fleet has: 1 when the day
 * is done, 0 when series are left (pos tells where), -1 with st->errmsg. The caller forgets pos
 * when its transaction rolls back. */
int rollstore_day_step(store_t *st, int64_t day, struct rollstore_pos *pos, int max);

#endif
