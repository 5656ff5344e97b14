/* SPDX-License-Identifier: Apache-2.0 */
/* api: the JSON API (written with lib/jsonw). GET /api/v1/routers: name, up, version, firmware, board,
 * architecture, cores, last_poll, last_error per router. Never includes config secrets. */
#ifndef WGWATCH_API_H
#define WGWATCH_API_H

#include <stdint.h>

#include "lib/buf.h"
#include "daemon/conf.h"
#include "daemon/diag.h"
#include "daemon/fleet.h"
#include "detector/detector.h"

/* Append the JSON array, routers in config order. Reads through a fleet view. */
void api_routers(fleet_t *fleet, buf_t *out);

/* The answers' reals, printed as jansson's JSON_REAL_PRECISION(10) printed them (the routers'
 * sensors as its default, %.17g). */
#define API_REAL_PREC 10
/* For web/api_report.c and web/api_rollout.c, each written with lib/jsonw as the next value of
 * b (key NULL: an element): RFC 3339 UTC ("2024-05-01T12:00:00Z") of a wall clock in ms, or
 * null when 0 or less; one verdict as in /api/v1/regressions; a profile's rows
 * [{"cpu","name","usage"}] ([] for NULL). */
void api_put_time(buf_t *b, const char *key, int64_t ms);
void api_put_verdict(buf_t *b, const struct detector_verdict *v);
void api_put_profile_rows(buf_t *b, const char *key, const profile_t *p);
/* A probe's members as /api/v1/routers/NAME/probes gives them, into the object being written:
 * time, direction (as configured), measured, offered_bps, delivered_bps, lost_packets. */
void api_put_probe_members(buf_t *b, const probe_t *p);

/* The upgrade detector's results (detector/detector.h), [] while it has none: every verdict
 * ({router, interface, direction, from_version, to_version, upgraded_at, before_bps, after_bps,
 * ratio, method, verdict, ...}), and one row per cohort (upgrade x architecture x board). */
void api_regressions(detector_t *detector, buf_t *out);
void api_cohorts(detector_t *detector, buf_t *out);
/* /api/v1/capacity: every WireGuard stream's capacity headroom ({router, interface, direction,
 * capacity_bps, capacity_rse, method, demand_p95_day_bps, demand_p95_week_bps, headroom,
 * exhausted_at, why, ...}); [] before the detector's first evaluation. */
void api_capacity(detector_t *detector, buf_t *out);
/* /api/v1/evidence[?since=YYYY-MM-DD]: the fleet's evidence document (docs/evidence.md); 400 for
 * a bad since, 503 before the detector's first results. */
unsigned api_evidence(
	detector_t *detector, const char *since, const char *rollout, int64_t now_ms, buf_t *out);

/* GET /api/v1/history/NAME?range=R: what the router page draws, as JSON (RANGE 6h, 24h, 7d,
 * 30d or all; default 24h): {router, range, from, to, bucket_seconds, rolled_up, interfaces:
 * [{name, tx_bps:[...], rx_bps:[...]}], cores:[[load 0..1, ...], ...], events:[...]}, one
 * value per time bucket, null where there is no data. */
struct api_history_req {
	const conf_t *conf; /* database path, retention, intervals */
	const char *name;   /* router name, URL-decoded */
	const char *range;  /* NULL or unknown: 24h */
	int64_t now_ms;     /* wall clock */
};

/* Returns the HTTP status: 200; 404 when the database does not know the router; 500 when it
 * cannot be read (logged here, once). The body is JSON in every case. */
unsigned api_history(const struct api_history_req *req, buf_t *out);

/* GET /api/v1/routers/NAME/profiles: the router's CPU profiles, newest first (at most 100),
 * [{"time", "rows": [{"cpu": core index or null, "name", "usage": percent}]}]. The HTTP status:
 * 200; 404 for a router the fleet does not poll now (after reloads and shard changes); 500 when
 * the database cannot be read (logged). */
unsigned api_profiles(const conf_t *conf, fleet_t *fleet, const char *name, buf_t *out);
/* GET /api/v1/routers/NAME/probes: the router's probes, newest first (at most 100), [{"time",
 * "direction", "offered_bps", "delivered_bps", "lost_packets", "local_cpu_load",
 * "remote_cpu_load", "busiest_core_load"}], null where unknown; statuses as api_profiles. */
unsigned api_probes(const conf_t *conf, fleet_t *fleet, const char *name, buf_t *out);
/* GET /api/v1/routers/NAME/profiles or /probes, rest "NAME/profiles" (NAME decoded): as above;
 * 404 for another path. */
unsigned api_router_sub(const conf_t *conf, fleet_t *fleet, const char *rest, buf_t *out);
/* POST /api/v1/routers/NAME/probe (the HTTP guard lets it through only with [web]
 * authentication on): 202 {"router", "queued": true, "why"} when diag will probe NAME after its
 * next poll; 404 for a router the fleet does not poll now; 409 for one without probe = (as the
 * configuration now says), or no diag. */
unsigned api_probe_demand(fleet_t *fleet, diag_t *diag, const char *name, buf_t *out);

#endif
