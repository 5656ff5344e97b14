/* SPDX-License-Identifier: Apache-2.0 */
/* page_rollout: the Rollout section of /upgrades: the rollout guard's overrides with who and
 * when, and per version the fleet moves to, the routers still waiting for it (with their
 * cohort's decision) and those that took it despite a hold; the versions routers are offered
 * (check_updates), each with its decision. Server-rendered, no script. */
#ifndef WGWATCH_PAGE_ROLLOUT_H
#define WGWATCH_PAGE_ROLLOUT_H

#include <stdint.h>

#include "daemon/fleet.h"
#include "detector/detector.h"
#include "lib/buf.h"

struct page_rollout_req {
	const detector_view_t *dv; /* the detector's view; not NULL */
	const fleet_view_t *fv;    /* the routers' versions now; NULL: no "still waiting" */
	int64_t now_ms;            /* wall clock, for the decisions */
};

/* Append <section id="rollout">. */
void page_rollout_section(buf_t *out, const struct page_rollout_req *req);

#endif
