/* SPDX-License-Identifier: Apache-2.0 */
/* pollchunk: one router's polls rows of an hour, their columns as SQLite holds them, as one
 * chunk (store/chunk.h) and back: the row format of issue 38's chunks table. Texts (source,
 * err, error) go once in a table ahead of the chunk; each BLOB entry's values (pack.c) go into
 * series of their own, keyed by kind, id and field; entry flags become the presence of values;
 * the derived deltas are kept only where they differ from the counters' own difference within
 * the chunk. Rows the store writes come back byte for byte (entries in id order). Pure byte
 * work: no SQLite, no clock; the decoder never reads past its input and refuses any chunk it
 * would not have written (of what it is asked to read: pollchunk_decode_some). The store keeps closed
 * hours so (store/chunkstore.h). */
#ifndef WGWATCH_POLLCHUNK_H
#define WGWATCH_POLLCHUNK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

enum { POLLCHUNK_CPU, POLLCHUNK_IFACES, POLLCHUNK_PEERS, POLLCHUNK_HEALTH, POLLCHUNK_NBLOB };

struct pollchunk_row { /* one polls row, router_id aside */
	int64_t time_ms, duration_ms;
	const char *source, *err, *error; /* NULL: SQL NULL */
	bool have_mhz;                    /* cpu_mhz is not NULL */
	int64_t cpu_mhz;
	const void *blob[POLLCHUNK_NBLOB]; /* cpu, ifaces, peers, health; NULL: SQL NULL */
	size_t len[POLLCHUNK_NBLOB];
};

typedef struct pollchunk pollchunk_t;           /* rows being chunked */
typedef struct pollchunk_read pollchunk_read_t; /* a chunk being read back */

pollchunk_t *pollchunk_new(void);
void pollchunk_free(pollchunk_t *pc);
/* The next row (times increasing). -1 with *why (static text) when the chunk cannot hold it as
 * it is (a malformed BLOB, an unknown flag, a full chunk, an earlier time): the chunk is then
 * unusable, and the rows stay as they are. */
int pollchunk_add(pollchunk_t *pc, const struct pollchunk_row *row, const char **why);
size_t pollchunk_len(const pollchunk_t *pc); /* rows added */
/* Its bytes appended to out (one of no rows is refused by pollchunk_decode: do not store it). */
void pollchunk_encode(const pollchunk_t *pc, buf_t *out);

/* The chunk of len bytes at p, ready to be read row by row; NULL with *why when malformed. */
pollchunk_read_t *pollchunk_decode(const void *p, size_t len, const char **why);
/* The same, with only the BLOBs bit b of blobs names (1 << POLLCHUNK_CPU, ...) made: the others
 * read as NULL, their values walked but not decoded (a reader of few columns). */
pollchunk_read_t *pollchunk_decode_some(const void *p, size_t len, unsigned blobs, const char **why);
void pollchunk_read_free(pollchunk_read_t *rd);
size_t pollchunk_rows(const pollchunk_read_t *rd);
/* Past the rows before time t, without making them (their values are decoded but not walked,
 * and not checked): the next row is the first at t or later. Only forward; a reader of a range
 * that starts inside the chunk. */
void pollchunk_seek(pollchunk_read_t *rd, int64_t t);
/* The next row, oldest first, into *row (its texts and BLOBs are rd's, valid until the next
 * call): 1, 0 after the last, -1 with *why when the chunk turns out malformed. */
int pollchunk_next(pollchunk_read_t *rd, struct pollchunk_row *row, const char **why);

#endif
