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

#define OWN_MIN_POLLS 40             /* fewer polls tell nothing worth a verdict */
#define OWN_BACK      3              /* own_costs: the polls before a load's own that its reading may cover */
#define OWN_LAGS      (OWN_BACK + 2) /* ... and the poll itself and the next */
#define OWN_JACK      10             /* own_costs_jack: stretches left out in turn */

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

/* Row k of own_costs' columns: per member, its rate at poll p (whose slope is then the sum
 * of the lags' slopes: the cost), and its rate at each other lag less that. */
static void own_lag_row(const struct frame *f, size_t p, const size_t *mem, size_t n, double *row)
{
	for (size_t i = 0; i < n; i++) {
		double now = frame_rate(f, p, mem[i]);
		row[i] = now;
		for (size_t j = 0; j + 1 < OWN_LAGS; j++) { /* lags -OWN_BACK .. -1, then +1 */
			size_t q = j < OWN_BACK ? p - OWN_BACK + j : p + 1;
			row[n + i * (OWN_LAGS - 1) + j] = frame_rate(f, q, mem[i]) - now;
		}
	}
}

/* own_costs' rows over w into *x and *y (caller frees); their number, 0 when too few. */
static size_t own_cost_rows(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n,
	size_t c, double **x, double **y)
{
	size_t np = frame_wn(w), m = n * OWN_LAGS;
	if (n == 0 || m > FIT_MAX || np < OWN_MIN_POLLS + OWN_LAGS)
		return 0;
	size_t rows = np - OWN_LAGS + 1;
	*x = xcalloc(rows * m + 1, sizeof(**x)), *y = xcalloc(rows, sizeof(**y));
	for (size_t k = 0; k < rows; k++) {
		size_t p = w->from + OWN_BACK + k;
		(*y)[k] = frame_load(f, p, c);
		own_lag_row(f, p, mem, n, *x + k * m);
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

int own_costs(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c,
	double *cost, double *se)
{
	double *x = NULL, *y = NULL;
	for (size_t i = 0; i < n; i++)
		cost[i] = se[i] = NAN;
	size_t rows = own_cost_rows(f, w, mem, n, c, &x, &y);
	struct fit o;
	int rc = rows ? own_fit(x, y, rows, n * OWN_LAGS, &o) : -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		cost[i] = o.beta[i], se[i] = o.se[i];
	free(x);
	free(y);
	return rc;
}

double own_costs_jack(
	const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c, size_t i)
{
	double *x = NULL, *y = NULL, v[OWN_JACK], sum = 0, sq = 0;
	size_t rows = own_cost_rows(f, w, mem, n, c, &x, &y), m = n * OWN_LAGS, keep = 0;
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
