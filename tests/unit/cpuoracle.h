/* SPDX-License-Identifier: Apache-2.0 */
/* cpuoracle: what one noise draw of the CPU model (cpumodel.h) can tell of a stream's capacity
 * ratio to a fit that is told the model's structure: which cores carry which streams, and that
 * a core's load is linear in their rates. It knows more than any detector can, so where even
 * it cannot settle the answer, insufficient-data is the right one for that draw; where it
 * settles it, a detector's silence is a gap. A fixture: it never calls the detector. */
#ifndef WGWATCH_CPUORACLE_H
#define WGWATCH_CPUORACLE_H

#include <stdbool.h>
#include <stdint.h>

#include "cpumodel.h"

enum cpuoracle_says {
	CPUORACLE_NA,        /* no fit: a core of the stream saturates, or its rates are constant */
	CPUORACLE_UNSETTLED, /* the 95 % interval of the ratio crosses the threshold */
	CPUORACLE_REGRESSION,
	CPUORACLE_UNCHANGED,
	CPUORACLE_IMPROVEMENT,
};

struct cpuoracle_answer {
	enum cpuoracle_says says;
	double ratio, lo, hi; /* the fit's ratio and its 95 % interval (NaN with CPUORACLE_NA) */
};

/* One window's draw: the window, its rates (bit/s, CPUMODEL_NS a poll) and loads
 * (CPUMODEL_CORES a poll), as cpumodel_gen wrote them. */
struct cpuoracle_win {
	const struct cpumodel_win *w;
	const double *rate;
	const float *load;
};

/* Stream s's capacity after / before as the draw holds it, judged against threshold (0.20: a
 * change beyond 20 %); seed drives the coefficient draws of the interval. */
struct cpuoracle_answer cpuoracle_judge(
	const struct cpuoracle_win *b, const struct cpuoracle_win *a, int s, double threshold, uint64_t seed);

/* The name of a settled answer ("regression", ...), "unsettled" or "n/a". */
const char *cpuoracle_name(enum cpuoracle_says says);

#endif
