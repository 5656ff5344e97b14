/* SPDX-License-Identifier: Apache-2.0 */
/* ingest: writing a batch of polls in one transaction: one polls row per poll with its values
 * packed, the routers, interfaces and peers it names, its version history and counter deltas.
 * Writer thread only; it must never commit part of a batch, nor keep a cache a rollback undid. */
#include "config.h"
#include "store/store_int.h"
#include "store/chunkstore.h"
#include "daemon/ros.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "daemon/rate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The writer's statements, prepared once at open (migrate.c); maint.c uses the store_state ones. */
const char *const ingest_sql[SQ_COUNT] = {
	[SQ_INS_ROUTER] = "INSERT INTO routers (name, first_seen_ms) VALUES (?1, ?2)",
	[SQ_UPD_ROUTER] =
		"UPDATE routers SET last_poll_ms = ?2,"
		" last_ok_ms = CASE WHEN ?3 THEN ?2 ELSE last_ok_ms END,"
		" version = coalesce(?4, version), channel = coalesce(?5, channel),"
		" firmware = coalesce(?6, firmware), upgrade_firmware = coalesce(?7, upgrade_firmware),"
		" board = coalesce(?8, board), architecture = coalesce(?9, architecture),"
		" cpu_model = coalesce(?10, cpu_model), uptime_ms = coalesce(?11, uptime_ms),"
		" info_ms = CASE WHEN ?11 IS NULL THEN info_ms ELSE ?2 END WHERE id = ?1",
	[SQ_INS_IFACE] = "INSERT INTO interfaces (router_id, name, type) VALUES (?1, ?2, ?3)",
	[SQ_INS_PEER] = "INSERT INTO peers (router_id, interface, pkey, name) VALUES (?1, ?2, ?3, ?4)",
	[SQ_INS_POLL] =
		"INSERT INTO polls (router_id, time_ms, duration_ms, source, err,"
		" error, cpu, ifaces, peers, health, cpu_mhz) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		" ?11) ON CONFLICT (router_id, time_ms) DO NOTHING",
	[SQ_INS_SENSOR] = "INSERT INTO sensors (router_id, name, unit) VALUES (?1, ?2, ?3)",
	[SQ_UPD_PEER] = "UPDATE peers SET endpoint = ?2, allowed_address = ?3, disabled = ?4 WHERE id = ?1",
	[SQ_INS_HIST] =
		"INSERT INTO version_history (router_id, time_ms, kind, old_version,"
		" new_version, old_firmware, new_firmware, old_board, new_board, architecture, uptime_ms)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[SQ_GET_STATE] = "SELECT value FROM store_state WHERE key = ?1",
	[SQ_SET_STATE] = "INSERT OR REPLACE INTO store_state VALUES (?1, ?2)",
};

static bool ingest_differs(const char *old, const char *cur)
{
	return old != NULL && cur != NULL && strcmp(old, cur) != 0;
}

/* *dst = a copy of src, unless src is NULL or the same (most polls: no allocation). */
static void ingest_set_str(char **dst, const char *src)
{
	if (src == NULL || (*dst != NULL && strcmp(*dst, src) == 0))
		return;
	free(*dst);
	*dst = xstrdup(src);
}

static struct store_router *ingest_router_get(store_t *st, const sample_t *s)
{
	struct store_router *r = cache_router_find(st, s->router);
	if (r != NULL)
		return r;
	sqlite3_stmt *q = st->sq[SQ_INS_ROUTER];
	db_bind_text(q, 1, s->router);
	sqlite3_bind_int64(q, 2, s->time_ms);
	if (store_step(st, q) < 0)
		return NULL;
	return cache_router_add(st, s->router, sqlite3_last_insert_rowid(st->db));
}

static struct store_series *ingest_series_get(store_t *st, struct store_router *r, bool peer, size_t hint,
	const char *name, const char *key, const char *label)
{
	struct store_series *x = cache_series_find(r, peer, hint, name, key);
	if (x != NULL)
		return x;
	sqlite3_stmt *q = st->sq[peer ? SQ_INS_PEER : SQ_INS_IFACE];
	sqlite3_bind_int64(q, 1, r->id);
	db_bind_text(q, 2, name);
	db_bind_text(q, 3, peer ? key : label);
	if (peer)
		db_bind_text(q, 4, label);
	if (store_step(st, q) < 0 || cache_id_check(st, sqlite3_last_insert_rowid(st->db)) < 0)
		return NULL;
	return cache_series_add(r, peer, name, key, sqlite3_last_insert_rowid(st->db));
}

static struct store_sensor *ingest_sensor_get(
	store_t *st, struct store_router *r, size_t hint, const struct sample_sensor *x)
{
	const char *unit = sample_unit_name(x->unit);
	int u = (unsigned)x->unit < SAMPLE_UNIT_COUNT ? (int)x->unit : SAMPLE_UNIT_STATE; /* as named */
	struct store_sensor *z = cache_sensor_find(r, hint, x->name, u);
	if (z != NULL)
		return z;
	sqlite3_stmt *q = st->sq[SQ_INS_SENSOR];
	sqlite3_bind_int64(q, 1, r->id);
	db_bind_text(q, 2, x->name);
	db_bind_text(q, 3, unit);
	if (store_step(st, q) < 0 || cache_id_check(st, sqlite3_last_insert_rowid(st->db)) < 0)
		return NULL;
	return cache_sensor_add(r, x->name, u, sqlite3_last_insert_rowid(st->db));
}

static bool ingest_same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* Whether s is port as "%d" prints it; a negative port (never decoded) is never the same. */
static bool ingest_port_is(const char *s, int port)
{
	char digits[12];
	size_t n = 0;
	if (port < 0)
		return false;
	do
		digits[n++] = (char)('0' + port % 10);
	while ((port /= 10) != 0);
	while (n > 0)
		if (*s++ != digits[--n])
			return false;
	return *s == '\0';
}

/* Whether peer x's endpoint is p's, without building cache_endpoint's form: the endpoint rarely
 * changes, and this runs for every peer of every poll. */
static bool ingest_endpoint_same(
	const struct store_router *r, const struct store_series *x, const struct sample_peer *p)
{
	const char *stored = cache_str(r, x->endpoint);
	if (cache_shared(x->endpoint)) /* a bare address and its port */
		return p->endpoint != NULL && p->endpoint_port >= 0 && p->endpoint_port == x->endpoint_port &&
			strcmp(stored, p->endpoint) == 0;
	if (p->endpoint == NULL || p->endpoint[0] == '\0')
		return stored == NULL;
	if (stored == NULL)
		return false;
	bool v6 = strchr(p->endpoint, ':') != NULL;
	size_t n = strlen(p->endpoint);
	if (v6 && *stored++ != '[')
		return false;
	if (strncmp(stored, p->endpoint, n) != 0)
		return false;
	stored += n;
	if (v6 && *stored++ != ']')
		return false;
	return *stored == ':' && ingest_port_is(stored + 1, p->endpoint_port);
}

/* The peer's endpoint, allowed addresses and disabled flag into peers when they changed; x is
 * its series. */
static int ingest_peer_detail(store_t *st, struct store_router *r, const sample_t *s, struct store_series *x,
	const struct sample_peer *p)
{
	if (ingest_endpoint_same(r, x, p) && ingest_same(p->allowed, cache_str(r, x->allowed)) &&
		x->disabled == p->disabled) {
		cache_series_share(r, s, &x->allowed, p->allowed);
		cache_series_share_endpoint(r, s, x, p->endpoint, p->endpoint_port);
		return 0;
	}
	char *ep = cache_endpoint(p->endpoint, p->endpoint_port);
	sqlite3_stmt *q = st->sq[SQ_UPD_PEER];
	sqlite3_bind_int64(q, 1, x->id);
	db_bind_text(q, 2, ep);
	db_bind_text(q, 3, p->allowed);
	sqlite3_bind_int(q, 4, p->disabled);
	int rc = store_step(st, q);
	cache_own_drop(r, &x->endpoint);
	cache_own_drop(r, &x->allowed);
	x->endpoint = cache_own_put(r, ep);
	free(ep);
	x->allowed = cache_own_put(r, p->allowed);
	cache_series_share(r, s, &x->allowed, p->allowed);
	cache_series_share_endpoint(r, s, x, p->endpoint, p->endpoint_port);
	x->disabled = (int8_t)p->disabled;
	return rc;
}

struct ingest_delta {
	bool valid; /* there is a previous sample to compare with */
	bool reset; /* counters restarted from zero in between */
	int64_t dt_ms, rx, tx;
};

static int64_t ingest_clamp(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The time since x's previous poll: monotonic when both polls have it, else wall (as
 * rate_elapsed_ms); a poll without a monotonic time after one with it (never in the daemon, whose
 * poller stamps every poll) has none, 0, as x keeps one time only. */
static int64_t ingest_elapsed_ms(const struct store_series *x, const sample_t *s)
{
	if (x->prev_mono)
		return s->mono_ms >= 0 ? s->mono_ms - x->prev_t : 0;
	return s->time_ms - x->prev_t;
}

/* Increase since the series' previous sample, the poll before in poll order whatever the wall
 * clock says, over the monotonic time between the two (ingest_elapsed_ms); remembers this one as
 * the previous. None when no time elapsed (wall times after a restart, the clock gone back), or
 * when a counter went down with no restart known: that is a reset with no rate (issue 39), not
 * the counter counted from zero. */
static void ingest_delta(struct store_series *x, const sample_t *s, uint64_t rx, uint64_t tx, bool restarted,
	struct ingest_delta *d)
{
	memset(d, 0, sizeof(*d));
	if (x->have_prev) {
		bool back = rate_went_back(x->prev_rx, rx, 64, restarted) ||
			rate_went_back(x->prev_tx, tx, 64, restarted);
		d->dt_ms = ingest_elapsed_ms(x, s);
		d->valid = d->dt_ms > 0 && !back;
		d->reset = restarted || back || rx < x->prev_rx || tx < x->prev_tx;
		d->rx = ingest_clamp(rate_delta(x->prev_rx, rx, 64, restarted));
		d->tx = ingest_clamp(rate_delta(x->prev_tx, tx, 64, restarted));
	}
	x->have_prev = true;
	x->prev_mono = s->mono_ms >= 0;
	x->prev_t = x->prev_mono ? s->mono_ms : s->time_ms;
	x->prev_rx = rx;
	x->prev_tx = tx;
}

static void ingest_delta_flags(struct store_val *v, const struct ingest_delta *d)
{
	v->flags |= (d->valid ? STORE_F_DELTA : 0) | (d->reset ? STORE_F_RESET : 0);
	v->dt_ms = d->dt_ms;
	v->rx_delta = d->rx;
	v->tx_delta = d->tx;
}

static int ingest_pack_ifaces(
	store_t *st, struct store_router *r, const sample_t *s, bool restarted, buf_t *b)
{
	int64_t prev_id = 0;
	for (size_t i = 0; i < s->nifaces; i++) {
		const struct sample_iface *f = &s->ifaces[i];
		struct store_series *x = ingest_series_get(
			st, r, false, i, f->name ? f->name : "", NULL, f->type ? f->type : "");
		if (x == NULL)
			return -1;
		struct ingest_delta d;
		ingest_delta(x, s, f->rx_bytes, f->tx_bytes, restarted, &d);
		struct store_val v = { .id = x->id,
			.c = { f->rx_bytes, f->tx_bytes, f->rx_packets, f->tx_packets, f->rx_drops,
				f->tx_drops },
			.flags = STORE_F_LINK | (f->running ? STORE_F_RUNNING : 0),
			.link = { f->mtu, f->rx_errors, f->tx_errors, f->tx_queue_drops } };
		ingest_delta_flags(&v, &d);
		pack_append(b, STORE_IFACE, &prev_id, &v);
	}
	return 0;
}

static const char *ingest_peer_key(const struct sample_peer *p)
{
	if (p->public_key != NULL && p->public_key[0] != '\0')
		return p->public_key;
	return p->peer ? p->peer : "";
}

static int ingest_pack_peers(store_t *st, struct store_router *r, const sample_t *s, bool restarted, buf_t *b)
{
	int64_t prev_id = 0;
	sample_strs_t *strs = NULL; /* the block the poll's peer strings lie in, if any */
	for (size_t i = 0; strs == NULL && i < s->npeers; i++)
		strs = sample_holder(s, s->peers[i].public_key);
	if (s->npeers > 0)
		cache_peers_block(r, strs);
	for (size_t i = 0; i < s->npeers; i++) {
		const struct sample_peer *p = &s->peers[i];
		struct store_series *x = ingest_series_get(st, r, true, i, p->interface ? p->interface : "",
			ingest_peer_key(p), p->peer ? p->peer : "");
		if (x == NULL)
			return -1;
		cache_series_share(r, s, &x->name, p->interface);
		cache_series_share(r, s, &x->key, ingest_peer_key(p));
		struct ingest_delta d;
		ingest_delta(x, s, p->rx_bytes, p->tx_bytes, restarted, &d);
		struct store_val v = { .id = x->id,
			.c = { p->rx_bytes, p->tx_bytes },
			.handshake_ms = p->last_handshake_ms,
			.flags = p->last_handshake_ms >= 0 ? STORE_F_HANDSHAKE : 0 };
		ingest_delta_flags(&v, &d);
		pack_append(b, STORE_PEER, &prev_id, &v);
		if (ingest_peer_detail(st, r, s, x, p) < 0)
			return -1;
	}
	return 0;
}

/* Only a poll that read health carries it (sample.h health_fresh): between reads the sensors
 * are the same answer again, and memory and disk are kept at the same pace. */
static int ingest_pack_health(store_t *st, struct store_router *r, const sample_t *s, buf_t *b)
{
	if (!s->health_fresh)
		return 0;
	const int64_t sizes[4] = { s->mem_free, s->mem_total, s->disk_free, s->disk_total };
	int64_t prev_id = 0;
	pack_health_head(b, sizes);
	for (size_t i = 0; i < s->nsensors; i++) {
		const struct sample_sensor *x = &s->sensors[i];
		struct store_sensor *z = ingest_sensor_get(st, r, i, x);
		if (z == NULL)
			return -1;
		double milli = x->value * 1000.0;
		struct store_val v = { .id = z->id,
			.value = fabs(milli) < 9e15 ? (int64_t)llround(milli) : 0 };
		pack_append(b, STORE_HEALTH, &prev_id, &v);
	}
	return 0;
}

static int64_t ingest_permille(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 1 ? 1000 : llround(v * 1000);
}

static void ingest_pack_cpu(const sample_t *s, buf_t *b)
{
	int64_t prev_id = 0;
	for (size_t i = 0; i < s->ncores; i++) {
		double irq = s->cores[i].irq;
		struct store_val v = { .load = ingest_permille(s->cores[i].load),
			.irq = isnan(irq) ? -1 : ingest_permille(irq) };
		pack_append(b, STORE_CPU, &prev_id, &v);
	}
}

static int ingest_hist(store_t *st, const struct store_router *r, const sample_t *s, const char *kind)
{
	sqlite3_stmt *q = st->sq[SQ_INS_HIST];
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, s->time_ms);
	db_bind_text(q, 3, kind);
	db_bind_text(q, 4, r->version);
	db_bind_text(q, 5, s->version ? s->version : r->version);
	db_bind_text(q, 6, r->firmware);
	db_bind_text(q, 7, s->firmware ? s->firmware : r->firmware);
	db_bind_text(q, 8, r->board);
	db_bind_text(q, 9, s->board ? s->board : r->board);
	db_bind_text(q, 10, s->architecture);
	db_bind_opt(q, 11, s->uptime_ms, s->uptime_ms >= 0);
	return store_step(st, q);
}

/* Compare the poll with what was known of the router and record what changed. */
static int ingest_write_history(store_t *st, const struct store_router *r, const sample_t *s, bool restarted)
{
	int cmp = 0;
	if (s->version != NULL && r->version == NULL) {
		if (ingest_hist(st, r, s, "first") < 0)
			return -1;
	} else if (s->version != NULL) {
		cmp = ros_version_cmp_text(s->version, r->version);
		if (cmp != 0 && ingest_hist(st, r, s, cmp > 0 ? "upgrade" : "downgrade") < 0)
			return -1;
		st->batch_versions |= cmp != 0;
	}
	if (ingest_differs(r->firmware, s->firmware) && ingest_hist(st, r, s, "firmware") < 0)
		return -1;
	if (ingest_differs(r->board, s->board) && ingest_hist(st, r, s, "board") < 0)
		return -1;
	if (restarted && cmp == 0 && ingest_hist(st, r, s, "reboot") < 0)
		return -1;
	return 0;
}

/* t: the time the poll was stored at (ingest_write_poll): last_poll_ms and last_ok_ms name the
 * router's last poll in poll order, which a restart takes its counters from (cache.c). */
static int ingest_update_router(store_t *st, struct store_router *r, const sample_t *s, int64_t t)
{
	sqlite3_stmt *q = st->sq[SQ_UPD_ROUTER];
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, t);
	sqlite3_bind_int(q, 3, s->err == SAMPLE_OK);
	const char *text[] = { s->version, s->channel, s->firmware, s->upgrade_firmware, s->board,
		s->architecture, s->cpu_model };
	for (int i = 0; i < 7; i++)
		db_bind_text(q, 4 + i, text[i]);
	db_bind_opt(q, 11, s->uptime_ms, s->uptime_ms >= 0);
	if (store_step(st, q) < 0)
		return -1;
	ingest_set_str(&r->version, s->version);
	ingest_set_str(&r->firmware, s->firmware);
	ingest_set_str(&r->board, s->board);
	if (s->uptime_ms >= 0) {
		r->uptime_ms = s->uptime_ms;
		r->info_ms = t;
		r->info_mono = s->mono_ms;
	}
	return 0;
}

/* One polls row at the poll's time, or, when the router has a row there already (the wall
 * clock went back over its own polls), at the first free millisecond after it: never in place
 * of another poll (INSERT OR REPLACE lost the older one). A row behind the chunking's mark may
 * be in a chunk (seldom: a clock gone back an hour). *t: the time stored. */
static int ingest_write_poll(store_t *st, const struct store_router *r, const sample_t *s, int64_t *t)
{
	sqlite3_stmt *q = st->sq[SQ_INS_POLL];
	for (*t = s->time_ms;; (*t)++) { /* ends: the router has finitely many rows */
		int held = *t < st->chunked_ms ? chunkstore_holds(st, r->id, *t) : 0;
		if (held < 0)
			return -1;
		if (held > 0)
			continue;
		sqlite3_bind_int64(q, 1, r->id);
		sqlite3_bind_int64(q, 2, *t);
		sqlite3_bind_int64(q, 3, s->duration_ms);
		db_bind_text(q, 4, s->source);
		db_bind_text(q, 5, s->err == SAMPLE_OK ? NULL : sample_err_name(s->err));
		db_bind_text(q, 6, s->err == SAMPLE_OK ? NULL : s->error);
		for (int i = 0; i < 4; i++)
			db_bind_blob(q, 7 + i, st->pk[i].data, st->pk[i].len);
		db_bind_opt(q, 11, s->cpu_freq_mhz, s->cpu_freq_mhz > 0);
		if (store_step(st, q) < 0) /* which clears the bindings */
			return -1;
		if (sqlite3_changes(st->db) > 0)
			return 0;
	}
}

static bool ingest_has_data(const sample_t *s)
{
	return s->err == SAMPLE_OK || s->version != NULL || s->ncores > 0 || s->nifaces > 0 ||
		s->npeers > 0 || s->uptime_ms >= 0 || s->health_fresh;
}

/* One polls row with the poll's values packed (st->pk: cpu, ifaces, peers). */
static int ingest_write_sample(store_t *st, const sample_t *s, size_t *rows)
{
	if (s->router == NULL)
		return 0;
	struct store_router *r = ingest_router_get(st, s);
	if (r == NULL)
		return -1;
	for (int i = 0; i < 4; i++)
		buf_reset(&st->pk[i]);
	int64_t t;
	if (!ingest_has_data(s))
		return ingest_write_poll(st, r, s, &t) < 0 ? -1 : ingest_update_router(st, r, s, t);
	bool restarted = rate_restarted(r->uptime_ms, s->uptime_ms,
		rate_elapsed_ms(r->info_ms, r->info_mono, s->time_ms, s->mono_ms));
	ingest_pack_cpu(s, &st->pk[0]);
	if (ingest_write_history(st, r, s, restarted) < 0 ||
		ingest_pack_ifaces(st, r, s, restarted, &st->pk[1]) < 0 ||
		ingest_pack_peers(st, r, s, restarted, &st->pk[2]) < 0 ||
		ingest_pack_health(st, r, s, &st->pk[3]) < 0 || ingest_write_poll(st, r, s, &t) < 0 ||
		maint_rollup_back(st, t) < 0)
		return -1;
	cache_router_trim(r); /* a no-op unless this poll added series */
	*rows += s->ncores + s->nifaces + s->npeers;
	return ingest_update_router(st, r, s, t);
}

/* The whole batch in one transaction. On failure everything is rolled back, the writer's
 * memory is reloaded from the database, and the batch stays for the next attempt. */
int ingest_batch(store_t *st, size_t *rows)
{
	*rows = 0;
	if (st->cache_stale && cache_load(st) < 0)
		return -1;
	if (store_exec(st, "BEGIN IMMEDIATE") < 0)
		return -1;
	for (size_t i = 0; i < st->nbatch; i++)
		if ((st->batch[i].s != NULL             ? ingest_write_sample(st, st->batch[i].s, rows)
				    : st->batch[i].prof ? ingest_write_profile(st, st->batch[i].prof)
							: ingest_write_probe(st, st->batch[i].probe)) < 0)
			goto fail;
	if (store_exec(st, "COMMIT") == 0)
		return 0;
fail:
	db_rollback(st->db);
	if (cache_load(st) < 0)
		log_debug("store: %s: reloading after a rollback failed", st->path);
	*rows = 0;
	return -1;
}
