/* SPDX-License-Identifier: Apache-2.0 */
/* simcpu: the CPU model of one router. Slot k covers [k slot, (k+1) slot); its state is the
 * phase in force at its start, its values are hashes of the router's key and indexes, so every
 * slot is a pure function of k. The one mutable thing is the cache of cumulative bytes at every
 * SIMCPU_CHECKPOINT-th slot, built lazily and only under m->lock, each checkpoint summed from the
 * previous one in slot order: the bytes at t are the same bits whatever was asked before and
 * from whichever thread. Never does I/O or logs; holds the lock only to build and copy checkpoints. */
#include "config.h"
#include "sim/simcpu.h"
#include "lib/hash.h"
#include "lib/xmem.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SIMCPU_CHECKPOINT 128                 /* slots between cached sums */
#define BYTES_PER_MBIT    125000.0            /* 1e6 / 8 */
#define IDLE_NOISE        3                   /* an idle core reads 0..2 % */
#define SIMCPU_USES       (2 * SC_CPU_SPREAD) /* cores one stream may load: its cost's, its follow's */

struct simcpu {
	const struct sc_group *g;
	uint64_t key;
	double phase;
	int nwg;
	pthread_mutex_t lock; /* guards cp, ncp, cap */
	double *cp;           /* cp[j][f][d]: bytes over slots [0, j * SIMCPU_CHECKPOINT) */
	size_t ncp, cap;      /* checkpoints built (>= 1: cp[0] is 0) and room */
};

/* Uniform in [0, 1) from the router's key, a (what) and b (which slot or cell). */
static double simcpu_unit(const simcpu_t *m, uint64_t a, int64_t b)
{
	uint64_t h = hash_mix64(m->key ^ hash_mix64(a * 0x9e3779b97f4a7c15ULL + (uint64_t)b));
	return (double)(h >> 11) / (double)(1ULL << 53);
}

simcpu_t *simcpu_create(const struct sc_group *g, uint64_t key, double phase)
{
	simcpu_t *m = xcalloc(1, sizeof(*m));
	m->g = g;
	m->key = hash_mix64(key + 0x5851f42d4c957f2dULL);
	m->phase = phase;
	m->nwg = (int)(g->nwg < SC_CPU_MAX_WG ? g->nwg : SC_CPU_MAX_WG);
	pthread_mutex_init(&m->lock, NULL);
	m->cap = 16;
	m->cp = xcalloc(m->cap * (size_t)m->nwg * 2 + 1, sizeof(double));
	m->ncp = 1;
	return m;
}

void simcpu_destroy(simcpu_t *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->cp);
	free(m);
}

static const struct sc_state *simcpu_state(const struct sc_group *g, double t)
{
	size_t i = g->nphases - 1;
	while (i > 0 && g->phases[i].start > t)
		i--;
	return &g->phases[i].st;
}

/* 1 + x * (2u - 1): uniform in [1 - x, 1 + x). */
static double simcpu_noise(const simcpu_t *m, double x, uint64_t what, int64_t cell)
{
	return x > 0 ? 1 + x * (2 * simcpu_unit(m, what, cell) - 1) : 1;
}

#define SIMCPU_WEEK 604800.0 /* s: growth is a share a week */

/* Offered demand of slot k (steady: no wave, no noise, bursts at their mean; growth still). */
static void simcpu_demand(
	const simcpu_t *m, const struct sc_state *st, int64_t k, bool steady, double d[SC_CPU_MAX_WG][2])
{
	const struct sc_group *g = m->g;
	const struct sc_cpu *c = &st->cpu;
	double tm = ((double)k + 0.5) * g->slot;
	int64_t cell = (int64_t)floor(tm / g->noise_every);
	double wave = steady ? 1 : 1 + st->swing * sin(2 * M_PI * (tm + m->phase) / g->wave_period);
	double mean_burst = 1 + c->burst_share * (c->burst_mult - 1);
	double shared = steady ? 1 : simcpu_noise(m, c->shared_noise, 0x180, cell); /* one curve */
	wave *= g->growth > 0 ? pow(1 + g->growth, tm / SIMCPU_WEEK) : 1; /* from simulated second 0 */
	for (int f = 0; f < m->nwg; f++)
		for (int dir = 0; dir < 2; dir++) {
			uint64_t what = (uint64_t)(f * 2 + dir);
			double v = c->has_demand ? c->demand[f][dir]
						 : (dir ? st->tx_mbps : st->rx_mbps) / m->nwg;
			if (steady)
				v *= mean_burst;
			else if (c->burst_share > 0 && simcpu_unit(m, 0x200 + what, k) < c->burst_share)
				v *= c->burst_mult;
			d[f][dir] = v * wave * shared *
				(steady ? 1 : simcpu_noise(m, c->noise, 0x100 + what, cell));
		}
}

/* Other load of slot k per core, 0..100. */
static void simcpu_work(const simcpu_t *m, const struct sc_state *st, int64_t k, bool steady, double *w)
{
	const struct sc_group *g = m->g;
	int64_t cell = (int64_t)floor(((double)k + 0.5) * g->slot / g->noise_every);
	for (int c = 0; c < g->cores; c++) {
		double v = st->cpu.work[c];
		if (!steady && v > 0)
			v *= simcpu_noise(m, st->cpu.work_noise, 0x300 + (uint64_t)c, cell);
		w[c] = fmin(v, 100);
	}
}

/* One core a stream loads, in percent of it per Mbit/s carried: WireGuard's own work (its cost)
 * or other work that handles the same packets (its follow, e.g. a firewall's). */
struct simcpu_use {
	int core;
	double pct;
	bool wg;
};

/* The cores stream f, d loads (at most SIMCPU_USES): its cost spread evenly over its cost
 * cores, its follow work over its follow cores; every cost scaled by the clock. */
static int simcpu_uses(const struct sc_cpu *c, double scale, int f, int d, struct simcpu_use *u)
{
	int n = 0;
	for (int i = 0; i < c->ncores[f][d]; i++)
		u[n++] = (struct simcpu_use){ c->core[f][d][i], scale * c->cost[f][d] / c->ncores[f][d],
			true };
	for (int i = 0; i < c->nfcores[f][d]; i++)
		u[n++] = (struct simcpu_use){ c->fcore[f][d][i], scale * c->follow[f][d] / c->nfcores[f][d],
			false };
	return n;
}

/* Throttle the demand by the cores: each stream by the fullest of the cores it loads, cost and
 * follow alike; throughput and loads into out. */
static void simcpu_throttle(
	const simcpu_t *m, const struct sc_cpu *c, double scale, const double *work, struct simcpu_slot *out)
{
	double want[SC_MAX_CORES] = { 0 }, factor[SC_MAX_CORES];
	struct simcpu_use u[SIMCPU_USES];
	for (int f = 0; f < m->nwg; f++)
		for (int d = 0; d < 2; d++)
			for (int i = 0, n = simcpu_uses(c, scale, f, d, u); i < n; i++)
				want[u[i].core] += u[i].pct * out->demand[f][d];
	for (int k = 0; k < m->g->cores; k++) {
		double avail = fmax(0, 100 - work[k]);
		factor[k] = want[k] > avail ? avail / want[k] : 1;
		out->load[k] = work[k];
		out->wg[k][0] = out->wg[k][1] = 0;
	}
	for (int f = 0; f < m->nwg; f++)
		for (int d = 0; d < 2; d++) {
			int n = simcpu_uses(c, scale, f, d, u);
			double fac = 1;
			for (int i = 0; i < n; i++)
				fac = fmin(fac, factor[u[i].core]);
			out->tput[f][d] = out->demand[f][d] * fac;
			for (int i = 0; i < n; i++) {
				double part = u[i].pct * out->tput[f][d];
				out->load[u[i].core] += part;
				out->wg[u[i].core][d] += u[i].wg ? part : 0;
			}
		}
	for (int k = 0; k < m->g->cores; k++)
		out->load[k] = fmin(out->load[k], 100);
}

/* A bit costs clock cycles: at a lower clock every cost takes more of the core. */
static double simcpu_scale(const simcpu_t *m, const struct sc_state *st)
{
	int mhz0 = m->g->phases[0].st.cpu_mhz;
	return mhz0 > 0 && st->cpu_mhz > 0 ? (double)mhz0 / st->cpu_mhz : 1;
}

static void simcpu_eval(
	const simcpu_t *m, const struct sc_state *st, int64_t k, bool steady, struct simcpu_slot *out)
{
	double work[SC_MAX_CORES];
	simcpu_demand(m, st, k, steady, out->demand);
	simcpu_work(m, st, k, steady, work);
	double scale = simcpu_scale(m, st);
	simcpu_throttle(m, &st->cpu, scale, work, out);
}

static int64_t simcpu_slot_index(const simcpu_t *m, double t)
{
	return (int64_t)floor(t / m->g->slot);
}

static void simcpu_slot_k(const simcpu_t *m, int64_t k, struct simcpu_slot *out)
{
	simcpu_eval(m, simcpu_state(m->g, (double)k * m->g->slot), k, false, out);
}

void simcpu_slot_at(const simcpu_t *m, double t, struct simcpu_slot *out)
{
	simcpu_slot_k(m, simcpu_slot_index(m, t), out);
}

/* True if nothing runs on core: no work in st and no interface's cost or follow work. */
static bool simcpu_idle_core(const simcpu_t *m, const struct sc_cpu *c, int core)
{
	if (c->work[core] > 0)
		return false;
	for (int f = 0; f < m->nwg; f++)
		for (int d = 0; d < 2; d++)
			for (int i = 0; i < c->ncores[f][d]; i++)
				if (c->core[f][d][i] == core && c->cost[f][d] > 0)
					return false;
	for (int f = 0; f < m->nwg; f++)
		for (int d = 0; d < 2; d++)
			for (int i = 0; i < c->nfcores[f][d]; i++)
				if (c->fcore[f][d][i] == core && c->follow[f][d] > 0)
					return false;
	return true;
}

/* The load of core at t, unrounded: the slot that contains t, or an idle core's noise cell. */
static double simcpu_instant_load(const simcpu_t *m, double t, int core)
{
	int64_t k = simcpu_slot_index(m, t);
	const struct sc_state *st = simcpu_state(m->g, (double)k * m->g->slot);
	if (simcpu_idle_core(m, &st->cpu, core)) {
		int64_t cell = (int64_t)floor(t / m->g->noise_every);
		return (int)(simcpu_unit(m, 0x400 + (uint64_t)core, cell) * IDLE_NOISE);
	}
	struct simcpu_slot s;
	simcpu_eval(m, st, k, false, &s);
	return s.load[core];
}

/* The mean load of core over [t - w, t], slot by slot, each slot weighed by its part of the
 * span (a slot's value is read at the middle of that part). */
static double simcpu_window_load(const simcpu_t *m, double t, double w, int core)
{
	double slot = m->g->slot, sum = 0;
	for (int64_t k = simcpu_slot_index(m, t - w); (double)k * slot < t; k++) {
		double a = fmax((double)k * slot, t - w), b = fmin((double)(k + 1) * slot, t);
		if (b > a)
			sum += (b - a) * simcpu_instant_load(m, (a + b) / 2, core);
	}
	return sum / w;
}

int simcpu_core_load(const simcpu_t *m, double t, int core)
{
	double w = m->g->load_window;
	return (int)lround(w > 0 ? simcpu_window_load(m, t, w, core) : simcpu_instant_load(m, t, core));
}

void simcpu_core_parts(const simcpu_t *m, double t, int core, double parts[SC_PROF_PARTS])
{
	int64_t k = simcpu_slot_index(m, t);
	const struct sc_state *st = simcpu_state(m->g, (double)k * m->g->slot);
	parts[SC_PROF_RX] = parts[SC_PROF_TX] = 0;
	if (simcpu_idle_core(m, &st->cpu, core)) {
		int64_t cell = (int64_t)floor(t / m->g->noise_every);
		parts[SC_PROF_WORK] = (int)(simcpu_unit(m, 0x400 + (uint64_t)core, cell) * IDLE_NOISE);
		return;
	}
	struct simcpu_slot s;
	simcpu_eval(m, st, k, false, &s);
	double wg = s.wg[core][0] + s.wg[core][1], raw = s.load[core];
	double over = wg > raw ? raw / wg : 1; /* the 100 % cap cut the sum */
	parts[SC_PROF_RX] = s.wg[core][0] * over;
	parts[SC_PROF_TX] = s.wg[core][1] * over;
	parts[SC_PROF_WORK] = fmax(raw - wg * over, 0);
}

double simcpu_capacity(const simcpu_t *m, double t, int f, int d)
{
	int64_t k = simcpu_slot_index(m, t);
	const struct sc_state *st = simcpu_state(m->g, (double)k * m->g->slot);
	double work[SC_MAX_CORES], cap = INFINITY;
	struct simcpu_use u[SIMCPU_USES];
	if (f < 0 || f >= m->nwg)
		return INFINITY;
	simcpu_work(m, st, k, false, work);
	double scale = simcpu_scale(m, st);
	int n = simcpu_uses(&st->cpu, scale, f, d, u);
	for (int i = 0; i < n; i++) {
		double per_mbit = 0; /* all f, d puts on this core: cost and follow may share it */
		for (int j = 0; j < n; j++)
			per_mbit += u[j].core == u[i].core ? u[j].pct : 0;
		if (per_mbit > 0)
			cap = fmin(cap, fmax(0, 100 - work[u[i].core]) / per_mbit);
	}
	return cap;
}

/* acc[f][d] += bytes of the whole slots [k0, k1), in slot order. */
static void simcpu_sum(const simcpu_t *m, int64_t k0, int64_t k1, double *acc)
{
	double per_slot = m->g->slot * BYTES_PER_MBIT;
	struct simcpu_slot s;
	for (int64_t k = k0; k < k1; k++) {
		simcpu_slot_k(m, k, &s);
		for (int f = 0; f < m->nwg; f++)
			for (int d = 0; d < 2; d++)
				acc[f * 2 + d] += s.tput[f][d] * per_slot;
	}
}

/* Copy checkpoint j into acc, building the checkpoints up to j first. */
static void simcpu_checkpoint(simcpu_t *m, size_t j, double *acc)
{
	size_t row = (size_t)m->nwg * 2;
	pthread_mutex_lock(&m->lock);
	while (m->ncp <= j) {
		if (m->ncp == m->cap) {
			m->cap *= 2;
			m->cp = xreallocarray(m->cp, m->cap * row + 1, sizeof(double));
		}
		double *next = m->cp + m->ncp * row;
		memcpy(next, next - row, row * sizeof(double));
		int64_t k0 = (int64_t)(m->ncp - 1) * SIMCPU_CHECKPOINT;
		simcpu_sum(m, k0, k0 + SIMCPU_CHECKPOINT, next);
		m->ncp++;
	}
	memcpy(acc, m->cp + j * row, row * sizeof(double));
	pthread_mutex_unlock(&m->lock);
}

void simcpu_bytes(simcpu_t *m, double t, double out[][2])
{
	double acc[SC_CPU_MAX_WG * 2];
	struct simcpu_slot s;
	if (t < 0) {
		simcpu_eval(m, &m->g->phases[0].st, 0, true, &s);
		for (int f = 0; f < m->nwg; f++)
			for (int d = 0; d < 2; d++)
				out[f][d] = s.tput[f][d] * BYTES_PER_MBIT * t;
		return;
	}
	int64_t k = simcpu_slot_index(m, t);
	int64_t j = k / SIMCPU_CHECKPOINT;
	simcpu_checkpoint(m, (size_t)j, acc);
	simcpu_sum(m, j * SIMCPU_CHECKPOINT, k, acc);
	simcpu_slot_k(m, k, &s);
	double part = fmin(fmax(t - (double)k * m->g->slot, 0), m->g->slot);
	for (int f = 0; f < m->nwg; f++)
		for (int d = 0; d < 2; d++)
			out[f][d] = acc[f * 2 + d] + s.tput[f][d] * (part * BYTES_PER_MBIT);
}
