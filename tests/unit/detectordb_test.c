/* SPDX-License-Identifier: Apache-2.0 */
/* detectordb_test: the whole detector on a real database filled through the store: windows,
 * resets, clipping, stored verdicts with their history, the single-core bound, cohorts, views
 * and their publication on the handle, --report, probe pairs and CPU profiles, the thread. The
 * maths on synthetic windows is detector_test's. Every file is under the run's mkdtemp directory
 * (unitfs). */
#include "config.h"
#include "detector/detector_int.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/xmem.h"
#include "store/store.h"
#include "unit.h"
#include "unitfs.h"

/* ---- the whole detector on a database written by the store ---- */

#define T0 1700000000000LL /* wall ms of the first poll */

struct sim {
	const char *name, *arch, *board;
	int64_t up_at;     /* seconds: version change (a reboot); < 0: never */
	int64_t reboot_at; /* seconds: a reboot without a change; < 0: never */
	const char *v1, *v2;
	double tx1, rx1, tx2, rx2;
	double busy1, busy2, others;
	double swing;
	size_t ncores;
	uint64_t txb, rxb;
	int64_t boot; /* seconds of the last boot */
	double fw;    /* core 2's load when > 0: a firewall core pinned beside the tunnel's core 1 */
};

static sample_t *sim_poll(struct sim *s, int64_t k)
{
	bool after = s->up_at >= 0 && k >= s->up_at;
	if ((s->up_at >= 0 && k == s->up_at) || (s->reboot_at >= 0 && k == s->reboot_at)) {
		s->txb = s->rxb = 0;
		s->boot = k;
	}
	double f = 1 + s->swing * sin(2 * M_PI * (double)k / 120.0);
	if (k > 0) {
		s->txb += (uint64_t)((after ? s->tx2 : s->tx1) * f * 1e6 / 8);
		s->rxb += (uint64_t)((after ? s->rx2 : s->rx1) * f * 1e6 / 8);
	}
	sample_t *x = sample_new(s->name, T0 + k * 1000, "rest");
	x->version = xstrdup(after ? s->v2 : s->v1);
	x->architecture = xstrdup(s->arch);
	x->board = xstrdup(s->board);
	/* RouterBOOT on tile: upgraded at 100 s, inside the after window (60 to 110 s), and again at
	 * 115 s, after it; the other routers tell none. */
	if (strcmp(s->name, "tile") == 0)
		x->firmware = xstrdup(k < 100 ? "7.21.5" : k < 115 ? "7.22.3" : "7.22.4");
	x->uptime_ms = (k - s->boot + 3600) * 1000;
	sample_set_cores(x, s->ncores);
	for (size_t c = 0; c < s->ncores; c++)
		x->cores[c].load = c == 1     ? (after ? s->busy2 : s->busy1)
			: c == 2 && s->fw > 0 ? s->fw
					      : s->others;
	bool tile = strcmp(s->name, "tile") == 0; /* its upgrade halves the CPU clock */
	x->cpu_freq_mhz = tile && after ? 800 : 1400;
	struct sample_iface *wan = sample_add_iface(x);
	wan->name = xstrdup("ether1");
	wan->type = xstrdup("ether");
	wan->running = true;
	wan->mtu = 1500;
	wan->tx_queue_drops = tile && after ? (uint64_t)(k - s->up_at) * 12 : 0;
	struct sample_iface *fi = sample_add_iface(x);
	fi->mtu = 1420;
	fi->name = xstrdup("wg0");
	fi->type = xstrdup("wg");
	fi->running = true;
	fi->tx_bytes = s->txb;
	fi->rx_bytes = s->rxb;
	return x;
}

static void fill(store_t *st, struct sim *sims, size_t n, int64_t polls)
{
	for (int64_t k = 0; k < polls; k++)
		for (size_t i = 0; i < n; i++)
			store_submit(st, sim_poll(&sims[i], k));
	store_flush(st);
}

static conf_t test_conf(const char *db)
{
	return (conf_t){ .database = (char *)db,
		.before_ms = 50000,
		.after_ms = 50000,
		.min_samples = 20,
		.threshold = 0.20,
		.saturated = 0.90,
		.every_ms = 1000,
		.min_mbps = 1,
		.interval_ms = 1000 };
}

static const struct detector_item *find_item(const detector_t *d, const char *router, const char *dir)
{
	for (size_t i = 0; i < d->nitems; i++)
		if (d->items[i].v.router && strcmp(d->items[i].v.router, router) == 0 &&
			strcmp(d->items[i].v.direction, dir) == 0)
			return &d->items[i];
	return NULL;
}

static int64_t count_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q;
	int64_t n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return n;
}

static void check_item(const detector_t *d, const char *router, const char *dir, enum detector_outcome want,
	enum detector_method m, double ratio, double tol)
{
	const struct detector_item *it = find_item(d, router, dir);
	CHECK(it != NULL);
	if (it == NULL)
		return;
	CHECK_STR(outcome_name(it->v.verdict), outcome_name(want));
	CHECK_STR(outcome_method_name(it->v.method), outcome_method_name(m));
	if (!isnan(ratio))
		CHECK_NEAR(it->v.ratio, ratio, tol);
}

static void check_round(detector_t *d, sqlite3 *db)
{
	const struct detector_item *early = find_item(d, "early", "tx"), *tile = find_item(d, "tile", "tx");
	CHECK(early && strstr(early->v.why, "too few samples before"));
	CHECK_STR(tile ? tile->v.cores : NULL, "1"); /* the pinned core, kept across a restart */
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdicts WHERE cores = '1' AND why = ''"), 2);
	check_item(d, "tile", "tx", DETECTOR_REGRESSION, DETECTOR_M_SATURATION, 130.0 / 380, 0.02);
	check_item(d, "tile", "rx", DETECTOR_UNCHANGED, DETECTOR_M_SATURATION, 1.0, 0.02);
	check_item(d, "early", "tx", DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, NAN, 0);
	CHECK(find_item(d, "swing", "tx") == NULL);
	const struct detector_item *it = find_item(d, "tile", "tx");
	CHECK(it && it->v.final && it->v.latest && it->v.before_n >= 45 && it->v.after_n >= 45);
	CHECK(it && it->v.upgraded_ms == T0 + 60000);
	CHECK_STR(it ? it->v.from_version : NULL, "7.21.5");
	CHECK_STR(it ? it->v.to_version : NULL, "7.22.3");
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdicts WHERE final = 1"), 4);
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdicts WHERE verdict = 'regression'"), 1);
	/* the ceilings' ratios state their noise (schema 018); no ratio, no error */
	CHECK_INT(
		count_rows(db,
			"SELECT count(*) FROM verdicts WHERE method = 'saturation-ceiling' AND ratio_rse > 0"
			" AND ratio_rse < 0.1"),
		2);
	CHECK_INT(
		count_rows(db, "SELECT count(*) FROM verdicts WHERE ratio IS NULL AND ratio_rse IS NOT NULL"),
		0);
	CHECK(tile && tile->v.ratio_rse > 0 && tile->v.ratio_rse < 0.1);
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdict_history"), 4);
	CHECK_STR(tile ? tile->v.confounders : NULL,
		"cpu frequency 1400 → 800 MHz across the upgrade\nether1 tx-queue-drop rose from 0 to 12/s");
	CHECK_STR(early ? early->v.confounders : NULL, "");
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdicts WHERE confounders LIKE 'cpu frequency%'"), 2);
}

static void check_view(const detector_view_t *v)
{
	size_t n;
	const struct detector_verdict *tv = detector_view_router(v, "tile", &n);
	CHECK_INT(n, 2);
	CHECK(tv && strcmp(tv[0].direction, "tx") == 0 && tv[0].verdict == DETECTOR_REGRESSION);
	CHECK(detector_view_router(v, "swing", &n) == NULL && n == 0);
	CHECK_INT(detector_view_ncohorts(v), 2);
	const struct detector_cohort *c = detector_view_cohort(v, 0);
	CHECK_STR(c->architecture, "arm64"); /* sorted: arm64 < tile */
	CHECK_INT(c->routers, 1);
	CHECK_INT(c->regressed, 0);
	c = detector_view_cohort(v, 1);
	CHECK_STR(c->board, "CCR1009-7G-1C-1S+");
	CHECK_INT(c->routers, 1);
	CHECK_INT(c->regressed, 1);
	CHECK_NEAR(c->median_ratio_tx, 130.0 / 380, 0.02);
	CHECK_NEAR(c->median_ratio_rx, 1.0, 0.02);
	const struct detector_bound *b = detector_view_bound(v, "tile");
	CHECK(b && b->bound);
	CHECK(b && fabs(b->tx_bps - 130e6) < 3e6 && fabs(b->rx_bps - 220e6) < 5e6);
	b = detector_view_bound(v, "swing");
	CHECK(b && !b->bound);
}

/* The handle holds the published view: a reader's reference outlives its withdrawal. */
static void check_publish(detector_t *d)
{
	CHECK(detector_view(d) == NULL); /* before the first publication */
	detector_publish(d, detector_view_build(d));
	detector_view_t *v = detector_view(d), *w = detector_view(d);
	CHECK(v != NULL && v == w);
	detector_publish(d, NULL);
	CHECK(detector_view(d) == NULL);
	check_view(v);
	detector_view_free(v);
	CHECK_INT(detector_view_nverdicts(w), 4);
	detector_view_free(w);
}

/* A temporary database for a test: its directory, path, config and open store. */
struct test_db {
	char *path;
	conf_t conf;
	store_t *st;
};

/* A new database in a directory of its own (unitfs_dir), opened as a store, with test_conf and
 * routers (NULL: none) as its config. */
static void test_db_open(struct test_db *t, conf_router_t *routers, size_t nrouters)
{
	char *cause = NULL;
	char *dir = unitfs_dir();
	t->path = xasprintf("%s/w.db", dir);
	free(dir);
	t->conf = test_conf(t->path);
	t->conf.routers = routers;
	t->conf.nrouters = nrouters;
	CHECK(store_open(t->path, &t->conf, &t->st, &cause) == 0);
	free(cause);
}

/* A connection of the test's own to path, with the store's views (as data.c's has). */
static sqlite3 *test_sql(const char *path)
{
	sqlite3 *db = NULL;
	char *cause = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(store_sql_attach(db, &cause) == 0);
	free(cause);
	return db;
}

/* Closes t's store (its directory goes with the run's, unitfs_end). */
static void test_db_close(struct test_db *t)
{
	store_close(t->st);
	free(t->path);
}

static void test_database(void)
{
	struct test_db t;
	test_db_open(&t, NULL, 0);
	char *cause = NULL;
	struct sim sims[] = {
		{ "tile", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 220, 130, 220, 1.0,
			1.0, 0.12, 0, 9, 0, 0, 0, 0 },
		{ "swing", "x86_64", "CHR", -1, 60, "7.22.3", "7.22.3", 150, 95, 150, 95, 0.3, 0.3, 0.2, 0.2,
			4, 0, 0, 0, 0 },
		{ "early", "arm64", "CCR2116-12G-4S+", 10, -1, "7.21.5", "7.22.3", 200, 0, 200, 0, 0.3, 0.75,
			0.05, 0, 16, 0, 0, 0, 0 },
	};
	fill(t.st, sims, 3, 125);

	detector_t *d = xcalloc(1, sizeof(*d));
	sqlite3 *db = test_sql(t.path);
	CHECK(detector_open(d, &t.conf, false, &cause) == 0);
	CHECK(detector_round(d, T0 + 200000, &cause) == 0);
	check_round(d, db);
	int64_t reached = find_item(d, "tile", "tx") ? find_item(d, "tile", "tx")->v.reached_ms : 0;
	const struct detector_verdict *fw = find_item(d, "tile", "rx") ? &find_item(d, "tile", "rx")->v
								       : NULL;
	CHECK(fw && fw->firmware_from && strcmp(fw->firmware_from, "7.21.5") == 0);
	CHECK(fw && fw->firmware_to && strcmp(fw->firmware_to, "7.22.3") == 0); /* not 115 s's 7.22.4 */
	fw = find_item(d, "early", "tx") ? &find_item(d, "early", "tx")->v : NULL;
	CHECK(fw && fw->firmware_from == NULL && fw->firmware_to == NULL);
	CHECK(detector_round(d, T0 + 300000, &cause) == 0); /* final: nothing re-evaluated */
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdict_history"), 4);
	detector_free(d);

	d = xcalloc(1, sizeof(*d)); /* a restart: stored verdicts stay */
	CHECK(detector_open(d, &t.conf, false, &cause) == 0 && detector_load_stored(d, &cause) == 0);
	CHECK_INT(d->ndone, 2);
	CHECK(detector_round(d, T0 + 400000, &cause) == 0);
	check_round(d, db);
	sqlite3_close(db);
	CHECK_INT(find_item(d, "tile", "tx") ? find_item(d, "tile", "tx")->v.reached_ms : 0, reached);
	detector_view_t *v = detector_view_build(d);
	check_view(v);
	view_destroy(v);
	check_publish(d);
	detector_free(d);

	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	CHECK(detector_report(&t.conf, fp, &cause) == 0);
	fclose(fp);
	CHECK(out && strstr(out, "tile ") && strstr(out, "saturation-ceiling regression"));
	CHECK(out && strstr(out, "7.21.5 -> 7.22.3"));
	CHECK(out &&
		strstr(out,
			"\n    also moved: cpu frequency 1400 → 800 MHz across the upgrade\n"
			"    also moved: ether1 tx-queue-drop rose from 0 to 12/s\n"));
	/* the capacity section: every stream, an unknown one with its reason */
	CHECK(out && strstr(out, "\nCapacity headroom (demand = p95 of the week's 5-minute rates"));
	CHECK(out &&
		strstr(out,
			"ROUTER                   INTERFACE  DIR CAPACITY METHOD      DEMAND HEADROOM EXHAUSTED (UTC)\n"));
	CHECK(out &&
		strstr(out,
			"\nearly                    wg0        rx         - -               0k        - unknown,"
			" because its traffic is too low to measure its capacity\n"));
	CHECK(out && strstr(out, "\ntile                     wg0        tx ") &&
		strstr(out, "\ntile                     wg0        rx "));
	free(out);
	test_db_close(&t);
	free(cause);
}

/* ---- data_load against the views it replaced ---- */

/* Router "mix": wg interfaces made in an order that is not their names' (wg2, wg0, then wg1 from
 * poll 40), an ether one, a failed poll every 17th, a reboot at 70 (counters back to 0), and
 * busier cores from poll 50; a CPU clock told at every third poll, links that go down, MTUs
 * that change and errors that grow (the confounders). */
static sample_t *mix_poll(int64_t k)
{
	static const char *const names[] = { "wg2", "ether1", "wg0", "wg1" };
	sample_t *x = sample_new("mix", T0 + k * 1000, "rest");
	if (k % 17 == 5) {
		sample_fail(x, SAMPLE_ERR_TIMEOUT, "timed out");
		return x;
	}
	x->version = xstrdup("7.22.3");
	x->cpu_freq_mhz = k % 3 == 0 ? (uint32_t)(1200 + k) : 0;
	sample_set_cores(x, k < 50 ? 4 : 6);
	for (size_t c = 0; c < x->ncores; c++)
		x->cores[c].load = 0.05 + 0.9 * (double)((k * 7 + (int64_t)c * 13) % 100) / 100.0;
	int64_t since = k >= 70 ? k - 70 : k;
	for (size_t i = 0; i < 4; i++) {
		if (i == 3 && k < 40)
			continue;
		struct sample_iface *f = sample_add_iface(x);
		f->name = xstrdup(names[i]);
		f->type = xstrdup(i == 1 ? "ether" : "wg");
		f->tx_bytes = (uint64_t)(since * (12345 + 1000 * (int64_t)i) + (since * since) % 977);
		f->rx_bytes = (uint64_t)(since * (6789 + 333 * (int64_t)i));
		f->rx_packets = (uint64_t)(since * (10 + (int64_t)i));
		f->tx_packets = (uint64_t)(since * (20 + (int64_t)i));
		f->rx_errors = (uint64_t)(since / (3 + (int64_t)i));
		f->tx_errors = (uint64_t)(since / 7);
		f->tx_queue_drops = (uint64_t)(since / (11 + (int64_t)i));
		f->mtu = k % 23 == (int64_t)i ? 0 : k < 60 ? 1420 : 1380;
		f->running = (k + (int64_t)i) % 13 != 0;
	}
	return x;
}

/* What data_load gave before it decoded the blobs itself: the views, row by row. */
static void views_load(sqlite3 *db, int64_t rid, int64_t from, int64_t to, struct data_set *x)
{
	sqlite3_stmt *q;
	memset(x, 0, sizeof(*x));
	x->polls = xcalloc(1000, sizeof(*x->polls));
	x->ifs = xcalloc(16, sizeof(*x->ifs));
	x->loads = xcalloc(1000 * 16, sizeof(*x->loads));
	for (size_t i = 0; i < 1000 * 16; i++)
		x->loads[i] = NAN;
	CHECK(sqlite3_prepare_v2(db,
		      "SELECT time_ms, core, load / 1000.0 FROM cpu_samples WHERE router_id = ?1"
		      " AND time_ms >= ?2 AND time_ms < ?3 ORDER BY time_ms, core",
		      -1, &q, NULL) == SQLITE_OK);
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(q, 0), core = sqlite3_column_int64(q, 1);
		if (x->npolls == 0 || x->polls[x->npolls - 1].t != t)
			x->polls[x->npolls++] = (struct frame_poll){ .t = t };
		x->loads[(x->npolls - 1) * 16 + (size_t)core] = (float)sqlite3_column_double(q, 2);
		if ((size_t)core + 1 > x->ncores)
			x->ncores = (size_t)core + 1;
	}
	sqlite3_finalize(q);
	CHECK(sqlite3_prepare_v2(db,
		      "SELECT i.name, s.time_ms, s.tx_delta * 8000.0 / s.dt_ms, s.rx_delta * 8000.0 / s.dt_ms"
		      " FROM interfaces i JOIN iface_samples s ON s.iface_id = i.id AND s.router_id = ?1"
		      " WHERE i.router_id = ?1 AND i.type = 'wg' AND s.time_ms >= ?2 AND s.time_ms < ?3"
		      " AND s.dt_ms > 0 AND s.reset = 0 ORDER BY i.name, s.time_ms",
		      -1, &q, NULL) == SQLITE_OK);
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, from);
	sqlite3_bind_int64(q, 3, to);
	while (sqlite3_step(q) == SQLITE_ROW) {
		size_t poll = SIZE_MAX;
		for (size_t k = 0; k < x->npolls; k++)
			if (x->polls[k].t == sqlite3_column_int64(q, 1))
				poll = k;
		if (poll == SIZE_MAX)
			continue;
		const char *name = (const char *)sqlite3_column_text(q, 0);
		if (x->nifs == 0 || strcmp(x->ifs[x->nifs - 1].name, name) != 0)
			x->ifs[x->nifs++] = (struct data_iface){ .name = xstrdup(name),
				.rows = xcalloc(1000, sizeof(struct data_row)) };
		struct data_iface *f = &x->ifs[x->nifs - 1];
		f->rows[f->n++] = (struct data_row){ poll, sqlite3_column_double(q, 2),
			sqlite3_column_double(q, 3) };
		x->polls[poll].tx += sqlite3_column_double(q, 2);
		x->polls[poll].rx += sqlite3_column_double(q, 3);
		x->polls[poll].nrows++;
	}
	sqlite3_finalize(q);
}

/* What data_load_links read before data_load read the links with the samples: the SQL. */
static void views_links(sqlite3 *db, int64_t rid, int64_t from, int64_t to, struct confound_set *x)
{
	static const char *const sql[] = {
		"SELECT time_ms, cpu_mhz FROM store_polls WHERE router_id = ?1 AND time_ms >= ?2"
		" AND time_ms < ?3 AND cpu_mhz IS NOT NULL ORDER BY time_ms",
		"SELECT i.name, i.type = 'wg', s.time_ms, s.reset, coalesce(s.mtu, 0), s.running,"
		" s.rx_errors, s.tx_errors, s.tx_queue_drops, s.rx_packets, s.tx_packets"
		" FROM iface_samples s CROSS JOIN interfaces i ON i.id = s.iface_id"
		" WHERE s.router_id = ?1 AND i.router_id = ?1 AND s.time_ms >= ?2 AND s.time_ms < ?3"
		" AND s.running IS NOT NULL ORDER BY i.name, s.time_ms",
	};
	sqlite3_stmt *q;
	memset(x, 0, sizeof(*x));
	x->cpu = xcalloc(1000, sizeof(*x->cpu));
	x->ifs = xcalloc(16, sizeof(*x->ifs));
	for (int i = 0; i < 2; i++) {
		CHECK(sqlite3_prepare_v2(db, sql[i], -1, &q, NULL) == SQLITE_OK);
		sqlite3_bind_int64(q, 1, rid);
		sqlite3_bind_int64(q, 2, from);
		sqlite3_bind_int64(q, 3, to);
		while (i == 0 && sqlite3_step(q) == SQLITE_ROW)
			x->cpu[x->ncpu++] = (struct confound_cpu){ sqlite3_column_int64(q, 0),
				sqlite3_column_int64(q, 1) };
		while (i == 1 && sqlite3_step(q) == SQLITE_ROW) {
			const char *name = (const char *)sqlite3_column_text(q, 0);
			if (x->nifs == 0 || strcmp(x->ifs[x->nifs - 1].name, name) != 0)
				x->ifs[x->nifs++] = (struct confound_iface){ .name = xstrdup(name),
					.wg = sqlite3_column_int(q, 1) != 0,
					.rows = xcalloc(1000, sizeof(struct confound_row)) };
			struct confound_iface *f = &x->ifs[x->nifs - 1];
			f->rows[f->n++] = (struct confound_row){ .t = sqlite3_column_int64(q, 2),
				.reset = sqlite3_column_int(q, 3) != 0,
				.mtu = sqlite3_column_int64(q, 4),
				.running = sqlite3_column_int(q, 5) != 0,
				.rx_err = (uint64_t)sqlite3_column_int64(q, 6),
				.tx_err = (uint64_t)sqlite3_column_int64(q, 7),
				.txq = (uint64_t)sqlite3_column_int64(q, 8),
				.rx_pkts = (uint64_t)sqlite3_column_int64(q, 9),
				.tx_pkts = (uint64_t)sqlite3_column_int64(q, 10) };
		}
		sqlite3_finalize(q);
	}
}

static void check_same_links(const struct confound_set *a, const struct confound_set *b)
{
	CHECK_INT(a->ncpu, b->ncpu);
	for (size_t k = 0; k < a->ncpu && k < b->ncpu; k++)
		CHECK(a->cpu[k].t == b->cpu[k].t && a->cpu[k].mhz == b->cpu[k].mhz);
	CHECK_INT(a->nifs, b->nifs);
	for (size_t i = 0; i < a->nifs && i < b->nifs; i++) {
		const struct confound_iface *f = &a->ifs[i], *g = &b->ifs[i];
		CHECK(strcmp(f->name, g->name) == 0 && f->wg == g->wg);
		CHECK_INT(f->n, g->n);
		for (size_t k = 0; k < f->n && k < g->n; k++) {
			const struct confound_row *u = &f->rows[k], *v = &g->rows[k];
			CHECK_INT(u->t, v->t);
			CHECK(u->reset == v->reset && u->running == v->running);
			CHECK_INT(u->mtu, v->mtu);
			CHECK(u->rx_err == v->rx_err && u->tx_err == v->tx_err && u->txq == v->txq);
			CHECK(u->rx_pkts == v->rx_pkts && u->tx_pkts == v->tx_pkts);
		}
	}
}

static void check_same_set(const struct data_set *a, const struct data_set *b)
{
	CHECK_INT(a->npolls, b->npolls);
	CHECK_INT(a->ncores, b->ncores);
	CHECK_INT(a->nifs, b->nifs);
	for (size_t k = 0; k < a->npolls && k < b->npolls; k++) {
		CHECK_INT(a->polls[k].t, b->polls[k].t);
		CHECK(a->polls[k].tx == b->polls[k].tx && a->polls[k].rx == b->polls[k].rx);
		CHECK_INT(a->polls[k].nrows, b->polls[k].nrows);
		for (size_t c = 0; c < a->ncores && c < b->ncores; c++) {
			float u = a->loads[k * a->ncores + c], v = b->loads[k * 16 + c];
			CHECK(u == v || (isnan(u) && isnan(v)));
		}
	}
	for (size_t i = 0; i < a->nifs && i < b->nifs; i++) {
		CHECK(strcmp(a->ifs[i].name, b->ifs[i].name) == 0);
		CHECK_INT(a->ifs[i].n, b->ifs[i].n);
		for (size_t k = 0; k < a->ifs[i].n && k < b->ifs[i].n; k++)
			CHECK(a->ifs[i].rows[k].poll == b->ifs[i].rows[k].poll &&
				a->ifs[i].rows[k].tx == b->ifs[i].rows[k].tx &&
				a->ifs[i].rows[k].rx == b->ifs[i].rows[k].rx);
	}
}

static void test_load_views(void)
{
	struct test_db t;
	test_db_open(&t, NULL, 0);
	char *cause = NULL;
	for (int64_t k = 0; k < 100; k++)
		store_submit(t.st, mix_poll(k));
	store_flush(t.st);
	detector_t *d = xcalloc(1, sizeof(*d));
	CHECK(detector_open(d, &t.conf, true, &cause) == 0);
	sqlite3 *db = test_sql(t.path);
	int64_t rid = count_rows(db, "SELECT id FROM routers WHERE name = 'mix'");
	static const int64_t ranges[][2] = { { 0, 100 }, { 3, 41 }, { 60, 90 }, { 99, 100 }, { 100, 200 } };
	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
		struct data_set x, y, z;
		struct confound_set cs, ct;
		int64_t from = T0 + ranges[r][0] * 1000, to = T0 + ranges[r][1] * 1000;
		CHECK(data_load(d->data, rid, from, to, &x, &cs) == 0);
		CHECK(data_load(d->data, rid, from, to, &z, NULL) == 0); /* links or not, the same */
		views_load(db, rid, from, to, &y);
		views_links(db, rid, from, to, &ct);
		check_same_set(&x, &y);
		check_same_set(&z, &y);
		check_same_links(&cs, &ct);
		if (r == 0) { /* what the case is there for */
			CHECK_INT(x.npolls, 94);
			CHECK_INT(x.ncores, 6);
			CHECK(x.nifs == 3 && strcmp(x.ifs[0].name, "wg0") == 0 &&
				strcmp(x.ifs[2].name, "wg2") == 0);
			CHECK(x.nifs == 3 && x.ifs[1].n < x.ifs[0].n); /* wg1 came at 40 */
			CHECK(cs.nifs == 4 && strcmp(cs.ifs[0].name, "ether1") == 0 && !cs.ifs[0].wg);
			CHECK(cs.nifs == 4 && cs.ifs[1].wg && cs.ifs[1].n == 94); /* wg0 at each poll */
			CHECK_INT(cs.ncpu, 32); /* every third poll, less the failed ones */
		}
		data_set_free(&x);
		data_set_free(&z);
		confound_set_free(&cs);
		confound_set_free(&ct);
		for (size_t i = 0; i < y.nifs; i++)
			free(y.ifs[i].name), free(y.ifs[i].rows);
		free(y.ifs), free(y.polls), free(y.loads);
	}
	sqlite3_close(db);
	detector_free(d);
	test_db_close(&t);
	free(cause);
}

/* data_recent keeps each router's window between rounds: round after round, as polls come, a
 * version change restarts a window and old polls leave it, it must say what a detector
 * reading everything afresh says. */
static void test_bounds_kept(void)
{
	struct test_db t;
	test_db_open(&t, NULL, 0);
	char *cause = NULL;
	struct sim sims[] = {
		{ "tile", "tile", "CCR1009-7G-1C-1S+", 420, -1, "7.21.5", "7.22.3", 380, 220, 130, 220, 1.0,
			1.0, 0.12, 0, 9, 0, 0, 0, 0 },
		{ "swing", "x86_64", "CHR", -1, 300, "7.22.3", "7.22.3", 150, 95, 150, 95, 0.3, 0.95, 0.2,
			0.2, 4, 0, 0, 0, 0 },
	};
	detector_t *kept = xcalloc(1, sizeof(*kept));
	CHECK(detector_open(kept, &t.conf, true, &cause) == 0);
	size_t rounds = 0;
	for (int64_t k = 0; k < 1300; k++) {
		for (size_t i = 0; i < 2; i++)
			store_submit(t.st, sim_poll(&sims[i], k));
		if (k % 97 != 50)
			continue;
		store_flush(t.st);
		detector_t *fresh = xcalloc(1, sizeof(*fresh));
		CHECK(detector_open(fresh, &t.conf, true, &cause) == 0);
		const struct data_router *a, *b;
		size_t na, nb;
		CHECK(data_recent(kept->data, &a, &na, &cause) == 0 &&
			data_recent(fresh->data, &b, &nb, &cause) == 0);
		CHECK_INT(na, nb);
		for (size_t i = 0; i < na && i < nb; i++) /* the same polls, to the bit */
			CHECK(strcmp(a[i].name, b[i].name) == 0 && a[i].n == b[i].n &&
				memcmp(a[i].polls, b[i].polls, a[i].n * sizeof(*a[i].polls)) == 0);
		if (k > 1100) /* ten minutes of 1 s polls, both ends in: the window is full, and kept */
			CHECK(na == 2 && a[0].n == 601 && a[1].n == 601);
		detector_free(fresh);
		rounds++;
	}
	CHECK_INT(rounds, 13);
	detector_free(kept);
	test_db_close(&t);
	free(cause);
}

static void test_probe_addr(void)
{
	static const struct {
		const char *addr, *list;
		bool in;
	} cases[] = {
		{ "10.64.0.3", "10.64.0.3/32,172.64.0.0/24", true },
		{ "10.64.0.3", "172.64.0.0/24, 10.64.0.0/30", true },
		{ "10.64.0.4", "10.64.0.0/30", false },
		{ "10.64.0.3", "10.64.0.3", true },
		{ "10.64.0.3", "0.0.0.0/0", true },
		{ "2001:db8::7", "10.0.0.0/8,2001:db8::/33", true },
		{ "2001:db9::7", "2001:db8::/32", false },
		{ "10.64.0.3", "10.64.0.3/33", false },
		{ "10.64.0.3", "10.64.0.3/x", false },
		{ "10.64.0.3", "", false },
		{ "10.64.0.3", NULL, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(probepair_addr_in(cases[i].addr, cases[i].list), cases[i].in);
}

static void probe_sql(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	CHECK(sqlite3_exec(db, sql, NULL, NULL, &err) == SQLITE_OK);
	if (err != NULL)
		fprintf(stderr, "%s: %s\n", sql, err);
	sqlite3_free(err);
}

/* A detector round on conf's database (read-only): tile's tx and rx are checked by the caller. */
static detector_t *probe_round(const conf_t *conf)
{
	char *cause = NULL;
	detector_t *d = xcalloc(1, sizeof(*d));
	CHECK(detector_open(d, conf, true, &cause) == 0);
	CHECK(detector_round(d, T0 + 200000, &cause) == 0);
	free(cause);
	return d;
}

/* A probe pair at the same offered rate across tile's upgrade (at 60 s) decides its tx by
 * method probe; rx keeps its method; a different offered rate after leaves the pair unused. */
static void test_probe(void)
{
	conf_router_t rt = { .name = (char *)"tile", .probe = (char *)"10.64.0.3" };
	struct test_db t;
	test_db_open(&t, &rt, 1);
	char *cause = NULL;
	struct sim s = { "tile", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 220, 380, 220,
		1.0, 1.0, 0.12, 0, 9, 0, 0, 0, 0 };
	fill(t.st, &s, 1, 125);
	sqlite3 *db;
	CHECK(sqlite3_open(t.path, &db) == SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	probe_sql(db,
		"INSERT INTO peers (router_id, interface, pkey, name, allowed_address) SELECT id,"
		" 'wg0', 'k', 'p', '172.64.0.0/24,10.64.0.3/32' FROM routers WHERE name = 'tile'");
	probe_sql(db,
		"INSERT INTO probes (router_id, time_ms, duration_ms, direction, offered_bps,"
		" delivered_bps) SELECT id, 1700000030000, 3000, 'transmit', 300e6, 300e6 FROM routers"
		" WHERE name = 'tile' UNION ALL SELECT id, 1700000080000, 3000, 'transmit', 300e6,"
		" 128e6 FROM routers WHERE name = 'tile'");
	detector_t *d = probe_round(&t.conf);
	check_item(d, "tile", "tx", DETECTOR_REGRESSION, DETECTOR_M_PROBE, 128.0 / 300, 1e-9);
	check_item(d, "tile", "rx", DETECTOR_UNCHANGED, DETECTOR_M_SATURATION, 1.0, 0.05);
	const struct detector_item *it = find_item(d, "tile", "tx");
	CHECK(it && it->v.before_bps == 300e6 && it->v.after_bps == 128e6 && it->v.why[0] == '\0');
	detector_free(d);

	probe_sql(db, "UPDATE probes SET offered_bps = 290e6 WHERE delivered_bps = 128e6"); /* 3% off */
	d = probe_round(&t.conf);
	check_item(d, "tile", "tx", DETECTOR_UNCHANGED, DETECTOR_M_SATURATION, 1.0, 0.05);
	detector_free(d);

	probe_sql(db, "UPDATE probes SET offered_bps = 299e6 WHERE delivered_bps = 128e6"); /* within 1% */
	probe_sql(db, "UPDATE peers SET allowed_address = '10.65.0.0/16'"); /* single wg: still wg0 */
	d = probe_round(&t.conf);
	check_item(d, "tile", "tx", DETECTOR_REGRESSION, DETECTOR_M_PROBE, 128.0 / 300, 1e-9);
	detector_free(d);
	sqlite3_close(db);
	test_db_close(&t);
	free(cause);
}

/* A profile of the sims' 9 cores at t (s): core 1 split by tun, core 2 by fw, the others
 * management; each core's total row (the cpuN summary). */
static void submit_profile(store_t *st, const char *router, int64_t t, const char *tun, const char *fw)
{
	profile_t *p = profile_new(router, T0 + t * 1000);
	p->duration_ms = 5000;
	const char *split[3] = { tun, fw, "management 12" };
	for (int c = 0; c < 9; c++) {
		char name[32];
		double pct, total = 0;
		int n;
		for (const char *s = split[c == 1 ? 0
				     : c == 2     ? 1
						  : 2];
			sscanf(s, "%31s %lf%n", name, &pct, &n) == 2; s += n) {
			profile_add(p, c, name, pct);
			total += pct;
		}
		profile_add(p, c, "total", total);
	}
	store_submit_profile(st, p);
}

/* Through the store: two routers pinned on core 1 (the tunnel's) and core 2 (firewall), tx flat
 * at 380 -> 130 Mbit/s (rx too little to judge). No fit and no single pinned core tells the tunnel's core: without
 * profiles insufficient-data; with the profiles stored, core 1 from the profile and a
 * saturation-ceiling regression. On fwgrow the profile after shows a firewall rule grown on
 * core 1: a confounder; on twin (networking up, other work flat) none. */
static void test_profile_db(void)
{
	struct test_db t;
	test_db_open(&t, NULL, 0);
	char *cause = NULL;
	struct sim s[2] = {
		{ "twin", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 0.5, 130, 0.5, 1.0,
			1.0, 0.12, 0, 9, 0, 0, 0, 1.0 },
		{ "fwgrow", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 0.5, 130, 0.5, 1.0,
			1.0, 0.12, 0, 9, 0, 0, 0, 1.0 },
	};
	fill(t.st, s, 2, 125);
	detector_t *d = probe_round(&t.conf);
	check_item(d, "twin", "tx", DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, NAN, 0);
	const struct detector_item *it = find_item(d, "twin", "tx");
	CHECK_STR(it ? it->v.why : NULL, "no core's load follows its traffic");
	detector_free(d);

	const char *fw = "firewall 60 networking 30 management 10";
	submit_profile(t.st, "twin", 40, "networking 38 encrypting 9 wireguard 41 ethernet 12", fw);
	submit_profile(t.st, "twin", 90, "networking 90.5 encrypting 9.5", fw);
	submit_profile(t.st, "fwgrow", 40, "networking 38 encrypting 9 wireguard 41 ethernet 12", fw);
	submit_profile(t.st, "fwgrow", 90, "networking 50 encrypting 5 firewall 45", fw);
	store_flush(t.st);
	d = probe_round(&t.conf);
	check_item(d, "twin", "tx", DETECTOR_REGRESSION, DETECTOR_M_SATURATION, 130.0 / 380, 0.02);
	check_item(d, "twin", "rx", DETECTOR_INSUFFICIENT, DETECTOR_M_NONE, NAN, 0);
	check_item(d, "fwgrow", "tx", DETECTOR_REGRESSION, DETECTOR_M_SATURATION, 130.0 / 380, 0.02);
	it = find_item(d, "twin", "tx");
	CHECK_STR(it ? it->v.cores : NULL, "1");
	CHECK_STR(
		it ? it->v.why : NULL, "core 1 from the CPU profile before the upgrade (tunnel path 100 %)");
	CHECK_STR(it ? it->v.confounders : NULL, "");
	it = find_item(d, "fwgrow", "tx");
	CHECK_STR(it ? it->v.confounders : NULL,
		"cpu1 other work 0 % → 45 % (firewall 0 % → 45 %), from the profiles");
	detector_free(d);
	test_db_close(&t);
	free(cause);
}

/* A running detector publishes a view; stopping it withdraws the view. */
static void test_thread(void)
{
	struct test_db t;
	test_db_open(&t, NULL, 0);
	char *cause = NULL;
	struct sim s = { "tile", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 220, 130, 220,
		1.0, 1.0, 0.12, 0, 9, 0, 0, 0, 0 };
	fill(t.st, &s, 1, 125);
	detector_t *d;
	CHECK(detector_view(NULL) == NULL); /* no detector runs */
	CHECK(detector_start(&t.conf, &d, &cause) == 0);
	detector_view_t *v = NULL;
	for (int i = 0; i < 500 && (v = detector_view(d)) == NULL; i++)
		usleep(10000);
	CHECK(v != NULL);
	CHECK_INT(detector_view_nverdicts(v), 2);
	detector_stop(d);
	CHECK(detector_view(NULL) == NULL);
	CHECK_INT(detector_view_nverdicts(v), 2); /* still valid until freed */
	detector_view_free(v);
	test_db_close(&t);
}

int main(void)
{
	if (unitfs_root("detectordb_test") == NULL)
		return 1;
	log_set_level(LOG_LVL_WARN);
	test_database();
	test_load_views();
	test_bounds_kept();
	test_profile_db();
	test_probe_addr();
	test_probe();
	test_thread();
	return unitfs_end(unit_done("detectordb_test"));
}
