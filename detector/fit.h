/* SPDX-License-Identifier: Apache-2.0 */
/* fit: ordinary least squares with an intercept, for the detector's model of a core's load. A
 * leaf of detector/: pure numerics, it calls nothing above it. */
#ifndef WGWATCH_FIT_H
#define WGWATCH_FIT_H

#include <stdbool.h>
#include <stddef.h>

#define FIT_MAX 24 /* columns at most: own_costs, 4 members of 6 */

struct fit {
	size_t n, m;                       /* rows used (all values finite), columns */
	double beta[FIT_MAX], se[FIT_MAX]; /* slope and its standard error; NAN when dropped */
	double xmean[FIT_MAX], ymean, resid_sd;
	bool dropped[FIT_MAX]; /* no spread, or collinear with the columns kept */
};

/* y[0..n) on the columns of x (row-major, n x m) plus an intercept; rows with a NAN are left
 * out. -1 when too few rows (m + 3) or no column could be kept. */
int fit_ols(const double *x, const double *y, size_t n, size_t m, struct fit *o);

#endif
