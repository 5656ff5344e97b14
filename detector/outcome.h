/* SPDX-License-Identifier: Apache-2.0 */
/* outcome: what a verdict can say and by which method, and their names as the API, the metrics,
 * the pages and the database spell them. A leaf: it calls nothing of the detector. */
#ifndef WGWATCH_OUTCOME_H
#define WGWATCH_OUTCOME_H

#include <stdbool.h>

enum detector_outcome {
	DETECTOR_INSUFFICIENT = 0, /* "insufficient-data": too few samples or too little traffic */
	DETECTOR_UNCHANGED,
	DETECTOR_IMPROVEMENT,
	DETECTOR_REGRESSION,
};

enum detector_method {
	DETECTOR_M_NONE = 0,   /* "none": no method could be applied (insufficient data) */
	DETECTOR_M_SATURATION, /* "saturation-ceiling" */
	DETECTOR_M_COST,       /* "cpu-cost" */
	DETECTOR_M_PEAK,       /* "peak": low confidence, never a regression */
	DETECTOR_M_PROBE,      /* "probe": a fixed-rate probe pair, the highest confidence */
	DETECTOR_M_MATCHED,    /* "matched-rate": the cores' load at the same rates, where rates are steady */
};

const char *outcome_name(enum detector_outcome v);        /* "regression", ...; "?" unknown */
const char *outcome_method_name(enum detector_method m);  /* "saturation-ceiling", ...; "?" */
enum detector_outcome outcome_of(const char *name);       /* by name; insufficient-data if unknown */
enum detector_method outcome_method_of(const char *name); /* by name; none if unknown */
bool outcome_method_high(enum detector_method m); /* probe, saturation-ceiling, cpu-cost, matched-rate */

#endif
