/* SPDX-License-Identifier: Apache-2.0 */
/* rollhour: the hourly tier's rows (schema 017) of whole hours, each the sums of that hour's
 * 5-minute roll-up rows, written in the caller's transaction. Writer thread only (maint.c). It
 * must never write an hour from part of its 5-minute rows: the caller passes closed hours only,
 * none before the 5-minute purge's mark. The sums are exact integers (saturated past 64 bits,
 * which no stored rate reaches), so a reader that weighs the 5-minute rows (load_avg by n, a rate
 * by its row) gets the same answer from the hourly row. */
#include "config.h"
#include "store/store_int.h"
#include "store/rollstore.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define ROLLHOUR_MS 3600000LL

/* The 5-minute rows of [?1, ?2) of every series after id ?3 in (id, bucket) order: from the store_ tables
 * (chunks and rows, merged) or from the plain tables (an open day: no chunk holds its rows). */
static const char rollhour_cpu_sql[] =
	"SELECT p.id, r.bucket_ms, r.core, r.n, r.load_min, r.load_avg, r.load_max"
	" FROM routers p JOIN %s r ON r.router_id = p.id WHERE p.id > ?3 AND r.bucket_ms >= ?1"
	" AND r.bucket_ms < ?2 ORDER BY p.id, r.bucket_ms, r.core";
static const char rollhour_rate_sql[] =
	"SELECT p.id, r.bucket_ms, r.n, r.rx_rate_avg, r.rx_rate_max, r.tx_rate_avg, r.tx_rate_max,"
	" r.rx_bytes_end, r.tx_bytes_end FROM %s p JOIN %s r ON r.%s = p.id WHERE p.id > ?3"
	" AND r.bucket_ms >= ?1 AND r.bucket_ms < ?2 ORDER BY p.id, r.bucket_ms";

struct rollhour_core { /* one core's hour */
	int64_t n, min, sum, max;
};

struct rollhour_rate { /* one interface's or peer's hour; the columns of iface_rollup_1h */
	int64_t n, m, rx_sum, tx_sum, rx_max, tx_max, rx_end, tx_end;
	bool max; /* a row had rate maxima */
};

struct rollhour {
	store_t *st;
	sqlite3_stmt *ins;
	int64_t id, hour; /* the group being summed; hour -1: none */
	int64_t after;    /* the series of the kind after this id only; the last one done */
	int left;         /* series still to do in this step */
	struct rollhour_core *cores;
	size_t ncores;
	struct rollhour_rate rate;
};

static int64_t rollhour_floor(int64_t ms)
{
	int64_t r = ms % ROLLHOUR_MS;
	return ms - (r < 0 ? r + ROLLHOUR_MS : r);
}

static int64_t rollhour_add(int64_t a, int64_t b)
{
	int64_t s;
	if (!__builtin_add_overflow(a, b, &s))
		return s;
	return b > 0 ? INT64_MAX : INT64_MIN;
}

static int64_t rollhour_mul(int64_t a, int64_t b)
{
	int64_t s;
	if (!__builtin_mul_overflow(a, b, &s))
		return s;
	return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

/* The CPU group summed so far written, one row a core. */
static int rollhour_cpu_flush(struct rollhour *h)
{
	for (size_t c = 0; h->hour >= 0 && c < h->ncores; c++) {
		const struct rollhour_core *x = &h->cores[c];
		if (x->n == 0)
			continue;
		int64_t v[] = { h->id, h->hour, (int64_t)c, x->n, x->min, x->sum, x->max };
		for (int i = 0; i < 7; i++)
			sqlite3_bind_int64(h->ins, i + 1, v[i]);
		if (store_step(h->st, h->ins) < 0)
			return -1;
	}
	if (h->ncores > 0)
		memset(h->cores, 0, h->ncores * sizeof(*h->cores));
	return 0;
}

static void rollhour_cpu_row(struct rollhour *h, sqlite3_stmt *q)
{
	int64_t core = sqlite3_column_int64(q, 2);
	if (core < 0 || core > ROLLCHUNK_MAX_CORE)
		return; /* never stored: rollup.c's cores come from a packed id */
	if ((size_t)core >= h->ncores) {
		h->cores = xreallocarray(h->cores, (size_t)core + 1, sizeof(*h->cores));
		memset(h->cores + h->ncores, 0, ((size_t)core + 1 - h->ncores) * sizeof(*h->cores));
		h->ncores = (size_t)core + 1;
	}
	struct rollhour_core *x = &h->cores[core];
	int64_t n = sqlite3_column_int64(q, 3), min = sqlite3_column_int64(q, 4);
	int64_t avg = sqlite3_column_int64(q, 5), max = sqlite3_column_int64(q, 6);
	x->min = x->n == 0 || min < x->min ? min : x->min;
	x->max = x->n == 0 || max > x->max ? max : x->max;
	x->sum = rollhour_add(x->sum, rollhour_mul(avg, n));
	x->n = rollhour_add(x->n, n);
}

/* The rate group summed so far written. */
static int rollhour_rate_flush(struct rollhour *h)
{
	const struct rollhour_rate *x = &h->rate;
	if (h->hour < 0 || x->n == 0)
		return 0;
	sqlite3_stmt *q = h->ins;
	int64_t v[] = { h->id, h->hour, x->n, x->m };
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(q, i + 1, v[i]);
	db_bind_opt(q, 5, x->rx_sum, x->m > 0);
	db_bind_opt(q, 6, x->rx_max, x->max);
	db_bind_opt(q, 7, x->tx_sum, x->m > 0);
	db_bind_opt(q, 8, x->tx_max, x->max);
	sqlite3_bind_int64(q, 9, x->rx_end);
	sqlite3_bind_int64(q, 10, x->tx_end);
	h->rate = (struct rollhour_rate){ 0 };
	return store_step(h->st, q);
}

static void rollhour_rate_row(struct rollhour *h, sqlite3_stmt *q)
{
	struct rollhour_rate *x = &h->rate;
	x->n = rollhour_add(x->n, sqlite3_column_int64(q, 2));
	if (sqlite3_column_type(q, 3) != SQLITE_NULL && sqlite3_column_type(q, 5) != SQLITE_NULL) {
		x->m++;
		x->rx_sum = rollhour_add(x->rx_sum, sqlite3_column_int64(q, 3));
		x->tx_sum = rollhour_add(x->tx_sum, sqlite3_column_int64(q, 5));
	}
	if (sqlite3_column_type(q, 4) != SQLITE_NULL && sqlite3_column_type(q, 6) != SQLITE_NULL) {
		int64_t rx = sqlite3_column_int64(q, 4), tx = sqlite3_column_int64(q, 6);
		x->rx_max = !x->max || rx > x->rx_max ? rx : x->rx_max;
		x->tx_max = !x->max || tx > x->tx_max ? tx : x->tx_max;
		x->max = true;
	}
	x->rx_end = sqlite3_column_int64(q, 7); /* rows come in bucket order: the newest last */
	x->tx_end = sqlite3_column_int64(q, 8);
}

/* The series of kind (a 5-minute kind) after h->after over [from, to) summed by hour into its
 * hourly table, at most h->left of them (counted down; h->after the last one's). */
static int rollhour_kind(struct rollhour *h, enum rollchunk_kind kind, int64_t from, int64_t to, bool merged)
{
	static const char *const parent[] = { "routers", "interfaces", "peers" };
	static const char *const col[] = { "router_id", "iface_id", "peer_id" };
	static const char *const src[2][3] = { { "cpu_rollup", "iface_rollup", "peer_rollup" },
		{ "store_cpu_rollup", "store_iface_rollup", "store_peer_rollup" } };
	static const char *const ins[] = {
		"INSERT OR REPLACE INTO cpu_rollup_1h VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
		"INSERT OR REPLACE INTO iface_rollup_1h VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
		"INSERT OR REPLACE INTO peer_rollup_1h VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
	};
	bool cpu = kind == ROLLCHUNK_CPU;
	char *sql = cpu ? xasprintf(rollhour_cpu_sql, src[merged][kind])
			: xasprintf(rollhour_rate_sql, parent[kind], src[merged][kind], col[kind]);
	sqlite3_stmt *q = store_stmt(h->st, sql);
	free(sql);
	if (q == NULL || (h->ins = store_stmt(h->st, ins[kind])) == NULL) {
		sqlite3_finalize(q);
		return -1;
	}
	sqlite3_bind_int64(q, 1, from);
	sqlite3_bind_int64(q, 2, to);
	sqlite3_bind_int64(q, 3, h->after);
	int (*flush)(struct rollhour *) = cpu ? rollhour_cpu_flush : rollhour_rate_flush;
	int rc = SQLITE_DONE, ret = 0;
	h->hour = -1;
	while (ret == 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0), hour = rollhour_floor(sqlite3_column_int64(q, 1));
		if (h->hour >= 0 && id != h->id && h->left == 1) {
			rc = SQLITE_DONE; /* the step's last series is read: this row is the next step's */
			break;
		}
		if (h->hour >= 0 && id != h->id)
			h->left--;
		if ((id != h->id || hour != h->hour) && (ret = flush(h)) < 0)
			break;
		h->id = id, h->hour = hour;
		if (cpu)
			rollhour_cpu_row(h, q);
		else
			rollhour_rate_row(h, q);
	}
	if (ret == 0 && rc != SQLITE_DONE) {
		store_note_error(h->st);
		ret = -1;
	}
	ret = ret == 0 ? flush(h) : ret;
	if (ret == 0 && h->hour >= 0) { /* the last series read is done */
		h->after = h->id;
		h->left--;
	}
	sqlite3_finalize(q);
	sqlite3_finalize(h->ins);
	return ret;
}

int rollhour_span(store_t *st, int64_t from, int64_t to, bool merged, struct rollstore_pos *pos, int max)
{
	struct rollstore_pos all = { .day = from, .kind = 0, .after = INT64_MIN };
	if (pos == NULL)
		pos = &all, max = INT_MAX;
	else if (pos->day != from)
		*pos = all;
	struct rollhour h = { .st = st, .hour = -1, .after = pos->after, .left = max };
	int ret = 0;
	while (ret == 0 && h.left > 0 && pos->kind < ROLLCHUNK_NKIND_5M) {
		ret = rollhour_kind(&h, (enum rollchunk_kind)pos->kind, from, to, merged);
		pos->after = h.after;
		if (ret == 0 && h.left > 0) { /* the kind is done */
			pos->kind++;
			pos->after = h.after = INT64_MIN;
		}
	}
	free(h.cores);
	return ret < 0 ? -1 : pos->kind >= ROLLCHUNK_NKIND_5M ? 1 : 0;
}
