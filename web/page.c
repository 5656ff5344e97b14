/* SPDX-License-Identifier: Apache-2.0 */
/* page: the fleet page. Rows are summarised from a fleet view and the detector's view, sorted
 * by what needs attention (regressed, single-core bound, down, then the busiest core) and
 * rendered as escaped HTML; also the one stylesheet and the one head every page opens with
 * (page_open). It must never show a down router's last values as current, nor emit script or
 * inline style. */
#include "config.h"
#include "web/page.h"
#include "detector/evidimport.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detector/detector.h"
#include "store/history.h"
#include "lib/clock.h"
#include "lib/text.h"
#include "lib/log.h"
#include "web/metrics.h"
#include "web/page_capacity.h"
#include "web/page_chart.h"
#include "lib/xmem.h"

struct page_row {
	const fleet_router_t *r;
	double busiest; /* 0..1, NAN when unknown */
	size_t busiest_core;
	double others;                       /* mean load of the other cores */
	double tx_bps, rx_bps;               /* WireGuard interfaces together, NAN until two polls */
	const struct history_change *change; /* the newest upgrade or downgrade; NULL: none */
	/* the detector's regressions on the newest version change: worst ratio per direction */
	bool regressed;
	double reg_tx, reg_rx;      /* NAN: no regression that way */
	const char *reg_to;         /* the version it came with (the detector view's string) */
	bool bound;                 /* up, and one core saturated while the others idle */
	const struct capacity *cap; /* its stream with the least known headroom; NULL: none */
	int group;                  /* enum page_group */
};

/* What needs attention, in the order the page shows it. */
enum page_group { PAGE_G_REGRESSED, PAGE_G_BOUND, PAGE_G_DOWN, PAGE_G_REST, PAGE_G_N };
static const char *const page_group_names[PAGE_G_N] = { "regressed", "bound", "down", "" };

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.4em;margin:0 0 .3em}p.sum{color:#555;margin:0 0 1em}"
	"table{border-collapse:collapse;width:100%}th,td{padding:.3em .45em;text-align:left;"
	"border-bottom:1px solid #ddd;vertical-align:top}th{background:#f4f4f4}"
	/* headers, times and versions may wrap: the fleet table fits 1400 px, Last poll and all */
	"td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"td.cores{white-space:normal;min-width:6.5em}"
	"#fleet td:first-child,#fleet td:nth-child(9){white-space:nowrap}"
	"#fleet td:nth-child(2){max-width:22em}#fleet td:first-child small{white-space:normal}"
	"small.since{color:#666}"
	".down{color:#b00020;font-weight:600}.pending{color:#666;font-weight:600}.up{color:#1b7f3b}.why{color:#b00020;font-size:.9em;"
	"overflow-wrap:anywhere}"
	".hot{color:#b00020;font-weight:600}.flag{background:#fde7e9;color:#b00020;border-radius:3px;"
	"padding:0 .3em;font-size:.85em}"
	"a{color:#0b5cad;text-decoration:none}a:hover{text-decoration:underline}"
	"tbody tr{position:relative}tbody tr:hover{background:#f3f8fd}"
	"a.go::after{content:\"\";position:absolute;inset:0}"
	"form.filter{display:flex;flex-wrap:wrap;gap:.5em;align-items:center;margin:0 0 1em}"
	"form.filter input[type=search]{min-width:18em}form.filter input,form.filter select,"
	"form.filter button{font:inherit;padding:.2em .4em}"
	"nav.crumb{color:#555;margin:0 0 .4em}nav.range a,nav.range b{margin-right:.6em}"
	"nav.range b{background:#0b5cad;color:#fff;border-radius:3px;padding:0 .4em}"
	"section{margin:1.4em 0}h2{font-size:1.1em;margin:0 0 .4em}h3{font-size:.95em;margin:.6em 0 0}"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr max-content 1fr;gap:.1em 1em;"
	"margin:.4em 0}dl.facts dt{color:#555}dl.facts dd{margin:0}"
	".note{color:#666;font-size:.9em}.empty{color:#888;font-style:italic}"
	"svg.chart{width:100%;max-width:960px;height:auto;display:block;font:11px system-ui,sans-serif}"
	"svg.scatter{max-width:640px}"
	"svg .grid line{stroke:#e6e6e6;stroke-width:1}svg text{fill:#555}svg text.yl{text-anchor:end}"
	"svg text.tl{text-anchor:middle}svg polyline{fill:none;stroke-width:1.6;stroke-linejoin:round}"
	"svg .tx{stroke:#1f77b4;fill:#1f77b4}svg polyline.tx,svg polyline.rx{fill:none}"
	"svg .rx{stroke:#ff7f0e;fill:#ff7f0e}svg polyline.cap{stroke-dasharray:6 4;stroke-width:1.2}"
	"svg .mk line{stroke:#6a3d9a;stroke-width:1.5;stroke-dasharray:4 3}svg .mk text{fill:#6a3d9a}"
	"svg .mk.reboot line{stroke:#888}svg .mk.reboot text{fill:#888}"
	"svg .mk.firmware line{stroke:#2ca02c}svg .mk.firmware text{fill:#2ca02c}"
	"svg .win-before{fill:#1f77b4;fill-opacity:.06}svg .win-after{fill:#d62728;fill-opacity:.06}"
	"svg circle.pt{fill-opacity:.75;stroke:#fff;stroke-width:.5}"
	".legend{font-size:.9em;color:#444;margin:.2em 0}.key{display:inline-block;width:.9em;"
	"height:.9em;vertical-align:-.1em;margin:0 .3em 0 .8em;border-radius:2px}"
	".key.tx{background:#1f77b4}.key.rx{background:#ff7f0e}.key.cap{background:#999}.key.mk{background:#6a3d9a}"
	".key.reboot{background:#888}.key.k0{background:#eef3f8}.key.k5{background:#f2c14e}"
	".key.k10{background:#b00020}"
	".c0{background:#1f77b4}.c1{background:#d62728}.c2{background:#2ca02c}.c3{background:#9467bd}"
	".c4{background:#ff7f0e}.c5{background:#17becf}.c6{background:#8c564b}.c7{background:#e377c2}"
	/* what needs attention; a down router's last values, greyed with their age */
	".flag.bound{background:#fff1d6;color:#8a4b00}.flag{white-space:nowrap}"
	"nav.show{margin:0 0 .8em}nav.show a,nav.show b{margin-right:.8em;white-space:nowrap}"
	"nav.show b{background:#0b5cad;color:#fff;border-radius:3px;padding:0 .4em}"
	".stale,.stale .hot,dd.stale{color:#999}.seen{color:#666;font-size:.9em}"
	"tr.group th{background:#fff;color:#555;font-weight:600;padding-top:.8em}"
	/* before/after bars and the per-router ratio strip */
	"figure.before-after{margin:.8em 0}figcaption{font-size:.9em;color:#444;margin:0 0 .2em}"
	"svg.pairs{max-width:560px}svg.strip{width:18em;max-width:none;display:inline-block}"
	"svg .before{fill:#9fbfdf}svg .after{fill:#1f77b4}svg .after.worse{fill:#d62728}"
	"svg .after.better{fill:#2ca02c}svg line.one{stroke:#888;stroke-dasharray:3 2}"
	"svg .m-regression{fill:#d62728}svg .m-improvement{fill:#2ca02c}svg .m-other{fill:#777}"
	"svg circle.m{fill-opacity:.7;stroke:#fff;stroke-width:.5}"
	/* narrow screens: tables scroll inside their box, the page itself never sideways; the
	 * fleet and the cohorts turn into cards, each row its name and what needs attention, then
	 * its values labelled, so nothing of them is off screen (093-pages, columns.py) */
	".wrap{overflow-x:auto;max-width:100%}h1,dd,p,nav{overflow-wrap:anywhere}"
	"@media (max-width:640px){body{margin:.6em}dl.facts{grid-template-columns:max-content 1fr}"
	"form.filter input[type=search]{min-width:0;flex:1 1 100%}"
	"#fleet thead,#cohort-table thead{display:none}"
	"#fleet,#fleet tbody,#cohort-table,#cohort-table tbody{display:block}#fleet tr,#cohort-table tr{"
	"display:flex;flex-wrap:wrap;align-items:baseline;gap:.15em .8em;padding:.5em .2em;"
	"border-bottom:1px solid #ddd}#fleet td,#cohort-table td{border:0;padding:0;white-space:normal;"
	"min-width:0;text-align:left;overflow-wrap:anywhere}#fleet td:first-child,"
	"#fleet td:nth-child(2),#fleet td:nth-child(9){white-space:normal;max-width:none}"
	"#fleet tr.group{border:0;padding:.9em 0 .1em}#fleet tr.group th{padding:0}"
	"#fleet td:first-child,td.c-upgrade{font-weight:600}#fleet td:first-child small{font-weight:400}"
	/* a break after the name, state and attention (the cohort): an empty item a line wide */
	"#fleet tr::after,#cohort-table tr::after{content:\"\";flex-basis:100%;order:1}"
	"#fleet td:nth-child(n+4),#cohort-table td:nth-child(n+4){order:2}td.c-chart{flex-basis:100%}"
	"#fleet td:nth-child(n+4)::before,#cohort-table td:nth-child(n+4)::before{color:#666;"
	"font-size:.85em;margin-right:.3em}#fleet td:nth-child(4)::before{content:\"Version\"}"
	"#fleet td:nth-child(5)::before{content:\"Busiest core\"}#fleet td:nth-child(6)::before{"
	"content:\"WG tx\"}#fleet td:nth-child(7)::before{content:\"WG rx\"}#fleet td:nth-child(8)"
	"::before{content:\"Headroom\"}#fleet td:nth-child(9)::before{content:\"Board\"}"
	"#fleet td:nth-child(10)::before{content:\"Architecture\"}#fleet td:nth-child(11)::before{"
	"content:\"Cores\"}#fleet td:nth-child(12)::before{content:\"Last poll\"}"
	"td.c-routers::before{content:\"Routers\"}td.c-regressed::before{content:\"Regressed\"}"
	"td.c-improved::before{content:\"Improved\"}td.c-tx::before{content:\"Median tx\"}"
	"td.c-rx::before{content:\"Median rx\"}td.c-rollout::before{content:\"Rollout\"}}"
	/* print: no controls, no links' colour, tables whole and charts unbroken */
	"@media print{body{margin:0;font-size:10pt;color:#000}form.filter,nav.range,nav.show,"
	"a.go{display:none}a{color:inherit}.wrap{overflow:visible}thead{display:table-header-group}"
	"tr,svg.chart,dl.facts{break-inside:avoid}section{break-inside:avoid-page}"
	"tbody tr:hover{background:none}}";

void page_css(buf_t *out)
{
	buf_puts(out, page_style);
}

static bool page_is_wg(const struct sample_iface *f)
{
	return f->type && strcmp(f->type, "wg") == 0;
}

static void page_summarise(const fleet_router_t *r, struct page_row *row)
{
	*row = (struct page_row){ .r = r, .busiest = NAN, .others = NAN, .tx_bps = NAN, .rx_bps = NAN };
	const sample_t *s = r->last;
	if (s == NULL)
		return;
	double sum = 0;
	for (size_t c = 0; c < s->ncores; c++) {
		sum += s->cores[c].load;
		if (isnan(row->busiest) || s->cores[c].load > row->busiest)
			row->busiest = s->cores[c].load, row->busiest_core = c;
	}
	if (s->ncores > 1)
		row->others = (sum - row->busiest) / (double)(s->ncores - 1);
	for (size_t i = 0; i < s->nifaces; i++) {
		if (!page_is_wg(&s->ifaces[i]) || isnan(r->tx_bps[i]))
			continue;
		row->tx_bps = (isnan(row->tx_bps) ? 0 : row->tx_bps) + r->tx_bps[i];
		row->rx_bps = (isnan(row->rx_bps) ? 0 : row->rx_bps) + r->rx_bps[i];
	}
}

/* What needs attention first (enum page_group); regressions the worst first; then the
 * hottest busiest core, then by name. */
static int page_cmp(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	double rx = fmin(x->reg_tx, x->reg_rx), ry = fmin(y->reg_tx, y->reg_rx);
	if (x->group == PAGE_G_REGRESSED && rx != ry && !isnan(rx) && !isnan(ry))
		return rx < ry ? -1 : 1;
	double bx = isnan(x->busiest) ? -1 : x->busiest, by = isnan(y->busiest) ? -1 : y->busiest;
	if (bx != by)
		return bx < by ? 1 : -1;
	return strcmp(x->r->conf->name, y->r->conf->name);
}

/* ?sort=headroom: the least known headroom first, the unknown last, then by name. */
static int page_cmp_headroom(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	double hx = x->cap ? x->cap->headroom : INFINITY, hy = y->cap ? y->cap->headroom : INFINITY;
	if (hx != hy)
		return hx < hy ? -1 : 1;
	return strcmp(x->r->conf->name, y->r->conf->name);
}

static bool page_by_headroom(const struct page_filter *f)
{
	return f != NULL && f->sort != NULL && strcmp(f->sort, "headroom") == 0;
}

void page_verdict_cells(buf_t *out, const struct detector_verdict *v)
{
	buf_printf(out,
		"<td class=\"v-dir\">%s</td><td class=\"v-verdict\"><span class=\"%s\">%s</span>%s</td>"
		"<td>%s</td><td class=\"n\">",
		v->direction, v->verdict == DETECTOR_REGRESSION ? "flag" : "", outcome_name(v->verdict),
		v->final ? "" : " <small>(provisional)</small>", outcome_method_name(v->method));
	page_chart_rate(out, v->before_bps);
	buf_puts(out, " &rarr; ");
	page_chart_rate(out, v->after_bps);
	buf_puts(out, "</td>");
}

void page_age(buf_t *out, int64_t ms)
{
	int64_t s = ms < 0 ? 0 : ms / 1000;
	if (s < 120)
		buf_printf(out, "%lld&nbsp;s", (long long)s);
	else if (s < 2 * 3600)
		buf_printf(out, "%lld&nbsp;min", (long long)(s / 60));
	else if (s < 2 * 86400)
		buf_printf(out, "%lld&nbsp;h", (long long)(s / 3600));
	else
		buf_printf(out, "%lld&nbsp;d", (long long)(s / 86400));
}

void page_ratio_change(buf_t *out, double ratio)
{
	long pct = lround((ratio - 1) * 100);
	if (isnan(ratio))
		buf_puts(out, "&ndash;");
	else
		buf_printf(out, "%s%ld&nbsp;%%", pct < 0 ? "&minus;" : "+", pct < 0 ? -pct : pct);
}

void page_elsewhere(buf_t *out, const struct evidimport_cohort *k)
{
	if (k == NULL)
		return;
	bool rx = k->rx.regressed > k->tx.regressed;
	const struct evidimport_dir *x = rx ? &k->rx : &k->tx;
	buf_printf(out,
		"<div class=\"elsewhere\" title=\"other fleets' evidence ([evidence] files); not in this "
		"fleet's figures\">elsewhere: %zu fleet%s, %zu router%s, %s median ",
		k->fleets, k->fleets == 1 ? "" : "s", x->routers, x->routers == 1 ? "" : "s",
		rx ? "rx" : "tx");
	if (isnan(x->median))
		buf_puts(out, "&ndash;");
	else
		buf_printf(out, x->median < PAGE_RATIO_BAD ? "<span class=\"hot\">%.2f</span>" : "%.2f",
			x->median);
	buf_printf(out, ", %zu of %zu regressed</div>", x->regressed, x->judged);
}

void page_time(buf_t *out, int64_t ms, const char *none)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char tmp[32];
	if (ms <= 0)
		buf_puts(out, none);
	else if (gmtime_r(&t, &tm) && strftime(tmp, sizeof(tmp), "%Y-%m-%d %H:%M:%SZ", &tm))
		buf_puts(out, tmp);
}

/* "upgraded 2026-01-05" (UTC), the time and the old version in the tooltip. */
static void page_change(buf_t *out, const struct history_change *c)
{
	time_t t = (time_t)(c->time_ms / 1000);
	struct tm tm;
	char day[16];
	if (c->time_ms <= 0 || gmtime_r(&t, &tm) == NULL || strftime(day, sizeof(day), "%Y-%m-%d", &tm) == 0)
		return;
	buf_printf(out, "<br><small class=\"since\" title=\"%s ", c->kind);
	text_put_html(out, c->old_version ? c->old_version : "?");
	buf_puts(out, " &rarr; ");
	text_put_html(out, c->new_version ? c->new_version : "?");
	buf_puts(out, " at ");
	page_time(out, c->time_ms, "");
	buf_printf(
		out, "\">%sd %s</small>", strcmp(c->kind, "downgrade") == 0 ? "downgrade" : "upgrade", day);
}

static void page_cell(buf_t *out, const char *s)
{
	buf_puts(out, "<td>");
	if (s)
		text_put_html(out, s);
	else
		buf_puts(out, "&ndash;");
	buf_puts(out, "</td>");
}

/* Down: its newest poll since the start failed. Pending (not polled since the start) is not. */
static bool page_down(const fleet_router_t *r)
{
	return r->polled && !r->up;
}

static void page_state(buf_t *out, const fleet_router_t *r, int64_t now_ms)
{
	if (r->up) {
		buf_puts(out, "<td class=\"up\">up</td>");
		return;
	}
	if (!r->polled && r->last == NULL) {
		buf_puts(out,
			"<td><span class=\"pending\">pending</span> <span class=\"note\">not polled yet</span></td>");
		return;
	}
	if (!r->polled) {
		buf_puts(out,
			"<td><span class=\"pending\">pending</span> <span class=\"note\">not polled since the "
			"start</span><br><small class=\"seen\">last seen ");
		page_age(out, now_ms - r->last->time_ms);
		buf_puts(out, " ago</small></td>");
		return;
	}
	buf_printf(out, "<td><span class=\"down\">down</span> <span class=\"why\">%s: ",
		sample_err_name(r->last_err));
	text_put_html(out, r->last_error);
	buf_puts(out, "</span>");
	if (r->last) {
		buf_puts(out, "<br><small class=\"seen\">last seen ");
		page_age(out, now_ms - r->last->time_ms);
		buf_puts(out, " ago</small>");
	}
	buf_puts(out, "</td>");
}

/* "tx -66 % after 7.22.3": the regression badge, the worst ratio of each direction. */
static void page_regression_badge(buf_t *out, const struct page_row *row)
{
	buf_puts(out,
		"<span class=\"flag regression\" title=\"the upgrade detector judged the newest "
		"version change a regression: WireGuard capacity after / before\">");
	if (!isnan(row->reg_tx)) {
		buf_puts(out, "tx ");
		page_ratio_change(out, row->reg_tx);
	}
	if (!isnan(row->reg_rx)) {
		buf_puts(out, isnan(row->reg_tx) ? "rx " : ", rx ");
		page_ratio_change(out, row->reg_rx);
	}
	buf_puts(out, " after ");
	text_put_html(out, row->reg_to ? row->reg_to : "?");
	buf_puts(out, "</span>");
}

/* What needs attention in this row: a regression, a single-core bound. */
static void page_attention(buf_t *out, const struct page_row *row)
{
	buf_puts(out, "<td class=\"att\">");
	if (row->regressed)
		page_regression_badge(out, row);
	if (row->bound)
		buf_printf(out,
			"%s<span class=\"flag bound\" title=\"one core saturated while the others idle\">"
			"single-core bound</span>",
			row->regressed ? "<br>" : "");
	buf_puts(out, "</td>");
}

/* Busiest core and the mean of the others: one pinned core is the WireGuard ceiling. */
static void page_cores(buf_t *out, const struct page_row *row)
{
	if (isnan(row->busiest)) {
		buf_puts(out, "<td class=\"n cores\">&ndash;</td>");
		return;
	}
	buf_printf(out,
		"<td class=\"n cores%s\"><span class=\"%s\">%.0f%%</span> core %zu, others "
		"%.0f%%</td>",
		row->r->up ? "" : " stale", row->busiest >= 0.9 ? "hot" : "", row->busiest * 100,
		row->busiest_core, isnan(row->others) ? 0 : row->others * 100);
}

/* The hottest core now, as the fleet page sees it (the detector looks at 10 minutes). */
static bool page_pinned(const struct page_row *row)
{
	return row->busiest >= 0.95 && !isnan(row->others) && row->others < 0.5;
}

static void page_row(buf_t *out, const struct page_row *row, int64_t now_ms)
{
	const fleet_router_t *r = row->r;
	const sample_t *s = r->last;
	buf_puts(out, "<tr><td>");
	text_put_html(out, r->conf->name);
	for (size_t k = 0; k < r->conf->nlabels; k++) {
		buf_puts(out, k ? ", " : "<br><small>");
		text_put_html(out, r->conf->labels[k].key);
		buf_putc(out, '=');
		text_put_html(out, r->conf->labels[k].value);
	}
	buf_puts(out, r->conf->nlabels ? "</small></td>" : "</td>");
	page_state(out, r, now_ms);
	page_attention(out, row);
	buf_puts(out, "<td>");
	if (s && s->version)
		text_put_html(out, s->version);
	else
		buf_puts(out, "&ndash;");
	if (row->change)
		page_change(out, row->change);
	buf_puts(out, "</td>");
	page_cores(out, row);
	const char *n = r->up ? "<td class=\"n\">" : "<td class=\"n stale\">";
	buf_puts(out, n);
	page_chart_rate(out, row->tx_bps);
	buf_puts(out, "</td>");
	buf_puts(out, n);
	page_chart_rate(out, row->rx_bps);
	buf_puts(out, "</td>");
	page_capacity_cell(out, row->cap);
	page_cell(out, s ? s->board : NULL);
	page_cell(out, s ? s->architecture : NULL);
	if (s && s->ncores)
		buf_printf(out, "<td class=\"n\">%zu</td>", s->ncores);
	else
		buf_puts(out, "<td class=\"n\">&ndash;</td>");
	buf_puts(out, "<td class=\"t\">");
	page_time(out, r->last_poll_ms, "never");
	buf_puts(out, "</td><td><a class=\"go\" href=\"/router/");
	text_put_url(out, r->conf->name);
	buf_puts(out, "\" title=\"the router page\">&rsaquo;</a></td></tr>\n");
}

/* ---- filters ---- */

static bool page_set(const char *s)
{
	return s != NULL && *s != '\0';
}

static bool page_has_label(const conf_router_t *cr, const char *kv)
{
	for (size_t k = 0; k < cr->nlabels; k++) {
		size_t kl = strlen(cr->labels[k].key);
		if (strncmp(kv, cr->labels[k].key, kl) == 0 && kv[kl] == '=' &&
			strcmp(kv + kl + 1, cr->labels[k].value) == 0)
			return true;
	}
	return false;
}

static bool page_search_hit(const fleet_router_t *r, const char *q)
{
	const sample_t *s = r->last;
	const char *fields[] = { r->conf->name, s ? s->board : NULL, s ? s->version : NULL,
		s ? s->architecture : NULL };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i] && strcasestr(fields[i], q))
			return true;
	for (size_t k = 0; k < r->conf->nlabels; k++)
		if (strcasestr(r->conf->labels[k].key, q) || strcasestr(r->conf->labels[k].value, q))
			return true;
	return false;
}

static bool page_match(const fleet_router_t *r, const struct page_filter *f)
{
	const sample_t *s = r->last;
	if (f == NULL)
		return true;
	if (page_set(f->label) && !page_has_label(r->conf, f->label))
		return false;
	if (page_set(f->board) && (s == NULL || s->board == NULL || strcmp(s->board, f->board) != 0))
		return false;
	if (page_set(f->version) && (s == NULL || s->version == NULL || strcmp(s->version, f->version) != 0))
		return false;
	return !page_set(f->q) || page_search_hit(r, f->q);
}

/* show=regressed|bound|down keeps the rows that need that attention (a row is in one group,
 * but a regressed router may be bound or down too). */
static bool page_match_row(const struct page_row *row, const struct page_filter *f)
{
	if (!page_match(row->r, f))
		return false;
	if (f == NULL || !page_set(f->show))
		return true;
	if (strcmp(f->show, "regressed") == 0)
		return row->regressed;
	if (strcmp(f->show, "bound") == 0)
		return row->bound;
	if (strcmp(f->show, "down") == 0)
		return page_down(row->r);
	return true;
}

/* A sorted set of distinct strings (the options of a filter menu). */
struct page_set {
	char **v;
	size_t n;
};

static void page_set_add(struct page_set *set, const char *s)
{
	if (s == NULL || *s == '\0')
		return;
	for (size_t i = 0; i < set->n; i++)
		if (strcmp(set->v[i], s) == 0)
			return;
	set->v = xreallocarray(set->v, set->n + 1, sizeof(*set->v));
	set->v[set->n++] = xstrdup(s);
}

static int page_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void page_set_free(struct page_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
}

static void page_select(buf_t *out, const char *name, const char *all, struct page_set *set, const char *cur)
{
	if (set->n > 1)
		qsort(set->v, set->n, sizeof(*set->v), page_strcmp);
	buf_printf(
		out, "<select name=\"%s\" aria-label=\"%s\"><option value=\"\">%s</option>", name, name, all);
	for (size_t i = 0; i < set->n; i++) {
		buf_puts(out, "<option value=\"");
		text_put_html(out, set->v[i]);
		buf_puts(out, page_set(cur) && strcmp(cur, set->v[i]) == 0 ? "\" selected>" : "\">");
		text_put_html(out, set->v[i]);
		buf_puts(out, "</option>");
	}
	buf_puts(out, "</select>");
	page_set_free(set);
}

/* The GET form: a search box and a menu each for label, board and version. */
static void page_filter_form(buf_t *out, const struct page_row *rows, size_t n, const struct page_filter *f)
{
	struct page_set labels = { 0 }, boards = { 0 }, versions = { 0 };
	for (size_t i = 0; i < n; i++) {
		const fleet_router_t *r = rows[i].r;
		for (size_t k = 0; k < r->conf->nlabels; k++) {
			char *kv = xasprintf("%s=%s", r->conf->labels[k].key, r->conf->labels[k].value);
			page_set_add(&labels, kv);
			free(kv);
		}
		page_set_add(&boards, r->last ? r->last->board : NULL);
		page_set_add(&versions, r->last ? r->last->version : NULL);
	}
	buf_puts(out,
		"<form class=\"filter\" method=\"get\" action=\"/\" role=\"search\">"
		"<input type=\"search\" name=\"q\" placeholder=\"search name, label, board, version\" "
		"aria-label=\"search\" value=\"");
	text_put_html(out, f ? f->q : NULL);
	buf_puts(out, "\">");
	page_select(out, "label", "any label", &labels, f ? f->label : NULL);
	page_select(out, "board", "any board", &boards, f ? f->board : NULL);
	page_select(out, "version", "any version", &versions, f ? f->version : NULL);
	buf_puts(out, "<select name=\"show\" aria-label=\"show\"><option value=\"\">every router</option>");
	for (int g = 0; g < PAGE_G_REST; g++)
		buf_printf(out, "<option value=\"%s\"%s>%s</option>", page_group_names[g],
			f && page_set(f->show) && strcmp(f->show, page_group_names[g]) == 0 ? " selected"
											    : "",
			page_group_names[g]);
	buf_puts(out, "</select><button type=\"submit\">Filter</button> <a href=\"/\">clear</a></form>\n");
}

void page_open(buf_t *out, const char *title, unsigned refresh_s)
{
	buf_printf(out,
		"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<meta http-equiv=\"refresh\" content=\"%u\"><title>wgwatch: ",
		refresh_s);
	text_put_html(out, title);
	buf_puts(out, "</title><link rel=\"stylesheet\" href=\"/static/wgwatch.css\"></head><body>\n");
}

static void page_head(buf_t *out, size_t n, size_t up, size_t shown)
{
	page_open(out, "fleet", PAGE_REFRESH_FLEET_S);
	buf_puts(out, "<h1>wgwatch</h1>\n");
	buf_printf(out, "<p class=\"sum\">%zu routers: %zu up, %zu down", n, up, n - up);
	if (shown != n)
		buf_printf(out, "; <b>%zu shown</b> by the filter", shown);
	buf_puts(out,
		". WireGuard tx is the encrypt direction (router &rarr; tunnel), rx the decrypt "
		"direction. <a href=\"/upgrades\">Upgrades</a> &middot; <a href=\"/metrics\">/metrics</a>"
		" &middot; <a href=\"/api/v1/routers\">API</a>"
		"</p>\n");
}

/* "Needs attention: 1 regressed, 2 bound, 3 down": links that filter the page (show=). */
static void page_show_nav(buf_t *out, const size_t count[PAGE_G_N], const struct page_filter *f)
{
	static const char *const what[PAGE_G_REST] = { "with a regression", "single-core bound", "down" };
	const char *cur = f && page_set(f->show) ? f->show : "";
	buf_puts(out, "<nav class=\"show\" id=\"attention\">Needs attention: ");
	for (int g = 0; g < PAGE_G_REST; g++) {
		if (strcmp(cur, page_group_names[g]) == 0)
			buf_printf(out, "<b>%zu %s</b>", count[g], what[g]);
		else
			buf_printf(out, "<a href=\"/?show=%s\">%zu %s</a>", page_group_names[g], count[g],
				what[g]);
	}
	buf_puts(out, page_set(cur) ? "<a href=\"/\">every router</a></nav>\n" : "</nav>\n");
}

static void page_table_head(buf_t *out)
{
	buf_puts(out,
		"<div class=\"wrap\"><table id=\"fleet\"><thead><tr><th>Router</th><th>State</th>"
		"<th>Attention</th><th>Version</th><th>Busiest core</th><th>WG tx</th><th>WG rx</th>"
		"<th><a href=\"/?sort=headroom\" title=\"least first\">Headroom</a></th><th>Board</th><th>Architecture</th><th>Cores</th><th>Last poll (UTC)</th><th></th>"
		"</tr></thead><tbody>\n");
}

/* The detector's marks: regressions on the newest version change (worst ratio per
 * direction), single-core bound; then the row's group. dv may be NULL. */
static void page_marks(const detector_view_t *dv, struct page_row *row)
{
	size_t n = 0;
	const char *name = row->r->conf->name;
	const struct detector_verdict *v = dv ? detector_view_router(dv, name, &n) : NULL;
	row->reg_tx = row->reg_rx = NAN;
	for (size_t i = 0; v && i < n; i++) {
		if (!v[i].latest || v[i].verdict != DETECTOR_REGRESSION)
			continue;
		double *r = v[i].direction[0] == 't' ? &row->reg_tx : &row->reg_rx;
		if (isnan(*r) || v[i].ratio < *r)
			*r = v[i].ratio;
		row->regressed = true;
		row->reg_to = v[i].to_version;
	}
	const struct detector_bound *b = dv ? detector_view_bound(dv, name) : NULL;
	row->cap = dv ? page_capacity_least(dv, name) : NULL;
	row->bound = row->r->up && ((b && b->bound) || page_pinned(row));
	row->group = row->regressed ? PAGE_G_REGRESSED
		: row->bound        ? PAGE_G_BOUND
		: page_down(row->r) ? PAGE_G_DOWN
				    : PAGE_G_REST;
}

/* Every router's newest version change, in one query; none (logged) when unreadable. */
static struct history_change *page_changes(const char *database, size_t *n)
{
	struct history_change *c = NULL;
	char *cause = NULL;
	*n = 0;
	if (database && history_last_changes(database, &c, n, &cause) < 0) {
		log_warn("web: fleet page: %s", cause);
		free(cause);
	}
	return c;
}

/* The rows, a group's heading row before each group that needs attention. */
static size_t page_rows(
	buf_t *out, const struct page_row *rows, size_t n, const struct page_filter *f, int64_t now_ms)
{
	static const char *const head[PAGE_G_N] = { "Regressed after an upgrade", "Single-core bound", "Down",
		"Every other router" };
	size_t shown = 0;
	int last = -1;
	for (size_t i = 0; i < n; i++) {
		if (!page_match_row(&rows[i], f))
			continue;
		if (!page_by_headroom(f) && rows[i].group != last &&
			(rows[i].group != PAGE_G_REST || last >= 0))
			buf_printf(out, "<tr class=\"group\"><th colspan=\"13\">%s</th></tr>\n",
				head[rows[i].group]);
		last = rows[i].group;
		page_row(out, &rows[i], now_ms);
		shown++;
	}
	if (shown == 0)
		buf_puts(out, "<tr><td colspan=\"13\" class=\"empty\">no router matches</td></tr>\n");
	return shown;
}

void page_fleet_render(const struct page_fleet_req *req, buf_t *out)
{
	const struct page_filter *filter = req->filter;
	fleet_view_t *v = fleet_view(req->fleet);
	detector_view_t *dv = detector_view(req->detector);
	size_t n = fleet_view_size(v), up = 0, shown = 0, nch, count[PAGE_G_N] = { 0 };
	struct history_change *ch = page_changes(req->database, &nch);
	struct page_row *rows = xcalloc(n, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		page_summarise(fleet_view_at(v, i), &rows[i]);
		page_marks(dv, &rows[i]);
		rows[i].change = history_change_find(ch, nch, rows[i].r->conf->name);
		up += rows[i].r->up;
		shown += page_match_row(&rows[i], filter);
		count[PAGE_G_REGRESSED] += rows[i].regressed;
		count[PAGE_G_BOUND] += rows[i].bound;
		count[PAGE_G_DOWN] += page_down(rows[i].r);
	}
	qsort(rows, n, sizeof(*rows), page_by_headroom(filter) ? page_cmp_headroom : page_cmp);
	page_head(out, n, up, shown);
	page_show_nav(out, count, filter);
	page_filter_form(out, rows, n, filter);
	page_table_head(out);
	page_rows(out, rows, n, filter, req->now_ms > 0 ? req->now_ms : clock_wall_ms());
	buf_puts(out, "</tbody></table></div>\n");
	if (dv)
		page_capacity_table(out, dv);
	buf_puts(out, "</body></html>\n");
	fleet_view_free(v);
	if (dv)
		detector_view_free(dv);
	free(rows);
	history_changes_free(ch, nch);
}

void page_fleet_filtered(fleet_t *fleet, const struct page_filter *filter, buf_t *out)
{
	page_fleet_render(&(struct page_fleet_req){ .fleet = fleet, .filter = filter }, out);
}

void page_fleet(fleet_t *fleet, buf_t *out)
{
	page_fleet_filtered(fleet, NULL, out);
}
