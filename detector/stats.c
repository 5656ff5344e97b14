/* SPDX-License-Identifier: Apache-2.0 */
/* stats: order statistics of a sample in memory, for the detector's windows, cohorts and rollout
 * medians, and the Theil-Sen trend of the capacity's daily peaks. A leaf: pure, it calls nothing of the detector and keeps no state. */
#include "config.h"
#include "detector/stats.h"

#include <math.h>
#include <stdlib.h>

static int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double stats_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), stats_cmp_double);
	double pos = q * (double)(n - 1);
	size_t i = (size_t)pos;
	if (i + 1 >= n)
		return v[n - 1];
	return v[i] + (pos - (double)i) * (v[i + 1] - v[i]);
}

double stats_median_take(double *v, size_t n)
{
	double m = stats_quantile(v, n, 0.5);
	free(v);
	return m;
}

/* The slopes between every pair of points with distinct x, sorted; their count in *m. */
static double *stats_pair_slopes(const double *x, const double *y, size_t n, size_t *m)
{
	double *s = malloc((n * (n - 1) / 2 + 1) * sizeof(*s));
	*m = 0;
	if (s == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (x[j] != x[i])
				s[(*m)++] = (y[j] - y[i]) / (x[j] - x[i]);
	qsort(s, *m, sizeof(*s), stats_cmp_double);
	return s;
}

/* Sen's bounds: Kendall's S has variance n(n-1)(2n+5)/18 without ties; the bounds are the
 * slopes (m - C) / 2 and (m + C) / 2 places up, C = 1.96 of its standard deviations. */
static void stats_sen_bounds(const double *s, size_t m, size_t n, struct stats_trend *t)
{
	double c = 1.96 * sqrt((double)n * (double)(n - 1) * (double)(2 * n + 5) / 18.0);
	double lo = floor(((double)m - c) / 2), hi = ceil(((double)m + c) / 2);
	t->lo = lo < 0 ? -INFINITY : s[(size_t)lo];
	t->hi = hi > (double)m - 1 ? INFINITY : s[(size_t)hi];
}

int stats_theil_sen(const double *x, const double *y, size_t n, struct stats_trend *t)
{
	size_t m;
	*t = (struct stats_trend){ .slope = NAN, .intercept = NAN, .lo = NAN, .hi = NAN };
	if (n < 3)
		return -1;
	double *s = stats_pair_slopes(x, y, n, &m);
	if (s == NULL || m == 0) {
		free(s);
		return -1;
	}
	t->slope = stats_quantile(s, m, 0.5);
	stats_sen_bounds(s, m, n, t);
	for (size_t i = 0; i < n; i++)
		s[i] = y[i] - t->slope * x[i]; /* s holds n(n-1)/2 + 1 >= n for n >= 3 */
	t->intercept = stats_quantile(s, n, 0.5);
	free(s);
	return 0;
}
