/* matched: the matched-rate method, a stream's cores' load at the same rates before and after a
 * version change (docs/detector.md, "Matched rates"). Internal to detector/; it calls nothing
 * above it. */
#ifndef WGWATCH_MATCHED_H
#define WGWATCH_MATCHED_H

#include <stdbool.h>
#include <stddef.h>

struct judge_frame;
struct judge_w;
struct judge_params;
struct judge_result;

/* Judge stream s of f on the polls of b and a where every stream with traffic runs at the same
 * rates: on[ncores] are its cores as a fit, a pinned core or a profile placed them (none: not
 * known, and then only "unchanged" can be said). True with *r filled (a verdict of method
 * matched-rate, or insufficient-data with its why); false when too few polls share their rates. */
bool matched_judge(const struct judge_frame *f, const struct judge_w *b, const struct judge_w *a, size_t s,
	const bool *on, const struct judge_params *p, struct judge_result *r);

#endif
