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
#include "lib/text.h"
#include "lib/xmem.h"

#define PAGE_UPGRADES_RATIO_BAD 0.9 /* a median ratio below this is shown as a loss */

/* What a page is rendered from: shallow copies, the strings belong to the detector view. */
struct page_upgrades_data {
	bool running; /* a detector view exists */
	const struct detector_cohort *c;
	size_t nc;
	const struct detector_verdict *v; /* sorted by router, upgrade time */
	size_t nv;
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
		buf_printf(out, r < PAGE_UPGRADES_RATIO_BAD ? "<span class=\"hot\">%.2f</span>" : "%.2f", r);
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

/* ---- the page ---- */

static void page_upgrades_head(buf_t *out, const struct page_upgrades_req *req)
{
	buf_puts(out,
		"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<meta http-equiv=\"refresh\" content=\"60\"><title>wgwatch: upgrades</title>"
		"<link rel=\"stylesheet\" href=\"/static/wgwatch.css\"></head><body>\n"
		"<nav class=\"crumb\"><a href=\"/\">wgwatch fleet</a> &rsaquo; ");
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

static void page_upgrades_cohort_row(buf_t *out, const struct detector_cohort *c)
{
	buf_puts(out, "<tr class=\"cohort\">");
	page_upgrades_cell_open(out, "c-upgrade", c, NULL);
	page_upgrades_text(out, c->from_version);
	buf_puts(out, " &rarr; ");
	page_upgrades_text(out, c->to_version);
	buf_puts(out, "</a></td>");
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
	page_upgrades_cell_open(out, "n c-tx", c, NULL);
	page_upgrades_ratio(out, c->median_ratio_tx);
	buf_printf(out, "</a> <small>(%zu)</small></td>", c->decided_tx);
	page_upgrades_cell_open(out, "n c-rx", c, NULL);
	page_upgrades_ratio(out, c->median_ratio_rx);
	buf_printf(out, "</a> <small>(%zu)</small></td></tr>\n", c->decided_rx);
}

/* The cohorts matching req (all of them without one); returns how many. */
static size_t page_upgrades_cohorts(
	buf_t *out, const struct page_upgrades_data *d, const struct page_upgrades_req *req)
{
	size_t shown = 0;
	buf_puts(out,
		"<section id=\"cohorts\"><table id=\"cohort-table\"><thead><tr>"
		"<th>Upgrade</th><th>Architecture</th><th>Board</th><th>Routers</th>"
		"<th>Regressed</th><th>Improved</th><th>Median ratio tx</th>"
		"<th>Median ratio rx</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < d->nc; i++) {
		const struct detector_cohort *c = &d->c[i];
		if (!page_upgrades_match(req, c->from_version, c->to_version, c->architecture, c->board))
			continue;
		page_upgrades_cohort_row(out, c);
		shown++;
	}
	if (shown == 0)
		buf_puts(out,
			"<tr><td colspan=\"8\" class=\"empty\">No version change judged yet."
			"</td></tr>\n");
	buf_puts(out,
		"</tbody></table><p class=\"note\">Ratio: WireGuard capacity after / before "
		"the upgrade, the median over the routers judged by saturation ceiling or CPU cost "
		"(their number in brackets); below 1 is worse. tx is the encrypt direction, rx the "
		"decrypt direction. Data: <a href=\"/api/v1/cohorts\">/api/v1/cohorts</a>.</p>"
		"</section>\n");
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
	buf_puts(out, "</td></tr>\n");
}

/* Whether router has, within the cohort, a verdict named want. */
static bool page_upgrades_router_has(const struct page_upgrades_data *d, const struct page_upgrades_req *req,
	const char *router, const char *want)
{
	for (size_t i = 0; i < d->nv; i++)
		if (strcmp(d->v[i].router, router) == 0 && page_upgrades_match_verdict(req, &d->v[i]) &&
			strcmp(detector_verdict_name(d->v[i].verdict), want) == 0)
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
		"</h2><table id=\"router-table\"><thead><tr><th>Router</th><th>Board</th>"
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
	buf_puts(out, "</tbody></table></section>\n");
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
	unsigned status = page_upgrades_render(&d, req ? req : &none, out);
	free(c);
	free(v);
	detector_view_free(dv);
	return status;
}
