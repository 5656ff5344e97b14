/* api: the JSON API (jansson). GET /api/v1/routers: name, up, version, firmware, board,
 * architecture, cores, last_poll, last_error per router. Never includes config secrets. */
#ifndef WGWATCH_API_H
#define WGWATCH_API_H

#include "buf.h"
#include "fleet.h"

/* Append the JSON array, routers in config order. Reads through a fleet view. */
void api_routers(fleet_t *fleet, buf_t *out);

/* The upgrade detector's results (daemon/detector.h), [] while it has none: every verdict
 * ({router, interface, direction, from_version, to_version, upgraded_at, before_bps, after_bps,
 * ratio, method, verdict, ...}), and one row per cohort (upgrade x architecture x board). */
void api_regressions(buf_t *out);
void api_cohorts(buf_t *out);

#endif
