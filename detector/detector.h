/* SPDX-License-Identifier: Apache-2.0 */
/* detector: the upgrade detector. For each RouterOS version change, each WireGuard interface and
 * each direction (tx = encrypt, rx = decrypt) it judges CAPACITY, not demand: before/after
 * windows of the stored samples, compared by saturation ceiling, CPU cost at comparable rates,
 * or (low confidence) peak projection. Also flags routers bound by one core, and groups verdicts
 * into cohorts (upgrade x architecture x board). Runs in its own thread on its own SQLite
 * connection, never on the event loop; docs/detector.md explains the method. */
#ifndef WGWATCH_DETECTOR_H
#define WGWATCH_DETECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/conf.h"
#include "detector/outcome.h"

/* One verdict: one version change x WireGuard interface x direction. Plain data. */
struct detector_verdict {
	int64_t upgrade_id; /* the version change's id (version_history), in every view's copy */
	char *router, *interface;
	const char *direction; /* "tx" or "rx" (static) */
	char *from_version, *to_version;
	char *architecture, *board;        /* NULL when unknown */
	char *firmware_from, *firmware_to; /* RouterBOOT before, and in the after window; NULL */
	int64_t upgraded_ms;               /* wall clock of the first poll on the new version */
	int64_t reached_ms;                /* when the current verdict (and method) was first reached */
	bool final;                        /* the after window is complete: no more re-evaluation */
	bool latest;                       /* of the router's newest version change */
	enum detector_outcome verdict;
	enum detector_method method;
	bool hint;                      /* low-confidence sign of a loss (peak drop, traffic stopped) */
	double before_bps, after_bps;   /* bits/s the method compared (capacity or rate); NAN: none */
	double ratio;                   /* capacity after / before (< 1 worse); NAN when unknown */
	double ratio_rse;               /* its relative standard error; NAN when the method states none */
	double before_load, after_load; /* busiest-core load 0..1 of the samples compared; NAN */
	size_t before_n, after_n;       /* samples in each window */
	char cores[32];                 /* the cores whose load carries it ("3", "1+2"); "" unknown */
	char why[96];                   /* insufficient-data: why, for the operator; "" otherwise */
	char *confounders;              /* what else moved across the change, one per line; "" none */
};

/* Verdicts grouped by (from, to) x architecture x board. Ratios: median over the high-confidence
 * verdicts (probe, saturation-ceiling, cpu-cost, matched-rate) of the cohort, per direction; NAN when none. */
struct detector_cohort {
	char *from_version, *to_version, *architecture, *board;
	size_t routers, regressed, improved;
	double median_ratio_tx, median_ratio_rx;
	size_t decided_tx, decided_rx; /* verdicts behind each median */
};

/* A router's recent CPU shape: bound when its busiest core stays >= 95% while the others idle. */
struct detector_bound {
	char *router;
	bool bound;
	double busiest, others; /* median busiest-core load and mean of the others, 0..1 */
	double tx_bps, rx_bps;  /* median WireGuard throughput of the router meanwhile */
	size_t n;               /* polls looked at */
};

typedef struct detector detector_t;

/* Start the detector thread on conf->database (already created and migrated by store_open);
 * it evaluates at once, then every conf->every_ms. -1 with *cause (caller frees). */
int detector_start(const conf_t *conf, detector_t **out, char **cause);
void detector_stop(detector_t *d); /* stops and joins the thread; NULL is fine */
void detector_wake(detector_t *d); /* any thread: evaluate now (a version change was stored) */

/* Evaluate everything once, read-only (never writes the database), and print the verdicts,
 * cohorts, single-core-bound routers and capacities as tables for a terminal. -1 with *cause. */
int detector_report(const conf_t *conf, FILE *out, char **cause);

/* --rollout-check: evaluate everything once, read-only, like detector_report, and print the
 * rollout guard's decision on version for router's cohort (its architecture and board as the
 * database knows them, else as c says) with the reasons. 0 with *decision (enum rollout_decision, rollout.h;
 * wait when the database does not know the router yet), -1 with *cause. */
struct rollfleet_said;
struct detector_check {
	const char *router, *version;
	const struct rollfleet_said *fleet; /* the other shards' counts ([rollout] shards); NULL: none */
	/* The router's, as its own shard tells them, for a router this database does not know;
	 * NULL: unknown. */
	const char *architecture, *board;
};
int detector_rollout_check(
	const conf_t *conf, const struct detector_check *c, FILE *out, int *decision, char **cause);

/* --export-evidence: evaluate everything once, read-only, and print the evidence document
 * (docs/evidence.md) of the final verdicts upgraded at or after since_ms (0: all). -1 with *cause. */
int detector_export_evidence(const conf_t *conf, int64_t since_ms, FILE *out, char **cause);

typedef struct detector_view detector_view_t;

/* Any thread: the newest results of detector d, unchanged until freed (even after
 * detector_stop); NULL when d is NULL (no detector runs) or before its first evaluation. */
detector_view_t *detector_view(detector_t *d);
void detector_view_free(detector_view_t *v);

/* Verdicts sorted by router, upgrade time, interface, direction. */
size_t detector_view_nverdicts(const detector_view_t *v);
const struct detector_verdict *detector_view_verdict(const detector_view_t *v, size_t i);
/* All of them, *n of them, in that order; NULL when none. */
const struct detector_verdict *detector_view_verdicts(const detector_view_t *v, size_t *n);
/* The verdicts of one router (all its version changes), *n of them; NULL when none. */
const struct detector_verdict *detector_view_router(const detector_view_t *v, const char *router, size_t *n);
size_t detector_view_ncohorts(const detector_view_t *v);
const struct detector_cohort *detector_view_cohort(const detector_view_t *v, size_t i);
/* The single-core state of a router (NULL when no recent data). */
const struct detector_bound *detector_view_bound(const detector_view_t *v, const char *router);
/* Every router's, by router name, *n of them; NULL when none. */
const struct detector_bound *detector_view_bounds(const detector_view_t *v, size_t *n);

struct capacity; /* detector/capacity.h */
/* Every router's WireGuard streams' capacity headroom, by router as the database lists them,
 * *n of them; NULL when none or v is NULL (docs/detector.md, Capacity headroom). */
const struct capacity *detector_view_capacity(const detector_view_t *v, size_t *n);
/* One capacity pass alone, read-only, as the running detector's and --report's: a view that
 * holds only the capacities (free with detector_view_free); NULL with *cause. What
 * bench/capacity_bench times. */
detector_view_t *detector_capacity_once(const conf_t *conf, char **cause);

/* Any thread: the evidence document of d's newest view (as detector_export_evidence), made at
 * now_ms; NULL when d is NULL or has no view yet. Caller frees. */
char *detector_evidence(detector_t *d, int64_t since_ms, int64_t now_ms, bool rollout);
/* rollout: with the guard's counts per rollout cohort (the "rollout" list, for other shards). */

/* Any thread (SIGHUP): read conf's [evidence] files again at the detector's next round, on its
 * thread; NULL d is fine. */
void detector_reload_evidence(detector_t *d, const conf_t *conf);

/* The running detector's rollout guard settings, whose stored overrides the web replaces
 * (rollout_set_stored) after it changed them; NULL for NULL. */
struct rollout *detector_rollout(detector_t *d);
/* The rollout guard's settings the view was built with (detector/rollout.h); NULL for NULL. */
const struct rollout *detector_view_rollout(const detector_view_t *v);

#endif
