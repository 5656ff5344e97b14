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

/* load: ncores rows of nbuckets values 0..1 (NAN = no data); markers as in the line chart. */
void page_chart_heatmap(buf_t *out, const struct page_axis *ax, const double *load, size_t ncores,
	const struct page_marker *marks, size_t nmarks);

/* Scatter of busiest-core load (x) against throughput (y), one colour per category. */
void page_chart_scatter(
	buf_t *out, const struct page_point *pts, size_t n, const char *const *cats, size_t ncats);

/* Append a rate "380 Mbit/s", "1.60 Gbit/s", "12.0 kbit/s"; "&ndash;" for NAN. */
void page_chart_rate(buf_t *out, double bps);

/* The colour of category i (a fixed palette, "#rrggbb"). */
const char *page_chart_colour(size_t i);

#endif
