/* page: the fleet page. Rows are summarised from a fleet view, sorted (down first, then the
 * busiest core) and rendered as escaped HTML. */
#include "config.h"
#include "page.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics.h"
#include "xmem.h"

struct page_row {
	const fleet_router_t *r;
	double busiest;          /* 0..1, NAN when unknown */
	size_t busiest_core;
	double others;           /* mean load of the other cores */
	double tx_bps, rx_bps;   /* WireGuard interfaces together, NAN until two polls */
};

static const char page_style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.4em;margin:0 0 .3em}p.sum{color:#555;margin:0 0 1em}"
	"table{border-collapse:collapse;width:100%}th,td{padding:.3em .6em;text-align:left;"
	"border-bottom:1px solid #ddd;vertical-align:top}th{background:#f4f4f4}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums}"
	".down{color:#b00020;font-weight:600}.up{color:#1b7f3b}.why{color:#b00020;font-size:.9em}"
	".hot{color:#b00020;font-weight:600}.flag{background:#fde7e9;color:#b00020;border-radius:3px;"
	"padding:0 .3em;font-size:.85em}";

void page_css(buf_t *out) { buf_puts(out, page_style); }

void page_escape(buf_t *out, const char *s)
{
	if (s == NULL)
		return;
	buf_t clean;
	buf_init(&clean);
	metrics_put_utf8(&clean, s);
	for (size_t i = 0; i < clean.len; i++) {
		char c = clean.data[i];
		switch (c) {
		case '&': buf_puts(out, "&amp;"); break;
		case '<': buf_puts(out, "&lt;"); break;
		case '>': buf_puts(out, "&gt;"); break;
		case '"': buf_puts(out, "&quot;"); break;
		case '\'': buf_puts(out, "&#39;"); break;
		default: buf_putc(out, c);
		}
	}
	buf_free(&clean);
}

static bool page_is_wg(const struct sample_iface *f) { return f->type && strcmp(f->type, "wg") == 0; }

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

static void page_rate(buf_t *out, double bps)
{
	if (isnan(bps))
		buf_puts(out, "&ndash;");
	else if (bps >= 1e9)
		buf_printf(out, "%.2f Gbit/s", bps / 1e9);
	else
		buf_printf(out, "%.1f Mbit/s", bps / 1e6);
}

static void page_age(buf_t *out, int64_t when_ms)
{
	if (when_ms <= 0) {
		buf_puts(out, "never");
		return;
	}
	time_t t = (time_t)(when_ms / 1000);
	struct tm tm;
	char tmp[32];
	if (gmtime_r(&t, &tm) && strftime(tmp, sizeof(tmp), "%Y-%m-%d %H:%M:%SZ", &tm))
		buf_puts(out, tmp);
}

static void page_cell(buf_t *out, const char *s)
{
	buf_puts(out, "<td>");
	if (s)
		page_escape(out, s);
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
		page_escape(out, r->last_error);
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
		buf_puts(out, "<td class=\"n\">&ndash;</td>");
		return;
	}
	bool pinned = row->busiest >= 0.95 && !isnan(row->others) && row->others < 0.5;
	buf_printf(out, "<td class=\"n\"><span class=\"%s\">%.0f%%</span> core %zu, others %.0f%%%s</td>",
		   row->busiest >= 0.9 ? "hot" : "", row->busiest * 100, row->busiest_core,
		   isnan(row->others) ? 0 : row->others * 100,
		   pinned ? " <span class=\"flag\" title=\"one core saturated while the others idle\">"
			    "single-core bound</span>" : "");
}

static void page_row(buf_t *out, const struct page_row *row)
{
	const fleet_router_t *r = row->r;
	const sample_t *s = r->last;
	buf_puts(out, "<tr><td>");
	page_escape(out, r->conf->name);
	for (size_t k = 0; k < r->conf->nlabels; k++) {
		buf_puts(out, k ? ", " : "<br><small>");
		page_escape(out, r->conf->labels[k].key);
		buf_putc(out, '=');
		page_escape(out, r->conf->labels[k].value);
	}
	buf_puts(out, r->conf->nlabels ? "</small></td>" : "</td>");
	page_state(out, r);
	page_cell(out, s ? s->board : NULL);
	page_cell(out, s ? s->architecture : NULL);
	page_cell(out, s ? s->version : NULL);
	buf_printf(out, "<td class=\"n\">%zu</td>", s ? s->ncores : 0);
	page_cores(out, row);
	buf_puts(out, "<td class=\"n\">");
	page_rate(out, row->tx_bps);
	buf_puts(out, "</td><td class=\"n\">");
	page_rate(out, row->rx_bps);
	buf_puts(out, "</td><td>");
	page_age(out, r->last_poll_ms);
	buf_puts(out, "</td></tr>\n");
}

static void page_head(buf_t *out, size_t n, size_t up)
{
	buf_puts(out, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		 "<meta name=\"viewport\" content=\"width=device-width\">"
		 "<meta http-equiv=\"refresh\" content=\"30\">"
		 "<title>wgwatch: fleet</title><link rel=\"stylesheet\" href=\"/static/wgwatch.css\">"
		 "</head><body>\n<h1>wgwatch</h1>\n");
	buf_printf(out, "<p class=\"sum\">%zu routers: %zu up, %zu down. WireGuard tx is the encrypt "
		   "direction (router &rarr; tunnel), rx the decrypt direction. "
		   "<a href=\"/metrics\">/metrics</a> &middot; <a href=\"/api/v1/routers\">API</a></p>\n",
		   n, up, n - up);
	buf_puts(out, "<table id=\"fleet\"><thead><tr><th>Router</th><th>State</th><th>Board</th>"
		 "<th>Architecture</th><th>Version</th><th>Cores</th><th>Busiest core</th>"
		 "<th>WG tx</th><th>WG rx</th><th>Last poll (UTC)</th></tr></thead><tbody>\n");
}

void page_fleet(fleet_t *fleet, buf_t *out)
{
	fleet_view_t *v = fleet_view(fleet);
	size_t n = fleet_view_size(v), up = 0;
	struct page_row *rows = xcalloc(n, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		page_summarise(fleet_view_at(v, i), &rows[i]);
		up += rows[i].r->up;
	}
	qsort(rows, n, sizeof(*rows), page_cmp);
	page_head(out, n, up);
	for (size_t i = 0; i < n; i++)
		page_row(out, &rows[i]);
	fleet_view_free(v);
	buf_puts(out, "</tbody></table>\n</body></html>\n");
	free(rows);
}
