/* SPDX-License-Identifier: Apache-2.0 */
/* rollchunk: the codec of store/rollchunk.h over store/chunk.c: a kind byte, then the chunk of
 * the rows' buckets (its polls) and columns (its series, id core * 8 + column, present where
 * not NULL). A row is there where its n is; every other column of it is read in the same pass.
 * It must never read past its input nor yield a row the encoder could not have been given. */
#include "config.h"
#include "store/rollchunk.h"
#include "store/chunk.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define RC_SLOTS 8 /* series ids per core: core * RC_SLOTS + column */

struct rollchunk {
	enum rollchunk_kind kind;
	chunk_t *c;
	size_t n;
	int64_t bucket, core; /* the last row's */
};

struct rollchunk_read {
	enum rollchunk_kind kind;
	chunk_read_t *c;
	int64_t *cores; /* the cores the chunk has, increasing */
	size_t ncores;
	int *map;       /* core index * RC_SLOTS + column -> series, or -1 */
	size_t *cur;    /* per series: its values read (chunk_next) */
	size_t poll, k; /* the next core k of bucket poll to read */
	bool any;       /* the bucket being read had a row */
};

bool rollchunk_is_cpu(enum rollchunk_kind kind)
{
	return kind == ROLLCHUNK_CPU || kind == ROLLCHUNK_CPU_1H;
}

int rollchunk_ncols(enum rollchunk_kind kind)
{
	return rollchunk_is_cpu(kind) ? 4 : kind >= ROLLCHUNK_NKIND_5M ? 8 : 7;
}

/* The columns that are NOT NULL in kind's table: the CPU's all, the rates' n and the ends (and
 * the hourly ones' count of rated rows, m). */
static unsigned rollchunk_notnull(enum rollchunk_kind kind)
{
	return rollchunk_is_cpu(kind) ? 0xfu : kind >= ROLLCHUNK_NKIND_5M ? 0xc3u : 0x61u;
}

rollchunk_t *rollchunk_new(enum rollchunk_kind kind)
{
	rollchunk_t *rc = xcalloc(1, sizeof(*rc));
	rc->kind = kind;
	rc->c = chunk_new();
	return rc;
}

void rollchunk_free(rollchunk_t *rc)
{
	if (rc == NULL)
		return;
	chunk_free(rc->c);
	free(rc);
}

size_t rollchunk_len(const rollchunk_t *rc)
{
	return rc->n;
}

/* Why row cannot follow what rc holds, or NULL. */
static const char *rollchunk_refuse(const rollchunk_t *rc, const struct rollchunk_row *row)
{
	unsigned all = (1u << rollchunk_ncols(rc->kind)) - 1, nn = rollchunk_notnull(rc->kind);
	if (row->have & ~all)
		return "a column the table does not have";
	if ((row->have & nn) != nn)
		return "a NULL where the table has NOT NULL";
	if (row->core < 0 || row->core > (rollchunk_is_cpu(rc->kind) ? ROLLCHUNK_MAX_CORE : 0))
		return "a core out of range";
	if (rc->n > 0 &&
		(row->bucket_ms < rc->bucket || (row->bucket_ms == rc->bucket && row->core <= rc->core)))
		return "a row out of order";
	return NULL;
}

int rollchunk_add(rollchunk_t *rc, const struct rollchunk_row *row, const char **why)
{
	if ((*why = rollchunk_refuse(rc, row)) != NULL)
		return -1;
	*why = "a full chunk";
	if ((rc->n == 0 || row->bucket_ms != rc->bucket) && chunk_poll(rc->c, row->bucket_ms) < 0)
		return -1;
	for (int col = 0; col < rollchunk_ncols(rc->kind); col++)
		if ((row->have >> col) & 1 &&
			chunk_put(rc->c, (uint64_t)row->core * RC_SLOTS + (uint64_t)col,
				(uint64_t)row->v[col]) < 0)
			return -1;
	rc->bucket = row->bucket_ms;
	rc->core = row->core;
	rc->n++;
	return 0;
}

void rollchunk_encode(const rollchunk_t *rc, buf_t *out)
{
	buf_putc(out, (char)rc->kind);
	chunk_encode(rc->c, out);
}

/* ---- reading ---- */

static int rollchunk_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The chunk's series checked and indexed by core and column: false with *why. */
static bool rollchunk_index(rollchunk_read_t *rd, const char **why)
{
	size_t ns = chunk_nseries(rd->c);
	int64_t maxcore = rollchunk_is_cpu(rd->kind) ? ROLLCHUNK_MAX_CORE : 0;
	rd->cores = xcalloc(ns + 1, sizeof(*rd->cores));
	for (size_t s = 0; s < ns; s++) {
		uint64_t id = chunk_series_id(rd->c, s);
		*why = "a series of no column";
		if (id % RC_SLOTS >= (uint64_t)rollchunk_ncols(rd->kind) || id / RC_SLOTS > (uint64_t)maxcore)
			return false;
		rd->cores[s] = (int64_t)(id / RC_SLOTS);
	}
	qsort(rd->cores, ns, sizeof(*rd->cores), rollchunk_cmp);
	for (size_t s = 0; s < ns; s++)
		if (s == 0 || rd->cores[s] != rd->cores[rd->ncores - 1])
			rd->cores[rd->ncores++] = rd->cores[s];
	rd->map = xcalloc(rd->ncores * RC_SLOTS + 1, sizeof(*rd->map));
	for (size_t i = 0; i < rd->ncores * RC_SLOTS; i++)
		rd->map[i] = -1;
	for (size_t s = 0; s < ns; s++) {
		uint64_t id = chunk_series_id(rd->c, s);
		int64_t *k = bsearch(&(int64_t){ (int64_t)(id / RC_SLOTS) }, rd->cores, rd->ncores,
			sizeof(*rd->cores), rollchunk_cmp);
		int *slot = &rd->map[(size_t)(k - rd->cores) * RC_SLOTS + id % RC_SLOTS];
		*why = "a series twice";
		if (*slot >= 0)
			return false;
		*slot = (int)s;
	}
	rd->cur = xcalloc(ns + 1, sizeof(*rd->cur));
	return true;
}

rollchunk_read_t *rollchunk_decode(enum rollchunk_kind kind, const void *p, size_t len, const char **why)
{
	rollchunk_read_t *rd = xcalloc(1, sizeof(*rd));
	rd->kind = kind;
	*why = "not a roll-up chunk of this kind";
	if (kind < 0 || kind >= ROLLCHUNK_NKIND || len < 1 || *(const uint8_t *)p != kind)
		goto fail;
	if ((rd->c = chunk_decode((const uint8_t *)p + 1, len - 1, why)) == NULL)
		goto fail;
	*why = "buckets out of order";
	for (size_t i = 1; i < chunk_polls(rd->c); i++)
		if (chunk_time(rd->c, i) <= chunk_time(rd->c, i - 1))
			goto fail;
	if (!rollchunk_index(rd, why))
		goto fail;
	return rd;
fail:
	rollchunk_read_free(rd);
	return NULL;
}

void rollchunk_read_free(rollchunk_read_t *rd)
{
	if (rd == NULL)
		return;
	chunk_read_free(rd->c);
	free(rd->cores);
	free(rd->map);
	free(rd->cur);
	free(rd);
}

/* Core k's columns at the current bucket into row: 1 a row, 0 none, -1 a row part there. */
static int rollchunk_core(rollchunk_read_t *rd, struct rollchunk_row *row)
{
	*row = (struct rollchunk_row){ .bucket_ms = chunk_time(rd->c, rd->poll), .core = rd->cores[rd->k] };
	for (int col = 0; col < rollchunk_ncols(rd->kind); col++) {
		int s = rd->map[rd->k * RC_SLOTS + (size_t)col];
		uint64_t v;
		if (s >= 0 && chunk_next(rd->c, (size_t)s, rd->poll, &rd->cur[s], &v)) {
			row->have |= 1u << col;
			row->v[col] = (int64_t)v;
		}
	}
	unsigned nn = rollchunk_notnull(rd->kind);
	if (row->have == 0)
		return 0;
	return (row->have & nn) == nn ? 1 : -1;
}

int rollchunk_next(rollchunk_read_t *rd, struct rollchunk_row *row, const char **why)
{
	while (rd->poll < chunk_polls(rd->c)) {
		while (rd->k < rd->ncores) {
			int rc = rollchunk_core(rd, row);
			rd->k++;
			*why = "a row without a column the table has NOT NULL";
			if (rc < 0)
				return -1;
			if (rc == 1)
				return rd->any = true, 1;
		}
		*why = "a bucket without rows";
		if (!rd->any)
			return -1;
		rd->poll++;
		rd->k = 0;
		rd->any = false;
	}
	return 0;
}
