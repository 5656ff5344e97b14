/* SPDX-License-Identifier: Apache-2.0 */
/* fit_test: detector/fit.c's least squares on exact and degenerate columns (moved out of
 * detector_test: one test file per module). */
#include "config.h"
#include "detector/fit.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* fit_ols on exact and on degenerate columns. */
static void test_fit(void)
{
	double x[40 * 3], y[40];
	for (size_t i = 0; i < 40; i++) {
		x[i * 3] = (double)i;
		x[i * 3 + 1] = (double)((i * 7) % 11);
		x[i * 3 + 2] = 2 * (double)i; /* collinear with column 0 */
		y[i] = 0.5 + 0.01 * (double)i + 0.03 * (double)((i * 7) % 11);
	}
	struct fit o;
	CHECK(fit_ols(x, y, 40, 3, &o) == 0);
	CHECK(o.dropped[2] && !o.dropped[0] && !o.dropped[1]);
	CHECK_NEAR(o.beta[0], 0.01, 1e-9);
	CHECK_NEAR(o.beta[1], 0.03, 1e-9);
	CHECK(o.se[0] < 1e-6);
	y[5] = NAN; /* a row with a NAN is left out */
	CHECK(fit_ols(x, y, 40, 3, &o) == 0 && o.n == 39);
	CHECK(fit_ols(x, y, 4, 3, &o) < 0); /* too few rows */
	for (size_t i = 0; i < 40; i++)
		x[i * 3] = x[i * 3 + 1] = x[i * 3 + 2] = 5; /* no spread at all */
	CHECK(fit_ols(x, y, 40, 3, &o) < 0);
}

int main(void)
{
	test_fit();
	return unit_done("fit_test");
}
