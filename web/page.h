/* SPDX-License-Identifier: Apache-2.0 */
/* page: the server-rendered HTML pages (no JavaScript needed): the fleet page at "/",
 * every router one row, worst first. Everything a router says is escaped for HTML text or
 * attributes; nothing from the config but names and labels is shown. */
#ifndef WGWATCH_PAGE_H
#define WGWATCH_PAGE_H

#include <stdint.h>

#include "lib/buf.h"
#include "daemon/fleet.h"
#include "detector/detector.h"

void page_fleet(fleet_t *fleet, buf_t *out); /* reads through a fleet view */
void page_css(buf_t *out);                   /* the stylesheet served at /static/wgwatch.css */
/* The head every page opens with, through "<body>\n": doctype, charset, viewport, a refresh
 * every refresh_s seconds, the title "wgwatch: " and title (escaped here), the stylesheet. */
#define PAGE_REFRESH_S       60 /* a router's page and the upgrades: charts that move slowly */
#define PAGE_REFRESH_FLEET_S 30 /* the fleet page: who is up and down */
void page_open(buf_t *out, const char *title, unsigned refresh_s);
/* Append wall clock ms as "YYYY-MM-DD HH:MM:SSZ" (UTC), or `none` (HTML) when ms <= 0. */
void page_time(buf_t *out, int64_t ms, const char *none);
/* Append an age "40 s", "5 min", "3 h", "2 d" (ms >= 0). */
void page_age(buf_t *out, int64_t ms);
/* Append a capacity ratio as a change: 0.34 -> "&minus;66&nbsp;%", 1.5 -> "+50&nbsp;%". */
#define PAGE_RATIO_BAD 0.9 /* a capacity ratio below this is shown as a loss */
void page_ratio_change(buf_t *out, double ratio);
/* What other fleets' evidence says of an upgrade's cohort, as a line (the direction with more
 * routers regressed, tx on a tie): "elsewhere: 2 fleets, 4 routers, tx median 0.34, 4 of 4
 * regressed". Nothing for NULL. */
struct evidimport_cohort;
void page_elsewhere(buf_t *out, const struct evidimport_cohort *k);
/* Append a verdict's direction, verdict (provisional or not), method and capacity before ->
 * after as four <td> cells, the same on every page that lists verdicts. */
void page_verdict_cells(buf_t *out, const struct detector_verdict *v);

/* Fleet page filters from the query string (each NULL or "" = no filter): q is a
 * case-insensitive substring of name, labels, board, architecture or version; label is one
 * "key=value"; board and version match exactly; show is "regressed", "bound" or "down" (what
 * needs attention: a regression on the newest upgrade, single-core bound, not answering). */
struct page_filter {
	const char *q, *label, *board, *version, *show;
	const char *sort; /* "headroom": the least capacity headroom first, no groups; else NULL */
};
void page_fleet_filtered(fleet_t *fleet, const struct page_filter *filter, buf_t *out);

/* The fleet page with the date of each router's newest upgrade (or downgrade) in its version
 * cell, read from the version history in database (one query for the whole fleet; when NULL
 * or unreadable, logged, the page has no dates). page_fleet_filtered is this without one. */
struct page_fleet_req {
	fleet_t *fleet;
	const struct page_filter *filter; /* NULL: every router */
	const char *database;             /* conf->database; NULL: no upgrade dates */
	detector_t *detector;             /* NULL: no regression marks */
	int64_t now_ms;                   /* wall clock for the age of a down router's values; 0: now */
};
void page_fleet_render(const struct page_fleet_req *req, buf_t *out);

#endif
