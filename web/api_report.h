/* SPDX-License-Identifier: Apache-2.0 */
/* api_report: GET /api/v1/upgrades/ID/report (JSON) and /report.md (Markdown): what the
 * operator of a regressed router sends support, from data alone: the router and the versions,
 * the detector's verdicts, the fixed-rate probes before and after, the CPU profiles before and
 * after with their diff on the busiest core, and the cohort. Never a secret. */
#ifndef WGWATCH_API_REPORT_H
#define WGWATCH_API_REPORT_H

#include <stdbool.h>

#include "daemon/conf.h"
#include "detector/detector.h"
#include "lib/buf.h"

struct api_report_req {
	const conf_t *conf;   /* the database */
	detector_t *detector; /* verdicts and cohorts; NULL: none */
	const char *rest;     /* what follows /api/v1/upgrades/: "ID/report" or "ID/report.md" */
};

/* The HTTP status (200, 404 unknown upgrade or path, 500 database unreadable: logged) and the
 * body; *markdown tells the content type (text/markdown, else JSON). */
unsigned api_report(const struct api_report_req *req, buf_t *out, bool *markdown);

#endif
