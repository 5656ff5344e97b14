/* SPDX-License-Identifier: Apache-2.0 */
/* page_chart: inline SVG for the router and upgrades pages, drawn on the server from plain
 * arrays. The time charts share one horizontal layout so the heatmap lines up under the
 * throughput chart; the before/after bars and the ratio strips are small figures of their own.
 * It must never emit script, event attributes or inline style (CSP), nor unescaped text. */
#include "config.h"
#include "web/page_chart.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "lib/text.h"

#define PAGE_CHART_W      960.0 /* viewBox width */
#define PAGE_CHART_L      78.0  /* plot left edge */
#define PAGE_CHART_R      12.0  /* right margin */
#define PAGE_CHART_PW     (PAGE_CHART_W - PAGE_CHART_L - PAGE_CHART_R)
#define PAGE_CHART_TOP    18.0
#define PAGE_CHART_LINE_H 170.0 /* plot height of a line chart */
#define PAGE_CHART_AXIS_H 24.0  /* room for time labels below */
#define PAGE_CHART_LEVELS 20    /* heatmap colour steps */

static const char *const page_chart_palette[] = {
	"#1f77b4",
	"#d62728",
	"#2ca02c",
	"#9467bd",
	"#ff7f0e",
	"#17becf",
	"#8c564b",
	"#e377c2",
};

const char *page_chart_colour(size_t i)
{
	return page_chart_palette[i % (sizeof(page_chart_palette) / sizeof(page_chart_palette[0]))];
}

void page_chart_rate(buf_t *out, double bps)
{
	if (isnan(bps))
		buf_puts(out, "&ndash;");
	else if (bps >= 1e9)
		buf_printf(out, "%.2f Gbit/s", bps / 1e9);
	else if (bps >= 1e8)
		buf_printf(out, "%.0f Mbit/s", bps / 1e6);
	else if (bps >= 1e6)
		buf_printf(out, "%.1f Mbit/s", bps / 1e6);
	else if (bps >= 1e3)
		buf_printf(out, "%.1f kbit/s", bps / 1e3);
	else
		buf_printf(out, "%.0f bit/s", bps);
}

/* ---- the time axis ---- */

static int64_t page_chart_end(const struct page_axis *ax)
{
	return ax->from_ms + (int64_t)ax->nbuckets * ax->bucket_ms;
}

static double page_chart_x(const struct page_axis *ax, int64_t t)
{
	double span = (double)(page_chart_end(ax) - ax->from_ms);
	return PAGE_CHART_L + (span > 0 ? (double)(t - ax->from_ms) / span : 0) * PAGE_CHART_PW;
}

static double page_chart_xb(const struct page_axis *ax, size_t b) /* bucket centre */
{
	return page_chart_x(ax, ax->from_ms + (int64_t)b * ax->bucket_ms + ax->bucket_ms / 2);
}

static void page_chart_time_label(buf_t *out, int64_t t_ms, int64_t step)
{
	time_t t = (time_t)(t_ms / 1000);
	struct tm tm;
	char tmp[32];
	size_t n = 0;
	if (gmtime_r(&t, &tm) == NULL)
		return;
	if (step >= 86400000)
		n = strftime(tmp, sizeof(tmp), "%b %d", &tm);
	else if (step >= 60000)
		n = strftime(tmp, sizeof(tmp), "%H:%M", &tm);
	else
		n = strftime(tmp, sizeof(tmp), "%H:%M:%S", &tm);
	if (n > 0)
		buf_puts(out, tmp);
}

/* Vertical grid lines and UTC labels at round times, at most ~8 of them. */
static void page_chart_time_ticks(buf_t *out, const struct page_axis *ax, double y0, double y1)
{
	static const int64_t steps[] = {
		10000,
		30000,
		60000,
		300000,
		900000,
		1800000,
		3600000,
		10800000,
		21600000,
		43200000,
		86400000,
		172800000,
		604800000,
		2592000000,
	};
	int64_t span = page_chart_end(ax) - ax->from_ms, step = steps[0];
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && span / step > 8; i++)
		step = steps[i];
	buf_puts(out, "<g class=\"grid\">");
	for (int64_t t = (ax->from_ms / step + 1) * step; t < page_chart_end(ax); t += step) {
		double x = page_chart_x(ax, t);
		buf_printf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tl\" x=\"%.1f\" y=\"%.1f\">",
			x, y0, x, y1, x, y1 + 14);
		page_chart_time_label(out, t, step);
		buf_puts(out, "</text>");
	}
	buf_puts(out, "</g>");
}

static void page_chart_open(buf_t *out, const char *cls, double h, const char *label)
{
	buf_printf(out,
		"<svg class=\"chart %s\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"aria-label=\"",
		cls, PAGE_CHART_W, h);
	text_put_html(out, label);
	buf_puts(out, "\" xmlns=\"http://www.w3.org/2000/svg\">");
}

/* Marker lines over [y0, y1], shaded windows first so the lines stay on top. */
static void page_chart_markers(buf_t *out, const struct page_axis *ax, const struct page_marker *m, size_t n,
	double y0, double y1, bool labels)
{
	double lo = PAGE_CHART_L, hi = PAGE_CHART_L + PAGE_CHART_PW;
	for (size_t i = 0; i < n; i++) {
		double xb = fmax(lo, page_chart_x(ax, m[i].t_ms - m[i].before_ms)),
		       x = page_chart_x(ax, m[i].t_ms);
		double xa = fmin(hi, page_chart_x(ax, m[i].t_ms + m[i].after_ms));
		if (m[i].before_ms > 0 && x > lo && xb < hi)
			buf_printf(out,
				"<rect class=\"win-before\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"/>",
				xb, y0, fmin(x, hi) - xb, y1 - y0);
		if (m[i].after_ms > 0 && x < hi && xa > lo)
			buf_printf(out,
				"<rect class=\"win-after\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%.1f\"/>",
				fmax(x, lo), y0, xa - fmax(x, lo), y1 - y0);
	}
	for (size_t i = 0; i < n; i++) {
		double x = page_chart_x(ax, m[i].t_ms);
		if (x < lo || x > hi)
			continue;
		buf_printf(out, "<g class=\"mk %s\"><title>", m[i].cls);
		text_put_html(out, m[i].label);
		buf_printf(
			out, "</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, y0, x, y1);
		if (labels) {
			buf_printf(out, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y0 - 5);
			text_put_html(out, m[i].label);
			buf_puts(out, "</text>");
		}
		buf_puts(out, "</g>");
	}
}

/* ---- line chart ---- */

/* A round maximum (1, 2 or 5 times a power of ten) at or above v. */
static double page_chart_nice(double v)
{
	if (!(v > 0))
		return 1;
	double p = pow(10, floor(log10(v)));
	return v <= p ? p : v <= 2 * p ? 2 * p : v <= 5 * p ? 5 * p : 10 * p;
}

/* A tick label in the unit of the axis maximum, at most 4 digits: "1.5 Gbit/s", "0". */
static void page_chart_tick(buf_t *out, double bps, double ymax)
{
	static const struct {
		double div;
		const char *unit;
	} units[] = {
		{ 1e12, "Tbit/s" },
		{ 1e9, "Gbit/s" },
		{ 1e6, "Mbit/s" },
		{ 1e3, "kbit/s" },
	};
	size_t u = 0;
	while (u + 1 < sizeof(units) / sizeof(units[0]) && ymax < units[u].div)
		u++;
	if (bps == 0)
		buf_puts(out, "0");
	else if (ymax < 1e3)
		buf_printf(out, "%.4g bit/s", bps);
	else
		buf_printf(out, "%.4g %s", bps / units[u].div, units[u].unit);
}

static void page_chart_y_grid(buf_t *out, double ymax, double y0, double h)
{
	buf_puts(out, "<g class=\"grid\">");
	for (int i = 0; i <= 4; i++) {
		double y = y0 + h - h * i / 4.0;
		buf_printf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">",
			PAGE_CHART_L, y, PAGE_CHART_L + PAGE_CHART_PW, y, PAGE_CHART_L - 6, y + 4);
		page_chart_tick(out, ymax * i / 4.0, ymax);
		buf_puts(out, "</text>");
	}
	buf_puts(out, "</g>");
}

/* One polyline per run of known values, on [lo, lo + span]; a lone value becomes a dot. A
 * colour (an attribute, not a style: CSP) is for lines whose class has none. */
static void page_chart_series(buf_t *out, const struct page_axis *ax, const struct page_line *l, double lo,
	double span, double y0, double h, const char *colour)
{
	size_t b = 0, nb = ax->nbuckets;
	char dot[48] = "", line[48] = "";
	if (colour != NULL) {
		snprintf(dot, sizeof(dot), " fill=\"%s\"", colour);
		snprintf(line, sizeof(line), " stroke=\"%s\"", colour);
	}
	while (b < nb) {
		for (; b < nb && isnan(l->v[b]); b++)
			;
		size_t start = b;
		for (; b < nb && !isnan(l->v[b]); b++)
			;
		if (b == start)
			break;
		double ys = y0 + h - fmin(fmax(l->v[start] - lo, 0), span) / span * h;
		if (b - start == 1) {
			buf_printf(out, "<circle class=\"%s\"%s cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>", l->cls,
				dot, page_chart_xb(ax, start), ys);
			continue;
		}
		buf_printf(out, "<polyline class=\"%s\"%s points=\"", l->cls, line);
		for (size_t i = start; i < b; i++)
			buf_printf(out, "%s%.1f,%.1f", i > start ? " " : "", page_chart_xb(ax, i),
				y0 + h - fmin(fmax(l->v[i] - lo, 0), span) / span * h);
		buf_puts(out, "\"/>");
	}
}

void page_chart_lines(buf_t *out, const struct page_axis *ax, const struct page_line *lines, size_t nlines,
	const struct page_marker *marks, size_t nmarks)
{
	double vmax = 0;
	for (size_t l = 0; l < nlines; l++)
		for (size_t b = 0; b < ax->nbuckets; b++)
			if (!isnan(lines[l].v[b]) && lines[l].v[b] > vmax)
				vmax = lines[l].v[b];
	double ymax = page_chart_nice(vmax * 1.05), y0 = PAGE_CHART_TOP, h = PAGE_CHART_LINE_H;
	page_chart_open(out, "lines", PAGE_CHART_TOP + h + PAGE_CHART_AXIS_H, "throughput over time");
	page_chart_y_grid(out, ymax, y0, h);
	page_chart_time_ticks(out, ax, y0, y0 + h);
	page_chart_markers(out, ax, marks, nmarks, y0, y0 + h, true);
	for (size_t l = 0; l < nlines; l++)
		page_chart_series(out, ax, &lines[l], 0, ymax, y0, h, NULL);
	buf_puts(out, "</svg>\n");
}

/* The range a gauge chart shows: from 0 when the readings are near it, else around them. */
static void page_chart_gauge_range(
	const struct page_axis *ax, const struct page_line *lines, size_t n, double *lo, double *span)
{
	double vmin = INFINITY, vmax = -INFINITY;
	for (size_t l = 0; l < n; l++)
		for (size_t b = 0; b < ax->nbuckets; b++)
			if (!isnan(lines[l].v[b]))
				vmin = fmin(vmin, lines[l].v[b]), vmax = fmax(vmax, lines[l].v[b]);
	if (!(vmax >= vmin))
		vmin = vmax = 0;
	double step = page_chart_nice((vmax - vmin) / 4 > 0 ? (vmax - vmin) / 4 : fmax(fabs(vmax) / 8, 1));
	*lo = vmin >= 0 && vmin < vmax / 2 ? 0 : floor(vmin / step) * step - step;
	*span = fmax(ceil(vmax / step) * step + step - *lo, step * 2);
}

void page_chart_gauges(buf_t *out, const struct page_axis *ax, const struct page_line *lines, size_t nlines,
	const char *unit, const char *label)
{
	double lo, span, y0 = PAGE_CHART_TOP, h = PAGE_CHART_LINE_H * 0.6;
	page_chart_gauge_range(ax, lines, nlines, &lo, &span);
	page_chart_open(out, "lines gauges", PAGE_CHART_TOP + h + PAGE_CHART_AXIS_H, label);
	buf_puts(out, "<g class=\"grid\">");
	for (int i = 0; i <= 4; i++) {
		double y = y0 + h - h * i / 4.0;
		buf_printf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">%.4g ",
			PAGE_CHART_L, y, PAGE_CHART_L + PAGE_CHART_PW, y, PAGE_CHART_L - 6, y + 4,
			lo + span * i / 4.0);
		text_put_html(out, unit);
		buf_puts(out, "</text>");
	}
	buf_puts(out, "</g>");
	page_chart_time_ticks(out, ax, y0, y0 + h);
	for (size_t l = 0; l < nlines; l++)
		page_chart_series(out, ax, &lines[l], lo, span, y0, h, page_chart_colour(l));
	buf_puts(out, "</svg>\n");
}

/* ---- heatmap ---- */

/* Light grey-blue at 0, amber at 0.5, deep red at 1. */
static void page_chart_heat_colour(int level, char out[8])
{
	static const double stops[3][3] = { { 238, 243, 248 }, { 242, 193, 78 }, { 176, 0, 32 } };
	double f = (double)level / PAGE_CHART_LEVELS * 2;
	int s = f >= 1 ? 1 : 0;
	double k = f - s;
	int c[3];
	for (int i = 0; i < 3; i++)
		c[i] = (int)lround(stops[s][i] + (stops[s + 1][i] - stops[s][i]) * k);
	snprintf(out, 8, "#%02x%02x%02x", c[0] & 255, c[1] & 255, c[2] & 255);
}

static int page_chart_level(double v)
{
	return isnan(v) ? -1 : (int)lround(fmin(fmax(v, 0), 1) * PAGE_CHART_LEVELS);
}

/* One row: runs of the same colour level merged into one rect. */
static void page_chart_heat_row(
	buf_t *out, const struct page_axis *ax, const double *row, size_t core, double y, double rh)
{
	double cw = PAGE_CHART_PW / (double)(ax->nbuckets ? ax->nbuckets : 1);
	size_t b = 0;
	while (b < ax->nbuckets) {
		int lv = page_chart_level(row[b]);
		size_t start = b;
		double sum = 0;
		for (; b < ax->nbuckets && page_chart_level(row[b]) == lv; b++)
			sum += isnan(row[b]) ? 0 : row[b];
		if (lv < 0)
			continue;
		char col[8];
		page_chart_heat_colour(lv, col);
		buf_printf(out,
			"<rect class=\"hm\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"%s\"><title>cpu%zu %.0f%%</title></rect>",
			PAGE_CHART_L + (double)start * cw, y, (double)(b - start) * cw, rh, col, core,
			sum / (double)(b - start) * 100);
	}
}

void page_chart_heatmap(buf_t *out, const struct page_axis *ax, const double *load, size_t ncores,
	const struct page_marker *marks, size_t nmarks)
{
	double rh = ncores > 24 ? 6 : ncores > 12 ? 10 : 16, h = rh * (double)(ncores ? ncores : 1);
	double y0 = 6;
	page_chart_open(out, "heat", y0 + h + PAGE_CHART_AXIS_H, "load per core over time");
	for (size_t c = 0; c < ncores; c++) {
		double y = y0 + rh * (double)c;
		if (rh >= 10 || c % 4 == 0)
			buf_printf(out, "<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">cpu%zu</text>",
				PAGE_CHART_L - 6, y + rh - 2, c);
		page_chart_heat_row(out, ax, load + c * ax->nbuckets, c, y, rh);
	}
	page_chart_time_ticks(out, ax, y0 + h, y0 + h);
	page_chart_markers(out, ax, marks, nmarks, y0, y0 + h, false);
	buf_puts(out, "</svg>\n");
}

/* ---- scatter ---- */

#define PS_W 640.0
#define PS_H 300.0
#define PS_L 78.0
#define PS_B 34.0
#define PS_R 24.0

static void page_chart_scatter_axes(buf_t *out, double ymax)
{
	double h = PS_H - PAGE_CHART_TOP - PS_B, w = PS_W - PS_L - PS_R;
	page_chart_y_grid(out, ymax, PAGE_CHART_TOP, h);
	buf_puts(out, "<g class=\"grid\">");
	for (int i = 0; i <= 4; i++) {
		double x = PS_L + w * i / 4.0;
		buf_printf(out,
			"<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"tl\" x=\"%.1f\" y=\"%.1f\">%d%%</text>",
			x, PAGE_CHART_TOP, x, PAGE_CHART_TOP + h, x, PAGE_CHART_TOP + h + 14, i * 25);
	}
	buf_printf(out, "</g><text class=\"tl\" x=\"%.1f\" y=\"%.1f\">busiest core load</text>", PS_L + w / 2,
		PS_H - 4);
}

void page_chart_scatter(
	buf_t *out, const struct page_point *pts, size_t n, const char *const *cats, size_t ncats)
{
	double vmax = 0, h = PS_H - PAGE_CHART_TOP - PS_B, w = PS_W - PS_L - PS_R;
	for (size_t i = 0; i < n; i++)
		vmax = fmax(vmax, pts[i].y);
	double ymax = page_chart_nice(vmax * 1.05);
	buf_printf(out,
		"<svg class=\"chart scatter\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		"aria-label=\"busiest core against throughput\" "
		"xmlns=\"http://www.w3.org/2000/svg\">",
		PS_W, PS_H);
	page_chart_scatter_axes(out, ymax);
	for (size_t i = 0; i < n; i++) {
		const struct page_point *p = &pts[i];
		buf_printf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
			PS_L + fmin(fmax(p->x, 0), 1) * w, PAGE_CHART_TOP + h - fmin(p->y, ymax) / ymax * h,
			page_chart_colour(p->cat));
		text_put_html(out, p->cat < ncats ? cats[p->cat] : "?");
		buf_printf(out, ": core %.0f%%, ", p->x * 100);
		page_chart_rate(out, p->y);
		buf_puts(out, "</title></circle>");
	}
	buf_puts(out, "</svg>\n");
}

/* ---- before/after bars ---- */

#define PB_W   560.0
#define PB_L   70.0  /* labels left of the bars */
#define PB_R   130.0 /* values right of them */
#define PB_BAR 13.0
#define PB_GAP 12.0

static void page_chart_bar(buf_t *out, const char *cls, const char *when, double y, double v, double vmax)
{
	double w = isnan(v) ? 0 : fmax(v / vmax * (PB_W - PB_L - PB_R), 1);
	buf_printf(out,
		"<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%s: ", cls,
		PB_L, y, w, PB_BAR - 2, when);
	page_chart_rate(out, v);
	buf_printf(out, "</title></rect><text x=\"%.1f\" y=\"%.1f\">%s ", PB_L + w + 4, y + PB_BAR - 4, when);
	page_chart_rate(out, v);
	buf_puts(out, "</text>");
}

void page_chart_pairs(buf_t *out, const struct page_bar *bars, size_t n, const char *label)
{
	double vmax = 0, rowh = 2 * PB_BAR + PB_GAP, h = 6 + n * rowh;
	for (size_t i = 0; i < n; i++)
		vmax = fmax(vmax,
			fmax(isnan(bars[i].before) ? 0 : bars[i].before,
				isnan(bars[i].after) ? 0 : bars[i].after));
	vmax = page_chart_nice(vmax);
	buf_printf(out, "<svg class=\"chart pairs\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"",
		PB_W, h);
	text_put_html(out, label);
	buf_puts(out, "\" xmlns=\"http://www.w3.org/2000/svg\">");
	for (size_t i = 0; i < n; i++) {
		const struct page_bar *b = &bars[i];
		double y = 4 + i * rowh;
		buf_printf(out, "<g class=\"pair\"><text class=\"yl\" x=\"%.1f\" y=\"%.1f\">", PB_L - 6,
			y + PB_BAR + 3);
		text_put_html(out, b->label);
		buf_puts(out, "</text>");
		page_chart_bar(out, "before", "before", y, b->before, vmax);
		char cls[32];
		snprintf(cls, sizeof(cls), "after%s%s", b->cls && *b->cls ? " " : "", b->cls ? b->cls : "");
		page_chart_bar(out, cls, "after", y + PB_BAR, b->after, vmax);
		buf_puts(out, "</g>");
	}
	buf_printf(out, "<line class=\"one\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%.1f\"/></svg>\n", PB_L,
		PB_L, h);
}

/* ---- ratio strips ---- */

#define PST_W   240.0
#define PST_L   22.0
#define PST_R   8.0
#define PST_ROW 26.0
#define PST_MAX 2.0 /* ratios above are drawn at the right edge */

static double page_chart_strip_x(double ratio)
{
	return PST_L + fmin(fmax(ratio, 0), PST_MAX) / PST_MAX * (PST_W - PST_L - PST_R);
}

static void page_chart_strip_row(buf_t *out, const struct page_strip_row *r, double y)
{
	buf_printf(out, "<text x=\"0\" y=\"%.1f\">", y + 4);
	text_put_html(out, r->label);
	buf_puts(out, "</text>");
	for (size_t k = 0; k < r->n; k++) {
		/* a small vertical spread, so that routers of equal ratio stay countable */
		double dy = ((double)(k % 5) - 2) * 3.5;
		buf_printf(out, "<circle class=\"m %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>", r->m[k].cls,
			page_chart_strip_x(r->m[k].ratio), y + dy);
		text_put_html(out, r->m[k].name);
		buf_printf(out, " %s: %.2f</title></circle>", r->label, r->m[k].ratio);
	}
}

void page_chart_strip(buf_t *out, const struct page_strip_row *rows, size_t nrows, const char *label)
{
	double h = 8 + nrows * PST_ROW + 12, x1 = page_chart_strip_x(1);
	buf_printf(
		out, "<svg class=\"strip\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"", PST_W, h);
	text_put_html(out, label);
	buf_printf(out,
		"\" xmlns=\"http://www.w3.org/2000/svg\"><g class=\"grid\"><line x1=\"%.1f\" y1=\"%.1f\" "
		"x2=\"%.1f\" y2=\"%.1f\"/></g><line class=\"one\" x1=\"%.1f\" y1=\"2\" x2=\"%.1f\" y2=\"%.1f\"/>",
		PST_L, h - 12, PST_W - PST_R, h - 12, x1, x1, h - 12);
	for (size_t i = 0; i < nrows; i++)
		page_chart_strip_row(out, &rows[i], 10 + i * PST_ROW);
	buf_printf(out,
		"<text x=\"%.1f\" y=\"%.1f\">0</text><text class=\"tl\" x=\"%.1f\" y=\"%.1f\">1</text>"
		"<text class=\"yl\" x=\"%.1f\" y=\"%.1f\">2+</text></svg>",
		PST_L, h - 1, x1, h - 1, PST_W - PST_R, h - 1);
}
