/* SPDX-License-Identifier: Apache-2.0 */
/* own: which streams of a group that moves together a core carries, told by the streams' own
 * ups and downs around the shared curve (docs/detector.md, "Groups"). A leaf of detector/: it
 * reads a frame and fits, and calls nothing above it. */
#ifndef WGWATCH_DETECTOR_OWN_H
#define WGWATCH_DETECTOR_OWN_H

#include <stdbool.h>
#include <stddef.h>

struct frame;
struct frame_w;

#define OWN_MAX 8 /* members of a group told apart at most */

/* For core c over window w: t[i], how many standard errors member mem[i]'s own ups and downs
 * move the core's load (its slope over its standard error; NAN when the fit cannot say), for
 * the n members. -1 when too few polls, or when one member has no ups and downs of its own (a
 * column the others explain): then nothing can be said. */
int own_effects(
	const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c, double *t);

/* Whether the load over window w is read over more polls than own_costs' near lags (the
 * poll, the next and the 3 before) hold: where it is, the slopes on the members' mean rates
 * over the 8 polls before those, pooled over the members and cores (of those on[] that are
 * true, all when on is NULL) whose cost shows, are two standard errors above nought. The
 * reading is the router's, the same for every core and stream. */
bool own_reach(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, const bool *on);

/* For core c over window w: cost[i], what member mem[i] costs the core per bit/s, and se[i]
 * its standard error (NAN when the fit cannot say). The cost is the sum of the slopes on the
 * member's rate at the poll, the next and the 3 before, and, where far (own_reach), on its
 * mean rate over the 8 before those: so it holds for a load read over any stretch of those
 * polls (RouterOS does not say how long it averages a core's load). -1 when nothing can be
 * said (too few polls, more than 4 members, a column the others explain). */
int own_costs(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c, bool far,
	double *cost, double *se);

/* The standard error of member mem[i]'s cost on core c (own_costs, on far) by the jackknife:
 * the fit again with each of 10 stretches of w left out. It holds where the fit's own is too
 * kind (residuals that are not independent: other work that drifts). NAN when a fit fails. */
double own_costs_jack(const struct frame *f, const struct frame_w *w, const size_t *mem, size_t n, size_t c,
	bool far, size_t i);

#endif
