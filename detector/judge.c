/* SPDX-License-Identifier: Apache-2.0 */
/* judge: the maths of a verdict on one version change, on samples already in memory. For each
 * WireGuard stream (interface x direction) it finds the core(s) whose load follows the stream's
 * traffic, then the stream's capacity in each window: measured where those cores stayed
 * saturated, else projected from the marginal cost (the slope of their load against the rates)
 * and the headroom left; the ratio of the two capacities is the verdict. Also the single-core
 * bound. It must never touch SQLite, a clock or a lock, and never claim what the data cannot
 * tell: unit tests call it on synthetic frames. docs/detector.md explains the model. */
#include "config.h"
#include "detector/detector_int.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JUDGE_ATTR_T        4.0  /* a core carries a stream: slope this many std errors above 0 ... */
#define JUDGE_ATTR_LOAD     0.03 /* ... and the stream puts at least this load on it */
#define JUDGE_PIN_SHARE     0.80 /* a window is pinned: its cores saturated this often ... */
#define JUDGE_PIN_CV        0.10 /* ... while the stream's rate varies less than this */
#define JUDGE_FIT_T         3.0  /* a window's slope: this many standard errors above 0 */
#define JUDGE_MAX_EXTRAP    8.0  /* a projection reaches at most this times the rates seen */
#define JUDGE_MAX_RSE       0.25 /* a capacity known to this relative standard error at worst */
#define JUDGE_COLLINEAR     0.95 /* tx and rx correlated this much are fitted as one column */
#define JUDGE_BLOCK_MIN     5    /* polls averaged into one point of a fit: n / 40, at least ... */
#define JUDGE_BLOCK_MAX     10   /* ... and at most this */
#define JUDGE_SIGMAS        4.0  /* a change is claimed when it is this many standard errors out */
#define JUDGE_MAX_COLS      (FIT_MAX / 2) /* streams in a fit: each has its edge column too */
#define JUDGE_JACK          10            /* stretches of the jackknife that checks a projection's error */
#define JUDGE_MIN_BLOCKS    20   /* a fit needs this many blocks: fewer give standard errors to distrust */
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

/* ---- the frame ---- */

static size_t judge_nstreams(const struct judge_frame *f)
{
	return 2 * f->nifs;
}

static double judge_rate(const struct judge_frame *f, size_t k, size_t s)
{
	return f->rate[k * judge_nstreams(f) + s];
}

static double judge_load(const struct judge_frame *f, size_t k, size_t c)
{
	return f->load[k * f->ncores + c];
}

static size_t judge_wn(const struct judge_w *w)
{
	return w->to - w->from;
}

double judge_mean(const struct judge_frame *f, const struct judge_w *w, size_t s, const bool *keep,
	double *sd, size_t *count)
{
	double sum = 0, sq = 0;
	size_t n = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double x = judge_rate(f, k, s);
		if (!isfinite(x) || (keep && !keep[k - w->from]))
			continue;
		sum += x;
		sq += x * x;
		n++;
	}
	double m = n ? sum / (double)n : NAN;
	if (sd)
		*sd = n > 1 ? sqrt(fmax(sq / (double)n - m * m, 0) * (double)n / (double)(n - 1)) : NAN;
	if (count)
		*count = n;
	return m;
}

/* Quantile q of stream s's finite rates in w (where keep, if given). */
static double judge_rate_q(
	const struct judge_frame *f, const struct judge_w *w, size_t s, const bool *keep, double q)
{
	double *v = xcalloc(judge_wn(w) + 1, sizeof(*v));
	size_t n = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double x = judge_rate(f, k, s);
		if (isfinite(x) && (!keep || keep[k - w->from]))
			v[n++] = x;
	}
	double r = judge_quantile(v, n, q);
	free(v);
	return r;
}

static double judge_corr(const struct judge_frame *f, const struct judge_w *w, size_t s1, size_t s2)
{
	double m1 = judge_mean(f, w, s1, NULL, NULL, NULL), m2 = judge_mean(f, w, s2, NULL, NULL, NULL);
	double sxy = 0, sxx = 0, syy = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double a = judge_rate(f, k, s1) - m1, b = judge_rate(f, k, s2) - m2;
		if (!isfinite(a) || !isfinite(b))
			continue;
		sxy += a * b;
		sxx += a * a;
		syy += b * b;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 1.0; /* flat: as good as collinear */
}

/* ---- the regressors of a window: the streams with traffic, tx and rx merged when collinear ---- */

struct judge_cols {
	size_t m;
	size_t s0[JUDGE_MAX_COLS]; /* the stream of column j ... */
	bool both[JUDGE_MAX_COLS]; /* ... or both streams of its interface (s0 its tx) */
	double mean[JUDGE_MAX_COLS];
};

static void judge_cols_add(struct judge_cols *c, size_t s0, bool both, double mean)
{
	size_t j = c->m;
	if (j == JUDGE_MAX_COLS) { /* full: the quietest column makes way */
		size_t lo = 0;
		for (size_t i = 1; i < JUDGE_MAX_COLS; i++)
			lo = c->mean[i] < c->mean[lo] ? i : lo;
		if (c->mean[lo] >= mean)
			return;
		j = lo;
	} else {
		c->m++;
	}
	c->s0[j] = s0;
	c->both[j] = both;
	c->mean[j] = mean;
}

static void judge_columns(const struct judge_frame *f, const struct judge_w *w, const struct judge_params *p,
	struct judge_cols *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < f->nifs; i++) {
		double tx = judge_mean(f, w, 2 * i, NULL, NULL, NULL),
		       rx = judge_mean(f, w, 2 * i + 1, NULL, NULL, NULL);
		bool atx = tx >= p->min_bps, arx = rx >= p->min_bps;
		if (atx && arx && judge_corr(f, w, 2 * i, 2 * i + 1) >= JUDGE_COLLINEAR)
			judge_cols_add(c, 2 * i, true, tx + rx);
		else if (atx || arx) {
			if (atx)
				judge_cols_add(c, 2 * i, false, tx);
			if (arx)
				judge_cols_add(c, 2 * i + 1, false, rx);
		}
	}
}

/* The column of stream s; -1 when it has none (too little traffic). */
static int judge_col_of(const struct judge_cols *c, size_t s)
{
	for (size_t j = 0; j < c->m; j++)
		if (c->s0[j] == s || (c->both[j] && c->s0[j] + 1 == s))
			return (int)j;
	return -1;
}

/* The n x m matrix of w's polls (caller frees); NAN where a rate is missing. */
static double *judge_matrix(const struct judge_frame *f, const struct judge_w *w, const struct judge_cols *c)
{
	size_t n = judge_wn(w);
	double *x = xcalloc(n * c->m + 1, sizeof(*x));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c->m; j++) {
			double v = judge_rate(f, w->from + i, c->s0[j]);
			if (c->both[j])
				v += judge_rate(f, w->from + i, c->s0[j] + 1);
			x[i * c->m + j] = v;
		}
	return x;
}

/* Blocks of consecutive usable rows (no NAN) of x (n x m) and y: into bx (nb x 2m) and by the
 * number of blocks nb. The load is read at an instant, at the end of its poll, while a rate
 * covers its poll: the moments around the instant fall partly in the next poll, by a share
 * that depends on where the polls fall against the traffic's own ups and downs. So each block
 * has, per column, its mean rate and an edge term (the next poll's rate less the first's,
 * over the block's length) that the fit weighs as the data says: the slope of the mean is
 * then not biased, whatever that share. */
static size_t judge_blocks(const double *x, const double *y, size_t n, size_t m, double *bx, double *by)
{
	size_t *idx = xcalloc(n + 1, sizeof(*idx)), k = 0, nb = 0;
	size_t bl = n / 40 < JUDGE_BLOCK_MIN ? JUDGE_BLOCK_MIN
		: n / 40 > JUDGE_BLOCK_MAX   ? JUDGE_BLOCK_MAX
					     : n / 40;
	for (size_t i = 0; i < n; i++) {
		bool ok = isfinite(y[i]);
		for (size_t j = 0; j < m && ok; j++)
			ok = isfinite(x[i * m + j]);
		if (ok)
			idx[k++] = i;
	}
	for (size_t b = 0; (b + 1) * bl < k; b++, nb++) {
		const size_t *r = idx + b * bl;
		double sy = 0;
		for (size_t j = 0; j < m; j++) {
			double sx = 0;
			for (size_t i = 0; i < bl; i++)
				sx += x[r[i] * m + j];
			bx[nb * 2 * m + j] = sx / (double)bl;
			bx[nb * 2 * m + m + j] = (x[r[bl] * m + j] - x[r[0] * m + j]) / (double)bl;
		}
		for (size_t i = 0; i < bl; i++)
			sy += y[r[i]];
		by[nb] = sy / (double)bl;
	}
	free(idx);
	return nb;
}

/* fit_ols of y on the columns c over w's polls, on blocks of them; -2: too few blocks yet. */
static int judge_fit(const struct judge_frame *f, const struct judge_w *w, const struct judge_cols *c,
	const double *y, struct fit *o)
{
	size_t n = judge_wn(w);
	double *x = judge_matrix(f, w, c), *bx = xcalloc(2 * n * c->m + 1, sizeof(*bx));
	double *by = xcalloc(n + 1, sizeof(*by));
	size_t nb = judge_blocks(x, y, n, c->m, bx, by);
	int rc = nb >= JUDGE_MIN_BLOCKS ? fit_ols(bx, by, nb, 2 * c->m, o) : -2;
	free(x);
	free(bx);
	free(by);
	return rc;
}

/* ---- which cores carry which stream ---- */

/* In window w, mark carry[s * ncores + c] where core c's load follows stream s's rate: a clear
 * positive slope in a regression of the core's load on every busy stream (so that streams
 * sharing the daily curve are told apart by their own ups and downs). */
static void judge_attribute_w(
	const struct judge_frame *f, const struct judge_w *w, const struct judge_params *p, bool *carry)
{
	struct judge_cols c;
	judge_columns(f, w, p, &c);
	if (c.m == 0)
		return;
	size_t n = judge_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y));
	for (size_t core = 0; core < f->ncores; core++) {
		for (size_t i = 0; i < n; i++)
			y[i] = judge_load(f, w->from + i, core);
		struct fit o;
		if (judge_fit(f, w, &c, y, &o) < 0)
			continue;
		for (size_t j = 0; j < c.m; j++) {
			bool follows = !o.dropped[j] && o.beta[j] > 0 &&
				o.beta[j] >= JUDGE_ATTR_T * o.se[j] &&
				o.beta[j] * o.xmean[j] >= JUDGE_ATTR_LOAD;
			if (!follows)
				continue;
			carry[c.s0[j] * f->ncores + core] = true;
			if (c.both[j])
				carry[(c.s0[j] + 1) * f->ncores + core] = true;
		}
	}
	free(y);
}

static bool judge_any(const bool *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return true;
	return false;
}

bool judge_core_pinned(
	const struct judge_frame *f, const struct judge_w *w, size_t c, const struct judge_params *p)
{
	size_t sat = 0;
	for (size_t k = w->from; k < w->to; k++)
		sat += judge_load(f, k, c) >= p->saturated;
	return judge_wn(w) > 0 && (double)sat >= JUDGE_PIN_SHARE * (double)judge_wn(w);
}

/* The one core saturated in most of w's polls; SIZE_MAX when none or several. */
static size_t judge_pinned_core(
	const struct judge_frame *f, const struct judge_w *w, const struct judge_params *p)
{
	size_t found = SIZE_MAX;
	for (size_t c = 0; c < f->ncores; c++) {
		if (!judge_core_pinned(f, w, c, p))
			continue;
		if (found != SIZE_MAX)
			return SIZE_MAX;
		found = c;
	}
	return found;
}

bool judge_flat(const struct judge_frame *f, const struct judge_w *w, size_t s)
{
	double sd, mean = judge_mean(f, w, s, NULL, &sd, NULL);
	return mean > 0 && sd / mean <= JUDGE_PIN_CV;
}

/* carry[s * ncores + c]: the cores that carry each stream, as the before window tells, else
 * the after window; else the one core pinned at saturation (a flat, saturated window shows no
 * slope), for a stream held as flat as the ceiling holds it there: a stream whose rate moves
 * while that core stays at 100 % runs elsewhere. The same cores are followed in both windows.
 * What none of these tells, profcore.c may read from a CPU profile. */
static bool *judge_attribute(const struct judge_frame *f, const struct judge_w *b, const struct judge_w *a,
	const struct judge_params *p)
{
	size_t ns = judge_nstreams(f), nc = f->ncores;
	bool *carry = xcalloc(ns * nc + 1, sizeof(bool)), *later = xcalloc(ns * nc + 1, sizeof(bool));
	judge_attribute_w(f, b, p, carry);
	judge_attribute_w(f, a, p, later);
	const struct judge_w *pw = b;
	size_t pin = judge_pinned_core(f, b, p);
	if (pin == SIZE_MAX)
		pin = judge_pinned_core(f, pw = a, p);
	for (size_t s = 0; s < ns; s++) {
		if (judge_any(carry + s * nc, nc))
			continue;
		if (judge_any(later + s * nc, nc))
			memcpy(carry + s * nc, later + s * nc, nc * sizeof(bool));
		else if (pin != SIZE_MAX && judge_flat(f, pw, s))
			carry[s * nc + pin] = true;
	}
	free(later);
	return carry;
}

/* ---- a stream's capacity in one window ---- */

struct judge_cap {
	bool ok, pinned;
	double cap, rse; /* bits/s; its relative standard error */
	double load;     /* mean load of the stream's cores */
	double total;    /* pinned: median traffic of every stream on those cores */
	const char *why; /* !ok: why not */
};

/* Per poll of w: the mean and the highest load of the cores in on[] (NAN if one is missing). */
static void judge_core_load(
	const struct judge_frame *f, const struct judge_w *w, const bool *on, double *mean, double *top)
{
	for (size_t i = 0; i < judge_wn(w); i++) {
		double sum = 0, hi = -INFINITY;
		size_t n = 0;
		for (size_t c = 0; c < f->ncores; c++) {
			if (!on[c])
				continue;
			double l = judge_load(f, w->from + i, c);
			sum += l;
			hi = fmax(hi, l);
			n++;
		}
		mean[i] = n && isfinite(sum) ? sum / (double)n : NAN;
		top[i] = n && isfinite(sum) ? hi : NAN;
	}
}

/* The traffic of every stream that shares a core with on[], per poll of w. */
static double judge_shared_total(const struct judge_frame *f, const struct judge_w *w, const bool *carry,
	const bool *on, const bool *keep)
{
	size_t n = judge_wn(w), nc = f->ncores;
	double *v = xcalloc(n + 1, sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		double sum = 0;
		for (size_t s = 0; s < judge_nstreams(f); s++)
			for (size_t c = 0; c < nc; c++)
				if (on[c] && carry[s * nc + c]) {
					double x = judge_rate(f, w->from + i, s);
					sum += isfinite(x) ? x : 0;
					break;
				}
		v[m++] = sum;
	}
	return judge_median_take(v, m);
}

/* Saturated throughout: the rate it held is the capacity (1 when it is, else 0). */
static int judge_cap_pinned(const struct judge_frame *f, const struct judge_w *w, size_t s, const bool *carry,
	const bool *on, const double *top, const struct judge_params *p, struct judge_cap *o)
{
	size_t n = judge_wn(w), nsat = 0, nfin = 0;
	bool *keep = xcalloc(n + 1, sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		keep[i] = top[i] >= p->saturated;
		nsat += keep[i];
		nfin += isfinite(top[i]);
	}
	double sd, mean = judge_mean(f, w, s, keep, &sd, NULL);
	int pinned = nsat > 0 && (double)nsat >= JUDGE_PIN_SHARE * (double)nfin && mean > 0 &&
		sd / mean <= JUDGE_PIN_CV;
	if (pinned) {
		o->ok = o->pinned = true;
		o->cap = judge_rate_q(f, w, s, keep, 0.5);
		o->rse = fmax(sd / mean / sqrt((double)nsat), 0.005);
		o->total = judge_shared_total(f, w, carry, on, keep);
	}
	free(keep);
	return pinned;
}

/* The capacity projected on w's polls where y is finite: mean rate + headroom / slope of column
 * j (*fo the fit); NAN when the fit fails or its slope is not positive. */
static double judge_project(const struct judge_frame *f, const struct judge_w *w, size_t s,
	const struct judge_cols *c, int j, const double *y, struct fit *fo, int *rc)
{
	size_t n = judge_wn(w);
	bool *keep = xcalloc(n + 1, sizeof(bool));
	for (size_t i = 0; i < n; i++)
		keep[i] = isfinite(y[i]);
	double xs = judge_mean(f, w, s, keep, NULL, NULL);
	free(keep);
	*rc = judge_fit(f, w, c, y, fo);
	if (*rc < 0 || fo->dropped[j] || !(fo->beta[j] > 0))
		return NAN;
	return xs + fmax(0, 1 - fo->ymean) / fo->beta[j];
}

/* The relative standard error of cap by the jackknife: the projection again with each of
 * JUDGE_JACK stretches of the window left out. It holds where the fit's own standard error is
 * too kind (residuals that are not independent, a wave, noise that is not normal). NAN when a
 * projection fails. */
static double judge_jackknife(const struct judge_frame *f, const struct judge_w *w, size_t s,
	const struct judge_cols *c, int j, const double *mean, double cap)
{
	size_t n = judge_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y)), sum = 0, sq = 0, v[JUDGE_JACK];
	for (size_t g = 0; g < JUDGE_JACK; g++) {
		for (size_t i = 0; i < n; i++)
			y[i] = i * JUDGE_JACK / n == g ? NAN : mean[i];
		struct fit fo;
		int rc;
		v[g] = judge_project(f, w, s, c, j, y, &fo, &rc);
		sum += v[g];
	}
	free(y);
	double m = sum / JUDGE_JACK;
	for (size_t g = 0; g < JUDGE_JACK; g++)
		sq += (v[g] - m) * (v[g] - m);
	return sqrt(sq * (JUDGE_JACK - 1) / JUDGE_JACK) / cap; /* NAN if any v[g] is */
}

/* Not saturated throughout: load = a + sum beta_j x_j over the window's polls, saturated ones
 * too (a saturated poll is the point where the line reaches 1). Capacity = the mean rate plus
 * the headroom left over the stream's marginal cost: mean(x) + (1 - mean(load)) / beta. */
static void judge_cap_fit(const struct judge_frame *f, const struct judge_w *w, size_t s, const double *mean,
	const struct judge_params *p, struct judge_cap *o)
{
	struct judge_cols c;
	judge_columns(f, w, p, &c);
	int j = judge_col_of(&c, s), rc = -1;
	o->why = "its cores' load does not follow its traffic";
	if (j < 0)
		return;
	struct fit fo;
	o->cap = judge_project(f, w, s, &c, j, mean, &fo, &rc);
	if (rc == -2)
		o->why = "too few polls yet to fit its cores' load";
	if (isnan(o->cap) || fo.beta[j] < JUDGE_FIT_T * fo.se[j])
		return;
	double head = fmax(0, 1 - fo.ymean), beta = fo.beta[j];
	o->rse = head / beta / o->cap * (fo.se[j] / beta);
	if (o->cap > JUDGE_MAX_EXTRAP * judge_rate_q(f, w, s, NULL, 0.9)) {
		o->why = "its rates were too low to project its capacity";
		return;
	}
	double jk = judge_jackknife(f, w, s, &c, j, mean, o->cap);
	if (isnan(jk)) {
		o->why = "too few polls yet to fit its cores' load";
		return;
	}
	o->rse = fmax(o->rse, jk);
	if (o->rse > JUDGE_MAX_RSE) {
		o->why = "its cores' load is too noisy to project its capacity";
		return;
	}
	o->ok = true;
	o->why = NULL;
}

static void judge_cap(const struct judge_frame *f, const struct judge_w *w, size_t s, const bool *carry,
	const struct judge_params *p, struct judge_cap *o)
{
	size_t n = judge_wn(w);
	const bool *on = carry + s * f->ncores;
	double *mean = xcalloc(n + 1, sizeof(double)), *top = xcalloc(n + 1, sizeof(double));
	*o = (struct judge_cap){ .cap = NAN, .rse = NAN, .load = NAN, .total = NAN };
	judge_core_load(f, w, on, mean, top);
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(mean[i]))
			sum += mean[i], k++;
	o->load = k ? sum / (double)k : NAN;
	if (!judge_cap_pinned(f, w, s, carry, on, top, p, o))
		judge_cap_fit(f, w, s, mean, p, o);
	free(mean);
	free(top);
}

/* ---- the verdict ---- */

static void judge_why(struct judge_result *r, const char *when, const char *why)
{
	snprintf(r->why, sizeof(r->why), "%s%s", when, why);
}

static void judge_cores_text(const bool *on, size_t nc, char *out, size_t size)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t c = 0; c < nc && o < size; c++)
		if (on[c])
			o += (size_t)snprintf(out + o, size - o, "%s%zu", o ? "+" : "", c);
}

/* Both windows saturated throughout: the capacities were measured. A fall (or rise) must show
 * in the traffic of every stream on those cores too, else it is demand that moved between
 * streams on a core that stayed full. */
static void judge_saturated(const struct judge_cap *b, const struct judge_cap *a,
	const struct judge_params *p, struct judge_result *r)
{
	double rt = a->total / b->total, lo = 1 - p->threshold, hi = 1 + p->threshold;
	r->method = DETECTOR_M_SATURATION;
	if (r->ratio < lo && rt < lo)
		r->verdict = DETECTOR_REGRESSION;
	else if (r->ratio > hi && rt > hi)
		r->verdict = DETECTOR_IMPROVEMENT;
	else
		r->verdict = DETECTOR_UNCHANGED;
}

/* At least one window projected: the change must pass the threshold and stand out of the
 * noise (JUDGE_SIGMAS standard errors); "unchanged" needs the noise to be small enough to say so. */
static void judge_projected(const struct judge_cap *b, const struct judge_cap *a,
	const struct judge_params *p, struct judge_result *r)
{
	double rse = sqrt(b->rse * b->rse + a->rse * a->rse), lo = 1 - p->threshold, hi = 1 + p->threshold;
	r->method = DETECTOR_M_COST;
	r->rse = rse;
	if (r->ratio < lo && r->ratio * (1 + JUDGE_SIGMAS * rse) < 1)
		r->verdict = DETECTOR_REGRESSION;
	else if (r->ratio > hi && r->ratio * (1 - JUDGE_SIGMAS * rse) > 1)
		r->verdict = DETECTOR_IMPROVEMENT;
	else if (r->ratio >= lo && r->ratio <= hi && 2 * rse <= p->threshold)
		r->verdict = DETECTOR_UNCHANGED;
	else {
		r->method = DETECTOR_M_NONE;
		r->hint = r->ratio < lo;
		r->ratio = NAN; /* insufficient-data carries no ratio: no guess */
		judge_why(r, "",
			r->hint ? "a fall, but within the noise of the samples"
				: "the change is within the noise of the samples");
	}
}

/* Samples, traffic: the checks before any method. False with r filled when they fail. */
static bool judge_enough(const struct judge_frame *f, const struct judge_w *b, const struct judge_w *a,
	size_t s, const struct judge_params *p, struct judge_result *r)
{
	size_t nb, na;
	judge_mean(f, b, s, NULL, NULL, &nb);
	judge_mean(f, a, s, NULL, NULL, &na);
	r->before_n = nb;
	r->after_n = na;
	r->before_bps = judge_rate_q(f, b, s, NULL, 0.5);
	r->after_bps = judge_rate_q(f, a, s, NULL, 0.5);
	if (nb < p->min_samples || na < p->min_samples) {
		judge_why(r, "",
			nb < p->min_samples ? "too few samples before the upgrade"
					    : "too few samples after the upgrade yet");
		return false;
	}
	if (!(r->before_bps >= p->min_bps)) {
		judge_why(r, "", "too little traffic before the upgrade");
		return false;
	}
	if (!(r->after_bps >= p->min_bps)) {
		r->hint = true; /* the traffic stopped: not a capacity figure, but worth a look */
		judge_why(r, "", "the traffic stopped after the upgrade");
		return false;
	}
	return true;
}

static void judge_stream(const struct judge_frame *f, const struct judge_w *b, const struct judge_w *a,
	size_t s, const bool *carry, const struct judge_params *p, struct judge_result *r)
{
	*r = (struct judge_result){ .verdict = DETECTOR_INSUFFICIENT,
		.method = DETECTOR_M_NONE,
		.ratio = NAN,
		.before_load = NAN,
		.after_load = NAN,
		.rse = NAN };
	const bool *on = carry + s * f->ncores;
	judge_cores_text(on, f->ncores, r->cores, sizeof(r->cores));
	if (!judge_enough(f, b, a, s, p, r))
		return;
	if (!judge_any(on, f->ncores)) {
		judge_why(r, "", "no core's load follows its traffic");
		return;
	}
	struct judge_cap cb, ca;
	judge_cap(f, b, s, carry, p, &cb);
	judge_cap(f, a, s, carry, p, &ca);
	r->before_load = cb.load;
	r->after_load = ca.load;
	if (!cb.ok || !ca.ok) {
		r->hint = !ca.ok && cb.ok; /* the after window cannot be compared: worth a look */
		judge_why(r, cb.ok ? "after the upgrade " : "before the upgrade ", cb.ok ? ca.why : cb.why);
		return;
	}
	r->before_bps = cb.cap;
	r->after_bps = ca.cap;
	r->ratio = ca.cap / cb.cap;
	if (cb.pinned && ca.pinned)
		judge_saturated(&cb, &ca, p, r);
	else
		judge_projected(&cb, &ca, p, r);
}

void judge_event(const struct judge_frame *f, const struct judge_params *p, struct judge_result *r)
{
	struct judge_w b = { 0, f->split }, a = { f->split, f->npolls };
	bool *carry = judge_attribute(f, &b, &a, p);
	struct profcore_pick *pick = profcore_attribute(f, &b, &a, p, carry); /* what no fit told */
	for (size_t s = 0; s < judge_nstreams(f); s++) {
		judge_stream(f, &b, &a, s, carry, p, &r[s]);
		profcore_note(&pick[s], &r[s]);
	}
	free(pick);
	free(carry);
}

/* ---- single-core bound ---- */

void judge_bound(const struct judge_poll *p, size_t n, struct detector_bound *b)
{
	size_t no = 0, pinned = 0, nq = 0;
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
