/* SPDX-License-Identifier: Apache-2.0 */
/* view: the immutable, reference-counted snapshot of a detector's results that web/ reads
 * (verdicts, cohorts, single-core bounds, capacities, the rollout settings), built from arrays the caller
 * hands in. Below detector.c: it never reads the detector's state, and the one lock it keeps
 * guards every published slot and every view's count. */
#ifndef WGWATCH_VIEW_H
#define WGWATCH_VIEW_H

#include <stddef.h>

#include "detector/capacity.h"
#include "detector/detector.h"

/* A new view (one reference) of copies of v[0..nv) (each with its upgrade_id), of b[0..nb), and
 * of a reference to rollout (NULL is fine). */
detector_view_t *view_build(const struct detector_verdict *const *v, size_t nv,
	const struct detector_bound *b, size_t nb, struct rollout *rollout);
/* Copies of c[0..n) into v, which is not published yet. */
void view_set_capacity(detector_view_t *v, const struct capacity *c, size_t n);
void view_destroy(detector_view_t *v); /* frees v whatever its references */
/* Under the views' lock: *slot becomes v (owned, may be NULL); returns the view it replaced,
 * whose reference the caller now holds (detector_view_free). */
detector_view_t *view_swap(detector_view_t **slot, detector_view_t *v);
/* Under the views' lock: a new reference to *slot's view; NULL when there is none. */
detector_view_t *view_ref(detector_view_t *const *slot);
void view_verdict_free(struct detector_verdict *v); /* its strings, not v */

#endif
