/* SPDX-License-Identifier: Apache-2.0 */
/* page_capacity: the fleet page's capacity headroom, read from the detector's view: a router's
 * least headroom and the ten streams closest to their limit. It must never show a guess: an
 * unknown capacity has no headroom here, and no script or inline style is emitted. */
#include "config.h"
#include "web/page_capacity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/text.h"
#include "lib/xmem.h"
#include "web/page.h"
#include "web/page_chart.h"

#define PAGE_CAPACITY_TOP 10 /* streams in the table */

const struct capacity *page_capacity_least(const detector_view_t *dv, const char *router)
{
	size_t n;
	const struct capacity *c = detector_view_capacity(dv, &n), *best = NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i].router, router) == 0 && isfinite(c[i].headroom) &&
			(best == NULL || c[i].headroom < best->headroom))
			best = &c[i];
	return best;
}

void page_capacity_cell(buf_t *out, const struct capacity *c)
{
	if (c == NULL) {
		buf_puts(out, "<td class=\"n\">&ndash;</td>");
		return;
	}
	buf_printf(out, "<td class=\"n\">%.0f&nbsp;%%%s<br><small>", 100 * c->headroom,
		c->method == CAPACITY_PINNED ? " at its limit" : "");
	text_put_html(out, c->interface);
	buf_printf(out, " %s</small></td>", c->direction);
}

static int page_capacity_cmp(const void *a, const void *b)
{
	const struct capacity *x = *(const struct capacity *const *)a,
			      *y = *(const struct capacity *const *)b;
	return x->headroom < y->headroom ? -1 : x->headroom > y->headroom;
}

static void page_capacity_row(buf_t *out, const struct capacity *c)
{
	buf_puts(out, "<tr class=\"cap\"><td><a href=\"/router/");
	text_put_url(out, c->router);
	buf_puts(out, "\">");
	text_put_html(out, c->router);
	buf_puts(out, "</a></td><td>");
	text_put_html(out, c->interface);
	buf_printf(out, " %s</td><td class=\"n\">", c->direction);
	page_chart_rate(out, c->bps);
	buf_puts(out, "</td><td class=\"n\">");
	page_chart_rate(out, c->p95_week);
	buf_printf(out, "</td><td class=\"n\">%.0f&nbsp;%%%s</td><td class=\"t\">", 100 * c->headroom,
		c->method == CAPACITY_PINNED ? " at its limit" : "");
	page_time(out, c->exhausted_ms != CAPACITY_NEVER ? c->exhausted_ms : 0, "none");
	buf_puts(out, "</td></tr>\n");
}

void page_capacity_table(buf_t *out, const detector_view_t *dv)
{
	size_t n, k = 0;
	const struct capacity *c = detector_view_capacity(dv, &n);
	const struct capacity **v = xcalloc(n + 1, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		if (isfinite(c[i].headroom))
			v[k++] = &c[i];
	if (k > 0) {
		qsort(v, k, sizeof(*v), page_capacity_cmp);
		buf_puts(out,
			"<section id=\"capacity\"><h2>Closest to their limit</h2><div class=\"wrap\"><table>"
			"<thead><tr><th>Router</th><th>Stream</th><th>Capacity</th><th>p95, 7 days</th>"
			"<th>Headroom</th><th>Runs out (UTC)</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < k && i < PAGE_CAPACITY_TOP; i++)
			page_capacity_row(out, v[i]);
		buf_puts(out, "</tbody></table></div></section>\n");
	}
	free(v);
}
