/* SPDX-License-Identifier: Apache-2.0 */
/* api_rollout: GET /api/v1/rollout?version=V&architecture=A[&board=B], the rollout guard's
 * decision for a cohort as JSON (detector/rollout.h): for a script or an Ansible task to ask
 * before it upgrades a router; and /api/v1/rollout/allow, its overrides: listed (GET), stored
 * (POST) and revoked (DELETE, or POST with "revoke") with who and when. Decisions read a
 * detector view; only a change of the overrides writes the database (store/overrides.h). */
#ifndef WGWATCH_API_ROLLOUT_H
#define WGWATCH_API_ROLLOUT_H

#include <stdint.h>

#include "detector/detector.h"
#include "lib/buf.h"
#include "store/overrides.h"

#include <stddef.h>

struct api_rollout_req {
	detector_t *detector;               /* the running detector; NULL: none runs */
	const char *version, *architecture; /* required; NULL or empty: 400 */
	const char *board;                  /* optional; NULL or empty: the architecture cohort */
	int64_t now_ms;                     /* wall clock */
};

/* {"decision": "go"|"hold"|"wait", "cohort": {...}, "override": ..., "reasons": [...]} into
 * out; returns the HTTP status: 200, or 400 with {"error": ...} when a parameter is missing. */
unsigned api_rollout(const struct api_rollout_req *req, buf_t *out);

struct api_allow_req {
	detector_t *detector; /* its guard's overrides are listed and refreshed */
	const char *database; /* where the stored ones are written */
	const char *user;     /* the authenticated web user; NULL: authentication is off */
	const char *method;   /* "GET"/"HEAD", "POST" or "DELETE" */
	const char *body;     /* POST: {"version", "cohort"[, "revoke": true]} */
	size_t body_len;
	const char *version, *cohort; /* DELETE without a body: the query's arguments */
	int64_t now_ms;               /* wall clock: when */
};

/* /api/v1/rollout/allow. GET: 200 {"overrides": [...], "writable"}. POST and DELETE: 403
 * without a user; 400 for a body or query that is not a valid allow; POST 201 {"override",
 * "changed": true} when stored, 200 when it was already; a revoke 200 {"revoked", ...}, or 404
 * when no such stored override is active; 500 when the database refuses (logged here). */
unsigned api_rollout_allow(const struct api_allow_req *req, buf_t *out);

#endif
