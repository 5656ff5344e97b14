/* page: the fleet page. Rows are summarised from a fleet view, sorted (down first, then the
 * busiest core) and rendered as escaped HTML. */
#include "config.h"
#include "web/page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detector/detector.h"
#include "store/history.h"
#include "lib/text.h"
#include "lib/log.h"
#include "web/metrics.h"
#include "web/page_chart.h"
#include "lib/xmem.h"

struct page_row {
	const fleet_router_t *r;
	double busiest; /* 0..1, NAN when unknown */
	size_t busiest_core;
	double others;                       /* mean load of the other cores */
	double tx_bps, rx_bps;               /* WireGuard interfaces together, NAN until two polls */
	bool regressed;                      /* the detector judged the newest version change a regression */
	const struct history_change *change; /* the newest upgrade or downgrade; NULL: none */
};

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.4em;margin:0 0 .3em}p.sum{color:#555;margin:0 0 1em}"
	"table{border-collapse:collapse;width:100%}th,td{padding:.3em .6em;text-align:left;"
	"border-bottom:1px solid #ddd;vertical-align:top}th{background:#f4f4f4}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}td.n,td.t,th{white-space:nowrap}"
	"td.cores{white-space:normal;min-width:10em}td.cores .flag{white-space:nowrap}"
	"#fleet td:first-child,#fleet td:nth-child(3),#fleet td:nth-child(5){white-space:nowrap}"
	"#fleet td:nth-child(2){max-width:22em}#fleet td:first-child small{white-space:normal}"
	"small.since{color:#666}"
	".down{color:#b00020;font-weight:600}.up{color:#1b7f3b}.why{color:#b00020;font-size:.9em}"
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
	"svg .rx{stroke:#ff7f0e;fill:#ff7f0e}"
	"svg .mk line{stroke:#6a3d9a;stroke-width:1.5;stroke-dasharray:4 3}svg .mk text{fill:#6a3d9a}"
	"svg .mk.reboot line{stroke:#888}svg .mk.reboot text{fill:#888}"
	"svg .mk.firmware line{stroke:#2ca02c}svg .mk.firmware text{fill:#2ca02c}"
	"svg .win-before{fill:#1f77b4;fill-opacity:.06}svg .win-after{fill:#d62728;fill-opacity:.06}"
	"svg circle.pt{fill-opacity:.75;stroke:#fff;stroke-width:.5}"
	".legend{font-size:.9em;color:#444;margin:.2em 0}.key{display:inline-block;width:.9em;"
	"height:.9em;vertical-align:-.1em;margin:0 .3em 0 .8em;border-radius:2px}"
	".key.tx{background:#1f77b4}.key.rx{background:#ff7f0e}.key.mk{background:#6a3d9a}"
	".key.reboot{background:#888}.key.k0{background:#eef3f8}.key.k5{background:#f2c14e}"
	".key.k10{background:#b00020}"
	".c0{background:#1f77b4}.c1{background:#d62728}.c2{background:#2ca02c}.c3{background:#9467bd}"
	".c4{background:#ff7f0e}.c5{background:#17becf}.c6{background:#8c564b}.c7{background:#e377c2}";

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

/* Worst first: down routers, then the hottest busiest core, then by name. */
static int page_cmp(const void *a, const void *b)
{
	const struct page_row *x = a, *y = b;
	if (x->r->up != y->r->up)
		return x->r->up ? 1 : -1;
	double bx = isnan(x->busiest) ? -1 : x->busiest, by = isnan(y->busiest) ? -1 : y->busiest;
	if (bx != by)
		return bx < by ? 1 : -1;
	return strcmp(x->r->conf->name, y->r->conf->name);
}

void page_verdict_cells(buf_t *out, const struct detector_verdict *v)
{
	buf_printf(out,
		"<td class=\"v-dir\">%s</td><td class=\"v-verdict\"><span class=\"%s\">%s</span>%s</td>"
		"<td>%s</td><td class=\"n\">",
		v->direction, v->verdict == DETECTOR_REGRESSION ? "flag" : "",
		detector_verdict_name(v->verdict), v->final ? "" : " <small>(provisional)</small>",
		detector_method_name(v->method));
	page_chart_rate(out, v->before_bps);
	buf_puts(out, " &rarr; ");
	page_chart_rate(out, v->after_bps);
	buf_puts(out, "</td>");
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

static void page_state(buf_t *out, const fleet_router_t *r)
{
	if (r->up) {
		buf_puts(out, "<td class=\"up\">up</td>");
		return;
	}
	buf_puts(out, "<td><span class=\"down\">down</span>");
	if (r->polled) {
		buf_printf(out, " <span class=\"why\">%s: ", sample_err_name(r->last_err));
		text_put_html(out, r->last_error);
		buf_puts(out, "</span>");
	} else {
		buf_puts(out, " <span class=\"why\">not polled yet</span>");
	}
	buf_puts(out, "</td>");
}

/* Busiest core and the mean of the others: one pinned core is the WireGuard ceiling. */
static void page_cores(buf_t *out, const struct page_row *row)
{
	if (isnan(row->busiest)) {
		buf_puts(out, "<td class=\"n cores\">&ndash;</td>");
		return;
	}
	bool pinned = row->busiest >= 0.95 && !isnan(row->others) && row->others < 0.5;
	buf_printf(out,
		"<td class=\"n cores\"><span class=\"%s\">%.0f%%</span> core %zu, others "
		"%.0f%%%s</td>",
		row->busiest >= 0.9 ? "hot" : "", row->busiest * 100, row->busiest_core,
		isnan(row->others) ? 0 : row->others * 100,
		pinned ? " <span class=\"flag\" title=\"one core saturated while the others idle\">"
			 "single-core bound</span>"
		       : "");
}

static void page_row(buf_t *out, const struct page_row *row)
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
	page_state(out, r);
	page_cell(out, s ? s->board : NULL);
	page_cell(out, s ? s->architecture : NULL);
	buf_puts(out, "<td>");
	if (s && s->version)
		text_put_html(out, s->version);
	else
		buf_puts(out, "&ndash;");
	if (row->regressed)
		buf_puts(out,
			" <span class=\"flag regression\" title=\"the upgrade detector judged the "
			"newest version change a regression\">regression</span>");
	if (row->change)
		page_change(out, row->change);
	buf_puts(out, "</td>");
	if (s && s->ncores)
		buf_printf(out, "<td class=\"n\">%zu</td>", s->ncores);
	else
		buf_puts(out, "<td class=\"n\">&ndash;</td>");
	page_cores(out, row);
	buf_puts(out, "<td class=\"n\">");
	page_chart_rate(out, row->tx_bps);
	buf_puts(out, "</td><td class=\"n\">");
	page_chart_rate(out, row->rx_bps);
	buf_puts(out, "</td><td class=\"t\">");
	page_time(out, r->last_poll_ms, "never");
	buf_puts(out, "</td><td><a class=\"go\" href=\"/router/");
	text_put_url(out, r->conf->name);
	buf_puts(out, "\">details&nbsp;&rsaquo;</a></td></tr>\n");
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
	buf_puts(out, "<button type=\"submit\">Filter</button> <a href=\"/\">clear</a></form>\n");
}

static void page_head(buf_t *out, size_t n, size_t up, size_t shown)
{
	buf_puts(out,
		"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<meta http-equiv=\"refresh\" content=\"30\">"
		"<title>wgwatch: fleet</title><link rel=\"stylesheet\" href=\"/static/wgwatch.css\">"
		"</head><body>\n<h1>wgwatch</h1>\n");
	buf_printf(out, "<p class=\"sum\">%zu routers: %zu up, %zu down", n, up, n - up);
	if (shown != n)
		buf_printf(out, "; <b>%zu shown</b> by the filter", shown);
	buf_puts(out,
		". WireGuard tx is the encrypt direction (router &rarr; tunnel), rx the decrypt "
		"direction. <a href=\"/upgrades\">Upgrades</a> &middot; <a href=\"/metrics\">/metrics</a>"
		" &middot; <a href=\"/api/v1/routers\">API</a>"
		"</p>\n");
}

static void page_table_head(buf_t *out)
{
	buf_puts(out,
		"<table id=\"fleet\"><thead><tr><th>Router</th><th>State</th><th>Board</th>"
		"<th>Architecture</th><th>Version</th><th>Cores</th><th>Busiest core</th>"
		"<th>WG tx</th><th>WG rx</th><th>Last poll (UTC)</th><th></th></tr></thead><tbody>\n");
}

/* A regression verdict on the router's newest version change (dv may be NULL). */
static bool page_regressed(const detector_view_t *dv, const char *name)
{
	size_t n = 0;
	const struct detector_verdict *v = dv ? detector_view_router(dv, name, &n) : NULL;
	for (size_t i = 0; v && i < n; i++)
		if (v[i].latest && v[i].verdict == DETECTOR_REGRESSION)
			return true;
	return false;
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

void page_fleet_render(const struct page_fleet_req *req, buf_t *out)
{
	const struct page_filter *filter = req->filter;
	fleet_view_t *v = fleet_view(req->fleet);
	detector_view_t *dv = detector_view(req->detector);
	size_t n = fleet_view_size(v), up = 0, shown = 0, nch;
	struct history_change *ch = page_changes(req->database, &nch);
	struct page_row *rows = xcalloc(n, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		page_summarise(fleet_view_at(v, i), &rows[i]);
		rows[i].regressed = page_regressed(dv, rows[i].r->conf->name);
		rows[i].change = history_change_find(ch, nch, rows[i].r->conf->name);
		up += rows[i].r->up;
		shown += page_match(rows[i].r, filter);
	}
	qsort(rows, n, sizeof(*rows), page_cmp);
	page_head(out, n, up, shown);
	page_filter_form(out, rows, n, filter);
	page_table_head(out);
	for (size_t i = 0; i < n; i++)
		if (page_match(rows[i].r, filter))
			page_row(out, &rows[i]);
	if (shown == 0)
		buf_puts(out, "<tr><td colspan=\"11\" class=\"empty\">no router matches</td></tr>\n");
	fleet_view_free(v);
	if (dv)
		detector_view_free(dv);
	buf_puts(out, "</tbody></table>\n</body></html>\n");
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
