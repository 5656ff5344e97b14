/* SPDX-License-Identifier: Apache-2.0 */
/* matched: the matched-rate method, a stream's cores' load at the same rates before and after a
 * version change (docs/detector.md, "Matched rates"). Internal to detector/; it calls nothing
 * above it. */
#ifndef WGWATCH_MATCHED_H
#define WGWATCH_MATCHED_H

#include <stdbool.h>
#include <stddef.h>

struct frame;
struct frame_w;
struct frame_params;
struct frame_result;

/* Judge stream s of f on the polls of b and a where every stream with traffic runs at the same
 * rates: on[ncores] are its cores as a fit, a pinned core or a profile placed them (none: not
 * known, and then only "unchanged" can be said). True with *r filled (a verdict of method
 * matched-rate, or insufficient-data with its why); false when too few polls share their rates. */
bool matched_judge(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const bool *on, const struct frame_params *p, struct frame_result *r);

#endif
