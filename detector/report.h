/* SPDX-License-Identifier: Apache-2.0 */
/* report: wgwatchd --report's and --rollout-check's text for a terminal, from a view and a
 * decision. It only formats: it never reads the database, and calls nothing above it. */
#ifndef WGWATCH_REPORT_H
#define WGWATCH_REPORT_H

#include <stdio.h>

#include "detector/detector.h"
#include "detector/rollout.h"

/* Verdicts, cohorts, bound routers and the capacity headroom of every stream. */
void report_print(FILE *out, const detector_view_t *v);
/* --rollout-check: the decision on q for router, its cohort and its reasons. */
void report_rollout(
	FILE *out, const char *router, const struct rollout_query *q, const struct rollout_result *res);

#endif
