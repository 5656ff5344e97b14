/* SPDX-License-Identifier: Apache-2.0 */
/* data: the detector's SQL, on its own connection: the version changes, the CPU and interface
 * samples judge needs, the CPU profiles and probes, the routers' recent polls, and the verdicts
 * it stores and reloads.
 * It must never write a sample, never run on the event loop, and never write when read-only. */
#include "config.h"
#include "detector/data.h"
#include "lib/xmem.h"
#include "store/shmguard.h"
#include "store/history.h"
#include "store/packed.h"
#include "store/store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA_BOUND_WINDOW_MS (10 * 60 * 1000LL)
#define DATA_BUSY_MS         5000
#define DATA_CACHE_KB        "512"        /* the detector connection's page cache, KiB */
#define DATA_MMAP_BYTES      "1073741824" /* a read-only run's file map, bytes */

enum data_sq {
	DATA_PROFILES, /* the optional ones first: NULL when schema 007 is missing */
	DATA_PROBES,
	DATA_PEERS,
	DATA_EVENTS,
	DATA_POLLS,
	DATA_IFACES,
	DATA_ROUTERS,
	DATA_UPSERT,
	DATA_HISTORY,
	DATA_DEMAND,
	DATA_ROLLED,
	DATA_NSQL
};

/* A router's polls in its bound window, kept from round to round: a poll is read once, not once
 * a round for as long as it is in the window (ten times at the default every = 60 s). */
struct data_recent {
	int64_t router;
	int64_t next_ms; /* the polls before this are in polls (up to the router's last poll) */
	struct frame_poll *polls;
	size_t n, cap;
};

struct data {
	sqlite3 *db;
	sqlite3_stmt *sq[DATA_NSQL];
	int64_t before_ms, after_ms; /* the windows of a version change */
	struct data_recent *recent;  /* each router's polls in its bound window, by router id */
	size_t nrecent;
	struct data_router *routers; /* data_recent's answer, by name */
	size_t nrouters;
};

static const char *const data_sql[DATA_NSQL] = {
	[DATA_PROFILES] = "SELECT time_ms, duration_ms, rows FROM profiles WHERE router_id = ?1"
			  " AND time_ms >= ?2 AND time_ms < ?3 ORDER BY time_ms DESC",
	[DATA_PROBES] = "SELECT time_ms, duration_ms, direction = 'transmit', offered_bps, delivered_bps,"
			" busiest_core_load FROM probes WHERE router_id = ?1 AND time_ms >= ?2"
			" AND time_ms < ?3 ORDER BY time_ms",
	[DATA_PEERS] = "SELECT interface, allowed_address FROM peers WHERE router_id = ?1"
		       " AND allowed_address IS NOT NULL AND coalesce(disabled, 0) = 0 ORDER BY interface",
	/* The firmware before is the upgrade poll's old one; after, the newest the router ran
	 * before the after window ends (?1 its length): RouterBOOT is upgraded after RouterOS. */
	[DATA_EVENTS] = "SELECT e.*, coalesce((SELECT f.new_firmware FROM version_history f"
			"  WHERE f.router_id = e.router_id AND f.kind = 'firmware' AND f.time_ms > e.time_ms"
			"  AND f.time_ms < min(e.time_ms + ?1, coalesce(e.next_ms, e.time_ms + ?1))"
			"  ORDER BY f.time_ms DESC LIMIT 1), e.new_firmware) FROM ("
			"SELECT h.id, r.name, h.time_ms, h.old_version, h.new_version,"
			" coalesce(h.architecture, r.architecture), r.board, h.router_id,"
			" (SELECT max(p.time_ms) FROM version_history p WHERE p.router_id = h.router_id"
			"  AND p.kind IN ('upgrade', 'downgrade') AND p.time_ms < h.time_ms),"
			" (SELECT min(n.time_ms) FROM version_history n WHERE n.router_id = h.router_id"
			"  AND n.kind IN ('upgrade', 'downgrade') AND n.time_ms > h.time_ms) AS next_ms,"
			" h.old_firmware, h.new_firmware"
			" FROM version_history h JOIN routers r ON r.id = h.router_id"
			" WHERE h.kind IN ('upgrade', 'downgrade')) e ORDER BY e.id",
	/* The packed values are decoded in C (store/packed.h): the views' row per value cost more
	 * than all else a round does. The CPU clock and the link rows come from the same read (see
	 * data_load): a read of chunks decodes them. */
	[DATA_POLLS] = "SELECT time_ms, cpu, ifaces, cpu_mhz FROM store_polls WHERE router_id = ?1"
		       " AND time_ms >= ?2 AND time_ms < ?3 ORDER BY time_ms",
	[DATA_IFACES] = "SELECT id, name, type = 'wg' FROM interfaces WHERE router_id = ?1 ORDER BY name, id",
	[DATA_ROUTERS] = "SELECT r.id, r.name, r.last_poll_ms, (SELECT max(h.time_ms) FROM version_history h"
			 "  WHERE h.router_id = r.id AND h.kind IN ('upgrade', 'downgrade'))"
			 " FROM routers r WHERE r.last_poll_ms IS NOT NULL ORDER BY r.name",
	[DATA_UPSERT] =
		("INSERT OR REPLACE INTO verdicts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		 " ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)"), /* one string: clang's -Wstring-concatenation */
	[DATA_HISTORY] = "INSERT OR REPLACE INTO verdict_history VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[DATA_DEMAND] =
		"SELECT i.name, r.bucket_ms, r.tx_rate_avg, r.rx_rate_avg FROM interfaces i"
		" JOIN store_iface_rollup r ON r.iface_id = i.id WHERE i.router_id = ?1 AND i.type = 'wg'"
		" AND r.bucket_ms >= ?2 AND r.bucket_ms < ?3 ORDER BY i.name, r.bucket_ms",
	[DATA_ROLLED] = "SELECT coalesce((SELECT value FROM store_state WHERE key = 'rollup_ms'), 0)",
};

int data_fail(data_t *d, char **cause, const char *what)
{
	*cause = xasprintf("%s: %s", what, sqlite3_errmsg(d->db));
	return -1;
}

static int data_prepare(data_t *d, const char *path, bool readonly, char **cause)
{
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (sqlite3_open_v2(path, &d->db, flags, NULL) != SQLITE_OK) {
		*cause = xasprintf(
			"cannot open database %s: %s", path, d->db ? sqlite3_errmsg(d->db) : "out of memory");
		return -1;
	}
	sqlite3_busy_timeout(d->db, DATA_BUSY_MS);
	if (!readonly)
		shmguard_connection(d->db);
	/* Each round reads its windows once: a page cache as large as SQLite's default (2 MB)
	 * buys little here and would only add to the daemon's resident memory. A read-only run
	 * (--report, --rollout-check) reads every router's whole window, whose polls rows are
	 * spread over the pages of all routers' polls of that time (migration 011): it maps the
	 * file rather than pread each page, as history.c does. */
	sqlite3_exec(d->db, "PRAGMA cache_size = -" DATA_CACHE_KB, NULL, NULL, NULL);
	if (readonly)
		sqlite3_exec(d->db, "PRAGMA mmap_size = " DATA_MMAP_BYTES, NULL, NULL, NULL);
	if (store_sql_attach(d->db, cause) < 0) /* the packed samples' views */
		return -1;
	for (int i = 0; i < DATA_NSQL; i++) {
		if (readonly && (i == DATA_UPSERT || i == DATA_HISTORY))
			continue;
		if (sqlite3_prepare_v3(d->db, data_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &d->sq[i], NULL) !=
				SQLITE_OK &&
			i > DATA_PEERS) { /* schema 007 missing: no probe method, no profiles */
			*cause = xasprintf("database %s: %s", path, sqlite3_errmsg(d->db));
			return -1;
		}
	}
	return 0;
}

data_t *data_open(const char *path, bool readonly, int64_t before_ms, int64_t after_ms, char **cause)
{
	data_t *d = xcalloc(1, sizeof(*d));
	d->before_ms = before_ms;
	d->after_ms = after_ms;
	if (data_prepare(d, path, readonly, cause) < 0) {
		data_close(d);
		return NULL;
	}
	sqlite3_bind_int64(d->sq[DATA_EVENTS], 1, after_ms);
	return d;
}

static void data_recent_free(data_t *d)
{
	for (size_t i = 0; i < d->nrecent; i++)
		free(d->recent[i].polls);
	free(d->recent);
	d->recent = NULL;
	d->nrecent = 0;
}

static void data_routers_free(data_t *d)
{
	for (size_t i = 0; i < d->nrouters; i++)
		free((char *)d->routers[i].name);
	free(d->routers);
	d->routers = NULL;
	d->nrouters = 0;
}

void data_close(data_t *d)
{
	if (d == NULL)
		return;
	for (int i = 0; i < DATA_NSQL; i++)
		sqlite3_finalize(d->sq[i]);
	shmguard_close(d->db);
	data_recent_free(d);
	data_routers_free(d);
	free(d);
}

int data_load_overrides(data_t *d, struct override **v, size_t *n, char **cause)
{
	return overrides_load(d->db, v, n, cause);
}

/* ---- reading the samples of one router ---- */

static void *data_grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 32;
	return xreallocarray(p, *cap, size);
}

void data_set_free(struct data_set *x)
{
	for (size_t i = 0; i < x->nifs; i++) {
		free(x->ifs[i].name);
		free(x->ifs[i].rows);
	}
	free(x->ifs);
	free(x->polls);
	free(x->loads);
	memset(x, 0, sizeof(*x));
}

static double data_col(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i);
}

static void data_bind_range(sqlite3_stmt *q, int64_t router, int64_t from, int64_t to)
{
	sqlite3_bind_int64(q, 1, router);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
}

#define DATA_MAX_CORES 1024 /* a core number beyond this is not a core */

struct data_core_row {
	size_t poll, core;
	float load;
};

/* The per-core rows into x->loads, and each poll's busiest core and mean of the others. */
static void data_cpu_matrix(struct data_set *x, const struct data_core_row *rows, size_t n)
{
	x->loads = xcalloc(x->npolls * x->ncores + 1, sizeof(float));
	for (size_t i = 0; i < x->npolls * x->ncores; i++)
		x->loads[i] = NAN;
	for (size_t i = 0; i < n; i++)
		x->loads[rows[i].poll * x->ncores + rows[i].core] = rows[i].load;
	for (size_t k = 0; k < x->npolls; k++) {
		double hi = NAN, sum = 0;
		size_t m = 0;
		for (size_t c = 0; c < x->ncores; c++) {
			double l = x->loads[k * x->ncores + c];
			if (isnan(l))
				continue;
			hi = isnan(hi) || l > hi ? l : hi;
			sum += l;
			m++;
		}
		x->polls[k].busiest = hi;
		x->polls[k].others = m > 1 ? (sum - hi) / (double)(m - 1) : NAN;
	}
}

/* The router's interfaces by name (names are unique to a router): each slot's name, whether it
 * is WireGuard's, its rates read so far (WireGuard's alone) and its link rows (every interface's). */
struct data_ifid {
	int64_t id;
	size_t slot;
};

struct data_ifs {
	struct data_ifid *byid; /* ascending id */
	size_t n;
	char **name; /* by slot */
	bool *wg;
	size_t nnames;
	struct data_iface *acc;       /* by slot: the rates read so far */
	struct confound_iface *links; /* by slot: the link rows read so far; NULL: none wanted */
};

static void data_ifs_free(struct data_ifs *w)
{
	for (size_t i = 0; i < w->nnames; i++) {
		free(w->name[i]);
		free(w->acc[i].rows);
		if (w->links != NULL)
			free(w->links[i].rows);
	}
	free(w->byid);
	free(w->name);
	free(w->wg);
	free(w->acc);
	free(w->links);
	memset(w, 0, sizeof(*w));
}

static int data_ifid_cmp(const void *a, const void *b)
{
	const struct data_ifid *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int data_ifs_load(data_t *d, int64_t router, bool links, struct data_ifs *w)
{
	sqlite3_stmt *q = d->sq[DATA_IFACES];
	size_t cap = 0;
	int rc;
	memset(w, 0, sizeof(*w));
	sqlite3_bind_int64(q, 1, router);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 1);
		if (w->n == cap) {
			cap = cap ? 2 * cap : 8;
			w->byid = xreallocarray(w->byid, cap, sizeof(*w->byid));
			w->name = xreallocarray(w->name, cap, sizeof(*w->name));
			w->wg = xreallocarray(w->wg, cap, sizeof(*w->wg));
		}
		if (w->nnames == 0 || strcmp(w->name[w->nnames - 1], name ? name : "") != 0) {
			w->wg[w->nnames] = sqlite3_column_int(q, 2) != 0;
			w->name[w->nnames++] = xstrdup(name ? name : "");
		}
		w->byid[w->n++] = (struct data_ifid){ sqlite3_column_int64(q, 0), w->nnames - 1 };
	}
	sqlite3_reset(q);
	if (w->n > 0) /* a router with no interfaces yet: byid is NULL, which qsort may not take */
		qsort(w->byid, w->n, sizeof(*w->byid), data_ifid_cmp);
	w->acc = xcalloc(w->nnames + 1, sizeof(*w->acc));
	w->links = links ? xcalloc(w->nnames + 1, sizeof(*w->links)) : NULL;
	return rc == SQLITE_DONE ? 0 : -1;
}

static size_t data_ifs_slot(const struct data_ifs *w, int64_t id)
{
	struct data_ifid key = { .id = id };
	const struct data_ifid *f = w->n ? bsearch(&key, w->byid, w->n, sizeof(key), data_ifid_cmp) : NULL;
	return f != NULL ? f->slot : SIZE_MAX;
}

/* A WireGuard interface's rate at poll, not across a reset (iface_samples.dt_ms > 0 and
 * reset = 0), into its slot's rows; the rates as SQL would compute them. */
static void data_add_rate(struct data_ifs *w, size_t slot, size_t poll, const struct packed_iface *r)
{
	if (!w->wg[slot] || !r->delta || r->dt_ms <= 0 || r->reset)
		return;
	double tx = (double)r->tx_delta * 8000.0 / (double)r->dt_ms;
	double rx = (double)r->rx_delta * 8000.0 / (double)r->dt_ms;
	if (!isfinite(tx) || !isfinite(rx))
		return;
	struct data_iface *f = &w->acc[slot];
	f->rows = data_grow(f->rows, f->n, &f->cap, sizeof(*f->rows));
	f->rows[f->n++] = (struct data_row){ poll, tx, rx };
}

/* An interface's link state at time t (iface_samples.running not NULL) into its slot's rows. */
static void data_add_link(struct data_ifs *w, size_t slot, int64_t t, const struct packed_iface *r)
{
	if (w->links == NULL || !r->link)
		return;
	struct confound_iface *f = &w->links[slot];
	f->rows = data_grow(f->rows, f->n, &f->cap, sizeof(*f->rows));
	f->rows[f->n++] = (struct confound_row){ .t = t,
		.reset = r->reset,
		.mtu = (int64_t)r->mtu,
		.running = r->running,
		.rx_err = r->rx_err,
		.tx_err = r->tx_err,
		.txq = r->txq,
		.rx_pkts = r->rx_pkts,
		.tx_pkts = r->tx_pkts };
}

/* The interfaces of one poll at time t: their rates at poll (SIZE_MAX: none, a poll without CPU
 * data) and their link rows. */
static void data_poll_ifaces(struct data_ifs *w, size_t poll, int64_t t, const void *blob, size_t len)
{
	struct packed_cursor c;
	struct packed_iface r;
	packed_ifaces(&c, blob, len);
	while (packed_next_iface(&c, &r)) {
		size_t slot = data_ifs_slot(w, r.id);
		if (slot == SIZE_MAX)
			continue;
		if (poll != SIZE_MAX)
			data_add_rate(w, slot, poll, &r);
		data_add_link(w, slot, t, &r);
	}
}

/* The slots that read a rate become x->ifs, by name; each poll's sums add them in that order. */
static void data_ifs_rates(struct data_ifs *w, struct data_set *x)
{
	for (size_t i = 0; i < w->nnames; i++) {
		struct data_iface *f = &w->acc[i];
		if (f->n == 0)
			continue;
		x->ifs = data_grow(x->ifs, x->nifs, &x->capifs, sizeof(*x->ifs));
		x->ifs[x->nifs++] = (struct data_iface){
			.name = xstrdup(w->name[i]), .rows = f->rows, .n = f->n, .cap = f->cap
		};
		*f = (struct data_iface){ 0 };
		for (size_t k = 0; k < x->ifs[x->nifs - 1].n; k++) {
			const struct data_row *row = &x->ifs[x->nifs - 1].rows[k];
			x->polls[row->poll].tx += row->tx;
			x->polls[row->poll].rx += row->rx;
			x->polls[row->poll].nrows++;
		}
	}
}

/* The slots that read a link row become cs->ifs, by name. */
static void data_ifs_links(struct data_ifs *w, struct confound_set *cs)
{
	for (size_t i = 0; w->links != NULL && i < w->nnames; i++) {
		struct confound_iface *f = &w->links[i];
		if (f->n == 0)
			continue;
		cs->ifs = data_grow(cs->ifs, cs->nifs, &cs->capifs, sizeof(*cs->ifs));
		cs->ifs[cs->nifs++] = (struct confound_iface){
			.name = xstrdup(w->name[i]), .wg = w->wg[i], .rows = f->rows, .n = f->n, .cap = f->cap
		};
		*f = (struct confound_iface){ 0 };
	}
}

struct data_acc { /* what one pass over a router's polls rows gathers besides x */
	struct data_core_row *rows;
	size_t n, cap;
	struct data_ifs w;
	struct confound_set *links; /* NULL: not wanted */
};

/* One polls row: a poll of x if it read a core (its loads into a->rows, its rates into a->w), and
 * its CPU clock and link rows into a->links. */
static void data_poll_row(sqlite3_stmt *q, struct data_set *x, struct data_acc *a)
{
	int64_t load[DATA_MAX_CORES], t = sqlite3_column_int64(q, 0);
	struct confound_set *cs = a->links;
	if (cs != NULL && sqlite3_column_type(q, 3) != SQLITE_NULL) {
		cs->cpu = data_grow(cs->cpu, cs->ncpu, &cs->capcpu, sizeof(*cs->cpu));
		cs->cpu[cs->ncpu++] = (struct confound_cpu){ t, sqlite3_column_int64(q, 3) };
	}
	size_t ncores = packed_cpu(
		sqlite3_column_blob(q, 1), (size_t)sqlite3_column_bytes(q, 1), load, DATA_MAX_CORES);
	if (ncores > 0) { /* without CPU data neither a poll nor rates */
		x->polls = data_grow(x->polls, x->npolls, &x->cappolls, sizeof(*x->polls));
		x->polls[x->npolls++] = (struct frame_poll){ .t = t, .busiest = NAN, .others = NAN };
	}
	for (size_t c = 0; c < ncores; c++) {
		a->rows = data_grow(a->rows, a->n, &a->cap, sizeof(*a->rows));
		a->rows[a->n++] = (struct data_core_row){ x->npolls - 1, c,
			(float)((double)load[c] / 1000.0) };
	}
	if (ncores > x->ncores)
		x->ncores = ncores;
	data_poll_ifaces(&a->w, ncores > 0 ? x->npolls - 1 : SIZE_MAX, t, sqlite3_column_blob(q, 2),
		(size_t)sqlite3_column_bytes(q, 2));
}

int data_load(
	data_t *d, int64_t router, int64_t from, int64_t to, struct data_set *x, struct confound_set *links)
{
	struct data_acc a = { .links = links };
	memset(x, 0, sizeof(*x));
	if (links != NULL)
		memset(links, 0, sizeof(*links));
	int rc = SQLITE_ERROR;
	sqlite3_stmt *q = d->sq[DATA_POLLS];
	if (data_ifs_load(d, router, links != NULL, &a.w) == 0) {
		data_bind_range(q, router, from, to);
		while ((rc = sqlite3_step(q)) == SQLITE_ROW)
			data_poll_row(q, x, &a);
		sqlite3_reset(q);
	}
	data_cpu_matrix(x, a.rows, a.n);
	free(a.rows);
	data_ifs_rates(&a.w, x);
	if (links != NULL)
		data_ifs_links(&a.w, links);
	data_ifs_free(&a.w);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int data_load_peers(data_t *d, int64_t router, struct probepair_set *p)
{
	sqlite3_stmt *q = d->sq[DATA_PEERS];
	sqlite3_bind_int64(q, 1, router);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		p->peers = data_grow(p->peers, p->npeers, &p->cappeers, 2 * sizeof(*p->peers));
		p->peers[2 * p->npeers] = xstrdup((const char *)sqlite3_column_text(q, 0));
		p->peers[2 * p->npeers + 1] = xstrdup((const char *)sqlite3_column_text(q, 1));
		p->npeers++;
	}
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

int data_load_probes(data_t *d, int64_t router, int64_t from, int64_t to, struct probepair_set *p)
{
	memset(p, 0, sizeof(*p));
	sqlite3_stmt *q = d->sq[DATA_PROBES];
	if (q == NULL || d->sq[DATA_PEERS] == NULL)
		return 0;
	data_bind_range(q, router, from, to);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		p->rows = data_grow(p->rows, p->n, &p->cap, sizeof(*p->rows));
		p->rows[p->n++] = (struct probepair_row){ .t = sqlite3_column_int64(q, 0),
			.duration_ms = sqlite3_column_int64(q, 1),
			.transmit = sqlite3_column_int(q, 2) != 0,
			.offered = data_col(q, 3),
			.delivered = data_col(q, 4),
			.busiest = data_col(q, 5) };
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE)
		return -1;
	return p->n > 0 ? data_load_peers(d, router, p) : 0;
}

int data_load_profiles(data_t *d, int64_t router, int64_t from, int64_t to, profile_t ***v, size_t *n)
{
	*v = NULL;
	*n = 0;
	sqlite3_stmt *q = d->sq[DATA_PROFILES];
	if (q == NULL)
		return 0;
	data_bind_range(q, router, from, to);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		profile_t *p = profile_new("", sqlite3_column_int64(q, 0));
		p->duration_ms = sqlite3_column_int64(q, 1);
		history_profile_rows(p, (const char *)sqlite3_column_text(q, 2));
		*v = data_grow(*v, *n, &cap, sizeof(**v));
		(*v)[(*n)++] = p;
	}
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The poll at t itself, which spans the reboot, belongs to neither window. */
void data_frame(const struct data_set *x, int64_t t, struct frame *f, double **rates, float **loads)
{
	size_t ns = 2 * x->nifs, nc = x->ncores, at = x->npolls, n = 0;
	size_t *map = xcalloc(x->npolls + 1, sizeof(*map)); /* poll -> frame row, SIZE_MAX: none */
	*f = (struct frame){ .ncores = nc, .nifs = x->nifs };
	f->names = xcalloc(x->nifs + 1, sizeof(*f->names));
	for (size_t i = 0; i < x->nifs; i++)
		f->names[i] = x->ifs[i].name;
	for (size_t k = 0; k < x->npolls; k++) {
		map[k] = x->polls[k].t == t ? SIZE_MAX : n++;
		if (x->polls[k].t > t && at == x->npolls)
			at = map[k];
	}
	f->npolls = n;
	f->split = at == x->npolls ? n : at;
	*rates = xcalloc(n * ns + 1, sizeof(double));
	*loads = xcalloc(n * nc + 1, sizeof(float));
	for (size_t i = 0; i < n * ns; i++)
		(*rates)[i] = NAN;
	for (size_t k = 0; k < x->npolls; k++)
		if (map[k] != SIZE_MAX)
			memcpy(*loads + map[k] * nc, x->loads + k * nc, nc * sizeof(float));
	for (size_t i = 0; i < x->nifs; i++)
		for (size_t j = 0; j < x->ifs[i].n; j++) {
			const struct data_row *row = &x->ifs[i].rows[j];
			if (map[row->poll] == SIZE_MAX)
				continue;
			(*rates)[map[row->poll] * ns + 2 * i] = row->tx;
			(*rates)[map[row->poll] * ns + 2 * i + 1] = row->rx;
		}
	f->rate = *rates;
	f->load = *loads;
	free(map);
}

/* ---- the version changes ---- */

static void data_event_row(const data_t *d, sqlite3_stmt *q, struct data_event *e)
{
	e->id = sqlite3_column_int64(q, 0);
	e->router = (const char *)sqlite3_column_text(q, 1);
	e->time_ms = sqlite3_column_int64(q, 2);
	e->from = (const char *)sqlite3_column_text(q, 3);
	e->to = (const char *)sqlite3_column_text(q, 4);
	e->arch = (const char *)sqlite3_column_text(q, 5);
	e->board = (const char *)sqlite3_column_text(q, 6);
	e->router_id = sqlite3_column_int64(q, 7);
	e->from_ms = e->time_ms - d->before_ms;
	if (sqlite3_column_type(q, 8) != SQLITE_NULL && sqlite3_column_int64(q, 8) > e->from_ms)
		e->from_ms = sqlite3_column_int64(q, 8);
	e->fw_from = (const char *)sqlite3_column_text(q, 10);
	e->fw_to = (const char *)sqlite3_column_text(q, 12);
	e->to_ms = e->time_ms + d->after_ms + 1;
	e->latest = sqlite3_column_type(q, 9) == SQLITE_NULL;
	if (!e->latest && sqlite3_column_int64(q, 9) < e->to_ms)
		e->to_ms = sqlite3_column_int64(q, 9);
}

int data_event_next(data_t *d, struct data_event *e, char **cause)
{
	sqlite3_stmt *q = d->sq[DATA_EVENTS];
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		data_event_row(d, q, e);
		return 1;
	}
	return rc == SQLITE_DONE ? 0 : data_fail(d, cause, "reading version history");
}

void data_events_end(data_t *d)
{
	sqlite3_reset(d->sq[DATA_EVENTS]);
}

/* ---- writing verdicts ---- */

static void data_bind_double(sqlite3_stmt *q, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

static int data_write_item(data_t *d, int64_t event, const struct detector_verdict *v, int64_t now)
{
	sqlite3_stmt *q = d->sq[DATA_UPSERT];
	sqlite3_bind_int64(q, 1, event);
	sqlite3_bind_text(q, 2, v->interface, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, v->direction, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, outcome_name(v->verdict), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, outcome_method_name(v->method), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 6, v->hint);
	data_bind_double(q, 7, v->before_bps);
	data_bind_double(q, 8, v->after_bps);
	data_bind_double(q, 9, v->ratio);
	data_bind_double(q, 10, v->before_load);
	data_bind_double(q, 11, v->after_load);
	sqlite3_bind_int64(q, 12, (int64_t)v->before_n);
	sqlite3_bind_int64(q, 13, (int64_t)v->after_n);
	sqlite3_bind_int(q, 14, v->final);
	sqlite3_bind_int64(q, 15, v->reached_ms);
	sqlite3_bind_int64(q, 16, now);
	sqlite3_bind_text(q, 17, v->cores, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 18, v->why, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 19, v->confounders ? v->confounders : "", -1, SQLITE_STATIC);
	data_bind_double(q, 20, v->ratio_rse);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int data_write_history(data_t *d, int64_t event, const struct detector_verdict *v)
{
	sqlite3_stmt *q = d->sq[DATA_HISTORY];
	sqlite3_bind_int64(q, 1, event);
	sqlite3_bind_text(q, 2, v->interface, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, v->direction, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, v->reached_ms);
	sqlite3_bind_text(q, 5, outcome_name(v->verdict), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, outcome_method_name(v->method), -1, SQLITE_STATIC);
	data_bind_double(q, 7, v->ratio);
	sqlite3_bind_int64(q, 8, (int64_t)v->after_n);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

int data_write_begin(data_t *d, char **cause)
{
	if (shmguard_lost()) { /* writing with a lost index could damage the database */
		*cause = xasprintf("not writing verdicts: the database's wal-index (-shm) broke");
		return -1;
	}
	if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return data_fail(d, cause, "writing verdicts");
	return 0;
}

int data_write(
	data_t *d, int64_t event, const struct detector_verdict *v, bool history, int64_t now, char **cause)
{
	if (data_write_item(d, event, v, now) == 0 && (!history || data_write_history(d, event, v) == 0))
		return 0;
	data_fail(d, cause, "writing verdicts");
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int data_write_commit(data_t *d, char **cause)
{
	if (sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	data_fail(d, cause, "writing verdicts");
	sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* ---- reading verdicts back ---- */

static void data_stored_row(sqlite3_stmt *q, struct detector_verdict *v)
{
	v->verdict = outcome_of((const char *)sqlite3_column_text(q, 3));
	v->method = outcome_method_of((const char *)sqlite3_column_text(q, 4));
	v->hint = sqlite3_column_int(q, 5);
	v->before_bps = data_col(q, 6);
	v->after_bps = data_col(q, 7);
	v->ratio = data_col(q, 8);
	v->before_load = data_col(q, 9);
	v->after_load = data_col(q, 10);
	v->before_n = (size_t)sqlite3_column_int64(q, 11);
	v->after_n = (size_t)sqlite3_column_int64(q, 12);
	v->final = sqlite3_column_int(q, 13);
	v->reached_ms = sqlite3_column_int64(q, 14);
	snprintf(v->cores, sizeof(v->cores), "%s", (const char *)sqlite3_column_text(q, 15));
	snprintf(v->why, sizeof(v->why), "%s", (const char *)sqlite3_column_text(q, 16));
	free(v->confounders);
	v->confounders = xstrdup((const char *)sqlite3_column_text(q, 17));
	v->ratio_rse = data_col(q, 18);
}

void data_stored_free(struct detector_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].interface);
		free(v[i].confounders);
	}
	free(v);
}

int data_load_stored(data_t *d, struct detector_verdict **out, size_t *n, char **cause)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(d->db,
		    "SELECT event_id, interface, direction, verdict, method, hint,"
		    " before_bps, after_bps, ratio, before_load, after_load, before_n,"
		    " after_n, final, reached_ms, cores, why, confounders, ratio_rse FROM verdicts",
		    -1, &q, NULL) != SQLITE_OK)
		return data_fail(d, cause, "reading verdicts");
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		*out = data_grow(*out, *n, &cap, sizeof(**out));
		struct detector_verdict *v = &(*out)[(*n)++];
		memset(v, 0, sizeof(*v));
		v->upgrade_id = sqlite3_column_int64(q, 0);
		v->interface = xstrdup((const char *)sqlite3_column_text(q, 1));
		v->direction = strcmp((const char *)sqlite3_column_text(q, 2), "tx") == 0 ? "tx" : "rx";
		data_stored_row(q, v);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : data_fail(d, cause, "reading verdicts");
}

/* ---- single-core bound ---- */

static int data_recent_cmp(const void *a, const void *b)
{
	const struct data_recent *x = a, *y = b;
	return (x->router > y->router) - (x->router < y->router);
}

/* The kept entry of router out of d->recent (a new one when none); what stays behind is an
 * empty husk with the same id, so that d->recent stays sorted. */
static struct data_recent data_recent_take(data_t *d, int64_t router)
{
	struct data_recent key = { .router = router }, *r = NULL;
	if (d->nrecent > 0)
		r = bsearch(&key, d->recent, d->nrecent, sizeof(*r), data_recent_cmp);
	if (r == NULL)
		return (struct data_recent){ .router = router, .next_ms = INT64_MIN };
	struct data_recent got = *r;
	r->polls = NULL;
	r->n = r->cap = 0;
	return got;
}

/* Bring r to the polls in [from, last]: forget what left the window (from moves past a version
 * change at once), read what came since. A router's polls are stored in time order, so none
 * older than its last poll comes later; but if the wall clock went back, all is read again. */
static int data_recent_update(data_t *d, struct data_recent *r, int64_t from, int64_t last)
{
	if (r->next_ms != INT64_MIN && last < r->next_ms - 1) {
		r->n = 0;
		r->next_ms = INT64_MIN;
	}
	size_t keep = 0;
	while (keep < r->n && r->polls[keep].t < from)
		keep++;
	if (keep > 0) {
		memmove(r->polls, r->polls + keep, (r->n - keep) * sizeof(*r->polls));
		r->n -= keep;
	}
	struct data_set x;
	int rc = data_load(d, r->router, r->next_ms > from ? r->next_ms : from, last + 1, &x, NULL);
	size_t add = rc == 0 ? x.npolls : 0;
	if (r->n + add != r->cap) { /* kept till the next round, for every router: no spare room */
		r->cap = r->n + add;
		if (r->cap == 0) {
			free(r->polls);
			r->polls = NULL;
		} else {
			r->polls = xreallocarray(r->polls, r->cap, sizeof(*r->polls));
		}
	}
	if (add > 0)
		memcpy(r->polls + r->n, x.polls, add * sizeof(*r->polls));
	r->n += add;
	data_set_free(&x);
	if (rc == 0)
		r->next_ms = last + 1;
	return rc;
}

/* Every router's newest DATA_BOUND_WINDOW_MS of polls (by its own last poll, so that --report
 * on a stopped daemon's database still tells), since its last version change. */
int data_recent(data_t *d, const struct data_router **out, size_t *nout, char **cause)
{
	data_routers_free(d);
	sqlite3_stmt *q = d->sq[DATA_ROUTERS];
	struct data_recent *now = NULL;
	size_t nnow = 0, cap = 0, rcap = 0;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t last = sqlite3_column_int64(q, 2), from = last - DATA_BOUND_WINDOW_MS;
		if (sqlite3_column_type(q, 3) != SQLITE_NULL && sqlite3_column_int64(q, 3) >= from)
			from = sqlite3_column_int64(q, 3) + 1;
		now = data_grow(now, nnow, &cap, sizeof(*now));
		struct data_recent *r = &now[nnow++];
		*r = data_recent_take(d, sqlite3_column_int64(q, 0));
		if (data_recent_update(d, r, from, last) < 0) {
			rc = SQLITE_ERROR;
			break;
		}
		if (r->n > 0) {
			d->routers = data_grow(d->routers, d->nrouters, &rcap, sizeof(*d->routers));
			d->routers[d->nrouters++] = (struct data_router){
				.name = xstrdup((const char *)sqlite3_column_text(q, 1)),
				.polls = r->polls,
				.n = r->n
			};
		}
	}
	sqlite3_reset(q);
	data_recent_free(d); /* the routers gone since the last round, and the husks of the taken */
	if (nnow > 0)
		qsort(now, nnow, sizeof(*now), data_recent_cmp);
	d->recent = now; /* the polls the routers point at move with their entries, not their arrays */
	d->nrecent = nnow;
	*out = d->routers;
	*nout = d->nrouters;
	return rc == SQLITE_DONE ? 0 : data_fail(d, cause, "reading CPU samples");
}

int data_router_kind(data_t *d, const char *name, char **arch, char **board, char **cause)
{
	sqlite3_stmt *q = NULL;
	*arch = *board = NULL;
	if (sqlite3_prepare_v2(d->db, "SELECT architecture, board FROM routers WHERE name = ?1", -1, &q,
		    NULL) != SQLITE_OK)
		return data_fail(d, cause, "reading the router");
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		const char *a = (const char *)sqlite3_column_text(q, 0);
		const char *b = (const char *)sqlite3_column_text(q, 1);
		*arch = a ? xstrdup(a) : NULL;
		*board = b ? xstrdup(b) : NULL;
	}
	int ret = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : data_fail(d, cause, "reading the router");
	sqlite3_finalize(q);
	return ret;
}

int data_fleet_id(data_t *d, char out[33], char **cause)
{
	sqlite3_stmt *q = NULL;
	out[0] = '\0';
	if (sqlite3_prepare_v2(d->db, "SELECT id FROM evidence_fleet LIMIT 1", -1, &q, NULL) != SQLITE_OK)
		return data_fail(d, cause, "reading the fleet's evidence id");
	int rc = sqlite3_step(q);
	const char *id = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(q, 0) : NULL;
	if (id && strlen(id) == 32)
		memcpy(out, id, 33);
	int ret = out[0] ? 0
		: rc == SQLITE_ROW || rc == SQLITE_DONE
		? -1
		: data_fail(d, cause, "reading the fleet's evidence id");
	if (ret < 0 && *cause == NULL)
		*cause = xstrdup("the database holds no fleet evidence id (migration 014)");
	sqlite3_finalize(q);
	return ret;
}

/* ---- capacity ---- */

void data_routers_list_free(struct data_rid *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int data_routers_list(data_t *d, struct data_rid **out, size_t *nout, char **cause)
{
	sqlite3_stmt *q = d->sq[DATA_ROUTERS];
	size_t n = 0, cap = 0;
	struct data_rid *v = NULL;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		v = data_grow(v, n, &cap, sizeof(*v));
		v[n++] = (struct data_rid){ .id = sqlite3_column_int64(q, 0),
			.name = xstrdup((const char *)sqlite3_column_text(q, 1)),
			.last_ms = sqlite3_column_int64(q, 2),
			.changed_ms = sqlite3_column_type(q, 3) == SQLITE_NULL ? INT64_MIN
									       : sqlite3_column_int64(q, 3) };
	}
	sqlite3_reset(q);
	*out = v;
	*nout = n;
	return rc == SQLITE_DONE ? 0 : data_fail(d, cause, "reading routers");
}

void data_demand_free(struct data_demand *x)
{
	for (size_t i = 0; i < x->n; i++) {
		free(x->s[i].name);
		free(x->s[i].t);
		free(x->s[i].tx);
		free(x->s[i].rx);
	}
	free(x->s);
	memset(x, 0, sizeof(*x));
}

/* The series of interface name in x, a new one when it is not the last. */
static struct data_series *data_series_of(struct data_demand *x, const char *name)
{
	if (x->n > 0 && strcmp(x->s[x->n - 1].name, name) == 0)
		return &x->s[x->n - 1];
	x->s = data_grow(x->s, x->n, &x->cap, sizeof(*x->s));
	x->s[x->n] = (struct data_series){ .name = xstrdup(name) };
	return &x->s[x->n++];
}

/* The series of interface name in x, wherever it is; a new one when none. */
static struct data_series *data_series_find(struct data_demand *x, const char *name)
{
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->s[i].name, name) == 0)
			return &x->s[i];
	return data_series_of(x, name);
}

static void data_series_add(struct data_series *s, int64_t t, double tx, double rx)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->t = xreallocarray(s->t, s->cap, sizeof(*s->t));
		s->tx = xreallocarray(s->tx, s->cap, sizeof(*s->tx));
		s->rx = xreallocarray(s->rx, s->cap, sizeof(*s->rx));
	}
	s->t[s->n] = t;
	s->tx[s->n] = tx;
	s->rx[s->n++] = rx;
}

/* How far the roll-ups have got (store_state's rollup_ms); 0 when not known. */
static int64_t data_rolled(data_t *d)
{
	sqlite3_stmt *q = d->sq[DATA_ROLLED];
	int64_t v = sqlite3_step(q) == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0;
	sqlite3_reset(q);
	return v;
}

#define DATA_BUCKET_MS 300000 /* the roll-ups' 5 minutes */

/* Interface f's raw polls of x averaged into 5-minute buckets, as the roll-up will. */
static void data_bucket_raw(const struct data_set *x, const struct data_iface *f, struct data_series *s)
{
	double tx = 0, rx = 0;
	size_t n = 0;
	int64_t at = INT64_MIN;
	for (size_t k = 0; k <= f->n; k++) {
		int64_t b = k < f->n ? x->polls[f->rows[k].poll].t / DATA_BUCKET_MS * DATA_BUCKET_MS
				     : INT64_MAX;
		if (b != at && n > 0)
			data_series_add(s, at, tx / (double)n, rx / (double)n);
		if (b != at)
			tx = rx = 0, n = 0, at = b;
		if (k < f->n && isfinite(f->rows[k].tx) && isfinite(f->rows[k].rx))
			tx += f->rows[k].tx, rx += f->rows[k].rx, n++;
	}
}

/* The raw polls after the roll-ups' mark, bucketed, after each interface's roll-ups. */
static int data_demand_raw(data_t *d, int64_t router, int64_t from, int64_t to, struct data_demand *dm)
{
	struct data_set x;
	int rc = data_load(d, router, from, to, &x, NULL);
	for (size_t i = 0; rc == 0 && i < x.nifs; i++)
		data_bucket_raw(&x, &x.ifs[i], data_series_find(dm, x.ifs[i].name));
	data_set_free(&x);
	return rc;
}

int data_load_demand(data_t *d, int64_t router, int64_t from, int64_t to, struct data_demand *x)
{
	sqlite3_stmt *q = d->sq[DATA_DEMAND];
	int64_t rolled = data_rolled(d);
	int rc;
	memset(x, 0, sizeof(*x));
	data_bind_range(q, router, from, rolled < to ? rolled : to);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		data_series_add(data_series_of(x, (const char *)sqlite3_column_text(q, 0)),
			sqlite3_column_int64(q, 1), 8 * data_col(q, 2), 8 * data_col(q, 3)); /* bytes/s */
	sqlite3_reset(q);
	if (rc != SQLITE_DONE)
		return -1;
	return rolled < to ? data_demand_raw(d, router, rolled > from ? rolled : from, to, x) : 0;
}
