/* detector: judges each RouterOS version change per WireGuard interface and direction on
 * CAPACITY, not demand (docs/detector.md), flags routers bound by one core, groups verdicts
 * into cohorts, and publishes the results as reference-counted views for the web threads.
 * It runs in its own thread on its own SQLite connection: it must never run on the event loop,
 * never write a sample, and never guess (too little data is insufficient-data). */
#include "config.h"
#include "detector/detector.h"
#include "lib/log.h"
#include "store/store.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DET_MATCH_TOL       0.10 /* cpu-cost: widening of the rate band both windows share */
#define DET_PEAK_SHARE      0.10 /* peak: the busiest tenth of a window's samples */
#define DET_BOUND_BUSIEST   0.95 /* single-core bound: busiest core at least this ... */
#define DET_BOUND_OTHERS    0.50 /* ... while the other cores average less than this ... */
#define DET_BOUND_SHARE     0.80 /* ... in this share of the recent polls */
#define DET_BOUND_MIN       3    /* polls needed to say anything */
#define DET_BOUND_WINDOW_MS (10 * 60 * 1000LL)
#define DET_BUSY_MS         5000

/* ---- statistics ---- */

static int det_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Quantile q (0..1, linear interpolation) of v, which it sorts; NAN when n is 0. */
static double det_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), det_cmp_double);
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

/* ---- the verdict engine: pure functions of two windows of samples ---- */

struct det_point {
	double load;  /* busiest core, 0..1, at the poll */
	double rate;  /* this interface and direction, bits/s over the poll interval */
	double total; /* the router's WireGuard traffic, all interfaces, both directions */
};

struct det_win {
	const struct det_point *p;
	size_t n;
};

struct det_params {
	size_t min_samples;
	double threshold, saturated, min_bps;
};

struct det_result {
	enum detector_outcome verdict;
	enum detector_method method;
	bool hint;
	double before_bps, after_bps, ratio, before_load, after_load;
	size_t before_n, after_n;
};

enum det_field { F_LOAD, F_RATE, F_TOTAL, F_COST, F_PROJ };

static double det_get(const struct det_point *p, enum det_field f)
{
	switch (f) {
	case F_LOAD: return p->load;
	case F_RATE: return p->rate;
	case F_TOTAL: return p->total;
	case F_COST: return p->load / p->total; /* busiest-core load per bit/s */
	default: return p->rate / p->load;      /* bits/s the core would carry at 100% */
	}
}

/* Which samples a statistic looks at; all when lo = -INF, hi = INF, sat = INF. */
struct det_keep {
	double load_min, load_max; /* load_min <= load < load_max */
	double lo, hi;             /* lo <= total <= hi */
};

#define DET_ALL ((struct det_keep){ -INFINITY, INFINITY, -INFINITY, INFINITY })

static bool det_kept(const struct det_point *p, const struct det_keep *k)
{
	return p->load >= k->load_min && p->load < k->load_max && p->total >= k->lo && p->total <= k->hi;
}

/* Field f of the kept samples, finite only (caller frees); *n of them. */
static double *det_collect(const struct det_win *w, enum det_field f, const struct det_keep *k, size_t *n)
{
	double *v = xcalloc(w->n ? w->n : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < w->n; i++) {
		double x = det_get(&w->p[i], f);
		if (det_kept(&w->p[i], k) && isfinite(x))
			v[(*n)++] = x;
	}
	return v;
}

static double det_stat(
	const struct det_win *w, enum det_field f, const struct det_keep *k, double q, size_t *count)
{
	size_t n;
	double *v = det_collect(w, f, k, &n);
	double r = det_quantile(v, n, q);
	free(v);
	if (count)
		*count = n;
	return r;
}

/* Where the busiest core is saturated in both windows, the throughput reached meanwhile is
 * the capacity. A fall (or rise) must show in the router's total too, else it is demand that
 * moved between directions or interfaces on a core that stayed full. */
static bool det_saturation(
	const struct det_win *b, const struct det_win *a, const struct det_params *p, struct det_result *r)
{
	struct det_keep sat = { p->saturated, INFINITY, -INFINITY, INFINITY };
	size_t nb, na;
	double cb = det_stat(b, F_RATE, &sat, 0.5, &nb), ca = det_stat(a, F_RATE, &sat, 0.5, &na);
	if (nb < p->min_samples || na < p->min_samples || !(cb >= p->min_bps))
		return false;
	double rt = det_stat(a, F_TOTAL, &sat, 0.5, NULL) / det_stat(b, F_TOTAL, &sat, 0.5, NULL);
	r->method = DETECTOR_M_SATURATION;
	r->before_bps = cb;
	r->after_bps = ca;
	r->ratio = ca / cb;
	r->before_load = det_stat(b, F_LOAD, &sat, 0.5, NULL);
	r->after_load = det_stat(a, F_LOAD, &sat, 0.5, NULL);
	double lo = 1 - p->threshold, hi = 1 + p->threshold;
	if (r->ratio < lo && rt < lo)
		r->verdict = DETECTOR_REGRESSION;
	else if (r->ratio > hi && rt > hi)
		r->verdict = DETECTOR_IMPROVEMENT;
	else
		r->verdict = DETECTOR_UNCHANGED;
	return true;
}

/* The band of router traffic that both windows cover (10th to 90th percentile of each,
 * intersected, widened by DET_MATCH_TOL), over unsaturated samples with traffic. */
static bool det_band(const struct det_win *b, const struct det_win *a, const struct det_params *p,
	size_t need, struct det_keep *band)
{
	struct det_keep unsat = { 0, p->saturated, p->min_bps, INFINITY };
	size_t nb, na;
	double *tb = det_collect(b, F_TOTAL, &unsat, &nb), *ta = det_collect(a, F_TOTAL, &unsat, &na);
	double lo = fmax(det_quantile(tb, nb, 0.1), det_quantile(ta, na, 0.1));
	double hi = fmin(det_quantile(tb, nb, 0.9), det_quantile(ta, na, 0.9));
	free(tb);
	free(ta);
	*band = unsat;
	band->load_min = 1e-9;
	band->lo = fmax(lo * (1 - DET_MATCH_TOL), p->min_bps);
	band->hi = hi * (1 + DET_MATCH_TOL);
	return nb >= need && na >= need && band->lo <= band->hi;
}

/* Unsaturated: the busiest core's load per bit/s of router traffic, compared only at rates
 * both windows saw (so idle load, which weighs more at low rates, cancels out). */
static bool det_cost(
	const struct det_win *b, const struct det_win *a, const struct det_params *p, struct det_result *r)
{
	size_t need = p->min_samples / 2 > 3 ? p->min_samples / 2 : 3;
	struct det_keep band;
	if (!det_band(b, a, p, need, &band))
		return false;
	size_t nb, na;
	double kb = det_stat(b, F_COST, &band, 0.5, &nb), ka = det_stat(a, F_COST, &band, 0.5, &na);
	if (nb < need || na < need || !(kb > 0) || !(ka > 0))
		return false;
	r->method = DETECTOR_M_COST;
	r->ratio = kb / ka;
	r->before_bps = det_stat(b, F_RATE, &band, 0.5, NULL);
	r->after_bps = det_stat(a, F_RATE, &band, 0.5, NULL);
	r->before_load = det_stat(b, F_LOAD, &band, 0.5, NULL);
	r->after_load = det_stat(a, F_LOAD, &band, 0.5, NULL);
	if (ka / kb > 1 + p->threshold)
		r->verdict = DETECTOR_REGRESSION;
	else if (r->ratio > 1 + p->threshold)
		r->verdict = DETECTOR_IMPROVEMENT;
	else
		r->verdict = DETECTOR_UNCHANGED;
	return true;
}

/* Capacity projected from the busiest tenth of the window: rate / load, i.e. what the core
 * would carry at 100%. A lower bound where idle load exists, hence low confidence. */
static double det_peak_est(const struct det_win *w, double *load)
{
	struct det_keep k = DET_ALL;
	k.load_min = 1e-9;
	k.load_min = fmax(det_stat(w, F_LOAD, &k, 1 - DET_PEAK_SHARE, NULL), 1e-9);
	*load = det_stat(w, F_LOAD, &k, 0.5, NULL);
	return det_stat(w, F_PROJ, &k, 0.5, NULL);
}

/* Neither method applies (one window saturated, or rates not comparable): never a regression;
 * a projected fall beyond the threshold is only a hint. */
static void det_peak(
	const struct det_win *b, const struct det_win *a, const struct det_params *p, struct det_result *r)
{
	double eb = det_peak_est(b, &r->before_load), ea = det_peak_est(a, &r->after_load);
	if (!(eb > 0) || !isfinite(ea))
		return;
	r->method = DETECTOR_M_PEAK;
	r->verdict = DETECTOR_UNCHANGED;
	r->before_bps = eb;
	r->after_bps = ea;
	r->ratio = ea / eb;
	r->hint = r->ratio < 1 - p->threshold;
}

static void det_judge(
	const struct det_win *b, const struct det_win *a, const struct det_params *p, struct det_result *r)
{
	*r = (struct det_result){ .verdict = DETECTOR_INSUFFICIENT,
		.method = DETECTOR_M_NONE,
		.before_bps = NAN,
		.after_bps = NAN,
		.ratio = NAN,
		.before_load = NAN,
		.after_load = NAN,
		.before_n = b->n,
		.after_n = a->n };
	struct det_keep all = DET_ALL;
	r->before_bps = det_stat(b, F_RATE, &all, 0.5, NULL);
	r->after_bps = det_stat(a, F_RATE, &all, 0.5, NULL);
	if (b->n < p->min_samples || a->n < p->min_samples || !(r->before_bps >= p->min_bps))
		return;
	if (!(r->after_bps >= p->min_bps)) {
		r->hint = true; /* the traffic stopped: not a capacity figure, but worth a look */
		return;
	}
	double mb = r->before_bps, ma = r->after_bps;
	if (det_saturation(b, a, p, r) || det_cost(b, a, p, r))
		return;
	r->before_bps = mb;
	r->after_bps = ma;
	det_peak(b, a, p, r);
}

/* ---- names ---- */

static const char *const det_verdict_names[] = {
	[DETECTOR_INSUFFICIENT] = "insufficient-data",
	[DETECTOR_UNCHANGED] = "unchanged",
	[DETECTOR_IMPROVEMENT] = "improvement",
	[DETECTOR_REGRESSION] = "regression",
};

static const char *const det_method_names[] = {
	[DETECTOR_M_NONE] = "none",
	[DETECTOR_M_SATURATION] = "saturation-ceiling",
	[DETECTOR_M_COST] = "cpu-cost",
	[DETECTOR_M_PEAK] = "peak",
};

const char *detector_verdict_name(enum detector_outcome v)
{
	return (unsigned)v < 4 ? det_verdict_names[v] : "?";
}

const char *detector_method_name(enum detector_method m)
{
	return (unsigned)m < 4 ? det_method_names[m] : "?";
}

static int det_name_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return 0;
}

/* ---- the detector's state ---- */

struct det_item { /* a verdict as the detector keeps it */
	int64_t event_id;
	struct detector_verdict v;
	bool dirty, changed; /* to write; verdict or method changed (history row) */
};

enum det_sq { DQ_EVENTS, DQ_CPU, DQ_IFACES, DQ_ROUTERS, DQ_UPSERT, DQ_HISTORY, DQ_COUNT };

static const char *const det_sql[DQ_COUNT] = {
	[DQ_EVENTS] = "SELECT h.id, r.name, h.time_ms, h.old_version, h.new_version,"
		      " coalesce(h.architecture, r.architecture), r.board, h.router_id,"
		      " (SELECT max(p.time_ms) FROM version_history p WHERE p.router_id = h.router_id"
		      "  AND p.kind IN ('upgrade', 'downgrade') AND p.time_ms < h.time_ms),"
		      " (SELECT min(n.time_ms) FROM version_history n WHERE n.router_id = h.router_id"
		      "  AND n.kind IN ('upgrade', 'downgrade') AND n.time_ms > h.time_ms)"
		      " FROM version_history h JOIN routers r ON r.id = h.router_id"
		      " WHERE h.kind IN ('upgrade', 'downgrade') ORDER BY h.id",
	[DQ_CPU] = "SELECT time_ms, max(load) / 1000.0,"
		   " CASE WHEN count(*) > 1 THEN (sum(load) - max(load)) / 1000.0 / (count(*) - 1) END"
		   " FROM cpu_samples WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3"
		   " GROUP BY time_ms ORDER BY time_ms",
	[DQ_IFACES] = "SELECT i.name, s.time_ms, s.tx_delta * 8000.0 / s.dt_ms,"
		      " s.rx_delta * 8000.0 / s.dt_ms"
		      " FROM interfaces i JOIN iface_samples s ON s.iface_id = i.id AND s.router_id = ?1"
		      " WHERE i.router_id = ?1 AND i.type = 'wg' AND s.time_ms >= ?2 AND s.time_ms < ?3"
		      " AND s.dt_ms > 0 AND s.reset = 0 ORDER BY i.name, s.time_ms",
	[DQ_ROUTERS] = "SELECT r.id, r.name, r.last_poll_ms, (SELECT max(h.time_ms) FROM version_history h"
		       "  WHERE h.router_id = r.id AND h.kind IN ('upgrade', 'downgrade'))"
		       " FROM routers r WHERE r.last_poll_ms IS NOT NULL ORDER BY r.name",
	[DQ_UPSERT] = "INSERT OR REPLACE INTO verdicts VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		      " ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	[DQ_HISTORY] = "INSERT OR REPLACE INTO verdict_history VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
};

struct detector {
	struct det_params params;
	int64_t before_ms, after_ms, every_ms, grace_ms;
	bool readonly; /* --report: never write */
	sqlite3 *db;
	sqlite3_stmt *sq[DQ_COUNT];
	struct det_item *items; /* sorted by event, interface, direction */
	size_t nitems, capitems;
	int64_t *done; /* events judged final, ascending */
	size_t ndone;
	struct detector_bound *bounds; /* of the newest round, by router name */
	size_t nbounds;
	char *error; /* the failure logged last, NULL while all is well */

	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	atomic_bool stopping;
};

struct det_event {
	int64_t id, router_id, time_ms;
	int64_t from_ms, to_ms; /* the before window's start and the after window's end */
	const char *router, *from, *to, *arch, *board; /* into the statement's row */
	bool latest;
};

static int det_fail(detector_t *d, char **cause, const char *what)
{
	*cause = xasprintf("%s: %s", what, sqlite3_errmsg(d->db));
	return -1;
}

/* ---- verdicts kept in memory ---- */

static int det_item_cmp(int64_t ev, const char *ifc, const char *dir, const struct det_item *it)
{
	if (ev != it->event_id)
		return ev < it->event_id ? -1 : 1;
	int c = strcmp(ifc, it->v.interface);
	return c ? c : strcmp(dir, it->v.direction);
}

/* Index of the first item not below (ev, ifc, dir). */
static size_t det_item_pos(const detector_t *d, int64_t ev, const char *ifc, const char *dir)
{
	size_t lo = 0, hi = d->nitems;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (det_item_cmp(ev, ifc, dir, &d->items[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct det_item *det_item_get(
	detector_t *d, int64_t ev, const char *ifc, const char *dir, bool *created)
{
	size_t lo = det_item_pos(d, ev, ifc, dir);
	*created = lo == d->nitems || det_item_cmp(ev, ifc, dir, &d->items[lo]) != 0;
	if (!*created)
		return &d->items[lo];
	if (d->nitems == d->capitems) {
		d->capitems = d->capitems ? 2 * d->capitems : 64;
		d->items = xreallocarray(d->items, d->capitems, sizeof(*d->items));
	}
	memmove(&d->items[lo + 1], &d->items[lo], (d->nitems - lo) * sizeof(*d->items));
	d->nitems++;
	struct det_item *it = &d->items[lo];
	memset(it, 0, sizeof(*it));
	it->event_id = ev;
	it->v.interface = xstrdup(ifc);
	it->v.direction = strcmp(dir, "tx") == 0 ? "tx" : "rx";
	return it;
}

static void det_verdict_free(struct detector_verdict *v)
{
	free(v->router);
	free(v->interface);
	free(v->from_version);
	free(v->to_version);
	free(v->architecture);
	free(v->board);
}

static void det_set(char **dst, const char *src)
{
	if (*dst != NULL && src != NULL && strcmp(*dst, src) == 0)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

/* Names and flags of the event onto every item of it. */
static void det_items_mark(detector_t *d, const struct det_event *e)
{
	size_t i = det_item_pos(d, e->id, "", "");
	for (; i < d->nitems && d->items[i].event_id == e->id; i++) {
		struct detector_verdict *v = &d->items[i].v;
		det_set(&v->router, e->router);
		det_set(&v->from_version, e->from);
		det_set(&v->to_version, e->to);
		det_set(&v->architecture, e->arch);
		det_set(&v->board, e->board);
		v->upgraded_ms = e->time_ms;
		v->latest = e->latest;
	}
}

static bool det_is_done(const detector_t *d, int64_t ev)
{
	size_t lo = 0, hi = d->ndone;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->done[mid] == ev)
			return true;
		if (d->done[mid] < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static void det_mark_done(detector_t *d, int64_t ev)
{
	if (det_is_done(d, ev))
		return;
	d->done = xreallocarray(d->done, d->ndone + 1, sizeof(*d->done));
	size_t i = d->ndone;
	while (i > 0 && d->done[i - 1] > ev) {
		d->done[i] = d->done[i - 1];
		i--;
	}
	d->done[i] = ev;
	d->ndone++;
}

/* The names come from the event: a new item's own strings are filled in later. */
static void det_log_change(const struct det_event *e, const struct det_item *it)
{
	const struct detector_verdict *v = &it->v;
	log_info("detector: router %s %s %s %s -> %s: %s (%s, ratio %.2f%s)", e->router ? e->router : "?",
		v->interface, v->direction, e->from ? e->from : "?", e->to ? e->to : "?",
		detector_verdict_name(v->verdict), detector_method_name(v->method), v->ratio,
		v->hint ? ", hint" : "");
}

static void det_record(detector_t *d, const struct det_event *e, const char *ifc, const char *dir,
	const struct det_result *r, bool final, int64_t now)
{
	bool created;
	struct det_item *it = det_item_get(d, e->id, ifc, dir, &created);
	struct detector_verdict *v = &it->v;
	bool changed = created || v->verdict != r->verdict || v->method != r->method;
	bool was_final = v->final;
	v->verdict = r->verdict;
	v->method = r->method;
	v->hint = r->hint;
	v->before_bps = r->before_bps;
	v->after_bps = r->after_bps;
	v->ratio = r->ratio;
	v->before_load = r->before_load;
	v->after_load = r->after_load;
	v->before_n = r->before_n;
	v->after_n = r->after_n;
	v->final = final;
	if (changed)
		v->reached_ms = now;
	it->dirty = true;
	it->changed |= changed;
	/* once per verdict reached; insufficient-data only when it is final */
	if ((changed && r->verdict != DETECTOR_INSUFFICIENT) ||
		(final && !was_final && r->verdict == DETECTOR_INSUFFICIENT))
		det_log_change(e, it);
}

/* ---- reading the samples of one router ---- */

struct det_poll { /* one poll of the router */
	int64_t t;
	double busiest, others; /* busiest-core load and mean of the other cores; NAN */
	double tx, rx;          /* WireGuard bits/s, summed over the interfaces seen */
	size_t nrows;           /* interface samples seen at this poll */
};

struct det_row {
	size_t poll;
	double tx, rx;
};

struct det_iface {
	char *name;
	struct det_row *rows; /* ascending time */
	size_t n, cap;
};

struct det_data {
	struct det_poll *polls; /* ascending time */
	size_t npolls, cappolls;
	struct det_iface *ifs; /* by name */
	size_t nifs, capifs;
};

static void *det_grow(void *p, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 32;
	return xreallocarray(p, *cap, size);
}

static void det_data_free(struct det_data *x)
{
	for (size_t i = 0; i < x->nifs; i++) {
		free(x->ifs[i].name);
		free(x->ifs[i].rows);
	}
	free(x->ifs);
	free(x->polls);
	memset(x, 0, sizeof(*x));
}

static double det_col(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN : sqlite3_column_double(q, i);
}

static void det_bind_range(sqlite3_stmt *q, int64_t router, int64_t from, int64_t to)
{
	sqlite3_bind_int64(q, 1, router);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
}

static int det_load_cpu(detector_t *d, int64_t router, int64_t from, int64_t to, struct det_data *x)
{
	sqlite3_stmt *q = d->sq[DQ_CPU];
	det_bind_range(q, router, from, to);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		x->polls = det_grow(x->polls, x->npolls, &x->cappolls, sizeof(*x->polls));
		x->polls[x->npolls++] = (struct det_poll){
			.t = sqlite3_column_int64(q, 0), .busiest = det_col(q, 1), .others = det_col(q, 2)
		};
	}
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

static size_t det_poll_find(const struct det_data *x, int64_t t)
{
	size_t lo = 0, hi = x->npolls;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->polls[mid].t == t)
			return mid;
		if (x->polls[mid].t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

static void det_add_row(struct det_data *x, const char *name, size_t poll, double tx, double rx)
{
	if (x->nifs == 0 || strcmp(x->ifs[x->nifs - 1].name, name) != 0) {
		x->ifs = det_grow(x->ifs, x->nifs, &x->capifs, sizeof(*x->ifs));
		x->ifs[x->nifs++] = (struct det_iface){ .name = xstrdup(name) };
	}
	struct det_iface *f = &x->ifs[x->nifs - 1];
	f->rows = det_grow(f->rows, f->n, &f->cap, sizeof(*f->rows));
	f->rows[f->n++] = (struct det_row){ poll, tx, rx };
	x->polls[poll].tx += tx;
	x->polls[poll].rx += rx;
	x->polls[poll].nrows++;
}

/* Interface samples with a delta, not across a reset, at polls that have CPU data too. */
static int det_load_ifaces(detector_t *d, int64_t router, int64_t from, int64_t to, struct det_data *x)
{
	sqlite3_stmt *q = d->sq[DQ_IFACES];
	det_bind_range(q, router, from, to);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		size_t poll = det_poll_find(x, sqlite3_column_int64(q, 1));
		double tx = det_col(q, 2), rx = det_col(q, 3);
		if (poll != SIZE_MAX && isfinite(tx) && isfinite(rx))
			det_add_row(x, (const char *)sqlite3_column_text(q, 0), poll, tx, rx);
	}
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int det_load(detector_t *d, int64_t router, int64_t from, int64_t to, struct det_data *x)
{
	memset(x, 0, sizeof(*x));
	if (det_load_cpu(d, router, from, to, x) < 0 || det_load_ifaces(d, router, from, to, x) < 0)
		return -1;
	return 0;
}

/* Split one interface's samples into the windows before and after time t (the poll at t itself,
 * which spans the reboot, belongs to neither). pts holds f->n points. */
static void det_windows(const struct det_data *x, const struct det_iface *f, bool tx, int64_t t,
	struct det_point *pts, struct det_win *b, struct det_win *a)
{
	size_t n = 0, nb = 0;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < f->n; i++) {
			const struct det_poll *p = &x->polls[f->rows[i].poll];
			if (pass == 0 ? p->t >= t : p->t <= t)
				continue;
			pts[n++] = (struct det_point){ .load = p->busiest,
				.rate = tx ? f->rows[i].tx : f->rows[i].rx,
				.total = p->tx + p->rx };
		}
		if (pass == 0)
			nb = n;
	}
	*b = (struct det_win){ pts, nb };
	*a = (struct det_win){ pts + nb, n - nb };
}

/* ---- one round: every version change not judged final yet ---- */

static void det_event_row(const detector_t *d, sqlite3_stmt *q, struct det_event *e)
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
	e->to_ms = e->time_ms + d->after_ms + 1;
	e->latest = sqlite3_column_type(q, 9) == SQLITE_NULL;
	if (!e->latest && sqlite3_column_int64(q, 9) < e->to_ms)
		e->to_ms = sqlite3_column_int64(q, 9);
}

static int det_eval(detector_t *d, const struct det_event *e, int64_t now, char **cause)
{
	struct det_data x;
	if (det_load(d, e->router_id, e->from_ms, e->to_ms, &x) < 0) {
		det_data_free(&x);
		return det_fail(d, cause, "reading samples");
	}
	bool final = now >= e->to_ms + d->grace_ms;
	for (size_t i = 0; i < x.nifs; i++) {
		const struct det_iface *f = &x.ifs[i];
		struct det_point *pts = xcalloc(f->n ? f->n : 1, sizeof(*pts));
		for (int k = 0; k < 2; k++) {
			struct det_win b, a;
			struct det_result r;
			det_windows(&x, f, k == 0, e->time_ms, pts, &b, &a);
			det_judge(&b, &a, &d->params, &r);
			det_record(d, e, f->name, k == 0 ? "tx" : "rx", &r, final, now);
		}
		free(pts);
	}
	det_items_mark(d, e);
	if (final)
		det_mark_done(d, e->id);
	det_data_free(&x);
	return 0;
}

static void det_bind_double(sqlite3_stmt *q, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

static int det_write_item(detector_t *d, const struct det_item *it, int64_t now)
{
	const struct detector_verdict *v = &it->v;
	sqlite3_stmt *q = d->sq[DQ_UPSERT];
	sqlite3_bind_int64(q, 1, it->event_id);
	sqlite3_bind_text(q, 2, v->interface, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, v->direction, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, detector_verdict_name(v->verdict), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 5, detector_method_name(v->method), -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 6, v->hint);
	det_bind_double(q, 7, v->before_bps);
	det_bind_double(q, 8, v->after_bps);
	det_bind_double(q, 9, v->ratio);
	det_bind_double(q, 10, v->before_load);
	det_bind_double(q, 11, v->after_load);
	sqlite3_bind_int64(q, 12, (int64_t)v->before_n);
	sqlite3_bind_int64(q, 13, (int64_t)v->after_n);
	sqlite3_bind_int(q, 14, v->final);
	sqlite3_bind_int64(q, 15, v->reached_ms);
	sqlite3_bind_int64(q, 16, now);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int det_write_history(detector_t *d, const struct det_item *it)
{
	const struct detector_verdict *v = &it->v;
	sqlite3_stmt *q = d->sq[DQ_HISTORY];
	sqlite3_bind_int64(q, 1, it->event_id);
	sqlite3_bind_text(q, 2, v->interface, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, v->direction, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 4, v->reached_ms);
	sqlite3_bind_text(q, 5, detector_verdict_name(v->verdict), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 6, detector_method_name(v->method), -1, SQLITE_STATIC);
	det_bind_double(q, 7, v->ratio);
	sqlite3_bind_int64(q, 8, (int64_t)v->after_n);
	int rc = sqlite3_step(q);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Write what changed this round in one short transaction; kept dirty (retried) on failure. */
static int det_flush(detector_t *d, int64_t now, char **cause)
{
	if (sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return det_fail(d, cause, "writing verdicts");
	for (size_t i = 0; i < d->nitems; i++) {
		const struct det_item *it = &d->items[i];
		if (!it->dirty)
			continue;
		if (det_write_item(d, it, now) < 0 || (it->changed && det_write_history(d, it) < 0)) {
			det_fail(d, cause, "writing verdicts");
			sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	if (sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		det_fail(d, cause, "writing verdicts");
		sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	for (size_t i = 0; i < d->nitems; i++)
		d->items[i].dirty = d->items[i].changed = false;
	return 0;
}

/* ---- single-core bound ---- */

static double det_median_take(double *v, size_t n)
{
	double m = det_quantile(v, n, 0.5);
	free(v);
	return m;
}

static void det_bound_of(const struct det_data *x, struct detector_bound *b)
{
	size_t n = x->npolls, nq = 0, no = 0, pinned = 0;
	double *busy = xcalloc(n + 1, sizeof(double)), *oth = xcalloc(n + 1, sizeof(double));
	double *tx = xcalloc(n + 1, sizeof(double)), *rx = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		const struct det_poll *p = &x->polls[i];
		busy[i] = p->busiest;
		if (!isnan(p->others))
			oth[no++] = p->others;
		bool pin = p->busiest >= DET_BOUND_BUSIEST && p->others < DET_BOUND_OTHERS;
		pinned += pin;
		if (pin && p->nrows > 0) {
			tx[nq] = p->tx;
			rx[nq++] = p->rx;
		}
	}
	b->n = n;
	b->bound = n >= DET_BOUND_MIN && (double)pinned >= DET_BOUND_SHARE * (double)n;
	b->busiest = det_median_take(busy, n);
	b->others = det_median_take(oth, no);
	b->tx_bps = b->bound ? det_median_take(tx, nq) : (free(tx), NAN);
	b->rx_bps = b->bound ? det_median_take(rx, nq) : (free(rx), NAN);
}

static void det_bounds_clear(detector_t *d)
{
	for (size_t i = 0; i < d->nbounds; i++)
		free(d->bounds[i].router);
	free(d->bounds);
	d->bounds = NULL;
	d->nbounds = 0;
}

/* Every router's newest DET_BOUND_WINDOW_MS of polls (by its own last poll, so that --report
 * on a stopped daemon's database still tells), since its last version change. */
static int det_bounds(detector_t *d, char **cause)
{
	det_bounds_clear(d);
	sqlite3_stmt *q = d->sq[DQ_ROUTERS];
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t last = sqlite3_column_int64(q, 2), from = last - DET_BOUND_WINDOW_MS;
		if (sqlite3_column_type(q, 3) != SQLITE_NULL && sqlite3_column_int64(q, 3) >= from)
			from = sqlite3_column_int64(q, 3) + 1;
		struct det_data x;
		if (det_load(d, sqlite3_column_int64(q, 0), from, last + 1, &x) < 0) {
			det_data_free(&x);
			rc = SQLITE_ERROR;
			break;
		}
		if (x.npolls > 0) {
			d->bounds = det_grow(d->bounds, d->nbounds, &cap, sizeof(*d->bounds));
			struct detector_bound *b = &d->bounds[d->nbounds++];
			b->router = xstrdup((const char *)sqlite3_column_text(q, 1));
			det_bound_of(&x, b);
		}
		det_data_free(&x);
	}
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : det_fail(d, cause, "reading CPU samples");
}

static int det_round(detector_t *d, int64_t now, char **cause)
{
	sqlite3_stmt *q = d->sq[DQ_EVENTS];
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW && !atomic_load(&d->stopping)) {
		struct det_event e;
		det_event_row(d, q, &e);
		if (det_is_done(d, e.id)) {
			det_items_mark(d, &e);
		} else if (det_eval(d, &e, now, cause) < 0) {
			sqlite3_reset(q);
			return -1;
		}
	}
	bool ok = rc == SQLITE_DONE || rc == SQLITE_ROW;
	if (!ok)
		det_fail(d, cause, "reading version history");
	sqlite3_reset(q);
	if (ok && !d->readonly && det_flush(d, now, cause) < 0)
		return -1;
	return ok ? det_bounds(d, cause) : -1;
}

/* ---- views: what the web threads read ---- */

struct detector_view {
	int refs; /* under det_pub_mu */
	struct detector_verdict *v;
	size_t nv;
	struct detector_cohort *c;
	size_t nc;
	struct detector_bound *b;
	size_t nb;
};

static pthread_mutex_t det_pub_mu = PTHREAD_MUTEX_INITIALIZER;
static detector_view_t *det_pub; /* the running detector's newest view */

static int det_strcmp(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int det_verdict_order(const void *pa, const void *pb)
{
	const struct detector_verdict *a = pa, *b = pb;
	int c = strcmp(a->router, b->router);
	if (c == 0 && a->upgraded_ms != b->upgraded_ms)
		return a->upgraded_ms < b->upgraded_ms ? -1 : 1;
	if (c == 0)
		c = strcmp(a->interface, b->interface);
	return c ? c : strcmp(b->direction, a->direction); /* tx before rx */
}

static void det_verdict_copy(struct detector_verdict *dst, const struct detector_verdict *src)
{
	*dst = *src;
	dst->router = xstrdup(src->router);
	dst->interface = xstrdup(src->interface);
	dst->from_version = xstrdup(src->from_version);
	dst->to_version = xstrdup(src->to_version);
	dst->architecture = xstrdup(src->architecture);
	dst->board = xstrdup(src->board);
}

static int det_cohort_key(const struct detector_verdict *a, const struct detector_verdict *b)
{
	int c = det_strcmp(a->from_version, b->from_version);
	if (c == 0)
		c = det_strcmp(a->to_version, b->to_version);
	if (c == 0)
		c = det_strcmp(a->architecture, b->architecture);
	return c ? c : det_strcmp(a->board, b->board);
}

static int det_cohort_order(const void *pa, const void *pb)
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)pa;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)pb;
	int c = det_cohort_key(a, b);
	return c ? c : strcmp(a->router, b->router);
}

/* One cohort from its verdicts g[0..n), sorted by router. */
static void det_cohort_fill(struct detector_cohort *c, const struct detector_verdict *const *g, size_t n)
{
	double *tx = xcalloc(n, sizeof(double)), *rx = xcalloc(n, sizeof(double));
	size_t ntx = 0, nrx = 0;
	bool reg = false, imp = false;
	for (size_t i = 0; i < n; i++) {
		const struct detector_verdict *v = g[i];
		reg |= v->verdict == DETECTOR_REGRESSION;
		imp |= v->verdict == DETECTOR_IMPROVEMENT;
		if ((v->method == DETECTOR_M_SATURATION || v->method == DETECTOR_M_COST) &&
			isfinite(v->ratio)) {
			if (v->direction[0] == 't')
				tx[ntx++] = v->ratio;
			else
				rx[nrx++] = v->ratio;
		}
		if (i + 1 == n || strcmp(g[i + 1]->router, v->router) != 0) {
			c->routers++;
			c->regressed += reg;
			c->improved += imp && !reg;
			reg = imp = false;
		}
	}
	c->decided_tx = ntx;
	c->decided_rx = nrx;
	c->median_ratio_tx = det_median_take(tx, ntx);
	c->median_ratio_rx = det_median_take(rx, nrx);
}

static void det_cohorts(detector_view_t *v)
{
	const struct detector_verdict **g = xcalloc(v->nv + 1, sizeof(*g));
	for (size_t i = 0; i < v->nv; i++)
		g[i] = &v->v[i];
	qsort(g, v->nv, sizeof(*g), det_cohort_order);
	v->c = xcalloc(v->nv + 1, sizeof(*v->c));
	for (size_t i = 0, j; i < v->nv; i = j) {
		for (j = i + 1; j < v->nv && det_cohort_key(g[i], g[j]) == 0; j++)
			;
		struct detector_cohort *c = &v->c[v->nc++];
		c->from_version = xstrdup(g[i]->from_version);
		c->to_version = xstrdup(g[i]->to_version);
		c->architecture = xstrdup(g[i]->architecture);
		c->board = xstrdup(g[i]->board);
		det_cohort_fill(c, g + i, j - i);
	}
	free(g);
}

static detector_view_t *det_view_build(const detector_t *d)
{
	detector_view_t *v = xcalloc(1, sizeof(*v));
	v->refs = 1;
	v->v = xcalloc(d->nitems + 1, sizeof(*v->v));
	for (size_t i = 0; i < d->nitems; i++)
		if (d->items[i].v.router != NULL) /* an event seen in this database */
			det_verdict_copy(&v->v[v->nv++], &d->items[i].v);
	qsort(v->v, v->nv, sizeof(*v->v), det_verdict_order);
	det_cohorts(v);
	v->b = xcalloc(d->nbounds + 1, sizeof(*v->b));
	for (size_t i = 0; i < d->nbounds; i++) {
		v->b[i] = d->bounds[i];
		v->b[i].router = xstrdup(d->bounds[i].router);
	}
	v->nb = d->nbounds;
	return v;
}

static void det_view_destroy(detector_view_t *v)
{
	for (size_t i = 0; i < v->nv; i++)
		det_verdict_free(&v->v[i]);
	for (size_t i = 0; i < v->nc; i++) {
		free(v->c[i].from_version);
		free(v->c[i].to_version);
		free(v->c[i].architecture);
		free(v->c[i].board);
	}
	for (size_t i = 0; i < v->nb; i++)
		free(v->b[i].router);
	free(v->v);
	free(v->c);
	free(v->b);
	free(v);
}

static void det_publish(detector_view_t *v)
{
	pthread_mutex_lock(&det_pub_mu);
	detector_view_t *old = det_pub;
	det_pub = v;
	pthread_mutex_unlock(&det_pub_mu);
	detector_view_free(old);
}

detector_view_t *detector_view(void)
{
	pthread_mutex_lock(&det_pub_mu);
	detector_view_t *v = det_pub;
	if (v != NULL)
		v->refs++;
	pthread_mutex_unlock(&det_pub_mu);
	return v;
}

void detector_view_free(detector_view_t *v)
{
	if (v == NULL)
		return;
	pthread_mutex_lock(&det_pub_mu);
	bool last = --v->refs == 0;
	pthread_mutex_unlock(&det_pub_mu);
	if (last)
		det_view_destroy(v);
}

size_t detector_view_nverdicts(const detector_view_t *v)
{
	return v ? v->nv : 0;
}

const struct detector_verdict *detector_view_verdict(const detector_view_t *v, size_t i)
{
	return &v->v[i];
}

const struct detector_verdict *detector_view_router(const detector_view_t *v, const char *router, size_t *n)
{
	*n = 0;
	size_t lo = 0, hi = v ? v->nv : 0;
	while (lo < hi) { /* the first verdict of router */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v->v[mid].router, router) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (v != NULL && lo + *n < v->nv && strcmp(v->v[lo + *n].router, router) == 0)
		(*n)++;
	return *n ? &v->v[lo] : NULL;
}

size_t detector_view_ncohorts(const detector_view_t *v)
{
	return v ? v->nc : 0;
}

const struct detector_cohort *detector_view_cohort(const detector_view_t *v, size_t i)
{
	return &v->c[i];
}

const struct detector_bound *detector_view_bound(const detector_view_t *v, const char *router)
{
	size_t lo = 0, hi = v ? v->nb : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v->b[mid].router, router);
		if (c == 0)
			return &v->b[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- lifecycle ---- */

static int det_open(detector_t *d, const conf_t *conf, bool readonly, char **cause)
{
	d->readonly = readonly;
	d->params = (struct det_params){ .min_samples = (size_t)(conf->min_samples > 0 ? conf->min_samples
										       : 1),
		.threshold = conf->threshold,
		.saturated = conf->saturated,
		.min_bps = conf->min_mbps * 1e6 };
	d->before_ms = conf->before_ms;
	d->after_ms = conf->after_ms;
	d->every_ms = conf->every_ms > 0 ? conf->every_ms : 60000;
	d->grace_ms = 2 * conf->interval_ms;
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (sqlite3_open_v2(conf->database, &d->db, flags, NULL) != SQLITE_OK) {
		*cause = xasprintf("cannot open database %s: %s", conf->database,
			d->db ? sqlite3_errmsg(d->db) : "out of memory");
		return -1;
	}
	sqlite3_busy_timeout(d->db, DET_BUSY_MS);
	if (store_sql_attach(d->db, cause) < 0) /* the packed samples' views */
		return -1;
	for (int i = 0; i < DQ_COUNT; i++) {
		if (readonly && (i == DQ_UPSERT || i == DQ_HISTORY))
			continue;
		if (sqlite3_prepare_v3(d->db, det_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &d->sq[i], NULL) !=
			SQLITE_OK) {
			*cause = xasprintf("database %s: %s", conf->database, sqlite3_errmsg(d->db));
			return -1;
		}
	}
	return 0;
}

/* The verdicts stored by an earlier run: final ones are not evaluated again. */
static int det_load_stored(detector_t *d, char **cause)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(d->db,
		    "SELECT event_id, interface, direction, verdict, method, hint,"
		    " before_bps, after_bps, ratio, before_load, after_load, before_n,"
		    " after_n, final, reached_ms FROM verdicts",
		    -1, &q, NULL) != SQLITE_OK)
		return det_fail(d, cause, "reading verdicts");
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		bool created;
		struct det_item *it = det_item_get(d, sqlite3_column_int64(q, 0),
			(const char *)sqlite3_column_text(q, 1), (const char *)sqlite3_column_text(q, 2),
			&created);
		struct detector_verdict *v = &it->v;
		v->verdict = det_name_index(det_verdict_names, 4, (const char *)sqlite3_column_text(q, 3));
		v->method = det_name_index(det_method_names, 4, (const char *)sqlite3_column_text(q, 4));
		v->hint = sqlite3_column_int(q, 5);
		v->before_bps = det_col(q, 6);
		v->after_bps = det_col(q, 7);
		v->ratio = det_col(q, 8);
		v->before_load = det_col(q, 9);
		v->after_load = det_col(q, 10);
		v->before_n = (size_t)sqlite3_column_int64(q, 11);
		v->after_n = (size_t)sqlite3_column_int64(q, 12);
		v->final = sqlite3_column_int(q, 13);
		v->reached_ms = sqlite3_column_int64(q, 14);
		if (v->final)
			det_mark_done(d, it->event_id);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : det_fail(d, cause, "reading verdicts");
}

static void det_free(detector_t *d)
{
	for (int i = 0; i < DQ_COUNT; i++)
		sqlite3_finalize(d->sq[i]);
	if (d->db != NULL)
		sqlite3_close(d->db);
	for (size_t i = 0; i < d->nitems; i++)
		det_verdict_free(&d->items[i].v);
	free(d->items);
	free(d->done);
	det_bounds_clear(d);
	free(d->error);
	free(d);
}

static int64_t det_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* One round in the thread; a failure is logged once per distinct cause, the recovery once. */
static void det_tick(detector_t *d)
{
	char *cause = NULL;
	if (det_round(d, det_wall_ms(), &cause) == 0) {
		if (d->error != NULL)
			log_info("detector: evaluating works again");
		free(d->error);
		d->error = NULL;
		det_publish(det_view_build(d));
		return;
	}
	if (d->error == NULL || strcmp(d->error, cause) != 0)
		log_warn("detector: %s (retrying in %" PRId64 " ms)", cause, d->every_ms);
	free(d->error);
	d->error = cause;
}

static void *det_thread(void *arg)
{
	detector_t *d = arg;
	while (!atomic_load(&d->stopping)) {
		det_tick(d);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		int64_t ns = ts.tv_nsec + (d->every_ms % 1000) * 1000000;
		ts.tv_sec += (time_t)(d->every_ms / 1000 + ns / 1000000000);
		ts.tv_nsec = (long)(ns % 1000000000);
		pthread_mutex_lock(&d->mu);
		if (!atomic_load(&d->stopping))
			pthread_cond_timedwait(&d->wake, &d->mu, &ts);
		pthread_mutex_unlock(&d->mu);
	}
	return NULL;
}

int detector_start(const conf_t *conf, detector_t **out, char **cause)
{
	detector_t *d = xcalloc(1, sizeof(*d));
	*cause = NULL;
	if (det_open(d, conf, false, cause) < 0 || det_load_stored(d, cause) < 0) {
		det_free(d);
		return -1;
	}
	pthread_mutex_init(&d->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&d->wake, &ca);
	pthread_condattr_destroy(&ca);
	int err = pthread_create(&d->thread, NULL, det_thread, d);
	if (err != 0) {
		*cause = xasprintf("cannot start the detector thread: %s", strerror(err));
		pthread_cond_destroy(&d->wake);
		pthread_mutex_destroy(&d->mu);
		det_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void detector_stop(detector_t *d)
{
	if (d == NULL)
		return;
	pthread_mutex_lock(&d->mu);
	atomic_store(&d->stopping, true);
	pthread_cond_signal(&d->wake);
	pthread_mutex_unlock(&d->mu);
	pthread_join(d->thread, NULL);
	det_publish(NULL);
	pthread_cond_destroy(&d->wake);
	pthread_mutex_destroy(&d->mu);
	det_free(d);
}

/* ---- --report ---- */

/* "380.0M" style bits/s, "-" when unknown. */
static const char *det_fmt_bps(char *tmp, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(tmp, size, "-");
	else if (v >= 1e9)
		snprintf(tmp, size, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(tmp, size, "%.1fM", v / 1e6);
	else
		snprintf(tmp, size, "%.0fk", v / 1e3);
	return tmp;
}

static const char *det_fmt_ratio(char *tmp, size_t size, double v)
{
	if (isfinite(v))
		snprintf(tmp, size, "%.2f", v);
	else
		snprintf(tmp, size, "-");
	return tmp;
}

static void det_report_verdict(FILE *out, const struct detector_verdict *v)
{
	char when[32] = "-", b[16], a[16], r[16];
	time_t t = (time_t)(v->upgraded_ms / 1000);
	struct tm tm;
	if (gmtime_r(&t, &tm) != NULL)
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	char *upg = xasprintf(
		"%s -> %s", v->from_version ? v->from_version : "?", v->to_version ? v->to_version : "?");
	fprintf(out, "%-24s %-10s %-3s %-20s %-16s %8s %8s %5s %-18s %s%s%s\n", v->router, v->interface,
		v->direction, upg, when, det_fmt_bps(b, sizeof(b), v->before_bps),
		det_fmt_bps(a, sizeof(a), v->after_bps), det_fmt_ratio(r, sizeof(r), v->ratio),
		detector_method_name(v->method), detector_verdict_name(v->verdict), v->hint ? " (hint)" : "",
		v->final ? "" : " (after window filling)");
	free(upg);
}

static void det_report_cohort(FILE *out, const struct detector_cohort *c)
{
	char tx[16], rx[16];
	char *upg = xasprintf(
		"%s -> %s", c->from_version ? c->from_version : "?", c->to_version ? c->to_version : "?");
	fprintf(out, "%-20s %-8s %-20s %7zu %9zu %8zu %8s %8s\n", upg,
		c->architecture ? c->architecture : "?", c->board ? c->board : "?", c->routers, c->regressed,
		c->improved, det_fmt_ratio(tx, sizeof(tx), c->median_ratio_tx),
		det_fmt_ratio(rx, sizeof(rx), c->median_ratio_rx));
	free(upg);
}

static void det_report_print(FILE *out, const detector_view_t *v)
{
	fprintf(out,
		"Upgrade verdicts (ratio = capacity after / before)\n%-24s %-10s %-3s %-20s "
		"%-16s %8s %8s %5s %-18s %s\n",
		"ROUTER", "INTERFACE", "DIR", "UPGRADE", "UPGRADED (UTC)", "BEFORE", "AFTER", "RATIO",
		"METHOD", "VERDICT");
	for (size_t i = 0; i < v->nv; i++)
		det_report_verdict(out, &v->v[i]);
	fprintf(out, "\nCohorts\n%-20s %-8s %-20s %7s %9s %8s %8s %8s\n", "UPGRADE", "ARCH", "BOARD",
		"ROUTERS", "REGRESSED", "IMPROVED", "TX RATIO", "RX RATIO");
	for (size_t i = 0; i < v->nc; i++)
		det_report_cohort(out, &v->c[i]);
	fprintf(out, "\nSingle-core bound (busiest core >= 95%%, others < 50%%)\n%-24s %8s %8s %8s %8s\n",
		"ROUTER", "BUSIEST", "OTHERS", "TX", "RX");
	for (size_t i = 0; i < v->nb; i++) {
		const struct detector_bound *b = &v->b[i];
		char tx[16], rx[16];
		if (b->bound)
			fprintf(out, "%-24s %7.0f%% %7.0f%% %8s %8s\n", b->router, b->busiest * 100,
				b->others * 100, det_fmt_bps(tx, sizeof(tx), b->tx_bps),
				det_fmt_bps(rx, sizeof(rx), b->rx_bps));
	}
}

int detector_report(const conf_t *conf, FILE *out, char **cause)
{
	detector_t *d = xcalloc(1, sizeof(*d));
	*cause = NULL;
	int rc = det_open(d, conf, true, cause);
	if (rc == 0)
		rc = det_round(d, det_wall_ms(), cause);
	if (rc == 0) {
		detector_view_t *v = det_view_build(d);
		det_report_print(out, v);
		det_view_destroy(v);
	}
	det_free(d);
	return rc;
}
