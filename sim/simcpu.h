/* SPDX-License-Identifier: Apache-2.0 */
/* simcpu: the CPU model of one simulated router (docs/sim.md "CPU model"): per slot of time,
 * the offered WireGuard demand, throttled by the cores it loads (its own and those of the other
 * work that follows it), gives each interface's throughput and each core's load; bytes are
 * sums of the slots' throughput. */
#ifndef WGWATCH_SIMCPU_H
#define WGWATCH_SIMCPU_H

#include "sim/scenario.h"

#include <stdint.h>

typedef struct simcpu simcpu_t;

/* One slot: [f][d] as in struct sc_cpu (d 0 rx, 1 tx). */
struct simcpu_slot {
	double demand[SC_CPU_MAX_WG][2]; /* Mbit/s offered */
	double tput[SC_CPU_MAX_WG][2];   /* Mbit/s carried */
	double load[SC_MAX_CORES];       /* percent, 0..100 */
	double wg[SC_MAX_CORES][2];      /* the part of load that is WireGuard rx, tx (percent); the
					    follow work it brings is other work, not this */
};

/* The model of a router of group g (g->cpu_sim); key seeds every hash, phase (s) shifts the
 * wave. */
simcpu_t *simcpu_create(const struct sc_group *g, uint64_t key, double phase);
void simcpu_destroy(simcpu_t *m);
/* The slot that contains t. Pure. */
void simcpu_slot_at(const simcpu_t *m, double t, struct simcpu_slot *out);
/* The load of core at t, a whole percent as RouterOS reports: the instant's, or the mean over
 * the group's load_window before t. Pure. */
int simcpu_core_load(const simcpu_t *m, double t, int core);
/* What the load of core at t is made of, unrounded: parts[SC_PROF_RX] decrypt, [SC_PROF_TX]
 * encrypt, [SC_PROF_WORK] the rest (work, or an idle core's noise). Their sum is the load. Pure. */
void simcpu_core_parts(const simcpu_t *m, double t, int core, double parts[SC_PROF_PARTS]);
/* Mbit/s a clean tunnel with interface f's cost and follow in direction d could carry at t:
 * the least, over the cores it loads, of the headroom a core has after its work (not after
 * any stream's traffic) over what a Mbit/s of f, d costs there; INFINITY when f costs
 * nothing in d. Pure. */
double simcpu_capacity(const simcpu_t *m, double t, int f, int d);
/* out[f][d]: bytes carried over [0, t] (t < 0: minus the bytes of [t, 0], at the steady rate of
 * the first phase). A pure function of t: bit-identical whatever was asked before; safe from
 * any thread (the checkpoint cache has a mutex). */
void simcpu_bytes(simcpu_t *m, double t, double out[][2]);

#endif
