/* judge: the pure maths of a verdict (quantiles, saturation ceilings, cost ratios, peak
 * projections, the outcome) and of the single-core bound, on samples already in memory.
 * It must never touch SQLite, a clock or a lock: unit tests call it on synthetic windows. */
#include "config.h"
#include "detector/detector_int.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>

#define JUDGE_MATCH_TOL     0.10 /* cpu-cost: widening of the rate band both windows share */
#define JUDGE_PEAK_SHARE    0.10 /* peak: the busiest tenth of a window's samples */
#define JUDGE_BOUND_BUSIEST 0.95 /* single-core bound: busiest core at least this ... */
#define JUDGE_BOUND_OTHERS  0.50 /* ... while the other cores average less than this ... */
#define JUDGE_BOUND_SHARE   0.80 /* ... in this share of the recent polls */
#define JUDGE_BOUND_MIN     3    /* polls needed to say anything */

/* ---- statistics ---- */

static int judge_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double judge_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), judge_cmp_double);
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

double judge_median_take(double *v, size_t n)
{
	double m = judge_quantile(v, n, 0.5);
	free(v);
	return m;
}

/* ---- the verdict engine: pure functions of two windows of samples ---- */

enum judge_field { F_LOAD, F_RATE, F_TOTAL, F_COST, F_PROJ };

static double judge_get(const struct judge_point *p, enum judge_field f)
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
struct judge_keep {
	double load_min, load_max; /* load_min <= load < load_max */
	double lo, hi;             /* lo <= total <= hi */
};

#define JUDGE_ALL ((struct judge_keep){ -INFINITY, INFINITY, -INFINITY, INFINITY })

static bool judge_kept(const struct judge_point *p, const struct judge_keep *k)
{
	return p->load >= k->load_min && p->load < k->load_max && p->total >= k->lo && p->total <= k->hi;
}

/* Field f of the kept samples, finite only (caller frees); *n of them. */
static double *judge_collect(
	const struct judge_win *w, enum judge_field f, const struct judge_keep *k, size_t *n)
{
	double *v = xcalloc(w->n ? w->n : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < w->n; i++) {
		double x = judge_get(&w->p[i], f);
		if (judge_kept(&w->p[i], k) && isfinite(x))
			v[(*n)++] = x;
	}
	return v;
}

static double judge_stat(
	const struct judge_win *w, enum judge_field f, const struct judge_keep *k, double q, size_t *count)
{
	size_t n;
	double *v = judge_collect(w, f, k, &n);
	double r = judge_quantile(v, n, q);
	free(v);
	if (count)
		*count = n;
	return r;
}

/* Where the busiest core is saturated in both windows, the throughput reached meanwhile is
 * the capacity. A fall (or rise) must show in the router's total too, else it is demand that
 * moved between directions or interfaces on a core that stayed full. */
static bool judge_saturation(const struct judge_win *b, const struct judge_win *a,
	const struct judge_params *p, struct judge_result *r)
{
	struct judge_keep sat = { p->saturated, INFINITY, -INFINITY, INFINITY };
	size_t nb, na;
	double cb = judge_stat(b, F_RATE, &sat, 0.5, &nb), ca = judge_stat(a, F_RATE, &sat, 0.5, &na);
	if (nb < p->min_samples || na < p->min_samples || !(cb >= p->min_bps))
		return false;
	double rt = judge_stat(a, F_TOTAL, &sat, 0.5, NULL) / judge_stat(b, F_TOTAL, &sat, 0.5, NULL);
	r->method = DETECTOR_M_SATURATION;
	r->before_bps = cb;
	r->after_bps = ca;
	r->ratio = ca / cb;
	r->before_load = judge_stat(b, F_LOAD, &sat, 0.5, NULL);
	r->after_load = judge_stat(a, F_LOAD, &sat, 0.5, NULL);
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
 * intersected, widened by JUDGE_MATCH_TOL), over unsaturated samples with traffic. */
static bool judge_band(const struct judge_win *b, const struct judge_win *a, const struct judge_params *p,
	size_t need, struct judge_keep *band)
{
	struct judge_keep unsat = { 0, p->saturated, p->min_bps, INFINITY };
	size_t nb, na;
	double *tb = judge_collect(b, F_TOTAL, &unsat, &nb), *ta = judge_collect(a, F_TOTAL, &unsat, &na);
	double lo = fmax(judge_quantile(tb, nb, 0.1), judge_quantile(ta, na, 0.1));
	double hi = fmin(judge_quantile(tb, nb, 0.9), judge_quantile(ta, na, 0.9));
	free(tb);
	free(ta);
	*band = unsat;
	band->load_min = 1e-9;
	band->lo = fmax(lo * (1 - JUDGE_MATCH_TOL), p->min_bps);
	band->hi = hi * (1 + JUDGE_MATCH_TOL);
	return nb >= need && na >= need && band->lo <= band->hi;
}

/* Unsaturated: the busiest core's load per bit/s of router traffic, compared only at rates
 * both windows saw (so idle load, which weighs more at low rates, cancels out). */
static bool judge_cost(const struct judge_win *b, const struct judge_win *a, const struct judge_params *p,
	struct judge_result *r)
{
	size_t need = p->min_samples / 2 > 3 ? p->min_samples / 2 : 3;
	struct judge_keep band;
	if (!judge_band(b, a, p, need, &band))
		return false;
	size_t nb, na;
	double kb = judge_stat(b, F_COST, &band, 0.5, &nb), ka = judge_stat(a, F_COST, &band, 0.5, &na);
	if (nb < need || na < need || !(kb > 0) || !(ka > 0))
		return false;
	r->method = DETECTOR_M_COST;
	r->ratio = kb / ka;
	r->before_bps = judge_stat(b, F_RATE, &band, 0.5, NULL);
	r->after_bps = judge_stat(a, F_RATE, &band, 0.5, NULL);
	r->before_load = judge_stat(b, F_LOAD, &band, 0.5, NULL);
	r->after_load = judge_stat(a, F_LOAD, &band, 0.5, NULL);
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
static double judge_peak_est(const struct judge_win *w, double *load)
{
	struct judge_keep k = JUDGE_ALL;
	k.load_min = 1e-9;
	k.load_min = fmax(judge_stat(w, F_LOAD, &k, 1 - JUDGE_PEAK_SHARE, NULL), 1e-9);
	*load = judge_stat(w, F_LOAD, &k, 0.5, NULL);
	return judge_stat(w, F_PROJ, &k, 0.5, NULL);
}

/* Neither method applies (one window saturated, or rates not comparable): never a regression;
 * a projected fall beyond the threshold is only a hint. */
static void judge_peak(const struct judge_win *b, const struct judge_win *a, const struct judge_params *p,
	struct judge_result *r)
{
	double eb = judge_peak_est(b, &r->before_load), ea = judge_peak_est(a, &r->after_load);
	if (!(eb > 0) || !isfinite(ea))
		return;
	r->method = DETECTOR_M_PEAK;
	r->verdict = DETECTOR_UNCHANGED;
	r->before_bps = eb;
	r->after_bps = ea;
	r->ratio = ea / eb;
	r->hint = r->ratio < 1 - p->threshold;
}

void judge_verdict(const struct judge_win *b, const struct judge_win *a, const struct judge_params *p,
	struct judge_result *r)
{
	*r = (struct judge_result){ .verdict = DETECTOR_INSUFFICIENT,
		.method = DETECTOR_M_NONE,
		.before_bps = NAN,
		.after_bps = NAN,
		.ratio = NAN,
		.before_load = NAN,
		.after_load = NAN,
		.before_n = b->n,
		.after_n = a->n };
	struct judge_keep all = JUDGE_ALL;
	r->before_bps = judge_stat(b, F_RATE, &all, 0.5, NULL);
	r->after_bps = judge_stat(a, F_RATE, &all, 0.5, NULL);
	if (b->n < p->min_samples || a->n < p->min_samples || !(r->before_bps >= p->min_bps))
		return;
	if (!(r->after_bps >= p->min_bps)) {
		r->hint = true; /* the traffic stopped: not a capacity figure, but worth a look */
		return;
	}
	double mb = r->before_bps, ma = r->after_bps;
	if (judge_saturation(b, a, p, r) || judge_cost(b, a, p, r))
		return;
	r->before_bps = mb;
	r->after_bps = ma;
	judge_peak(b, a, p, r);
}

/* ---- single-core bound ---- */

void judge_bound(const struct judge_poll *p, size_t n, struct detector_bound *b)
{
	size_t nq = 0, no = 0, pinned = 0;
	double *busy = xcalloc(n + 1, sizeof(double)), *oth = xcalloc(n + 1, sizeof(double));
	double *tx = xcalloc(n + 1, sizeof(double)), *rx = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		busy[i] = p[i].busiest;
		if (!isnan(p[i].others))
			oth[no++] = p[i].others;
		bool pin = p[i].busiest >= JUDGE_BOUND_BUSIEST && p[i].others < JUDGE_BOUND_OTHERS;
		pinned += pin;
		if (pin && p[i].nrows > 0) {
			tx[nq] = p[i].tx;
			rx[nq++] = p[i].rx;
		}
	}
	b->n = n;
	b->bound = n >= JUDGE_BOUND_MIN && (double)pinned >= JUDGE_BOUND_SHARE * (double)n;
	b->busiest = judge_median_take(busy, n);
	b->others = judge_median_take(oth, no);
	b->tx_bps = b->bound ? judge_median_take(tx, nq) : (free(tx), NAN);
	b->rx_bps = b->bound ? judge_median_take(rx, nq) : (free(rx), NAN);
}
