/* SPDX-License-Identifier: Apache-2.0 */
/* page_upgrades: the Upgrades page, rendered on an HTTP thread from the upgrade detector's
 * published view (plain data; the detector thread is never waited on). Versions, boards,
 * architectures, router and interface names come from routers: every one is escaped for where
 * it lands (HTML text, attribute, URL query value). It must never emit script or inline style. */
#include "config.h"
#include "web/page_upgrades.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detector/detector.h"
#include "web/page.h"
#include "web/page_chart.h"
#include "web/page_rollout.h"
#include "detector/rollout.h"
#include "lib/clock.h"
#include "lib/text.h"
#include "lib/xmem.h"

/* What a page is rendered from: shallow copies, the strings belong to the detector view. */
struct page_upgrades_data {
	bool running; /* a detector view exists */
	const struct detector_cohort *c;
	size_t nc;
	const struct detector_verdict *v; /* sorted by router, upgrade time */
	size_t nv;
	const detector_view_t *dv; /* for the rollout guard's decisions */
	fleet_view_t *fv;          /* the routers' versions now; NULL without a fleet */
	evidimport_set_t *ev;      /* other fleets' evidence ([evidence] files); NULL: none */
	int64_t now_ms;
};

/* NULL and "" are the same: unknown. */
static bool page_upgrades_eq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool page_upgrades_selected(const struct page_upgrades_req *req)
{
	return req != NULL && req->from != NULL && req->to != NULL;
}

/* The cohort key (from, to, arch, board) against the request; everything matches no request. */
static bool page_upgrades_match(const struct page_upgrades_req *req, const char *from, const char *to,
	const char *arch, const char *board)
{
	if (!page_upgrades_selected(req))
		return true;
	return page_upgrades_eq(from, req->from) && page_upgrades_eq(to, req->to) &&
		(req->arch == NULL || page_upgrades_eq(arch, req->arch)) &&
		(req->board == NULL || page_upgrades_eq(board, req->board));
}

static bool page_upgrades_match_verdict(const struct page_upgrades_req *req, const struct detector_verdict *v)
{
	return page_upgrades_match(req, v->from_version, v->to_version, v->architecture, v->board);
}

/* ---- small formatters ---- */

static void page_upgrades_text(buf_t *out, const char *s)
{
	if (s == NULL || *s == '\0')
		buf_puts(out, "<span class=\"empty\">unknown</span>");
	else
		text_put_html(out, s);
}

static void page_upgrades_ratio(buf_t *out, double r)
{
	if (isnan(r))
		buf_puts(out, "&ndash;");
	else
		buf_printf(out, r < PAGE_RATIO_BAD ? "<span class=\"hot\">%.2f</span>" : "%.2f", r);
}

/* href value of the cohort's router list, verdict NULL for all (needs no further escaping). */
static void page_upgrades_href(buf_t *out, const struct detector_cohort *c, const char *verdict)
{
	buf_puts(out, "/upgrades?from=");
	text_put_url(out, c->from_version);
	buf_puts(out, "&amp;to=");
	text_put_url(out, c->to_version);
	buf_puts(out, "&amp;arch=");
	text_put_url(out, c->architecture);
	buf_puts(out, "&amp;board=");
	text_put_url(out, c->board);
	if (verdict)
		buf_printf(out, "&amp;verdict=%s", verdict);
}

/* <td class="cls"><a href="cohort link">; the caller writes the text and closes both. */
static void page_upgrades_cell_open(
	buf_t *out, const char *cls, const struct detector_cohort *c, const char *verdict)
{
	buf_printf(out, "<td class=\"%s\"><a href=\"", cls);
	page_upgrades_href(out, c, verdict);
	buf_puts(out, "\">");
}

/* ---- one mark per router ---- */

/* Each router of a cohort by its worst high-confidence ratio per direction (0 tx, 1 rx), the
 * medians over routers, and the marks of the strip chart. */
struct page_upgrades_fig {
	struct page_mark *m[2];
	size_t n[2];
	double median[2];
};

static bool page_upgrades_in_cohort(const struct detector_cohort *c, const struct detector_verdict *v)
{
	return page_upgrades_eq(c->from_version, v->from_version) &&
		page_upgrades_eq(c->to_version, v->to_version) &&
		page_upgrades_eq(c->architecture, v->architecture) && page_upgrades_eq(c->board, v->board);
}

static int page_upgrades_dcmp(const void *a, const void *b)
{
	double x = ((const struct page_mark *)a)->ratio, y = ((const struct page_mark *)b)->ratio;
	return x < y ? -1 : x > y;
}

static double page_upgrades_median(struct page_mark *m, size_t n)
{
	if (n == 0)
		return NAN;
	struct page_mark *t = xcalloc(n, sizeof(*t));
	memcpy(t, m, n * sizeof(*t));
	qsort(t, n, sizeof(*t), page_upgrades_dcmp);
	double r = n % 2 ? t[n / 2].ratio : (t[n / 2 - 1].ratio + t[n / 2].ratio) / 2;
	free(t);
	return r;
}

/* One router's verdicts v[0..n) in the cohort: its marks, one per direction, coloured by that
 * direction's verdicts (a regression on any interface wins). */
static void page_upgrades_fig_router(struct page_upgrades_fig *f, const struct detector_verdict *v, size_t n)
{
	double worst[2] = { NAN, NAN };
	bool reg[2] = { false, false }, imp[2] = { false, false };
	for (size_t i = 0; i < n; i++) {
		int d = v[i].direction[0] == 't' ? 0 : 1;
		reg[d] |= v[i].verdict == DETECTOR_REGRESSION;
		imp[d] |= v[i].verdict == DETECTOR_IMPROVEMENT;
		if (outcome_method_high(v[i].method) && isfinite(v[i].ratio) &&
			(isnan(worst[d]) || v[i].ratio < worst[d]))
			worst[d] = v[i].ratio;
	}
	for (int d = 0; d < 2; d++)
		if (!isnan(worst[d]))
			f->m[d][f->n[d]++] = (struct page_mark){ .name = v[0].router,
				.ratio = worst[d],
				.cls = reg[d]    ? "m-regression"
					: imp[d] ? "m-improvement"
						 : "m-other" };
}

static void page_upgrades_fig_fill(
	struct page_upgrades_fig *f, const struct page_upgrades_data *d, const struct detector_cohort *c)
{
	*f = (struct page_upgrades_fig){ .m = { xcalloc(d->nv + 1, sizeof(struct page_mark)),
						 xcalloc(d->nv + 1, sizeof(struct page_mark)) } };
	for (size_t i = 0, j; i < d->nv; i = j) {
		for (j = i + 1; j < d->nv && strcmp(d->v[j].router, d->v[i].router) == 0; j++)
			;
		/* the router's verdicts of this cohort, contiguous: sorted by router, then time */
		size_t k = i, e;
		while (k < j && !page_upgrades_in_cohort(c, &d->v[k]))
			k++;
		for (e = k; e < j && page_upgrades_in_cohort(c, &d->v[e]); e++)
			;
		if (e > k)
			page_upgrades_fig_router(f, &d->v[k], e - k);
	}
	for (int k = 0; k < 2; k++)
		f->median[k] = page_upgrades_median(f->m[k], f->n[k]);
}

static void page_upgrades_fig_free(struct page_upgrades_fig *f)
{
	free(f->m[0]);
	free(f->m[1]);
}

/* ---- the page ---- */

static void page_upgrades_head(buf_t *out, const struct page_upgrades_req *req)
{
	page_open(out, "upgrades", PAGE_REFRESH_S);
	buf_puts(out, "<nav class=\"crumb\"><a href=\"/\">wgwatch fleet</a> &rsaquo; ");
	if (!page_upgrades_selected(req)) {
		buf_puts(out, "upgrades</nav>\n<h1>Upgrades</h1>\n");
		return;
	}
	buf_puts(out,
		"<a href=\"/upgrades\">upgrades</a> &rsaquo; cohort</nav>\n"
		"<h1 id=\"cohort\">");
	page_upgrades_text(out, req->from);
	buf_puts(out, " &rarr; ");
	page_upgrades_text(out, req->to);
	if (req->arch) {
		buf_puts(out, " <small>on ");
		page_upgrades_text(out, req->arch);
		buf_puts(out, "</small>");
	}
	if (req->board) {
		buf_puts(out, " <small>");
		page_upgrades_text(out, req->board);
		buf_puts(out, "</small>");
	}
	buf_puts(out, "</h1>\n");
}

/* The median over routers and, in brackets, how many routers it rests on. */
static void page_upgrades_median_cell(
	buf_t *out, const struct detector_cohort *c, const char *cls, double median, size_t n)
{
	page_upgrades_cell_open(out, cls, c, NULL);
	page_upgrades_ratio(out, median);
	buf_printf(out, "</a> <small>(%zu router%s)</small></td>", n, n == 1 ? "" : "s");
}

/* The rollout guard's decision on the cohort's to_version, architecture and board, linked to
 * its reasons in /api/v1/rollout; its first reason as the title. */
static void page_upgrades_rollout_cell(
	buf_t *out, const struct page_upgrades_data *d, const struct detector_cohort *c)
{
	buf_puts(out, "<td class=\"c-rollout\">");
	if (c->to_version == NULL || c->architecture == NULL) {
		buf_puts(out, "</td>");
		return;
	}
	struct rollout_query q = { .version = c->to_version,
		.architecture = c->architecture,
		.board = c->board,
		.now_ms = d->now_ms };
	struct rollout_result res;
	size_t nv;
	const struct detector_verdict *vs = detector_view_verdicts(d->dv, &nv);
	rollout_decide(detector_view_rollout(d->dv), vs, nv, &q, &res);
	const char *name = rollout_decision_name(res.decision);
	buf_printf(out, "<a class=\"rollout-%s\" href=\"/api/v1/rollout?version=", name);
	text_put_url(out, c->to_version);
	buf_puts(out, "&amp;architecture=");
	text_put_url(out, c->architecture);
	if (c->board != NULL) {
		buf_puts(out, "&amp;board=");
		text_put_url(out, c->board);
	}
	buf_puts(out, "\" title=\"");
	text_put_html(out, res.nreasons ? res.reasons[0].text : "");
	buf_printf(out, "\">%s</a>%s</td>", name, res.allow ? " <small>(allowed)</small>" : "");
	rollout_result_free(&res);
}

static void page_upgrades_cohort_row(
	buf_t *out, const struct page_upgrades_data *d, const struct detector_cohort *c)
{
	struct page_upgrades_fig f;
	page_upgrades_fig_fill(&f, d, c);
	buf_puts(out, "<tr class=\"cohort\">");
	page_upgrades_cell_open(out, "c-upgrade", c, NULL);
	page_upgrades_text(out, c->from_version);
	buf_puts(out, " &rarr; ");
	page_upgrades_text(out, c->to_version);
	buf_puts(out, "</a>");
	page_elsewhere(
		out, evidimport_find(d->ev, c->from_version, c->to_version, c->architecture, c->board));
	buf_puts(out, "</td>");
	page_upgrades_cell_open(out, "c-arch", c, NULL);
	page_upgrades_text(out, c->architecture);
	buf_puts(out, "</a></td><td class=\"c-board\"><a href=\"/?board=");
	text_put_url(out, c->board);
	buf_puts(out, "\" title=\"the fleet, filtered by this board\">");
	page_upgrades_text(out, c->board);
	buf_puts(out, "</a></td>");
	page_upgrades_cell_open(out, "n c-routers", c, NULL);
	buf_printf(out, "%zu</a></td>", c->routers);
	page_upgrades_cell_open(out, "n c-regressed", c, "regression");
	buf_printf(out, "<span class=\"%s\">%zu of %zu</span></a></td>", c->regressed ? "flag" : "",
		c->regressed, c->routers);
	page_upgrades_cell_open(out, "n c-improved", c, "improvement");
	buf_printf(out, "%zu of %zu</a></td>", c->improved, c->routers);
	page_upgrades_median_cell(out, c, "n c-tx", f.median[0], f.n[0]);
	page_upgrades_median_cell(out, c, "n c-rx", f.median[1], f.n[1]);
	page_upgrades_rollout_cell(out, d, c);
	struct page_strip_row rows[2] = { { "tx", f.m[0], f.n[0] }, { "rx", f.m[1], f.n[1] } };
	buf_puts(out, "<td class=\"c-chart\">");
	page_chart_strip(out, rows, 2, "capacity ratio of each router, tx and rx");
	buf_puts(out, "</td></tr>\n");
	page_upgrades_fig_free(&f);
}

/* The cohorts matching req (all of them without one); returns how many. */
static size_t page_upgrades_cohorts(
	buf_t *out, const struct page_upgrades_data *d, const struct page_upgrades_req *req)
{
	size_t shown = 0;
	buf_puts(out,
		"<section id=\"cohorts\"><div class=\"wrap\"><table id=\"cohort-table\"><thead><tr>"
		"<th>Upgrade</th><th>Architecture</th><th>Board</th><th>Routers</th>"
		"<th>Regressed</th><th>Improved</th><th>Median ratio tx</th>"
		"<th>Median ratio rx</th><th>Rollout</th><th>Ratio of each router</th></tr></thead>"
		"<tbody>\n");
	for (size_t i = 0; i < d->nc; i++) {
		const struct detector_cohort *c = &d->c[i];
		if (!page_upgrades_match(req, c->from_version, c->to_version, c->architecture, c->board))
			continue;
		page_upgrades_cohort_row(out, d, c);
		shown++;
	}
	if (shown == 0)
		buf_puts(out,
			"<tr><td colspan=\"10\" class=\"empty\">No version change judged yet."
			"</td></tr>\n");
	buf_puts(out,
		"</tbody></table></div><p class=\"note\">Routers, regressed and improved count "
		"routers. Ratio: WireGuard capacity after / before the upgrade, below 1 is worse; the "
		"median is over the routers judged by saturation ceiling or CPU cost, each by its "
		"worst interface (their number in brackets). The chart has one dot per such router "
		"(red: regressed, green: improved) on 0 to 2, the dashed line at 1. tx is the encrypt "
		"direction, rx the decrypt direction. Rollout: the rollout guard's decision on the "
		"version for the architecture and board (go, hold or wait), linked to its reasons. Data: "
		"<a href=\"/api/v1/cohorts\">/api/v1/cohorts</a>.</p></section>\n");
	return shown;
}

static void page_upgrades_verdict_row(buf_t *out, const struct detector_verdict *v)
{
	buf_puts(out, "<tr class=\"verdict\"><td class=\"v-router\"><a href=\"/router/");
	text_put_url(out, v->router);
	buf_puts(out, "?range=all\">");
	text_put_html(out, v->router);
	buf_puts(out, "</a></td><td>");
	page_upgrades_text(out, v->board);
	buf_puts(out, "</td><td>");
	page_upgrades_text(out, v->interface);
	buf_puts(out, "</td>");
	page_verdict_cells(out, v);
	buf_puts(out, "<td class=\"n v-ratio\">");
	page_upgrades_ratio(out, v->ratio);
	buf_printf(out, "</td><td class=\"n\">%zu / %zu</td><td>", v->before_n, v->after_n);
	page_time(out, v->upgraded_ms, "&ndash;");
	if (v->upgrade_id > 0) /* as on the router page: what to send support */
		buf_printf(out, " <a class=\"report\" href=\"/api/v1/upgrades/%lld/report.md\">report</a>",
			(long long)v->upgrade_id);
	buf_puts(out, "</td></tr>\n");
}

/* Whether router has, within the cohort, a verdict named want. */
static bool page_upgrades_router_has(const struct page_upgrades_data *d, const struct page_upgrades_req *req,
	const char *router, const char *want)
{
	for (size_t i = 0; i < d->nv; i++)
		if (strcmp(d->v[i].router, router) == 0 && page_upgrades_match_verdict(req, &d->v[i]) &&
			strcmp(outcome_name(d->v[i].verdict), want) == 0)
			return true;
	return false;
}

static void page_upgrades_routers(
	buf_t *out, const struct page_upgrades_data *d, const struct page_upgrades_req *req)
{
	size_t shown = 0;
	buf_puts(out, "<section id=\"routers\"><h2>Routers");
	if (req->verdict) {
		buf_puts(out, " with a verdict of ");
		text_put_html(out, req->verdict);
	}
	buf_puts(out,
		"</h2><div class=\"wrap\"><table id=\"router-table\"><thead><tr><th>Router</th><th>Board</th>"
		"<th>Interface</th><th>Dir</th><th>Verdict</th><th>Method</th>"
		"<th>Capacity before &rarr; after</th><th>Ratio</th><th>Samples</th>"
		"<th>Upgraded (UTC)</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < d->nv; i++) {
		const struct detector_verdict *v = &d->v[i];
		if (!page_upgrades_match_verdict(req, v) ||
			(req->verdict && !page_upgrades_router_has(d, req, v->router, req->verdict)))
			continue;
		page_upgrades_verdict_row(out, v);
		shown++;
	}
	if (shown == 0)
		buf_puts(out, "<tr><td colspan=\"10\" class=\"empty\">no router matches</td></tr>\n");
	buf_puts(out, "</tbody></table></div></section>\n");
}

static unsigned page_upgrades_render(
	const struct page_upgrades_data *d, const struct page_upgrades_req *req, buf_t *out)
{
	unsigned status = 200;
	page_upgrades_head(out, req);
	if (!d->running) {
		buf_puts(out,
			"<p class=\"empty\">The upgrade detector is not running (see "
			"<code>[detector]</code> in the configuration) or has not finished its first "
			"evaluation.</p>");
	} else if (page_upgrades_cohorts(out, d, req) == 0 && page_upgrades_selected(req)) {
		status = 404;
	} else if (page_upgrades_selected(req)) {
		page_upgrades_routers(out, d, req);
	} else {
		page_rollout_section(
			out, &(struct page_rollout_req){ .dv = d->dv, .fv = d->fv, .now_ms = d->now_ms });
	}
	buf_puts(out, "</body></html>\n");
	return status;
}

unsigned page_upgrades(const struct page_upgrades_req *req, buf_t *out)
{
	static const struct page_upgrades_req none = { 0 };
	detector_view_t *dv = detector_view(req ? req->detector : NULL);
	struct page_upgrades_data d = {
		.running = dv != NULL, .nc = detector_view_ncohorts(dv), .nv = detector_view_nverdicts(dv)
	};
	struct detector_cohort *c = xcalloc(d.nc + 1, sizeof(*c));
	struct detector_verdict *v = xcalloc(d.nv + 1, sizeof(*v));
	for (size_t i = 0; i < d.nc; i++)
		c[i] = *detector_view_cohort(dv, i);
	for (size_t i = 0; i < d.nv; i++)
		v[i] = *detector_view_verdict(dv, i);
	d.c = c, d.v = v;
	d.dv = dv;
	d.fv = req && req->fleet ? fleet_view(req->fleet) : NULL;
	d.ev = rollout_evidence(detector_view_rollout(dv));
	d.now_ms = clock_wall_ms();
	unsigned status = page_upgrades_render(&d, req ? req : &none, out);
	free(c);
	free(v);
	evidimport_unref(d.ev);
	if (d.fv != NULL)
		fleet_view_free(d.fv);
	detector_view_free(dv);
	return status;
}
