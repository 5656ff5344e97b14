/* SPDX-License-Identifier: Apache-2.0 */
/* cache: the writer's memory of routers, interfaces and peers (ids, last versions, the counters
 * of the last poll) and of the maintenance marks (maint_load), loaded from the database at open
 * and after a rollback. Writer thread only;
 * it must never write the database: ingest.c inserts, then records here what it inserted. */
#include "config.h"
#include "store/store_int.h"
#include "store/chunkstore.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_PREV_POLLS 2880 /* polls looked back for a series' last counters */

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

/* The look-back of one router (cache_load_prev): its series' state while a span is read. */
struct cache_back {
	struct store_router *r;
	int32_t *at;  /* per series (interfaces, then peers): CACHE_AT_DONE, CACHE_AT_NONE or the row */
	size_t want;  /* series not done */
	int64_t seen; /* rows with values of the spans read so far */
	int64_t row;  /* rows with values of this span so far */
};
#define CACHE_AT_DONE (-2) /* got its counters from a newer span */
#define CACHE_AT_NONE (-1) /* none yet */

/* The counters of one packed blob as the previous ones of the series of v (at: their look-back
 * state) not done: the newest row of a span read oldest first has the last word. */
static void cache_prev_from(struct store_series *v, int32_t *at, size_t n, const void *blob, size_t len,
	int64_t t, int32_t row, enum store_kind kind)
{
	const uint8_t *p = blob, *end = p + len;
	if (p == NULL || p == end || *p++ != kind)
		return;
	int64_t prev_id = 0;
	struct store_val e;
	while (p < end && pack_next(&p, end, kind, &prev_id, &e)) {
		for (size_t i = 0; i < n; i++) {
			if (v[i].id != e.id || at[i] == CACHE_AT_DONE)
				continue;
			v[i].have_prev = true, v[i].prev_t = t, v[i].prev_mono = false;
			v[i].prev_rx = e.c[0], v[i].prev_tx = e.c[1];
			at[i] = row;
		}
	}
}

/* The span's rows are read: of those with values, only the CACHE_PREV_POLLS newest of all read
 * count (a series whose newest row here is older than them has none); the series they gave
 * counters are done. */
static void cache_back_span(struct cache_back *b)
{
	struct store_router *r = b->r;
	int64_t cut = b->row - (CACHE_PREV_POLLS - b->seen); /* rows of the span before it do not count */
	for (size_t i = 0; i < (size_t)r->nifaces + r->npeers; i++) {
		if (b->at[i] < 0)
			continue;
		struct store_series *x = i < r->nifaces ? &r->ifaces[i] : &r->peers[i - r->nifaces];
		if (b->at[i] < cut) {
			x->have_prev = false, b->at[i] = CACHE_AT_NONE;
			continue;
		}
		b->at[i] = CACHE_AT_DONE;
		b->want--;
	}
	b->seen += b->row;
	b->row = 0;
}

/* The rows of r in [from, to), oldest first, through chunkstore (chunks and polls alike). */
static int cache_back_read(store_t *st, struct cache_back *b, int64_t from, int64_t to)
{
	struct store_router *r = b->r;
	char *cause = NULL;
	unsigned cols = (1u << POLLCHUNK_IFACES) | (1u << POLLCHUNK_PEERS) | CHUNKSTORE_SKIP_MALFORMED;
	chunkstore_cur_t *c = chunkstore_open_cols(st->db, r->id, from, to, cols, &cause);
	const struct pollchunk_row *w;
	int rc = c == NULL ? -1 : 0;
	while (rc == 0 && (rc = chunkstore_next(c, &w, &cause)) == 1) {
		rc = 0;
		if (w->blob[POLLCHUNK_IFACES] == NULL && w->blob[POLLCHUNK_PEERS] == NULL)
			continue;
		int32_t row = (int32_t)b->row++;
		cache_prev_from(r->ifaces, b->at, r->nifaces, w->blob[POLLCHUNK_IFACES],
			w->len[POLLCHUNK_IFACES], w->time_ms, row, STORE_IFACE);
		cache_prev_from(r->peers, b->at + r->nifaces, r->npeers, w->blob[POLLCHUNK_PEERS],
			w->len[POLLCHUNK_PEERS], w->time_ms, row, STORE_PEER);
	}
	chunkstore_close(c);
	if (rc < 0)
		snprintf(st->errmsg, sizeof(st->errmsg), "%s", cause ? cause : "reading polls");
	free(cause);
	return rc;
}

/* The start of the span of r's newest row before `before` (in chunks or polls), in *span; 0 when
 * there is one, 1 when none, -1 on error. q: CACHE_NEWEST_SQL. */
static int cache_back_older(store_t *st, sqlite3_stmt *q, int64_t rid, int64_t before, int64_t *span)
{
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, before);
	int rc = sqlite3_step(q);
	bool found = rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL;
	int64_t t = found ? sqlite3_column_int64(q, 0) : 0;
	if (rc != SQLITE_ROW)
		store_note_error(st);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW)
		return -1;
	*span = t - (t % CHUNKSTORE_SPAN_MS + CHUNKSTORE_SPAN_MS) % CHUNKSTORE_SPAN_MS; /* floor */
	return found ? 0 : 1;
}

/* The counters of each series of r in its last poll, so that deltas go on after a restart: the
 * poll of routers.last_ok_ms (the last good one as written, in poll order: after the wall clock
 * went back, polls stamped ahead of it lie in the future), then older ones for series it lacks,
 * an hour's span at a time, newest first, so that a restart reads the newest hour of most
 * routers and no more. Looks back over at most CACHE_PREV_POLLS polls with values: a series
 * silent for longer starts afresh. q: CACHE_NEWEST_SQL, last: the router's last_ok_ms. */
static int cache_load_prev(store_t *st, sqlite3_stmt *q, struct store_router *r, int64_t last)
{
	struct cache_back b = { .r = r, .want = (size_t)r->nifaces + r->npeers };
	if (b.want == 0)
		return 0;
	b.at = xreallocarray(NULL, b.want, sizeof(*b.at));
	for (size_t i = 0; i < b.want; i++)
		b.at[i] = CACHE_AT_NONE;
	int64_t to = last < INT64_MAX ? last + 1 : INT64_MAX, span;
	int rc = 0;
	while (rc == 0 && b.want > 0 && b.seen < CACHE_PREV_POLLS &&
		(rc = cache_back_older(st, q, r->id, to, &span)) == 0) {
		rc = cache_back_read(st, &b, span, to);
		cache_back_span(&b);
		to = span;
	}
	free(b.at);
	return rc < 0 ? -1 : 0;
}

/* The newest row of a router (?1) before ?2, in polls or chunks (a chunk lies within one span). */
#define CACHE_NEWEST_SQL                                                                                \
	"SELECT max(t) FROM (SELECT max(time_ms) AS t FROM polls WHERE router_id = ?1 AND time_ms < ?2" \
	" UNION ALL SELECT max(time_ms) FROM chunks WHERE router_id = ?1 AND time_ms < ?2)"

static int cache_load_prevs(store_t *st)
{
	sqlite3_stmt *q = store_stmt(st, CACHE_NEWEST_SQL);
	sqlite3_stmt *last = store_stmt(
		st, "SELECT coalesce(last_ok_ms, 9223372036854775807) FROM routers WHERE id = ?1");
	int rc = q == NULL || last == NULL ? -1 : 0;
	for (size_t i = 0; rc == 0 && i < st->nrouters; i++) {
		sqlite3_bind_int64(last, 1, st->routers[i]->id);
		if (sqlite3_step(last) != SQLITE_ROW) {
			store_note_error(st);
			rc = -1;
			break;
		}
		int64_t t = sqlite3_column_int64(last, 0);
		sqlite3_reset(last);
		rc = cache_load_prev(st, q, st->routers[i], t);
	}
	sqlite3_finalize(q);
	sqlite3_finalize(last);
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
