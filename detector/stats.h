/* SPDX-License-Identifier: Apache-2.0 */
/* stats: order statistics of a sample in memory, and a robust trend. A leaf of detector/: it calls nothing above. */
#ifndef WGWATCH_STATS_H
#define WGWATCH_STATS_H

#include <stddef.h>

/* Quantile q (0..1, linear interpolation) of v, which it sorts; NAN when n is 0. */
double stats_quantile(double *v, size_t n, double q);
/* The median of v[0..n), which it frees; NAN when n is 0. */
double stats_median_take(double *v, size_t n);

struct stats_trend {
	double slope, intercept; /* y = intercept + slope * x */
	double lo, hi;           /* Sen's 95 % confidence interval of the slope (+-INFINITY: open) */
};
/* The Theil-Sen line of y[i] over x[i], i < n: the median of the pairwise slopes, the median of
 * y - slope * x. -1 when n < 3 or every x is the same. */
int stats_theil_sen(const double *x, const double *y, size_t n, struct stats_trend *t);

#endif
