/* SPDX-License-Identifier: Apache-2.0 */
/* metrics: renders the Prometheus text exposition of the fleet and the daemon itself.
 * Every family is declared once in a table (name, type, help). Label values are escaped per the
 * exposition format. Secrets never reach it: it reads only samples and public config fields. */
#ifndef WGWATCH_METRICS_H
#define WGWATCH_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/buf.h"
#include "daemon/fleet.h"
#include "store/store.h"
#include "detector/detector.h"

/* The HTTP listener's own counters: refusals by reason (see web/http.c), and the rest. */
enum metrics_refusal { METRICS_REFUSED_LIMIT, METRICS_REFUSED_ACCEPT, METRICS_REFUSED_N };
struct metrics_http {
	uint64_t refused[METRICS_REFUSED_N]; /* connections closed unserved */
	uint64_t slow_closed[2]; /* closed without a request head: deadline, reserve (httpconn.h) */
	uint64_t pages_late;     /* pages answered 503, not rendered by the deadline (httppage.h) */
};

/* What to render, and where the text goes. */
struct metrics_req {
	fleet_t *fleet;
	store_t *store;                  /* NULL (tests): its series read 0 */
	detector_t *detector;            /* NULL: no detector series */
	const struct metrics_http *http; /* NULL (tests): its series read 0 */
	/* Only this router's series (every per-router family, no family of the daemon's own);
	 * NULL: the whole exposition. */
	const char *router;
	bool daemon_only; /* only the daemon's own families (?routers=no), no router's */
	/* When set, called with out whenever it holds some 256 KiB, between two routers' series
	 * (a gzip stream): it takes the text and resets out. The rest stays in out. */
	void (*flush)(void *arg, buf_t *out);
	void *flush_arg;
};

/* Append the exposition req asks for to out. Reads through a fleet view. -1 when req->router
 * is not a router of the fleet (nothing written). */
int metrics_write(const struct metrics_req *req, buf_t *out);

/* The whole exposition into out: metrics_write without router or flush. */
void metrics_render(
	fleet_t *fleet, store_t *store, detector_t *detector, const struct metrics_http *http, buf_t *out);

/* The outcome of the newest configuration load (the start counts as one): main calls it; the
 * wgwatch_config_last_reload_* families show it. Any thread. */
void metrics_note_reload(bool ok, int64_t wall_ms);

#endif
