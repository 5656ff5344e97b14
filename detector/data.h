/* SPDX-License-Identifier: Apache-2.0 */
/* data: the detector's reader and writer, on a SQLite connection of its own: the version
 * changes, the samples, profiles, probes and links of a router, each router's recent polls and
 * the WireGuard roll-ups (the capacity's demand), and
 * the verdicts it stores and reads back. An opaque handle that owns its connection, statements
 * and cache; it returns rows and never changes the detector's state, never writes a sample,
 * never writes when read-only. Below detector.c: it calls nothing above it. */
#ifndef WGWATCH_DATA_H
#define WGWATCH_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/profile.h"
#include "detector/confound.h"
#include "detector/detector.h"
#include "detector/frame.h"
#include "detector/probepair.h"
#include "store/overrides.h"

typedef struct data data_t;

struct data_event {
	int64_t id, router_id, time_ms;
	int64_t from_ms, to_ms; /* the before window's start and the after window's end */
	const char *router, *from, *to, *arch, *board; /* into the statement's row */
	const char *fw_from, *fw_to; /* RouterBOOT firmware before and in the after window; NULL */
	bool latest;
};

struct data_row {
	size_t poll;
	double tx, rx;
};

struct data_iface {
	char *name;
	struct data_row *rows; /* ascending time */
	size_t n, cap;
};

struct data_set {                 /* one router's samples over a time range */
	struct frame_poll *polls; /* ascending time */
	size_t npolls, cappolls;
	float *loads; /* [poll * ncores + core], 0..1; NAN where not read */
	size_t ncores;
	struct data_iface *ifs; /* by name */
	size_t nifs, capifs;
};

struct data_router { /* a router's polls in its recent window, for the single-core bound */
	const char *name;
	const struct frame_poll *polls; /* ascending time */
	size_t n;
};

/* Open path and prepare the statements (not the writing ones when readonly); version changes
 * read get windows of before_ms and after_ms. NULL with *cause. */
data_t *data_open(const char *path, bool readonly, int64_t before_ms, int64_t after_ms, char **cause);
void data_close(data_t *db); /* finalizes, closes and frees; NULL is fine */
/* *cause = "what: <the database's last error>"; returns -1. */
int data_fail(data_t *db, char **cause, const char *what);

/* The samples of router in [from, to) into *x (always to free with data_set_free) and, unless
 * links is NULL, the CPU clock and every interface's link rows of the same polls into *links
 * (always to free with confound_set_free): one read of the polls for both. -1: failed. */
int data_load(
	data_t *db, int64_t router, int64_t from, int64_t to, struct data_set *x, struct confound_set *links);
void data_set_free(struct data_set *x);
/* The frame of the version change at t (the poll at t left out): *rates, *loads and f->names to
 * free. */
void data_frame(const struct data_set *x, int64_t t, struct frame *f, double **rates, float **loads);
/* The probes of router in [from, to) and its enabled peers' allowed addresses into *p (always
 * to free with probepair_set_free); none when the database has no probes table. -1: failed. */
int data_load_probes(data_t *db, int64_t router, int64_t from, int64_t to, struct probepair_set *p);
/* The profiles of router that ended in [from, to), newest first, into *v and *n (always to free
 * with history_profiles_free); none when the database has no profiles table. -1: failed. */
int data_load_profiles(data_t *db, int64_t router, int64_t from, int64_t to, profile_t ***v, size_t *n);
/* The stored rollout overrides (store/overrides.h) into *v and *n. -1 with *cause. */
int data_load_overrides(data_t *db, struct override **v, size_t *n, char **cause);
/* The architecture and board the database last knew of router name (either NULL when unknown):
 * 1 with them (caller frees), 0 when the router is not in the database, -1 with *cause. */
int data_router_kind(data_t *db, const char *name, char **arch, char **board, char **cause);
/* The fleet's evidence id (32 hex digits, schema/014) into out. -1 with *cause. */
int data_fleet_id(data_t *db, char out[33], char **cause);

/* A router as the capacity round reads it. */
struct data_rid {
	int64_t id;
	char *name;
	int64_t last_ms;    /* its last poll */
	int64_t changed_ms; /* its last version change; INT64_MIN: none */
};
/* Every router that was polled, by name, into *v and *n (free with data_routers_list_free). -1
 * with *cause. */
int data_routers_list(data_t *db, struct data_rid **v, size_t *n, char **cause);
void data_routers_list_free(struct data_rid *v, size_t n);

struct data_series { /* one WireGuard interface's 5-minute averages, ascending */
	char *name;
	int64_t *t;      /* the buckets' start, ms */
	double *tx, *rx; /* bits/s; NAN when not known */
	size_t n, cap;
};
struct data_demand { /* a router's, by interface name */
	struct data_series *s;
	size_t n, cap;
};
/* The WireGuard interfaces' 5-minute averages of router in [from, to) into *x (always to free
 * with data_demand_free): the roll-ups, and after the roll-ups' mark the raw polls averaged into
 * the same buckets. -1: failed. */
int data_load_demand(data_t *db, int64_t router, int64_t from, int64_t to, struct data_demand *x);
void data_demand_free(struct data_demand *x);

/* The next version change: 1 with *e, 0 after the last, -1 with *cause; then data_events_end. */
int data_event_next(data_t *db, struct data_event *e, char **cause);
void data_events_end(data_t *db);

/* Writing verdicts, in one short transaction: begin, a write per verdict (with its history row
 * when history), commit. A failed write or commit rolls back. -1 with *cause. */
int data_write_begin(data_t *db, char **cause);
int data_write(
	data_t *db, int64_t event, const struct detector_verdict *v, bool history, int64_t now, char **cause);
int data_write_commit(data_t *db, char **cause);
/* The verdicts stored by an earlier run into *v (each with upgrade_id its event, interface
 * owned, direction static) and *n; free with data_stored_free. -1 with *cause. */
int data_load_stored(data_t *db, struct detector_verdict **v, size_t *n, char **cause);
void data_stored_free(struct detector_verdict *v, size_t n); /* the array and the interfaces */

/* Every router's newest polls (a 10-minute window by its own last poll, since its last version
 * change) into *out and *n, owned by db until the next call. Each call reads only the polls
 * stored since the last one: the rest of the window is kept in db. -1 with *cause. */
int data_recent(data_t *db, const struct data_router **out, size_t *n, char **cause);

#endif
