/* SPDX-License-Identifier: Apache-2.0 */
/* page_health: the health section of the router page and the peer detail cells, rendered from
 * the history the page already loaded. Sensor names, endpoints and addresses come from routers:
 * every one is escaped for HTML text; nothing here reads the fleet or the database itself. */
#include "config.h"
#include "web/page_health.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text.h"
#include "lib/xmem.h"
#include "web/page.h"
#include "web/page_chart.h"

/* The unit of a stored sensor as shown, and the printf format of its value. */
static const char *page_health_unit(const char *unit)
{
	static const struct {
		const char *unit, *shown;
	} map[] = {
		{ "celsius", "&nbsp;&deg;C" },
		{ "volts", "&nbsp;V" },
		{ "amperes", "&nbsp;A" },
		{ "watts", "&nbsp;W" },
		{ "rpm", "&nbsp;rpm" },
	};
	for (size_t i = 0; unit != NULL && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(unit, map[i].unit) == 0)
			return map[i].shown;
	return "";
}

static bool page_health_is_state(const struct history_sensor *x)
{
	return x->unit != NULL && strcmp(x->unit, "state") == 0;
}

static void page_health_value(buf_t *out, const struct history_sensor *x, double v)
{
	if (isnan(v))
		buf_puts(out, "&ndash;");
	else if (page_health_is_state(x))
		buf_puts(out, v >= 1 ? "ok" : "<span class=\"hot\">not ok</span>");
	else
		buf_printf(out, "%.10g%s", v, page_health_unit(x->unit));
}

static void page_health_row(buf_t *out, const struct history_sensor *x)
{
	buf_puts(out, "<tr><td>");
	text_put_html(out, x->name);
	buf_puts(out, "</td><td class=\"n\">");
	page_health_value(out, x, x->value);
	buf_puts(out, "</td><td class=\"n\">");
	if (page_health_is_state(x)) {
		page_health_value(out, x, x->min); /* the worst state of the range */
	} else if (!isnan(x->min)) {
		page_health_value(out, x, x->min);
		if (x->max != x->min) {
			buf_puts(out, " &ndash; ");
			page_health_value(out, x, x->max);
		}
	} else {
		buf_puts(out, "&ndash;");
	}
	buf_puts(out, "</td></tr>\n");
}

static bool page_health_has_points(const history_t *h, const struct history_sensor *x)
{
	for (size_t b = 0; x->v != NULL && b < h->nbuckets; b++)
		if (!isnan(x->v[b]))
			return true;
	return false;
}

/* A copy of a sensor's means for its chart: buckets narrower than the reading period (health
 * is read once a minute) fall between readings; they hold the reading before them, as the
 * sensor read then, across gaps of up to two minutes (a longer one is an outage: left out). */
static double *page_health_held(const history_t *h, const double *v)
{
	double *w = xcalloc(h->nbuckets + 1, sizeof(*w));
	size_t hold = h->bucket_ms > 0 ? (size_t)((120000 + h->bucket_ms - 1) / h->bucket_ms) : 0, gap = 0;
	for (size_t b = 0; b < h->nbuckets; b++) {
		w[b] = v[b];
		gap = isnan(v[b]) ? gap + 1 : 0;
		if (isnan(v[b]) && b > 0 && !isnan(w[b - 1]) && gap <= hold)
			w[b] = w[b - 1];
	}
	for (size_t b = h->nbuckets; b-- > 0 && isnan(v[b]);) /* none past the newest reading */
		w[b] = NAN;
	return w;
}

/* One chart of the sensors of a unit over the page's range, with its legend; none when no
 * sensor of the unit has a reading in the range. */
static void page_health_chart(
	buf_t *out, const history_t *h, const char *unit, const char *shown, const char *title)
{
	struct page_line *lines = xcalloc(h->nsensors + 1, sizeof(*lines));
	size_t n = 0;
	for (size_t i = 0; i < h->nsensors; i++)
		if (h->sensors[i].unit != NULL && strcmp(h->sensors[i].unit, unit) == 0 &&
			page_health_has_points(h, &h->sensors[i]))
			lines[n++] = (struct page_line){ .cls = "g",
				.label = h->sensors[i].name,
				.v = page_health_held(h, h->sensors[i].v) };
	if (n > 0) {
		struct page_axis ax = {
			.from_ms = h->from_ms, .bucket_ms = h->bucket_ms, .nbuckets = h->nbuckets
		};
		buf_printf(out, "<h3>%s</h3><p class=\"legend\">", title);
		for (size_t i = 0; i < n; i++) {
			buf_printf(out, "<span class=\"key c%zu\"></span>", i % 8);
			text_put_html(out, lines[i].label);
		}
		buf_puts(out, "</p>\n");
		page_chart_gauges(out, &ax, lines, n, shown, title);
	}
	for (size_t i = 0; i < n; i++)
		free((double *)lines[i].v);
	free(lines);
}

/* "312 MiB free of 1024 MiB (30&nbsp;%)", or a dash when unknown. */
static void page_health_space(buf_t *out, const char *what, int64_t free_b, int64_t total_b)
{
	buf_printf(out, "<tr><td>%s</td><td class=\"n\">", what);
	if (free_b < 0 || total_b <= 0)
		buf_puts(out, "&ndash;");
	else
		buf_printf(out, "%lld&nbsp;MiB free of %lld&nbsp;MiB (%.0f&nbsp;%%)",
			(long long)(free_b >> 20), (long long)(total_b >> 20),
			100.0 * (double)free_b / (double)total_b);
	buf_puts(out, "</td><td></td></tr>\n");
}

void page_health(buf_t *out, const history_t *h, bool stale)
{
	buf_puts(out, "<section id=\"health\"><h2>Health</h2>");
	if (h->health_ms <= 0) {
		buf_puts(out, "<p class=\"empty\">No health reading recorded yet.</p></section>\n");
		return;
	}
	buf_puts(out, "<p class=\"seen\">As of ");
	page_time(out, h->health_ms, "&ndash;");
	buf_puts(out, stale ? "; the router is down: these are its last values.</p>" : ".</p>");
	buf_printf(out,
		"<div class=\"wrap\"><table id=\"health-table\"%s><thead><tr><th>Sensor</th><th>Now</th>"
		"<th>Range shown</th></tr></thead><tbody>\n",
		stale ? " class=\"stale\"" : "");
	for (size_t i = 0; i < h->nsensors; i++)
		if (!isnan(h->sensors[i].value) || !isnan(h->sensors[i].min))
			page_health_row(out, &h->sensors[i]);
	page_health_space(out, "memory", h->mem_free, h->mem_total);
	page_health_space(out, "disk", h->disk_free, h->disk_total);
	buf_puts(out, "</tbody></table></div>");
	if (h->nsensors == 0)
		buf_puts(out,
			"<p class=\"empty\">The router reports no sensors (CHR and some small boards have none).</p>");
	page_health_chart(out, h, "celsius",
		"\xc2\xb0"
		"C",
		"Temperatures");
	page_health_chart(out, h, "rpm", "rpm", "Fan speeds");
	page_health_chart(out, h, "volts", "V", "Voltages");
	page_health_chart(out, h, "amperes", "A", "Currents");
	page_health_chart(out, h, "watts", "W", "Power");
	buf_puts(out, "</section>\n");
}

void page_health_peer_heads(buf_t *out)
{
	buf_puts(out, "<th>Endpoint</th><th>Allowed addresses</th>");
}

void page_health_peer_cells(buf_t *out, const struct history_peer *p)
{
	buf_puts(out, "<td>");
	if (p->disabled == 1)
		buf_puts(out, "<span class=\"why\">disabled</span> ");
	if (p->endpoint != NULL)
		text_put_html(out, p->endpoint);
	else if (p->disabled != 1)
		buf_puts(out, "&ndash;");
	buf_puts(out, "</td><td>");
	if (p->allowed != NULL && p->allowed[0] != '\0')
		text_put_html(out, p->allowed);
	else
		buf_puts(out, "&ndash;");
	buf_puts(out, "</td>");
}
