/* SPDX-License-Identifier: Apache-2.0 */
/* cpumodel: the unit tests' model of a router's CPU (cpumodel.h). Pure arithmetic on the
 * window it is given: no clock, no randomness but its seeded hash, nothing of the detector. */
#include "config.h"
#include "cpumodel.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>

/* Other work's split when a window names none. */
static const struct cpumodel_split cpumodel_fw = { { "firewall", "networking", "management" },
	{ 50, 30, 20 } };

static double cpumodel_unit(uint64_t seed, uint64_t a, uint64_t b) /* deterministic, 0..1 */
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ULL ^ (a + 1) * 0xbf58476d1ce4e5b9ULL ^
		(b + 7) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	x *= 0xd6e8feb86659fd93ULL;
	x ^= x >> 32;
	return (double)(x >> 11) / (double)(1ULL << 53);
}

double cpumodel_cost(const struct cpumodel_stream *st, int c)
{
	return (st->core == c ? st->cost : 0) + (st->cost2 > 0 && st->core2 == c ? st->cost2 : 0);
}

/* One slot: throughput per stream into thr, loads per core into load. A stream is throttled by
 * the fullest of its cores. */
static void cpumodel_slot(
	const struct cpumodel_win *w, const double *demand, const double *work, double *thr, double *load)
{
	double wanted[CPUMODEL_CORES] = { 0 }, f[CPUMODEL_CORES];
	for (int s = 0; s < CPUMODEL_NS; s++)
		for (int c = 0; c < CPUMODEL_CORES; c++)
			wanted[c] += cpumodel_cost(&w->s[s], c) * demand[s];
	for (int c = 0; c < CPUMODEL_CORES; c++) {
		double avail = fmax(0, 1 - work[c]);
		f[c] = wanted[c] > avail ? avail / wanted[c] : 1;
		load[c] = work[c];
	}
	for (int s = 0; s < CPUMODEL_NS; s++) {
		const struct cpumodel_stream *st = &w->s[s];
		double g = f[st->core];
		if (st->cost2 > 0)
			g = fmin(g, f[st->core2]);
		thr[s] = demand[s] * g;
		for (int c = 0; c < CPUMODEL_CORES; c++)
			load[c] += cpumodel_cost(st, c) * thr[s];
	}
}

/* Noise cells are a poll long but start an offset of a poll after the polls do (the sim's
 * cells are whole seconds; polls fall anywhere), so the load read at a poll's end belongs to a
 * cell the next poll's rate may hold more of: the detector must not be fooled by that. Each
 * seed has its own offset. */
#define CPUMODEL_OFFSET(seed) fmod(0.45 + 0.37 * (double)(seed), 1.0)

/* Poll k's load read as the mean over the last avg polls (mean: each poll's own, by its slots),
 * whole percents. */
static void cpumodel_mean_load(size_t avg, size_t k, const double *mean, float *load)
{
	size_t from = k + 1 >= avg ? k + 1 - avg : 0;
	for (int c = 0; c < CPUMODEL_CORES; c++) {
		double sum = 0;
		for (size_t j = from; j <= k; j++)
			sum += mean[j * CPUMODEL_CORES + (size_t)c];
		load[k * CPUMODEL_CORES + (size_t)c] = (float)(round(sum / (double)(k + 1 - from) * 100) /
			100);
	}
}

void cpumodel_gen(const struct cpumodel_win *w, uint64_t seed, double *rate, float *load)
{
	double *mean = w->avg > 0 ? xcalloc(w->n * CPUMODEL_CORES, sizeof(double)) : NULL;
	for (size_t k = 0; k < w->n; k++) {
		double wave = 1 + w->swing * sin(2 * M_PI * (double)k / (double)w->n), work[CPUMODEL_CORES],
		       l[CPUMODEL_CORES];
		for (int c = 0; c < CPUMODEL_CORES; c++)
			work[c] = w->work[c] *
				(1 + w->work_noise * (2 * cpumodel_unit(seed, k, 100 + (uint64_t)c) - 1));
		for (int s = 0; s < CPUMODEL_NS; s++)
			rate[k * CPUMODEL_NS + (size_t)s] = 0;
		for (int j = 0; j < CPUMODEL_SLOTS; j++) {
			uint64_t cell = (uint64_t)floor(
				(double)k + ((double)j + 0.5) / CPUMODEL_SLOTS + CPUMODEL_OFFSET(seed));
			double burst = cpumodel_unit(seed, k, 200 + (uint64_t)j) < w->burst_p ? w->burst_x
											      : 1,
			       d[CPUMODEL_NS], thr[CPUMODEL_NS];
			double common = 1 + w->shared * (2 * cpumodel_unit(seed, cell, 50) - 1);
			for (int s = 0; s < CPUMODEL_NS; s++)
				d[s] = w->s[s].mbps * wave * common *
					(1 + w->noise * (2 * cpumodel_unit(seed, cell, (uint64_t)s) - 1)) *
					burst;
			cpumodel_slot(w, d, work, thr, l);
			for (int c = 0; c < CPUMODEL_CORES && w->avg > 0; c++)
				mean[k * CPUMODEL_CORES + (size_t)c] += fmin(l[c], 1) / CPUMODEL_SLOTS;
			for (int s = 0; s < CPUMODEL_NS; s++)
				rate[k * CPUMODEL_NS + (size_t)s] += thr[s] * 1e6 / CPUMODEL_SLOTS;
		}
		for (int c = 0; c < CPUMODEL_CORES; c++) /* the last slot's: the instant; whole percents */
			load[k * CPUMODEL_CORES + (size_t)c] = (float)(round(fmin(l[c], 1) * 100) / 100);
		if (w->avg > 0)
			cpumodel_mean_load(w->avg, k, mean, load);
	}
	free(mean);
}

/* What stream s could carry in w with the others as they are: the rate at which the first of
 * its cores fills, the others at what their mean demand gets through (throttled as m_slot does
 * where a core is full: demand held back is not load). The truth to compare. */
double cpumodel_capacity(const struct cpumodel_win *w, int s)
{
	double cap = INFINITY, demand[CPUMODEL_NS], thr[CPUMODEL_NS], load[CPUMODEL_CORES];
	for (int t = 0; t < CPUMODEL_NS; t++)
		demand[t] = w->s[t].mbps;
	cpumodel_slot(w, demand, w->work, thr, load);
	for (int c = 0; c < CPUMODEL_CORES; c++) {
		double cost = cpumodel_cost(&w->s[s], c), other = w->work[c];
		if (cost <= 0)
			continue;
		for (int t = 0; t < CPUMODEL_NS; t++)
			if (t != s)
				other += cpumodel_cost(&w->s[t], c) * thr[t];
		cap = fmin(cap, (1 - other) / cost);
	}
	return cap;
}

/* The profile of window w (NULL when it has none): per core, the mean load of its streams at
 * their mean demand, throttled as m_slot does, split by w->tun, its other work by w->oth. */
profile_t *cpumodel_profile(const struct cpumodel_win *w)
{
	if (w->tun == NULL)
		return NULL;
	profile_t *p = profile_new("m", 0);
	double wanted[CPUMODEL_CORES] = { 0 };
	for (int s = 0; s < CPUMODEL_NS; s++)
		for (int c = 0; c < CPUMODEL_CORES; c++)
			wanted[c] += cpumodel_cost(&w->s[s], c) * w->s[s].mbps;
	for (int c = 0; c < CPUMODEL_CORES; c++) {
		double other = fmin(w->work[c], 1), avail = 1 - other;
		double tun = wanted[c] > avail ? avail : wanted[c], part[2] = { 100 * tun, 100 * other };
		const struct cpumodel_split *split[2] = { w->tun, w->oth ? w->oth : &cpumodel_fw };
		for (int k = 0; k < 2; k++) {
			double left = 100;
			for (int i = 0; i < 4 && split[k]->name[i] && part[k] > 0; i++) {
				profile_add(p, c, split[k]->name[i], part[k] * split[k]->pct[i] / 100);
				left -= split[k]->pct[i];
			}
			if (part[k] > 0 && left > 0.001)
				profile_add(p, c, "unclassified", part[k] * left / 100);
		}
		if (part[0] + part[1] < 100)
			profile_add(p, c, "idle", 100 - part[0] - part[1]);
		profile_add(p, c, "total", part[0] + part[1]);
	}
	return p;
}
