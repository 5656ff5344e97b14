/* SPDX-License-Identifier: Apache-2.0 */
/* wincap: a stream's capacity in one window (wincap.h): the columns, the fits, the cores that
 * carry each stream, and each window's capacity. Pure functions of a frame: never SQLite, a
 * clock or a lock, and never a call up into judge.c. */
#include "config.h"
#include "detector/wincap.h"
#include "detector/stats.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WINCAP_ATTR_LOAD  0.03 /* ... and the stream puts at least this load on it */
#define WINCAP_BLOCK_MAX  10   /* ... and at most this */
#define WINCAP_BLOCK_MIN  5    /* polls averaged into one point of a fit: n / 40, at least ... */
#define WINCAP_COLLINEAR  0.95 /* tx and rx correlated this much are fitted as one column */
#define WINCAP_FIT_T      3.0  /* a window's slope: this many standard errors above 0 */
#define WINCAP_JACK       10   /* stretches of the jackknife that checks a projection's error */
#define WINCAP_MAX_EXTRAP 8.0  /* a projection reaches at most this times the rates seen */
#define WINCAP_MIN_BLOCKS 20   /* a fit needs this many blocks: fewer give standard errors to distrust */

/* ---- statistics ---- */

/* ---- the frame ---- */

static double wincap_corr(const struct frame *f, const struct frame_w *w, size_t s1, size_t s2)
{
	double m1 = frame_mean(f, w, s1, NULL, NULL, NULL), m2 = frame_mean(f, w, s2, NULL, NULL, NULL);
	double sxy = 0, sxx = 0, syy = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double a = frame_rate(f, k, s1) - m1, b = frame_rate(f, k, s2) - m2;
		if (!isfinite(a) || !isfinite(b))
			continue;
		sxy += a * b;
		sxx += a * a;
		syy += b * b;
	}
	return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 1.0; /* flat: as good as collinear */
}

/* ---- the regressors of a window: the streams with traffic, grouped where they move together ---- */

/* A new column of stream s (mean rate mean); when full, the quietest makes way. */
static void wincap_cols_add(struct wincap_cols *c, size_t s, double mean)
{
	size_t j = c->m;
	if (j == WINCAP_MAX_COLS) {
		size_t lo = 0;
		for (size_t i = 1; i < WINCAP_MAX_COLS; i++)
			lo = c->mean[i] < c->mean[lo] ? i : lo;
		if (c->mean[lo] >= mean)
			return;
		j = lo;
	} else {
		c->m++;
	}
	c->n[j] = 1;
	c->mem[j][0] = s;
	c->mean[j] = mean;
}

/* The streams with traffic in w, busiest first, each a column of its own unless it moves with
 * a column's first stream (correlation >= WINCAP_COLLINEAR over both windows, so that both are
 * judged on the same columns): then the two are one group, fitted
 * as one column, for no fit can tell apart what always moves together (tx and rx of one
 * tunnel, or tunnels whose users share one day and no ups and downs of their own). */
void wincap_columns(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, struct wincap_cols *c)
{
	size_t ns = frame_nstreams(f), *order = xcalloc(ns + 1, sizeof(size_t)), k = 0;
	double *mean = xcalloc(ns + 1, sizeof(double));
	memset(c, 0, sizeof(*c));
	for (size_t s = 0; s < ns; s++) {
		mean[s] = frame_mean(f, w, s, NULL, NULL, NULL);
		if (mean[s] >= p->min_bps)
			order[k++] = s;
	}
	for (size_t a = 1; a < k; a++) /* busiest first: insertion sort, k is small */
		for (size_t b = a; b > 0 && mean[order[b]] > mean[order[b - 1]]; b--) {
			size_t t = order[b];
			order[b] = order[b - 1], order[b - 1] = t;
		}
	const struct frame_w all = { 0, f->npolls }; /* one grouping for both windows: a stream judged
							  with others before is judged with them after */
	for (size_t i = 0; i < k; i++) {
		size_t s = order[i], j = 0;
		while (j < c->m &&
			!(c->n[j] < WINCAP_MAX_COLS &&
				wincap_corr(f, &all, c->mem[j][0], s) >= WINCAP_COLLINEAR))
			j++;
		if (j == c->m)
			wincap_cols_add(c, s, mean[s]);
		else
			c->mem[j][c->n[j]++] = s, c->mean[j] += mean[s];
	}
	free(order);
	free(mean);
}

/* The column of stream s; -1 when it has none (too little traffic). */
int wincap_col_of(const struct wincap_cols *c, size_t s)
{
	for (size_t j = 0; j < c->m; j++)
		for (size_t i = 0; i < c->n[j]; i++)
			if (c->mem[j][i] == s)
				return (int)j;
	return -1;
}

/* Column j's rate at poll k: the sum of its streams'; NAN when one is missing. */
static double wincap_col_rate(const struct frame *f, const struct wincap_cols *c, size_t j, size_t k)
{
	double v = 0;
	for (size_t i = 0; i < c->n[j]; i++)
		v += frame_rate(f, k, c->mem[j][i]);
	return v;
}

/* The n x m matrix of w's polls (caller frees); NAN where a rate is missing. */
static double *wincap_matrix(const struct frame *f, const struct frame_w *w, const struct wincap_cols *c)
{
	size_t n = frame_wn(w);
	double *x = xcalloc(n * c->m + 1, sizeof(*x));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c->m; j++)
			x[i * c->m + j] = wincap_col_rate(f, c, j, w->from + i);
	return x;
}

/* Blocks of consecutive usable rows (no NAN) of x (n x m) and y: into bx (nb x 2m) and by the
 * number of blocks nb. The load is read at an instant, at the end of its poll, while a rate
 * covers its poll: the moments around the instant fall partly in the next poll, by a share
 * that depends on where the polls fall against the traffic's own ups and downs. So each block
 * has, per column, its mean rate and an edge term (the next poll's rate less the first's,
 * over the block's length) that the fit weighs as the data says: the slope of the mean is
 * then not biased, whatever that share. */
static size_t wincap_blocks(const double *x, const double *y, size_t n, size_t m, double *bx, double *by)
{
	size_t *idx = xcalloc(n + 1, sizeof(*idx)), k = 0, nb = 0;
	size_t bl = n / 40 < WINCAP_BLOCK_MIN ? WINCAP_BLOCK_MIN
		: n / 40 > WINCAP_BLOCK_MAX   ? WINCAP_BLOCK_MAX
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
static int wincap_fit(const struct frame *f, const struct frame_w *w, const struct wincap_cols *c,
	const double *y, struct fit *o)
{
	size_t n = frame_wn(w);
	double *x = wincap_matrix(f, w, c), *bx = xcalloc(2 * n * c->m + 1, sizeof(*bx));
	double *by = xcalloc(n + 1, sizeof(*by));
	size_t nb = wincap_blocks(x, y, n, c->m, bx, by);
	int rc = nb >= WINCAP_MIN_BLOCKS ? fit_ols(bx, by, nb, 2 * c->m, o) : -2;
	free(x);
	free(bx);
	free(by);
	return rc;
}

/* ---- which cores carry which stream ---- */

/* In window w, mark carry[s * ncores + c] where core c's load follows stream s's rate: a clear
 * positive slope in a regression of the core's load on every busy stream (so that streams
 * sharing the daily curve are told apart by their own ups and downs). */
void wincap_attribute_w(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, bool *carry)
{
	struct wincap_cols c;
	wincap_columns(f, w, p, &c);
	if (c.m == 0)
		return;
	size_t n = frame_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y));
	for (size_t core = 0; core < f->ncores; core++) {
		for (size_t i = 0; i < n; i++)
			y[i] = frame_load(f, w->from + i, core);
		struct fit o;
		if (wincap_fit(f, w, &c, y, &o) < 0)
			continue;
		for (size_t j = 0; j < c.m; j++) {
			bool follows = !o.dropped[j] && o.beta[j] > 0 &&
				o.beta[j] >= WINCAP_ATTR_T * o.se[j] &&
				o.beta[j] * o.xmean[j] >= WINCAP_ATTR_LOAD;
			if (!follows)
				continue;
			for (size_t i = 0; i < c.n[j]; i++)
				carry[c.mem[j][i] * f->ncores + core] = true;
		}
	}
	free(y);
}

bool wincap_any(const bool *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return true;
	return false;
}

/* The one core saturated in most of w's polls; SIZE_MAX when none or several. */
size_t wincap_pinned_core(const struct frame *f, const struct frame_w *w, const struct frame_params *p)
{
	size_t found = SIZE_MAX;
	for (size_t c = 0; c < f->ncores; c++) {
		if (!frame_core_pinned(f, w, c, p))
			continue;
		if (found != SIZE_MAX)
			return SIZE_MAX;
		found = c;
	}
	return found;
}

/* Add to to[] every core of from[] that is pinned in w: a core the stream had in the other
 * window and that is full in this one is flat, so this window's fit cannot see it, yet it is
 * the first candidate to fill. */
static void wincap_add_pinned(const struct frame *f, const struct frame_w *w, const bool *from, bool *to,
	const struct frame_params *p)
{
	for (size_t c = 0; c < f->ncores; c++)
		if (from[c] && !to[c] && frame_core_pinned(f, w, c, p))
			to[c] = true;
}

/* cw[0] and cw[1], each [s * ncores + c]: the cores that carry each stream in the before and
 * in the after window, each found in its own window (a tunnel may change core at the reboot).
 * A window that tells nothing for a stream takes the other's cores; where neither does, the
 * one core pinned at saturation (a flat, saturated window shows no slope) carries a stream held
 * as flat as the ceiling holds it there: a stream whose rate moves while that core stays at
 * 100 % runs elsewhere. What none of these tells, profcore.c may read from a CPU profile. */
void wincap_attribute(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	const struct frame_params *p, bool *cw[2])
{
	size_t ns = frame_nstreams(f), nc = f->ncores;
	bool *fb = xcalloc(ns * nc + 1, sizeof(bool)), *fa = xcalloc(ns * nc + 1, sizeof(bool));
	wincap_attribute_w(f, b, p, fb);
	wincap_attribute_w(f, a, p, fa);
	const struct frame_w *pw = b;
	size_t pin = wincap_pinned_core(f, b, p);
	if (pin == SIZE_MAX)
		pin = wincap_pinned_core(f, pw = a, p);
	for (size_t s = 0; s < ns; s++) {
		bool *ob = fb + s * nc, *oa = fa + s * nc, hb = wincap_any(ob, nc), ha = wincap_any(oa, nc);
		memcpy(cw[0] + s * nc, hb ? ob : oa, nc * sizeof(bool));
		memcpy(cw[1] + s * nc, ha ? oa : ob, nc * sizeof(bool));
		if (hb && ha) {
			wincap_add_pinned(f, b, oa, cw[0] + s * nc, p);
			wincap_add_pinned(f, a, ob, cw[1] + s * nc, p);
		} else if (!hb && !ha && pin != SIZE_MAX && frame_flat(f, pw, s)) {
			cw[0][s * nc + pin] = cw[1][s * nc + pin] = true;
		}
	}
	free(fb);
	free(fa);
}

/* What profcore.c placed in the before window's cores, also in the after window's where that
 * has none. */
void wincap_attribute_copy(const struct frame *f, bool *cw[2])
{
	size_t nc = f->ncores;
	for (size_t s = 0; s < frame_nstreams(f); s++)
		if (!wincap_any(cw[1] + s * nc, nc))
			memcpy(cw[1] + s * nc, cw[0] + s * nc, nc * sizeof(bool));
}

/* ---- a stream's capacity in one window ---- */

/* Per poll of w: the mean and the highest load of the cores in on[] (NAN if one is missing). */
static void wincap_core_load(
	const struct frame *f, const struct frame_w *w, const bool *on, double *mean, double *top)
{
	for (size_t i = 0; i < frame_wn(w); i++) {
		double sum = 0, hi = -INFINITY;
		size_t n = 0;
		for (size_t c = 0; c < f->ncores; c++) {
			if (!on[c])
				continue;
			double l = frame_load(f, w->from + i, c);
			sum += l;
			hi = fmax(hi, l);
			n++;
		}
		mean[i] = n && isfinite(sum) ? sum / (double)n : NAN;
		top[i] = n && isfinite(sum) ? hi : NAN;
	}
}

/* Saturated throughout: the rate it held is the capacity (1 when it is, else 0). */
static int wincap_cap_pinned(const struct frame *f, const struct frame_w *w, size_t s, const bool *carry,
	const bool *on, const double *top, const struct frame_params *p, struct wincap_cap *o)
{
	size_t n = frame_wn(w), nsat = 0, nfin = 0;
	bool *keep = xcalloc(n + 1, sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		keep[i] = top[i] >= p->saturated;
		nsat += keep[i];
		nfin += isfinite(top[i]);
	}
	double sd, mean = frame_mean(f, w, s, keep, &sd, NULL);
	int pinned = nsat > 0 && (double)nsat >= FRAME_PIN_SHARE * (double)nfin && mean > 0 &&
		sd / mean <= FRAME_PIN_CV;
	if (pinned) {
		o->ok = o->pinned = true;
		o->cap = frame_rate_q(f, w, s, keep, 0.5);
		o->rse = fmax(sd / mean / sqrt((double)nsat), 0.005);
	}
	free(keep);
	return pinned;
}

/* Stream s's share of column j's traffic over w's polls where y is finite, and its mean rate. */
static double wincap_share(const struct frame *f, const struct frame_w *w, size_t s,
	const struct wincap_cols *c, int j, const double *y, double *xs)
{
	double sx = 0, sg = 0;
	size_t k = 0;
	for (size_t i = 0; i < frame_wn(w); i++) {
		double x = frame_rate(f, w->from + i, s), g = wincap_col_rate(f, c, (size_t)j, w->from + i);
		if (!isfinite(y[i]) || !isfinite(x) || !isfinite(g))
			continue;
		sx += x, sg += g, k++;
	}
	*xs = k ? sx / (double)k : NAN;
	return sg > 0 ? sx / sg : NAN;
}

/* The capacity projected on w's polls where y is finite (*fo the fit of column j): the
 * column's mean rate plus the headroom left over its slope is the rate at which the core fills
 * at the window's mix; the stream's capacity is its share of that. For a column of one stream,
 * mean(x) + (1 - mean(load)) / beta. NAN when the fit fails or its slope is not positive. */
static double wincap_project(const struct frame *f, const struct frame_w *w, size_t s,
	const struct wincap_cols *c, int j, const double *y, struct fit *fo, int *rc)
{
	double xs, share = wincap_share(f, w, s, c, j, y, &xs);
	*rc = wincap_fit(f, w, c, y, fo);
	if (*rc < 0 || fo->dropped[j] || !(fo->beta[j] > 0))
		return NAN;
	return xs + share * fmax(0, 1 - fo->ymean) / fo->beta[j];
}

/* Core c's load over w's polls into y; NAN where a poll of it is missing (left out). */
static void wincap_core_y(const struct frame *f, const struct frame_w *w, size_t c, double *y)
{
	for (size_t i = 0; i < frame_wn(w); i++)
		y[i] = frame_load(f, w->from + i, c);
}

/* The smallest of the candidates' projections on w with the polls where gone[i] left out; NAN
 * when one of them fails. */
static double wincap_min_project(const struct frame *f, const struct frame_w *w, size_t s,
	const struct wincap_cols *c, int j, const struct wincap_cands *k, const bool *gone, double *y)
{
	double lo = INFINITY;
	for (size_t i = 0; i < k->n; i++) {
		wincap_core_y(f, w, k->core[i], y);
		for (size_t t = 0; t < frame_wn(w); t++)
			y[t] = gone[t] ? NAN : y[t];
		struct fit fo;
		int rc;
		lo = fmin(lo, wincap_project(f, w, s, c, j, y, &fo, &rc)); /* fmin keeps a NAN out ... */
		if (rc < 0 || fo.dropped[j] || !(fo.beta[j] > 0))
			return NAN; /* ... so a failed projection says so here */
	}
	return lo;
}

/* The relative standard error of cap, the smallest projection over the candidates, by the
 * jackknife: the projections again with each of WINCAP_JACK stretches of the window left out,
 * the smallest each time (the core that fills first may change between them). It holds where
 * the fit's own standard error is too kind (residuals that are not independent, a wave, noise
 * that is not normal). NAN when a projection fails. */
double wincap_jackknife(const struct frame *f, const struct frame_w *w, size_t s, const struct wincap_cols *c,
	int j, const struct wincap_cands *k, double cap)
{
	size_t n = frame_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y)), sum = 0, sq = 0, v[WINCAP_JACK];
	bool *gone = xcalloc(n + 1, sizeof(bool));
	for (size_t g = 0; g < WINCAP_JACK; g++) {
		for (size_t i = 0; i < n; i++)
			gone[i] = i * WINCAP_JACK / n == g;
		v[g] = wincap_min_project(f, w, s, c, j, k, gone, y);
		sum += v[g];
	}
	free(y);
	free(gone);
	double m = sum / WINCAP_JACK;
	for (size_t g = 0; g < WINCAP_JACK; g++)
		sq += (v[g] - m) * (v[g] - m);
	return sqrt(sq * (WINCAP_JACK - 1) / WINCAP_JACK) / cap; /* NAN if any v[g] is */
}

/* One core of the stream: its projected capacity into *cap and the fit's relative standard
 * error into *rse. 0 when it is a candidate to fill first; 1 when its load does not follow the
 * stream here; 2 when too few polls yet; 3 when it would fill only far beyond the rates seen. */
static int wincap_core_cap(const struct frame *f, const struct frame_w *w, size_t s,
	const struct wincap_cols *c, int j, size_t core, double *cap, double *rse)
{
	size_t n = frame_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y));
	wincap_core_y(f, w, core, y);
	struct fit fo;
	int rc;
	*cap = wincap_project(f, w, s, c, j, y, &fo, &rc);
	free(y);
	if (rc == -2)
		return 2;
	if (isnan(*cap) || fo.beta[j] < WINCAP_FIT_T * fo.se[j])
		return 1;
	double head = fmax(0, 1 - fo.ymean), beta = fo.beta[j];
	*rse = head / beta / *cap * (fo.se[j] / beta);
	return *cap > WINCAP_MAX_EXTRAP * frame_rate_q(f, w, s, NULL, 0.9) ? 3 : 0;
}

/* Not saturated throughout: for each of the stream's cores, load = a + sum beta_j x_j over the
 * window's polls, saturated ones too (a saturated poll is the point where the line reaches 1),
 * and its capacity the mean rate plus the headroom left over the stream's marginal cost there:
 * mean(x) + (1 - mean(load)) / beta. The stream's capacity is the smallest: the core that
 * fills first. A core whose load does not follow the stream here, or that would fill only far
 * beyond the rates seen, cannot be the one (another fills first, or nothing can be said). */
static void wincap_cap_fit(const struct frame *f, const struct frame_w *w, size_t s, const bool *on,
	const struct frame_params *p, struct wincap_cap *o)
{
	struct wincap_cols c;
	wincap_columns(f, w, p, &c);
	int j = wincap_col_of(&c, s), worst = 1;
	o->why = "its cores' load does not follow its traffic";
	if (j < 0)
		return;
	struct wincap_cands k = { 0 };
	double best = INFINITY, rse = NAN;
	for (size_t core = 0; core < f->ncores && k.n < FIT_MAX; core++) {
		double cap = NAN, r = NAN;
		int rc = on[core] ? wincap_core_cap(f, w, s, &c, j, core, &cap, &r) : 1;
		worst = rc > worst ? rc : worst;
		if (rc == 3 && o->far.n < FIT_MAX) {
			o->capf[o->far.n] = cap, o->rsef[o->far.n] = r;
			o->far.core[o->far.n++] = core;
		}
		if (rc != 0)
			continue;
		o->rsec[k.n] = r;
		o->capc[k.n] = cap;
		k.core[k.n++] = core;
		if (cap < best)
			best = cap, rse = r, o->core = (int)core;
	}
	if (k.n == 0) {
		o->why = worst == 2  ? "too few polls yet to fit its cores' load"
			: worst == 3 ? "its rates were too low to project its capacity"
				     : o->why;
		return;
	}
	o->cap = best;
	o->cands = k;
	double jk = wincap_jackknife(f, w, s, &c, j, &k, best);
	if (isnan(jk)) {
		o->why = "too few polls yet to fit its cores' load";
		return;
	}
	o->rse = fmax(rse, jk);
	if (o->rse > WINCAP_MAX_RSE) {
		o->why = "its cores' load is too noisy to project its capacity";
		return;
	}
	o->ok = true;
	o->why = NULL;
}

void wincap_find(const struct frame *f, const struct frame_w *w, size_t s, const bool *carry,
	const struct frame_params *p, struct wincap_cap *o)
{
	size_t n = frame_wn(w);
	const bool *on = carry + s * f->ncores;
	double *mean = xcalloc(n + 1, sizeof(double)), *top = xcalloc(n + 1, sizeof(double));
	*o = (struct wincap_cap){ .cap = NAN, .rse = NAN, .load = NAN, .core = -1 };
	wincap_core_load(f, w, on, mean, top);
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(top[i]))
			sum += top[i], k++;
	o->load = k ? sum / (double)k : NAN;
	if (!wincap_cap_pinned(f, w, s, carry, on, top, p, o))
		wincap_cap_fit(f, w, s, on, p, o);
	free(mean);
	free(top);
}
