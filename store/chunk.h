/* SPDX-License-Identifier: Apache-2.0 */
/* chunk: one router's polls of a span (an hour) as one compact byte string, the unit the store
 * is to keep its closed hours in (issue 38, docs/benchmarks.md "Per-router chunks"): the
 * timestamps once for every value of the router, as deltas of deltas, and each series' values
 * in a column of zigzag deltas or deltas of deltas, whichever is smaller. Lossless for any
 * 64-bit value (counters wrap, signed values go through a cast). Pure byte work: no SQLite, no
 * clock. The decoder never reads past its input, allocates at most a few times its length, and
 * refuses any chunk it would not have written. */
#ifndef WGWATCH_CHUNK_H
#define WGWATCH_CHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

#define CHUNK_MAX_POLLS  4096  /* polls a chunk holds at most */
#define CHUNK_MAX_SERIES 65536 /* series a chunk holds at most */

typedef struct chunk chunk_t;           /* a chunk being built */
typedef struct chunk_read chunk_read_t; /* a chunk decoded */

chunk_t *chunk_new(void);
void chunk_free(chunk_t *c);
/* Begins the next poll, at t_ms. -1 (nothing changed) when the chunk is full or t_ms is before
 * the last poll's. */
int chunk_poll(chunk_t *c, int64_t t_ms);
/* Value v of series id in the current poll. -1 (nothing changed) before the first poll, when
 * the series already has a value in this poll, or when the chunk holds CHUNK_MAX_SERIES. */
int chunk_put(chunk_t *c, uint64_t id, uint64_t v);
/* How many polls it holds. */
size_t chunk_len(const chunk_t *c);
/* Its bytes appended to out (a chunk of no polls is refused by chunk_decode: do not store it). */
void chunk_encode(const chunk_t *c, buf_t *out);

/* The chunk of len bytes at p decoded; NULL with *why (static text) when it is malformed. */
chunk_read_t *chunk_decode(const void *p, size_t len, const char **why);
/* The same, with the values of the series keep(id, arg) refuses walked and checked but not kept:
 * they read as having none (a reader of few series skips the rest's work). */
chunk_read_t *chunk_decode_some(
	const void *p, size_t len, bool (*keep)(uint64_t id, void *arg), void *arg, const char **why);
void chunk_read_free(chunk_read_t *r);
size_t chunk_polls(const chunk_read_t *r);
int64_t chunk_time(const chunk_read_t *r, size_t poll);
size_t chunk_nseries(const chunk_read_t *r);
/* The id of the s-th series (in the order they first had a value). */
uint64_t chunk_series_id(const chunk_read_t *r, size_t s);
/* Series s's value at poll into *v; false where it has none. */
bool chunk_value(const chunk_read_t *r, size_t s, size_t poll, uint64_t *v);
/* The same in constant time for a reader that walks the polls in order: *cur counts the values
 * of series s read so far (0 before poll 0); each poll asked once, in increasing order. */
bool chunk_next(const chunk_read_t *r, size_t s, size_t poll, size_t *cur, uint64_t *v);
/* The values series s has before poll (none for a series left undecoded): the *cur of
 * chunk_next for a reader that starts at poll, not at 0. */
size_t chunk_count(const chunk_read_t *r, size_t s, size_t poll);

#endif
