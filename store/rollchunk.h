/* SPDX-License-Identifier: Apache-2.0 */
/* rollchunk: one series' roll-up rows of a span (a router's cpu_rollup rows, every core; an
 * interface's iface_rollup rows; a peer's peer_rollup rows) as one chunk and back, the row
 * format of schema 016's rollup_chunks (issue 38): a kind byte, then a store/chunk.h chunk whose
 * polls are the buckets and whose series are the columns (core * 8 + column for the CPU's), a
 * NULL column a missing value. Lossless for any 64-bit integer. Pure byte work: no SQLite, no
 * clock; the decoder never reads past its input and refuses any chunk it would not have written. */
#ifndef WGWATCH_ROLLCHUNK_H
#define WGWATCH_ROLLCHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* The 5-minute tier's tables, then the hourly tier's (schema 017: cpu_rollup_1h, iface_rollup_1h,
 * peer_rollup_1h, whose rows hold sums where the 5-minute ones hold averages). */
enum rollchunk_kind {
	ROLLCHUNK_CPU,
	ROLLCHUNK_IFACE,
	ROLLCHUNK_PEER,
	ROLLCHUNK_CPU_1H,
	ROLLCHUNK_IFACE_1H,
	ROLLCHUNK_PEER_1H,
	ROLLCHUNK_NKIND
};
#define ROLLCHUNK_NKIND_5M 3 /* the kinds below it are the 5-minute tier's */

#define ROLLCHUNK_MAXCOL   8    /* value columns of a row at most (the hourly rate tables') */
#define ROLLCHUNK_MAX_CORE 8191 /* the highest core a CPU chunk holds */

struct rollchunk_row { /* one roll-up row, its series id aside */
	int64_t bucket_ms;
	int64_t core;                /* cpu_rollup's; 0 in the others */
	unsigned have;               /* bit c: value column c is not NULL */
	int64_t v[ROLLCHUNK_MAXCOL]; /* n, then the table's columns in order */
};

/* The value columns of kind's table (4 for the CPU's, 7 for the 5-minute rate tables, 8 for the
 * hourly ones). */
int rollchunk_ncols(enum rollchunk_kind kind);
/* Whether kind's rows are a router's CPU rows, a core each. */
bool rollchunk_is_cpu(enum rollchunk_kind kind);

typedef struct rollchunk rollchunk_t;           /* rows being chunked */
typedef struct rollchunk_read rollchunk_read_t; /* a chunk being read back */

rollchunk_t *rollchunk_new(enum rollchunk_kind kind);
void rollchunk_free(rollchunk_t *rc);
/* The next row, in (bucket_ms, core) order. -1 with *why (static text) when the chunk cannot
 * hold it (out of order, a NULL where the table has NOT NULL, a core past ROLLCHUNK_MAX_CORE, a
 * full chunk): the chunk is then unusable, and the rows stay as they are. */
int rollchunk_add(rollchunk_t *rc, const struct rollchunk_row *row, const char **why);
size_t rollchunk_len(const rollchunk_t *rc); /* rows added */
/* Its bytes appended to out (one of no rows is refused by rollchunk_decode: do not store it). */
void rollchunk_encode(const rollchunk_t *rc, buf_t *out);

/* The chunk of len bytes at p, of kind, ready to be read; NULL with *why when malformed. */
rollchunk_read_t *rollchunk_decode(enum rollchunk_kind kind, const void *p, size_t len, const char **why);
void rollchunk_read_free(rollchunk_read_t *rd);
/* The next row, in (bucket_ms, core) order: 1, 0 after the last, -1 with *why when the chunk
 * turns out malformed. */
int rollchunk_next(rollchunk_read_t *rd, struct rollchunk_row *row, const char **why);

#endif
