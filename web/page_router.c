/* SPDX-License-Identifier: Apache-2.0 */
/* page_router: one router's page, rendered on an HTTP thread from a fleet view (live state)
 * and a history query (the database, read-only). Every string a router or a URL gave is
 * escaped for where it lands (HTML text, attribute, URL, SVG); it must never emit script or
 * inline style, and never block the event loop (it reads the database on its own connection). */
#include "config.h"
#include "web/page_router.h"
#include "web/page_router_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detector/capacity.h"
#include "detector/detector.h"
#include "store/history.h"
#include "lib/text.h"
#include "lib/log.h"
#include "web/page.h"
#include "web/page_chart.h"
#include "web/page_health.h"
#include "lib/xmem.h"

#define PAGE_ROUTER_DEFAULT_RANGE "24h"
#define PAGE_ROUTER_UPGRADE_DAYS  90               /* an upgrade older: the page opens on 24h */
#define PAGE_ROUTER_WINDOW_MS     (7 * 86400000LL) /* detector windows when the config gives none */
#define PAGE_ROUTER_MAX_CATS      64

static const char *const page_router_ranges[] = { "6h", "24h", "7d", "30d", "all" };

/* Compares two runs of digits by value, however long: fewer significant digits is smaller.
 * Advances *a and *b past their runs. */
static int page_router_natcmp_digits(const char **a, const char **b)
{
	const char *p = *a, *q = *b;
	size_t np = 0, nq = 0;
	while (*p == '0')
		p++;
	while (*q == '0')
		q++;
	while (p[np] >= '0' && p[np] <= '9')
		np++;
	while (q[nq] >= '0' && q[nq] <= '9')
		nq++;
	*a = p + np;
	*b = q + nq;
	if (np != nq)
		return np < nq ? -1 : 1;
	return memcmp(p, q, np);
}

/* Natural order, as people count: "peer2" before "peer10". Runs of digits compare by value,
 * the rest byte by byte; names equal but for leading zeros fall back to strcmp, so the order is
 * total. NULL sorts first. */
static int page_router_natcmp(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return (a != NULL) - (b != NULL);
	const char *p = a, *q = b;
	while (*p != '\0' && *q != '\0') {
		bool dp = *p >= '0' && *p <= '9', dq = *q >= '0' && *q <= '9';
		if (dp && dq) {
			int c = page_router_natcmp_digits(&p, &q);
			if (c != 0)
				return c < 0 ? -1 : 1;
			continue;
		}
		if (*p != *q)
			return (unsigned char)*p < (unsigned char)*q ? -1 : 1;
		p++;
		q++;
	}
	if (*p != *q)
		return *p == '\0' ? -1 : 1;
	int c = strcmp(a, b);
	return c < 0 ? -1 : c > 0;
}

/* ---- small formatters ---- */

/* "3w2d", "5h4m", "1m5s", "12s": the two largest units. */
static void page_router_duration(buf_t *out, int64_t ms)
{
	static const struct {
		const char *u;
		int64_t ms;
	} units[] = {
		{ "w", 604800000 },
		{ "d", 86400000 },
		{ "h", 3600000 },
		{ "m", 60000 },
		{ "s", 1000 },
	};
	int shown = 0;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && shown < 2; i++) {
		int64_t n = ms / units[i].ms;
		if (n == 0 && shown == 0)
			continue;
		if (n > 0)
			buf_printf(out, "%lld%s", (long long)n, units[i].u);
		ms -= n * units[i].ms;
		shown++;
	}
	if (shown == 0)
		buf_puts(out, "0s");
}

static void page_router_bytes(buf_t *out, uint64_t b)
{
	static const char *const units[] = { "B", "kB", "MB", "GB", "TB", "PB", "EB" };
	double v = (double)b;
	size_t u = 0;
	for (; v >= 1000 && u + 1 < sizeof(units) / sizeof(units[0]); u++)
		v /= 1000;
	buf_printf(out, u ? "%.2f %s" : "%.0f %s", v, units[u]);
}

void page_router_text(buf_t *out, const char *s)
{
	if (s == NULL || *s == '\0')
		buf_puts(out, "&ndash;");
	else
		text_put_html(out, s);
}

void page_router_change(buf_t *out, const char *old, const char *new)
{
	if (old && new &&strcmp(old, new) != 0) {
		text_put_html(out, old);
		buf_puts(out, " &rarr; ");
	}
	page_router_text(out, new);
}

/* ---- head, facts, range ---- */

static void page_router_head(buf_t *out, const char *name)
{
	page_open(out, name, PAGE_REFRESH_S);
	buf_puts(out,
		"<nav class=\"crumb\"><a href=\"/\">wgwatch fleet</a> &rsaquo; router</nav>\n"
		"<h1 id=\"router-name\">");
	text_put_html(out, name);
	buf_puts(out, "</h1>\n");
}

static void page_router_fact(buf_t *out, const char *term, const char *value)
{
	buf_printf(out, "<dt>%s</dt><dd>", term);
	page_router_text(out, value);
	buf_puts(out, "</dd>");
}

/* While the router is down its newest values are not current: they are greyed with their age. */
static bool page_router_stale(const fleet_router_t *live)
{
	return live != NULL && !live->up;
}

/* The optional menus failing while the router is up (docs/routeros.md §2.3), one line each:
 * what they would have told is missing from the page. */
static void page_router_menus(buf_t *out, const fleet_router_t *live)
{
	const sample_t *s = live != NULL && live->up ? live->last : NULL;
	for (size_t k = 0; s != NULL && k < s->nmenus; k++) {
		const struct sample_menu *m = &s->menus[k];
		if (m->why == NULL)
			continue;
		buf_puts(out, "<br><small class=\"why menu\">");
		text_put_html(out, m->path);
		buf_puts(out, ": failing since ");
		page_time(out, m->since_ms, "?");
		buf_puts(out, " (");
		text_put_html(out, m->why);
		buf_puts(out, ")</small>");
	}
}

static void page_router_state(buf_t *out, const fleet_router_t *live, const history_t *h, int64_t now)
{
	buf_puts(out, "<dt>State</dt><dd>");
	if (live == NULL)
		buf_puts(out, "<span class=\"why\">not in the configuration</span>");
	else if (live->up)
		buf_puts(out, "<span class=\"up\">up</span>");
	else if (!live->polled)
		buf_puts(out,
			"<span class=\"pending\">pending</span> <span class=\"note\">not polled since the start</span>");
	else {
		buf_printf(out, "<span class=\"down\">down</span> <span class=\"why\">%s: ",
			sample_err_name(live->last_err));
		text_put_html(out, live->last_error);
		buf_puts(out, "</span>");
	}
	page_router_menus(out, live);
	if (page_router_stale(live) && h->last_ok_ms > 0) {
		buf_puts(out, "<br><small class=\"seen\">last seen ");
		page_age(out, now - h->last_ok_ms);
		buf_puts(out, " ago; the values below are from then</small>");
	}
	buf_puts(out, "</dd>");
}

static void page_router_labels(buf_t *out, const fleet_router_t *live)
{
	buf_puts(out, "<dt>Labels</dt><dd>");
	if (live == NULL || live->conf->nlabels == 0)
		buf_puts(out, "&ndash;");
	for (size_t k = 0; live && k < live->conf->nlabels; k++) {
		char *kv = xasprintf("%s=%s", live->conf->labels[k].key, live->conf->labels[k].value);
		buf_puts(out, k ? ", <a href=\"/?label=" : "<a href=\"/?label=");
		text_put_url(out, kv);
		buf_puts(out, "\">");
		text_put_html(out, kv);
		buf_puts(out, "</a>");
		free(kv);
	}
	buf_puts(out, "</dd>");
}

/* Version with channel, firmware with the pending upgrade firmware. */
static void page_router_versions(buf_t *out, const history_t *h)
{
	buf_puts(out, "<dt>RouterOS</dt><dd id=\"version\">");
	page_router_text(out, h->version);
	if (h->channel) {
		buf_puts(out, " (");
		text_put_html(out, h->channel);
		buf_puts(out, ")");
	}
	buf_puts(out, "</dd><dt>Firmware</dt><dd>");
	page_router_text(out, h->firmware);
	if (h->upgrade_firmware && h->firmware && strcmp(h->firmware, h->upgrade_firmware) != 0) {
		buf_puts(out, " (upgrade available: ");
		text_put_html(out, h->upgrade_firmware);
		buf_puts(out, ")");
	}
	buf_puts(out, "</dd>");
}

static void page_router_facts(buf_t *out, const fleet_router_t *live, const history_t *h, int64_t now)
{
	buf_puts(out, "<dl class=\"facts\">");
	page_router_state(out, live, h, now);
	page_router_fact(out, "Board", h->board);
	page_router_versions(out, h);
	page_router_fact(out, "Architecture", h->architecture);
	page_router_fact(out, "CPU", h->cpu_model);
	buf_puts(out, "<dt>Uptime</dt><dd>");
	if (h->uptime_ms >= 0 && live && live->up && now > h->info_ms) {
		page_router_duration(out, h->uptime_ms + (now - h->info_ms));
	} else if (h->uptime_ms >= 0) {
		page_router_duration(out, h->uptime_ms);
		buf_puts(out, " when last read");
	} else {
		buf_puts(out, "&ndash;");
	}
	buf_puts(out, "</dd><dt>Last poll</dt><dd>");
	page_time(out, h->last_poll_ms, "&ndash;");
	buf_puts(out, "</dd><dt>First seen</dt><dd>");
	page_time(out, h->first_seen_ms, "&ndash;");
	buf_puts(out, "</dd>");
	page_router_labels(out, live);
	buf_puts(out, "</dl>\n");
}

static void page_router_range_nav(buf_t *out, const char *range, const history_t *h)
{
	buf_puts(out, "<nav class=\"range\">Range: ");
	for (size_t i = 0; i < sizeof(page_router_ranges) / sizeof(page_router_ranges[0]); i++)
		buf_printf(out,
			strcmp(range, page_router_ranges[i]) == 0 ? "<b>%s</b>"
								  : "<a href=\"?range=%s\">%s</a>",
			page_router_ranges[i], page_router_ranges[i]);
	buf_puts(out, "<span class=\"note\">");
	page_time(out, h->from_ms, "&ndash;");
	buf_puts(out, " &ndash; ");
	page_time(out, h->to_ms, "&ndash;");
	buf_puts(out, ", one point per ");
	page_router_duration(out, h->bucket_ms);
	buf_puts(out,
		h->hourly           ? " from hourly roll-ups"
			: h->rolled ? " from 5-minute roll-ups"
				    : " from raw samples");
	buf_puts(out, "</span></nav>\n");
}

/* ---- charts ---- */

static bool page_router_version_kind(const char *k)
{
	return strcmp(k, "upgrade") == 0 || strcmp(k, "downgrade") == 0;
}

/* Markers for the events in the range; labels are owned by the caller's array (free them). */
static size_t page_router_markers(const history_t *h, const conf_t *conf, struct page_marker **out)
{
	int64_t before = conf && conf->before_ms > 0 ? conf->before_ms : PAGE_ROUTER_WINDOW_MS;
	int64_t after = conf && conf->after_ms > 0 ? conf->after_ms : PAGE_ROUTER_WINDOW_MS;
	size_t n = 0;
	*out = xcalloc(h->nevents ? h->nevents : 1, sizeof(**out));
	for (size_t i = 0; i < h->nevents; i++) {
		const struct history_event *e = &h->events[i];
		if (e->kind == NULL || strcmp(e->kind, "first") == 0 || e->time_ms < h->from_ms ||
			e->time_ms > h->to_ms)
			continue;
		bool ver = page_router_version_kind(e->kind);
		const char *what = ver                     ? e->new_version
			: strcmp(e->kind, "firmware") == 0 ? e->new_firmware
			: strcmp(e->kind, "board") == 0    ? e->new_board
							   : NULL;
		(*out)[n++] = (struct page_marker){
			.t_ms = e->time_ms,
			.cls = ver ? "upgrade" : e->kind,
			.label = xasprintf("%s%s%s", e->kind, what ? " " : "", what ? what : ""),
			.before_ms = ver ? before : 0,
			.after_ms = ver ? after : 0,
		};
	}
	return n;
}

static void page_router_markers_free(struct page_marker *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)m[i].label);
	free(m);
}

/* The capacity of interface ifc's direction dir (0 tx, 1 rx) of router in v as a line, from its
 * window's first poll on (NAN before: an older version's capacity is not this one); 0 when
 * unknown. */
static int page_router_cap_line(const detector_view_t *v, const char *router, const char *ifc, int dir,
	const struct page_axis *ax, double *out)
{
	size_t n;
	const struct capacity *c = detector_view_capacity(v, &n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].router, router) != 0 || strcmp(c[i].interface, ifc) != 0 ||
			c[i].direction[0] != (dir ? 'r' : 't') || !isfinite(c[i].bps))
			continue;
		for (size_t b = 0; b < ax->nbuckets; b++)
			out[b] = ax->from_ms + (int64_t)(b + 1) * ax->bucket_ms > c[i].from_ms ? c[i].bps
											       : NAN;
		return 1;
	}
	return 0;
}

static void page_router_throughput(buf_t *out, const history_t *h, const struct page_axis *ax,
	const struct page_marker *m, size_t nm, const detector_view_t *v, const char *router)
{
	buf_puts(out,
		"<section id=\"throughput\"><h2>WireGuard throughput</h2>"
		"<p class=\"legend\"><span class=\"key tx\"></span>tx (encrypt, router &rarr; tunnel)"
		"<span class=\"key rx\"></span>rx (decrypt)<span class=\"key mk\"></span>upgrade, "
		"shaded: the windows before and after<span class=\"key reboot\"></span>reboot"
		"<span class=\"key cap\"></span>capacity now, dashed (docs/detector.md)</p>\n");
	if (h->nifaces == 0)
		buf_puts(out, "<p class=\"empty\">No WireGuard interface data in this range.</p>");
	for (size_t i = 0; i < h->nifaces; i++) {
		const struct history_iface *f = &h->ifaces[i];
		struct page_line lines[4] = {
			{ .cls = "tx", .label = "tx", .v = f->tx_bps },
			{ .cls = "rx", .label = "rx", .v = f->rx_bps },
		};
		double *cap = xcalloc(2 * ax->nbuckets + 1, sizeof(*cap));
		size_t nl = 2;
		for (int dir = 0; dir < 2; dir++)
			if (v && page_router_cap_line(v, router, f->name, dir, ax, cap + dir * ax->nbuckets))
				lines[nl++] = (struct page_line){ .cls = dir ? "rx cap" : "tx cap",
					.label = dir ? "rx capacity" : "tx capacity",
					.v = cap + dir * ax->nbuckets };
		buf_puts(out, "<h3 class=\"iface\">");
		text_put_html(out, f->name);
		buf_puts(out, "</h3>\n");
		page_chart_lines(out, ax, lines, nl, m, nm);
		free(cap);
	}
	buf_puts(out, "</section>\n");
}

static void page_router_heatmap(
	buf_t *out, const history_t *h, const struct page_axis *ax, const struct page_marker *m, size_t nm)
{
	buf_puts(out,
		"<section id=\"cpu\"><h2>CPU load per core</h2><p class=\"legend\">"
		"<span class=\"key k0\"></span>idle<span class=\"key k5\"></span>50%"
		"<span class=\"key k10\"></span>100%: a core that stays dark red while the others "
		"stay pale is pinned</p>\n");
	if (h->ncores == 0)
		buf_puts(out, "<p class=\"empty\">No CPU data in this range.</p>");
	else
		page_chart_heatmap(out, ax, h->load, h->ncores, m, nm);
	buf_puts(out, "</section>\n");
}

/* The category index of version v, appending it (up to PAGE_ROUTER_MAX_CATS, then the last one). */
static size_t page_router_cat(const char **cats, size_t *ncats, const char *v)
{
	v = v ? v : "unknown";
	for (size_t i = 0; i < *ncats; i++)
		if (strcmp(cats[i], v) == 0)
			return i;
	if (*ncats == PAGE_ROUTER_MAX_CATS)
		return PAGE_ROUTER_MAX_CATS - 1;
	cats[*ncats] = v;
	return (*ncats)++;
}

/* Per bucket: the busiest core's load against tx + rx of all WireGuard interfaces. */
static size_t page_router_points(const history_t *h, struct page_point *pts, const char **cats, size_t *nc)
{
	size_t n = 0;
	for (size_t b = 0; b < h->nbuckets; b++) {
		double busy = NAN, bps = NAN;
		for (size_t c = 0; c < h->ncores; c++) {
			double l = history_load_at(h, c, b);
			if (!isnan(l) && (isnan(busy) || l > busy))
				busy = l;
		}
		for (size_t i = 0; i < h->nifaces; i++) {
			double t = h->ifaces[i].tx_bps[b], r = h->ifaces[i].rx_bps[b];
			if (!isnan(t) && !isnan(r))
				bps = (isnan(bps) ? 0 : bps) + t + r;
		}
		if (isnan(busy) || isnan(bps))
			continue;
		int64_t t = h->from_ms + (int64_t)b * h->bucket_ms + h->bucket_ms / 2;
		pts[n++] = (struct page_point){ .x = busy,
			.y = bps,
			.t_ms = t,
			.cat = page_router_cat(cats, nc, history_version_at(h, t)) };
	}
	return n;
}

static void page_router_scatter(buf_t *out, const history_t *h)
{
	struct page_point *pts = xcalloc(h->nbuckets ? h->nbuckets : 1, sizeof(*pts));
	const char *cats[PAGE_ROUTER_MAX_CATS];
	size_t ncats = 0, n = page_router_points(h, pts, cats, &ncats);
	buf_puts(out,
		"<section id=\"scatter\"><h2>Busiest core against WireGuard throughput "
		"(tx + rx)</h2><p class=\"legend\">By RouterOS version:");
	for (size_t i = 0; i < ncats; i++) {
		buf_printf(out, "<span class=\"key c%zu\"></span><span class=\"cat\">", i % 8);
		text_put_html(out, cats[i]);
		buf_puts(out, "</span>");
	}
	buf_puts(out, "</p>\n");
	if (n == 0)
		buf_puts(out, "<p class=\"empty\">No points with both CPU and throughput yet.</p>");
	else
		page_chart_scatter(out, pts, n, cats, ncats);
	buf_puts(out, "</section>\n");
	free(pts);
}

/* ---- tables ---- */

static void page_router_peer_row(buf_t *out, const struct history_peer *p)
{
	buf_puts(out, "<tr><td>");
	page_router_text(out, p->interface);
	buf_puts(out, "</td><td>");
	page_router_text(out, p->name);
	buf_puts(out, "</td><td class=\"n\">");
	page_chart_rate(out, p->tx_bps);
	buf_puts(out, "</td><td class=\"n\">");
	page_chart_rate(out, p->rx_bps);
	buf_puts(out, "</td><td class=\"n\">");
	page_router_bytes(out, p->tx_bytes);
	buf_puts(out, "</td><td class=\"n\">");
	page_router_bytes(out, p->rx_bytes);
	buf_puts(out, "</td><td>");
	if (p->handshake_age_ms < 0) {
		buf_puts(out, "<span class=\"why\">never</span>");
	} else {
		page_router_duration(out, p->handshake_age_ms);
		buf_puts(out, " ago");
	}
	buf_puts(out, "</td>");
	page_health_peer_cells(out, p);
	buf_puts(out, "<td>");
	page_time(out, p->time_ms, "&ndash;");
	buf_puts(out, "</td></tr>\n");
}

/* The router's [router] section, NULL when it is only in the database. */
static const conf_router_t *page_router_conf_router(const struct page_router_req *req)
{
	for (size_t i = 0; req->conf != NULL && i < req->conf->nrouters; i++)
		if (strcmp(req->conf->routers[i].name, req->name) == 0)
			return &req->conf->routers[i];
	return NULL;
}

/* qsort of peer pointers: by interface, then by name, both in natural order. */
static int page_router_peer_cmp(const void *x, const void *y)
{
	const struct history_peer *a = *(const struct history_peer *const *)x;
	const struct history_peer *b = *(const struct history_peer *const *)y;
	int c = page_router_natcmp(a->interface, b->interface);
	return c != 0 ? c : page_router_natcmp(a->name, b->name);
}

/* SNMP has no WireGuard peer objects (docs/snmp.md): say so rather than show an empty table. */
static void page_router_peers(buf_t *out, const history_t *h, const conf_router_t *rc, bool stale)
{
	bool snmp_only = rc != NULL && rc->rest == NULL && rc->snmp != NULL;
	buf_printf(out, "<section id=\"peers\"><h2>Peers (%zu)</h2>", h->npeers);
	if (snmp_only)
		buf_puts(out,
			"<p class=\"empty\" id=\"peers-snmp-only\">This router is polled over "
			"SNMP only, and per-peer WireGuard counters exist only in the RouterOS REST "
			"API: add <code>rest =</code> to its section to see its peers.</p>");
	if (h->npeers == 0) {
		buf_puts(out,
			snmp_only ? "</section>\n" : "<p class=\"empty\">No peers recorded.</p></section>\n");
		return;
	}
	if (stale)
		buf_puts(out,
			"<p class=\"seen\">The router is down: these are its values at the last poll.</p>");
	buf_printf(out,
		"<div class=\"wrap\"><table id=\"peer-table\"%s><thead><tr><th>Interface</th><th>Peer</th>"
		"<th>tx now</th><th>rx now</th><th>tx total</th><th>rx total</th><th>Last handshake</th>",
		stale ? " class=\"stale\"" : "");
	page_health_peer_heads(out);
	buf_puts(out, "<th>As of (UTC)</th></tr></thead><tbody>\n");
	const struct history_peer **order = xreallocarray(NULL, h->npeers, sizeof(*order));
	for (size_t i = 0; i < h->npeers; i++)
		order[i] = &h->peers[i];
	qsort(order, h->npeers, sizeof(*order), page_router_peer_cmp);
	for (size_t i = 0; i < h->npeers; i++)
		page_router_peer_row(out, order[i]);
	free(order);
	buf_puts(out, "</tbody></table></div></section>\n");
}

static void page_router_event_row(buf_t *out, const struct history_event *e)
{
	buf_puts(out, "<tr><td>");
	page_time(out, e->time_ms, "&ndash;");
	buf_printf(out, "</td><td class=\"ev-%s\">",
		e->kind && page_router_version_kind(e->kind) ? "up" : "other");
	page_router_text(out, e->kind);
	buf_puts(out, "</td><td>");
	page_router_change(out, e->old_version, e->new_version);
	buf_puts(out, "</td><td>");
	page_router_change(out, e->old_firmware, e->new_firmware);
	buf_puts(out, "</td><td>");
	page_router_change(out, e->old_board, e->new_board);
	buf_puts(out, "</td><td>");
	page_router_text(out, e->architecture);
	buf_puts(out, "</td><td>");
	if (e->uptime_ms >= 0)
		page_router_duration(out, e->uptime_ms);
	else
		buf_puts(out, "&ndash;");
	buf_puts(out, "</td></tr>\n");
}

static void page_router_events(buf_t *out, const history_t *h)
{
	buf_puts(out, "<section id=\"history\"><h2>Version and firmware history</h2>");
	if (h->nevents == 0) {
		buf_puts(out, "<p class=\"empty\">Nothing recorded yet.</p></section>\n");
		return;
	}
	buf_puts(out,
		"<div class=\"wrap\"><table id=\"history-table\"><thead><tr><th>When (UTC)</th><th>Event</th>"
		"<th>RouterOS</th><th>Firmware</th><th>Board</th><th>Architecture</th>"
		"<th>Uptime</th></tr></thead><tbody>\n");
	for (size_t i = h->nevents; i-- > 0;)
		page_router_event_row(out, &h->events[i]);
	buf_puts(out, "</tbody></table></div></section>\n");
}

/* ---- the page ---- */

static void page_router_render(buf_t *out, const struct page_router_req *req, const char *range,
	const fleet_router_t *live, const history_t *h)
{
	struct page_axis ax = { .from_ms = h->from_ms, .bucket_ms = h->bucket_ms, .nbuckets = h->nbuckets };
	struct page_marker *m;
	size_t nm = page_router_markers(h, req->conf, &m);
	page_router_head(out, req->name);
	page_router_facts(out, live, h, req->now_ms);
	page_router_range_nav(out, range, h);
	detector_view_t *v = detector_view(req->detector);
	page_router_throughput(out, h, &ax, m, nm, v, req->name);
	detector_view_free(v);
	page_router_heatmap(out, h, &ax, m, nm);
	page_router_scatter(out, h);
	page_router_verdicts(out, req->detector, req->name);
	page_router_profiles(out, req->conf ? req->conf->database : NULL, req->name, h);
	page_health(out, h, page_router_stale(live));
	page_router_peers(out, h, page_router_conf_router(req), page_router_stale(live));
	page_router_events(out, h);
	buf_puts(out, "</body></html>\n");
	page_router_markers_free(m, nm);
}

static void page_router_message(buf_t *out, const char *name, const char *msg)
{
	page_router_head(out, name);
	buf_printf(out, "<p class=\"empty\">%s</p></body></html>\n", msg);
}

static const fleet_router_t *page_router_find(const fleet_view_t *v, const char *name)
{
	for (size_t i = 0; v && i < fleet_view_size(v); i++)
		if (strcmp(fleet_view_at(v, i)->conf->name, name) == 0)
			return fleet_view_at(v, i);
	return NULL;
}

/* history_load for the range; 1 (unknown) when there is no database. */
static int page_router_load(const struct page_router_req *req, const char *range, history_t **h, char **cause)
{
	if (req->conf == NULL || req->conf->database == NULL)
		return 1;
	int64_t span = history_range_ms(range);
	int64_t interval = req->conf->interval_ms;
	for (size_t i = 0; i < req->conf->nrouters; i++) /* not conf.c: the pages link without it */
		if (strcmp(req->conf->routers[i].name, req->name) == 0)
			interval = req->conf->routers[i].interval_ms;
	struct history_req hq = {
		.db_path = req->conf->database,
		.router = req->name,
		.to_ms = req->now_ms,
		.from_ms = span > 0 ? req->now_ms - span : 0,
		.raw_retention_ms = req->conf->retention_ms,
		.min_bucket_ms = 2 * interval,
	};
	return history_load(&hq, h, cause);
}

/* Without a range asked for: the narrowest that holds the newest version change's before and
 * after windows, so the page opens on the upgrade; 24h when there is none, or when only "all"
 * would hold one older than PAGE_ROUTER_UPGRADE_DAYS (a year of history to show one change). */
static const char *page_router_default_range(const struct page_router_req *req)
{
	static const char *const fit[] = { "24h", "7d", "30d" };
	int64_t up = page_router_latest_upgrade(req->detector, req->name);
	int64_t before = req->conf ? req->conf->before_ms : 0;
	if (up <= 0 || up > req->now_ms)
		return PAGE_ROUTER_DEFAULT_RANGE;
	int64_t need = req->now_ms - (up - before);
	for (size_t i = 0; i < sizeof(fit) / sizeof(fit[0]); i++)
		if (history_range_ms(fit[i]) >= need)
			return fit[i];
	return need <= PAGE_ROUTER_UPGRADE_DAYS * 86400000LL ? "all" : PAGE_ROUTER_DEFAULT_RANGE;
}

unsigned page_router(const struct page_router_req *req, buf_t *out)
{
	const char *range = history_range_ms(req->range) >= 0 ? req->range : page_router_default_range(req);
	fleet_view_t *v = req->fleet ? fleet_view(req->fleet) : NULL;
	const fleet_router_t *live = page_router_find(v, req->name);
	history_t *h = NULL;
	char *cause = NULL;
	unsigned status = 200;
	int rc = page_router_load(req, range, &h, &cause);
	if (rc < 0) {
		log_warn("web: router page: %s", cause);
		page_router_message(out, req->name, "The database cannot be read now; see the daemon log.");
		status = 500;
	} else if (rc == 1 && live == NULL) {
		page_router_message(out, req->name, "No router of this name is configured or recorded.");
		status = 404;
	} else if (rc == 1) {
		page_router_message(out, req->name, "No data recorded for this router yet.");
	} else {
		page_router_render(out, req, range, live, h);
	}
	free(cause);
	history_free(h);
	if (v)
		fleet_view_free(v);
	return status;
}
