/* SPDX-License-Identifier: Apache-2.0 */
/* stats: order statistics of a sample in memory. A leaf of detector/: it calls nothing above. */
#ifndef WGWATCH_STATS_H
#define WGWATCH_STATS_H

#include <stddef.h>

/* Quantile q (0..1, linear interpolation) of v, which it sorts; NAN when n is 0. */
double stats_quantile(double *v, size_t n, double q);
/* The median of v[0..n), which it frees; NAN when n is 0. */
double stats_median_take(double *v, size_t n);

#endif
