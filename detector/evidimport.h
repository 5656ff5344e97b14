/* SPDX-License-Identifier: Apache-2.0 */
/* evidimport: other fleets' evidence documents ([evidence] files, docs/evidence.md) read from
 * disk, each checked whole (evidread), and summed per cohort into an immutable set that the
 * rollout guard, the API and the metrics read beside the fleet's own verdicts. It must never
 * count a fleet twice, never take in the fleet's own id, and never touch the verdicts. */
#ifndef WGWATCH_DETECTOR_EVIDIMPORT_H
#define WGWATCH_DETECTOR_EVIDIMPORT_H

#include <stddef.h>

#define EVIDIMPORT_MAX_FILES   1000        /* files of one glob read at most */
#define EVIDIMPORT_MAX_TOTAL   (64u << 20) /* bytes of the documents used, all together */
#define EVIDIMPORT_MAX_COHORTS 4096        /* distinct cohorts summed at most (each is searched) */

/* One direction of a cohort, over the fleets imported. */
struct evidimport_dir {
	size_t fleets;           /* fleets that judged a router of the cohort in this direction */
	size_t fleets_regressed; /* of them, those where one regressed */
	size_t routers, judged, regressed, improved, unchanged;
	double median; /* the median of the fleets' median ratios; NAN when none */
};

/* An upgrade (from -> to) on an architecture and a board (NULL: unknown), as other fleets saw it. */
struct evidimport_cohort {
	char *from_version, *to_version, *architecture, *board;
	size_t fleets; /* fleets that report it */
	struct evidimport_dir tx, rx;
};

typedef struct evidimport evidimport_t;         /* what was read of each file, to log once */
typedef struct evidimport_set evidimport_set_t; /* immutable; shared by reference */

evidimport_t *evidimport_create(void);
void evidimport_free(evidimport_t *im); /* NULL is fine */

/* The files matching glob (NULL: none) read and merged, the fleet own (its id) left out: of one
 * fleet id the newest `generated` wins (on a tie, the file later in name order). A file refused
 * (unreadable, too large, not a valid document) is logged with its name and reason once until
 * it changes, and the others are used. Never NULL. */
evidimport_set_t *evidimport_load(evidimport_t *im, const char *glob, const char *own);
evidimport_set_t *evidimport_ref(evidimport_set_t *s); /* returns s; NULL is fine */
void evidimport_unref(evidimport_set_t *s);            /* NULL is fine */

size_t evidimport_ncohorts(const evidimport_set_t *s); /* 0 for NULL */
/* Cohorts sorted by to_version, architecture, board, from_version. */
const struct evidimport_cohort *evidimport_cohort(const evidimport_set_t *s, size_t i);
/* The cohort (from, to, architecture, board; NULL matches only NULL) in s; NULL when none. */
const struct evidimport_cohort *evidimport_find(
	const evidimport_set_t *s, const char *from, const char *to, const char *arch, const char *board);
size_t evidimport_nfleets(const evidimport_set_t *s); /* fleets used; 0 for NULL */
size_t evidimport_nfiles(const evidimport_set_t *s);  /* files used; 0 for NULL */

#endif
