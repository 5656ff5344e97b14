/* SPDX-License-Identifier: Apache-2.0 */
/* diag: when to take a CPU profile of a router (docs/diagnostics.md): when its busiest core has
 * been saturated for 3 polls in a row and its newest profile is older than profile_every, and
 * after each upgrade once it has answered 3 polls in a row; and when to probe one that has a
 * probe server (after each upgrade likewise, and every probe_every), one probe per router and
 * [daemon] max_probes in all at once. It watches finished polls, asks a runner
 * (collectors/restdiag.c), logs a refusal once per router, and hands every result on. It never
 * touches a poll: the poller knows nothing of it. */
#ifndef WGWATCH_DIAG_H
#define WGWATCH_DIAG_H

#include "daemon/conf.h"
#include "daemon/probe.h"
#include "daemon/profile.h"
#include "daemon/sample.h"
#include "lib/loop.h"

enum diag_status {
	DIAG_OK,
	DIAG_REFUSED, /* the router said no: a policy, an old RouterOS, device-mode */
	DIAG_FAILED,  /* no answer, or one that could not be read */
};

/* Called once per profile started, on the loop thread, never from inside the start call. p
 * (DIAG_OK only) goes to the callee; why says what went wrong otherwise (no secrets). */
typedef void (*diag_done_fn)(
	const char *router, enum diag_status st, profile_t *p, const char *why, void *arg);

/* Likewise for a probe: p[0] and p[1] (the second only for direction both, else NULL) go to
 * the callee on DIAG_OK. */
typedef void (*diag_probe_fn)(
	const char *router, enum diag_status st, probe_t *p[2], const char *why, void *arg);

typedef struct diag_runner {
	void *ctx;
	/* Start a profile of rc, which the runner copies what it needs from (rc may go before the
	 * profile ends). 0 when started, -1 when it could not be. */
	int (*profile)(void *ctx, const conf_router_t *rc, diag_done_fn done, void *arg);
	/* Start a probe of rc (probe, probe_rate, ...) likewise. */
	int (*probe)(void *ctx, const conf_router_t *rc, diag_probe_fn done, void *arg);
} diag_runner_t;

typedef struct diag diag_t;

/* Where profiles and probes go (the fleet and the store, in the daemon): each takes p. */
typedef struct diag_sink {
	void (*profile)(void *ctx, profile_t *p);
	void (*probe)(void *ctx, probe_t *p);
	void *ctx;
} diag_sink_t;

diag_t *diag_create(const conf_t *conf, diag_runner_t runner, diag_sink_t sink);
/* The runner must be destroyed first: a profile in flight then never calls back. */
void diag_destroy(diag_t *d);
/* Follow a reloaded conf (which must outlive d or the next reload); routers keep their state.
 * A lower max_probes lets the probes in flight end; no new one starts until fewer run. */
void diag_reconfigure(diag_t *d, const conf_t *conf);
/* Loop thread, at start: the router's newest profile and probe in the database ended at these
 * wall clock times (0: none), so that a restart does not take them again before profile_every
 * and probe_every. */
void diag_seed(diag_t *d, const char *router, int64_t profile_wall_ms, int64_t probe_wall_ms);
/* Any thread: probe router as soon as it allows (after its next poll; one probe per router and
 * max_probes at once still hold). The caller checks that the router has a probe. */
void diag_demand_probe(diag_t *d, const char *router);
/* Loop thread: a poll of s->router finished (right after, before the next is due). */
void diag_note_poll(diag_t *d, const sample_t *s);

#endif
