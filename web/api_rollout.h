/* api_rollout: GET /api/v1/rollout?version=V&architecture=A[&board=B], the rollout guard's
 * decision for a cohort as JSON (detector/rollout.h): for a script or an Ansible task to ask
 * before it upgrades a router. Reads a detector view; never the database. */
#ifndef WGWATCH_API_ROLLOUT_H
#define WGWATCH_API_ROLLOUT_H

#include <stdint.h>

#include "detector/detector.h"
#include "lib/buf.h"

struct api_rollout_req {
	detector_t *detector;               /* the running detector; NULL: none runs */
	const char *version, *architecture; /* required; NULL or empty: 400 */
	const char *board;                  /* optional; NULL or empty: the architecture cohort */
	int64_t now_ms;                     /* wall clock */
};

/* {"decision": "go"|"hold"|"wait", "cohort": {...}, "override": ..., "reasons": [...]} into
 * out; returns the HTTP status: 200, or 400 with {"error": ...} when a parameter is missing. */
unsigned api_rollout(const struct api_rollout_req *req, buf_t *out);

#endif
