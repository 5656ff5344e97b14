/* SPDX-License-Identifier: Apache-2.0 */
/* rollout: the rollout guard (issue 19). For a version and a cohort (to_version x architecture x
 * board, or to_version x architecture), whether the rest of the fleet may take the version:
 * go, hold or wait, with the reasons, decided from the detector's verdicts and [rollout]
 * (docs/detector.md, Rollout guard). Pure logic: no I/O, no clock (the time is passed in). */
#ifndef WGWATCH_ROLLOUT_H
#define WGWATCH_ROLLOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/conf.h"
#include "detector/detector.h"
#include "detector/evidimport.h"
#include "detector/evidread.h"
#include "detector/rollfleet.h"
#include "store/overrides.h"

enum rollout_decision { ROLLOUT_WAIT = 0, ROLLOUT_GO, ROLLOUT_HOLD };

enum rollout_kind {
	ROLLOUT_R_REGRESSION, /* a regression that counts: final, or held past [detector] hold */
	ROLLOUT_R_RATIO,      /* the cohort's median ratio in a direction is below hold_ratio */
	ROLLOUT_R_JUDGED,     /* a verdict of a router judged with final verdicts (go) */
	ROLLOUT_R_PENDING,    /* a router not judged yet, or a regression not held yet (wait) */
	ROLLOUT_R_COUNT,      /* how many routers (canaries) are judged, of how many needed */
	ROLLOUT_R_COHORT,     /* the board had too few routers: the architecture decided */
	ROLLOUT_R_OVERRIDE,   /* an override ([rollout] allow, or stored) turned it into go */
	ROLLOUT_R_EVIDENCE,   /* other fleets' evidence of a regression ([rollout] evidence = hold) */
	ROLLOUT_R_SHARD,      /* another shard of the fleet ([rollout] shards): its counts, or unreachable */
};

/* One reason. Strings point into the verdicts and the settings it was decided from. */
struct rollout_reason {
	enum rollout_kind kind;
	const char *router, *interface, *direction; /* NULL where it is about no one verdict */
	double ratio;                               /* NAN when none */
	enum detector_method method;
	bool final, canary;
	char text[320]; /* one line for a person */
};

struct rollout_query {
	const char *version;      /* required */
	const char *architecture; /* NULL: unknown (an SNMP-only router): the board cohort decides */
	const char *board;        /* NULL: the architecture cohort (one of the two is required) */
	int64_t now_ms;           /* wall clock, for [detector] hold */
};

struct rollout_result {
	enum rollout_decision decision;
	const char *board;  /* the cohort's board (the query's); NULL when the architecture decided */
	size_t routers;     /* routers of the cohort that took the version */
	size_t canaries;    /* of them canaries (all of them when no router is labelled canary) */
	size_t judged;      /* canaries judged with final verdicts */
	size_t regressed;   /* routers with a regression that counts */
	size_t pending;     /* routers with a regression verdict, none of which counts yet */
	size_t shards_down; /* other shards ([rollout] shards) not read: never go */
	double median_ratio_tx, median_ratio_rx; /* over the settled high-confidence verdicts; NAN */
	struct override *allow;                  /* owned: the override applied, or NULL */
	struct rollout_reason *reasons;          /* owned: rollout_result_free */
	size_t nreasons;
};

typedef struct rollout rollout_t;

/* The settings of conf's [rollout] and [detector] hold, and the names of its canary routers;
 * immutable but for the stored overrides (rollout_set_stored), shared by reference
 * (rollout_ref); conf may be freed after. */
rollout_t *rollout_create(const conf_t *conf);
rollout_t *rollout_ref(rollout_t *r); /* one more reference; returns r; NULL is fine */
void rollout_unref(rollout_t *r);     /* frees r with its last reference; NULL is fine */
/* Replace the stored overrides (POST /api/v1/rollout/allow) with copies of v[0..n); any thread. */
void rollout_set_stored(rollout_t *r, const struct override *v, size_t n);
/* Copies of every override in force, [rollout] allow first, then the stored ones (oldest
 * first), into *out (overrides_free(*out, n) after); returns n, 0 for a NULL r. */
size_t rollout_overrides(const rollout_t *r, struct override **out);
/* "by WHO[ at 2026-12-02T08:00:00Z]" for o into buf[size] (the time in UTC). */
void rollout_override_by(const struct override *o, char *buf, size_t size);
/* Replace the other fleets' evidence the guard weighs with s (a reference is taken; NULL:
 * none); any thread. */
void rollout_set_evidence(rollout_t *r, evidimport_set_t *s);
/* A reference to the evidence in force (evidimport_unref after); NULL when none or r is NULL. */
evidimport_set_t *rollout_evidence(const rollout_t *r);
/* Replace what the other shards of the fleet ([rollout] shards) said with a copy of s; any thread. */
void rollout_set_shards(rollout_t *r, const struct rollfleet_said *s);
/* A copy of what they said last into *out (rollfleet_said_clear after); none for NULL r. */
void rollout_shards_said(const rollout_t *r, struct rollfleet_said *out);
/* This fleet's own rollout cohorts (to_version x architecture x board) counted over v[0..n) as
 * rollout_decide counts them at now_ms, for the evidence export; *out (caller frees; strings
 * point into v); returns how many. */
size_t rollout_tally(const rollout_t *r, const struct detector_verdict *v, size_t n, int64_t now_ms,
	struct evidread_rollout **out);

/* Whether router is a canary: it carries the canary label (or no router of the config does). */
bool rollout_is_canary(const rollout_t *r, const char *router);

/* Decide q over the verdicts v[0..n) (any order) into *out (rollout_result_free after); wait,
 * "the detector has not evaluated yet", when r is NULL (no view yet). */
void rollout_decide(const rollout_t *r, const struct detector_verdict *v, size_t n,
	const struct rollout_query *q, struct rollout_result *out);
void rollout_result_free(struct rollout_result *res);
/* Since when the cohort of q has held on regressions of routers other than except (NULL: all):
 * the time the hold_regressed-th of them counted (reached, plus [detector] hold); INT64_MAX
 * when they never did. For "took it despite a hold"; a hold on the median ratio is not dated. */
int64_t rollout_hold_since(const rollout_t *r, const struct detector_verdict *v, size_t n,
	const struct rollout_query *q, const char *except);

const char *rollout_decision_name(enum rollout_decision d); /* "go", "hold", "wait" */
const char *rollout_kind_name(enum rollout_kind k);         /* "regression", "median-ratio", ... */

#endif
