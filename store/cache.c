/* SPDX-License-Identifier: Apache-2.0 */
/* cache: the writer's memory of routers, interfaces and peers (ids, last versions, the counters
 * of the last poll) and of the maintenance marks (maint_load), loaded from the database at open
 * and after a rollback. Writer thread only;
 * it must never write the database: ingest.c inserts, then records here what it inserted. */
#include "config.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_PREV_POLLS "2880" /* polls looked back for a series' last counters */
#define CACHE_PREV_WITH  "(ifaces IS NOT NULL OR peers IS NOT NULL)"
#define CACHE_PREV_LAST  "coalesce((SELECT last_ok_ms FROM routers WHERE id = ?1), 9223372036854775807)"

/* Grow an array of n elements when n is 0 or a power of two (capacity doubling). */
static void *cache_grow(void *p, size_t n, size_t size)
{
	if (n != 0 && (n & (n - 1)) != 0)
		return p;
	return xreallocarray(p, n ? n * 2 : 4, size);
}

static void cache_series_free(struct store_series *v, struct store_detail *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!(v[i].shared & CACHE_SHARED_NAME))
			free(v[i].name);
		if (!(v[i].shared & CACHE_SHARED_KEY))
			free(v[i].key);
		if (d != NULL && !(v[i].shared & CACHE_SHARED_ALLOWED))
			free(d[i].allowed);
		if (d != NULL && !(v[i].shared & CACHE_SHARED_ENDPOINT))
			free(d[i].endpoint);
	}
	free(v);
	free(d);
}

void cache_clear(store_t *st)
{
	for (size_t i = 0; i < st->nrouters; i++) {
		struct store_router *r = st->routers[i];
		cache_series_free(r->ifaces, NULL, r->nifaces);
		cache_series_free(r->peers, r->details, r->npeers);
		for (size_t k = 0; k < r->nsensors; k++)
			free(r->sensors[k].name);
		free(r->sensors);
		sample_strs_unref(r->strs);
		free(r->name);
		free(r->version);
		free(r->firmware);
		free(r->board);
		free(r);
	}
	free(st->routers);
	st->routers = NULL;
	st->nrouters = 0;
}

static size_t cache_router_pos(store_t *st, const char *name, bool *found)
{
	size_t lo = 0, hi = st->nrouters;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(st->routers[mid]->name, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

struct store_router *cache_router_find(store_t *st, const char *name)
{
	bool found;
	size_t i = cache_router_pos(st, name, &found);
	return found ? st->routers[i] : NULL;
}

struct store_router *cache_router_add(store_t *st, const char *name, int64_t id)
{
	bool found;
	size_t i = cache_router_pos(st, name, &found);
	struct store_router *r = xcalloc(1, sizeof(*r));
	r->name = xstrdup(name);
	r->id = id;
	r->uptime_ms = r->info_ms = r->info_mono = -1;
	st->routers = cache_grow(st->routers, st->nrouters, sizeof(*st->routers));
	memmove(&st->routers[i + 1], &st->routers[i], (st->nrouters - i) * sizeof(*st->routers));
	st->routers[i] = r;
	st->nrouters++;
	return r;
}

struct store_series *cache_series_find(
	struct store_series *v, size_t n, size_t hint, const char *name, const char *key)
{
	for (size_t k = 0; k < n; k++) {
		struct store_series *x = &v[(hint + k) % n];
		if (strcmp(x->name, name) == 0 && (key == NULL || strcmp(x->key, key) == 0))
			return x;
	}
	return NULL;
}

int cache_id_check(store_t *st, int64_t id)
{
	if (id >= 1 && id <= UINT32_MAX)
		return 0;
	snprintf(st->errmsg, sizeof(st->errmsg), "a series id out of range: %" PRId64, id);
	return -1;
}

struct store_series *cache_series_add(
	struct store_series **v, uint32_t *n, uint32_t *cap, const char *name, const char *key, int64_t id)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	struct store_series *x = &(*v)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->name = xstrdup(name);
	x->key = xstrdup(key);
	x->id = (uint32_t)id;
	x->disabled = -1;
	return x;
}

struct store_sensor *cache_sensor_find(const struct store_router *r, size_t hint, const char *name, int unit)
{
	for (size_t k = 0; k < r->nsensors; k++) {
		struct store_sensor *x = &r->sensors[(hint + k) % r->nsensors];
		if (x->unit == unit && strcmp(x->name, name) == 0)
			return x;
	}
	return NULL;
}

struct store_sensor *cache_sensor_add(struct store_router *r, const char *name, int unit, int64_t id)
{
	if (r->nsensors == r->cap_sensors) {
		r->cap_sensors = r->cap_sensors ? 2 * r->cap_sensors : 4;
		r->sensors = xreallocarray(r->sensors, r->cap_sensors, sizeof(*r->sensors));
	}
	struct store_sensor *x = &r->sensors[r->nsensors++];
	*x = (struct store_sensor){ .name = xstrdup(name), .id = (uint32_t)id, .unit = (uint8_t)unit };
	return x;
}

/* The enum sample_unit whose name is text, or CACHE_UNIT_OTHER. */
static int cache_unit(const char *text)
{
	for (int u = 0; u < SAMPLE_UNIT_COUNT; u++)
		if (text != NULL && strcmp(sample_unit_name((enum sample_unit)u), text) == 0)
			return u;
	return CACHE_UNIT_OTHER;
}

struct store_series *cache_peer_add(struct store_router *r, const char *name, const char *key, int64_t id)
{
	size_t cap = r->cap_peers;
	struct store_series *x = cache_series_add(&r->peers, &r->npeers, &r->cap_peers, name, key, id);
	if (r->cap_peers != cap)
		r->details = xreallocarray(r->details, r->cap_peers, sizeof(*r->details));
	r->details[r->npeers - 1] = (struct store_detail){ NULL, NULL };
	return x;
}

static int cache_load_routers(store_t *st)
{
	sqlite3_stmt *q = store_stmt(
		st, "SELECT id, name, version, firmware, board, uptime_ms, info_ms FROM routers");
	if (q == NULL)
		return -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_router *r = cache_router_add(
			st, (const char *)sqlite3_column_text(q, 1), sqlite3_column_int64(q, 0));
		r->version = db_col_str(q, 2);
		r->firmware = db_col_str(q, 3);
		r->board = db_col_str(q, 4);
		r->uptime_ms = db_col_int64(q, 5, -1);
		r->info_ms = db_col_int64(q, 6, -1);
	}
	if (rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

enum cache_what { CACHE_IFACES, CACHE_PEERS, CACHE_SENSORS };
static const char *const cache_series_sql[] = {
	[CACHE_IFACES] = "SELECT r.name, i.id, i.name, NULL, NULL, NULL, NULL"
			 " FROM interfaces i JOIN routers r ON r.id = i.router_id",
	[CACHE_PEERS] = "SELECT r.name, p.id, p.interface, p.pkey, p.endpoint, p.allowed_address, p.disabled"
			" FROM peers p JOIN routers r ON r.id = p.router_id",
	[CACHE_SENSORS] = "SELECT r.name, s.id, s.name, s.unit, NULL, NULL, NULL"
			  " FROM sensors s JOIN routers r ON r.id = s.router_id",
};

static void cache_series_row(struct store_router *r, enum cache_what what, sqlite3_stmt *q)
{
	const char *name = (const char *)sqlite3_column_text(q, 2);
	const char *key = (const char *)sqlite3_column_text(q, 3);
	int64_t id = sqlite3_column_int64(q, 1);
	if (what == CACHE_IFACES) {
		cache_series_add(&r->ifaces, &r->nifaces, &r->cap_ifaces, name, key, id);
		return;
	}
	if (what == CACHE_SENSORS) {
		cache_sensor_add(r, name, cache_unit(key), id);
		return;
	}
	struct store_series *x = cache_peer_add(r, name, key, id);
	struct store_detail *d = &r->details[r->npeers - 1];
	d->endpoint = db_col_str(q, 4);
	d->allowed = db_col_str(q, 5);
	int64_t disabled = db_col_int64(q, 6, -1);
	x->disabled = (int8_t)(disabled < 0 ? -1 : disabled != 0);
}

static int cache_load_series(store_t *st, enum cache_what what)
{
	sqlite3_stmt *q = store_stmt(st, cache_series_sql[what]);
	if (q == NULL)
		return -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (cache_id_check(st, sqlite3_column_int64(q, 1)) < 0) {
			sqlite3_finalize(q);
			return -1;
		}
		struct store_router *r = cache_router_find(st, (const char *)sqlite3_column_text(q, 0));
		if (r != NULL)
			cache_series_row(r, what, q);
	}
	if (rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Take the counters of one packed blob as the previous ones of series that have none yet;
 * returns how many series got theirs. */
static size_t cache_prev_from(
	struct store_series *v, size_t n, sqlite3_stmt *q, int col, int64_t t, enum store_kind kind)
{
	const uint8_t *p = sqlite3_column_blob(q, col);
	const uint8_t *end = p + sqlite3_column_bytes(q, col);
	if (p == NULL || p == end || *p++ != kind)
		return 0;
	size_t got = 0;
	int64_t prev_id = 0;
	struct store_val e;
	while (p < end && pack_next(&p, end, kind, &prev_id, &e)) {
		for (size_t i = 0; i < n; i++) {
			if (v[i].id != e.id || v[i].have_prev)
				continue;
			v[i].have_prev = true, v[i].prev_t = t, v[i].prev_mono = false;
			v[i].prev_rx = e.c[0], v[i].prev_tx = e.c[1];
			got++;
		}
	}
	return got;
}

/* The counters of each series of r in its last poll, so that deltas go on after a restart. Looks
 * back over at most CACHE_PREV_POLLS polls: a series silent for longer starts afresh. */
static int cache_load_prev(store_t *st, sqlite3_stmt *q, struct store_router *r)
{
	size_t want = r->nifaces + r->npeers;
	sqlite3_bind_int64(q, 1, r->id);
	int rc = SQLITE_DONE;
	while (want > 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(q, 0);
		want -= cache_prev_from(r->ifaces, r->nifaces, q, 1, t, STORE_IFACE);
		want -= cache_prev_from(r->peers, r->npeers, q, 2, t, STORE_PEER);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_reset(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The last poll is the newest in poll order, not in time: after the wall clock went back, polls
 * stamped ahead of it lie in the future. routers.last_ok_ms is the time of the router's last
 * good poll as written, in poll order: that row first (one seek), then older ones by time for
 * series it lacks. store_polls reads oldest first: when the day to that poll holds as many
 * polls as are looked back, the oldest of them bounds the read. */
static int cache_load_prevs(store_t *st)
{
	sqlite3_stmt *q = store_stmt(st,
		"SELECT time_ms, ifaces, peers FROM store_polls WHERE router_id = ?1 AND " CACHE_PREV_WITH
		" AND time_ms <= " CACHE_PREV_LAST " AND time_ms >= coalesce((SELECT time_ms FROM store_polls"
		" WHERE router_id = ?1 AND " CACHE_PREV_WITH " AND time_ms <= " CACHE_PREV_LAST
		" AND time_ms >= " CACHE_PREV_LAST
		" - 86400000 ORDER BY time_ms DESC LIMIT 1 OFFSET " CACHE_PREV_POLLS
		" - 1), -9223372036854775807 - 1) ORDER BY time_ms DESC"
		" LIMIT " CACHE_PREV_POLLS);
	if (q == NULL)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < st->nrouters; i++)
		rc = cache_load_prev(st, q, st->routers[i]);
	sqlite3_finalize(q);
	return rc;
}

/* *v no longer than n elements of size, from *cap (which the caller updates). */
static void *cache_trim(void *v, size_t n, size_t cap, size_t size)
{
	if (cap == n)
		return v;
	if (n == 0) {
		free(v);
		return NULL;
	}
	return xreallocarray(v, n, size);
}

void cache_router_trim(struct store_router *r)
{
	r->ifaces = cache_trim(r->ifaces, r->nifaces, r->cap_ifaces, sizeof(*r->ifaces));
	r->cap_ifaces = r->nifaces;
	r->peers = cache_trim(r->peers, r->npeers, r->cap_peers, sizeof(*r->peers));
	r->details = cache_trim(r->details, r->npeers, r->cap_peers, sizeof(*r->details));
	r->cap_peers = r->npeers;
	r->sensors = cache_trim(r->sensors, r->nsensors, r->cap_sensors, sizeof(*r->sensors));
	r->cap_sensors = r->nsensors;
}

void cache_peers_block(struct store_router *r, sample_strs_t *b)
{
	if (b == r->strs)
		return;
	for (size_t i = 0; i < r->npeers; i++) { /* rare: a full peers reply made a new block */
		struct store_series *x = &r->peers[i];
		struct store_detail *d = &r->details[i];
		if (x->shared & CACHE_SHARED_NAME)
			x->name = xstrdup(x->name);
		if (x->shared & CACHE_SHARED_KEY)
			x->key = xstrdup(x->key);
		if (x->shared & CACHE_SHARED_ALLOWED)
			d->allowed = xstrdup(d->allowed);
		if (x->shared & CACHE_SHARED_ENDPOINT)
			d->endpoint = cache_endpoint(d->endpoint, x->endpoint_port);
		x->shared = 0;
	}
	sample_strs_unref(r->strs);
	r->strs = sample_strs_ref(b);
}

void cache_series_share(const struct store_router *r, const sample_t *s, struct store_series *x, char **field,
	const char *str, uint8_t bit)
{
	if ((x->shared & bit) || str == NULL || r->strs == NULL || sample_holder(s, str) != r->strs)
		return;
	free(*field);
	*field = (char *)str; /* never written: the block is immutable */
	x->shared |= bit;
}

void cache_series_share_endpoint(const struct store_router *r, const sample_t *s, struct store_series *x,
	struct store_detail *d, const char *addr, int port)
{
	if ((x->shared & CACHE_SHARED_ENDPOINT) || addr == NULL || addr[0] == '\0' || port < 0 ||
		port > UINT16_MAX || r->strs == NULL || sample_holder(s, addr) != r->strs)
		return;
	free(d->endpoint);
	d->endpoint = (char *)addr; /* never written: the block is immutable */
	x->endpoint_port = (uint16_t)port;
	x->shared |= CACHE_SHARED_ENDPOINT;
}

char *cache_endpoint(const char *addr, int port)
{
	if (addr == NULL || addr[0] == '\0')
		return NULL;
	bool v6 = strchr(addr, ':') != NULL;
	return xasprintf("%s%s%s:%d", v6 ? "[" : "", addr, v6 ? "]" : "", port);
}

/* (Re)build the writer's memory from the database: at open, and after a rollback. */
int cache_load(store_t *st)
{
	cache_clear(st);
	st->cache_stale = true;
	if (cache_load_routers(st) < 0 || cache_load_series(st, CACHE_IFACES) < 0 ||
		cache_load_series(st, CACHE_PEERS) < 0 || cache_load_series(st, CACHE_SENSORS) < 0 ||
		cache_load_prevs(st) < 0 || maint_load(st) < 0)
		return -1;
	for (size_t i = 0; i < st->nrouters; i++)
		cache_router_trim(st->routers[i]);
	st->cache_stale = false;
	return 0;
}
