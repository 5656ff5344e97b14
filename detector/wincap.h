/* SPDX-License-Identifier: Apache-2.0 */
/* wincap: a stream's capacity in one window, from samples already in memory: which cores carry
 * each stream (a fit of every core's load on the streams' rates, streams that move together
 * fitted as one column), and where the first of them fills, measured where they stayed
 * saturated, else projected from their slopes and headroom. judge.c builds its verdicts on it.
 * It calls fit, frame and stats below it, never judge; it never touches SQLite, a clock or a
 * lock (docs/detector.md, "The model"). */
#ifndef WGWATCH_WINCAP_H
#define WGWATCH_WINCAP_H

#include <stdbool.h>
#include <stddef.h>

#include "detector/fit.h"
#include "detector/frame.h"

#define WINCAP_ATTR_T   4.0  /* a core carries a stream: slope this many std errors above 0 ... */
#define WINCAP_MAX_RSE  0.25 /* a capacity known to this relative standard error at worst */
#define WINCAP_MAX_COLS 10   /* streams in a fit: each has its edge column too (FIT_MAX) */

/* The regressors of a window: the streams with traffic, each a column, or a group of streams
 * that move together as one column. */
struct wincap_cols {
	size_t m;
	size_t n[WINCAP_MAX_COLS];                    /* streams in column j ... */
	size_t mem[WINCAP_MAX_COLS][WINCAP_MAX_COLS]; /* ... and which: a group fitted as one */
	double mean[WINCAP_MAX_COLS];                 /* of the column's rate, its members' sum */
};

/* The cores of a stream that may fill first in a window: those whose projection held. */
struct wincap_cands {
	size_t n;
	size_t core[FIT_MAX];
};

/* A stream's capacity in one window, or why it has none. */
struct wincap_cap {
	bool ok, pinned;
	double cap, rse;           /* bits/s; its relative standard error */
	double load;               /* mean load of the stream's cores */
	int core;                  /* projected: the core that fills first; -1 */
	const char *why;           /* !ok: why not */
	struct wincap_cands cands; /* projected: the cores that could fill first ... */
	double capc[FIT_MAX];      /* ... each one's capacity ... */
	double rsec[FIT_MAX];      /* ... and its relative standard error */
	struct wincap_cands far;   /* cores that follow the stream but fill only far beyond the
				     rates seen: not the first to fill ... */
	double capf[FIT_MAX];      /* ... each one's capacity ... */
	double rsef[FIT_MAX];      /* ... and its relative standard error */
};

/* The streams with traffic in w, busiest first, each a column of its own unless it moves with
 * a column's first stream (correlation >= WINCAP_COLLINEAR over both windows, so that both are
 * judged on the same columns): then the two are one group, fitted
 * as one column, for no fit can tell apart what always moves together (tx and rx of one
 * tunnel, or tunnels whose users share one day and no ups and downs of their own). */
void wincap_columns(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, struct wincap_cols *c);

/* The column of stream s; -1 when it has none (too little traffic). */
int wincap_col_of(const struct wincap_cols *c, size_t s);

/* In window w, mark carry[s * ncores + c] where core c's load follows stream s's rate: a clear
 * positive slope in a regression of the core's load on every busy stream (so that streams
 * sharing the daily curve are told apart by their own ups and downs). */
void wincap_attribute_w(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, bool *carry);

/* Whether any of v[0 .. n) is true. */
bool wincap_any(const bool *v, size_t n);

/* The one core saturated in most of w's polls; SIZE_MAX when none or several. */
size_t wincap_pinned_core(const struct frame *f, const struct frame_w *w, const struct frame_params *p);

/* cw[0] and cw[1], each [s * ncores + c]: the cores that carry each stream in the before and
 * in the after window, each found in its own window (a tunnel may change core at the reboot).
 * A window that tells nothing for a stream takes the other's cores; where neither does, the
 * one core pinned at saturation (a flat, saturated window shows no slope) carries a stream held
 * as flat as the ceiling holds it there: a stream whose rate moves while that core stays at
 * 100 % runs elsewhere. What none of these tells, profcore.c may read from a CPU profile. */
void wincap_attribute(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	const struct frame_params *p, bool *cw[2]);

/* What profcore.c placed in the before window's cores, also in the after window's where that
 * has none. */
void wincap_attribute_copy(const struct frame *f, bool *cw[2]);

/* The relative standard error of cap, the smallest projection over the candidates, by the
 * jackknife: the projections again with each of WINCAP_JACK stretches of the window left out,
 * the smallest each time (the core that fills first may change between them). It holds where
 * the fit's own standard error is too kind (residuals that are not independent, a wave, noise
 * that is not normal). NAN when a projection fails. */
double wincap_jackknife(const struct frame *f, const struct frame_w *w, size_t s, const struct wincap_cols *c,
	int j, const struct wincap_cands *k, double cap);

/* Stream s's capacity in window w on the cores carry[s * ncores ..] marks into *o: measured
 * where they stayed saturated (o->pinned), else where the first of them fills by their slopes
 * and headroom; !o->ok with o->why where neither holds. */
void wincap_find(const struct frame *f, const struct frame_w *w, size_t s, const bool *carry,
	const struct frame_params *p, struct wincap_cap *o);

#endif
