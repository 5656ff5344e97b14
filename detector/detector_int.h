/* SPDX-License-Identifier: Apache-2.0 */
/* detector_int: the detector's state and the calls detector.c's tests make into it (open,
 * a round, the items, the views); included by detector.c and its tests alone, never by a file
 * below it (data, view, report, rollout read what they are handed, never this state). */
#ifndef WGWATCH_DETECTOR_INT_H
#define WGWATCH_DETECTOR_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/profile.h"
#include "detector/detector.h"
#include "detector/evidimport.h"
#include "lib/worker.h"
#include "detector/capacity.h"
#include "detector/capread.h"
#include "detector/confound.h"
#include "detector/data.h"
#include "detector/probepair.h"
#include "detector/report.h"
#include "detector/view.h"
#include "detector/fit.h"
#include "detector/frame.h"
#include "detector/judge.h"
#include "detector/profcore.h"
#include "detector/stats.h"

/* ---- detector.c: the detector's state, its verdicts in memory, a round ---- */

struct detector_item { /* a verdict as the detector keeps it */
	int64_t event_id;
	struct detector_verdict v;
	bool dirty, changed; /* to write; verdict or method changed (history row) */
};

struct detector {
	struct frame_params params;
	int64_t before_ms, after_ms, every_ms, grace_ms;
	int64_t interval_ms;         /* [daemon] interval: how soon a window gains a sample */
	int64_t next_due_ms;         /* wall ms the data next allows a new verdict (INT64_MAX: none known) */
	bool readonly;               /* --report: never write */
	bool capacity;               /* read-only too: read the capacities (--report) */
	data_t *data;                /* the connection, its statements and its cache */
	struct detector_item *items; /* sorted by event, interface, direction */
	size_t nitems, capitems;
	int64_t *done; /* events judged final, ascending */
	size_t ndone;
	struct detector_bound *bounds; /* of the newest round, by router name */
	size_t nbounds;
	char *error;           /* the failure logged last, NULL while all is well */
	detector_view_t *view; /* the newest published view (under view.c's lock); NULL: none */

	struct rollout *rollout; /* [rollout] and the canaries, handed to every view */
	char **probe_to;         /* [2 * i] a router's name, [2 * i + 1] its probe address */
	size_t nprobe_to;

	worker_t *worker; /* the thread of the rounds; NULL for --report */
	char fleet[33];   /* the fleet's evidence id, read at open and never changed */

	evidimport_t *evidence;      /* other fleets' files as last read (detector thread only) */
	pthread_mutex_t evidence_mu; /* guards the two below, set by detector_reload_evidence */
	char *evidence_glob;         /* [evidence] files now in force; NULL: none */
	bool evidence_again;         /* read them again at the next round */

	struct capacity *caps; /* every router's streams' capacity headroom, by router, as read */
	size_t ncaps;
	int64_t caps_next_ms; /* wall ms of the next capacity pass (0: at the next round) */
};

/* Set up d from conf and open its database (read-only for --report). -1 with *cause. */
int detector_open(detector_t *d, const conf_t *conf, bool readonly, char **cause);
void detector_free(detector_t *d); /* closes the database and frees d and all it holds */
/* Judge every version change not final yet, write what changed (unless read-only), and
 * recompute the single-core bounds. -1 with *cause. */
int detector_round(detector_t *d, int64_t now, char **cause);
/* The item of (event, interface, direction), created empty (*created) when missing. */
struct detector_item *detector_item_get(
	detector_t *d, int64_t ev, const char *ifc, const char *dir, bool *created);
void detector_mark_done(detector_t *d, int64_t ev); /* event ev is final: never judged again */
/* The verdicts an earlier run stored, into d's items; final ones marked done. -1 with *cause. */
int detector_load_stored(detector_t *d, char **cause);
/* A new view of d's verdicts (those of events seen in this database), bounds and rollout. */
detector_view_t *detector_view_build(const detector_t *d);
/* v (owned, may be NULL) becomes d's newest view; the one it replaces loses d's reference. */
void detector_publish(detector_t *d, detector_view_t *v);

#endif
