/* SPDX-License-Identifier: Apache-2.0 */
/* stats: order statistics of a sample in memory, for the detector's windows, cohorts and rollout
 * medians. A leaf: pure, it calls nothing of the detector and keeps no state. */
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
