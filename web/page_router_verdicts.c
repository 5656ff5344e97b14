/* SPDX-License-Identifier: Apache-2.0 */
/* page_router_verdicts: the router page's section of upgrade verdicts (a table with each
 * verdict's why and confounders, and a before/after figure per version change), from the
 * detector's view. Everything from routers is escaped; it must never block on the detector. */
#include "config.h"
#include "web/page_router_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detector/evidimport.h"
#include "detector/rollout.h"
#include "lib/text.h"
#include "lib/xmem.h"
#include "web/page.h"
#include "web/page_chart.h"

static void page_router_verdicts_pct(buf_t *out, double v)
{
	if (isnan(v))
		buf_puts(out, "&ndash;");
	else
		buf_printf(out, "%.0f%%", v * 100);
}

/* A row under a verdict's: why it could not judge, or what else moved (one per line of text). */
static void page_router_verdicts_note(buf_t *out, const char *cls, const char *label, const char *text)
{
	if (text == NULL || text[0] == '\0')
		return;
	buf_printf(out, "<tr class=\"%s\"><td></td><td colspan=\"9\">%s", cls, label);
	char *t = xstrdup(text);
	for (char *p = t, *nl; p != NULL; p = nl ? nl + 1 : NULL) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		buf_puts(out, p == t ? "" : "; ");
		text_put_html(out, p);
	}
	free(t);
	buf_puts(out, "</td></tr>\n");
}

static void page_router_verdicts_row(buf_t *out, const struct detector_verdict *v)
{
	buf_puts(out, "<tr><td>");
	page_router_change(out, v->from_version, v->to_version);
	buf_puts(out, "<br><small>");
	page_time(out, v->upgraded_ms, "&ndash;");
	buf_printf(out, " <a class=\"report\" href=\"/api/v1/upgrades/%lld/report.md\">report</a>",
		(long long)v->upgrade_id);
	buf_puts(out, "</small></td><td>");
	page_router_text(out, v->interface);
	buf_puts(out, "</td>");
	page_verdict_cells(out, v);
	buf_puts(out, "<td class=\"n\">");
	if (isnan(v->ratio))
		buf_puts(out, "&ndash;");
	else
		buf_printf(out, "%.2f", v->ratio);
	double pm = 2 * v->ratio_rse * v->ratio; /* its noise, as two standard errors */
	if (isfinite(v->ratio) && pm > 0)
		buf_printf(out, " <small title=\"two standard errors\">&plusmn;%s%.2f</small>",
			pm < 0.005 ? "&lt;" : "", fmax(pm, 0.01));
	buf_puts(out, "</td><td class=\"n\">");
	page_router_verdicts_pct(out, v->before_load);
	buf_puts(out, " &rarr; ");
	page_router_verdicts_pct(out, v->after_load);
	buf_puts(out, v->cores[0] ? "<br><small>core " : "");
	page_router_text(out, v->cores);
	buf_printf(out, "%s</td><td class=\"n\">%zu / %zu</td></tr>\n", v->cores[0] ? "</small>" : "",
		v->before_n, v->after_n);
	page_router_verdicts_note(out, "why", "", v->why);
	page_router_verdicts_note(out, "why confounders", "Also moved: ", v->confounders);
}

/* One version change's verdicts v[0..n) as one figure: capacity before and after, per
 * interface and direction, all on one axis. */
static void page_router_verdicts_before_after(
	buf_t *out, const struct detector_verdict *v, size_t n, const evidimport_set_t *ev)
{
	struct page_bar *bars = xcalloc(n, sizeof(*bars));
	char **labels = xcalloc(n, sizeof(*labels));
	for (size_t i = 0; i < n; i++) {
		labels[i] = xasprintf("%s %s", v[i].interface ? v[i].interface : "?", v[i].direction);
		bars[i] = (struct page_bar){ .label = labels[i],
			.before = v[i].before_bps,
			.after = v[i].after_bps,
			.cls = v[i].verdict == DETECTOR_REGRESSION     ? "worse"
				: v[i].verdict == DETECTOR_IMPROVEMENT ? "better"
								       : "" };
	}
	buf_puts(out, "<figure class=\"before-after\"><figcaption>");
	page_router_change(out, v[0].from_version, v[0].to_version);
	buf_printf(out,
		": WireGuard capacity before and after (<a class=\"report\" "
		"href=\"/api/v1/upgrades/%lld/report.md\">report for support</a>)</figcaption>",
		(long long)v[0].upgrade_id);
	page_elsewhere(
		out, evidimport_find(ev, v[0].from_version, v[0].to_version, v[0].architecture, v[0].board));
	page_chart_pairs(out, bars, n, "capacity before and after the upgrade, per interface and direction");
	buf_puts(out, "</figure>\n");
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(bars);
}

int64_t page_router_latest_upgrade(detector_t *detector, const char *name)
{
	detector_view_t *dv = detector ? detector_view(detector) : NULL;
	size_t n = 0;
	const struct detector_verdict *v = dv ? detector_view_router(dv, name, &n) : NULL;
	int64_t t = 0;
	for (size_t i = 0; v != NULL && i < n; i++)
		t = v[i].upgraded_ms > t ? v[i].upgraded_ms : t;
	if (dv)
		detector_view_free(dv);
	return t;
}

void page_router_verdicts(buf_t *out, detector_t *detector, const char *name)
{
	detector_view_t *dv = detector_view(detector);
	size_t n = 0;
	const struct detector_verdict *v = dv ? detector_view_router(dv, name, &n) : NULL;
	if (dv == NULL)
		return;
	buf_puts(out, "<section id=\"verdicts\"><h2>Upgrade verdicts</h2>");
	if (v == NULL || n == 0) {
		buf_puts(out, "<p class=\"empty\">No version change judged yet.</p></section>\n");
		detector_view_free(dv);
		return;
	}
	buf_puts(out,
		"<div class=\"wrap\"><table id=\"verdict-table\"><thead><tr><th>Upgrade</th><th>Interface</th>"
		"<th>Dir</th><th>Verdict</th><th>Method</th><th>Capacity before &rarr; after</th>"
		"<th>Ratio</th><th>Load of its cores</th><th>Samples</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++)
		page_router_verdicts_row(out, &v[i]);
	buf_puts(out, "</tbody></table></div>");
	evidimport_set_t *ev = rollout_evidence(detector_view_rollout(dv));
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && v[j].upgraded_ms == v[i].upgraded_ms; j++)
			;
		page_router_verdicts_before_after(out, v + i, j - i, ev);
	}
	evidimport_unref(ev);
	buf_puts(out,
		"<p class=\"note\">Capacity, not demand: see "
		"<a href=\"/api/v1/regressions\">/api/v1/regressions</a>.</p></section>\n");
	detector_view_free(dv);
}
