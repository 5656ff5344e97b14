/* SPDX-License-Identifier: Apache-2.0 */
/* fit: ordinary least squares with an intercept, for the detector's model of a core's load,
 * load = a + sum_j beta_j * rate_j. A column with no spread, or one the others already explain
 * (collinear), is dropped (its beta NAN) rather than fitted to noise. Pure numerics on arrays in
 * memory: it must never allocate per row, touch SQLite, a clock or a lock. */
#include "config.h"
#include "detector/fit.h"

#include <math.h>
#include <string.h>

#define FIT_FLAT  1e-6 /* a column whose spread is below this share of its level is flat */
#define FIT_PIVOT 1e-6 /* a pivot below this share of its column's spread: collinear */

static bool fit_row_ok(const double *x, size_t m, double y)
{
	if (!isfinite(y))
		return false;
	for (size_t j = 0; j < m; j++)
		if (!isfinite(x[j]))
			return false;
	return true;
}

/* Means of the usable rows; their number. */
static size_t fit_means(const double *x, const double *y, size_t n, size_t m, struct fit *o)
{
	size_t k = 0;
	double sx[FIT_MAX] = { 0 }, sy = 0;
	for (size_t i = 0; i < n; i++) {
		if (!fit_row_ok(x + i * m, m, y[i]))
			continue;
		for (size_t j = 0; j < m; j++)
			sx[j] += x[i * m + j];
		sy += y[i];
		k++;
	}
	for (size_t j = 0; j < m && k > 0; j++)
		o->xmean[j] = sx[j] / (double)k;
	o->ymean = k > 0 ? sy / (double)k : NAN;
	return k;
}

/* The centred cross products: a = X'X, b = X'y, *syy = y'y. */
static void fit_moments(const double *x, const double *y, size_t n, size_t m, const struct fit *o,
	double a[FIT_MAX][FIT_MAX], double b[FIT_MAX], double *syy)
{
	memset(a, 0, sizeof(double) * FIT_MAX * FIT_MAX);
	memset(b, 0, sizeof(double) * FIT_MAX);
	*syy = 0;
	for (size_t i = 0; i < n; i++) {
		if (!fit_row_ok(x + i * m, m, y[i]))
			continue;
		double xc[FIT_MAX], yc = y[i] - o->ymean;
		for (size_t j = 0; j < m; j++)
			xc[j] = x[i * m + j] - o->xmean[j];
		for (size_t j = 0; j < m; j++) {
			b[j] += xc[j] * yc;
			for (size_t l = 0; l <= j; l++)
				a[j][l] += xc[j] * xc[l];
		}
		*syy += yc * yc;
	}
	for (size_t j = 0; j < m; j++)
		for (size_t l = j + 1; l < m; l++)
			a[j][l] = a[l][j];
}

/* Invert the kept part of a into inv (Gauss-Jordan). A collinear column is marked dropped and
 * false returned, so that the caller starts again without it. */
static bool fit_invert(const double a[FIT_MAX][FIT_MAX], size_t m, bool *drop, double inv[FIT_MAX][FIT_MAX])
{
	double w[FIT_MAX][2 * FIT_MAX] = { { 0 } };
	size_t idx[FIT_MAX], k = 0;
	for (size_t j = 0; j < m; j++)
		if (!drop[j])
			idx[k++] = j;
	for (size_t r = 0; r < k; r++) {
		for (size_t c = 0; c < k; c++)
			w[r][c] = a[idx[r]][idx[c]];
		w[r][k + r] = 1;
	}
	for (size_t c = 0; c < k; c++) { /* positive definite: diagonal pivots suffice */
		double piv = w[c][c];
		if (!(piv > FIT_PIVOT * a[idx[c]][idx[c]])) {
			drop[idx[c]] = true;
			return false;
		}
		for (size_t l = 0; l < 2 * k; l++)
			w[c][l] /= piv;
		for (size_t r = 0; r < k; r++) {
			double f = w[r][c];
			if (r == c || f == 0)
				continue;
			for (size_t l = 0; l < 2 * k; l++)
				w[r][l] -= f * w[c][l];
		}
	}
	memset(inv, 0, sizeof(double) * FIT_MAX * FIT_MAX);
	for (size_t r = 0; r < k; r++)
		for (size_t c = 0; c < k; c++)
			inv[idx[r]][idx[c]] = w[r][k + c];
	return true;
}

/* beta = inv b; residual variance from the kept columns; standard errors. */
static void fit_solve(
	const double b[FIT_MAX], double syy, size_t m, const double inv[FIT_MAX][FIT_MAX], struct fit *o)
{
	size_t kept = 0;
	double explained = 0;
	for (size_t j = 0; j < m; j++) {
		o->beta[j] = o->se[j] = NAN;
		if (o->dropped[j])
			continue;
		double s = 0;
		for (size_t l = 0; l < m; l++)
			if (!o->dropped[l])
				s += inv[j][l] * b[l];
		o->beta[j] = s;
		explained += s * b[j];
		kept++;
	}
	double dof = (double)o->n - (double)kept - 1;
	double s2 = dof > 0 ? fmax(syy - explained, 0) / dof : NAN;
	o->resid_sd = sqrt(s2);
	for (size_t j = 0; j < m; j++)
		if (!o->dropped[j])
			o->se[j] = sqrt(s2 * fmax(inv[j][j], 0));
}

int fit_ols(const double *x, const double *y, size_t n, size_t m, struct fit *o)
{
	memset(o, 0, sizeof(*o));
	o->m = m;
	if (m == 0 || m > FIT_MAX)
		return -1;
	o->n = fit_means(x, y, n, m, o);
	if (o->n < m + 3)
		return -1;
	double a[FIT_MAX][FIT_MAX], b[FIT_MAX], syy, inv[FIT_MAX][FIT_MAX];
	fit_moments(x, y, n, m, o, a, b, &syy);
	size_t kept = 0;
	for (size_t j = 0; j < m; j++) {
		double level = fabs(o->xmean[j]) * sqrt((double)o->n);
		o->dropped[j] = !(sqrt(a[j][j]) > FIT_FLAT * level) || a[j][j] == 0;
		kept += !o->dropped[j];
	}
	while (kept > 0 && !fit_invert(a, m, o->dropped, inv))
		kept--;
	if (kept == 0)
		return -1;
	fit_solve(b, syy, m, inv, o);
	return 0;
}
