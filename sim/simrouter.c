/* SPDX-License-Identifier: Apache-2.0 */
/* simrouter: the state of one simulated router at a simulated time, computed, not stepped:
 * counters are closed-form integrals of the (swinging) rates over the phases since the last
 * boot or, for a group of the CPU model, sums of its slots (simcpu.c), so any t gives the same
 * answer. No I/O, no randomness beyond the scenario seed. A router is shared by the HTTP and the
 * SNMP threads: everything here is read-only after simrouter_create but the CPU model's
 * checkpoint cache, which only simcpu.c touches, under its own mutex (held briefly, never
 * while calling out). Must never keep other mutable state. */
#include "config.h"
#include "sim/simrouter.h"
#include "sim/simcpu.h"
#include "lib/hash.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY             86400.0
#define HANDSHAKE_EVERY 120.0

struct simrouter {
	char *name;
	const scenario_t *sc;
	const struct sc_group *g;
	size_t gidx;
	double boot0; /* the boot before the sim started (negative) */
	double phase; /* daily swing offset, seconds */
	int npeers;
	double *weight; /* per peer, summing to 1 per pool (idle peers 0) */
	simcpu_t *cpu;  /* the CPU model, NULL unless g->cpu_sim */
};

uint64_t simrouter_hash(const simrouter_t *r, uint64_t a, uint64_t b)
{
	uint64_t h = hash_mix64(r->sc->seed ^ 0x9e3779b97f4a7c15ULL);
	for (const char *c = r->name; *c; c++)
		h = hash_mix64(h ^ (unsigned char)*c);
	return hash_mix64(
		h ^ hash_mix64(a + 0x632be59bd9b4e019ULL) ^ hash_mix64(b * 0x9e3779b97f4a7c15ULL + 7));
}

static double simrouter_unit_rand(const simrouter_t *r, uint64_t a, uint64_t b)
{
	return (double)(simrouter_hash(r, a, b) >> 11) / (double)(1ULL << 53);
}

static void simrouter_init_peers(simrouter_t *r)
{
	const struct sc_group *g = r->g;
	for (size_t i = 0; i < g->nwg; i++)
		r->npeers += g->wg[i].npeers;
	r->weight = xcalloc((size_t)r->npeers + 1, sizeof(double));
	double sum[SC_CPU_MAX_WG] = { 0 };
	for (int p = 0; p < r->npeers; p++) {
		if (simrouter_peer_idle(r, p))
			continue;
		r->weight[p] = 0.5 + simrouter_unit_rand(r, 1, (uint64_t)p);
		sum[simrouter_peer_pool(r, p)] += r->weight[p];
	}
	for (int p = 0; p < r->npeers; p++)
		if (sum[simrouter_peer_pool(r, p)] > 0)
			r->weight[p] /= sum[simrouter_peer_pool(r, p)];
}

simrouter_t *simrouter_create(const scenario_t *sc, const struct sc_group *g, int idx, size_t gidx)
{
	simrouter_t *r = xcalloc(1, sizeof(*r));
	r->sc = sc;
	r->g = g;
	r->gidx = gidx;
	if (g->count == 1)
		r->name = xstrdup(g->name);
	else
		r->name = xasprintf(
			"%s-%0*d", g->name, g->count >= 100 ? (g->count >= 1000 ? 4 : 3) : 2, idx + 1);
	double up = g->uptime0 >= 0 ? g->uptime0 : DAY + floor(simrouter_unit_rand(r, 2, 0) * 60 * DAY);
	r->boot0 = -up;
	r->phase = floor(simrouter_unit_rand(r, 3, 0) * 4 * 3600);
	if (g->cpu_sim)
		r->cpu = simcpu_create(g, simrouter_hash(r, 8, 0), r->phase);
	simrouter_init_peers(r);
	return r;
}

void simrouter_destroy(simrouter_t *r)
{
	if (!r)
		return;
	free(r->name);
	free(r->weight);
	simcpu_destroy(r->cpu);
	free(r);
}

const char *simrouter_name(const simrouter_t *r)
{
	return r->name;
}
const struct sc_group *simrouter_group(const simrouter_t *r)
{
	return r->g;
}
const scenario_t *simrouter_scenario(const simrouter_t *r)
{
	return r->sc;
}
size_t simrouter_index(const simrouter_t *r)
{
	return r->gidx;
}

static size_t simrouter_phase_at(const simrouter_t *r, double t)
{
	size_t i = r->g->nphases - 1;
	while (i > 0 && r->g->phases[i].start > t)
		i--;
	return i;
}

const struct sc_state *simrouter_state(const simrouter_t *r, double t)
{
	return &r->g->phases[simrouter_phase_at(r, t)].st;
}

/* Start of the last boot at or before t. */
static double simrouter_last_boot(const simrouter_t *r, double t)
{
	for (size_t i = simrouter_phase_at(r, t); i > 0; i--)
		if (r->g->phases[i].reboot)
			return r->g->phases[i].start;
	return r->boot0;
}

double simrouter_uptime(const simrouter_t *r, double t)
{
	double b = simrouter_last_boot(r, t);
	double booting = b == r->boot0 ? 0 : r->g->boot_time;
	return t - b - booting;
}

enum sc_fault simrouter_fault(const simrouter_t *r, double t)
{
	if (simrouter_uptime(r, t) < 0)
		return SC_FAULT_REFUSE;
	return simrouter_state(r, t)->fault;
}

double simrouter_next_change(const simrouter_t *r, double t)
{
	const struct sc_group *g = r->g;
	for (size_t i = 1; i < g->nphases; i++) {
		double s = g->phases[i].start;
		if (s > t)
			return s;
		if (g->phases[i].reboot && s + g->boot_time > t && g->boot_time > 0)
			return s + g->boot_time;
	}
	return INFINITY;
}

int simrouter_core_load(const simrouter_t *r, double t, int core)
{
	if (r->cpu)
		return simcpu_core_load(r->cpu, t, core);
	const struct sc_state *st = simrouter_state(r, t);
	int v;
	if (st->nloads > 0)
		v = st->loads[core < st->nloads ? core : st->nloads - 1];
	else
		v = core == st->busy_core ? st->busy_load : st->other_load;
	int j = r->g->load_jitter;
	if (j > 0 && v > 0 && v < 100) {
		uint64_t h = simrouter_hash(r, 100 + (uint64_t)core, (uint64_t)floor(t / 10));
		v += (int)(h % (uint64_t)(2 * j + 1)) - j;
		v = v < 0 ? 0 : v > 99 ? 99 : v;
	}
	return v;
}

void simrouter_core_parts(const simrouter_t *r, double t, int core, double parts[SC_PROF_PARTS])
{
	if (r->cpu) {
		simcpu_core_parts(r->cpu, t, core, parts);
		return;
	}
	parts[SC_PROF_RX] = parts[SC_PROF_TX] = 0;
	parts[SC_PROF_WORK] = simrouter_core_load(r, t, core);
}

double simrouter_capacity(const simrouter_t *r, double t, int f, int d)
{
	return r->cpu ? simcpu_capacity(r->cpu, t, f, d) : INFINITY;
}

bool simrouter_version_at_least(const char *version, int major, int minor)
{
	int a = 0, b = 0;
	if (sscanf(version, "%d.%d", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

int simrouter_npeers(const simrouter_t *r)
{
	return r->npeers;
}

int simrouter_peer_iface(const simrouter_t *r, int peer)
{
	size_t i = 0;
	while (i + 1 < r->g->nwg && peer >= r->g->wg[i].npeers)
		peer -= r->g->wg[i++].npeers;
	return (int)i;
}

int simrouter_peer_num(const simrouter_t *r, int peer)
{
	size_t i = 0;
	while (i + 1 < r->g->nwg && peer >= r->g->wg[i].npeers)
		peer -= r->g->wg[i++].npeers;
	return peer + 1;
}

bool simrouter_peer_idle(const simrouter_t *r, int peer)
{
	int iface = simrouter_peer_iface(r, peer);
	return simrouter_peer_num(r, peer) > r->g->wg[iface].npeers - r->g->idle_peers;
}

/* Integral of mbps * (1 + swing * sin(2 pi (t + phase) / wave_period)) over [a, b], in bytes. */
static double simrouter_integral(const simrouter_t *r, double mbps, double swing, double a, double b)
{
	double w = 2 * M_PI / r->g->wave_period;
	double v = (b - a) + swing / w * (cos(w * (a + r->phase)) - cos(w * (b + r->phase)));
	return mbps * 1e6 / 8 * v;
}

/* When the counters started: the end of the last boot at or before t. */
static double simrouter_counting_since(const simrouter_t *r, double t)
{
	double b = simrouter_last_boot(r, t);
	return b + (b == r->boot0 ? 0 : r->g->boot_time);
}

int simrouter_npools(const simrouter_t *r)
{
	return r->cpu ? (int)r->g->nwg : 1;
}

int simrouter_peer_pool(const simrouter_t *r, int peer)
{
	return r->cpu ? simrouter_peer_iface(r, peer) : 0;
}

void simrouter_pool_bytes(const simrouter_t *r, double t, double out[][2])
{
	if (!r->cpu) {
		out[0][0] = simrouter_total_bytes(r, t, 0);
		out[0][1] = simrouter_total_bytes(r, t, 1);
		return;
	}
	double now[SC_CPU_MAX_WG][2], since[SC_CPU_MAX_WG][2];
	simcpu_bytes(r->cpu, t, now);
	simcpu_bytes(r->cpu, simrouter_counting_since(r, t), since);
	for (int f = 0; f < simrouter_npools(r); f++)
		for (int d = 0; d < 2; d++)
			out[f][d] = fmax(now[f][d] - since[f][d], 0);
}

double simrouter_total_bytes(const simrouter_t *r, double t, int dir)
{
	const struct sc_group *g = r->g;
	double from = simrouter_counting_since(r, t);
	double sum = 0;
	if (r->cpu) {
		double pool[SC_CPU_MAX_WG][2];
		simrouter_pool_bytes(r, t, pool);
		for (int f = 0; f < simrouter_npools(r); f++)
			sum += pool[f][dir];
		return sum;
	}
	for (size_t i = simrouter_phase_at(r, from); i < g->nphases; i++) {
		const struct sc_phase *ph = &g->phases[i];
		double a = fmax(from, ph->start);
		double b = i + 1 < g->nphases ? fmin(t, g->phases[i + 1].start) : t;
		if (b > a)
			sum += simrouter_integral(
				r, dir ? ph->st.tx_mbps : ph->st.rx_mbps, ph->st.swing, a, b);
	}
	return sum;
}

uint64_t simrouter_wan_drops(const simrouter_t *r, double t)
{
	const struct sc_group *g = r->g;
	double from = simrouter_counting_since(r, t), sum = 0;
	for (size_t i = simrouter_phase_at(r, from); i < g->nphases; i++) {
		double a = fmax(from, g->phases[i].start);
		double b = i + 1 < g->nphases ? fmin(t, g->phases[i + 1].start) : t;
		if (b > a)
			sum += g->phases[i].st.wan_drops * (b - a);
	}
	return (uint64_t)floor(sum);
}

uint64_t simrouter_peer_bytes(const simrouter_t *r, int peer, double total)
{
	return (uint64_t)floor(total * r->weight[peer]);
}

double simrouter_last_handshake(const simrouter_t *r, double t, int peer)
{
	if (simrouter_peer_idle(r, peer))
		return -1;
	double up = simrouter_uptime(r, t);
	double off = floor(simrouter_unit_rand(r, 4, (uint64_t)peer) * HANDSHAKE_EVERY);
	double since = fmod(fmax(up, 0) + off, HANDSHAKE_EVERY);
	return floor(fmin(since, fmax(up, 0)));
}

void simrouter_key(const simrouter_t *r, int peer, int salt, char out[45])
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char raw[33] = { 0 }; /* 32 key bytes and a zero pad */
	for (int i = 0; i < 4; i++) {
		uint64_t h = simrouter_hash(r, 1000 + (uint64_t)salt, (uint64_t)peer * 4 + (uint64_t)i);
		memcpy(raw + i * 8, &h, 8);
	}
	for (int i = 0, o = 0; i < 33; i += 3, o += 4) {
		uint32_t v = (uint32_t)raw[i] << 16 | (uint32_t)raw[i + 1] << 8 | raw[i + 2];
		for (int k = 0; k < 4; k++)
			out[o + k] = b64[(v >> (18 - 6 * k)) & 63];
	}
	out[43] = '=';
	out[44] = '\0';
}
