/* SPDX-License-Identifier: Apache-2.0 */
/* outcome: the names of verdicts and methods, one table each. Pure: no state, no allocation. */
#include "config.h"
#include "detector/outcome.h"

#include <stddef.h>
#include <string.h>

static const char *const outcome_names[] = {
	[DETECTOR_INSUFFICIENT] = "insufficient-data",
	[DETECTOR_UNCHANGED] = "unchanged",
	[DETECTOR_IMPROVEMENT] = "improvement",
	[DETECTOR_REGRESSION] = "regression",
};

static const char *const outcome_method_names[] = {
	[DETECTOR_M_NONE] = "none",
	[DETECTOR_M_SATURATION] = "saturation-ceiling",
	[DETECTOR_M_COST] = "cpu-cost",
	[DETECTOR_M_PEAK] = "peak",
	[DETECTOR_M_PROBE] = "probe",
	[DETECTOR_M_MATCHED] = "matched-rate",
};

#define OUTCOME_N  (sizeof(outcome_names) / sizeof(outcome_names[0]))
#define OUTCOME_NM (sizeof(outcome_method_names) / sizeof(outcome_method_names[0]))

const char *outcome_name(enum detector_outcome v)
{
	return (unsigned)v < OUTCOME_N ? outcome_names[v] : "?";
}

const char *outcome_method_name(enum detector_method m)
{
	return (unsigned)m < OUTCOME_NM ? outcome_method_names[m] : "?";
}

bool outcome_method_high(enum detector_method m)
{
	return m == DETECTOR_M_PROBE || m == DETECTOR_M_SATURATION || m == DETECTOR_M_COST ||
		m == DETECTOR_M_MATCHED;
}

static int outcome_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return 0;
}

enum detector_outcome outcome_of(const char *name)
{
	return (enum detector_outcome)outcome_index(outcome_names, OUTCOME_N, name);
}

enum detector_method outcome_method_of(const char *name)
{
	return (enum detector_method)outcome_index(outcome_method_names, OUTCOME_NM, name);
}
