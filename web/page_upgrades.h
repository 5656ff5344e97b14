/* SPDX-License-Identifier: Apache-2.0 */
/* page_upgrades: the Upgrades page at /upgrades. Without a cohort in the query: the upgrade
 * detector's cohorts table (from -> to x architecture x board: routers, regressed, improved,
 * median capacity ratio per direction), every cell linking to the routers behind it. With one:
 * those routers, their verdicts and links to /router/NAME. Without one, below the table, the
 * rollout section (web/page_rollout.h). Server-rendered, no script. */
#ifndef WGWATCH_PAGE_UPGRADES_H
#define WGWATCH_PAGE_UPGRADES_H

#include "lib/buf.h"
#include "daemon/fleet.h"
#include "detector/detector.h"

/* The query of /upgrades, percent-decoded. A cohort is selected when from and to are both
 * given; then arch and board filter too: NULL = any, "" = unknown. verdict ("regression",
 * "improvement", ...) keeps only the routers with such a verdict in the cohort; NULL = all. */
struct page_upgrades_req {
	const char *from, *to, *arch, *board, *verdict;
	detector_t *detector; /* NULL: "not running" */
	fleet_t *fleet;       /* for the routers still waiting for a version; NULL: not listed */
};

/* Render from the running detector's newest view; returns the HTTP status: 200, or 404 when a
 * cohort was asked for and none matches. */
unsigned page_upgrades(const struct page_upgrades_req *req, buf_t *out);

#endif
