/* SPDX-License-Identifier: Apache-2.0 */
/* rollup: the 5-minute roll-ups of a span of raw polls (maint.c's first job) in one pass over
 * each router's polls rows, their BLOBs decoded in C. Writer thread only, inside the caller's
 * transaction; the span is whole buckets, and it must never write a bucket from part of it.
 * The rows are those the SQL over the sample views wrote before (tests/unit/store_test holds
 * the two to the same rows): SQLite still does each row's rounding, from the same sums. */
#include "config.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define ROLLUP_BUCKET_MS 300000

enum rollup_sq { RQ_ROUTERS, RQ_POLLS, RQ_CPU, RQ_IFACE, RQ_PEER, RQ_COUNT };

static const char *const rollup_sql[RQ_COUNT] = {
	[RQ_ROUTERS] = "SELECT id FROM routers ORDER BY id",
	[RQ_POLLS] = "SELECT time_ms, cpu, ifaces, peers FROM store_polls WHERE router_id = ?1"
		     " AND time_ms >= ?2 AND time_ms < ?3 ORDER BY time_ms",
	[RQ_CPU] =
		"INSERT OR REPLACE INTO cpu_rollup VALUES (?1, ?2, ?3, ?4, ?5, CAST(round(?6) AS INTEGER), ?7)",
	[RQ_IFACE] = "INSERT OR REPLACE INTO iface_rollup VALUES (?1, ?2, ?3,"
		     " CAST(round(?4 * 1000.0 / ?5) AS INTEGER), CAST(round(?6) AS INTEGER),"
		     " CAST(round(?7 * 1000.0 / ?5) AS INTEGER), CAST(round(?8) AS INTEGER), ?9, ?10)",
	[RQ_PEER] = "INSERT OR REPLACE INTO peer_rollup VALUES (?1, ?2, ?3,"
		    " CAST(round(?4 * 1000.0 / ?5) AS INTEGER), CAST(round(?6) AS INTEGER),"
		    " CAST(round(?7 * 1000.0 / ?5) AS INTEGER), CAST(round(?8) AS INTEGER), ?9, ?10)",
};

struct rollup_core { /* count(*), min, sum (for avg) and max of load */
	int64_t n, min, sum, max;
};

struct rollup_rate { /* one interface or peer in the bucket */
	int64_t id, n;
	bool delta;                     /* a sample had one: the sums are not NULL */
	int64_t sum_rx, sum_tx, sum_dt; /* of the samples with a delta */
	bool wide;                      /* a sum went past 64 bits: these are written instead */
	double wide_rx, wide_tx, wide_dt;
	bool peak;              /* a sample had dt_ms != 0: the maxima are not NULL */
	double max_rx, max_tx;  /* bytes/s of one sample, as SQL computes it */
	int64_t end_rx, end_tx; /* the newest sample's raw counters */
};

struct rollup_set { /* the series of one kind in the bucket, by id */
	struct rollup_rate *v;
	size_t n, cap, hint; /* hint: where the next entry likely is (same order every poll) */
};

struct rollup {
	store_t *st;
	sqlite3_stmt *q[RQ_COUNT];
	int64_t router, bucket; /* the bucket being summed; -1: none */
	struct rollup_core *cores;
	size_t ncores, capcores;
	struct rollup_set ifaces, peers;
};

static struct rollup_rate *rollup_find(struct rollup_set *s, int64_t id)
{
	if (s->hint < s->n && s->v[s->hint].id == id)
		return &s->v[s->hint++];
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->n || s->v[lo].id != id) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 32;
			s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
		}
		memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof(*s->v));
		s->v[lo] = (struct rollup_rate){ .id = id };
		s->n++;
	}
	s->hint = lo + 1;
	return &s->v[lo];
}

static void rollup_add(struct rollup_set *s, const struct store_val *v)
{
	struct rollup_rate *x = rollup_find(s, v->id);
	x->n++;
	x->end_rx = (int64_t)v->c[0];
	x->end_tx = (int64_t)v->c[1];
	if (!(v->flags & STORE_F_DELTA))
		return;
	/* A counter that went back to a value past 2^63 makes a delta clamped to INT64_MAX, and a
	 * bucket's sum of such overflows. SQL's sum() failed the whole roll-up then, every
	 * retry: the roll-ups stopped for good, and with them the purge of raw samples. */
	x->wide |= __builtin_add_overflow(x->sum_rx, v->rx_delta, &x->sum_rx) |
		__builtin_add_overflow(x->sum_tx, v->tx_delta, &x->sum_tx) |
		__builtin_add_overflow(x->sum_dt, v->dt_ms, &x->sum_dt);
	x->wide_rx += (double)v->rx_delta;
	x->wide_tx += (double)v->tx_delta;
	x->wide_dt += (double)v->dt_ms;
	x->delta = true;
	if (v->dt_ms == 0)
		return; /* SQL: x / 0 is NULL, which max() skips */
	double rx = (double)v->rx_delta * 1000.0 / (double)v->dt_ms;
	double tx = (double)v->tx_delta * 1000.0 / (double)v->dt_ms;
	x->max_rx = x->peak && x->max_rx >= rx ? x->max_rx : rx;
	x->max_tx = x->peak && x->max_tx >= tx ? x->max_tx : tx;
	x->peak = true;
}

/* The entries of a BLOB of kind into r (a BLOB of another kind, or none: nothing). */
static void rollup_blob(struct rollup *r, sqlite3_stmt *q, int col, enum store_kind kind)
{
	const uint8_t *p = sqlite3_column_blob(q, col);
	int len = sqlite3_column_bytes(q, col);
	if (p == NULL || len < 2 || p[0] != kind)
		return;
	const uint8_t *end = p + len;
	p++;
	int64_t prev = 0;
	struct store_val v;
	struct rollup_set *s = kind == STORE_IFACE ? &r->ifaces : &r->peers;
	s->hint = 0;
	while (p < end && pack_next(&p, end, kind, &prev, &v)) {
		if (kind != STORE_CPU) {
			rollup_add(s, &v);
			continue;
		}
		if ((size_t)v.id >= r->ncores) {
			r->cores = xreallocarray(r->cores, (size_t)v.id + 1, sizeof(*r->cores));
			memset(r->cores + r->ncores, 0, ((size_t)v.id + 1 - r->ncores) * sizeof(*r->cores));
			r->ncores = (size_t)v.id + 1;
		}
		struct rollup_core *c = &r->cores[v.id];
		c->min = c->n == 0 || v.load < c->min ? v.load : c->min;
		c->max = c->n == 0 || v.load > c->max ? v.load : c->max;
		c->sum += v.load;
		c->n++;
	}
}

static int rollup_step(struct rollup *r, sqlite3_stmt *q)
{
	return store_step(r->st, q);
}

static int rollup_flush_rates(struct rollup *r, struct rollup_set *s, sqlite3_stmt *q)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct rollup_rate *x = &s->v[i];
		sqlite3_bind_int64(q, 1, x->id);
		sqlite3_bind_int64(q, 2, r->bucket);
		sqlite3_bind_int64(q, 3, x->n);
		if (x->wide) {
			sqlite3_bind_double(q, 4, x->wide_rx);
			sqlite3_bind_double(q, 5, x->wide_dt);
			sqlite3_bind_double(q, 7, x->wide_tx);
		} else {
			db_bind_opt(q, 4, x->sum_rx, x->delta);
			db_bind_opt(q, 5, x->sum_dt, x->delta);
			db_bind_opt(q, 7, x->sum_tx, x->delta);
		}
		if (x->peak) {
			sqlite3_bind_double(q, 6, x->max_rx);
			sqlite3_bind_double(q, 8, x->max_tx);
		} else {
			sqlite3_bind_null(q, 6);
			sqlite3_bind_null(q, 8);
		}
		sqlite3_bind_int64(q, 9, x->end_rx);
		sqlite3_bind_int64(q, 10, x->end_tx);
		if (rollup_step(r, q) < 0)
			return -1;
	}
	s->n = 0;
	return 0;
}

/* Write the bucket summed so far (if any) and start empty. */
static int rollup_flush(struct rollup *r)
{
	if (r->bucket < 0)
		return 0;
	sqlite3_stmt *q = r->q[RQ_CPU];
	for (size_t c = 0; c < r->ncores; c++) {
		const struct rollup_core *x = &r->cores[c];
		if (x->n == 0)
			continue;
		sqlite3_bind_int64(q, 1, r->router);
		sqlite3_bind_int64(q, 2, r->bucket);
		sqlite3_bind_int64(q, 3, (int64_t)c);
		sqlite3_bind_int64(q, 4, x->n);
		sqlite3_bind_int64(q, 5, x->min);
		sqlite3_bind_double(q, 6, (double)x->sum / (double)x->n); /* SQL's avg() */
		sqlite3_bind_int64(q, 7, x->max);
		if (rollup_step(r, q) < 0)
			return -1;
	}
	if (r->ncores > 0)
		memset(r->cores, 0, r->ncores * sizeof(*r->cores));
	if (rollup_flush_rates(r, &r->ifaces, r->q[RQ_IFACE]) < 0 ||
		rollup_flush_rates(r, &r->peers, r->q[RQ_PEER]) < 0)
		return -1;
	r->bucket = -1;
	return 0;
}

/* One router's polls in [from, to), bucket by bucket. */
static int rollup_router(struct rollup *r, int64_t from, int64_t to)
{
	sqlite3_stmt *q = r->q[RQ_POLLS];
	sqlite3_bind_int64(q, 1, r->router);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(q, 0), b = t - t % ROLLUP_BUCKET_MS;
		if (b != r->bucket && rollup_flush(r) < 0) {
			sqlite3_reset(q);
			return -1;
		}
		r->bucket = b;
		rollup_blob(r, q, 1, STORE_CPU);
		rollup_blob(r, q, 2, STORE_IFACE);
		rollup_blob(r, q, 3, STORE_PEER);
	}
	if (rc != SQLITE_DONE)
		store_note_error(r->st);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? rollup_flush(r) : -1;
}

static void rollup_free(struct rollup *r)
{
	for (int i = 0; i < RQ_COUNT; i++)
		sqlite3_finalize(r->q[i]);
	free(r->cores);
	free(r->ifaces.v);
	free(r->peers.v);
}

int rollup_span(store_t *st, int64_t from, int64_t to)
{
	struct rollup r = { .st = st, .bucket = -1 };
	int rc = 0;
	for (int i = 0; i < RQ_COUNT && rc == 0; i++)
		if ((r.q[i] = store_stmt(st, rollup_sql[i])) == NULL)
			rc = -1;
	sqlite3_stmt *ids = r.q[RQ_ROUTERS];
	int step = SQLITE_DONE;
	while (rc == 0 && (step = sqlite3_step(ids)) == SQLITE_ROW) {
		r.router = sqlite3_column_int64(ids, 0);
		rc = rollup_router(&r, from, to);
	}
	if (rc == 0 && step != SQLITE_DONE) {
		store_note_error(st);
		rc = -1;
	}
	rollup_free(&r);
	return rc;
}
