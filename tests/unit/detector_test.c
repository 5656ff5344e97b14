/* SPDX-License-Identifier: Apache-2.0 */
/* detector_test: judge.c's maths on synthetic windows (table-driven: the bound, each method,
 * the six cases of issue 4, noise, daily swings, shifts between directions, too little data,
 * CPU profiles that name the tunnel's core or other work on it, twins the data cannot tell
 * apart) on a model of a router's CPU. Only through judge.h: what it tests is what the
 * detector calls. stats, fit and confound have tests of their own; the whole detector on a
 * database is detectordb_test's. */
#include "config.h"
#include "detector/judge.h"
#include "detector/profcore.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/log.h"
#include "store/store.h"
#include "cpumodel.h"
#include "cpuoracle.h"
#include "unit.h"

/* ---- the engine, on the model of a router's CPU (cpumodel.h) ---- */

/* The CCR1009's pinned core: the per-packet path around the crypto 3x dearer on 7.22.3. */
static const struct cpumodel_split m_tx721 = { { "networking", "encrypting", "wireguard", "ethernet" },
	{ 38, 9, 41, 12 } };
static const struct cpumodel_split m_tx722 = { { "networking", "encrypting" }, { 90.5, 9.5 } };
static const struct cpumodel_split m_fw_only = { { "firewall", "management" }, { 80, 20 } };

struct engine_case {
	const char *name;
	struct cpumodel_win b, a;
	int stream;            /* the stream judged */
	int verdict;           /* enum detector_outcome, M_THIN or'ed */
	int method;            /* -1: any */
	int ratio;             /* check the ratio against the model's capacities: 1 within +-0.1; 2 a
				  bound, never more alarming than the truth (matched-rate) */
	int hint;              /* -1: any */
	const char *not_cores; /* NULL, or cores the verdict must not name */
	const char *why;       /* NULL, or what the verdict's why must hold ("": nothing) */
	const char *conf;      /* NULL, or the confounders the profiles must give its cores */
	const char *moved;     /* NULL, or what r.moved must hold: whose demand took a full core's
				  room ("": nothing) */
};

/* Or'ed into an engine_case's verdict: insufficient-data will do too (the truth is plain, the
 * data thin: never a wrong verdict, silence allowed). */
#define M_THIN 0x100

#define S(mbps_, cost_, core_)                                    \
	{                                                         \
		.mbps = (mbps_), .cost = (cost_), .core = (core_) \
	}
#define S2(mbps_, cost_, core_, cost2_, core2_)                                                         \
	{                                                                                               \
		.mbps = (mbps_), .cost = (cost_), .core = (core_), .cost2 = (cost2_), .core2 = (core2_) \
	}
#define S0 S(0, 0.001, 7)
#define N  600
#define NB 180 /* the windows a tester judged at 250 ms polls: 45 s before, ... */
#define NA 120 /* ... 30 s after */
#define WG0(tx, ctx, rx, crx, core) \
	.s = { S(tx, ctx, core), S(rx, crx, core), S(0, 0.001, 7), S(0, 0.001, 7) }
/* Two tunnels on one curve with own ups and downs of +-2 %: wg0 (120 Mbit/s) on core 2 at
 * 0.2 % per Mbit/s and on core 5 at c5, wg1 at mbps1 on core 5 at c1; the load read over avg
 * polls (0: at the instant). */
#define R32(c5, mbps1, c1, swing_, avg_)                                                       \
	{                                                                                      \
		N, .s = { S2(120, 0.002, 2, c5, 5), S0, S(mbps1, c1, 5), S0 }, .shared = 0.25, \
		   .noise = 0.02, .swing = swing_, .avg = avg_                                 \
	}
/* The CCR1009: wg0 tx at 500 Mbit/s of demand on core 3, at this cost; rx on core 5 */
#define CCR(cost) .s = { S(500, cost, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) }

static const struct engine_case engine_cases[] = {
	{ "1 busiest core is firewall, dearer after; WireGuard's core unchanged",
		{ N, WG0(150, 0.002, 80, 0.001, 3), .work = { [1] = 0.40 }, .work_noise = 0.2,
			.noise = 0.25 },
		{ N, WG0(150, 0.002, 80, 0.001, 3), .work = { [1] = 0.95 }, .work_noise = 0.2,
			.noise = 0.25 },
		0, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "2 two tunnels, wg1 dearer: wg1 tx regression",
		{ N, .s = { S(120, 0.002, 2), S(60, 0.001, 2), S(100, 0.002, 5), S(50, 0.001, 5) },
			.noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S(60, 0.001, 2), S(100, 0.0035, 5), S(50, 0.001, 5) },
			.noise = 0.25, .swing = 0.3 },
		2, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "2 two tunnels, wg1 dearer: wg0 tx unchanged",
		{ N, .s = { S(120, 0.002, 2), S(60, 0.001, 2), S(100, 0.002, 5), S(50, 0.001, 5) },
			.noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S(60, 0.001, 2), S(100, 0.0035, 5), S(50, 0.001, 5) },
			.noise = 0.25, .swing = 0.3 },
		0, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "3 bursts saturate the core, rarer after, same ceiling (120 polls: thin, never a regression)",
		{ N, WG0(60, 0.004, 20, 0.002, 1), .noise = 0.1, .burst_p = 0.3, .burst_x = 6 },
		{ N, WG0(60, 0.004, 20, 0.002, 1), .noise = 0.1, .burst_p = 0.1, .burst_x = 6 }, 0,
		DETECTOR_UNCHANGED | M_THIN, DETECTOR_M_MATCHED, false, -1, NULL, NULL, NULL, NULL },
	{ "3 bursts saturate the core, rarer after, same ceiling (100,000 polls)",
		{ 100000, WG0(60, 0.004, 20, 0.002, 1), .noise = 0.1, .burst_p = 0.3, .burst_x = 6 },
		{ 100000, WG0(60, 0.004, 20, 0.002, 1), .noise = 0.1, .burst_p = 0.1, .burst_x = 6 }, 0,
		DETECTOR_UNCHANGED, -1, false, -1, NULL, NULL, NULL,
		NULL }, /* the verdict: bursts shared by tx and rx
									  make them one group, ratio +-0.15 */
	{ "4 idle dilution: 50% other work on its core, WireGuard 1.4x dearer",
		{ N, WG0(100, 0.002, 50, 0.001, 3), .work = { [3] = 0.5 }, .noise = 0.25 },
		{ N, WG0(100, 0.0028, 50, 0.001, 3), .work = { [3] = 0.5 }, .noise = 0.25 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "4 idle dilution, rx: its own cost held, but it shares the dearer encrypt's core and its room (6,000 polls)",
		{ 6000, WG0(100, 0.002, 50, 0.001, 3), .work = { [3] = 0.5 }, .noise = 0.25 },
		{ 6000, WG0(100, 0.0028, 50, 0.001, 3), .work = { [3] = 0.5 }, .noise = 0.25 }, 1,
		DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "4 idle dilution, rx twice as cheap on the dearer encrypt's core: its room grew, never a fall (6,000 polls)",
		{ 6000, WG0(100, 0.002, 50, 0.001, 3), .work = { [3] = 0.5 }, .noise = 0.25 },
		{ 6000, WG0(100, 0.0028, 50, 0.0005, 3), .work = { [3] = 0.5 }, .noise = 0.25 }, 1,
		DETECTOR_IMPROVEMENT | M_THIN, -1, true, -1, NULL, NULL, NULL, NULL },
	{ "5 ccr1009, users gave up: saturated before, 3x dearer, demand below the new ceiling",
		{ N, .s = { S(500, 0.0026, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		{ N, .s = { S(100, 0.0078, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "5 ccr1009, saturated part of the time before",
		{ N, .s = { S(380, 0.0026, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		{ N, .s = { S(100, 0.0078, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "5 ccr1009, saturated throughout in both windows: tx",
		{ N, .s = { S(500, 0.0026, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		{ N, .s = { S(500, 0.0078, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		0, DETECTOR_REGRESSION, DETECTOR_M_SATURATION, true, -1, NULL, NULL, NULL, "" },
	{ "5 ccr1009, saturated throughout in both windows: rx on its own core",
		{ N, .s = { S(500, 0.0026, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		{ N, .s = { S(500, 0.0078, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25 },
		1, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "pinned tx core; rx moves on a busy noisy core of its own: never put on the pinned core",
		{ N, .s = { S(500, 0.0026, 3), S(40, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02, [5] = 0.5 }, .work_noise = 0.3, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(500, 0.0078, 3), S(40, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02, [5] = 0.5 }, .work_noise = 0.3, .noise = 0.25, .swing = 0.3 },
		1, DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, false, -1, "3", NULL, NULL, NULL },
	{ "saturated throughout, demand moved from tx to rx on the same core: tx's room went to rx, named",
		{ N, WG0(500, 0.0026, 100, 0.001, 3), .work = { [3] = 0.02 }, .noise = 0.1 },
		{ N, WG0(300, 0.0026, 500, 0.001, 3), .work = { [3] = 0.02 }, .noise = 0.1 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_SATURATION, true, -1, NULL, NULL, NULL, "wg0 rx rose" },
	{ "saturated throughout, demand moved from tx to rx on the same core: rx's room grew, tx named",
		{ N, WG0(500, 0.0026, 100, 0.001, 3), .work = { [3] = 0.02 }, .noise = 0.1 },
		{ N, WG0(300, 0.0026, 500, 0.001, 3), .work = { [3] = 0.02 }, .noise = 0.1 }, 1,
		DETECTOR_IMPROVEMENT, DETECTOR_M_SATURATION, true, -1, NULL, NULL, NULL, "wg0 tx fell" },
	{ "6 a lull after the upgrade", { N, WG0(200, 0.002, 100, 0.001, 3), .noise = 0.25 },
		{ N, WG0(8, 0.002, 4, 0.001, 3), .noise = 0.25 }, 0, DETECTOR_INSUFFICIENT, DETECTOR_M_NONE,
		false, 1, NULL, NULL, NULL, NULL },
	{ "6 rates that do not overlap", { N, WG0(300, 0.002, 100, 0.001, 3), .noise = 0.1 },
		{ N, WG0(30, 0.002, 10, 0.001, 3), .noise = 0.1 }, 0, DETECTOR_INSUFFICIENT, DETECTOR_M_NONE,
		false, 1, NULL, NULL, NULL, NULL },
	{ "7 daily demand saturating at peaks, ceiling lower after",
		{ N, WG0(300, 0.0025, 100, 0.001, 3), .work = { [3] = 0.05 }, .noise = 0.1, .swing = 0.3 },
		{ N, WG0(300, 0.0035, 100, 0.001, 3), .work = { [3] = 0.05 }, .noise = 0.1, .swing = 0.3 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "7 heavy noise, no change (1,500 polls)",
		{ 1500, WG0(150, 0.002, 80, 0.001, 3), .work = { [3] = 0.1, [1] = 0.3 }, .work_noise = 0.5,
			.noise = 0.25, .swing = 0.3 },
		{ 1500, WG0(150, 0.002, 80, 0.001, 3), .work = { [3] = 0.1, [1] = 0.3 }, .work_noise = 0.5,
			.noise = 0.25, .swing = -0.3 },
		0, DETECTOR_UNCHANGED, DETECTOR_M_COST, false, -1, NULL, NULL, NULL,
		NULL }, /* the verdict; its ratio scatters +-0.12 */
	{ "improvement: cost halved", { N, WG0(150, 0.004, 80, 0.001, 3), .noise = 0.25 },
		{ N, WG0(150, 0.002, 80, 0.001, 3), .noise = 0.25 }, 0, DETECTOR_IMPROVEMENT, DETECTOR_M_COST,
		true, -1, NULL, NULL, NULL, NULL },
	{ "flat: constant rates and loads tell no core, but no core's load moved at the same rates",
		{ N, WG0(150, 0.002, 80, 0.001, 3) }, { N, WG0(150, 0.002, 80, 0.001, 3) }, 0,
		DETECTOR_UNCHANGED, DETECTOR_M_MATCHED, true, 0, NULL, NULL, NULL, NULL },
	{ "too little traffic", { N, WG0(0.3, 0.002, 0.1, 0.001, 3), .noise = 0.25 },
		{ N, WG0(0.3, 0.002, 0.1, 0.001, 3), .noise = 0.25 }, 0, DETECTOR_INSUFFICIENT,
		DETECTOR_M_NONE, false, 0, NULL, NULL, NULL, NULL },
	{ "too few samples after (window filling)", { N, WG0(150, 0.002, 80, 0.001, 3), .noise = 0.25 },
		{ 19, WG0(150, 0.002, 80, 0.001, 3), .noise = 0.25 }, 0, DETECTOR_INSUFFICIENT,
		DETECTOR_M_NONE, false, 0, NULL, NULL, NULL, NULL },
	{ "traffic stopped after: no figure, a hint", { N, WG0(150, 0.002, 80, 0.001, 3), .noise = 0.25 },
		{ N, WG0(0, 0.002, 0, 0.001, 3), .noise = 0.25 }, 0, DETECTOR_INSUFFICIENT, DETECTOR_M_NONE,
		false, 1, NULL, NULL, NULL, NULL },
	/* CPU profiles (docs/detector.md): the cores no fit can tell, other work on the tunnel's core */
	{ "5 ccr1009 with a firewall core pinned too, no profile: no core can be told",
		{ N, CCR(0.0026), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25 },
		{ N, CCR(0.0078), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25 }, 0,
		DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, false, -1, NULL, "no core's load follows its traffic",
		"", NULL },
	{ "5 ccr1009 with a firewall core pinned too: tx's core from the profile",
		{ N, CCR(0.0026), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25, .tun = &m_tx721 },
		{ N, CCR(0.0078), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25, .tun = &m_tx722 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_SATURATION, true, -1, "1",
		"core 3 from the CPU profile before the upgrade (tunnel path 99 %)", "", NULL },
	{ "5 ccr1009 with a firewall core pinned too: rx's own core still from its fit",
		{ N, CCR(0.0026), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25, .tun = &m_tx721 },
		{ N, CCR(0.0078), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25, .tun = &m_tx722 }, 1,
		DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, "3", "", "", NULL },
	{ "5 ccr1009, firewall core pinned, profile only after the upgrade",
		{ N, CCR(0.0026), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25 },
		{ N, CCR(0.0078), .work = { [1] = 1.0, [3] = 0.02 }, .noise = 0.25, .tun = &m_tx722 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_SATURATION, true, -1, "1",
		"core 3 from the CPU profile after the upgrade", NULL, NULL },
	{ "5 ccr1009 with a firewall core pinned, rx flat too: which stream rides core 3 is a guess",
		{ N, CCR(0.0026), .work = { [1] = 1.0, [3] = 0.02 }, .tun = &m_tx721 },
		{ N, CCR(0.0078), .work = { [1] = 1.0, [3] = 0.02 }, .tun = &m_tx722 }, 0,
		DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, false, -1, NULL, "no core's load follows its traffic",
		NULL, NULL },
	/* which tunnel rides which is unknown, but every core of the tunnel's path is full, so each
	 * rides a full one: its rate is its ceiling, whichever it is */
	{ "two tunnels pinned on two cores, which is which unknown: wg0 tx, at its ceiling on either",
		{ N, .s = { S(800, 0.0026, 3), S(0, 0.001, 7), S(800, 0.0026, 6), S(0, 0.001, 7) },
			.noise = 0.25, .tun = &m_tx721 },
		{ N, .s = { S(800, 0.0078, 3), S(0, 0.001, 7), S(800, 0.0026, 6), S(0, 0.001, 7) },
			.noise = 0.25, .tun = &m_tx722 },
		0, DETECTOR_REGRESSION, DETECTOR_M_SATURATION, 1, -1, NULL,
		"every core of the tunnel's path full", NULL, NULL },
	{ "two tunnels pinned on two cores, which is which unknown: wg1 tx holds",
		{ N, .s = { S(800, 0.0026, 3), S(0, 0.001, 7), S(800, 0.0026, 6), S(0, 0.001, 7) },
			.noise = 0.25, .tun = &m_tx721 },
		{ N, .s = { S(800, 0.0078, 3), S(0, 0.001, 7), S(800, 0.0026, 6), S(0, 0.001, 7) },
			.noise = 0.25, .tun = &m_tx722 },
		2, DETECTOR_UNCHANGED, DETECTOR_M_SATURATION, 1, -1, NULL,
		"every core of the tunnel's path full", NULL, NULL },
	{ "5 ccr1009 saturated part of the time, with profiles: the fit's cores, no confounder",
		{ N, .s = { S(380, 0.0026, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25, .tun = &m_tx721 },
		{ N, .s = { S(100, 0.0078, 3), S(220, 0.001, 5), S(0, 0.001, 7), S(0, 0.001, 7) },
			.work = { [3] = 0.02 }, .noise = 0.25, .tun = &m_tx722 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, "", "", NULL },
	{ "5 ccr1009 saturated throughout, with profiles: networking up, other work flat",
		{ N, CCR(0.0026), .work = { [3] = 0.02 }, .noise = 0.25, .tun = &m_tx721 },
		{ N, CCR(0.0078), .work = { [3] = 0.02 }, .noise = 0.25, .tun = &m_tx722 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_SATURATION, true, -1, NULL, "", "", NULL },
	{ "a firewall rule grows on the tunnel's own core: a regression, and its confounder",
		{ N, WG0(150, 0.002, 80, 0.001, 3), .work = { [3] = 0.05 }, .noise = 0.25, .tun = &m_tx721,
			.oth = &m_fw_only },
		{ N, WG0(150, 0.002, 80, 0.001, 3), .work = { [3] = 0.40 }, .noise = 0.25, .tun = &m_tx721,
			.oth = &m_fw_only },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, "",
		"cpu3 other work 5 % → 40 % (firewall 4 % → 32 %), from the profiles", NULL },
	{ "1 busiest core is firewall, dearer after, with profiles: not the tunnel's core",
		{ N, WG0(150, 0.002, 80, 0.001, 3), .work = { [1] = 0.40 }, .work_noise = 0.2, .noise = 0.25,
			.tun = &m_tx721, .oth = &m_fw_only },
		{ N, WG0(150, 0.002, 80, 0.001, 3), .work = { [1] = 0.95 }, .work_noise = 0.2, .noise = 0.25,
			.tun = &m_tx721, .oth = &m_fw_only },
		0, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, "", "", NULL },
	/* Round 3 (issue 37): a stream's capacity is where the first of its cores fills, each core
	 * with its own load, other work and slope; each window's cores found in that window. */
	{ "r3.1 firewall core follows the tunnel, dearer after, WireGuard's core still fills first: tx",
		{ N, .s = { S2(150, 0.002, 0, 0.0008, 2), S2(80, 0.001, 0, 0.0008, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S2(150, 0.002, 0, 0.0012, 2), S2(80, 0.001, 0, 0.0012, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		0, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.1 firewall core follows both directions, dearer after, WireGuard's still fills first: rx",
		{ N, .s = { S2(150, 0.002, 0, 0.0008, 2), S2(200, 0.001, 0, 0.0003, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S2(150, 0.002, 0, 0.0012, 2), S2(200, 0.001, 0, 0.0005, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		1, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	/* Silence allowed: at 50 seeds 10 are silent, 5 of them unsettled even to a fit told the
	 * cores (the all-clear needs its ratio one and a half standard errors inside the threshold,
	 * and 120 polls of noise 0.25 leave 0.10 to 0.14; docs/detector.md). Never anything but
	 * unchanged. */
	{ "r3.1 firewall core follows the tunnel, as short windows as a tester's: tx",
		{ NB, .s = { S2(150, 0.002, 0, 0.0008, 2), S2(80, 0.001, 0, 0.0008, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		{ NA, .s = { S2(150, 0.002, 0, 0.0012, 2), S2(80, 0.001, 0, 0.0012, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		0, DETECTOR_UNCHANGED | M_THIN, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.1 firewall core follows the tunnel and becomes the first to fill: tx regression",
		{ N, .s = { S2(150, 0.002, 0, 0.0008, 2), S2(80, 0.001, 0, 0.0008, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S2(150, 0.002, 0, 0.0025, 2), S2(80, 0.001, 0, 0.0025, 2), S0, S0 },
			.work = { [2] = 0.1 }, .noise = 0.25, .swing = 0.3 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.5 a tunnel split over two cores, one of them busier after: regression",
		{ N, .s = { S2(150, 0.0015, 1, 0.0015, 2), S(40, 0.001, 5), S0, S0 }, .work = { [2] = 0.1 },
			.noise = 0.25, .swing = 0.3 },
		{ N, .s = { S2(150, 0.0015, 1, 0.0015, 2), S(40, 0.001, 5), S0, S0 }, .work = { [2] = 0.45 },
			.noise = 0.25, .swing = 0.3 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.5 its neighbour on its core twice as dear: wg0 tx lost headroom too",
		{ N, .s = { S(150, 0.002, 3), S(50, 0.001, 5), S(120, 0.002, 3), S(40, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.002, 3), S(50, 0.001, 5), S(120, 0.004, 3), S(40, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.5 its neighbour on its core twice as dear: the neighbour, wg1 tx",
		{ N, .s = { S(150, 0.002, 3), S(50, 0.001, 5), S(120, 0.002, 3), S(40, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.002, 3), S(50, 0.001, 5), S(120, 0.004, 3), S(40, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		2, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.5 1.5x dearer on a core it shares",
		{ N, .s = { S(150, 0.002, 3), S(50, 0.001, 5), S(20, 0.001, 3), S(10, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.003, 3), S(50, 0.001, 5), S(20, 0.001, 3), S(10, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.5 1.5x dearer on a core it shares, as short windows as a tester's",
		{ NB, .s = { S(150, 0.002, 3), S(50, 0.001, 5), S(20, 0.001, 3), S(10, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		{ NA, .s = { S(150, 0.003, 3), S(50, 0.001, 5), S(20, 0.001, 3), S(10, 0.001, 6) },
			.noise = 0.25, .swing = 0.3 },
		0, DETECTOR_REGRESSION | M_THIN, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.4 the tunnel moves to another core across the reboot: unchanged",
		{ N, .s = { S(150, 0.002, 3), S(80, 0.001, 4), S0, S0 }, .work = { [5] = 0.3 }, .noise = 0.25,
			.swing = 0.3 },
		{ N, .s = { S(150, 0.002, 5), S(80, 0.001, 6), S0, S0 }, .work = { [3] = 0.3 }, .noise = 0.25,
			.swing = 0.3 },
		0, DETECTOR_UNCHANGED, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.4 the tunnel moves to another core and got 1.5x dearer: regression",
		{ N, .s = { S(150, 0.002, 3), S(80, 0.001, 4), S0, S0 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.003, 5), S(80, 0.001, 6), S0, S0 }, .noise = 0.25, .swing = 0.3 }, 0,
		DETECTOR_REGRESSION, DETECTOR_M_COST, true, -1, NULL, NULL, NULL, NULL },
	{ "r3.4 a decrypt at a tenth of its own core, nothing changed: far from full, unchanged",
		{ N, .s = { S(150, 0.002, 3), S(80, 0.001, 4), S0, S0 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.002, 3), S(80, 0.001, 4), S0, S0 }, .noise = 0.25, .swing = 0.3 }, 1,
		DETECTOR_UNCHANGED, DETECTOR_M_COST, 1, 0, NULL, "far from full", NULL, NULL },
	{ "r3.4 a decrypt at a tenth of its core that moved at the reboot: unchanged",
		{ N, .s = { S(150, 0.002, 3), S(80, 0.001, 4), S0, S0 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.002, 5), S(80, 0.001, 6), S0, S0 }, .noise = 0.25, .swing = 0.3 }, 1,
		DETECTOR_UNCHANGED, DETECTOR_M_COST, 1, 0, NULL, "far from full", NULL, NULL },
	{ "r3.4 a decrypt at a tenth of its core, twice as dear: far from full, its room halved",
		{ N, .s = { S(150, 0.002, 3), S(80, 0.001, 4), S0, S0 }, .noise = 0.25, .swing = 0.3 },
		{ N, .s = { S(150, 0.002, 3), S(80, 0.002, 4), S0, S0 }, .noise = 0.25, .swing = 0.3 }, 1,
		DETECTOR_REGRESSION, DETECTOR_M_COST, 1, -1, NULL, NULL, NULL, NULL },
	/* item 3: steady rates, judged by the cores' load at the same rates */
	{ "r3.3 steady rates, nothing changed: an x86 CHR whose tunnel is spread over four cores",
		{ N, .s = { S2(300, 0.0015, 0, 0.0015, 1), S2(200, 0.0015, 2, 0.0015, 3), S0, S0 },
			.work = { 0.1, 0.1, 0.1, 0.1 }, .work_noise = 0.5, .noise = 0.02 },
		{ N, .s = { S2(300, 0.0015, 0, 0.0015, 1), S2(200, 0.0015, 2, 0.0015, 3), S0, S0 },
			.work = { 0.1, 0.1, 0.1, 0.1 }, .work_noise = 0.5, .noise = 0.02 },
		0, DETECTOR_UNCHANGED, DETECTOR_M_MATCHED, 1, 0, NULL, NULL, NULL, NULL },
	{ "r3.3 steady rates, nothing changed, as short windows as a tester's",
		{ NB, .s = { S2(300, 0.0015, 0, 0.0015, 1), S2(200, 0.0015, 2, 0.0015, 3), S0, S0 },
			.work = { 0.1, 0.1, 0.1, 0.1 }, .work_noise = 0.5, .noise = 0.02 },
		{ NA, .s = { S2(300, 0.0015, 0, 0.0015, 1), S2(200, 0.0015, 2, 0.0015, 3), S0, S0 },
			.work = { 0.1, 0.1, 0.1, 0.1 }, .work_noise = 0.5, .noise = 0.02 },
		1, DETECTOR_UNCHANGED, DETECTOR_M_MATCHED, 1, 0, NULL, NULL, NULL, NULL },
	{ "r3.3 a fixed rate (UDP test), the tunnel's core twice as busy at it, profiles name the core",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0, .tun = &m_tx721 },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0, .tun = &m_tx722 },
		0, DETECTOR_REGRESSION, DETECTOR_M_MATCHED, 1, -1, NULL, "", NULL, NULL },
	{ "r3.3 a fixed rate, other work on the tunnel's core, the tunnel twice as dear, profiles split it",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2, [3] = 0.1 },
			.work_noise = 0.2, .noise = 0, .tun = &m_tx721, .oth = &m_fw_only },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2, [3] = 0.1 },
			.work_noise = 0.2, .noise = 0, .tun = &m_tx722, .oth = &m_fw_only },
		0, DETECTOR_REGRESSION, DETECTOR_M_MATCHED, 1, -1, NULL, "", NULL, NULL },
	{ "r3.3 a fixed rate, other work on the tunnel's core grew, profiles split it",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2, [3] = 0.1 },
			.work_noise = 0.2, .noise = 0, .tun = &m_tx721, .oth = &m_fw_only },
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2, [3] = 0.4 },
			.work_noise = 0.2, .noise = 0, .tun = &m_tx721, .oth = &m_fw_only },
		0, DETECTOR_REGRESSION, DETECTOR_M_MATCHED, 1, -1, NULL, "", NULL, NULL },
	{ "r3.3 a fixed rate, the tunnel twice as dear, one profile only: the bound",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0, .tun = &m_tx721 },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0 },
		0, DETECTOR_REGRESSION, DETECTOR_M_MATCHED, 2, -1, NULL, "capacity between 0.5", NULL, NULL },
	{ "r3.3 a fixed rate (UDP test), the tunnel's core twice as busy at it, no profile: a sign, not a verdict",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0 },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0 },
		0, DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, 0, 1, NULL, "not known to be its core", NULL,
		NULL },
	{ "r3.3 a fixed rate (UDP test), a firewall core busier, the profiles name the tunnel's: unchanged",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0, .tun = &m_tx721, .oth = &m_fw_only },
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.6 }, .work_noise = 0.2,
			.noise = 0, .tun = &m_tx721, .oth = &m_fw_only },
		0, DETECTOR_UNCHANGED, DETECTOR_M_MATCHED, 1, 0, NULL, NULL, NULL, NULL },
	{ "r3.3 a fixed rate with jitter, the tunnel's core twice as busy at it: the slope tells",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0.02 },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .work_noise = 0.2,
			.noise = 0.02 },
		0, DETECTOR_REGRESSION, -1, 1, -1, NULL, NULL, NULL, NULL },
	{ "r3.3 steady rates on two tunnels, one core busier: which tunnel's cannot be told",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .work_noise = 0.1, .noise = 0 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 }, .work_noise = 0.1, .noise = 0 }, 2,
		DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, 0, 1, NULL, "not known to be its core", NULL, NULL },
	{ "r3.3 steady rates on two tunnels, nothing changed",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .work = { [1] = 0.3 },
			.work_noise = 0.3, .noise = 0.02 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .work = { [1] = 0.3 },
			.work_noise = 0.3, .noise = 0.02 },
		2, DETECTOR_UNCHANGED, DETECTOR_M_MATCHED, 1, 0, NULL, NULL, NULL, NULL },
	/* item 2: tunnels whose users share one day move together: judged as one group */
	{ "r3.2 two tunnels on one curve, nothing changed: unchanged, as one group",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		2, DETECTOR_UNCHANGED, DETECTOR_M_COST, 1, 0, NULL, "moves with wg0 tx: judged as one group",
		NULL, NULL },
	{ "r3.2 two tunnels on one curve, both twice as dear: regression, as one group",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		{ N, .s = { S(120, 0.004, 2), S0, S(100, 0.004, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		0, DETECTOR_REGRESSION, DETECTOR_M_COST, 1, 0, NULL, "moves with wg1 tx: judged as one group",
		NULL, NULL },
	/* Told apart where each member's cost on the other's core is bounded below what would make
	 * that core fill first; where the draw's own ups and downs cannot bound it (wg0 could cost
	 * core 5 as much as in "wg0 dear on wg1's core too" below, where core 5 fills first), silent. */
	{ "r3.2 two tunnels on one curve, wg1 twice as dear: told apart by their own ups and downs, wg1",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		2, DETECTOR_REGRESSION | M_THIN, DETECTOR_M_COST, 1, 0, NULL, "own ups and downs, on core 5",
		NULL, NULL },
	{ "r3.2 two tunnels on one curve, wg1 twice as dear: wg0 unchanged, on its own core",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 }, .shared = 0.25, .noise = 0.02,
			.swing = 0.3 },
		0, DETECTOR_UNCHANGED | M_THIN, DETECTOR_M_COST, 1, 0, NULL, "own ups and downs, on core 2",
		NULL, NULL },
	{ "r3.2 two tunnels on one curve, no ups and downs of their own, wg1 twice as dear: a sign, wg1",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 }, .shared = 0.25, .swing = 0.3 }, 2,
		DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, 0, 1, NULL, "core 2 did not", NULL, NULL },
	{ "r3.2 two tunnels on one curve, no ups and downs of their own, wg1 twice as dear: never a "
	  "regression of wg0",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 }, .shared = 0.25, .swing = 0.3 }, 0,
		DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, 0, 1, NULL, "core 2 did not", NULL, NULL },
	{ "r3.2 two tunnels on one curve, wg0 also a little on wg1's core, wg1 twice as dear: wg0 holds",
		R32(0.0005, 100, 0.002, 0.3, 0), R32(0.0005, 100, 0.004, 0.3, 0), 0,
		DETECTOR_UNCHANGED | M_THIN, -1, 1, -1, NULL, NULL, NULL, NULL },
	{ "r3.2 two tunnels on one curve, wg0 also a little on wg1's core, wg1 twice as dear: wg1 falls",
		R32(0.0005, 100, 0.002, 0.3, 0), R32(0.0005, 100, 0.004, 0.3, 0), 2,
		DETECTOR_REGRESSION | M_THIN, -1, 1, -1, NULL, NULL, NULL, NULL },
	{ "r3.2 two tunnels on one curve, the load read over 6 polls, wg0 also a little on wg1's core: wg0 holds",
		R32(0.0005, 100, 0.002, 0.3, 6), R32(0.0005, 100, 0.004, 0.3, 6), 0,
		DETECTOR_UNCHANGED | M_THIN, -1, 1, -1, NULL, NULL, NULL, NULL },
	/* wg0 costs core 5 0.16 % per Mbit/s, four fifths of what it costs its own core 2: after
	 * wg1's cost there went from 0.2 to 0.8 %, core 5 fills first for wg0, at
	 * (1 - 0.4) / 0.0016 = 375 for core 2's 500 before (0.75). Its own ups and downs on core 5
	 * may not show (t below two in both windows): never unchanged on core 2 alone (1 of 50
	 * seeds, before such a core had to be bounded). Where wg1's own ups and downs do not show
	 * on core 5 either, the group's slope there is more than wg0's own can be, and core 5 is
	 * not wg0's alone (judge_all_its: 4 of 50 seeds said 0.49 before it); wg0 is judged at
	 * what its own ups and downs say it costs each core (judge_own_split). With the load read
	 * over 6 polls the size is not checked, a known difference (docs/detector.md): wg0's own
	 * bound on core 5 is too wide to tell, and 1 of 50 seeds still says 0.49 (2 before own_costs
	 * reached the polls a six-poll reading covers, own_reach). */
	{ "r3.2 two tunnels on one curve, wg0 dear on wg1's core too, wg1 four times as dear: wg0 falls there",
		R32(0.0016, 50, 0.002, 0.2, 0), R32(0.0016, 50, 0.008, 0.2, 0), 0,
		DETECTOR_REGRESSION | M_THIN, -1, 1, -1, NULL, NULL, NULL, NULL },
	{ "r3.2 two tunnels on one curve, the load read over 6 polls, wg0 dear on wg1's core too, wg1 four times as dear: wg0 falls there",
		R32(0.0016, 50, 0.002, 0.2, 6), R32(0.0016, 50, 0.008, 0.2, 6), 0,
		DETECTOR_REGRESSION | M_THIN, -1, 0, -1, NULL, NULL, NULL, NULL },
};

/* Seeds per case: 5, or DETECTOR_TEST_RUNS (a deeper look by hand: 5 hid a false alarm that
 * 20 showed; docs/detector.md). */
static int reruns(void)
{
	const char *v = getenv("DETECTOR_TEST_RUNS");
	int n = v ? atoi(v) : 0;
	return n > 0 ? n : 5;
}
#define RERUNS ((uint64_t)reruns())

/* One case with seed: the verdict of its stream into *r, the confounders its profiles give
 * the cores of that verdict into *conf (caller frees). */
static void engine_run(const struct engine_case *c, uint64_t seed, struct frame_result *r, char **conf,
	struct cpuoracle_answer *o)
{
	size_t n = c->b.n + c->a.n;
	double *rate = xcalloc(n * CPUMODEL_NS, sizeof(double));
	float *load = xcalloc(n * CPUMODEL_CORES, sizeof(float));
	cpumodel_gen(&c->b, seed, rate, load);
	cpumodel_gen(&c->a, seed + 1000, rate + c->b.n * CPUMODEL_NS, load + c->b.n * CPUMODEL_CORES);
	profile_t *pb = cpumodel_profile(&c->b), *pa = cpumodel_profile(&c->a);
	struct frame f = { .npolls = n,
		.ncores = CPUMODEL_CORES,
		.nifs = 2,
		.split = c->b.n,
		.load = load,
		.rate = rate,
		.prof = { pb, pa } };
	const struct frame_params p = {
		.min_samples = 20, .threshold = 0.20, .saturated = 0.90, .min_bps = 1e6
	};
	struct frame_result all[CPUMODEL_NS];
	judge_event(&f, &p, all);
	*r = all[c->stream];
	*conf = profcore_confounders(NULL, pb, pa, r->cores);
	if (o != NULL) {
		const struct cpuoracle_win ob = { &c->b, rate, load },
					   oa = { &c->a, rate + c->b.n * CPUMODEL_NS,
						   load + c->b.n * CPUMODEL_CORES };
		*o = cpuoracle_judge(&ob, &oa, c->stream, p.threshold, seed);
	}
	profile_free(pb);
	profile_free(pa);
	free(rate);
	free(load);
}

/* The ratio r (its relative standard error rse) against the truth as mode says
 * (engine_case.ratio); a matched-rate verdict's
 * ratio is always read as the bound it is (mode 2), less 0.02 or two of its standard errors
 * where it states them (an unchanged's L_before / L_after, within its noise of 1). */
static bool judge_ratio_ok(int mode, double r, double rse, double truth)
{
	if (mode == 1) /* within 0.1, or two of the standard errors it states (ratio_rse) */
		return fabs(r - truth) <= fmax(0.1, isfinite(rse) ? 2 * rse * r : 0);
	if (mode == 2)
		return r >= truth - fmax(0.02, isfinite(rse) ? 2 * rse * truth : 0) &&
			r <= fmax(truth, 1) + 0.1;
	return true;
}

/* Every case RERUNS times with other noise: each run must give the expected verdict (and the
 * ratio within 0.1 of the model's). Prints the table of docs/detector.md. */
static void test_engine(void)
{
	for (size_t i = 0; i < sizeof(engine_cases) / sizeof(engine_cases[0]); i++) {
		const struct engine_case *c = &engine_cases[i];
		const char *only = getenv("DETECTOR_TEST_ONLY"); /* a look by hand at the cases it names */
		if (only && !strstr(c->name, only))
			continue;
		double truth = cpumodel_capacity(&c->a, c->stream) / cpumodel_capacity(&c->b, c->stream),
		       sum = 0, said = 0;
		int same = 0, mute = 0, moot = 0, nofit = 0, before = unit_failures;
		struct frame_result r;
		for (uint64_t seed = 1; seed <= RERUNS; seed++) {
			char *conf;
			struct cpuoracle_answer o;
			engine_run(c, seed, &r, &conf, &o);
			bool thin = (c->verdict & M_THIN) && r.verdict == DETECTOR_INSUFFICIENT;
			bool ok = thin ||
				((int)r.verdict == (c->verdict & ~M_THIN) &&
					(c->method < 0 || (int)r.method == c->method) &&
					judge_ratio_ok(c->ratio == 1 && r.method == DETECTOR_M_MATCHED
							? 2
							: c->ratio,
						r.ratio, r.rse, truth) &&
					(c->hint < 0 || r.hint == c->hint) &&
					(!c->not_cores || strcmp(r.cores, c->not_cores) != 0) &&
					(!c->why ||
						(c->why[0] ? strstr(r.why, c->why) != NULL
							   : r.why[0] == '\0')) &&
					(!c->conf || strcmp(conf, c->conf) == 0) &&
					(!c->moved ||
						(c->moved[0] ? strstr(r.moved, c->moved) != NULL
							     : r.moved[0] == '\0')));
			if (!ok && c->conf && strcmp(conf, c->conf) != 0)
				fprintf(stderr, "  \"%s\" seed %" PRIu64 ": confounders \"%s\"\n", c->name,
					seed, conf);
			free(conf);
			same += ok;
			bool muted = r.verdict == DETECTOR_INSUFFICIENT &&
				(c->verdict & ~M_THIN) != DETECTOR_INSUFFICIENT;
			mute += muted;
			moot += muted && o.says == CPUORACLE_UNSETTLED;
			nofit += muted && o.says == CPUORACLE_NA;
			sum += isfinite(r.ratio) ? r.ratio : 0, said += isfinite(r.ratio);
			if (!ok)
				fprintf(stderr,
					"  \"%s\" seed %" PRIu64
					": %s %s ratio %.3f (truth %.3f) hint %d cores %s: %s [%s]\n",
					c->name, seed, outcome_name(r.verdict), outcome_method_name(r.method),
					r.ratio, truth, r.hint, r.cores, r.why, r.moved);
			if (!ok)
				fprintf(stderr, "    rse %.3f; oracle %s %.3f [%.3f, %.3f]\n", r.rse,
					cpuoracle_name(o.says), o.ratio, o.lo, o.hi);
			if (getenv("DETECTOR_TEST_ORACLE"))
				fprintf(stderr,
					"ORACLE\t%zu\t%" PRIu64
					"\t%s\t%.3f\t%s\t%.3f\t%.3f\t%.3f\t%.3f\t%s\n",
					i, seed, outcome_name(r.verdict), r.ratio, cpuoracle_name(o.says),
					o.ratio, o.lo, o.hi, r.rse, r.why);
		}
		CHECK_INT(same, reruns());
		char thin[160] = "";
		if (mute)
			snprintf(thin, sizeof(thin),
				" (%d insufficient-data: %d unsettled to a fit told the cores, %d it cannot fit, "
				"%d settled)",
				mute, moot, nofit, mute - moot - nofit);
		printf("| %s | %s | %.2f | %s, %s | %.2f | %d of %d%s |\n", c->name,
			outcome_name(c->verdict & ~M_THIN), c->ratio ? truth : NAN, outcome_name(r.verdict),
			outcome_method_name(r.method), said > 0 ? sum / said : NAN, same, reruns(), thin);
		(void)before;
	}
}

/* The r3.2 pair where wg0 is also a little on wg1's core: a member that shares a core with
 * another is never judged on the group's capacity there (it is only a floor of the member's).
 * Over 20 seeds, where the 5 of the table showed no false alarm and two of 20 did: wg0 (its
 * own core 2 fills first, truth 1.00) never a regression, wg1 (truth 0.50) never unchanged or
 * an improvement. */
static void test_shared_member(void)
{
	const char *pre = "r3.2 two tunnels on one curve, wg0 also a little on wg1's core";
	int judged = 0;
	for (size_t i = 0; i < sizeof(engine_cases) / sizeof(engine_cases[0]); i++) {
		const struct engine_case *c = &engine_cases[i];
		if (strncmp(c->name, pre, strlen(pre)) != 0)
			continue;
		for (uint64_t seed = 1; seed <= 20; seed++) {
			struct frame_result r;
			char *conf;
			engine_run(c, seed, &r, &conf, NULL);
			free(conf);
			int bad = c->stream == 0 ? DETECTOR_REGRESSION : DETECTOR_UNCHANGED;
			if ((int)r.verdict == bad || r.verdict == DETECTOR_IMPROVEMENT)
				fprintf(stderr, "  \"%s\" seed %" PRIu64 ": %s %.3f: %s\n", c->name, seed,
					outcome_name(r.verdict), r.ratio, r.why);
			CHECK((int)r.verdict != bad && r.verdict != DETECTOR_IMPROVEMENT);
			judged++;
		}
	}
	CHECK_INT(judged, 40);
}

/* Two worlds whose every sample is the same while their truths differ: no answer drawn from
 * the data can be right in both, so the detector must give both the same, and the only answer
 * true in both is insufficient-data. Each pair is a case of the table whose truth the data
 * does not hold (docs/detector.md, "What the data cannot tell"). */
struct twin_case {
	const char *name;
	struct cpumodel_win xb, xa, yb, ya; /* world x before and after; world y */
	int stream;
	int verdict; /* insufficient-data (0), or regression where both truths are falls: then its
			range ("capacity between LO and HI") must hold both truths */
};

static const struct twin_case twin_cases[] = {
	{ "a fixed rate, no profile: the tunnel's core twice as busy (x), or the tunnel on the 20 % "
	  "core and another process doubled on core 3 (y)",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 } },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2 } },
		{ N, .s = { S(130, 0.2 / 130, 1), S0, S0, S0 }, .work = { [3] = 0.338 } },
		{ N, .s = { S(130, 0.2 / 130, 1), S0, S0, S0 }, .work = { [3] = 0.676 } }, 0,
		DETECTOR_INSUFFICIENT },
	{ "steady rates on two tunnels, core 5 busier: wg1 on it twice as dear (x), or wg0 on it (y)",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 } },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 } },
		{ N, .s = { S(120, 0.2 / 120, 5), S0, S(100, 0.0024, 2), S0 } },
		{ N, .s = { S(120, 0.4 / 120, 5), S0, S(100, 0.0024, 2), S0 } }, 2, DETECTOR_INSUFFICIENT },
	{ "two tunnels on one curve, no ups and downs of their own, core 5 busier: wg1 on it (x), or "
	  "wg0 (y)",
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.002, 5), S0 }, .shared = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.002, 2), S0, S(100, 0.004, 5), S0 }, .shared = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.2 / 120, 5), S0, S(100, 0.0024, 2), S0 }, .shared = 0.25, .swing = 0.3 },
		{ N, .s = { S(120, 0.4 / 120, 5), S0, S(100, 0.0024, 2), S0 }, .shared = 0.25, .swing = 0.3 },
		2, DETECTOR_INSUFFICIENT },
	/* the demand is 800 so that no slot falls below the ceiling: the rates are then flat */
	{ "a tunnel flat at 377 then 126 Mbit/s, cores 1 and 3 pinned, no profile: at core 3's "
	  "ceiling, 3x dearer (x), or a fixed-rate test on a core where it does not show, core 3 "
	  "full of other work (y)",
		{ N, .s = { S(800, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 1.0, [3] = 0.02 },
			.noise = 0.25 },
		{ N, .s = { S(800, 0.0078, 3), S0, S0, S0 }, .work = { [1] = 1.0, [3] = 0.02 },
			.noise = 0.25 },
		{ N, .s = { S(0.98 / 0.0026, 1e-6, 7), S0, S0, S0 }, .work = { [1] = 1.0, [3] = 1.0 } },
		{ N, .s = { S(0.98 / 0.0078, 1e-6, 7), S0, S0, S0 }, .work = { [1] = 1.0, [3] = 1.0 } }, 0,
		DETECTOR_INSUFFICIENT },
	{ "the CCR1009 with a firewall core pinned, rx flat too, profiles: tx at core 3's ceiling, 3x "
	  "dearer (x), or rx at core 3's ceiling and tx a fixed-rate test where it does not show (y)",
		{ N, CCR(0.0026), .work = { [1] = 1.0, [3] = 0.02 }, .tun = &m_tx721 },
		{ N, CCR(0.0078), .work = { [1] = 1.0, [3] = 0.02 }, .tun = &m_tx722 },
		{ N, .s = { S(0.98 / 0.0026, 1e-6, 7), S2(220, 0.98 / 220, 3, 0.001, 5), S0, S0 },
			.work = { [1] = 1.0, [3] = 0.02 }, .tun = &m_tx721 },
		{ N, .s = { S(0.98 / 0.0078, 1e-6, 7), S2(220, 0.98 / 220, 3, 0.001, 5), S0, S0 },
			.work = { [1] = 1.0, [3] = 0.02 }, .tun = &m_tx722 },
		0, DETECTOR_INSUFFICIENT },
	{ "a fixed rate, the profile before only, core 3 twice as busy after: the tunnel twice as dear "
	  "(x), or other work on its core grew as much (y)",
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .tun = &m_tx721 },
		{ N, .s = { S(130, 0.0052, 3), S0, S0, S0 }, .work = { [1] = 0.2 } },
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2 }, .tun = &m_tx721 },
		{ N, .s = { S(130, 0.0026, 3), S0, S0, S0 }, .work = { [1] = 0.2, [3] = 0.338 } }, 0,
		DETECTOR_REGRESSION },
};

/* Window w with seed, as engine_run makes it, into rate and load (n polls). */
static void twin_gen(
	const struct cpumodel_win *b, const struct cpumodel_win *a, uint64_t seed, double *rate, float *load)
{
	cpumodel_gen(b, seed, rate, load);
	cpumodel_gen(a, seed + 1000, rate + b->n * CPUMODEL_NS, load + b->n * CPUMODEL_CORES);
}

/* Whether the two worlds' samples agree: rates to a millionth, loads (whole percents) exactly. */
static bool twin_same(const double *r1, const float *l1, const double *r2, const float *l2, size_t n)
{
	for (size_t i = 0; i < n * CPUMODEL_NS; i++)
		if (fabs(r1[i] - r2[i]) > 1e-6 * fmax(1, fabs(r1[i])))
			return false;
	return memcmp(l1, l2, n * CPUMODEL_CORES * sizeof(float)) == 0;
}

/* Usage of row (cpu, name) in p as RouterOS prints it (one decimal): absent rows and rows
 * under 0.05 % are 0. */
static double twin_usage(const profile_t *p, int cpu, const char *name)
{
	const struct profile_row *r = profile_find(p, cpu, name);
	return r && r->usage >= 0.05 ? r->usage : 0;
}

/* Whether every row of p reads the same in q, to RouterOS's one decimal. */
static bool twin_prof_in(const profile_t *p, const profile_t *q)
{
	for (size_t i = 0; i < p->nrows; i++) {
		const struct profile_row *r = &p->rows[i];
		if (fabs(twin_usage(p, r->cpu, r->name) - twin_usage(q, r->cpu, r->name)) >= 0.05)
			return false;
	}
	return true;
}

/* Whether two profiles (or their absence) tell the same. */
static bool twin_prof_same(const profile_t *p, const profile_t *q)
{
	if (!p || !q)
		return !p && !q;
	return twin_prof_in(p, q) && twin_prof_in(q, p);
}

static struct frame_result twin_judge(
	size_t n, size_t split, double *rate, float *load, int stream, profile_t *const prof[2])
{
	struct frame f = { .npolls = n,
		.ncores = CPUMODEL_CORES,
		.nifs = 2,
		.split = split,
		.load = load,
		.rate = rate,
		.prof = { prof[0], prof[1] } };
	const struct frame_params p = {
		.min_samples = 20, .threshold = 0.20, .saturated = 0.90, .min_bps = 1e6
	};
	struct frame_result all[CPUMODEL_NS];
	judge_event(&f, &p, all);
	return all[stream];
}

/* Whether r's ratio is never more alarming than either truth (to the 0.02 the ratios are
 * rounded to) and its why's range "capacity between LO and HI" holds both. */
static bool twin_range_holds(const struct frame_result *r, double tx, double ty)
{
	const char *at = strstr(r->why, "capacity between ");
	double lo, hi;
	if (!at || sscanf(at, "capacity between %lf and %lf", &lo, &hi) != 2)
		return false;
	return r->ratio >= fmin(tx, ty) - 0.02 && lo <= fmin(tx, ty) + 0.01 && hi >= fmax(tx, ty) - 0.01;
}

static void test_twins(void)
{
	for (size_t i = 0; i < sizeof(twin_cases) / sizeof(twin_cases[0]); i++) {
		const struct twin_case *c = &twin_cases[i];
		size_t n = c->xb.n + c->xa.n;
		double *rx = xcalloc(n * CPUMODEL_NS, sizeof(double)),
		       *ry = xcalloc(n * CPUMODEL_NS, sizeof(double));
		float *lx = xcalloc(n * CPUMODEL_CORES, sizeof(float)),
		      *ly = xcalloc(n * CPUMODEL_CORES, sizeof(float));
		double tx = cpumodel_capacity(&c->xa, c->stream) / cpumodel_capacity(&c->xb, c->stream);
		double ty = cpumodel_capacity(&c->ya, c->stream) / cpumodel_capacity(&c->yb, c->stream);
		struct frame_result r[2];
		profile_t *px[2] = { cpumodel_profile(&c->xb), cpumodel_profile(&c->xa) };
		profile_t *py[2] = { cpumodel_profile(&c->yb), cpumodel_profile(&c->ya) };
		CHECK(twin_prof_same(px[0], py[0]) && twin_prof_same(px[1], py[1]));
		for (uint64_t seed = 1; seed <= RERUNS; seed++) {
			twin_gen(&c->xb, &c->xa, seed, rx, lx);
			twin_gen(&c->yb, &c->ya, seed, ry, ly);
			CHECK(twin_same(rx, lx, ry, ly, n));
			r[0] = twin_judge(n, c->xb.n, rx, lx, c->stream, px);
			r[1] = twin_judge(n, c->xb.n, ry, ly, c->stream, py);
			CHECK_INT(r[0].verdict, r[1].verdict);
			CHECK_INT(r[0].verdict, c->verdict);
			CHECK(c->verdict == DETECTOR_INSUFFICIENT || twin_range_holds(&r[0], tx, ty));
		}
		CHECK(fabs(tx - ty) > (c->verdict == DETECTOR_INSUFFICIENT ? 0.3 : 0.1)); /* truths differ */
		char ratio[16] = "";
		if (isfinite(r[0].ratio))
			snprintf(ratio, sizeof(ratio), " %.2f", r[0].ratio);
		printf("| twins: %s | x %.2f, y %.2f | %s, %s%s: %s |\n", c->name, tx, ty,
			outcome_name(r[0].verdict), outcome_name(r[1].verdict), ratio, r[0].why);
		free(rx), free(ry), free(lx), free(ly);
		for (int k = 0; k < 2; k++)
			profile_free(px[k]), profile_free(py[k]);
	}
}

/* The single-core bound: the busiest core >= 95% while the others average < 50%, in at
 * least 80% of at least 3 polls. */
static void test_bound(void)
{
	static const struct {
		const char *name;
		size_t n, pinned; /* the first `pinned` polls at 0.97 / 0.10, the rest at 0.60 / 0.55 */
		bool bound;
	} cases[] = {
		{ "all pinned", 10, 10, true },
		{ "80% pinned", 10, 8, true },
		{ "70% pinned", 10, 7, false },
		{ "too few polls", 2, 2, false },
		{ "three polls", 3, 3, true },
		{ "none pinned", 10, 0, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame_poll p[10];
		for (size_t k = 0; k < cases[i].n; k++) {
			bool pin = k < cases[i].pinned;
			p[k] = (struct frame_poll){ .t = (int64_t)k,
				.busiest = pin ? 0.97 : 0.60,
				.others = pin ? 0.10 : 0.55,
				.tx = 100e6 + (double)k,
				.rx = 50e6,
				.nrows = 1 };
		}
		struct detector_bound b = { 0 };
		judge_bound(p, cases[i].n, &b);
		int before = unit_failures;
		CHECK_INT(b.bound, cases[i].bound);
		CHECK_INT(b.n, cases[i].n);
		if (b.bound)
			CHECK(fabs(b.tx_bps - 100e6) < 10 && b.rx_bps == 50e6);
		else
			CHECK(isnan(b.tx_bps) && isnan(b.rx_bps));
		if (unit_failures != before)
			fprintf(stderr, "  in bound case \"%s\"\n", cases[i].name);
	}
	struct detector_bound b = { 0 };
	judge_bound(NULL, 0, &b); /* no polls: nothing to say */
	CHECK(!b.bound && b.n == 0 && isnan(b.busiest) && isnan(b.others));
}

int main(void)
{
	log_set_level(LOG_LVL_WARN);
	test_bound();
	test_engine();
	test_shared_member();
	test_twins();
	return unit_done("detector_test");
}
