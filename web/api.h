/* api: the JSON API (jansson). GET /api/v1/routers: name, up, version, firmware, board,
 * architecture, cores, last_poll, last_error per router. Never includes config secrets. */
#ifndef WGWATCH_API_H
#define WGWATCH_API_H

#include <jansson.h>
#include <stdint.h>

#include "lib/buf.h"
#include "daemon/conf.h"
#include "daemon/fleet.h"
#include "detector/detector.h"

/* Append the JSON array, routers in config order. Reads through a fleet view. */
/* A JSON string of s with invalid UTF-8 replaced, or null for NULL (for api_rollout.c too). */
json_t *api_str(const char *s);
/* RFC 3339 UTC ("2024-05-01T12:00:00Z") of a wall clock in ms, or null when 0 or less. */
json_t *api_time(int64_t ms);

void api_routers(fleet_t *fleet, buf_t *out);

/* The upgrade detector's results (detector/detector.h), [] while it has none: every verdict
 * ({router, interface, direction, from_version, to_version, upgraded_at, before_bps, after_bps,
 * ratio, method, verdict, ...}), and one row per cohort (upgrade x architecture x board). */
void api_regressions(detector_t *detector, buf_t *out);
void api_cohorts(detector_t *detector, buf_t *out);

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

#endif
