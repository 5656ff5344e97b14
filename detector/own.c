/* SPDX-License-Identifier: Apache-2.0 */
/* own: a group's members told apart on one core. Streams that move together (one daily curve)
 * cannot be told apart by their means or their slow swings, but each has small ups and downs of
 * its own, poll by poll, and a core's load follows those of the streams it carries and no
 * others. So the core's load is fitted, poll by poll (no blocks: they would average the own
 * ups and downs away), on every member's rate; a member's slope many standard errors above
 * nought is carried there. The load is read at an instant near a poll's end, while a rate
 * covers its poll, so the instant's moment may lie partly in the next poll: each member's
 * column is the sum of its rate over the poll and the next, which holds that moment whatever
 * the polls' phase (the slope is then smaller than the cost, but only its sign and its
 * standard errors are used). What a member costs the core comes from a second fit whose
 * columns reach further back (own_costs). It must never judge a verdict: judge.c does, on
 * what it says. */
#include "config.h"
#include "detector/own.h"
#include "detector/fit.h"
#include "detector/frame.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OWN_MIN_POLLS 40  /* fewer polls tell nothing worth a verdict */
#define OWN_BACK      11  /* own_costs: the polls before a load's own that its reading may cover */
#define OWN_LAGS      6   /* ... in own_costs' columns per member: the poll, then own_groups */
#define OWN_NEAR      5   /* ... without the far group, where the reading does not reach it */
#define OWN_FAR_T     2.0 /* the far group's slope this many standard errors from nought: it does */
#define OWN_JACK      10  /* own_costs_jack: stretches left out in turn */

int own_effects(
	const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c, double *t)
{
	size_t np = frame_wn(w);
	if (n == 0 || n > OWN_MAX || np < OWN_MIN_POLLS + 1)
		return -1;
	size_t m = 2 * n;
	double *x = xcalloc((np - 1) * m + 1, sizeof(*x)), *y = xcalloc(np, sizeof(*y));
	for (size_t k = 0; k + 1 < np; k++) {
		size_t p = w->from + k;
		y[k] = frame_load(f, p, c);
		for (size_t i = 0; i < n; i++) {
			double now = frame_rate(f, p, mem[i]), next = frame_rate(f, p + 1, mem[i]);
			x[k * m + i] = now + next;
			x[k * m + n + i] = next - now;
		}
	}
	struct fit o;
	int rc = fit_ols(x, y, np - 1, m, &o) < 0 || o.n < OWN_MIN_POLLS ? -1 : 0;
	for (size_t i = 0; i < m && rc == 0; i++) /* one dropped: the rest took its share */
		rc = o.dropped[i] || !(o.se[i] > 0) ? -1 : 0;
	for (size_t i = 0; i < n; i++)
		t[i] = rc < 0 ? NAN : o.beta[i] / o.se[i];
	free(x);
	free(y);
	return rc;
}

/* The lags other than the poll's own, in groups [from, to] (polls after p: +1 is the next):
 * the slope on a group's mean rate is the sum of the weights the reading gives its polls,
 * however it spreads them, where the members' own ups and downs are independent from poll to
 * poll; so few columns cover a reading over as many as twelve polls. */
static const int own_groups[OWN_LAGS - 1][2] = { { 1, 1 }, { -1, -1 }, { -2, -2 }, { -3, -3 },
	{ -OWN_BACK, -4 } };

/* Row k of own_costs' columns, lags of them per member: its rate at poll p (whose slope is
 * then the sum of the groups' slopes: the cost), and its mean rate over each of the first
 * lags - 1 groups of own_groups less that. */
static void own_lag_row(
	const struct frame *f, size_t p, const size_t *mem, size_t n, size_t lags, double *row)
{
	for (size_t i = 0; i < n; i++) {
		double now = frame_rate(f, p, mem[i]);
		row[i] = now;
		for (size_t j = 0; j + 1 < lags; j++) {
			double sum = 0;
			for (int l = own_groups[j][0]; l <= own_groups[j][1]; l++)
				sum += frame_rate(f, (size_t)((long)p + l), mem[i]);
			row[n + i * (lags - 1) + j] = sum / (own_groups[j][1] - own_groups[j][0] + 1) - now;
		}
	}
}

/* own_costs' rows over w, lags columns per member (own_lag_row), into *x and *y (caller
 * frees); their number, 0 when too few. */
static size_t own_cost_rows(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n,
	size_t c, size_t lags, double **x, double **y)
{
	size_t np = frame_wn(w), m = n * lags;
	size_t back = (size_t)-own_groups[lags - 2][0]; /* the furthest lag back */
	if (n == 0 || m > FIT_MAX || np < OWN_MIN_POLLS + back + 2)
		return 0;
	size_t rows = np - back - 1; /* the poll after the last is in the window */
	*x = xcalloc(rows * m + 1, sizeof(**x)), *y = xcalloc(rows, sizeof(**y));
	for (size_t k = 0; k < rows; k++) {
		size_t p = w->from + back + k;
		(*y)[k] = frame_load(f, p, c);
		own_lag_row(f, p, mem, n, lags, *x + k * m);
	}
	return rows;
}

/* fit_ols of rows x, y (m columns), every column kept: 0, or -1. */
static int own_fit(const double *x, const double *y, size_t rows, size_t m, struct fit *o)
{
	int rc = fit_ols(x, y, rows, m, o) < 0 || o->n < OWN_MIN_POLLS ? -1 : 0;
	for (size_t i = 0; i < m && rc == 0; i++)
		rc = o->dropped[i] || !(o->se[i] > 0) ? -1 : 0;
	return rc;
}

/* Core c's fit over w on lags columns per member (own_cost_rows) into *o: 0, or -1. */
static int own_lag_fit(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c,
	size_t lags, struct fit *o)
{
	double *x = NULL, *y = NULL;
	size_t rows = own_cost_rows(f, w, mem, n, c, lags, &x, &y);
	int rc = rows ? own_fit(x, y, rows, n * lags, o) : -1;
	free(x);
	free(y);
	return rc;
}

/* The far group's slope of every member on every core of on[] with a cost two standard errors
 * above nought, pooled: a reading over the far polls gives each a slope in proportion to its
 * cost, so each weighs by its cost over its variance, and the sum over its standard error is
 * how many of those the far polls' share is above nought. */
bool own_reach(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, const bool *on)
{
	double num = 0, den = 0;
	for (size_t c = 0; c < f->ncores; c++) {
		struct fit o;
		if ((on && !on[c]) || own_lag_fit(f, w, mem, n, c, OWN_LAGS, &o) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			size_t far = n + i * (OWN_LAGS - 1) + OWN_LAGS - 2;
			double cost = o.beta[i], v = o.se[far] * o.se[far];
			if (cost >= OWN_FAR_T * o.se[i]) /* a cost to share out */
				num += cost * o.beta[far] / v, den += cost * cost / v;
		}
	}
	return den > 0 && num / sqrt(den) >= OWN_FAR_T;
}

int own_costs(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c, bool far,
	double *cost, double *se)
{
	for (size_t i = 0; i < n; i++)
		cost[i] = se[i] = NAN;
	struct fit o;
	int rc = own_lag_fit(f, w, mem, n, c, far ? OWN_LAGS : OWN_NEAR, &o);
	for (size_t i = 0; i < n && rc == 0; i++)
		cost[i] = o.beta[i], se[i] = o.se[i];
	return rc;
}

double own_costs_jack(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c,
	bool far, size_t i)
{
	double *x = NULL, *y = NULL, v[OWN_JACK], sum = 0, sq = 0;
	size_t lags = far ? OWN_LAGS : OWN_NEAR, keep = 0;
	size_t rows = own_cost_rows(f, w, mem, n, c, lags, &x, &y), m = n * lags;
	double *kx = xcalloc(rows * m + 1, sizeof(*kx)), *ky = xcalloc(rows + 1, sizeof(*ky));
	int rc = rows ? 0 : -1;
	for (size_t g = 0; g < OWN_JACK && rc == 0; g++) {
		keep = 0;
		for (size_t k = 0; k < rows; k++)
			if (k * OWN_JACK / rows != g) {
				memcpy(kx + keep * m, x + k * m, m * sizeof(*x));
				ky[keep++] = y[k];
			}
		struct fit o;
		rc = own_fit(kx, ky, keep, m, &o);
		v[g] = rc == 0 ? o.beta[i] : NAN;
		sum += v[g];
	}
	for (size_t g = 0; g < OWN_JACK && rc == 0; g++)
		sq += (v[g] - sum / OWN_JACK) * (v[g] - sum / OWN_JACK);
	free(x);
	free(y);
	free(kx);
	free(ky);
	return rc == 0 && i < n ? sqrt(sq * (OWN_JACK - 1) / OWN_JACK) : NAN;
}
