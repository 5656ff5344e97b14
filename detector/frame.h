/* SPDX-License-Identifier: Apache-2.0 */
/* frame: one router's polls around a version change (rates per stream, loads per core, the CPU
 * profiles inside its windows), what the detector is asked of them and what it answers, and
 * their plain statistics. A leaf of detector/: judge, matched and profcore read it; it calls
 * nothing above it. */
#ifndef WGWATCH_FRAME_H
#define WGWATCH_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/profile.h"
#include "detector/outcome.h"

#define FRAME_PIN_SHARE 0.80 /* a window is pinned: its cores saturated this often ... */
#define FRAME_PIN_CV    0.10 /* ... while the stream's rate varies less than this */

/* One router's polls around a version change: [0, split) before, [split, npolls) after (the
 * poll that spans the reboot is in neither). A stream is an interface and direction,
 * s = 2 * interface + (0 tx, 1 rx). */
struct frame {
	size_t npolls, ncores, nifs, split;
	const float *load;        /* [poll * ncores + core], 0..1; NAN when not read */
	const double *rate;       /* [poll * 2 * nifs + stream], bits/s over the poll; NAN when none */
	const profile_t *prof[2]; /* a CPU profile taken inside the before, the after window; NULL */
	const char **names;       /* [nifs] the interfaces' names (data_frame's, the caller frees the
				     array, not the names); NULL: "wg0", "wg1", ... */
};

struct frame_w { /* a window: the polls [from, to) of a frame */
	size_t from, to;
};

struct frame_params {
	size_t min_samples;
	double threshold, saturated, min_bps;
};

struct frame_result {
	enum detector_outcome verdict;
	enum detector_method method;
	bool hint;
	double before_bps, after_bps, ratio, before_load, after_load;
	double rse; /* relative standard error of a projected ratio; NAN */
	size_t before_n, after_n;
	char cores[32]; /* the cores followed, "3" or "1+2"; empty when none */
	char why[96];   /* insufficient-data: why; empty otherwise */
	char moved[96]; /* a measured change that is demand moved between streams on a full core:
			   which stream's, a confounder; empty otherwise */
};

struct frame_poll { /* one poll of the router, for the single-core bound */
	int64_t t;
	double busiest, others; /* busiest-core load and mean of the other cores; NAN */
	double tx, rx;          /* WireGuard bits/s, summed over the interfaces seen */
	size_t nrows;           /* interface samples seen at this poll */
};

size_t frame_nstreams(const struct frame *f);                 /* 2 * nifs */
double frame_rate(const struct frame *f, size_t k, size_t s); /* poll k, stream s; NAN */
double frame_load(const struct frame *f, size_t k, size_t c); /* poll k, core c; NAN */
size_t frame_wn(const struct frame_w *w);                     /* polls in w */
/* Quantile q of stream s's finite rates in w (where keep[poll - w->from], if given); NAN. */
double frame_rate_q(const struct frame *f, const struct frame_w *w, size_t s, const bool *keep, double q);
/* Mean, standard deviation and count of stream s's finite rates in w (where keep, if given). */
double frame_mean(const struct frame *f, const struct frame_w *w, size_t s, const bool *keep, double *sd,
	size_t *count);
/* Whether stream s's rate in w is as flat as a stream held at its core's ceiling. */
bool frame_flat(const struct frame *f, const struct frame_w *w, size_t s);
/* Whether core c read at least p->saturated in most of w's polls (a pinned core). */
bool frame_core_pinned(
	const struct frame *f, const struct frame_w *w, size_t c, const struct frame_params *p);

#endif
