/* SPDX-License-Identifier: Apache-2.0 */
/* cpumodel: the unit tests' model of a router's CPU, the truth the detector's tests compare
 * against: per-poll rates and whole-percent core loads drawn from streams of known cost, and
 * the capacity those costs give. A fixture: it never calls the detector, so its truth never
 * depends on what the detector says. */
#ifndef WGWATCH_CPUMODEL_H
#define WGWATCH_CPUMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/profile.h"

/* The model (as sim/'s): each stream costs `cost` of one core per Mbit/s on its core; other
 * work loads cores of its own; a core cannot pass 1, so demand above its ceiling is throttled
 * and the core reads 1. Demand follows a wave, carries per-poll noise, may come in bursts
 * (per 1/10 of a poll); the load is read at the poll instant (or averaged over the last `avg`
 * polls: RouterOS does not say over how long it reads a core's load), the rates integrate. */
#define CPUMODEL_CORES 8
#define CPUMODEL_SLOTS 10
#define CPUMODEL_NS    4 /* wg0 tx, wg0 rx, wg1 tx, wg1 rx */

struct cpumodel_stream {
	double mbps, cost; /* demand; load per Mbit/s */
	int core;
	double cost2; /* 0, or its load per Mbit/s on a second core (a split stream, or a firewall
			 core that handles the same packets) */
	int core2;
};

/* A CPU profile's split of one part of a core's load over classifiers, in percent of the part
 * (what is left is unclassified). */
struct cpumodel_split {
	const char *name[4];
	double pct[4];
};

struct cpumodel_win {
	size_t n;
	struct cpumodel_stream s[CPUMODEL_NS];
	double work[CPUMODEL_CORES], work_noise; /* other work per core; its per-poll noise (+-) */
	double noise, swing;                     /* per-poll demand noise (+-); wave amplitude */
	double shared;                           /* demand noise (+-) every stream shares: one curve */
	double burst_p, burst_x;                 /* share of slots in a burst; demand times this then */
	size_t avg;                              /* 0: the load read at the poll's instant; else its
						    mean over the last avg polls */
	const struct cpumodel_split *tun, *oth;  /* a profile taken in the window: its streams' split, its
					     other work's; tun NULL: no profile */
};

/* A stream's cost (load per Mbit/s) on core c: on its core, its second core, or nought. */
double cpumodel_cost(const struct cpumodel_stream *st, int c);
/* Window w's n polls with seed: the rates (bit/s, CPUMODEL_NS a poll) into rate, the core
 * loads (0..1, whole percents, CPUMODEL_CORES a poll) into load. */
void cpumodel_gen(const struct cpumodel_win *w, uint64_t seed, double *rate, float *load);
/* What stream s could carry in w with the others as they are (their mean demand, throttled
 * where a core is full): the rate (Mbit/s) at which the first of its cores fills. */
double cpumodel_capacity(const struct cpumodel_win *w, int s);
/* The CPU profile taken in w (NULL when it has none; the caller frees it). */
profile_t *cpumodel_profile(const struct cpumodel_win *w);

#endif
