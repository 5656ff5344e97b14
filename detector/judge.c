/* SPDX-License-Identifier: Apache-2.0 */
/* judge: the maths of a verdict on one version change, on samples already in memory. For each
 * WireGuard stream (interface x direction) it finds the core(s) whose load follows the stream's
 * traffic, then the stream's capacity in each window: measured where those cores stayed
 * saturated, else projected from the marginal cost (the slope of their load against the rates)
 * and the headroom left; the ratio of the two capacities is the verdict. Also the single-core
 * bound. It must never touch SQLite, a clock or a lock, and never claim what the data cannot
 * tell: unit tests call it on synthetic frames. docs/detector.md explains the model. */
#include "config.h"
#include "detector/judge.h"
#include "detector/fit.h"
#include "detector/matched.h"
#include "detector/own.h"
#include "detector/profcore.h"
#include "detector/stats.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JUDGE_ATTR_T        4.0  /* a core carries a stream: slope this many std errors above 0 ... */
#define JUDGE_OWN_YES       3.0  /* a core carries a group member: its own t this high in both windows */
#define JUDGE_OWN_NOT       2.0  /* ... does not: below this, while another member's is that high */
#define JUDGE_ATTR_LOAD     0.03 /* ... and the stream puts at least this load on it */
#define JUDGE_FIT_T         3.0  /* a window's slope: this many standard errors above 0 */
#define JUDGE_MAX_EXTRAP    8.0  /* a projection reaches at most this times the rates seen */
#define JUDGE_MAX_RSE       0.25 /* a capacity known to this relative standard error at worst */
#define JUDGE_COLLINEAR     0.95 /* tx and rx correlated this much are fitted as one column */
#define JUDGE_BLOCK_MIN     5    /* polls averaged into one point of a fit: n / 40, at least ... */
#define JUDGE_BLOCK_MAX     10   /* ... and at most this */
#define JUDGE_SIGMAS        4.0  /* a change is claimed when it is this many standard errors out */
#define JUDGE_SIZE_ABS      0.10 /* ... and its size stated when known to this, at two (judge_sized) */
#define JUDGE_MAX_COLS      (FIT_MAX / 2) /* streams in a fit: each has its edge column too */
#define JUDGE_JACK          10            /* stretches of the jackknife that checks a projection's error */
#define JUDGE_ALONE         0.90          /* a stream alone: this share of the WireGuard traffic */
#define JUDGE_MIN_BLOCKS    20   /* a fit needs this many blocks: fewer give standard errors to distrust */
#define JUDGE_BOUND_BUSIEST 0.95 /* single-core bound: busiest core at least this ... */
#define JUDGE_BOUND_OTHERS  0.50 /* ... while the other cores average less than this ... */
#define JUDGE_BOUND_SHARE   0.80 /* ... in this share of the recent polls */
#define JUDGE_BOUND_MIN     3    /* polls needed to say anything */

/* ---- statistics ---- */

/* ---- the frame ---- */

static double judge_corr(const struct frame *f, const struct frame_w *w, size_t s1, size_t s2)
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

struct judge_cols {
	size_t m;
	size_t n[JUDGE_MAX_COLS];                   /* streams in column j ... */
	size_t mem[JUDGE_MAX_COLS][JUDGE_MAX_COLS]; /* ... and which: a group fitted as one */
	double mean[JUDGE_MAX_COLS];                /* of the column's rate, its members' sum */
};

/* A new column of stream s (mean rate mean); when full, the quietest makes way. */
static void judge_cols_add(struct judge_cols *c, size_t s, double mean)
{
	size_t j = c->m;
	if (j == JUDGE_MAX_COLS) {
		size_t lo = 0;
		for (size_t i = 1; i < JUDGE_MAX_COLS; i++)
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
 * a column's first stream (correlation >= JUDGE_COLLINEAR over both windows, so that both are
 * judged on the same columns): then the two are one group, fitted
 * as one column, for no fit can tell apart what always moves together (tx and rx of one
 * tunnel, or tunnels whose users share one day and no ups and downs of their own). */
static void judge_columns(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, struct judge_cols *c)
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
			!(c->n[j] < JUDGE_MAX_COLS &&
				judge_corr(f, &all, c->mem[j][0], s) >= JUDGE_COLLINEAR))
			j++;
		if (j == c->m)
			judge_cols_add(c, s, mean[s]);
		else
			c->mem[j][c->n[j]++] = s, c->mean[j] += mean[s];
	}
	free(order);
	free(mean);
}

/* The column of stream s; -1 when it has none (too little traffic). */
static int judge_col_of(const struct judge_cols *c, size_t s)
{
	for (size_t j = 0; j < c->m; j++)
		for (size_t i = 0; i < c->n[j]; i++)
			if (c->mem[j][i] == s)
				return (int)j;
	return -1;
}

/* Column j's rate at poll k: the sum of its streams'; NAN when one is missing. */
static double judge_col_rate(const struct frame *f, const struct judge_cols *c, size_t j, size_t k)
{
	double v = 0;
	for (size_t i = 0; i < c->n[j]; i++)
		v += frame_rate(f, k, c->mem[j][i]);
	return v;
}

/* The n x m matrix of w's polls (caller frees); NAN where a rate is missing. */
static double *judge_matrix(const struct frame *f, const struct frame_w *w, const struct judge_cols *c)
{
	size_t n = frame_wn(w);
	double *x = xcalloc(n * c->m + 1, sizeof(*x));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < c->m; j++)
			x[i * c->m + j] = judge_col_rate(f, c, j, w->from + i);
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
static int judge_fit(const struct frame *f, const struct frame_w *w, const struct judge_cols *c,
	const double *y, struct fit *o)
{
	size_t n = frame_wn(w);
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
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, bool *carry)
{
	struct judge_cols c;
	judge_columns(f, w, p, &c);
	if (c.m == 0)
		return;
	size_t n = frame_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y));
	for (size_t core = 0; core < f->ncores; core++) {
		for (size_t i = 0; i < n; i++)
			y[i] = frame_load(f, w->from + i, core);
		struct fit o;
		if (judge_fit(f, w, &c, y, &o) < 0)
			continue;
		for (size_t j = 0; j < c.m; j++) {
			bool follows = !o.dropped[j] && o.beta[j] > 0 &&
				o.beta[j] >= JUDGE_ATTR_T * o.se[j] &&
				o.beta[j] * o.xmean[j] >= JUDGE_ATTR_LOAD;
			if (!follows)
				continue;
			for (size_t i = 0; i < c.n[j]; i++)
				carry[c.mem[j][i] * f->ncores + core] = true;
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

/* The one core saturated in most of w's polls; SIZE_MAX when none or several. */
static size_t judge_pinned_core(const struct frame *f, const struct frame_w *w, const struct frame_params *p)
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
static void judge_add_pinned(const struct frame *f, const struct frame_w *w, const bool *from, bool *to,
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
static void judge_attribute(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	const struct frame_params *p, bool *cw[2])
{
	size_t ns = frame_nstreams(f), nc = f->ncores;
	bool *fb = xcalloc(ns * nc + 1, sizeof(bool)), *fa = xcalloc(ns * nc + 1, sizeof(bool));
	judge_attribute_w(f, b, p, fb);
	judge_attribute_w(f, a, p, fa);
	const struct frame_w *pw = b;
	size_t pin = judge_pinned_core(f, b, p);
	if (pin == SIZE_MAX)
		pin = judge_pinned_core(f, pw = a, p);
	for (size_t s = 0; s < ns; s++) {
		bool *ob = fb + s * nc, *oa = fa + s * nc, hb = judge_any(ob, nc), ha = judge_any(oa, nc);
		memcpy(cw[0] + s * nc, hb ? ob : oa, nc * sizeof(bool));
		memcpy(cw[1] + s * nc, ha ? oa : ob, nc * sizeof(bool));
		if (hb && ha) {
			judge_add_pinned(f, b, oa, cw[0] + s * nc, p);
			judge_add_pinned(f, a, ob, cw[1] + s * nc, p);
		} else if (!hb && !ha && pin != SIZE_MAX && frame_flat(f, pw, s)) {
			cw[0][s * nc + pin] = cw[1][s * nc + pin] = true;
		}
	}
	free(fb);
	free(fa);
}

/* What profcore.c placed in the before window's cores, also in the after window's where that
 * has none. */
static void judge_attribute_copy(const struct frame *f, bool *cw[2])
{
	size_t nc = f->ncores;
	for (size_t s = 0; s < frame_nstreams(f); s++)
		if (!judge_any(cw[1] + s * nc, nc))
			memcpy(cw[1] + s * nc, cw[0] + s * nc, nc * sizeof(bool));
}

/* ---- a stream's capacity in one window ---- */

/* The cores of a stream that may fill first in a window: those whose projection held. */
struct judge_cands {
	size_t n;
	size_t core[FIT_MAX];
};

struct judge_cap {
	bool ok, pinned;
	double cap, rse;          /* bits/s; its relative standard error */
	double load;              /* mean load of the stream's cores */
	double total;             /* pinned: median traffic of every stream on those cores */
	int core;                 /* projected: the core that fills first; -1 */
	const char *why;          /* !ok: why not */
	struct judge_cands cands; /* projected: the cores that could fill first ... */
	double capc[FIT_MAX];     /* ... each one's capacity ... */
	double rsec[FIT_MAX];     /* ... and its relative standard error */
	struct judge_cands far;   /* cores that follow the stream but fill only far beyond the
				     rates seen: not the first to fill ... */
	double capf[FIT_MAX];     /* ... each one's capacity ... */
	double rsef[FIT_MAX];     /* ... and its relative standard error */
};

/* Per poll of w: the mean and the highest load of the cores in on[] (NAN if one is missing). */
static void judge_core_load(
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

/* The traffic of every stream that shares a core with on[], per poll of w. */
static double judge_shared_total(
	const struct frame *f, const struct frame_w *w, const bool *carry, const bool *on, const bool *keep)
{
	size_t n = frame_wn(w), nc = f->ncores;
	double *v = xcalloc(n + 1, sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		double sum = 0;
		for (size_t s = 0; s < frame_nstreams(f); s++)
			for (size_t c = 0; c < nc; c++)
				if (on[c] && carry[s * nc + c]) {
					double x = frame_rate(f, w->from + i, s);
					sum += isfinite(x) ? x : 0;
					break;
				}
		v[m++] = sum;
	}
	return stats_median_take(v, m);
}

/* Saturated throughout: the rate it held is the capacity (1 when it is, else 0). */
static int judge_cap_pinned(const struct frame *f, const struct frame_w *w, size_t s, const bool *carry,
	const bool *on, const double *top, const struct frame_params *p, struct judge_cap *o)
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
		o->total = judge_shared_total(f, w, carry, on, keep);
	}
	free(keep);
	return pinned;
}

/* Stream s's share of column j's traffic over w's polls where y is finite, and its mean rate. */
static double judge_share(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_cols *c, int j, const double *y, double *xs)
{
	double sx = 0, sg = 0;
	size_t k = 0;
	for (size_t i = 0; i < frame_wn(w); i++) {
		double x = frame_rate(f, w->from + i, s), g = judge_col_rate(f, c, (size_t)j, w->from + i);
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
static double judge_project(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_cols *c, int j, const double *y, struct fit *fo, int *rc)
{
	double xs, share = judge_share(f, w, s, c, j, y, &xs);
	*rc = judge_fit(f, w, c, y, fo);
	if (*rc < 0 || fo->dropped[j] || !(fo->beta[j] > 0))
		return NAN;
	return xs + share * fmax(0, 1 - fo->ymean) / fo->beta[j];
}

/* Core c's load over w's polls into y; NAN where a poll of it is missing (left out). */
static void judge_core_y(const struct frame *f, const struct frame_w *w, size_t c, double *y)
{
	for (size_t i = 0; i < frame_wn(w); i++)
		y[i] = frame_load(f, w->from + i, c);
}

/* The smallest of the candidates' projections on w with the polls where gone[i] left out; NAN
 * when one of them fails. */
static double judge_min_project(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_cols *c, int j, const struct judge_cands *k, const bool *gone, double *y)
{
	double lo = INFINITY;
	for (size_t i = 0; i < k->n; i++) {
		judge_core_y(f, w, k->core[i], y);
		for (size_t t = 0; t < frame_wn(w); t++)
			y[t] = gone[t] ? NAN : y[t];
		struct fit fo;
		int rc;
		lo = fmin(lo, judge_project(f, w, s, c, j, y, &fo, &rc)); /* fmin keeps a NAN out ... */
		if (rc < 0 || fo.dropped[j] || !(fo.beta[j] > 0))
			return NAN; /* ... so a failed projection says so here */
	}
	return lo;
}

/* The relative standard error of cap, the smallest projection over the candidates, by the
 * jackknife: the projections again with each of JUDGE_JACK stretches of the window left out,
 * the smallest each time (the core that fills first may change between them). It holds where
 * the fit's own standard error is too kind (residuals that are not independent, a wave, noise
 * that is not normal). NAN when a projection fails. */
static double judge_jackknife(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_cols *c, int j, const struct judge_cands *k, double cap)
{
	size_t n = frame_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y)), sum = 0, sq = 0, v[JUDGE_JACK];
	bool *gone = xcalloc(n + 1, sizeof(bool));
	for (size_t g = 0; g < JUDGE_JACK; g++) {
		for (size_t i = 0; i < n; i++)
			gone[i] = i * JUDGE_JACK / n == g;
		v[g] = judge_min_project(f, w, s, c, j, k, gone, y);
		sum += v[g];
	}
	free(y);
	free(gone);
	double m = sum / JUDGE_JACK;
	for (size_t g = 0; g < JUDGE_JACK; g++)
		sq += (v[g] - m) * (v[g] - m);
	return sqrt(sq * (JUDGE_JACK - 1) / JUDGE_JACK) / cap; /* NAN if any v[g] is */
}

/* One core of the stream: its projected capacity into *cap and the fit's relative standard
 * error into *rse. 0 when it is a candidate to fill first; 1 when its load does not follow the
 * stream here; 2 when too few polls yet; 3 when it would fill only far beyond the rates seen. */
static int judge_core_cap(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_cols *c, int j, size_t core, double *cap, double *rse)
{
	size_t n = frame_wn(w);
	double *y = xcalloc(n + 1, sizeof(*y));
	judge_core_y(f, w, core, y);
	struct fit fo;
	int rc;
	*cap = judge_project(f, w, s, c, j, y, &fo, &rc);
	free(y);
	if (rc == -2)
		return 2;
	if (isnan(*cap) || fo.beta[j] < JUDGE_FIT_T * fo.se[j])
		return 1;
	double head = fmax(0, 1 - fo.ymean), beta = fo.beta[j];
	*rse = head / beta / *cap * (fo.se[j] / beta);
	return *cap > JUDGE_MAX_EXTRAP * frame_rate_q(f, w, s, NULL, 0.9) ? 3 : 0;
}

/* Not saturated throughout: for each of the stream's cores, load = a + sum beta_j x_j over the
 * window's polls, saturated ones too (a saturated poll is the point where the line reaches 1),
 * and its capacity the mean rate plus the headroom left over the stream's marginal cost there:
 * mean(x) + (1 - mean(load)) / beta. The stream's capacity is the smallest: the core that
 * fills first. A core whose load does not follow the stream here, or that would fill only far
 * beyond the rates seen, cannot be the one (another fills first, or nothing can be said). */
static void judge_cap_fit(const struct frame *f, const struct frame_w *w, size_t s, const bool *on,
	const struct frame_params *p, struct judge_cap *o)
{
	struct judge_cols c;
	judge_columns(f, w, p, &c);
	int j = judge_col_of(&c, s), worst = 1;
	o->why = "its cores' load does not follow its traffic";
	if (j < 0)
		return;
	struct judge_cands k = { 0 };
	double best = INFINITY, rse = NAN;
	for (size_t core = 0; core < f->ncores && k.n < FIT_MAX; core++) {
		double cap = NAN, r = NAN;
		int rc = on[core] ? judge_core_cap(f, w, s, &c, j, core, &cap, &r) : 1;
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
	double jk = judge_jackknife(f, w, s, &c, j, &k, best);
	if (isnan(jk)) {
		o->why = "too few polls yet to fit its cores' load";
		return;
	}
	o->rse = fmax(rse, jk);
	if (o->rse > JUDGE_MAX_RSE) {
		o->why = "its cores' load is too noisy to project its capacity";
		return;
	}
	o->ok = true;
	o->why = NULL;
}

static void judge_cap(const struct frame *f, const struct frame_w *w, size_t s, const bool *carry,
	const struct frame_params *p, struct judge_cap *o)
{
	size_t n = frame_wn(w);
	const bool *on = carry + s * f->ncores;
	double *mean = xcalloc(n + 1, sizeof(double)), *top = xcalloc(n + 1, sizeof(double));
	*o = (struct judge_cap){ .cap = NAN, .rse = NAN, .load = NAN, .total = NAN, .core = -1 };
	judge_core_load(f, w, on, mean, top);
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(top[i]))
			sum += top[i], k++;
	o->load = k ? sum / (double)k : NAN;
	if (!judge_cap_pinned(f, w, s, carry, on, top, p, o))
		judge_cap_fit(f, w, s, on, p, o);
	free(mean);
	free(top);
}

/* ---- the verdict ---- */

/* text into out[size], cut at a character boundary when longer. */
static void judge_text(char *out, size_t size, const char *text)
{
	size_t n = strlen(text);
	if (n >= size)
		for (n = size - 1; n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80; n--)
			;
	memcpy(out, text, n);
	out[n] = '\0';
}

static void judge_why(struct frame_result *r, const char *when, const char *why)
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
	const struct frame_params *p, struct frame_result *r)
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

/* Whether a ratio is known well enough to state: at two standard errors within the threshold
 * of itself, or within JUDGE_SIZE_ABS either way (a fall to 0.4 known to ±0.1). Short of that
 * a fall is a sign, and matched-rate's bound may say it (docs/detector.md). */
static bool judge_sized(double ratio, double rse, const struct frame_params *p)
{
	return 2 * rse <= p->threshold || 2 * rse * ratio <= JUDGE_SIZE_ABS;
}

/* The four-way decision on a projected ratio and its relative standard error: a change must pass
 * the threshold and stand out of the noise (JUDGE_SIGMAS standard errors), and every verdict
 * needs its size known (judge_sized); insufficient-data otherwise. */
static enum detector_outcome judge_decide(double ratio, double rse, const struct frame_params *p)
{
	double lo = 1 - p->threshold, hi = 1 + p->threshold;
	if (!judge_sized(ratio, rse, p))
		return DETECTOR_INSUFFICIENT;
	if (ratio < lo && ratio * (1 + JUDGE_SIGMAS * rse) < 1)
		return DETECTOR_REGRESSION;
	if (ratio > hi && ratio * (1 - JUDGE_SIGMAS * rse) > 1)
		return DETECTOR_IMPROVEMENT;
	if (ratio >= lo && ratio <= hi)
		return DETECTOR_UNCHANGED;
	return DETECTOR_INSUFFICIENT;
}

/* At least one window projected: judge_decide on the two windows' ratio and joint error. */
static void judge_projected(const struct judge_cap *b, const struct judge_cap *a,
	const struct frame_params *p, struct frame_result *r)
{
	double rse = sqrt(b->rse * b->rse + a->rse * a->rse);
	r->method = DETECTOR_M_COST;
	r->rse = rse;
	r->verdict = judge_decide(r->ratio, rse, p);
	if (r->verdict == DETECTOR_INSUFFICIENT) {
		r->method = DETECTOR_M_NONE;
		r->hint = r->ratio < 1 - p->threshold;
		r->ratio = NAN; /* insufficient-data carries no ratio: no guess */
		judge_why(r, "",
			r->hint ? "a fall, but within the noise of the samples"
				: "the change is within the noise of the samples");
	}
}

/* Samples, traffic: the checks before any method. False with r filled when they fail. */
static bool judge_enough(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct frame_params *p, struct frame_result *r)
{
	size_t nb, na;
	frame_mean(f, b, s, NULL, NULL, &nb);
	frame_mean(f, a, s, NULL, NULL, &na);
	r->before_n = nb;
	r->after_n = na;
	r->before_bps = frame_rate_q(f, b, s, NULL, 0.5);
	r->after_bps = frame_rate_q(f, a, s, NULL, 0.5);
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

/* The cores of stream s in either window, "3" or "1+2". */
static void judge_cores_union(const struct frame *f, size_t s, bool *const cw[2], char *out, size_t size)
{
	size_t nc = f->ncores;
	bool *on = xcalloc(nc + 1, sizeof(bool));
	for (size_t c = 0; c < nc; c++)
		on[c] = cw[0][s * nc + c] || cw[1][s * nc + c];
	judge_cores_text(on, nc, out, size);
	free(on);
}

/* Says in r->why where the stream's cores moved between the windows, or which of several fills
 * first, when either is so: the operator should know which core the verdict rests on. */
static void judge_cores_note(const struct frame *f, size_t s, bool *const cw[2], const struct judge_cap *cb,
	const struct judge_cap *ca, struct frame_result *r)
{
	size_t nc = f->ncores;
	char tb[32], ta[32], line[160] = "";
	judge_cores_text(cw[0] + s * nc, nc, tb, sizeof(tb));
	judge_cores_text(cw[1] + s * nc, nc, ta, sizeof(ta));
	if (strcmp(tb, ta) != 0)
		snprintf(line, sizeof(line), "its cores were %s before the upgrade, %s after", tb, ta);
	else if (strchr(tb, '+') && cb->core >= 0 && ca->core >= 0)
		snprintf(line, sizeof(line), "core %d of %s fills first before the upgrade, core %d after",
			cb->core, tb, ca->core);
	judge_text(r->why, sizeof(r->why), line);
}

/* "wg1 tx" for stream s into out. */
static void judge_stream_name(const struct frame *f, size_t s, char *out, size_t size)
{
	const char *dir = s % 2 ? "rx" : "tx";
	if (f->names)
		snprintf(out, size, "%s %s", f->names[s / 2], dir);
	else
		snprintf(out, size, "wg%zu %s", s / 2, dir);
}

/* The streams fitted in one column with s in either window (s left out) into *others (the
 * names, ", " between them); their number. */
static void judge_group_in(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct frame_params *p, bool *in)
{
	const struct frame_w *w[2] = { b, a };
	for (int i = 0; i < 2; i++) {
		struct judge_cols c;
		judge_columns(f, w[i], p, &c);
		int j = judge_col_of(&c, s);
		for (size_t k = 0; j >= 0 && k < c.n[j]; k++)
			in[c.mem[j][k]] = in[c.mem[j][k]] || c.mem[j][k] != s;
	}
}

static size_t judge_group_of(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	size_t s, const struct frame_params *p, char *others, size_t size)
{
	bool *in = xcalloc(frame_nstreams(f) + 1, sizeof(bool));
	judge_group_in(f, b, a, s, p, in);
	size_t n = 0, o = 0;
	others[0] = '\0';
	for (size_t t = 0; t < frame_nstreams(f); t++) {
		if (!in[t] || o + 2 >= size)
			continue;
		char name[64];
		judge_stream_name(f, t, name, sizeof(name));
		o += (size_t)snprintf(others + o, size - o, "%s%s", n++ ? ", " : "", name);
		o = o < size ? o : size - 1;
	}
	free(in);
	return n;
}

/* What one core of a group did across the change: it held (kept its capacity, or has room far
 * beyond the rates seen after it), fell (lost capacity beyond the threshold and the noise), or
 * neither can be said (it followed the group in one window only, or within the noise). */
enum judge_core_fate { JUDGE_CORE_UNCLEAR, JUDGE_CORE_HELD, JUDGE_CORE_FELL };

/* The index of core in k; -1 when it is not there. */
static int judge_cand_of(const struct judge_cands *k, size_t core)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->core[i] == core)
			return (int)i;
	return -1;
}

static enum judge_core_fate judge_core_fate(const struct judge_cap *cb, const struct judge_cap *ca,
	size_t core, const struct frame_params *p, double *ratio)
{
	int i = judge_cand_of(&cb->cands, core), k = judge_cand_of(&ca->cands, core);
	bool far_b = judge_cand_of(&cb->far, core) >= 0, far_a = judge_cand_of(&ca->far, core) >= 0;
	if ((far_b || i >= 0) && far_a)
		return JUDGE_CORE_HELD; /* room far beyond the rates seen after the change */
	if (i < 0 || k < 0)
		return JUDGE_CORE_UNCLEAR;
	*ratio = ca->capc[k] / cb->capc[i];
	double rse = sqrt(cb->rsec[i] * cb->rsec[i] + ca->rsec[k] * ca->rsec[k]);
	if (*ratio >= 1 - p->threshold)
		return JUDGE_CORE_HELD;
	return *ratio * (1 + JUDGE_SIGMAS * rse) < 1 ? JUDGE_CORE_FELL : JUDGE_CORE_UNCLEAR;
}

/* Of the cores of a group (on either window's list, on0 and on1), the one that fell most
 * (*fell, its ratio *ratio) and one that did not, held or not known (*other); -1 where none. */
static void judge_core_fates(const struct frame *f, const bool *on0, const bool *on1,
	const struct judge_cap *cb, const struct judge_cap *ca, const struct frame_params *p, int *fell,
	int *other, double *ratio)
{
	*fell = *other = -1;
	for (size_t core = 0; core < f->ncores; core++) {
		if (!on0[core] && !on1[core])
			continue;
		double r = NAN;
		if (judge_core_fate(cb, ca, core, p, &r) != JUDGE_CORE_FELL)
			*other = *other < 0 ? (int)core : *other;
		else if (*fell < 0 || r < *ratio)
			*fell = (int)core, *ratio = r;
	}
}

/* ---- a group told apart by its members' own ups and downs ---- */

enum judge_mine { JUDGE_MINE_UNKNOWN, JUDGE_MINE_YES, JUDGE_MINE_NO };

/* Whether core carries member si of mem[n] in window w: its own ups and downs move the core's
 * load clearly (JUDGE_ATTR_T standard errors), or clearly not while another member's do. */
static enum judge_mine judge_mine_w(
	const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t si, size_t core)
{
	double t[OWN_MAX];
	if (own_effects(f, w, mem, n, core, t) < 0)
		return JUDGE_MINE_UNKNOWN;
	if (t[si] >= JUDGE_OWN_YES)
		return JUDGE_MINE_YES;
	for (size_t i = 0; i < n && t[si] < JUDGE_OWN_NOT; i++)
		if (i != si && t[i] >= JUDGE_OWN_YES)
			return JUDGE_MINE_NO;
	return JUDGE_MINE_UNKNOWN;
}

/* mine[core] for the group's cores on[]: which of them carry stream s, the same in both windows.
 * False when a core cannot be told, or is s's in one window only, or s has none. */
static bool judge_mine(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const bool *on, const struct frame_params *p, bool *mine)
{
	size_t ns = frame_nstreams(f), mem[OWN_MAX], n = 0, si = 0;
	bool *in = xcalloc(ns + 1, sizeof(bool)), any = false;
	judge_group_in(f, b, a, s, p, in);
	in[s] = true;
	for (size_t t = 0; t < ns; t++)
		if (in[t] && n < OWN_MAX)
			si = t == s ? n : si, mem[n++] = t;
	free(in);
	for (size_t core = 0; core < f->ncores; core++) {
		if (!on[core])
			continue;
		enum judge_mine mb = judge_mine_w(f, b, mem, n, si, core);
		if (mb == JUDGE_MINE_UNKNOWN || mb != judge_mine_w(f, a, mem, n, si, core))
			return false;
		mine[core] = mb == JUDGE_MINE_YES;
		any = any || mine[core];
	}
	return any;
}

/* The smallest capacity over the cores of cp on mine[], candidates to fill first or cores with
 * room far beyond the rates seen (*rse its error); NAN when none. */
static double judge_mine_cap(const struct judge_cap *cp, const bool *mine, double *rse)
{
	double lo = INFINITY;
	for (size_t i = 0; i < cp->cands.n; i++)
		if (mine[cp->cands.core[i]] && cp->capc[i] < lo)
			lo = cp->capc[i], *rse = cp->rsec[i];
	for (size_t i = 0; i < cp->far.n; i++)
		if (mine[cp->far.core[i]] && cp->capf[i] < lo)
			lo = cp->capf[i], *rse = cp->rsef[i];
	return isfinite(lo) ? lo : NAN;
}

/* A group whose cores disagree (one fell, one did not): judged on stream s's own cores alone,
 * where its own ups and downs tell them (judge_mine); every one of them must have held or
 * fallen clearly. True with r filled. */
static bool judge_split(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const bool *on, const struct judge_cap *cb, const struct judge_cap *ca, const struct frame_params *p,
	const char *others, struct frame_result *r)
{
	bool *mine = xcalloc(f->ncores + 1, sizeof(bool)), ok = judge_mine(f, b, a, s, on, p, mine);
	for (size_t core = 0; core < f->ncores && ok; core++) {
		double ratio;
		ok = !mine[core] || judge_core_fate(cb, ca, core, p, &ratio) != JUDGE_CORE_UNCLEAR;
	}
	struct judge_cap mb = *cb, ma = *ca;
	mb.cap = judge_mine_cap(cb, mine, &mb.rse);
	ma.cap = judge_mine_cap(ca, mine, &ma.rse);
	ok = ok && isfinite(mb.cap) && isfinite(ma.cap);
	if (ok) {
		struct frame_result o = *r;
		o.verdict = DETECTOR_INSUFFICIENT; /* judge_projected sets only what it finds */
		o.before_bps = mb.cap, o.after_bps = ma.cap, o.ratio = ma.cap / mb.cap;
		judge_projected(&mb, &ma, p, &o);
		char cores[32], line[256];
		judge_cores_text(mine, f->ncores, cores, sizeof(cores));
		snprintf(line, sizeof(line), "moves with %s: told apart by its own ups and downs, on core %s",
			others, cores);
		judge_text(o.why, sizeof(o.why), line);
		ok = o.verdict != DETECTOR_INSUFFICIENT;
		if (ok)
			*r = o;
	}
	free(mine);
	return ok;
}

/* A stream fitted with others as one group (they move together): a verdict is the group's,
 * and says so. Which of the streams a core of the group carries no fit of streams that move
 * together can tell: calling every member a regression would be false for one whose own core
 * held, calling every one unchanged false for one whose core fell. So a group's regression
 * stands only when every core of the group fell (as one core's does: it is the truth of a
 * shared core), its unchanged only when none did; else it is a sign, insufficient-data with a
 * hint that names the cores. */
static void judge_group(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], const struct judge_cap *cb, const struct judge_cap *ca,
	const struct frame_params *p, struct frame_result *r)
{
	char others[64], line[256];
	if (r->verdict == DETECTOR_INSUFFICIENT || (cb->pinned && ca->pinned) || /* measured, not fitted */
		judge_group_of(f, b, a, s, p, others, sizeof(others)) == 0)
		return;
	int fell, other;
	double ratio = NAN;
	size_t nc = f->ncores;
	judge_core_fates(f, cw[0] + s * nc, cw[1] + s * nc, cb, ca, p, &fell, &other, &ratio);
	if (fell < 0 || other < 0) {
		snprintf(line, sizeof(line), "moves with %s: judged as one group%s%s", others,
			r->why[0] ? "; " : "", r->why);
		judge_text(r->why, sizeof(r->why), line);
		return;
	}
	bool *on = xcalloc(nc + 1, sizeof(bool));
	for (size_t c = 0; c < nc; c++)
		on[c] = cw[0][s * nc + c] || cw[1][s * nc + c];
	bool split = judge_split(f, b, a, s, on, cb, ca, p, others, r);
	free(on);
	if (split)
		return;
	snprintf(line, sizeof(line),
		"moves with %s: core %d fell to %.2f, core %d did not; which one carries it is unknown",
		others, fell, ratio, other);
	r->verdict = DETECTOR_INSUFFICIENT;
	r->method = DETECTOR_M_NONE;
	r->hint = true;
	r->ratio = NAN;
	judge_text(r->why, sizeof(r->why), line);
}

/* One window's projection for judge_far: the fit's where it has one (not pinned), else, where
 * its cores all fill only far beyond the rates seen (a decrypt at a tenth of its core), the
 * smallest of their projections, its error the larger of the fit's and the jackknife's, into
 * *cap and *rse. False when it has neither. */
static bool judge_far_cap(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_cap *cp, const struct frame_params *p, double *cap, double *rse)
{
	if (cp->ok) {
		*cap = cp->cap, *rse = cp->rse;
		return !cp->pinned;
	}
	if (cp->cands.n > 0 || cp->far.n == 0)
		return false;
	struct judge_cols c;
	judge_columns(f, w, p, &c);
	int j = judge_col_of(&c, s);
	if (j < 0)
		return false;
	*cap = INFINITY, *rse = 0;
	for (size_t i = 0; i < cp->far.n; i++)
		if (cp->capf[i] < *cap)
			*cap = cp->capf[i], *rse = cp->rsef[i];
	*rse = fmax(*rse, judge_jackknife(f, w, s, &c, j, &cp->far, *cap));
	return isfinite(*rse) && *rse <= JUDGE_MAX_RSE;
}

/* A window (or both) whose cores that follow the stream would fill only far beyond the rates
 * seen. The physics is the same line: the capacity is where the first of them fills, mean(x) +
 * (1 - mean(load)) / beta, and the ratio of the two windows' is as good as their slopes are
 * precise, however far off full is. So the same tests as a projection within reach: a change
 * claimed at JUDGE_SIGMAS standard errors, "unchanged" when the noise is small enough to say so.
 * Streams fitted as a group are left to the group's judgement. True with r filled when it
 * judged. */
static bool judge_far(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct judge_cap *cb, const struct judge_cap *ca, const struct frame_params *p,
	struct frame_result *r)
{
	double capb, capa, rseb, rsea;
	char others[64];
	if (judge_group_of(f, b, a, s, p, others, sizeof(others)) > 0 ||
		!judge_far_cap(f, b, s, cb, p, &capb, &rseb) || !judge_far_cap(f, a, s, ca, p, &capa, &rsea))
		return false;
	double ratio = capa / capb, rse = sqrt(rseb * rseb + rsea * rsea);
	enum detector_outcome v = judge_decide(ratio, rse, p);
	if (v == DETECTOR_INSUFFICIENT) {
		r->hint = r->hint || ratio < 1 - p->threshold;
		return false;
	}
	r->verdict = v;
	r->hint = false;
	r->method = DETECTOR_M_COST;
	r->ratio = ratio;
	r->rse = rse;
	r->before_bps = capb;
	r->after_bps = capa;
	return true;
}

/* The methods on the stream's cores: saturation-ceiling where both windows are pinned, else
 * cpu-cost; insufficient-data with its why where they cannot judge. */
static void judge_methods(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	if (!judge_any(cw[0] + s * f->ncores, f->ncores)) {
		judge_why(r, "", "no core's load follows its traffic");
		return;
	}
	struct judge_cap cb, ca;
	judge_cap(f, b, s, cw[0], p, &cb);
	judge_cap(f, a, s, cw[1], p, &ca);
	r->before_load = cb.load;
	r->after_load = ca.load;
	if (!cb.ok || !ca.ok) {
		r->hint = !ca.ok && cb.ok; /* the after window cannot be compared: worth a look */
		judge_why(r, cb.ok ? "after the upgrade " : "before the upgrade ", cb.ok ? ca.why : cb.why);
		if (judge_far(f, b, a, s, &cb, &ca, p, r)) {
			char line[sizeof(r->why) + 96];
			judge_cores_note(f, s, cw, &cb, &ca, r);
			snprintf(line, sizeof(line), "%s%s%s",
				r->verdict == DETECTOR_UNCHANGED
					? "its cores stay far from full: their cost and room held"
					: "projected from far below full: its cost and room per Mbit/s changed",
				r->why[0] ? "; " : "", r->why);
			judge_text(r->why, sizeof(r->why), line);
		}
		return;
	}
	r->before_bps = cb.cap;
	r->after_bps = ca.cap;
	r->ratio = ca.cap / cb.cap;
	if (cb.pinned && ca.pinned)
		judge_saturated(&cb, &ca, p, r);
	else
		judge_projected(&cb, &ca, p, r);
	if (r->verdict != DETECTOR_INSUFFICIENT)
		judge_cores_note(f, s, cw, &cb, &ca, r);
	judge_group(f, b, a, s, cw, &cb, &ca, p, r);
}

/* Whether stream s carries nearly all the router's WireGuard traffic in both windows (a
 * fixed-rate test through one tunnel): then a profile's tunnel cores can only be its. */
static bool judge_alone(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s)
{
	const struct frame_w *w[2] = { b, a };
	for (int i = 0; i < 2; i++) {
		double all = 0, own = frame_mean(f, w[i], s, NULL, NULL, NULL);
		for (size_t t = 0; t < frame_nstreams(f); t++) {
			double m = frame_mean(f, w[i], t, NULL, NULL, NULL);
			all += isfinite(m) ? m : 0;
		}
		if (!(own >= JUDGE_ALONE * all))
			return false;
	}
	return true;
}

/* Where the other methods could not judge: the matched-rate method, on the stream's cores as a
 * fit, a pinned core or (for a stream alone) a profile placed them in either window. Its answer
 * replaces theirs when it judges, or when it has a sign worth a look. */
static void judge_try_matched(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	size_t s, bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	size_t nc = f->ncores;
	bool *on = xcalloc(nc + 1, sizeof(bool));
	char others[64];
	bool grouped = judge_group_of(f, b, a, s, p, others, sizeof(others)) > 0;
	for (size_t c = 0; c < nc && !grouped; c++) /* a group's cores are not known to be s's */
		on[c] = cw[0][s * nc + c] || cw[1][s * nc + c];
	if (judge_alone(f, b, a, s))
		for (int i = 0; i < 2; i++)
			profcore_tunnel_cores(f->prof[i], nc, on);
	struct frame_result m = *r;
	if (matched_judge(f, b, a, s, on, p, &m) &&
		(m.verdict != DETECTOR_INSUFFICIENT || (m.hint && !r->hint)))
		*r = m;
	free(on);
}

static void judge_stream(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	*r = (struct frame_result){ .verdict = DETECTOR_INSUFFICIENT,
		.method = DETECTOR_M_NONE,
		.ratio = NAN,
		.before_load = NAN,
		.after_load = NAN,
		.rse = NAN };
	judge_cores_union(f, s, cw, r->cores, sizeof(r->cores));
	if (!judge_enough(f, b, a, s, p, r))
		return;
	judge_methods(f, b, a, s, cw, p, r);
	if (r->verdict == DETECTOR_INSUFFICIENT)
		judge_try_matched(f, b, a, s, cw, p, r);
}

void judge_event(const struct frame *f, const struct frame_params *p, struct frame_result *r)
{
	struct frame_w b = { 0, f->split }, a = { f->split, f->npolls };
	size_t cells = frame_nstreams(f) * f->ncores + 1;
	bool *cw[2] = { xcalloc(cells, sizeof(bool)), xcalloc(cells, sizeof(bool)) };
	judge_attribute(f, &b, &a, p, cw);
	struct profcore_pick *pick = profcore_attribute(f, &b, &a, p, cw[0]); /* what no fit told */
	judge_attribute_copy(f, cw);
	for (size_t s = 0; s < frame_nstreams(f); s++) {
		judge_stream(f, &b, &a, s, cw, p, &r[s]);
		profcore_note(&pick[s], &r[s]);
	}
	free(pick);
	free(cw[0]);
	free(cw[1]);
}

/* ---- a capacity now, from one window ---- */

/* Stream s's capacity in w with the cores carry[] gives it, or why it has none. */
static void judge_window_stream(const struct frame *f, const struct frame_w *w, const struct frame_params *p,
	const bool *carry, size_t s, size_t group, struct judge_wcap *r)
{
	const bool *on = carry + s * f->ncores;
	*r = (struct judge_wcap){ .cap = NAN, .rse = NAN };
	if (frame_wn(w) < p->min_samples) {
		r->why = "too few polls yet";
	} else if (!(frame_rate_q(f, w, s, NULL, 0.5) >= p->min_bps)) {
		r->why = "its traffic is too low to measure its capacity";
	} else if (!judge_any(on, f->ncores)) {
		r->why = frame_flat(f, w, s) ? "its rates held too steady to project its capacity"
					     : "no core's load follows its traffic";
	} else {
		struct judge_cap c;
		judge_cap(f, w, s, carry, p, &c);
		r->ok = c.ok, r->pinned = c.pinned, r->cap = c.cap, r->rse = c.rse, r->why = c.why;
		judge_cores_text(on, f->ncores, r->cores, sizeof(r->cores));
		if (r->ok && !r->pinned && group > 1) { /* a core of one member follows them all */
			*r = (struct judge_wcap){ .cap = NAN, .rse = NAN };
			r->why = "it moves with other streams: which core fills first for it cannot be told";
		}
	}
}

void judge_window(const struct frame *f, const struct frame_params *p, struct judge_wcap *r)
{
	judge_window_part(f, p, 0, f->npolls, r);
}

void judge_window_part(
	const struct frame *f, const struct frame_params *p, size_t from, size_t to, struct judge_wcap *r)
{
	const struct frame_w w = { from, to };
	size_t ns = frame_nstreams(f), nc = f->ncores;
	bool *carry = xcalloc(ns * nc + 1, sizeof(bool));
	judge_attribute_w(f, &w, p, carry);
	size_t pin = judge_pinned_core(f, &w, p), flat = SIZE_MAX, nflat = 0;
	for (size_t s = 0; s < ns; s++)
		if (!judge_any(carry + s * nc, nc) && frame_flat(f, &w, s) &&
			frame_rate_q(f, &w, s, NULL, 0.5) >= p->min_bps)
			flat = s, nflat++;
	if (pin != SIZE_MAX && nflat == 1)
		carry[flat * nc + pin] = true; /* flat at a full core: no slope, but its ceiling; with two
						 flat streams, which rides it cannot be told */
	struct judge_cols c;
	judge_columns(f, &w, p, &c);
	for (size_t s = 0; s < ns; s++) {
		int j = judge_col_of(&c, s);
		judge_window_stream(f, &w, p, carry, s, j < 0 ? 1 : c.n[j], &r[s]);
	}
	free(carry);
}

/* ---- single-core bound ---- */

void judge_bound(const struct frame_poll *p, size_t n, struct detector_bound *b)
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
	b->busiest = stats_median_take(busy, n);
	b->others = stats_median_take(oth, no);
	b->tx_bps = b->bound ? stats_median_take(tx, nq) : (free(tx), NAN);
	b->rx_bps = b->bound ? stats_median_take(rx, nq) : (free(rx), NAN);
}
