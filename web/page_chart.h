/* SPDX-License-Identifier: Apache-2.0 */
/* page_chart: server-rendered inline SVG charts on a shared time axis: lines with event
 * markers, a per-core heatmap, and a scatter coloured by category. Inputs are plain arrays;
 * every text that reaches the SVG (labels, titles) is escaped. No script, no inline style. */
#ifndef WGWATCH_PAGE_CHART_H
#define WGWATCH_PAGE_CHART_H

#include <stddef.h>
#include <stdint.h>

#include "lib/buf.h"

/* The time axis: nbuckets buckets of bucket_ms from from_ms; values sit at bucket centres. */
struct page_axis {
	int64_t from_ms, bucket_ms;
	size_t nbuckets;
};

struct page_line {
	const char *cls;   /* CSS class of the polyline ("tx", "rx") */
	const char *label; /* legend text */
	const double *v;   /* nbuckets values, NAN = gap */
};

/* A vertical event line; with before_ms/after_ms the windows either side are shaded. */
struct page_marker {
	int64_t t_ms;
	const char *cls;   /* "upgrade", "reboot", ... */
	const char *label; /* short text at the top (router text: escaped) */
	int64_t before_ms, after_ms;
};

struct page_point {
	double x, y; /* x 0..1 (busiest core), y >= 0 (bits/s) */
	size_t cat;  /* index into the categories */
	int64_t t_ms;
};

/* Lines over time in bits/s, with markers. */
void page_chart_lines(buf_t *out, const struct page_axis *ax, const struct page_line *lines, size_t nlines,
	const struct page_marker *marks, size_t nmarks);

/* Gauge readings over time (temperatures, fan speeds...) in unit ("&deg;C" is HTML: escaped as
 * text, so pass plain "°C"): line i in page_chart_colour(i), its class lines[i].cls; the y axis
 * from 0, or around the readings when they sit far from it. label names the chart. */
void page_chart_gauges(buf_t *out, const struct page_axis *ax, const struct page_line *lines, size_t nlines,
	const char *unit, const char *label);

/* load: ncores rows of nbuckets values 0..1 (NAN = no data); markers as in the line chart. */
void page_chart_heatmap(buf_t *out, const struct page_axis *ax, const double *load, size_t ncores,
	const struct page_marker *marks, size_t nmarks);

/* Scatter of busiest-core load (x) against throughput (y), one colour per category. */
void page_chart_scatter(
	buf_t *out, const struct page_point *pts, size_t n, const char *const *cats, size_t ncats);

/* One row of a before/after figure: two bars on the figure's shared axis. */
struct page_bar {
	const char *label;    /* "wg0 tx" (router text: escaped) */
	double before, after; /* bits/s; NAN: no bar */
	const char *cls;      /* class of the after bar: "worse", "better" or "" */
};

/* Capacity before and after, bars of every row on one axis from 0 (a small SVG figure). */
void page_chart_pairs(buf_t *out, const struct page_bar *bars, size_t n, const char *label);

/* One mark of a ratio strip: one router's capacity ratio (after / before). */
struct page_mark {
	const char *name; /* shown in its tooltip (router text: escaped) */
	double ratio;     /* > 0 */
	const char *cls;  /* "m-regression", "m-improvement", "m-other" */
};
struct page_strip_row {
	const char *label; /* "tx", "rx" */
	const struct page_mark *m;
	size_t n;
};

/* A small strip per row: each router's ratio as a dot on 0..2 (clamped), a line at 1. */
void page_chart_strip(buf_t *out, const struct page_strip_row *rows, size_t nrows, const char *label);

/* Append a rate "380 Mbit/s", "1.60 Gbit/s", "12.0 kbit/s"; "&ndash;" for NAN. */
void page_chart_rate(buf_t *out, double bps);

/* The colour of category i (a fixed palette, "#rrggbb"). */
const char *page_chart_colour(size_t i);

#endif
