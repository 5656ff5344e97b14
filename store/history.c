/* SPDX-License-Identifier: Apache-2.0 */
/* history: what the router page shows, read from the store with a read-only connection opened
 * per call on the caller's thread (WAL lets it read beside the writer). Series are bucketed in
 * SQL (GROUP BY time bucket) so a 30-day page reads at most a few thousand rows per series.
 * It must never write, never log and never keep a connection across calls. */
#include "config.h"
#include "store/history.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/xmem.h"

#define HISTORY_ROLLUP_MS  300000LL  /* the store's roll-up bucket */
#define HISTORY_HOUR_MS    3600000LL /* the hourly tier's */
#define HISTORY_MAX_CORES  1024
#define HISTORY_MAX_EVENTS 2000
#define HISTORY_BUSY_MS    2000
#define HISTORY_DAY_MS     86400000LL
#define HISTORY_MMAP_BYTES "1073741824"

/* Running sums of one series while rows come in: value = num / w per bucket. */
struct history_acc {
	double *num, *num2, *w;
};

static const char history_sql_router[] =
	"SELECT id, first_seen_ms, last_poll_ms, last_ok_ms, uptime_ms, info_ms, version, channel,"
	" firmware, upgrade_firmware, board, architecture, cpu_model FROM routers WHERE name = ?1";

static const char history_sql_state[] = "SELECT value FROM store_state WHERE key = ?1";

/* ?1 router id, ?2 axis start, ?3 bucket width, ?4 where roll-ups end and raw begins, ?5 end,
 * ?6 where the hourly roll-ups end and the 5-minute ones begin (?2 when the axis is not hours).
 * Roll-up rows weigh 5 minutes each, raw rows their interval: both give bytes/s as num / w; an
 * hourly row is its 5-minute rows summed, so that it gives what they gave, to the bit.
 * One row per stored row, in key order, summed per bucket in C: a GROUP BY on the bucket
 * expression made SQLite sort every row first (5x the CPU of the scan on a 30-day page). */
static const char history_sql_ifaces[] =
	"SELECT i.id, i.name, (s.bucket_ms - ?2) / ?3, s.tx_rate_sum * 300000.0,"
	" s.rx_rate_sum * 300000.0, s.m * 300000.0"
	" FROM interfaces i JOIN store_iface_rollup_1h s ON s.iface_id = i.id"
	" WHERE i.router_id = ?1 AND i.type = 'wg' AND s.bucket_ms >= ?2 AND s.bucket_ms < ?6"
	" AND s.m > 0"
	" UNION ALL"
	" SELECT i.id, i.name, (s.bucket_ms - ?2) / ?3, s.tx_rate_avg * 300000.0,"
	" s.rx_rate_avg * 300000.0, 300000.0"
	" FROM interfaces i JOIN store_iface_rollup s ON s.iface_id = i.id"
	" WHERE i.router_id = ?1 AND i.type = 'wg' AND s.bucket_ms >= ?6 AND s.bucket_ms < ?4"
	" AND s.tx_rate_avg IS NOT NULL AND s.rx_rate_avg IS NOT NULL"
	" UNION ALL"
	" SELECT i.id, i.name, (s.time_ms - ?2) / ?3, s.tx_delta * 1000.0,"
	" s.rx_delta * 1000.0, s.dt_ms"
	" FROM interfaces i JOIN iface_samples s ON s.iface_id = i.id AND s.router_id = ?1"
	" WHERE i.router_id = ?1 AND i.type = 'wg' AND s.time_ms >= ?4 AND s.time_ms < ?5"
	" AND s.dt_ms > 0";

static const char history_sql_cpu[] =
	"SELECT core, (bucket_ms - ?2) / ?3, load_sum, n FROM store_cpu_rollup_1h"
	" WHERE router_id = ?1 AND bucket_ms >= ?2 AND bucket_ms < ?6"
	" UNION ALL"
	" SELECT core, (bucket_ms - ?2) / ?3, load_avg * n, n FROM store_cpu_rollup"
	" WHERE router_id = ?1 AND bucket_ms >= ?6 AND bucket_ms < ?4"
	" UNION ALL"
	" SELECT core, (time_ms - ?2) / ?3, load, 1 FROM cpu_samples"
	" WHERE router_id = ?1 AND time_ms >= ?4 AND time_ms < ?5";

static const char history_sql_events[] =
	"SELECT time_ms, kind, old_version, new_version, old_firmware, new_firmware, old_board,"
	" new_board, architecture, uptime_ms FROM version_history WHERE router_id = ?1"
	" ORDER BY time_ms DESC, id DESC LIMIT 2000";

/* Per router, its newest upgrade or downgrade: one index seek per router (router_id, time_ms
 * descending) that stops at the first version change. Sorted by name, in byte order (BINARY),
 * which is what history_change_find's strcmp expects. */
static const char history_sql_changes[] =
	"SELECT r.name, v.time_ms, v.kind, v.old_version, v.new_version FROM routers r"
	" JOIN version_history v ON v.id = (SELECT id FROM version_history"
	"  WHERE router_id = r.id AND kind IN ('upgrade', 'downgrade')"
	"  ORDER BY time_ms DESC, id DESC LIMIT 1)"
	" ORDER BY r.name COLLATE BINARY";

int64_t history_range_ms(const char *name)
{
	static const struct {
		const char *name;
		int64_t ms;
	} ranges[] = {
		{ "6h", 6 * 3600000LL },
		{ "24h", HISTORY_DAY_MS },
		{ "7d", 7 * HISTORY_DAY_MS },
		{ "30d", 30 * HISTORY_DAY_MS },
		{ "all", 0 },
	};
	for (size_t i = 0; name && i < sizeof(ranges) / sizeof(ranges[0]); i++)
		if (strcmp(name, ranges[i].name) == 0)
			return ranges[i].ms;
	return -1;
}

/* ---- small readers ---- */

static int history_fail(sqlite3 *db, const char *what, char **cause)
{
	*cause = xasprintf("history: %s: %s", what, sqlite3_errmsg(db));
	return -1;
}

/* Prepare sql and bind ?1..?5 (unused ones are ignored). */
int history_prepare(
	sqlite3 *db, const char *sql, const int64_t *args, int nargs, sqlite3_stmt **q, char **cause)
{
	if (sqlite3_prepare_v2(db, sql, -1, q, NULL) != SQLITE_OK)
		return history_fail(db, "prepare", cause);
	for (int i = 0; i < nargs && i < sqlite3_bind_parameter_count(*q); i++)
		sqlite3_bind_int64(*q, i + 1, args[i]);
	return 0;
}

/* Finish a stepping loop: -1 with *cause unless it ended in SQLITE_DONE. */
int history_done(sqlite3 *db, sqlite3_stmt *q, int rc, const char *what, char **cause)
{
	int ret = rc == SQLITE_DONE ? 0 : history_fail(db, what, cause);
	sqlite3_finalize(q);
	return ret;
}

/* ---- the router row and the time axis ---- */

static void history_router_row(sqlite3_stmt *q, history_t *h)
{
	h->first_seen_ms = db_col_int64(q, 1, 0);
	h->last_poll_ms = db_col_int64(q, 2, 0);
	h->last_ok_ms = db_col_int64(q, 3, 0);
	h->uptime_ms = db_col_int64(q, 4, -1);
	h->info_ms = db_col_int64(q, 5, 0);
	h->version = db_col_str(q, 6);
	h->channel = db_col_str(q, 7);
	h->firmware = db_col_str(q, 8);
	h->upgrade_firmware = db_col_str(q, 9);
	h->board = db_col_str(q, 10);
	h->architecture = db_col_str(q, 11);
	h->cpu_model = db_col_str(q, 12);
}

/* 0 with *id, 1 when unknown, -1 on error. */
static int history_router(sqlite3 *db, const char *name, history_t *h, int64_t *id, char **cause)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(db, history_sql_router, -1, &q, NULL) != SQLITE_OK)
		return history_fail(db, "prepare", cause);
	sqlite3_bind_text(q, 1, name, -1, SQLITE_TRANSIENT);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(q, 0);
		history_router_row(q, h);
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : history_fail(db, "routers", cause);
}

/* A maintenance job's mark (store_state), 0 when not known. */
static int64_t history_state(sqlite3 *db, const char *key)
{
	sqlite3_stmt *q;
	int64_t v = 0;
	if (sqlite3_prepare_v2(db, history_sql_state, -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(q, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static int64_t history_ceil(int64_t v, int64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

/* The mean spacing of the router's stored polls in [from, to) (polls_key: an index count), or
 * 0 when fewer than two: history drawn finer than it was stored is a barcode of gaps (a
 * backfill of 10-minute polls in 2-minute buckets). */
static int64_t history_spacing(sqlite3 *db, int64_t rid, int64_t from, int64_t to)
{
	sqlite3_stmt *q = NULL;
	int64_t v = 0;
	if (sqlite3_prepare_v2(db,
		    "SELECT count(*), min(time_ms), max(time_ms) FROM store_polls WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3",
		    -1, &q, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
	if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) >= 2)
		v = (sqlite3_column_int64(q, 2) - sqlite3_column_int64(q, 1)) /
			(sqlite3_column_int64(q, 0) - 1);
	sqlite3_finalize(q);
	return v;
}

/* Whether the hourly tier is read: for buckets of whole hours, and for a range that begins
 * where the 5-minute tier's purge has been (w then made whole hours). */
static bool history_hourly(int64_t *w, int64_t from, int64_t purged5)
{
	if (*w % HISTORY_HOUR_MS == 0)
		return true;
	if (purged5 <= 0 || from >= purged5)
		return false;
	*w = history_ceil(*w, HISTORY_HOUR_MS);
	return true;
}

/* Choose the buckets: at most max_points (a few more after alignment), whole seconds, no
 * narrower than two stored polls (stored_ms their spacing) nor req's floor, whole 5-minute
 * roll-up buckets when roll-ups are read, whole hours when the hourly tier is (purged5: the
 * 5-minute tier's purge mark, 0 none). Returns where the raw part begins. */
static int64_t history_axis(
	history_t *h, const struct history_req *req, int64_t rollup_done, int64_t stored_ms, int64_t purged5)
{
	int64_t to = req->to_ms, from = req->from_ms;
	int64_t keep = req->raw_retention_ms > 0 ? req->raw_retention_ms : 35 * HISTORY_DAY_MS;
	size_t maxp = req->max_points ? req->max_points : HISTORY_MAX_POINTS;
	if (from <= 0 || (h->first_seen_ms > 0 && from < h->first_seen_ms))
		from = h->first_seen_ms > 0 ? h->first_seen_ms : to - 3600000;
	if (to - from < 60000)
		from = to - 60000;
	int64_t w = history_ceil((to - from + (int64_t)maxp - 1) / (int64_t)maxp, 1000);
	if (w < req->min_bucket_ms)
		w = history_ceil(req->min_bucket_ms, 1000);
	if (w < 2 * stored_ms)
		w = history_ceil(2 * stored_ms, 1000);
	h->rolled = w >= HISTORY_ROLLUP_MS || from < to - keep;
	if (h->rolled)
		w = history_ceil(w, HISTORY_ROLLUP_MS);
	h->hourly = h->rolled && history_hourly(&w, from, purged5);
	from = from / w * w;
	h->from_ms = from, h->to_ms = to, h->bucket_ms = w;
	h->nbuckets = (size_t)((to - from + w - 1) / w);
	if (!h->rolled)
		return from;
	int64_t split = rollup_done < from ? from : rollup_done;
	return split > to ? to : split;
}

/* ---- series ---- */

static void history_acc_init(struct history_acc *a, size_t n)
{
	a->num = xcalloc(n, sizeof(double));
	a->num2 = xcalloc(n, sizeof(double));
	a->w = xcalloc(n, sizeof(double));
}

static void history_acc_free(struct history_acc *a)
{
	free(a->num), free(a->num2), free(a->w);
}

/* num / w (times scale) per bucket into out; NAN where no weight. */
static void history_acc_out(const double *num, const double *w, size_t n, double scale, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = w[i] > 0 ? num[i] / w[i] * scale : NAN;
}

/* The index of interface id in h->ifaces, appending it when new. */
static size_t history_iface_slot(
	history_t *h, struct history_acc **acc, int64_t **ids, int64_t id, sqlite3_stmt *q)
{
	for (size_t i = 0; i < h->nifaces; i++)
		if ((*ids)[i] == id)
			return i;
	size_t i = h->nifaces++;
	*ids = xreallocarray(*ids, h->nifaces, sizeof(**ids));
	*acc = xreallocarray(*acc, h->nifaces, sizeof(**acc));
	h->ifaces = xreallocarray(h->ifaces, h->nifaces, sizeof(*h->ifaces));
	(*ids)[i] = id;
	history_acc_init(&(*acc)[i], h->nbuckets);
	h->ifaces[i] = (struct history_iface){ .name = db_col_str(q, 1) };
	return i;
}

static void history_ifaces_finish(history_t *h, struct history_acc *acc)
{
	for (size_t i = 0; i < h->nifaces; i++) {
		struct history_iface *f = &h->ifaces[i];
		f->tx_bps = xcalloc(h->nbuckets, sizeof(double));
		f->rx_bps = xcalloc(h->nbuckets, sizeof(double));
		history_acc_out(acc[i].num, acc[i].w, h->nbuckets, 8.0, f->tx_bps);
		history_acc_out(acc[i].num2, acc[i].w, h->nbuckets, 8.0, f->rx_bps);
		history_acc_free(&acc[i]);
	}
}

static int history_ifaces(sqlite3 *db, history_t *h, const int64_t *args, char **cause)
{
	sqlite3_stmt *q;
	if (history_prepare(db, history_sql_ifaces, args, 6, &q, cause) < 0)
		return -1;
	struct history_acc *acc = NULL;
	int64_t *ids = NULL;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(q, 2);
		size_t i = history_iface_slot(h, &acc, &ids, sqlite3_column_int64(q, 0), q);
		if (b < 0 || (size_t)b >= h->nbuckets)
			continue;
		acc[i].num[b] += sqlite3_column_double(q, 3);
		acc[i].num2[b] += sqlite3_column_double(q, 4);
		acc[i].w[b] += sqlite3_column_double(q, 5);
	}
	history_ifaces_finish(h, acc);
	free(acc);
	free(ids);
	return history_done(db, q, rc, "interface series", cause);
}

/* Grow the per-core sums to n cores (rows of nbuckets, zeroed). */
static void history_cores_grow(history_t *h, struct history_acc *acc, size_t n)
{
	if (n <= h->ncores)
		return;
	size_t nb = h->nbuckets;
	acc->num = xreallocarray(acc->num, n * nb, sizeof(double));
	acc->w = xreallocarray(acc->w, n * nb, sizeof(double));
	memset(acc->num + h->ncores * nb, 0, (n - h->ncores) * nb * sizeof(double));
	memset(acc->w + h->ncores * nb, 0, (n - h->ncores) * nb * sizeof(double));
	h->ncores = n;
}

static int history_cpu(sqlite3 *db, history_t *h, const int64_t *args, char **cause)
{
	sqlite3_stmt *q;
	if (history_prepare(db, history_sql_cpu, args, 6, &q, cause) < 0)
		return -1;
	struct history_acc acc = { 0 };
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t core = sqlite3_column_int64(q, 0), b = sqlite3_column_int64(q, 1);
		if (core < 0 || core >= HISTORY_MAX_CORES || b < 0 || (size_t)b >= h->nbuckets)
			continue;
		history_cores_grow(h, &acc, (size_t)core + 1);
		size_t at = (size_t)core * h->nbuckets + (size_t)b;
		acc.num[at] += sqlite3_column_double(q, 2);
		acc.w[at] += sqlite3_column_double(q, 3);
	}
	if (h->ncores > 0) {
		h->load = xcalloc(h->ncores * h->nbuckets, sizeof(double));
		history_acc_out(acc.num, acc.w, h->ncores * h->nbuckets, 0.001, h->load);
	}
	free(acc.num), free(acc.w);
	return history_done(db, q, rc, "cpu series", cause);
}

/* ---- events and peers ---- */

static void history_event_row(sqlite3_stmt *q, struct history_event *e)
{
	*e = (struct history_event){
		.time_ms = sqlite3_column_int64(q, 0),
		.kind = db_col_str(q, 1),
		.old_version = db_col_str(q, 2),
		.new_version = db_col_str(q, 3),
		.old_firmware = db_col_str(q, 4),
		.new_firmware = db_col_str(q, 5),
		.old_board = db_col_str(q, 6),
		.new_board = db_col_str(q, 7),
		.architecture = db_col_str(q, 8),
		.uptime_ms = db_col_int64(q, 9, -1),
	};
}

/* The newest HISTORY_MAX_EVENTS rows, stored oldest first. */
static int history_events(sqlite3 *db, history_t *h, int64_t rid, char **cause)
{
	sqlite3_stmt *q;
	if (history_prepare(db, history_sql_events, &rid, 1, &q, cause) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW && h->nevents < HISTORY_MAX_EVENTS) {
		h->events = xreallocarray(h->events, h->nevents + 1, sizeof(*h->events));
		history_event_row(q, &h->events[h->nevents++]);
	}
	for (size_t i = 0; i < h->nevents / 2; i++) {
		struct history_event tmp = h->events[i];
		h->events[i] = h->events[h->nevents - 1 - i];
		h->events[h->nevents - 1 - i] = tmp;
	}
	return history_done(db, q, rc == SQLITE_ROW ? SQLITE_DONE : rc, "version history", cause);
}

/* ---- entry points ---- */

static int history_read(sqlite3 *db, const struct history_req *req, history_t *h, char **cause)
{
	int64_t rid;
	int rc = history_router(db, req->router, h, &rid, cause);
	if (rc != 0)
		return rc;
	int64_t from = req->from_ms > 0 ? req->from_ms : h->first_seen_ms;
	int64_t split = history_axis(h, req, history_state(db, "rollup_ms"),
		history_spacing(db, rid, from, req->to_ms), history_state(db, "rollup_purged_ms"));
	/* the hours rolled up are read from the hourly tier, those after from the 5-minute one */
	int64_t hours = history_state(db, "rollup_1h_ms");
	hours = !h->hourly || hours < h->from_ms ? h->from_ms : hours > split ? split : hours;
	int64_t args[6] = { rid, h->from_ms, h->bucket_ms, split, h->to_ms, hours };
	if (history_ifaces(db, h, args, cause) < 0 || history_cpu(db, h, args, cause) < 0 ||
		history_events(db, h, rid, cause) < 0 || history_peers(db, h, rid, cause) < 0 ||
		history_health(db, h, rid, cause) < 0)
		return -1;
	return 0;
}

/* A read-only connection of this call's own; NULL with *cause. */
static sqlite3 *history_open(const char *path, char **cause)
{
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		*cause = xasprintf(
			"history: cannot open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, HISTORY_BUSY_MS);
	/* Pages straight from the OS cache, not copied by pread into a cache that dies with the
	 * connection at the end of the request (a 30-day page reads ~100,000 rows). */
	sqlite3_exec(db, "PRAGMA mmap_size = " HISTORY_MMAP_BYTES, NULL, NULL, NULL);
	if (store_sql_attach(db, cause) < 0) { /* the packed samples' views */
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

int history_load(const struct history_req *req, history_t **out, char **cause)
{
	*out = NULL;
	sqlite3 *db = history_open(req->db_path, cause);
	if (db == NULL)
		return -1;
	history_t *h = xcalloc(1, sizeof(*h));
	int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK ? history_read(db, req, h, cause)
									  : history_fail(db, "begin", cause);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	if (rc != 0) {
		history_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

/* ---- the fleet page: every router's newest version change ---- */

static void history_change_row(sqlite3_stmt *q, struct history_change *c)
{
	*c = (struct history_change){
		.router = db_col_str(q, 0),
		.time_ms = sqlite3_column_int64(q, 1),
		.kind = db_col_str(q, 2),
		.old_version = db_col_str(q, 3),
		.new_version = db_col_str(q, 4),
	};
}

int history_last_changes(const char *db_path, struct history_change **out, size_t *n, char **cause)
{
	*out = NULL, *n = 0;
	sqlite3 *db = history_open(db_path, cause);
	sqlite3_stmt *q;
	if (db == NULL)
		return -1;
	if (history_prepare(db, history_sql_changes, NULL, 0, &q, cause) < 0) {
		sqlite3_close(db);
		return -1;
	}
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (sqlite3_column_type(q, 0) == SQLITE_NULL)
			continue;
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		history_change_row(q, &(*out)[(*n)++]);
	}
	rc = history_done(db, q, rc, "version changes", cause);
	sqlite3_close(db);
	if (rc < 0) {
		history_changes_free(*out, *n);
		*out = NULL, *n = 0;
	}
	return rc;
}

void history_changes_free(struct history_change *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].router), free(c[i].kind);
		free(c[i].old_version), free(c[i].new_version);
	}
	free(c);
}

const struct history_change *history_change_find(const struct history_change *c, size_t n, const char *router)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(c[mid].router, router);
		if (d == 0)
			return &c[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void history_event_free(struct history_event *e)
{
	free(e->kind), free(e->old_version), free(e->new_version), free(e->old_firmware);
	free(e->new_firmware), free(e->old_board), free(e->new_board), free(e->architecture);
}

void history_free(history_t *h)
{
	if (h == NULL)
		return;
	free(h->version), free(h->channel), free(h->firmware), free(h->upgrade_firmware);
	free(h->board), free(h->architecture), free(h->cpu_model);
	for (size_t i = 0; i < h->nifaces; i++)
		free(h->ifaces[i].name), free(h->ifaces[i].tx_bps), free(h->ifaces[i].rx_bps);
	free(h->ifaces);
	free(h->load);
	for (size_t i = 0; i < h->nevents; i++)
		history_event_free(&h->events[i]);
	free(h->events);
	for (size_t i = 0; i < h->npeers; i++) {
		free(h->peers[i].interface), free(h->peers[i].name);
		free(h->peers[i].endpoint), free(h->peers[i].allowed);
	}
	free(h->peers);
	for (size_t i = 0; i < h->nsensors; i++)
		free(h->sensors[i].name), free(h->sensors[i].unit), free(h->sensors[i].v);
	free(h->sensors);
	free(h);
}

double history_load_at(const history_t *h, size_t core, size_t b)
{
	if (core >= h->ncores || b >= h->nbuckets)
		return NAN;
	return h->load[core * h->nbuckets + b];
}

static bool history_is_version_event(const struct history_event *e)
{
	return e->new_version != NULL && e->kind != NULL && strcmp(e->kind, "firmware") != 0 &&
		strcmp(e->kind, "board") != 0;
}

const char *history_version_at(const history_t *h, int64_t t_ms)
{
	const char *v = NULL;
	for (size_t i = 0; i < h->nevents; i++) {
		const struct history_event *e = &h->events[i];
		if (!history_is_version_event(e))
			continue;
		if (e->time_ms > t_ms)
			return v ? v : (e->old_version ? e->old_version : e->new_version);
		v = e->new_version;
	}
	return v ? v : h->version;
}
