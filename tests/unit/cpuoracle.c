/* SPDX-License-Identifier: Apache-2.0 */
/* cpuoracle: the told-the-structure fit of one noise draw (cpuoracle.h). Least squares per
 * core on the true regressors, the ratio's interval from draws of the fitted coefficients.
 * Pure arithmetic on what it is given: never the detector, no clock; its own small solver, not
 * detector/fit.c, so that the reference shares no code with what it checks. */
#include "config.h"
#include "cpuoracle.h"

#include <math.h>
#include <stdlib.h>

#define CPUORACLE_DRAWS 1000
#define CPUORACLE_FULL  0.995 /* a load this high is a full core */

/* One core's fit for stream s: its mean load, s's slope (load per Mbit/s) and their standard
 * errors; m, s's mean rate in Mbit/s. */
struct cpuoracle_core {
	double ybar, ybar_se, slope, slope_se, m;
};

static double cpuoracle_rate(const struct cpuoracle_win *x, size_t k, int t)
{
	return x->rate[k * CPUMODEL_NS + (size_t)t] / 1e6;
}

/* Inverts the p x p matrix a in place (Gauss-Jordan, partial pivots); false when singular. */
static bool cpuoracle_invert(double *a, int p)
{
	double inv[16] = { 0 }, scale = 0;
	for (int i = 0; i < p; i++)
		inv[i * p + i] = 1, scale = fmax(scale, fabs(a[i * p + i]));
	for (int col = 0; col < p; col++) {
		int piv = col;
		for (int r = col + 1; r < p; r++)
			if (fabs(a[r * p + col]) > fabs(a[piv * p + col]))
				piv = r;
		if (!(fabs(a[piv * p + col]) > 1e-12 * scale))
			return false;
		for (int j = 0; j < p; j++) {
			double t = a[col * p + j];
			a[col * p + j] = a[piv * p + j], a[piv * p + j] = t;
			t = inv[col * p + j];
			inv[col * p + j] = inv[piv * p + j], inv[piv * p + j] = t;
		}
		double d = a[col * p + col];
		for (int j = 0; j < p; j++)
			a[col * p + j] /= d, inv[col * p + j] /= d;
		for (int r = 0; r < p; r++) {
			double f = a[r * p + col];
			if (r == col || f == 0)
				continue;
			for (int j = 0; j < p; j++)
				a[r * p + j] -= f * a[col * p + j], inv[r * p + j] -= f * inv[col * p + j];
		}
	}
	for (int i = 0; i < p * p; i++)
		a[i] = inv[i];
	return true;
}

/* The regressors of core c in x: the streams with a cost there whose rate moves; their count
 * (s must be among them, else 0), their means into mean. */
static int cpuoracle_regressors(const struct cpuoracle_win *x, int c, int s, int *reg, double *mean)
{
	int p = 0;
	bool has_s = false;
	for (int t = 0; t < CPUMODEL_NS; t++) {
		if (!(cpumodel_cost(&x->w->s[t], c) > 0))
			continue;
		double sum = 0, sq = 0, n = (double)x->w->n;
		for (size_t k = 0; k < x->w->n; k++)
			sum += cpuoracle_rate(x, k, t);
		for (size_t k = 0; k < x->w->n; k++)
			sq += pow(cpuoracle_rate(x, k, t) - sum / n, 2);
		if (!(sq / n > 1e-6))
			continue; /* constant: it is part of the intercept */
		has_s = has_s || t == s;
		mean[p] = sum / n;
		reg[p++] = t;
	}
	return has_s ? p : 0;
}

/* Least squares of core c's load on its centred regressors; false when it cannot be fitted
 * (the core saturates, s's rate is constant, the regressors are collinear). */
static bool cpuoracle_fit(const struct cpuoracle_win *x, int c, int s, struct cpuoracle_core *out)
{
	int reg[CPUMODEL_NS], p, is = -1;
	double mean[CPUMODEL_NS], xtx[16] = { 0 }, xty[CPUMODEL_NS] = { 0 }, ybar = 0, n = (double)x->w->n;
	p = cpuoracle_regressors(x, c, s, reg, mean);
	if (p == 0 || x->w->n < 10)
		return false;
	for (size_t k = 0; k < x->w->n; k++) {
		double y = x->load[k * CPUMODEL_CORES + (size_t)c];
		if (y >= CPUORACLE_FULL)
			return false;
		ybar += y / n;
	}
	for (size_t k = 0; k < x->w->n; k++) {
		double y = x->load[k * CPUMODEL_CORES + (size_t)c] - ybar, d[CPUMODEL_NS];
		for (int i = 0; i < p; i++)
			d[i] = cpuoracle_rate(x, k, reg[i]) - mean[i];
		for (int i = 0; i < p; i++) {
			xty[i] += d[i] * y;
			for (int j = 0; j < p; j++)
				xtx[i * p + j] += d[i] * d[j];
		}
	}
	if (!cpuoracle_invert(xtx, p))
		return false;
	double beta[CPUMODEL_NS] = { 0 }, rss = 0;
	for (int i = 0; i < p; i++) {
		for (int j = 0; j < p; j++)
			beta[i] += xtx[i * p + j] * xty[j];
		is = reg[i] == s ? i : is;
	}
	for (size_t k = 0; k < x->w->n; k++) {
		double e = x->load[k * CPUMODEL_CORES + (size_t)c] - ybar;
		for (int i = 0; i < p; i++)
			e -= beta[i] * (cpuoracle_rate(x, k, reg[i]) - mean[i]);
		rss += e * e;
	}
	double s2 = rss / (n - 1 - p);
	*out = (struct cpuoracle_core){ .ybar = ybar,
		.ybar_se = sqrt(s2 / n),
		.slope = beta[is],
		.slope_se = sqrt(s2 * xtx[is * p + is]),
		.m = mean[is] };
	return true;
}

/* The fits of s's cores in x into k; their count, 0 when one cannot be fitted. */
static int cpuoracle_cores(const struct cpuoracle_win *x, int s, struct cpuoracle_core *k)
{
	int n = 0;
	for (int c = 0; c < CPUMODEL_CORES; c++) {
		if (!(cpumodel_cost(&x->w->s[s], c) > 0))
			continue;
		if (!cpuoracle_fit(x, c, s, &k[n]))
			return 0;
		n++;
	}
	return n;
}

/* A standard normal from a seeded hash (Box-Muller). */
static double cpuoracle_normal(uint64_t seed, uint64_t i)
{
	double u[2];
	for (int j = 0; j < 2; j++) {
		uint64_t z = seed * 0x9e3779b97f4a7c15ULL + (2 * i + (uint64_t)j + 1) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		u[j] = ((double)(z >> 11) + 0.5) / (double)(1ULL << 53);
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* The window's capacity: the rate at which the first core fills; with draw >= 0 each core's
 * mean and slope drawn from their errors (stream draw), else as fitted. */
static double cpuoracle_cap(const struct cpuoracle_core *k, int n, uint64_t seed, int64_t draw)
{
	double cap = INFINITY;
	for (int i = 0; i < n; i++) {
		double y = k[i].ybar, b = k[i].slope;
		if (draw >= 0) {
			uint64_t d = (uint64_t)draw * 16 + (uint64_t)i * 2;
			y += k[i].ybar_se * cpuoracle_normal(seed, d);
			b += k[i].slope_se * cpuoracle_normal(seed, d + 1);
		}
		if (b > 0)
			cap = fmin(cap, k[i].m + (1 - y) / b);
	}
	return cap;
}

static int cpuoracle_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

const char *cpuoracle_name(enum cpuoracle_says says)
{
	static const char *const n[] = { "n/a", "unsettled", "regression", "unchanged", "improvement" };
	return n[says];
}

struct cpuoracle_answer cpuoracle_judge(
	const struct cpuoracle_win *b, const struct cpuoracle_win *a, int s, double threshold, uint64_t seed)
{
	struct cpuoracle_answer r = { CPUORACLE_NA, NAN, NAN, NAN };
	struct cpuoracle_core kb[CPUMODEL_CORES], ka[CPUMODEL_CORES];
	int nb = cpuoracle_cores(b, s, kb), na = cpuoracle_cores(a, s, ka);
	if (nb == 0 || na == 0)
		return r;
	double *q = malloc(CPUORACLE_DRAWS * sizeof(double));
	if (q == NULL)
		return r;
	r.ratio = cpuoracle_cap(ka, na, seed, -1) / cpuoracle_cap(kb, nb, seed, -1);
	for (int64_t i = 0; i < CPUORACLE_DRAWS; i++) {
		double x = cpuoracle_cap(ka, na, seed + 1, i) / cpuoracle_cap(kb, nb, seed, i);
		q[i] = isnan(x) ? INFINITY : x; /* unbounded in both: no answer, at the top */
	}
	qsort(q, CPUORACLE_DRAWS, sizeof(double), cpuoracle_cmp);
	r.lo = q[CPUORACLE_DRAWS / 40];
	r.hi = q[CPUORACLE_DRAWS - 1 - CPUORACLE_DRAWS / 40];
	free(q);
	double lo = 1 - threshold, hi = 1 + threshold;
	r.says = r.hi < lo                 ? CPUORACLE_REGRESSION
		: r.lo > hi                ? CPUORACLE_IMPROVEMENT
		: r.lo >= lo && r.hi <= hi ? CPUORACLE_UNCHANGED
					   : CPUORACLE_UNSETTLED;
	return r;
}
