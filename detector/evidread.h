/* SPDX-License-Identifier: Apache-2.0 */
/* evidread: evidence documents (docs/evidence.md) from other fleets read back, checked against
 * the schema and merged. Pure: text in, a checked document or a reason out. It must never
 * accept a document it has not checked whole, and never touch a file, SQLite or a clock. */
#ifndef WGWATCH_DETECTOR_EVIDREAD_H
#define WGWATCH_DETECTOR_EVIDREAD_H

#include <stdbool.h>
#include <stddef.h>

#define EVIDREAD_MAX_BYTES  (8u << 20) /* a document's size at most */
#define EVIDREAD_MAX_FLEETS 10000      /* fleets in one document at most ... */
#define EVIDREAD_MAX_COHORT 10000      /* ... and cohorts of one fleet */

typedef struct evidread evidread_t;

/* text[len] read as an evidence document and checked against the schema; NULL with *why (caller
 * frees: what is wrong and where, "fleets[0].cohorts[3].tx.regressed: not a count"). */
evidread_t *evidread_parse(const char *text, size_t len, char **why);
void evidread_free(evidread_t *e);
size_t evidread_nfleets(const evidread_t *e);
/* The id of fleet i (< evidread_nfleets) and the day it was generated into *generated. */
const char *evidread_fleet_at(const evidread_t *e, size_t i, const char **generated);

/* One direction of a cohort as a document states it (the ratio's median NAN when null). */
struct evidread_tally {
	long routers, judged, regressed, improved, unchanged, insufficient;
	double median;
};

/* One cohort of one fleet; the strings point into the document (architecture, board NULL when
 * unknown) and live as long as it. */
struct evidread_cohort {
	const char *fleet, *generated;
	const char *from_version, *to_version, *architecture, *board;
	struct evidread_tally tx, rx;
};

/* Where a walk over a document's cohorts is: start with { 0 }. */
struct evidread_at {
	size_t fleet, cohort;
};

/* The cohort at *at into *out, *at advanced to the next; false after the last. */
bool evidread_next(const evidread_t *e, struct evidread_at *at, struct evidread_cohort *out);

/* A rollout cohort (to_version x architecture x board) as the exporting shard's guard counts it,
 * the optional "rollout" list of a fleet (docs/evidence.md): routers whose newest version change
 * went to the version, canaries among them, canaries judged with final verdicts, routers with a
 * regression that counts, and routers whose regressions do not count yet. Strings as above. */
struct evidread_rollout {
	const char *to_version, *architecture, *board;
	size_t routers, canaries, judged, regressed, pending;
};

/* The rollout rows of fleet i (< evidread_nfleets) into *out (caller frees the array, not the
 * strings); returns how many, 0 when the fleet has none. */
size_t evidread_rollout_rows(const evidread_t *e, size_t i, struct evidread_rollout **out);
/* Whether fleet i has a rollout list at all (an export asked with rollout=yes). */
bool evidread_has_rollout(const evidread_t *e, size_t i);

/* Documents docs[n] as one, each fleet once: of one fleet id the newest `generated` wins (on a
 * tie, the later document's). Caller frees the text. */
char *evidread_merge(evidread_t *const *docs, size_t n);

#endif
