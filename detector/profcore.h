/* SPDX-License-Identifier: Apache-2.0 */
/* profcore: what a CPU profile says of the cores that the load alone cannot (docs/detector.md,
 * "CPU profiles"). Below judge: it reads the frame, never calls judge. */
#ifndef WGWATCH_PROFCORE_H
#define WGWATCH_PROFCORE_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/profile.h"
#include "detector/frame.h"

struct profcore_pick { /* where a stream's cores came from a profile */
	int side;      /* 0 none, 1 the before window's profile, 2 the after window's */
	int core;      /* -1: every core of the tunnel's path, all pinned */
	double share;  /* of the core's load on the tunnel's path, percent */
};

/* For a stream no fit and no single pinned core placed (carry, judge_attribute's): the one
 * pinned core of a window whose profile shows it doing mostly tunnel work, where that and the
 * stream are unambiguous. Marks carry; returns what it did per stream (2 * f->nifs, caller
 * frees). */
struct profcore_pick *profcore_attribute(const struct frame *f, const struct frame_w *b,
	const struct frame_w *a, const struct frame_params *p, bool *carry);
/* Marks on[c] for every core of p (NULL: none) with half or more of its load, and 5 % of the
 * core at least, on the tunnel's path. */
void profcore_tunnel_cores(const profile_t *p, size_t ncores, bool *on);
/* The other work on core c of p as a share of a core (0..1), the tunnel's path left out: its
 * rows of other work, plus its unclassified rows when unclear_is_other (they hold the tunnel's
 * crypto on some builds, other work on others: the caller takes the reading that alarms
 * least). False when p has no load on c. */
bool profcore_other(const profile_t *p, int c, bool unclear_is_other, double *other);
/* Says in r->why that its cores came from a profile, when pick says so. */
void profcore_note(const struct profcore_pick *pick, struct frame_result *r);
/* The confounders the profiles before and after a change show on the cores ("3", "1+2"): other
 * work that moved by 10 points of a core or more, one line per core, appended to list (owned,
 * may be NULL) with '\n' between them; returns the new list (caller frees). */
char *profcore_confounders(char *list, const profile_t *before, const profile_t *after, const char *cores);

#endif
