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

void cache_clear(store_t *st)
{
	for (size_t i = 0; i < st->nrouters; i++) {
		struct store_router *r = st->routers[i];
		free(r->ifaces);
		free(r->peers);
		free(r->own);
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

const char *cache_str(const struct store_router *r, uint32_t off)
{
	if (off == CACHE_NOSTR)
		return NULL;
	if (off & CACHE_OWN)
		return r->own->data + (off & ~CACHE_OWN);
	return sample_strs_data(r->strs) + off;
}

uint32_t cache_own_put(struct store_router *r, const char *str)
{
	if (str == NULL)
		return CACHE_NOSTR;
	size_t n = strlen(str) + 1;
	uint32_t len = r->own != NULL ? r->own->len : 0, cap = r->own != NULL ? r->own->cap : 0;
	if (n >= CACHE_OWN - 1 - len)
		abort(); /* 2 GiB of one router's names: out of memory long before */
	if (len + n > cap) {
		size_t want = cap ? 2 * (size_t)cap : 32;
		while (want < len + n)
			want *= 2;
		want = want < CACHE_OWN - 1 ? want : CACHE_OWN - 1;
		r->own = xreallocarray(r->own, 1, sizeof(*r->own) + want);
		if (cap == 0)
			r->own->len = r->own->dead = 0;
		r->own->cap = (uint32_t)want;
	}
	memcpy(r->own->data + len, str, n);
	r->own->len = len + (uint32_t)n;
	return CACHE_OWN | len;
}

void cache_own_drop(struct store_router *r, uint32_t *off)
{
	if (*off != CACHE_NOSTR && (*off & CACHE_OWN))
		r->own->dead += (uint32_t)strlen(cache_str(r, *off)) + 1;
	*off = CACHE_NOSTR;
}

struct store_series *cache_series_find(
	const struct store_router *r, bool peer, size_t hint, const char *name, const char *key)
{
	struct store_series *v = peer ? r->peers : r->ifaces;
	size_t n = peer ? r->npeers : r->nifaces;
	for (size_t k = 0; k < n; k++) {
		struct store_series *x = &v[(hint + k) % n];
		if (strcmp(cache_str(r, x->name), name) == 0 &&
			(key == NULL || strcmp(cache_str(r, x->key), key) == 0))
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
	struct store_router *r, bool peer, const char *name, const char *key, int64_t id)
{
	struct store_series **v = peer ? &r->peers : &r->ifaces;
	uint32_t *n = peer ? &r->npeers : &r->nifaces, *cap = peer ? &r->cap_peers : &r->cap_ifaces;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	struct store_series *x = &(*v)[(*n)++];
	*x = (struct store_series){ .name = cache_own_put(r, name),
		.key = cache_own_put(r, key),
		.endpoint = CACHE_NOSTR,
		.allowed = CACHE_NOSTR,
		.id = (uint32_t)id,
		.disabled = -1 };
	return x;
}

struct store_sensor *cache_sensor_find(const struct store_router *r, size_t hint, const char *name, int unit)
{
	for (size_t k = 0; k < r->nsensors; k++) {
		struct store_sensor *x = &r->sensors[(hint + k) % r->nsensors];
		if (x->unit == unit && strcmp(cache_str(r, x->name), name) == 0)
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
	*x = (struct store_sensor){
		.name = cache_own_put(r, name), .id = (uint32_t)id, .unit = (uint8_t)unit
	};
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
		cache_series_add(r, false, name, key, id);
		return;
	}
	if (what == CACHE_SENSORS) {
		cache_sensor_add(r, name, cache_unit(key), id);
		return;
	}
	struct store_series *x = cache_series_add(r, true, name, key, id);
	x->endpoint = cache_own_put(r, (const char *)sqlite3_column_text(q, 4));
	x->allowed = cache_own_put(r, (const char *)sqlite3_column_text(q, 5));
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

/* *off moved from the own block old to r's (being rebuilt). */
static void cache_own_move(struct store_router *r, const struct store_own *old, uint32_t *off)
{
	if (*off != CACHE_NOSTR && (*off & CACHE_OWN))
		*off = cache_own_put(r, old->data + (*off & ~CACHE_OWN));
}

/* r's own strings rebuilt from those in use, in a block of their size. */
static void cache_own_squeeze(struct store_router *r)
{
	struct store_own *old = r->own;
	r->own = NULL;
	for (size_t i = 0; i < r->nifaces; i++)
		cache_own_move(r, old, &r->ifaces[i].name);
	for (size_t i = 0; i < r->npeers; i++) {
		struct store_series *x = &r->peers[i];
		cache_own_move(r, old, &x->name);
		cache_own_move(r, old, &x->key);
		cache_own_move(r, old, &x->endpoint);
		cache_own_move(r, old, &x->allowed);
	}
	for (size_t i = 0; i < r->nsensors; i++)
		cache_own_move(r, old, &r->sensors[i].name);
	free(old);
	if (r->own != NULL && r->own->cap != r->own->len) {
		r->own = xreallocarray(r->own, 1, sizeof(*r->own) + r->own->len);
		r->own->cap = r->own->len;
	}
}

void cache_router_trim(struct store_router *r)
{
	r->ifaces = cache_trim(r->ifaces, r->nifaces, r->cap_ifaces, sizeof(*r->ifaces));
	r->cap_ifaces = r->nifaces;
	r->peers = cache_trim(r->peers, r->npeers, r->cap_peers, sizeof(*r->peers));
	r->cap_peers = r->npeers;
	r->sensors = cache_trim(r->sensors, r->nsensors, r->cap_sensors, sizeof(*r->sensors));
	r->cap_sensors = r->nsensors;
	if (r->own != NULL && (r->own->dead > 0 || r->own->cap != r->own->len))
		cache_own_squeeze(r);
}

/* A peer's *off, in the polls' block about to go, as a copy of its own. */
static void cache_unshare(struct store_router *r, uint32_t *off)
{
	if (cache_shared(*off))
		*off = cache_own_put(r, sample_strs_data(r->strs) + *off);
}

void cache_peers_block(struct store_router *r, sample_strs_t *b)
{
	if (b == r->strs)
		return;
	for (size_t i = 0; i < r->npeers; i++) { /* rare: a full peers reply made a new block */
		struct store_series *x = &r->peers[i];
		cache_unshare(r, &x->name);
		cache_unshare(r, &x->key);
		cache_unshare(r, &x->allowed);
		if (cache_shared(x->endpoint)) {
			char *ep = cache_endpoint(sample_strs_data(r->strs) + x->endpoint, x->endpoint_port);
			x->endpoint = cache_own_put(r, ep);
			free(ep);
		}
	}
	sample_strs_unref(r->strs);
	r->strs = sample_strs_ref(b);
}

void cache_series_share(struct store_router *r, const sample_t *s, uint32_t *field, const char *str)
{
	if (cache_shared(*field) || str == NULL || r->strs == NULL || sample_holder(s, str) != r->strs ||
		(size_t)(str - sample_strs_data(r->strs)) >= CACHE_OWN)
		return;
	cache_own_drop(r, field);
	*field = (uint32_t)(str - sample_strs_data(r->strs)); /* never written: the block is immutable */
}

void cache_series_share_endpoint(
	struct store_router *r, const sample_t *s, struct store_series *x, const char *addr, int port)
{
	if (cache_shared(x->endpoint) || addr == NULL || addr[0] == '\0' || port < 0 || port > UINT16_MAX ||
		r->strs == NULL || sample_holder(s, addr) != r->strs ||
		(size_t)(addr - sample_strs_data(r->strs)) >= CACHE_OWN)
		return;
	cache_own_drop(r, &x->endpoint);
	x->endpoint = (uint32_t)(addr - sample_strs_data(r->strs)); /* never written: immutable */
	x->endpoint_port = (uint16_t)port;
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
