/* SPDX-License-Identifier: Apache-2.0 */
/* stats_test: detector/stats.c's quantiles on hand-worked tables (moved out of
 * detector_test: one test file per module). */
#include "config.h"
#include "detector/stats.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static void test_quantile(void)
{
	double v[] = { 5, 1, 4, 2, 3 };
	CHECK_NEAR(stats_quantile(v, 5, 0.5), 3, 0);
	CHECK_NEAR(stats_quantile(v, 5, 0.0), 1, 0);
	CHECK_NEAR(stats_quantile(v, 5, 1.0), 5, 0);
	CHECK_NEAR(stats_quantile(v, 4, 0.5), 2.5, 1e-12);
	CHECK(isnan(stats_quantile(v, 0, 0.5)));
}

/* stats_quantile on fresh copies: linear interpolation between the sorted neighbours. */
static void test_quantile_table(void)
{
	static const struct {
		double v[6];
		size_t n;
		double q, want;
	} cases[] = {
		{ { 7 }, 1, 0.5, 7 },
		{ { 7 }, 1, 0.9, 7 },
		{ { 2, 1 }, 2, 0.5, 1.5 },
		{ { 2, 1 }, 2, 0.25, 1.25 },
		{ { 10, 0, 20, 30 }, 4, 0.1, 3 }, /* pos 0.3 between 0 and 10 */
		{ { 10, 0, 20, 30 }, 4, 0.9, 27 },
		{ { 3, 3, 3, 3, 3, 3 }, 6, 0.5, 3 },
		{ { -1, 5, 2, 8, 4, 6 }, 6, 0.5, 4.5 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v[6];
		memcpy(v, cases[i].v, sizeof(v));
		CHECK_NEAR(stats_quantile(v, cases[i].n, cases[i].q), cases[i].want, 1e-12);
	}
	double *m = xcalloc(3, sizeof(double));
	m[0] = 9, m[1] = 1, m[2] = 4;
	CHECK_NEAR(stats_median_take(m, 3), 4, 0);         /* frees m */
	CHECK(isnan(stats_median_take(xcalloc(1, 8), 0))); /* frees it too */
}

int main(void)
{
	test_quantile();
	test_quantile_table();
	return unit_done("stats_test");
}
