/* SPDX-License-Identifier: Apache-2.0 */
/* page_router: the router page at /router/NAME: throughput per WireGuard interface with upgrade
 * and reboot markers, a per-core heatmap on the same time axis, busiest core against
 * throughput coloured by version, peers, and version/firmware history. Server-rendered HTML
 * and inline SVG; everything from routers is escaped for its context. */
#ifndef WGWATCH_PAGE_ROUTER_H
#define WGWATCH_PAGE_ROUTER_H

#include <stdint.h>

#include "lib/buf.h"
#include "daemon/conf.h"
#include "daemon/fleet.h"
#include "detector/detector.h"

struct page_router_req {
	const conf_t *conf; /* database path, retention, detector windows; may be NULL */
	fleet_t *fleet;     /* the live state; may be NULL */
	const char *name;   /* the router name, URL-decoded */
	const char *range;  /* "6h", "24h", "7d", "30d", "all"; NULL or unknown: see page_router.c */
	int64_t now_ms;     /* wall clock */
	/* the running detector; NULL: no verdicts section */
	detector_t *detector;
};

/* Render the page into out; returns the HTTP status: 200, 404 for a router neither configured
 * nor in the database, 500 when the database cannot be read (logged here, once). */
unsigned page_router(const struct page_router_req *req, buf_t *out);

#endif
