/* SPDX-License-Identifier: Apache-2.0 */
/* page_rollout: the Rollout section of the Upgrades page, from a detector view and a fleet
 * view (no lock held while rendering): the overrides in force with who and when, and per
 * version the fleet is moving to, the routers still waiting for it with their cohort's
 * decision, and those that took it although their cohort held; and the versions routers are
 * offered (check_updates) with the decision on each. Every name is escaped for
 * where it lands. It must never emit script or inline style. */
#include "config.h"
#include "web/page_rollout.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/ros.h"
#include "detector/rollout.h"
#include "lib/text.h"
#include "lib/xmem.h"
#include "web/page.h"

static void page_rollout_text(buf_t *out, const char *s)
{
	if (s == NULL || *s == '\0')
		buf_puts(out, "<span class=\"empty\">unknown</span>");
	else
		text_put_html(out, s);
}

/* <a href="/router/NAME">NAME</a>, the name escaped for each place. */
static void page_rollout_router(buf_t *out, const char *name)
{
	buf_puts(out, "<a href=\"/router/");
	text_put_url(out, name);
	buf_puts(out, "\">");
	text_put_html(out, name);
	buf_puts(out, "</a>");
}

/* ---- the overrides ---- */

static void page_rollout_overrides(buf_t *out, const detector_view_t *dv)
{
	struct override *o = NULL;
	size_t n = rollout_overrides(detector_view_rollout(dv), &o);
	buf_puts(out,
		"<h3>Overrides</h3><div class=\"wrap\"><table id=\"override-table\"><thead><tr>"
		"<th>Allow</th><th>Who</th><th>When (UTC)</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		buf_puts(out, "<tr><td>");
		text_put_html(out, o[i].version);
		buf_putc(out, '/');
		text_put_html(out, o[i].cohort);
		buf_puts(out, "</td><td>");
		text_put_html(out, o[i].who);
		buf_puts(out, "</td><td>");
		page_time(out, o[i].at_ms, "&ndash;");
		buf_puts(out, "</td></tr>\n");
	}
	if (n == 0)
		buf_puts(out, "<tr><td colspan=\"3\" class=\"empty\">none</td></tr>\n");
	buf_puts(out, "</tbody></table></div>\n");
	overrides_free(o, n);
}

/* ---- the versions the fleet moves to ---- */

static int page_rollout_vcmp(const void *a, const void *b)
{
	return -ros_version_cmp_text(*(char *const *)a, *(char *const *)b); /* newest first */
}

/* The distinct to_versions of upgrades (not downgrades) among the verdicts; *n of them,
 * newest first (the strings are the view's; caller frees the array). */
static const char **page_rollout_versions(const struct page_rollout_req *req, size_t *n)
{
	size_t nv = detector_view_nverdicts(req->dv);
	const char **vs = xcalloc(nv + 1, sizeof(*vs));
	*n = 0;
	for (size_t i = 0; i < nv; i++) {
		const struct detector_verdict *v = detector_view_verdict(req->dv, i);
		if (v->to_version == NULL || v->from_version == NULL ||
			ros_version_cmp_text(v->from_version, v->to_version) >= 0)
			continue;
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = strcmp(vs[k], v->to_version) == 0;
		if (!seen)
			vs[(*n)++] = v->to_version;
	}
	qsort(vs, *n, sizeof(*vs), page_rollout_vcmp);
	return vs;
}

/* The decision on version for arch and board, linked to its reasons. */
static void page_rollout_decision(buf_t *out, const struct page_rollout_req *req, const char *version,
	const char *arch, const char *board)
{
	if (arch == NULL) {
		buf_puts(out, "<span class=\"empty\">architecture unknown</span>");
		return;
	}
	struct rollout_query q = {
		.version = version, .architecture = arch, .board = board, .now_ms = req->now_ms
	};
	struct rollout_result res;
	size_t nv;
	const struct detector_verdict *vs = detector_view_verdicts(req->dv, &nv);
	rollout_decide(detector_view_rollout(req->dv), vs, nv, &q, &res);
	const char *name = rollout_decision_name(res.decision);
	buf_printf(out, "<a class=\"rollout-%s\" href=\"/api/v1/rollout?version=", name);
	text_put_url(out, version);
	buf_puts(out, "&amp;architecture=");
	text_put_url(out, arch);
	if (board != NULL) {
		buf_puts(out, "&amp;board=");
		text_put_url(out, board);
	}
	buf_puts(out, "\" title=\"");
	text_put_html(out, res.nreasons ? res.reasons[0].text : "");
	buf_printf(out, "\">%s</a>", name);
	rollout_result_free(&res);
}

/* The routers of the fleet on a version older than version. */
static void page_rollout_waiting(buf_t *out, const struct page_rollout_req *req, const char *version)
{
	size_t shown = 0, n = fleet_view_size(req->fv);
	buf_puts(out,
		"<h4>Still waiting</h4><div class=\"wrap\"><table class=\"waiting\"><thead><tr>"
		"<th>Router</th><th>Version</th><th>Architecture</th><th>Board</th><th>Rollout</th>"
		"</tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		const fleet_router_t *r = fleet_view_at(req->fv, i);
		const sample_t *s = r->last;
		if (s == NULL || s->version == NULL || ros_version_cmp_text(s->version, version) >= 0)
			continue;
		buf_puts(out, "<tr><td>");
		page_rollout_router(out, r->conf->name);
		buf_puts(out, "</td><td>");
		text_put_html(out, s->version);
		buf_puts(out, "</td><td>");
		page_rollout_text(out, s->architecture);
		buf_puts(out, "</td><td>");
		page_rollout_text(out, s->board);
		buf_puts(out, "</td><td>");
		page_rollout_decision(out, req, version, s->architecture, s->board);
		buf_puts(out, "</td></tr>\n");
		shown++;
	}
	if (shown == 0)
		buf_puts(out, "<tr><td colspan=\"5\" class=\"empty\">none</td></tr>\n");
	buf_puts(out, "</tbody></table></div>\n");
}

/* One router's newest change to version v (the first of its verdicts to it, as the view sorts
 * them), if it came after its cohort held on the others' regressions. */
static bool page_rollout_despite_row(
	buf_t *out, const struct page_rollout_req *req, const struct detector_verdict *v)
{
	const rollout_t *r = detector_view_rollout(req->dv);
	size_t n = detector_view_nverdicts(req->dv);
	struct rollout_query q = {
		.version = v->to_version, .architecture = v->architecture, .board = v->board
	};
	int64_t since = r && v->architecture
		? rollout_hold_since(r, detector_view_verdict(req->dv, 0), n, &q, v->router)
		: INT64_MAX;
	if (since == INT64_MAX || v->upgraded_ms <= since)
		return false;
	buf_puts(out, "<tr><td>");
	page_rollout_router(out, v->router);
	buf_puts(out, "</td><td>");
	page_rollout_text(out, v->architecture);
	buf_puts(out, "</td><td>");
	page_rollout_text(out, v->board);
	buf_puts(out, "</td><td>");
	page_time(out, since, "&ndash;");
	buf_puts(out, "</td><td>");
	page_time(out, v->upgraded_ms, "&ndash;");
	buf_puts(out, "</td></tr>\n");
	return true;
}

/* The routers that took version after their cohort held (one row per router). */
static void page_rollout_despite(buf_t *out, const struct page_rollout_req *req, const char *version)
{
	size_t shown = 0, n = detector_view_nverdicts(req->dv);
	buf_puts(out,
		"<h4>Took it despite a hold</h4><div class=\"wrap\"><table class=\"despite\"><thead><tr>"
		"<th>Router</th><th>Architecture</th><th>Board</th><th>Held since (UTC)</th>"
		"<th>Upgraded (UTC)</th></tr></thead><tbody>\n");
	const char *last = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct detector_verdict *v = detector_view_verdict(req->dv, i);
		if (v->to_version == NULL || strcmp(v->to_version, version) != 0 || !v->latest ||
			(last != NULL && strcmp(last, v->router) == 0))
			continue;
		last = v->router;
		shown += page_rollout_despite_row(out, req, v);
	}
	if (shown == 0)
		buf_puts(out, "<tr><td colspan=\"5\" class=\"empty\">none</td></tr>\n");
	buf_puts(out, "</tbody></table></div>\n");
}

/* ---- the versions routers are offered (check_updates) ---- */

static void page_rollout_offered_row(buf_t *out, const struct page_rollout_req *req, const fleet_router_t *r)
{
	const sample_t *s = r->last;
	buf_puts(out, "<tr><td>");
	text_put_html(out, s->offered_version);
	buf_puts(out, "</td><td>");
	page_rollout_router(out, r->conf->name);
	buf_puts(out, "</td><td>");
	page_rollout_text(out, s->version);
	buf_puts(out, "</td><td>");
	page_rollout_text(out, s->update_status);
	buf_puts(out, "</td><td>");
	page_rollout_decision(out, req, s->offered_version, s->architecture, s->board);
	buf_puts(out, "</td></tr>\n");
}

/* Routers told of a version other than theirs by /system/package/update; nothing when none. */
static void page_rollout_offered(buf_t *out, const struct page_rollout_req *req)
{
	size_t shown = 0, n = req->fv ? fleet_view_size(req->fv) : 0;
	for (size_t i = 0; i < n; i++) {
		const fleet_router_t *r = fleet_view_at(req->fv, i);
		const sample_t *s = r->last;
		if (s == NULL || s->offered_version == NULL ||
			(s->version != NULL && strcmp(s->version, s->offered_version) == 0))
			continue;
		if (shown++ == 0)
			buf_puts(out,
				"<h3>Offered</h3><div class=\"wrap\"><table id=\"offered-table\"><thead><tr>"
				"<th>Offered</th><th>Router</th><th>Installed</th><th>Status</th>"
				"<th>Rollout</th></tr></thead><tbody>\n");
		page_rollout_offered_row(out, req, r);
	}
	if (shown > 0)
		buf_puts(out,
			"</tbody></table></div><p class=\"note\">What <code>/system/package/update</code> "
			"offers the routers with <code>check_updates = yes</code> (read at most once an "
			"hour), with the rollout guard's decision on that version for each.</p>\n");
}

void page_rollout_section(buf_t *out, const struct page_rollout_req *req)
{
	buf_puts(out, "<section id=\"rollout\"><h2>Rollout</h2>\n");
	page_rollout_overrides(out, req->dv);
	page_rollout_offered(out, req);
	size_t nv;
	const char **vs = page_rollout_versions(req, &nv);
	for (size_t i = 0; i < nv; i++) {
		buf_puts(out, "<h3 class=\"moving\">Moving to ");
		text_put_html(out, vs[i]);
		buf_puts(out, "</h3>\n");
		if (req->fv != NULL)
			page_rollout_waiting(out, req, vs[i]);
		page_rollout_despite(out, req, vs[i]);
	}
	free(vs);
	buf_puts(out,
		"<p class=\"note\">Overrides: <code>[rollout] allow</code> in the configuration (who: "
		"config FILE:LINE) and those stored through <code>POST /api/v1/rollout/allow</code> "
		"(<a href=\"/api/v1/rollout/allow\">/api/v1/rollout/allow</a>). Still waiting: routers "
		"on an older version, with the decision on the version for their cohort. Took it "
		"despite a hold: routers whose upgrade came after the regressions of other routers of "
		"their cohort had held it (a hold on the median ratio alone is not dated).</p></section>\n");
}
