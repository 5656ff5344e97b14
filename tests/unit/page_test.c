/* SPDX-License-Identifier: Apache-2.0 */
/* page_test: the router page and its parts. URL and HTML escaping; SVG lines, heatmap (runs
 * merged, the pinned core darkest) and scatter with hostile text; history queries over a real
 * store (raw samples, then hand-written roll-ups for a long range); the whole router page with
 * hostile router, interface, peer and version text, and 404 for unknown names; the Upgrades
 * page with hostile versions, boards and architectures.
 * Includes page_router.c and page_upgrades.c to reach their statics. */
#include "web/page_router.c"
#include "web/page_upgrades.c"
#include "unit.h"
#include "unitfs.h"

#include <sqlite3.h>
#include <unistd.h>

#include "detector/view.h"
#include "store/store.h"
#include "web/page_capacity.h"

#define T0            1700000100000LL /* a 5-minute bucket start */
#define STEP          2000LL
#define NPOLL         300 /* 10 minutes of polls */
#define HOSTILE_NAME  "r\"<1>&'x"
#define HOSTILE_BOARD "<script>alert(1)</script>"
#define HOSTILE_PEER  "\"><svg onload=alert(2)>"
#define HOSTILE_IFACE "wg<0>"
#define HOSTILE_VER   "7.22.3<b>"

static int count(const char *h, const char *needle)
{
	int n = 0;
	for (const char *p = h; p && (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

static void test_url_escape(void)
{
	buf_t b;
	buf_init(&b);
	text_put_url(&b, "a b/<\xc3\xa9>\"'&x=1~._-");
	CHECK_STR(b.data, "a%20b%2F%3C%C3%A9%3E%22%27%26x%3D1~._-");
	buf_free(&b);
}

/* The one head of every page, byte for byte what the fleet, router and upgrades pages each
 * wrote before page_open (the title escaped, as the router page's was). */
static void test_page_open(void)
{
	static const char fleet[] =
		"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<meta http-equiv=\"refresh\" content=\"30\">"
		"<title>wgwatch: fleet</title><link rel=\"stylesheet\" href=\"/static/wgwatch.css\">"
		"</head><body>\n";
	static const char router[] =
		"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width\">"
		"<meta http-equiv=\"refresh\" content=\"60\"><title>wgwatch: r&quot;&lt;1&gt;&amp;&#39;x"
		"</title><link rel=\"stylesheet\" href=\"/static/wgwatch.css\"></head><body>\n";
	buf_t b;
	buf_init(&b);
	page_open(&b, "fleet", PAGE_REFRESH_FLEET_S);
	CHECK_STR(b.data, fleet);
	buf_reset(&b);
	page_open(&b, HOSTILE_NAME, PAGE_REFRESH_S);
	CHECK_STR(b.data, router);
	buf_free(&b);
}

static void test_lines(void)
{
	double tx[6] = { 1e6, 2e6, NAN, 3e6, NAN, NAN }, rx[6] = { NAN, NAN, NAN, NAN, 5e5, NAN };
	struct page_axis ax = { .from_ms = T0, .bucket_ms = 1000, .nbuckets = 6 };
	struct page_line l[2] = { { "tx", "tx", tx }, { "rx", "rx", rx } };
	struct page_marker m = { .t_ms = T0 + 2500,
		.cls = "upgrade",
		.label = "upgrade <script>x",
		.before_ms = 1000,
		.after_ms = 1000 };
	buf_t b;
	buf_init(&b);
	page_chart_lines(&b, &ax, l, 2, &m, 1);
	CHECK(strstr(b.data, "<script") == NULL);
	CHECK_INT(count(b.data, "upgrade &lt;script&gt;x"), 2); /* title and label */
	CHECK_INT(count(b.data, "<polyline class=\"tx\""), 1);  /* 1e6, 2e6; 3e6 is alone */
	CHECK_INT(count(b.data, "<circle class=\"tx\""), 1);
	CHECK_INT(count(b.data, "<circle class=\"rx\""), 1);
	CHECK(strstr(b.data, "class=\"win-before\"") && strstr(b.data, "class=\"win-after\""));
	CHECK(strstr(b.data, "style=") == NULL);
	buf_free(&b);
}

static void test_heatmap(void)
{
	enum { NB = 10 };
	double load[3 * NB];
	for (size_t b = 0; b < NB; b++)
		load[b] = 0.1, load[NB + b] = 1.0, load[2 * NB + b] = b < 5 ? 0.1 : NAN;
	struct page_axis ax = { .from_ms = T0, .bucket_ms = 1000, .nbuckets = NB };
	buf_t b;
	buf_init(&b);
	page_chart_heatmap(&b, &ax, load, 3, NULL, 0);
	CHECK_INT(count(b.data, "<rect class=\"hm\""), 3); /* each row one run */
	CHECK(strstr(b.data, "fill=\"#b00020\"><title>cpu1 100%</title>") != NULL);
	CHECK(strstr(b.data, "<title>cpu0 10%</title>") != NULL);
	buf_free(&b);
}

static void test_scatter(void)
{
	struct page_point p[3] = { { 1.0, 6e8, 0, T0 }, { 1.0, 3.5e8, 1, T0 }, { 0.5, 1e8, 1, T0 } };
	const char *cats[2] = { "7.21.5", "<i>7.22.3" };
	buf_t b;
	buf_init(&b);
	page_chart_scatter(&b, p, 3, cats, 2);
	CHECK_INT(count(b.data, "<circle class=\"pt\""), 3);
	CHECK_INT(count(b.data, "fill=\"#d62728\"><title>&lt;i&gt;7.22.3"), 2);
	CHECK(strstr(b.data, "<i>") == NULL);
	buf_reset(&b);
	page_chart_rate(&b, 1.6e9);
	CHECK_STR(b.data, "1.60 Gbit/s");
	buf_reset(&b);
	page_router_duration(&b, 3 * 86400000LL + 4 * 3600000LL + 5000);
	CHECK_STR(b.data, "3d4h");
	buf_reset(&b);
	page_ratio_change(&b, 0.342);
	CHECK_STR(b.data, "&minus;66&nbsp;%");
	buf_reset(&b);
	page_age(&b, 301000);
	CHECK_STR(b.data, "5&nbsp;min");
	/* before/after: both bars of every row on one axis, the after bar classed, labels escaped */
	struct page_bar bars[2] = { { "<b>wg0 tx", 377e6, 126e6, "worse" }, { "wg0 rx", 200e6, 201e6, "" } };
	buf_reset(&b);
	page_chart_pairs(&b, bars, 2, "x");
	CHECK_INT(count(b.data, "<rect class=\"before\""), 2);
	CHECK_INT(count(b.data, "<rect class=\"after worse\""), 1);
	CHECK(strstr(b.data, "&lt;b&gt;wg0 tx") != NULL && strstr(b.data, "<b>") == NULL);
	CHECK(strstr(b.data, "<title>before: 377 Mbit/s</title>") != NULL);
	buf_free(&b);
}

/* ---- a real store ---- */

/* Poll i: 4 cores (core 2 pinned), one wg interface at 380 then 130 Mbit/s tx and 220 rx,
 * two peers; the upgrade to HOSTILE_VER (a reboot: counters restart) at poll NPOLL / 2. */
static sample_t *test_sample(int i)
{
	static uint64_t tx, rx;
	bool after = i >= NPOLL / 2;
	if (i == NPOLL / 2)
		tx = rx = 0;
	tx += (uint64_t)((after ? 130e6 : 380e6) / 8 * (STEP / 1000));
	rx += (uint64_t)(220e6 / 8 * (STEP / 1000));
	sample_t *s = sample_new(HOSTILE_NAME, T0 + i * STEP, "rest");
	s->version = xstrdup(after ? HOSTILE_VER : "7.21.5");
	s->board = xstrdup(HOSTILE_BOARD);
	s->architecture = xstrdup("tile");
	s->uptime_ms = (after ? i - NPOLL / 2 : 86400 + i) * STEP;
	sample_set_cores(s, 4);
	for (size_t c = 0; c < 4; c++)
		s->cores[c].load = c == 2 ? 1.0 : 0.2;
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup(HOSTILE_IFACE), f->type = xstrdup("wg"), f->running = true;
	f->tx_bytes = tx, f->rx_bytes = rx;
	s->have_peers = true;
	for (int k = 0; k < 2; k++) {
		struct sample_peer *p = sample_add_peer(s);
		p->interface = xstrdup(HOSTILE_IFACE);
		p->peer = k ? xstrdup(HOSTILE_PEER) : xstrdup("quiet");
		p->public_key = xasprintf("key%d", k);
		p->tx_bytes = k ? tx : 0, p->rx_bytes = k ? rx : 0;
		p->last_handshake_ms = k ? 65000 : -1;
		p->endpoint = k ? xstrdup("198.51.100.7") : NULL;
		p->endpoint_port = k ? 51209 : 0;
		p->allowed = xstrdup(k ? "10.0.0.2/32,<b>" : "10.0.0.3/32");
		p->disabled = k == 0;
	}
	s->health_fresh = i % 2 == 0; /* read every other poll, as the collectors do */
	sample_add_sensor(s, "cpu-temperature", SAMPLE_UNIT_CELSIUS, 50 + i % 10);
	sample_add_sensor(s, "psu<1>-state", SAMPLE_UNIT_STATE, i == 2 ? 0 : 1);
	s->mem_free = 1 << 30, s->mem_total = 4LL << 30;
	return s;
}

static void test_fill_store(conf_t *conf)
{
	store_t *st = NULL;
	char *cause = NULL;
	CHECK_INT(store_open(conf->database, conf, &st, &cause), 0);
	free(cause);
	if (st == NULL)
		return;
	for (int i = 0; i < NPOLL; i++)
		store_submit(st, test_sample(i));
	store_flush(st);
	store_close(st);
}

static void test_history_raw(const conf_t *conf)
{
	struct history_req rq = { .db_path = conf->database,
		.router = HOSTILE_NAME,
		.from_ms = T0 - 3600000,
		.to_ms = T0 + NPOLL * STEP,
		.min_bucket_ms = 2 * STEP };
	history_t *h = NULL;
	char *cause = NULL;
	CHECK_INT(history_load(&rq, &h, &cause), 0);
	if (h == NULL) {
		fprintf(stderr, "history_load: %s\n", cause ? cause : "?");
		free(cause);
		return;
	}
	CHECK(!h->rolled);
	CHECK_INT(h->from_ms, T0); /* clamped to the first sample */
	CHECK(h->nbuckets <= HISTORY_MAX_POINTS + 1);
	CHECK_INT(h->bucket_ms, 4000);
	history_t *fine = NULL; /* an interval now of 0.5 s: still two stored (2 s) polls a bucket */
	rq.min_bucket_ms = 1000;
	CHECK_INT(history_load(&rq, &fine, &cause), 0);
	CHECK_INT(fine ? fine->bucket_ms : 0, 4000);
	history_free(fine);
	rq.min_bucket_ms = 2 * STEP;
	CHECK_INT(h->nifaces, 1);
	CHECK_INT(h->ncores, 4);
	CHECK_NEAR(history_load_at(h, 2, 10), 1.0, 1e-9);
	CHECK_NEAR(history_load_at(h, 0, 10), 0.2, 1e-9);
	CHECK_NEAR(h->ifaces[0].tx_bps[10], 380e6, 1e3);
	CHECK_NEAR(h->ifaces[0].tx_bps[h->nbuckets - 3], 130e6, 1e3);
	CHECK_NEAR(h->ifaces[0].rx_bps[h->nbuckets - 3], 220e6, 1e3);
	CHECK_INT(h->nevents, 2);
	CHECK_STR(h->nevents == 2 ? h->events[1].kind : NULL, "upgrade");
	CHECK_STR(history_version_at(h, T0 + 10 * STEP), "7.21.5");
	CHECK_STR(history_version_at(h, T0 + (NPOLL - 1) * STEP), HOSTILE_VER);
	CHECK_INT(h->npeers, 2);
	CHECK_NEAR(h->npeers == 2 ? h->peers[0].tx_bps : 0, 130e6, 1e3); /* "\"><svg" sorts first */
	CHECK_INT(h->npeers == 2 ? h->peers[1].handshake_age_ms : 0, -1);
	history_free(h);
	free(cause);
}

/* Roll-ups for 10 days before T0, written by hand: a 30-day range must read them. */
static void test_history_rollup(const conf_t *conf)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(conf->database, &db) == SQLITE_OK);
	char *sql = xasprintf(
		"WITH RECURSIVE b(t) AS (SELECT %lld UNION ALL SELECT t + 300000 FROM b WHERE t < %lld)"
		" INSERT INTO iface_rollup SELECT (SELECT id FROM interfaces), t, 150, 1000, 2000,"
		" 3000, 4000, 0, 0 FROM b;"
		"WITH RECURSIVE b(t) AS (SELECT %lld UNION ALL SELECT t + 300000 FROM b WHERE t < %lld)"
		" INSERT INTO cpu_rollup SELECT (SELECT id FROM routers), t, 3, 150, 400, 500, 600 FROM b;"
		"INSERT OR REPLACE INTO store_state VALUES ('rollup_ms', %lld);"
		"UPDATE routers SET first_seen_ms = %lld",
		T0 - 10 * 86400000LL, T0 - 300000, T0 - 10 * 86400000LL, T0 - 300000, T0,
		T0 - 10 * 86400000LL);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	free(sql);
	sqlite3_close(db);
	struct history_req rq = { .db_path = conf->database,
		.router = HOSTILE_NAME,
		.from_ms = T0 - 30 * 86400000LL,
		.to_ms = T0 + NPOLL * STEP };
	history_t *h = NULL;
	char *cause = NULL;
	CHECK_INT(history_load(&rq, &h, &cause), 0);
	free(cause);
	if (h == NULL)
		return;
	CHECK(h->rolled);
	CHECK_INT(h->bucket_ms % 300000, 0);
	CHECK(h->nbuckets <= HISTORY_MAX_POINTS + 1);
	size_t b = 10;
	CHECK_NEAR(h->ifaces[0].tx_bps[b], 3000 * 8.0, 1e-6); /* bytes/s to bits/s */
	CHECK_NEAR(h->ifaces[0].rx_bps[b], 1000 * 8.0, 1e-6);
	CHECK_NEAR(history_load_at(h, 3, b), 0.5, 1e-9);
	CHECK(isnan(history_load_at(h, 0, b)));
	/* the raw samples after the roll-ups still count (tail of the axis) */
	CHECK(!isnan(history_load_at(h, 2, h->nbuckets - 1)));
	history_free(h);
}

static void test_router_page(const conf_t *conf)
{
	buf_t b;
	buf_init(&b);
	struct page_router_req rq = {
		.conf = conf, .name = HOSTILE_NAME, .range = "all", .now_ms = T0 + NPOLL * STEP
	};
	CHECK_INT(page_router(&rq, &b), 200);
	const char *h = b.data;
	CHECK(strstr(h, "<script") == NULL && strstr(h, "<svg onload") == NULL);
	CHECK(strstr(h, "7.22.3<b>") == NULL && strstr(h, "style=") == NULL);
	CHECK(strstr(h, "<h1 id=\"router-name\">r&quot;&lt;1&gt;&amp;&#39;x</h1>") != NULL);
	CHECK(strstr(h, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	CHECK(strstr(h, "<td>&quot;&gt;&lt;svg onload=alert(2)&gt;</td>") != NULL);
	CHECK(strstr(h, "<h3 class=\"iface\">wg&lt;0&gt;</h3>") != NULL);
	CHECK(strstr(h, "<g class=\"mk upgrade\"><title>upgrade 7.22.3&lt;b&gt;</title>") != NULL);
	CHECK(strstr(h, "7.21.5 &rarr; 7.22.3&lt;b&gt;") != NULL);
	CHECK(count(h, "<circle class=\"pt\"") > 50);
	CHECK(strstr(h, "<b>all</b>") != NULL && strstr(h, "href=\"?range=7d\"") != NULL);
	CHECK(strstr(h, "from raw samples") != NULL);
	/* health: the newest reading, the range's lowest and highest, a failed state in the range */
	CHECK(strstr(h, "<section id=\"health\">") != NULL);
	CHECK(strstr(h,
		      "<td>psu&lt;1&gt;-state</td><td class=\"n\">ok</td><td class=\"n\"><span "
		      "class=\"hot\">not ok</span></td>") != NULL);
	/* only the polls that read health are stored: even ones, 50..58, never an odd 59 */
	CHECK(strstr(h,
		      "<td class=\"n\">58&nbsp;&deg;C</td><td class=\"n\">50&nbsp;&deg;C &ndash; "
		      "58&nbsp;&deg;C</td>") != NULL);
	CHECK(strstr(h,
		      "<td>memory</td><td class=\"n\">1024&nbsp;MiB free of 4096&nbsp;MiB (25&nbsp;%)</td>") !=
		NULL);
	/* the temperatures over the range as a chart, its legend escaped; no chart of states */
	CHECK(strstr(h, "<svg class=\"chart lines gauges\"") != NULL &&
		strstr(h, "aria-label=\"Temperatures\"") != NULL);
	CHECK(strstr(h, "<span class=\"key c0\"></span>cpu-temperature</p>") != NULL);
	CHECK(strstr(h, "<polyline class=\"g\" stroke=\"#1f77b4\" points=\"") != NULL);
	CHECK(count(h, "<svg class=\"chart lines gauges\"") == 1);
	/* peers: endpoint, allowed addresses (escaped), disabled */
	CHECK(strstr(h, "<td>198.51.100.7:51209</td><td>10.0.0.2/32,&lt;b&gt;</td>") != NULL);
	CHECK(strstr(h, "<td><span class=\"why\">disabled</span> </td><td>10.0.0.3/32</td>") != NULL);
	buf_reset(&b);
	rq.name = "<nobody>";
	CHECK_INT(page_router(&rq, &b), 404);
	CHECK(strstr(b.data, "&lt;nobody&gt;") != NULL && strstr(b.data, "<nobody>") == NULL);
	buf_free(&b);
}

/* A failing optional menu of a router that is up: one line in its state, since when and why,
 * the router's text escaped; none for a good menu, none while the router is down. */
static void test_router_menus(void)
{
	sample_t *s = sample_new("r1", T0, "rest");
	sample_add_menu(s, "/system/routerboard", NULL, 0);
	sample_add_menu(s, "/system/health", "HTTP 500 <b>Internal</b>", 1700000000000);
	fleet_router_t live = { .up = true, .polled = true, .last = s };
	buf_t b;
	buf_init(&b);
	page_router_menus(&b, &live);
	CHECK_STR(b.data,
		"<br><small class=\"why menu\">/system/health: failing since 2023-11-14 22:13:20Z "
		"(HTTP 500 &lt;b&gt;Internal&lt;/b&gt;)</small>");
	buf_reset(&b);
	live.up = false;
	page_router_menus(&b, &live);
	CHECK(b.len == 0);
	buf_free(&b);
	sample_free(s);
}

/* After test_history_rollup: a 30-day page reads the roll-ups. */
static void test_router_page_rolled(const conf_t *conf)
{
	buf_t b;
	buf_init(&b);
	struct page_router_req rq = {
		.conf = conf, .name = HOSTILE_NAME, .range = "30d", .now_ms = T0 + NPOLL * STEP
	};
	CHECK_INT(page_router(&rq, &b), 200);
	CHECK(strstr(b.data, "from 5-minute roll-ups") != NULL);
	CHECK(strstr(b.data, "<b>30d</b>") != NULL);
	CHECK(count(b.data, "<circle class=\"pt\"") > 100);
	buf_free(&b);
}

/* ---- the Upgrades page, from plain detector data with hostile text ---- */

#define UP_FROM  "7.21.5\"><script>alert(1)</script>"
#define UP_TO    "javascript:alert(2)"
#define UP_ARCH  "'onmouseover=alert(3) x='"
#define UP_BOARD "<img src=x onerror=alert(4)>&amp;"
#define MUT(s)   ((char *)(s)) /* the structs hold char *; these are never written */

static void test_upgrades_data(struct detector_cohort c[2], struct detector_verdict v[3])
{
	c[0] = (struct detector_cohort){ .from_version = MUT(UP_FROM),
		.to_version = MUT(UP_TO),
		.architecture = MUT(UP_ARCH),
		.board = MUT(UP_BOARD),
		.routers = 2,
		.regressed = 1,
		.median_ratio_tx = 0.342,
		.median_ratio_rx = NAN,
		.decided_tx = 2 };
	c[1] = (struct detector_cohort){ .from_version = MUT("7.21.5"),
		.to_version = MUT("7.22.3"),
		.routers = 1,
		.median_ratio_tx = 1.0,
		.median_ratio_rx = 0.99,
		.decided_tx = 1,
		.decided_rx = 1 };
	struct detector_verdict base = { .interface = MUT(HOSTILE_IFACE),
		.from_version = MUT(UP_FROM),
		.to_version = MUT(UP_TO),
		.architecture = MUT(UP_ARCH),
		.board = MUT(UP_BOARD),
		.final = true,
		.method = DETECTOR_M_SATURATION,
		.before_bps = 380e6,
		.after_bps = 130e6 };
	v[0] = base, v[0].router = MUT(HOSTILE_NAME), v[0].direction = "tx", v[0].ratio = 0.342;
	v[0].verdict = DETECTOR_REGRESSION, v[0].upgrade_id = 41;
	v[1] = base, v[1].router = MUT("zz-ok"), v[1].direction = "tx", v[1].ratio = 0.98;
	v[1].verdict = DETECTOR_UNCHANGED, v[1].upgrade_id = 42;
	v[2] = (struct detector_verdict){ .router = MUT("plain"),
		.interface = MUT("wg0"),
		.direction = "rx",
		.from_version = MUT("7.21.5"),
		.to_version = MUT("7.22.3"),
		.ratio = 0.99,
		.verdict = DETECTOR_UNCHANGED,
		.method = DETECTOR_M_COST };
}

static void test_upgrades_inert(const char *h)
{
	CHECK(strstr(h, "<script") == NULL && strstr(h, "<img") == NULL);
	CHECK(strstr(h, "style=") == NULL && strstr(h, "href=\"javascript") == NULL);
	CHECK(strstr(h, " onmouseover=") == NULL && strstr(h, "'onmouseover") == NULL);
}

static void test_upgrades_table(void)
{
	struct detector_cohort c[2];
	struct detector_verdict v[3];
	test_upgrades_data(c, v);
	struct page_upgrades_data d = { .running = true, .c = c, .nc = 2, .v = v, .nv = 3 };
	struct page_upgrades_req all = { 0 };
	buf_t b;
	buf_init(&b);
	CHECK_INT(page_upgrades_render(&d, &all, &b), 200);
	const char *h = b.data;
	test_upgrades_inert(h);
	CHECK_INT(count(h, "<tr class=\"cohort\">"), 2);
	CHECK(strstr(h,
		      "7.21.5&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; &rarr; "
		      "javascript:alert(2)</a>") != NULL);
	CHECK(strstr(h, "&#39;onmouseover=alert(3) x=&#39;</a>") != NULL);
	CHECK(strstr(h, "&lt;img src=x onerror=alert(4)&gt;&amp;amp;</a>") != NULL);
	CHECK(strstr(h,
		      "href=\"/upgrades?from=7.21.5%22%3E%3Cscript%3Ealert%281%29%3C%2Fscript%3E"
		      "&amp;to=javascript%3Aalert%282%29&amp;arch=%27onmouseover%3Dalert%283%29%20x%3D%27"
		      "&amp;board=%3Cimg%20src%3Dx%20onerror%3Dalert%284%29%3E%26amp%3B"
		      "&amp;verdict=regression\">") != NULL);
	CHECK(strstr(h, "href=\"/?board=%3Cimg%20src") != NULL);
	CHECK(strstr(h, "<span class=\"flag\">1 of 2</span>") != NULL);
	/* medians and the strip count routers, not verdicts: one dot per router, names escaped */
	CHECK(strstr(h, "<span class=\"hot\">0.66</span></a> <small>(2 routers)</small>") != NULL);
	CHECK(strstr(h, "0.99</a> <small>(1 router)</small>") != NULL);
	CHECK_INT(count(h, "<circle class=\"m m-regression\""), 1);
	CHECK_INT(count(h, "<circle class=\"m m-other\""), 2);
	CHECK(strstr(h, "<title>" HOSTILE_NAME) == NULL);
	/* the unknown architecture and board: shown as unknown, linked as empty values */
	CHECK(strstr(h, "&amp;to=7.22.3&amp;arch=&amp;board=\"") != NULL);
	CHECK(count(h, "<span class=\"empty\">unknown</span>") >= 2);
	CHECK(strstr(h, "id=\"router-table\"") == NULL);
	buf_free(&b);
}

static void test_upgrades_cohort(void)
{
	struct detector_cohort c[2];
	struct detector_verdict v[3];
	test_upgrades_data(c, v);
	struct page_upgrades_data d = { .running = true, .c = c, .nc = 2, .v = v, .nv = 3 };
	struct page_upgrades_req rq = { .from = UP_FROM, .to = UP_TO, .arch = UP_ARCH, .board = UP_BOARD };
	buf_t b;
	buf_init(&b);
	CHECK_INT(page_upgrades_render(&d, &rq, &b), 200);
	test_upgrades_inert(b.data);
	CHECK_INT(count(b.data, "<tr class=\"cohort\">"), 1);
	CHECK_INT(count(b.data, "<tr class=\"verdict\">"), 2);
	/* each verdict links its upgrade's report */
	CHECK_INT(count(b.data,
			  "<a class=\"report\" href=\"/api/v1/upgrades/41/report.md\">report</a></td></tr>"),
		1);
	CHECK_INT(count(b.data,
			  "<a class=\"report\" href=\"/api/v1/upgrades/42/report.md\">report</a></td></tr>"),
		1);
	CHECK(strstr(b.data,
		      "<a href=\"/router/r%22%3C1%3E%26%27x?range=all\">"
		      "r&quot;&lt;1&gt;&amp;&#39;x</a>") != NULL);
	buf_reset(&b);
	rq.verdict = "regression";
	CHECK_INT(page_upgrades_render(&d, &rq, &b), 200);
	CHECK_INT(count(b.data, "<tr class=\"verdict\">"), 1);
	CHECK(strstr(b.data, ">zz-ok</a>") == NULL); /* listed: no; a dot in the cohort's chart: yes */
	CHECK(strstr(b.data, "<title>zz-ok tx: 0.98</title>") != NULL);
	buf_reset(&b);
	rq = (struct page_upgrades_req){ .from = "7.21.5", .to = "7.22.3", .arch = "", .board = "" };
	CHECK_INT(page_upgrades_render(&d, &rq, &b), 200);
	CHECK_INT(count(b.data, "<tr class=\"verdict\">"), 1);
	CHECK(strstr(b.data, ">plain</a>") != NULL);
	buf_reset(&b);
	rq.to = "<nope>";
	CHECK_INT(page_upgrades_render(&d, &rq, &b), 404);
	CHECK(strstr(b.data, "&lt;nope&gt;") != NULL && strstr(b.data, "<nope>") == NULL);
	buf_reset(&b);
	CHECK_INT(page_upgrades(NULL, &b), 200); /* no detector runs in this test */
	CHECK(strstr(b.data, "not running") != NULL);
	buf_free(&b);
}

/* ---- the fleet page: each router's newest version change, in one query ---- */

/* Beside HOSTILE_NAME (upgraded at poll NPOLL / 2): "b-down" upgraded then downgraded (the
 * newest is shown), "c-reboot" only rebooted (no date). */
static void test_changes_data(const conf_t *conf)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(conf->database, &db) == SQLITE_OK);
	char *sql = xasprintf(
		"INSERT INTO routers (name, first_seen_ms) VALUES ('b-down', %lld), ('c-reboot', %lld);"
		"INSERT INTO version_history (router_id, time_ms, kind, old_version, new_version)"
		" SELECT id, %lld, 'first', NULL, '7.20.1' FROM routers WHERE name GLOB '[bc]-*';"
		"INSERT INTO version_history (router_id, time_ms, kind, old_version, new_version)"
		" SELECT id, %lld, 'upgrade', '7.20.1', '7.22.3' FROM routers WHERE name = 'b-down';"
		"INSERT INTO version_history (router_id, time_ms, kind, old_version, new_version)"
		" SELECT id, %lld, 'downgrade', '7.22.3', '7.20.1' FROM routers WHERE name = 'b-down';"
		"INSERT INTO version_history (router_id, time_ms, kind, old_version, new_version)"
		" SELECT id, %lld, 'reboot', '7.20.1', '7.20.1' FROM routers WHERE name GLOB '[bc]-*';",
		T0, T0, T0, T0 + 86400000LL, T0 + 2 * 86400000LL, T0 + 3 * 86400000LL);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	free(sql);
	sqlite3_close(db);
}

static void test_last_changes(const conf_t *conf)
{
	struct history_change *c = NULL;
	size_t n = 99;
	char *cause = NULL;
	CHECK_INT(history_last_changes(conf->database, &c, &n, &cause), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(c[0].router, "b-down"); /* sorted by name */
		CHECK_STR(c[0].kind, "downgrade");
		CHECK_INT(c[0].time_ms, T0 + 2 * 86400000LL);
		CHECK_STR(c[1].router, HOSTILE_NAME);
		CHECK_STR(c[1].kind, "upgrade");
		CHECK_STR(c[1].old_version, "7.21.5");
		CHECK_STR(c[1].new_version, HOSTILE_VER);
		CHECK_INT(c[1].time_ms, T0 + NPOLL / 2 * STEP);
	}
	CHECK(history_change_find(c, n, HOSTILE_NAME) == (n == 2 ? &c[1] : NULL));
	CHECK(history_change_find(c, n, "c-reboot") == NULL);
	CHECK(history_change_find(c, n, "zzz") == NULL && history_change_find(NULL, 0, "a") == NULL);
	history_changes_free(c, n);
	CHECK_INT(history_last_changes("/nonexistent/wgwatch.db", &c, &n, &cause), -1);
	CHECK(cause != NULL && c == NULL && n == 0);
	free(cause);
}

/* The version cell: "upgraded DAY" with the change in the tooltip, escaped; none without a
 * database or when it cannot be read. */
static void test_fleet_dates(const conf_t *dbconf)
{
	conf_router_t rs[3] = { { .name = MUT(HOSTILE_NAME) }, { .name = MUT("b-down") },
		{ .name = MUT("c-reboot") } };
	conf_t conf = { .routers = rs, .nrouters = 3, .interval_ms = STEP };
	fleet_t *f = fleet_create(&conf);
	sample_t *s = test_sample(NPOLL - 1);
	fleet_update(f, s);
	sample_free(s);
	buf_t b;
	buf_init(&b);
	page_fleet_render(&(struct page_fleet_req){ .fleet = f, .database = dbconf->database }, &b);
	CHECK(strstr(b.data,
		      "<small class=\"since\" title=\"upgrade 7.21.5 &rarr; 7.22.3&lt;b&gt; at "
		      "2023-11-14 22:20:00Z\">upgraded 2023-11-14</small>") != NULL);
	CHECK(strstr(b.data,
		      "title=\"downgrade 7.22.3 &rarr; 7.20.1 at 2023-11-16 22:15:00Z\">"
		      "downgraded 2023-11-16</small>") != NULL);
	CHECK_INT(count(b.data, "class=\"since\""), 2); /* not c-reboot */
	CHECK(strstr(b.data, "7.22.3<b>") == NULL);
	buf_reset(&b);
	page_fleet_render(&(struct page_fleet_req){ .fleet = f }, &b);
	CHECK(strstr(b.data, "class=\"since\"") == NULL && strstr(b.data, "id=\"fleet\"") != NULL);
	buf_reset(&b);
	page_fleet_render(&(struct page_fleet_req){ .fleet = f, .database = "/nonexistent/x.db" }, &b);
	CHECK(strstr(b.data, "class=\"since\"") == NULL && strstr(b.data, "</html>") != NULL);
	buf_free(&b);
	fleet_destroy(f);
}

/* A router polled over SNMP only: the peers section says why it has no peers. */
static void test_router_page_snmp_only(const conf_t *dbconf)
{
	conf_router_t r = { .name = MUT(HOSTILE_NAME), .snmp = MUT("192.0.2.1"), .interval_ms = STEP };
	conf_t conf = *dbconf;
	buf_t b;
	buf_init(&b);
	conf.routers = &r;
	conf.nrouters = 1;
	struct page_router_req rq = {
		.conf = &conf, .name = HOSTILE_NAME, .range = "all", .now_ms = T0 + NPOLL * STEP
	};
	CHECK_INT(page_router(&rq, &b), 200);
	CHECK(strstr(b.data, "id=\"peers-snmp-only\"") != NULL);
	CHECK(strstr(b.data, "exist only in the RouterOS REST API") != NULL);
	buf_reset(&b);
	r.rest = MUT("https://192.0.2.1"); /* REST as well: no such note */
	CHECK_INT(page_router(&rq, &b), 200);
	CHECK(strstr(b.data, "peers-snmp-only") == NULL);
	buf_free(&b);
}

/* Natural order: digit runs by value, however long or zero-padded; the order stays total. */
static void test_natcmp(void)
{
	static const struct {
		const char *a, *b;
		int want;
	} t[] = {
		{ "peer1", "peer2", -1 },
		{ "peer2", "peer10", -1 },
		{ "peer10", "peer9", 1 },
		{ "peer10", "peer10", 0 },
		{ "peer", "peer1", -1 },
		{ "", "a", -1 },
		{ "", "", 0 },
		{ "wg1-peer2", "wg1-peer10", -1 },
		{ "wg2-peer1", "wg10-peer1", -1 },
		{ "a1b2", "a1b10", -1 },
		{ "peer01", "peer1", -1 },
		{ "peer1", "peer01", 1 },
		{ "peer007", "peer8", -1 },
		{ "x99999999999999999999999", "x100000000000000000000000", -1 },
		{ "abc", "abd", -1 },
		{ "Peer1", "peer1", -1 },
		{ "peer1a", "peer1b", -1 },
		{ "1.10", "1.9", 1 },
		{ "10", "9a", 1 },
		{ NULL, "a", -1 },
		{ NULL, NULL, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_INT(page_router_natcmp(t[i].a, t[i].b), t[i].want);
		CHECK_INT(page_router_natcmp(t[i].b, t[i].a), -t[i].want);
	}
}

/* The peers table lists peer2 before peer10, grouped by interface in the same order. */
static void test_peer_order(void)
{
	struct history_peer p[] = {
		{ .interface = MUT("wg10"), .name = MUT("peer1"), .handshake_age_ms = -1 },
		{ .interface = MUT("wg2"), .name = MUT("peer10"), .handshake_age_ms = -1 },
		{ .interface = MUT("wg2"), .name = MUT("peer1"), .handshake_age_ms = -1 },
		{ .interface = MUT("wg2"), .name = MUT("peer2"), .handshake_age_ms = -1 },
	};
	history_t h = { .peers = p, .npeers = sizeof(p) / sizeof(p[0]) };
	buf_t b;
	buf_init(&b);
	page_router_peers(&b, &h, NULL, false);
	CHECK(strstr(b.data, "class=\"stale\"") == NULL);
	const char *a = strstr(b.data, "<td>wg2</td><td>peer1</td>");
	const char *c = strstr(b.data, "<td>wg2</td><td>peer2</td>");
	const char *d = strstr(b.data, "<td>wg2</td><td>peer10</td>");
	const char *e = strstr(b.data, "<td>wg10</td><td>peer1</td>");
	CHECK(a != NULL && c != NULL && d != NULL && e != NULL);
	CHECK(a < c && c < d && d < e);
	CHECK_STR(p[0].interface, "wg10"); /* the history itself is left as it was */
	buf_reset(&b);
	page_router_peers(&b, &h, NULL, true); /* the router is down: its last values, greyed */
	CHECK(strstr(b.data, "<table id=\"peer-table\" class=\"stale\">") != NULL);
	CHECK(strstr(b.data, "values at the last poll") != NULL);
	buf_free(&b);
}

/* The fleet page's headroom: the least known per router, the table least first, unknown left
 * out, a pinned stream "at its limit", hostile names escaped. */
static void test_capacity_table(void)
{
	char hostile[] = HOSTILE_NAME, wg0[] = "wg0", wgh[] = HOSTILE_IFACE, ccr[] = "ccr1009",
	     quiet[] = "quiet";
	struct capacity c[4] = {
		{ .router = hostile,
			.interface = wg0,
			.direction = "tx",
			.method = CAPACITY_PROJECTED,
			.bps = 400e6,
			.headroom = 0.3,
			.p95_week = 280e6,
			.exhausted_ms = CAPACITY_NEVER },
		{ .router = hostile,
			.interface = wgh,
			.direction = "rx",
			.method = CAPACITY_PROJECTED,
			.bps = 300e6,
			.headroom = 0.08,
			.p95_week = 276e6,
			.exhausted_ms = 1800000000000LL },
		{ .router = ccr,
			.interface = wg0,
			.direction = "tx",
			.method = CAPACITY_PINNED,
			.bps = 128e6,
			.headroom = 0,
			.p95_week = 128e6,
			.exhausted_ms = CAPACITY_NEVER },
		{ .router = quiet,
			.interface = wg0,
			.direction = "tx",
			.bps = NAN,
			.headroom = NAN,
			.exhausted_ms = CAPACITY_NEVER },
	};
	detector_view_t *v = view_build(NULL, 0, NULL, 0, NULL);
	view_set_capacity(v, c, 4);
	CHECK(page_capacity_least(v, HOSTILE_NAME) != NULL &&
		page_capacity_least(v, HOSTILE_NAME)->headroom == 0.08);
	CHECK(page_capacity_least(v, "quiet") == NULL);
	buf_t b;
	buf_init(&b);
	page_capacity_table(&b, v);
	const char *h = b.data, *a = strstr(h, "ccr1009"), *r = strstr(h, "wg&lt;0&gt; rx");
	CHECK(a != NULL && r != NULL && a < r && strstr(h, "quiet") == NULL);
	CHECK(strstr(h, "0&nbsp;% at its limit") != NULL && strstr(h, "8&nbsp;%") != NULL);
	CHECK(strstr(h, "2027-01-15 08:00:00Z") != NULL && strstr(h, "<script") == NULL);
	CHECK(strstr(h, HOSTILE_NAME) == NULL && strstr(h, HOSTILE_IFACE) == NULL);
	buf_free(&b);
	buf_init(&b);
	page_capacity_cell(&b, NULL);
	CHECK_STR(b.data, "<td class=\"n\">&ndash;</td>");
	buf_free(&b);
	detector_view_free(v);
}

int main(void)
{
	test_capacity_table();
	test_upgrades_table();
	test_upgrades_cohort();
	test_url_escape();
	test_page_open();
	test_lines();
	test_heatmap();
	test_scatter();
	test_natcmp();
	test_peer_order();
	test_router_menus();
	const char *dir = unitfs_root("page_test");
	if (dir == NULL)
		return 1;
	conf_t conf = {
		.interval_ms = STEP, .retention_ms = 35 * 86400000LL, .rollup_retention_ms = 400 * 86400000LL
	};
	conf.database = xasprintf("%s/wgwatch.db", dir);
	test_fill_store(&conf);
	test_history_raw(&conf);
	test_router_page(&conf);
	test_history_rollup(&conf);
	test_router_page_rolled(&conf);
	test_router_page_snmp_only(&conf);
	test_changes_data(&conf);
	test_last_changes(&conf);
	test_fleet_dates(&conf);
	free(conf.database);
	return unitfs_end(unit_done("page_test"));
}
