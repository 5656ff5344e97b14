/* SPDX-License-Identifier: Apache-2.0 */
/* judge: the verdict engine, pure functions of a version change's samples (docs/detector.md,
 * "The model"): the verdict from each window's capacity (wincap.c finds which cores carry each
 * stream and where the first fills), groups, far projections, matched rates; and the
 * single-core bound, and a stream's capacity in one window. It calls wincap, matched, own,
 * profcore, frame and stats below it, never above. */
#ifndef WGWATCH_JUDGE_H
#define WGWATCH_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detector/detector.h"
#include "detector/frame.h"

/* The verdicts of every stream of f into r[0 .. 2 * f->nifs). */
void judge_event(const struct frame *f, const struct frame_params *p, struct frame_result *r);
/* A stream's capacity in one window (capacity.c): pinned (measured) or projected, or why not. */
struct judge_wcap {
	bool ok, pinned;
	double cap, rse; /* bits/s and its relative standard error; NAN unless ok */
	char cores[32];  /* the cores that carry it, "3" or "1+2"; "" when none */
	const char *why; /* !ok: why not (static) */
};
/* The capacity of every stream of f over all its polls (f->split unused) into r[0 .. 2 * f->nifs). */
void judge_window(const struct frame *f, const struct frame_params *p, struct judge_wcap *r);
/* The same over polls [from, to) of f only. */
void judge_window_part(
	const struct frame *f, const struct frame_params *p, size_t from, size_t to, struct judge_wcap *r);
/* The single-core shape of polls p[0..n) into *b (all but b->router). */
void judge_bound(const struct frame_poll *p, size_t n, struct detector_bound *b);

#endif
