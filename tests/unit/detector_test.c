/* detector_test: judge.c's maths on synthetic windows (table-driven: quantiles, the bound,
 * each method, the six cases of issue 4, noise, daily swings, shifts between directions, too
 * little data), then the whole detector on a real database filled through the store: windows,
 * resets, clipping, stored verdicts with their history, single-core bound, cohorts, views,
 * their publication on the handle and --report. */
#include "config.h"
#include "detector/judge.c" /* its statics too; the rest of detector/ is linked */

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include "lib/log.h"
#include "store/store.h"
#include "unit.h"

/* ---- the engine ---- */

struct win_spec {
	size_t n;
	double tx, rx;       /* Mbit/s */
	double load;         /* busiest core 0..1; < 0: idle + cost * (tx + rx), capped at 1 */
	double idle, cost;   /* load model: cost per Mbit/s of router traffic */
	double swing, noise; /* relative sine over the window; relative pseudo-random noise */
};

struct engine_case {
	const char *name;
	struct win_spec b, a;
	bool rx; /* judge the rx direction (else tx) */
	enum detector_outcome verdict;
	enum detector_method method;
	double ratio, tol; /* NAN: ratio unchecked */
	bool hint;
};

static double noise_at(size_t k, double amp)
{
	uint32_t x = (uint32_t)(k * 2654435761u) ^ 0x9e3779b9u;
	x ^= x >> 15;
	x *= 2246822519u;
	x ^= x >> 13;
	return amp * ((double)(x % 20001) / 10000.0 - 1.0);
}

static void gen(const struct win_spec *w, bool rx, size_t seed, struct judge_point *p)
{
	for (size_t k = 0; k < w->n; k++) {
		double f = 1 + w->swing * sin(2 * M_PI * (double)k / (double)w->n);
		double tx = w->tx * f * (1 + noise_at(seed + 2 * k, w->noise));
		double rxr = w->rx * f * (1 + noise_at(seed + 2 * k + 1, w->noise));
		double load = w->load >= 0 ? w->load : fmin(1.0, w->idle + w->cost * (tx + rxr));
		p[k] = (struct judge_point){
			.load = load, .rate = (rx ? rxr : tx) * 1e6, .total = (tx + rxr) * 1e6
		};
	}
}

/* A window at constant load; one whose load follows idle + cost * traffic (with swing, noise). */
#define W(n_, tx_, rx_, load_)                                       \
	{                                                            \
		.n = (n_), .tx = (tx_), .rx = (rx_), .load = (load_) \
	}
#define WN(n_, tx_, rx_, load_, noise_)                                                 \
	{                                                                               \
		.n = (n_), .tx = (tx_), .rx = (rx_), .load = (load_), .noise = (noise_) \
	}
#define M(n_, tx_, rx_, idle_, cost_, swing_, noise_)                                              \
	{                                                                                          \
		.n = (n_), .tx = (tx_), .rx = (rx_), .load = -1, .idle = (idle_), .cost = (cost_), \
		.swing = (swing_), .noise = (noise_)                                               \
	}
#define WANT(v, m, r, t) .verdict = DETECTOR_##v, .method = DETECTOR_M_##m, .ratio = (r), .tol = (t)

static const struct engine_case engine_cases[] = {
	{ "1 ccr1009 tx: saturated, 380 -> 130", W(50, 380, 220, 1.0), W(50, 130, 220, 1.0),
		WANT(REGRESSION, SATURATION, 130.0 / 380, 0.001) },
	{ "1 ccr1009 rx: saturated, unchanged", W(50, 380, 220, 1.0), W(50, 130, 220, 1.0), .rx = true,
		WANT(UNCHANGED, SATURATION, 1.0, 0.001) },
	{ "1 with 5% noise", WN(50, 380, 220, 1.0, 0.05), WN(50, 130, 220, 1.0, 0.05),
		WANT(REGRESSION, SATURATION, 0.342, 0.03) },
	{ "2 chr: same rates, same load", W(50, 150, 95, 0.22), W(50, 150, 95, 0.22),
		WANT(UNCHANGED, COST, 1.0, 0.001) },
	{ "3 demand fell 300 -> 100, core 100% -> 30%", W(50, 300, 0, 1.0), W(50, 100, 0, 0.30),
		WANT(UNCHANGED, PEAK, 100 / 0.30 / 300, 0.01) },
	{ "3b demand fell with idle load (no comparable rates)", M(50, 300, 0, 0.05, 0.002, 0, 0),
		M(50, 100, 0, 0.05, 0.002, 0, 0), WANT(UNCHANGED, PEAK, (100 / 0.25) / (300 / 0.65), 0.01) },
	{ "4 ccr2116: cost rose 30% -> 75% at 200", W(50, 200, 0, 0.30), W(50, 200, 0, 0.75),
		WANT(REGRESSION, COST, 0.4, 0.001) },
	{ "4b cost rose under a daily swing and noise", M(60, 200, 50, 0.05, 0.001, 0.2, 0.03),
		M(60, 200, 50, 0.05, 0.002, 0.2, 0.03), WANT(REGRESSION, COST, 0.3 / 0.55, 0.05) },
	{ "5 swing +-20% and noise, same cost", M(60, 200, 50, 0.05, 0.001, 0.2, 0.05),
		M(60, 200, 50, 0.05, 0.001, -0.2, 0.05), WANT(UNCHANGED, COST, 1.0, 0.08) },
	{ "cost within the threshold", W(50, 200, 0, 0.30), W(50, 200, 0, 0.34),
		WANT(UNCHANGED, COST, 0.30 / 0.34, 0.001) },
	{ "cost fell: improvement", W(50, 200, 0, 0.60), W(50, 200, 0, 0.30),
		WANT(IMPROVEMENT, COST, 2.0, 0.001) },
	{ "saturated, 130 -> 380: improvement", W(50, 130, 220, 1.0), W(50, 380, 220, 1.0),
		WANT(IMPROVEMENT, SATURATION, 380.0 / 130, 0.001) },
	{ "saturated, demand moved tx -> rx, total held", W(50, 380, 220, 1.0), W(50, 200, 400, 1.0),
		WANT(UNCHANGED, SATURATION, 200.0 / 380, 0.001) },
	{ "6 too little traffic", W(50, 0.3, 0, 0.05), W(50, 0.3, 0, 0.05),
		WANT(INSUFFICIENT, NONE, NAN, 0) },
	{ "6 too few samples before", W(10, 380, 220, 1.0), W(50, 130, 220, 1.0),
		WANT(INSUFFICIENT, NONE, NAN, 0) },
	{ "6 too few samples after (window filling)", W(50, 380, 220, 1.0), W(19, 130, 220, 1.0),
		WANT(INSUFFICIENT, NONE, NAN, 0) },
	{ "traffic stopped after: no figure, a hint", W(50, 200, 0, 0.3), W(50, 0, 0, 0.02),
		WANT(INSUFFICIENT, NONE, NAN, 0), .hint = true },
	{ "peak drop is only a hint", W(50, 300, 0, 1.0), W(50, 100, 0, 0.85),
		WANT(UNCHANGED, PEAK, 100 / 0.85 / 300, 0.01), .hint = true },
};

static void test_engine(void)
{
	const struct judge_params p = {
		.min_samples = 20, .threshold = 0.20, .saturated = 0.90, .min_bps = 1e6
	};
	for (size_t i = 0; i < sizeof(engine_cases) / sizeof(engine_cases[0]); i++) {
		const struct engine_case *c = &engine_cases[i];
		struct judge_point *pb = xcalloc(c->b.n, sizeof(*pb)), *pa = xcalloc(c->a.n, sizeof(*pa));
		gen(&c->b, c->rx, 1, pb);
		gen(&c->a, c->rx, 100001, pa);
		struct judge_win b = { pb, c->b.n }, a = { pa, c->a.n };
		struct judge_result r;
		judge_verdict(&b, &a, &p, &r);
		int before = unit_failures;
		CHECK_STR(detector_verdict_name(r.verdict), detector_verdict_name(c->verdict));
		CHECK_STR(detector_method_name(r.method), detector_method_name(c->method));
		if (!isnan(c->ratio))
			CHECK_NEAR(r.ratio, c->ratio, c->tol);
		else
			CHECK(isnan(r.ratio));
		CHECK_INT(r.hint, c->hint);
		CHECK_INT(r.before_n, c->b.n);
		if (unit_failures != before)
			fprintf(stderr, "  in case \"%s\" (ratio %.4f)\n", c->name, r.ratio);
		free(pb);
		free(pa);
	}
}

static void test_quantile(void)
{
	double v[] = { 5, 1, 4, 2, 3 };
	CHECK_NEAR(judge_quantile(v, 5, 0.5), 3, 0);
	CHECK_NEAR(judge_quantile(v, 5, 0.0), 1, 0);
	CHECK_NEAR(judge_quantile(v, 5, 1.0), 5, 0);
	CHECK_NEAR(judge_quantile(v, 4, 0.5), 2.5, 1e-12);
	CHECK(isnan(judge_quantile(v, 0, 0.5)));
}

/* judge_quantile on fresh copies: linear interpolation between the sorted neighbours. */
static void test_quantile_table(void)
{
	static const struct {
		double v[6];
		size_t n;
		double q, want;
	} cases[] = {
		{ { 7 }, 1, 0.5, 7 },
		{ { 7 }, 1, 0.9, 7 },
		{ { 2, 1 }, 2, 0.5, 1.5 },
		{ { 2, 1 }, 2, 0.25, 1.25 },
		{ { 10, 0, 20, 30 }, 4, 0.1, 3 }, /* pos 0.3 between 0 and 10 */
		{ { 10, 0, 20, 30 }, 4, 0.9, 27 },
		{ { 3, 3, 3, 3, 3, 3 }, 6, 0.5, 3 },
		{ { -1, 5, 2, 8, 4, 6 }, 6, 0.5, 4.5 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double v[6];
		memcpy(v, cases[i].v, sizeof(v));
		CHECK_NEAR(judge_quantile(v, cases[i].n, cases[i].q), cases[i].want, 1e-12);
	}
	double *m = xcalloc(3, sizeof(double));
	m[0] = 9, m[1] = 1, m[2] = 4;
	CHECK_NEAR(judge_median_take(m, 3), 4, 0);         /* frees m */
	CHECK(isnan(judge_median_take(xcalloc(1, 8), 0))); /* frees it too */
}

/* The single-core bound: the busiest core >= 95% while the others average < 50%, in at
 * least 80% of at least 3 polls. */
static void test_bound(void)
{
	static const struct {
		const char *name;
		size_t n, pinned; /* the first `pinned` polls at 0.97 / 0.10, the rest at 0.60 / 0.55 */
		bool bound;
	} cases[] = {
		{ "all pinned", 10, 10, true },
		{ "80% pinned", 10, 8, true },
		{ "70% pinned", 10, 7, false },
		{ "too few polls", 2, 2, false },
		{ "three polls", 3, 3, true },
		{ "none pinned", 10, 0, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct judge_poll p[10];
		for (size_t k = 0; k < cases[i].n; k++) {
			bool pin = k < cases[i].pinned;
			p[k] = (struct judge_poll){ .t = (int64_t)k,
				.busiest = pin ? 0.97 : 0.60,
				.others = pin ? 0.10 : 0.55,
				.tx = 100e6 + (double)k,
				.rx = 50e6,
				.nrows = 1 };
		}
		struct detector_bound b = { 0 };
		judge_bound(p, cases[i].n, &b);
		int before = unit_failures;
		CHECK_INT(b.bound, cases[i].bound);
		CHECK_INT(b.n, cases[i].n);
		if (b.bound)
			CHECK(fabs(b.tx_bps - 100e6) < 10 && b.rx_bps == 50e6);
		else
			CHECK(isnan(b.tx_bps) && isnan(b.rx_bps));
		if (unit_failures != before)
			fprintf(stderr, "  in bound case \"%s\"\n", cases[i].name);
	}
	struct detector_bound b = { 0 };
	judge_bound(NULL, 0, &b); /* no polls: nothing to say */
	CHECK(!b.bound && b.n == 0 && isnan(b.busiest) && isnan(b.others));
}

/* The saturation and cost methods on their own: each declines what it cannot judge. */
static void test_methods(void)
{
	const struct judge_params p = {
		.min_samples = 20, .threshold = 0.20, .saturated = 0.90, .min_bps = 1e6
	};
	struct judge_point sat[20], idle[20];
	for (size_t k = 0; k < 20; k++) {
		sat[k] = (struct judge_point){ .load = 1.0, .rate = 300e6, .total = 400e6 };
		idle[k] = (struct judge_point){ .load = 0.3, .rate = 300e6, .total = 400e6 };
	}
	struct judge_win ws = { sat, 20 }, ws19 = { sat, 19 }, wi = { idle, 20 };
	struct judge_result r = { 0 };
	CHECK(judge_saturation(&ws, &ws, &p, &r));
	CHECK_INT(r.verdict, DETECTOR_UNCHANGED);
	CHECK_NEAR(r.ratio, 1.0, 1e-12);
	CHECK(!judge_saturation(&ws, &ws19, &p, &r)); /* too few saturated samples after */
	CHECK(!judge_saturation(&ws, &wi, &p, &r));   /* not saturated after */
	CHECK(!judge_cost(&ws, &ws, &p, &r));         /* saturated: no cost comparison */
	r = (struct judge_result){ 0 };
	CHECK(judge_cost(&wi, &wi, &p, &r));
	CHECK_INT(r.method, DETECTOR_M_COST);
	CHECK_NEAR(r.ratio, 1.0, 1e-12);
	CHECK_NEAR(r.before_load, 0.3, 1e-12);
}

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
	x->uptime_ms = (k - s->boot + 3600) * 1000;
	sample_set_cores(x, s->ncores);
	for (size_t c = 0; c < s->ncores; c++)
		x->cores[c].load = c == 1 ? (after ? s->busy2 : s->busy1) : s->others;
	struct sample_iface *fi = sample_add_iface(x);
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
	CHECK_STR(detector_verdict_name(it->v.verdict), detector_verdict_name(want));
	CHECK_STR(detector_method_name(it->v.method), detector_method_name(m));
	if (!isnan(ratio))
		CHECK_NEAR(it->v.ratio, ratio, tol);
}

static void check_round(detector_t *d, sqlite3 *db)
{
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
	CHECK_INT(count_rows(db, "SELECT count(*) FROM verdict_history"), 4);
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
	view_publish(d, view_build(d));
	detector_view_t *v = detector_view(d), *w = detector_view(d);
	CHECK(v != NULL && v == w);
	view_publish(d, NULL);
	CHECK(detector_view(d) == NULL);
	check_view(v);
	detector_view_free(v);
	CHECK_INT(detector_view_nverdicts(w), 4);
	detector_view_free(w);
}

static void test_database(void)
{
	char dir[] = "/tmp/detector_test.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/w.db", dir);
	conf_t conf = test_conf(path);
	store_t *st;
	char *cause = NULL;
	CHECK(store_open(path, &conf, &st, &cause) == 0);
	struct sim sims[] = {
		{ "tile", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 220, 130, 220, 1.0,
			1.0, 0.12, 0, 9, 0, 0, 0 },
		{ "swing", "x86_64", "CHR", -1, 60, "7.22.3", "7.22.3", 150, 95, 150, 95, 0.3, 0.3, 0.2, 0.2,
			4, 0, 0, 0 },
		{ "early", "arm64", "CCR2116-12G-4S+", 10, -1, "7.21.5", "7.22.3", 200, 0, 200, 0, 0.3, 0.75,
			0.05, 0, 16, 0, 0, 0 },
	};
	fill(st, sims, 3, 125);

	detector_t *d = xcalloc(1, sizeof(*d));
	CHECK(detector_open(d, &conf, false, &cause) == 0);
	CHECK(detector_round(d, T0 + 200000, &cause) == 0);
	check_round(d, d->db);
	int64_t reached = find_item(d, "tile", "tx") ? find_item(d, "tile", "tx")->v.reached_ms : 0;
	CHECK(detector_round(d, T0 + 300000, &cause) == 0); /* final: nothing re-evaluated */
	CHECK_INT(count_rows(d->db, "SELECT count(*) FROM verdict_history"), 4);
	detector_free(d);

	d = xcalloc(1, sizeof(*d)); /* a restart: stored verdicts stay */
	CHECK(detector_open(d, &conf, false, &cause) == 0 && data_load_stored(d, &cause) == 0);
	CHECK_INT(d->ndone, 2);
	CHECK(detector_round(d, T0 + 400000, &cause) == 0);
	check_round(d, d->db);
	CHECK_INT(find_item(d, "tile", "tx") ? find_item(d, "tile", "tx")->v.reached_ms : 0, reached);
	detector_view_t *v = view_build(d);
	check_view(v);
	view_destroy(v);
	check_publish(d);
	detector_free(d);

	char *out = NULL;
	size_t outlen = 0;
	FILE *fp = open_memstream(&out, &outlen);
	CHECK(detector_report(&conf, fp, &cause) == 0);
	fclose(fp);
	CHECK(out && strstr(out, "tile ") && strstr(out, "saturation-ceiling regression"));
	CHECK(out && strstr(out, "7.21.5 -> 7.22.3"));
	free(out);
	store_close(st);
	char *cmd = xasprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(path);
	free(cause);
}

/* A running detector publishes a view; stopping it withdraws the view. */
static void test_thread(void)
{
	char dir[] = "/tmp/detector_test.XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char *path = xasprintf("%s/w.db", dir);
	conf_t conf = test_conf(path);
	store_t *st;
	char *cause = NULL;
	CHECK(store_open(path, &conf, &st, &cause) == 0);
	struct sim s = { "tile", "tile", "CCR1009-7G-1C-1S+", 60, -1, "7.21.5", "7.22.3", 380, 220, 130, 220,
		1.0, 1.0, 0.12, 0, 9, 0, 0, 0 };
	fill(st, &s, 1, 125);
	detector_t *d;
	CHECK(detector_view(NULL) == NULL); /* no detector runs */
	CHECK(detector_start(&conf, &d, &cause) == 0);
	detector_view_t *v = NULL;
	for (int i = 0; i < 500 && (v = detector_view(d)) == NULL; i++)
		usleep(10000);
	CHECK(v != NULL);
	CHECK_INT(detector_view_nverdicts(v), 2);
	detector_stop(d);
	CHECK(detector_view(NULL) == NULL);
	CHECK_INT(detector_view_nverdicts(v), 2); /* still valid until freed */
	detector_view_free(v);
	store_close(st);
	char *cmd = xasprintf("rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	free(cmd);
	free(path);
}

int main(void)
{
	log_set_level(LOG_LVL_WARN);
	test_quantile();
	test_quantile_table();
	test_bound();
	test_methods();
	test_engine();
	test_database();
	test_thread();
	return unit_done("detector_test");
}
