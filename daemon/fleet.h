/* SPDX-License-Identifier: Apache-2.0 */
/* fleet: the latest known state of every router, shared between the loop thread (writer)
 * and the HTTP threads (readers, through views). Holds the newest complete sample, rates derived
 * from the two newest, up/down with the reason, error counts, and the daemon's own poll
 * statistics. A view costs one short lock: the samples in it are shared and reference-counted,
 * so a slow reader (a /metrics scrape of 10,000 routers) never holds up the poll loop. Never
 * does I/O. */
#ifndef WGWATCH_FLEET_H
#define WGWATCH_FLEET_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/conf.h"
#include "daemon/probe.h"
#include "daemon/profile.h"
#include "daemon/sample.h"

typedef struct fleet fleet_t;

typedef struct fleet_router {
	const conf_router_t *conf;
	sample_t *last;          /* newest complete sample; NULL before the first */
	double *rx_bps, *tx_bps; /* per last->ifaces[i], bits/s; NAN until two samples */
	bool up;
	bool polled;          /* at least one poll finished */
	int64_t last_poll_ms; /* wall clock of the newest finished poll, 0 if none */
	enum sample_err last_err;
	char *last_error; /* reason of the newest failure while down, else NULL */
	uint64_t errors[SAMPLE_ERR_COUNT];
	uint64_t polls;
	const profile_t *profile; /* newest CPU profile taken since start; NULL if none */
	const probe_t *probe[2];  /* newest transmit and receive probe since start; NULL if none */
} fleet_router_t;

#define FLEET_HIST_BUCKETS 13
extern const double fleet_hist_bounds[FLEET_HIST_BUCKETS]; /* seconds, ascending */

struct fleet_hist {
	uint64_t le[FLEET_HIST_BUCKETS]; /* cumulative counts per bound */
	uint64_t count;
	double sum; /* seconds */
};

struct fleet_stats {
	struct fleet_hist duration;    /* of every finished poll */
	struct fleet_hist start_delay; /* from due to started, of every started poll */
	uint64_t polls_late;           /* polls started later than one interval after due */
	uint64_t clock_steps;          /* steps of the wall clock seen between polls (poller.c) */
	int shard_index, shard_count;  /* the followed conf's [daemon] shard = K/N (1/1 unset) */
};

fleet_t *fleet_create(const conf_t *conf);
void fleet_destroy(fleet_t *f);

/* Loop thread: record a finished poll. Copies what it keeps, but shares sealed peers
 * (sample_seal). Returns true when the router's up/down state changed (the caller logs the
 * change once). */
bool fleet_update(fleet_t *f, const sample_t *s);
/* Loop thread: the router's newest CPU profile; takes p (freed when no view holds it). */
void fleet_set_profile(fleet_t *f, profile_t *p);
/* Loop thread: the router's newest probe of p->direction; takes p likewise. */
void fleet_set_probe(fleet_t *f, probe_t *p);
/* Loop thread: a poll started delay_ms after it was due; late when over one interval. */
void fleet_note_start(fleet_t *f, int64_t delay_ms, bool late);
/* Loop thread: the wall clock stepped (the poller logged it). */
void fleet_note_clock_step(fleet_t *f);

/* Loop thread: follow a reloaded config (which must outlive the fleet or the next reload).
 * Routers are matched by name: a kept one keeps its state and newest sample, a new one starts
 * empty, a removed one goes. Views taken before stay valid: release(arg), if not NULL, is
 * called once none of them is left (now, or on the thread freeing the last), so that the old
 * conf their routers point into can be freed there. */
void fleet_reconfigure(fleet_t *f, const conf_t *conf, void (*release)(void *), void *arg);

typedef struct fleet_view fleet_view_t;

/* Any thread: a consistent copy of every router's state (config order) and of the stats. It
 * stays valid, unchanged, until fleet_view_free, whatever the loop does meanwhile. */
fleet_view_t *fleet_view(fleet_t *f);
/* Any thread: the same of the one router called name (a view of size 1); NULL when the fleet
 * has no router of that name. Costs a lookup, not a copy of the fleet. */
fleet_view_t *fleet_view_router(fleet_t *f, const char *name);
void fleet_view_free(fleet_view_t *v);
size_t fleet_view_size(const fleet_view_t *v);
const fleet_router_t *fleet_view_at(const fleet_view_t *v, size_t i);
const struct fleet_stats *fleet_view_stats(const fleet_view_t *v);

#endif
