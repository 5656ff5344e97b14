/* SPDX-License-Identifier: Apache-2.0 */
/* rollout_test: the rollout guard's decisions (detector/rollout.c), table-driven: each case a
 * small fleet of verdicts, the [rollout] settings, a query, and the decision, cohort, counts and
 * reasons it must give. */
#include "config.h"
#include "detector/evidence.h"
#include "detector/evidread.h"
#include "detector/rollout.h"
#include "lib/xmem.h"
#include "tests/unit/unit.h"
#include "tests/unit/unitfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW            10000000        /* ms */
#define HOLD           300000          /* [detector] hold, 5m */
#define DAY_2025_12_01 1764547200000LL /* ms: a day an evidence document may carry */

#define TILE "tile CCR1009"
#define X86  "x86_64 CHR"

/* One verdict a line: "ROUTER ARCH BOARD VERSION DIR VERDICT METHOD RATIO FINAL AGE_S [UPGRADED_S]",
 * VERDICT R(egression) U(nchanged) I(mprovement) N(insufficient-data), METHOD S(aturation) C(ost)
 * M(atched-rate) -,
 * FINAL F or P (provisional), AGE_S seconds since the verdict was reached. */
struct rcase {
	const char *name;
	const char *verdicts; /* lines separated by ';' */
	const char *canaries; /* router names labelled role=canary, blank-separated; "" none */
	const char *allow;    /* [rollout] allow, or NULL */
	int go_min, hold_regressed;
	const char *version, *arch, *board; /* the query */
	enum rollout_decision want;
	const char *want_board; /* the cohort's board; NULL: the architecture decided */
	int routers, judged, regressed;
	const char *want_kinds; /* the reasons' kinds in order, blank-separated; NULL: not checked */
};

static const struct rcase rcases[] = {
	{ "two tile canaries regressed: hold",
		"ta " TILE " 7.22.3 tx R S 0.33 F 0; ta " TILE " 7.22.3 rx U C 1.0 F 0;"
		"tb " TILE " 7.22.3 tx R S 0.34 F 0",
		"ta tb xa xb", NULL, 2, 1, "7.22.3", "tile", "CCR1009", ROLLOUT_HOLD, "CCR1009", 2, 2, 2,
		"regression regression median-ratio" },
	{ "x86 canaries unchanged, final: go",
		"xa " X86 " 7.22.3 tx U S 1.0 F 0; xa " X86 " 7.22.3 rx N - nan F 0;"
		"xb " X86 " 7.22.3 tx U C 0.97 F 0",
		"ta tb xa xb", NULL, 2, 1, "7.22.3", "x86_64", "CHR", ROLLOUT_GO, "CHR", 2, 2, 0,
		"judged judged count" },
	{ "x86 canaries with steady traffic, unchanged by matched rates: go",
		"xa " X86 " 7.22.3 tx U M 1.0 F 0; xa " X86 " 7.22.3 rx U M 0.99 F 0;"
		"xb " X86 " 7.22.3 tx U M 1.01 F 0",
		"xa xb", NULL, 2, 1, "7.22.3", "x86_64", "CHR", ROLLOUT_GO, "CHR", 2, 2, 0,
		"judged judged judged count" },
	{ "a canary regressed by matched rates, held: hold",
		"xa " X86 " 7.22.3 tx R M 0.66 F 0; xb " X86 " 7.22.3 tx U M 1.0 F 0", "xa xb", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_HOLD, NULL, 2, 2, 1, "regression" },
	{ "SNMP-only CHRs (no architecture), unchanged: the board decides, go",
		"sa ? CHR 7.22.3 tx U M 1.0 F 0; sb ? CHR 7.22.3 tx U M 0.99 F 0", "sa sb", NULL, 2, 1,
		"7.22.3", NULL, "CHR", ROLLOUT_GO, "CHR", 2, 2, 0, "cohort judged judged count" },
	{ "architecture unknown: a CHR of any architecture that regressed holds it",
		"sa ? CHR 7.22.3 tx U M 1.0 F 0; xa " X86 " 7.22.3 tx R C 0.5 F 0", "", NULL, 2, 1, "7.22.3",
		NULL, "CHR", ROLLOUT_HOLD, "CHR", 2, 2, 1, NULL },
	{ "neither architecture nor board: wait", "sa ? CHR 7.22.3 tx U M 1.0 F 0", "", NULL, 1, 1, "7.22.3",
		NULL, NULL, ROLLOUT_WAIT, NULL, 0, 0, 0, "cohort" },
	{ "one final, one provisional: wait",
		"xa " X86 " 7.22.3 tx U S 1.0 F 0; xb " X86 " 7.22.3 tx U C 0.97 P 900", "xa xb", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_WAIT, NULL, 2, 1, 0, "pending count" },
	{ "a provisional regression held past hold: hold",
		"xa " X86 " 7.22.3 tx R C 0.6 P 400; xb " X86 " 7.22.3 tx U C 1.0 F 0", "xa xb", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_HOLD, NULL, 2, 1, 1, "regression" },
	{ "a regression not held yet: wait, never go",
		"xa " X86 " 7.22.3 tx R C 0.6 P 10; xb " X86 " 7.22.3 tx U C 1.0 F 0; xc " X86
		" 7.22.3 tx U C 1.0 F 0",
		"xa xb xc", NULL, 2, 1, "7.22.3", "x86_64", NULL, ROLLOUT_WAIT, NULL, 3, 2, 0,
		"pending pending count" },
	{ "judged routers are not canaries: wait",
		"xa " X86 " 7.22.3 tx U C 1.0 F 0; xb " X86 " 7.22.3 tx U C 1.0 F 0", "xc", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_WAIT, NULL, 2, 0, 0, "count" },
	{ "no router labelled: every router counts",
		"xa " X86 " 7.22.3 tx U C 1.0 F 0; xb " X86 " 7.22.3 tx I C 1.3 F 0", "", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_GO, NULL, 2, 2, 0, "judged judged count" },
	{ "median ratio below hold_ratio without a regression: hold",
		"xa " X86 " 7.22.3 tx U C 0.75 F 0; xb " X86 " 7.22.3 tx U C 0.78 F 0", "", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_HOLD, NULL, 2, 2, 0, "median-ratio" },
	{ "a board with fewer than go_min routers: the architecture decides",
		"ta " TILE " 7.22.3 tx R S 0.33 F 0; tb tile CCR1036 7.22.3 tx R S 0.3 F 0;"
		"tc tile CCR1036 7.22.3 tx R S 0.3 F 0",
		"", NULL, 2, 1, "7.22.3", "tile", "CCR1009", ROLLOUT_HOLD, NULL, 3, 3, 3,
		"cohort regression regression regression median-ratio" },
	{ "a board with go_min routers is its own cohort",
		"ta " TILE " 7.22.3 tx U S 1.0 F 0; tb " TILE " 7.22.3 tx U S 1.0 F 0;"
		"tc tile CCR1036 7.22.3 tx R S 0.3 F 0",
		"", NULL, 2, 1, "7.22.3", "tile", "CCR1009", ROLLOUT_GO, "CCR1009", 2, 2, 0, NULL },
	{ "allow VERSION/ARCHITECTURE turns a hold into go, the regressions still shown",
		"ta " TILE " 7.22.3 tx R S 0.33 F 0; tb " TILE " 7.22.3 tx R S 0.34 F 0", "ta tb",
		"7.22.3/tile", 2, 1, "7.22.3", "tile", "CCR1009", ROLLOUT_GO, "CCR1009", 2, 2, 2,
		"override regression regression median-ratio" },
	{ "allow VERSION/BOARD", "ta " TILE " 7.22.3 tx R S 0.33 F 0", "", "7.22.3/CCR1009", 2, 1, "7.22.3",
		"tile", "CCR1009", ROLLOUT_GO, NULL, 1, 1, 1, NULL },
	{ "allow of another version does not apply", "ta " TILE " 7.22.3 tx R S 0.33 F 0", "", "7.22.2/tile",
		2, 1, "7.22.3", "tile", NULL, ROLLOUT_HOLD, NULL, 1, 1, 1, NULL },
	{ "hold_regressed 2: one regressed router is a wait",
		"ta " TILE " 7.22.3 tx R S 0.7 F 0; tb " TILE " 7.22.3 tx U S 1.0 F 0; tc " TILE
		" 7.22.3 tx U S 1.0 F 0",
		"", NULL, 2, 2, "7.22.3", "tile", NULL, ROLLOUT_WAIT, NULL, 3, 3, 1, NULL },
	{ "final insufficient-data everywhere is not judged",
		"xa " X86 " 7.22.3 tx N - nan F 0; xb " X86 " 7.22.3 tx N - nan F 0", "", NULL, 2, 1,
		"7.22.3", "x86_64", NULL, ROLLOUT_WAIT, NULL, 2, 0, 0, "pending pending count" },
	{ "only a router's newest version change to the version counts",
		"xa " X86 " 7.22.3 tx R C 0.5 F 0 100; xa " X86 " 7.22.3 tx U C 1.0 F 0 200; xb " X86
		" 7.22.3 tx U C 1.0 F 0",
		"", NULL, 2, 1, "7.22.3", "x86_64", NULL, ROLLOUT_GO, NULL, 2, 2, 0, NULL },
	{ "other versions and architectures do not count",
		"xa " X86 " 7.22.2 tx R C 0.5 F 0; ta " TILE " 7.22.3 tx R S 0.3 F 0; xb " X86
		" 7.22.3 tx U C 1.0 F 0; xc " X86 " 7.22.3 tx U C 1.0 F 0",
		"", NULL, 2, 1, "7.22.3", "x86_64", NULL, ROLLOUT_GO, NULL, 2, 2, 0, NULL },
	{ "nothing took the version: wait", "", "", NULL, 2, 1, "7.23", "arm64", "RB5009", ROLLOUT_WAIT, NULL,
		0, 0, 0, "cohort count" },
};

static enum detector_outcome rt_verdict(char c)
{
	return c == 'R'    ? DETECTOR_REGRESSION
		: c == 'U' ? DETECTOR_UNCHANGED
		: c == 'I' ? DETECTOR_IMPROVEMENT
			   : DETECTOR_INSUFFICIENT;
}

/* The verdicts of spec into *out; returns how many (free with rt_free). */
static size_t rt_parse(const char *spec, struct detector_verdict **out)
{
	char *copy = xstrdup(spec), *save = copy, *line;
	struct detector_verdict *v = xcalloc(32, sizeof(*v));
	size_t n = 0;
	while ((line = strsep(&save, ";")) != NULL) {
		char r[32], a[32], b[32], ver[32], dir[4], verdict, method, ratio[16], fin;
		int age, upg = 50;
		if (sscanf(line, " %31s %31s %31s %31s %3s %c %c %15s %c %d %d", r, a, b, ver, dir, &verdict,
			    &method, ratio, &fin, &age, &upg) < 10)
			continue;
		struct detector_verdict *x = &v[n++];
		*x = (struct detector_verdict){ .router = xstrdup(r),
			.interface = xstrdup("wg0"),
			.direction = dir[0] == 't' ? "tx" : "rx",
			.from_version = xstrdup("7.21.5"),
			.to_version = xstrdup(ver),
			.architecture = strcmp(a, "?") == 0 ? NULL : xstrdup(a), /* ?: SNMP tells none */
			.board = xstrdup(b),
			.upgraded_ms = upg * 1000LL,
			.reached_ms = NOW - age * 1000LL,
			.final = fin == 'F',
			.verdict = rt_verdict(verdict),
			.ratio = strtod(ratio, NULL),
			.method = method == 'S' ? DETECTOR_M_SATURATION
				: method == 'C' ? DETECTOR_M_COST
				: method == 'M' ? DETECTOR_M_MATCHED
						: DETECTOR_M_NONE };
	}
	free(copy);
	*out = v;
	return n;
}

static void rt_free(struct detector_verdict *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].router);
		free(v[i].interface);
		free(v[i].from_version);
		free(v[i].to_version);
		free(v[i].architecture);
		free(v[i].board);
	}
	free(v);
}

/* A config of the case: routers named in canaries carry role=canary, one more router does not. */
static conf_t *rt_conf(const struct rcase *c)
{
	static struct conf_label canary = { .key = (char *)"role", .value = (char *)"canary" };
	static struct conf_label other = { .key = (char *)"role", .value = (char *)"hub" };
	static char *allow[1];
	conf_t *conf = xcalloc(1, sizeof(*conf));
	conf->routers = xcalloc(8, sizeof(*conf->routers));
	char *copy = xstrdup(c->canaries), *save = copy, *name;
	while ((name = strsep(&save, " ")) != NULL)
		if (*name != '\0')
			conf->routers[conf->nrouters++] = (conf_router_t){
				.name = xstrdup(name), .labels = &canary, .nlabels = 1
			};
	free(copy);
	conf->routers[conf->nrouters++] = (conf_router_t){
		.name = xstrdup("zz-hub"), .labels = &other, .nlabels = 1
	};
	conf->rollout_canary = (char *)"role=canary";
	conf->rollout_go_min = c->go_min;
	conf->rollout_hold_regressed = c->hold_regressed;
	conf->rollout_hold_ratio = 0.8;
	conf->hold_ms = HOLD;
	allow[0] = (char *)c->allow;
	conf->rollout_allow = allow;
	conf->nrollout_allow = c->allow != NULL;
	return conf;
}

static void rt_conf_free(conf_t *conf)
{
	for (size_t i = 0; i < conf->nrouters; i++)
		free(conf->routers[i].name);
	free(conf->routers);
	free(conf);
}

static void rt_check_kinds(const struct rcase *c, const struct rollout_result *res)
{
	char got[256] = "";
	for (size_t i = 0; i < res->nreasons; i++) {
		CHECK(res->reasons[i].text[0] != '\0');
		strncat(got, rollout_kind_name(res->reasons[i].kind), sizeof(got) - strlen(got) - 2);
		if (i + 1 < res->nreasons)
			strcat(got, " ");
	}
	if (c->want_kinds != NULL && strcmp(got, c->want_kinds) != 0) {
		fprintf(stderr, "  %s: reasons \"%s\", want \"%s\"\n", c->name, got, c->want_kinds);
		CHECK(!"reasons");
	}
}

static void test_cases(void)
{
	for (size_t i = 0; i < sizeof(rcases) / sizeof(rcases[0]); i++) {
		const struct rcase *c = &rcases[i];
		struct detector_verdict *v;
		size_t n = rt_parse(c->verdicts, &v);
		conf_t *conf = rt_conf(c);
		rollout_t *r = rollout_create(conf);
		rt_conf_free(conf);
		struct rollout_query q = {
			.version = c->version, .architecture = c->arch, .board = c->board, .now_ms = NOW
		};
		struct rollout_result res;
		rollout_decide(r, v, n, &q, &res);
		int before = unit_failures;
		CHECK_STR(rollout_decision_name(res.decision), rollout_decision_name(c->want));
		CHECK_STR(res.board, c->want_board);
		CHECK_INT(res.routers, c->routers);
		CHECK_INT(res.judged, c->judged);
		CHECK_INT(res.regressed, c->regressed);
		CHECK((res.allow != NULL) == (res.decision == ROLLOUT_GO && c->allow != NULL));
		rt_check_kinds(c, &res);
		if (unit_failures != before)
			fprintf(stderr, "  in case: %s\n", c->name);
		rollout_result_free(&res);
		rollout_unref(r);
		rt_free(v, n);
	}
}

/* A reason names the router, interface, direction, ratio and method of its verdict. */
static void test_reason_fields(void)
{
	const struct rcase *c = &rcases[0];
	struct detector_verdict *v;
	size_t n = rt_parse(c->verdicts, &v);
	conf_t *conf = rt_conf(c);
	rollout_t *r = rollout_create(conf);
	rt_conf_free(conf);
	CHECK(rollout_is_canary(r, "ta") && !rollout_is_canary(r, "zz-hub") &&
		!rollout_is_canary(r, "nobody"));
	struct rollout_query q = {
		.version = "7.22.3", .architecture = "tile", .board = "CCR1009", .now_ms = NOW
	};
	struct rollout_result res;
	rollout_decide(rollout_ref(r), v, n, &q, &res);
	rollout_unref(r);
	CHECK(res.nreasons >= 1);
	const struct rollout_reason *x = &res.reasons[0];
	CHECK_STR(x->router, "ta");
	CHECK_STR(x->interface, "wg0");
	CHECK_STR(x->direction, "tx");
	CHECK_NEAR(x->ratio, 0.33, 1e-9);
	CHECK_INT(x->method, DETECTOR_M_SATURATION);
	CHECK(x->final && x->canary);
	CHECK(strstr(x->text, "ta wg0 tx: regression (saturation-ceiling, ratio 0.33, final)") != NULL);
	CHECK_NEAR(res.median_ratio_tx, 0.335, 1e-9);
	CHECK_NEAR(res.median_ratio_rx, 1.0, 1e-9);
	rollout_result_free(&res);
	rollout_unref(r);
	rt_free(v, n);
}

/* Overrides: [rollout] allow names its FILE:LINE; a stored one (POST /api/v1/rollout/allow)
 * names its user and time; both are listed; replacing the stored ones takes effect at once. */
static void test_overrides(void)
{
	const struct rcase *c = &rcases[0]; /* tile holds */
	struct detector_verdict *v;
	size_t n = rt_parse(c->verdicts, &v);
	conf_t *conf = rt_conf(c);
	char *item = (char *)"7.22.3/CCR1009", *at = (char *)"/etc/wgwatch/wgwatch.conf:42";
	conf->rollout_allow = &item;
	conf->rollout_allow_at = &at;
	conf->nrollout_allow = 1;
	rollout_t *r = rollout_create(conf);
	rt_conf_free(conf);
	struct rollout_query q = {
		.version = "7.22.3", .architecture = "tile", .board = "CCR1009", .now_ms = NOW
	};
	struct rollout_result res;
	rollout_decide(r, v, n, &q, &res);
	CHECK_INT(res.decision, ROLLOUT_GO);
	CHECK_STR(res.allow ? res.allow->who : NULL, "config /etc/wgwatch/wgwatch.conf:42");
	CHECK_STR(res.nreasons ? res.reasons[0].text : NULL,
		"override: allow 7.22.3/CCR1009 by config /etc/wgwatch/wgwatch.conf:42 (the guard said hold)");
	rollout_result_free(&res);
	q.board = "CCR1036"; /* the board's override does not reach another board */
	rollout_decide(r, v, n, &q, &res);
	CHECK_INT(res.decision, ROLLOUT_HOLD);
	CHECK(res.allow == NULL);
	rollout_result_free(&res);
	struct override st = { .id = 7,
		.version = (char *)"7.22.3",
		.cohort = (char *)"tile",
		.who = (char *)"admin",
		.at_ms = 1764662400000LL };
	rollout_set_stored(r, &st, 1);
	rollout_decide(r, v, n, &q, &res);
	CHECK_INT(res.decision, ROLLOUT_GO);
	CHECK(res.allow != NULL && res.allow->id == 7);
	CHECK_STR(res.nreasons ? res.reasons[0].text : NULL,
		"override: allow 7.22.3/tile by admin at 2025-12-02T08:00:00Z (the guard said hold)");
	rollout_result_free(&res);
	struct override *all;
	size_t na = rollout_overrides(r, &all);
	CHECK_INT(na, 2);
	CHECK_STR(na == 2 ? all[0].cohort : NULL, "CCR1009");
	CHECK_STR(na == 2 ? all[1].who : NULL, "admin");
	overrides_free(all, na);
	rollout_set_stored(r, NULL, 0); /* revoked */
	rollout_decide(r, v, n, &q, &res);
	CHECK_INT(res.decision, ROLLOUT_HOLD);
	rollout_result_free(&res);
	rollout_unref(r);
	rt_free(v, n);
}

/* Since when a cohort holds, for "took it despite a hold": the hold_regressed-th router's
 * regression, reached plus [detector] hold, leaving out the router asked about. */
static void test_hold_since(void)
{
	struct detector_verdict *v;
	size_t n = rt_parse("ta " TILE " 7.22.3 tx R S 0.33 F 100; ta " TILE " 7.22.3 rx R S 0.5 F 200;"
			    "tb " TILE " 7.22.3 tx R S 0.34 F 50; tc " TILE " 7.22.3 tx U S 1.0 P 10",
		&v);
	conf_t *conf = rt_conf(&rcases[0]);
	rollout_t *r = rollout_create(conf);
	rt_conf_free(conf);
	struct rollout_query q = { .version = "7.22.3", .architecture = "tile", .board = "CCR1009" };
	/* ta's first regression counted at NOW - 200 s + hold (its older one), tb's at NOW - 50 s */
	CHECK(rollout_hold_since(r, v, n, &q, "tc") == NOW - 200000 + HOLD);
	CHECK(rollout_hold_since(r, v, n, &q, "ta") == NOW - 50000 + HOLD);
	rollout_unref(r);
	conf = rt_conf(&rcases[0]);
	conf->rollout_hold_regressed = 3; /* only two other routers regressed: never */
	r = rollout_create(conf);
	rt_conf_free(conf);
	CHECK(rollout_hold_since(r, v, n, &q, "tc") == INT64_MAX);
	rollout_unref(r);
	rt_free(v, n);
}

/* ---- other fleets' evidence ([evidence] files, [rollout] evidence = hold) ---- */

/* A document of one fleet id (its letter 32 times) generated on day, tile 7.21.5 -> 7.22.3 with
 * reg of judged routers regressed on tx. */
static void rt_evidence_file(const char *dir, const char *name, char id, const char *day, int judged, int reg)
{
	char path[512], fleet[33];
	memset(fleet, id, 32);
	fleet[32] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fprintf(f,
		"{\"schema\": \"wgwatch-evidence/1\", \"fleets\": [{\"fleet\": \"%s\", \"generated\": \"%s\", "
		"\"since\": null, \"cohorts\": [{\"from_version\": \"7.21.5\", \"to_version\": \"7.22.3\", "
		"\"architecture\": \"tile\", \"board\": \"CCR1009\", \"first_day\": \"%s\", \"last_day\": \"%s\", "
		"\"tx\": {\"routers\": %d, \"judged\": %d, \"regressed\": %d, \"improved\": 0, \"unchanged\": %d, "
		"\"insufficient\": 0, \"ratio\": {\"q1\": 0.3, \"median\": 0.35, \"q3\": 0.4}, \"methods\": {}}, "
		"\"rx\": {\"routers\": %d, \"judged\": 0, \"regressed\": 0, \"improved\": 0, \"unchanged\": 0, "
		"\"insufficient\": %d, \"ratio\": null, \"methods\": {}}}]}]}\n",
		fleet, day, day, day, judged, judged, reg, judged - reg, judged, judged);
	fclose(f);
}

/* The decision on tile 7.22.3 with the evidence of dir's files (own: the fleet's id) over the
 * verdicts spec, hold or show; its reasons' kinds into kinds. */
static enum rollout_decision rt_evidence_decide(const char *dir, const char *own, const char *spec, bool hold,
	char *kinds, size_t size, size_t *fleets)
{
	char glob[512];
	snprintf(glob, sizeof(glob), "%s/*.json", dir);
	struct rcase c = { .canaries = "ta tb", .go_min = 1, .hold_regressed = 1 };
	conf_t *conf = rt_conf(&c);
	conf->rollout_evidence = (char *)(hold ? "hold" : "show");
	conf->rollout_evidence_fleets = 2;
	conf->rollout_evidence_routers = 3;
	rollout_t *r = rollout_create(conf);
	rt_conf_free(conf);
	evidimport_t *im = evidimport_create();
	evidimport_set_t *s = evidimport_load(im, glob, own);
	*fleets = evidimport_nfleets(s);
	rollout_set_evidence(r, s);
	evidimport_unref(s);
	struct detector_verdict *v;
	size_t n = rt_parse(spec, &v);
	struct rollout_query q = {
		.version = "7.22.3", .architecture = "tile", .board = "CCR1009", .now_ms = NOW
	};
	struct rollout_result res;
	rollout_decide(r, v, n, &q, &res);
	kinds[0] = '\0';
	for (size_t i = 0; i < res.nreasons; i++)
		snprintf(kinds + strlen(kinds), size - strlen(kinds), "%s%s", i ? " " : "",
			rollout_kind_name(res.reasons[i].kind));
	enum rollout_decision d = res.decision;
	rollout_result_free(&res);
	rt_free(v, n);
	rollout_unref(r);
	evidimport_free(im);
	return d;
}

static void test_evidence(void)
{
	char *dir = unitfs_dir(), kinds[256];
	size_t fleets;
	rt_evidence_file(dir, "a.json", 'a', "2026-12-01", 2, 2);
	rt_evidence_file(dir, "a-old.json", 'a', "2026-11-01", 2, 0); /* older: a's newer one wins */
	rt_evidence_file(dir, "b.json", 'b', "2026-12-02", 2, 1);
	free(unitfs_put(dir, "bad.json", 0644, "{\"schema\": \"wgwatch-evidence/2\"}"));
	const char *none = "", *own_unchanged = "ta tile CCR1009 7.22.3 tx U S 1.0 F 0";
	const char *own_pending = "ta tile CCR1009 7.22.3 tx U S 1.0 P 0";
	char own_b[33];
	memset(own_b, 'b', 32);
	own_b[32] = '\0';
	/* two fleets, three routers regressed on tx: hold on evidence alone, with hold */
	CHECK(rt_evidence_decide(dir, NULL, none, true, kinds, sizeof(kinds), &fleets) == ROLLOUT_HOLD);
	CHECK_INT(fleets, 2);
	CHECK_STR(kinds, "cohort evidence"); /* the board has no router on it: tile decides */
	/* with show, only shown */
	CHECK(rt_evidence_decide(dir, NULL, none, false, kinds, sizeof(kinds), &fleets) == ROLLOUT_WAIT);
	/* b is our own fleet: one fleet, two routers: not enough */
	CHECK(rt_evidence_decide(dir, own_b, none, true, kinds, sizeof(kinds), &fleets) == ROLLOUT_WAIT);
	CHECK_INT(fleets, 1);
	/* an own canary not judged yet: still held; judged unchanged, final: ours decides, go */
	CHECK(rt_evidence_decide(dir, NULL, own_pending, true, kinds, sizeof(kinds), &fleets) ==
		ROLLOUT_HOLD);
	CHECK(rt_evidence_decide(dir, NULL, own_unchanged, true, kinds, sizeof(kinds), &fleets) ==
		ROLLOUT_GO);
	CHECK(strstr(kinds, "evidence") == NULL);
	free(dir);
}

/* ---- the other shards of the fleet ([rollout] shards) ---- */

/* One case: this shard's verdicts, what the other shard (2 of 2) said, the query, the answer. */
struct scase {
	const char *name;
	const char *verdicts;        /* this shard's, as rcases */
	bool up;                     /* shard 2 was read */
	struct evidread_rollout row; /* shard 2's counts (to_version NULL: none) */
	const char *arch, *board;    /* the query, on 7.22.3 */
	enum rollout_decision want;
	const char *want_board;
	size_t routers, judged, regressed;
	const char *want_kinds;
};

static const struct scase scases[] = {
	{ "the tile canaries on the other shard regressed, none here: hold", "", true,
		{ "7.22.3", "tile", "CCR1009", 2, 2, 2, 2, 0 }, "tile", "CCR1009", ROLLOUT_HOLD, "CCR1009", 2,
		2, 2, "shard" },
	{ "the x86 canaries on the other shard unchanged: go", "", true,
		{ "7.22.3", "x86_64", "CHR", 2, 2, 2, 0, 0 }, "x86_64", "CHR", ROLLOUT_GO, "CHR", 2, 2, 0,
		"shard count" },
	{ "one canary here, one there, both judged: go", "xa " X86 " 7.22.3 tx U S 1.0 F 0", true,
		{ "7.22.3", "x86_64", "CHR", 1, 1, 1, 0, 0 }, "x86_64", "CHR", ROLLOUT_GO, "CHR", 2, 2, 0,
		"judged shard count" },
	{ "the other shard cannot be read: go turns into wait",
		"xa " X86 " 7.22.3 tx U S 1.0 F 0; xb " X86 " 7.22.3 tx U S 1.0 F 0", false, { NULL },
		"x86_64", "CHR", ROLLOUT_WAIT, "CHR", 2, 2, 0, "shard count" },
	{ "a regression there not held yet: never go",
		"xa " X86 " 7.22.3 tx U S 1.0 F 0; xb " X86 " 7.22.3 tx U S 1.0 F 0", true,
		{ "7.22.3", "x86_64", "CHR", 1, 1, 0, 0, 1 }, "x86_64", "CHR", ROLLOUT_WAIT, "CHR", 3, 2, 0,
		"shard count" },
	{ "a regression here holds whatever the other shard says", "ta " TILE " 7.22.3 tx R S 0.3 F 0", false,
		{ NULL }, "tile", "CCR1009", ROLLOUT_HOLD, NULL, 1, 1, 1,
		"cohort regression median-ratio shard" },
	{ "the other shard's routers on the board keep the board's cohort",
		"ta " TILE " 7.22.3 tx U S 1.0 F 0", true, { "7.22.3", "tile", "CCR1009", 1, 1, 1, 0, 0 },
		"tile", "CCR1009", ROLLOUT_GO, "CCR1009", 2, 2, 0, NULL },
	{ "another version or board there does not count", "", true,
		{ "7.22.2", "x86_64", "CHR", 2, 2, 2, 2, 0 }, "x86_64", "CHR", ROLLOUT_WAIT, NULL, 0, 0, 0,
		"cohort count" },
};

/* A guard of shard 1 of 2 with [rollout] shards, canaries ta tb xa xb. */
static rollout_t *rt_shard_guard(void)
{
	static char *urls[] = { (char *)"http://wg-1:9477", (char *)"http://wg-2:9477" };
	struct rcase c = { .canaries = "ta tb xa xb", .go_min = 2, .hold_regressed = 1 };
	conf_t *conf = rt_conf(&c);
	conf->shard = (struct conf_shard){ .index = 1, .count = 2 };
	conf->rollout_shards = urls;
	conf->nrollout_shards = 2;
	rollout_t *r = rollout_create(conf);
	rt_conf_free(conf);
	return r;
}

static void test_shards(void)
{
	for (size_t i = 0; i < sizeof(scases) / sizeof(scases[0]); i++) {
		const struct scase *c = &scases[i];
		rollout_t *r = rt_shard_guard();
		struct rollfleet_shard sh = { .index = 2, .up = c->up };
		if (!c->up)
			snprintf(sh.cause, sizeof(sh.cause), "Could not connect to server");
		struct evidread_rollout row = c->row;
		struct rollfleet_said f = {
			.shards = &sh, .nshards = 1, .rows = &row, .nrows = row.to_version != NULL
		};
		rollout_set_shards(r, &f);
		struct detector_verdict *v;
		size_t n = rt_parse(c->verdicts, &v);
		struct rollout_query q = {
			.version = "7.22.3", .architecture = c->arch, .board = c->board, .now_ms = NOW
		};
		struct rollout_result res;
		rollout_decide(r, v, n, &q, &res);
		int before = unit_failures;
		CHECK_STR(rollout_decision_name(res.decision), rollout_decision_name(c->want));
		CHECK_STR(res.board, c->want_board);
		CHECK_INT(res.routers, c->routers);
		CHECK_INT(res.judged, c->judged);
		CHECK_INT(res.regressed, c->regressed);
		CHECK_INT(res.shards_down, !c->up);
		rt_check_kinds(&(struct rcase){ .name = c->name, .want_kinds = c->want_kinds }, &res);
		for (size_t k = 0; !c->up && k < res.nreasons; k++)
			if (res.reasons[k].kind == ROLLOUT_R_SHARD)
				CHECK(strstr(res.reasons[k].text,
					      "shard 2 of the fleet cannot be read (Could not connect") !=
					NULL);
		if (unit_failures != before)
			fprintf(stderr, "  in case: %s\n", c->name);
		rollout_result_free(&res);
		rt_free(v, n);
		rollout_unref(r);
	}
}

/* Until the other shards are asked, the guard never says go; their states can be read back. */
static void test_shards_unasked(void)
{
	rollout_t *r = rt_shard_guard();
	struct detector_verdict *v;
	size_t n = rt_parse("xa " X86 " 7.22.3 tx U S 1.0 F 0; xb " X86 " 7.22.3 tx U S 1.0 F 0", &v);
	struct rollout_query q = {
		.version = "7.22.3", .architecture = "x86_64", .board = "CHR", .now_ms = NOW
	};
	struct rollout_result res;
	rollout_decide(r, v, n, &q, &res);
	CHECK(res.decision == ROLLOUT_WAIT && res.shards_down == 1);
	CHECK(res.nreasons >= 1 && strstr(res.reasons[0].text, "not asked yet") != NULL);
	rollout_result_free(&res);
	struct rollfleet_said f;
	rollout_shards_said(r, &f);
	CHECK_INT(f.nshards, 1);
	CHECK(f.nshards == 1 && f.shards[0].index == 2 && !f.shards[0].up);
	rollfleet_said_clear(&f);
	rollout_shards_said(NULL, &f);
	CHECK(f.nshards == 0 && f.nrows == 0);
	rt_free(v, n);
	rollout_unref(r);
}

/* A shard's counts go out in its export (?rollout=yes) and come back as they were: the tally
 * counts as rollout_decide does, the reader refuses counts that do not nest. */
static void test_shard_export(void)
{
	rollout_t *r = rt_shard_guard();
	struct detector_verdict *v;
	size_t n = rt_parse("ta " TILE " 7.22.3 tx R S 0.3 F 0; ta " TILE " 7.22.3 rx U S 1.0 F 0;"
			    "tb " TILE " 7.22.3 tx U S 1.0 P 900; tc " TILE " 7.22.3 tx R S 0.4 P 10;"
			    "xa " X86 " 7.22.3 tx U S 1.0 F 0",
		&v);
	for (size_t i = 0; i < n; i++)
		v[i].upgraded_ms += DAY_2025_12_01; /* the document's days from 2000 on */
	struct evidread_rollout *ro;
	size_t nro = rollout_tally(r, v, n, NOW, &ro);
	CHECK_INT(nro, 2);
	char fleet[33];
	memset(fleet, 'c', 32);
	fleet[32] = '\0';
	char *doc = evidence_export(v, n, fleet, 0, DAY_2025_12_01, ro, nro), *why = NULL;
	free(ro);
	evidread_t *e = evidread_parse(doc, strlen(doc), &why);
	CHECK(e != NULL && why == NULL);
	CHECK(e != NULL && evidread_has_rollout(e, 0));
	struct evidread_rollout *back = NULL;
	size_t nb = e ? evidread_rollout_rows(e, 0, &back) : 0;
	CHECK_INT(nb, 2);
	/* sorted by version, architecture, board: tile first; ta, tb canaries, tc not */
	CHECK(nb == 2 && strcmp(back[0].architecture, "tile") == 0 && back[0].routers == 3 &&
		back[0].canaries == 2 && back[0].judged == 1 && back[0].regressed == 1 &&
		back[0].pending == 1);
	CHECK(nb == 2 && strcmp(back[1].board, "CHR") == 0 && back[1].routers == 1 && back[1].judged == 1);
	free(back);
	evidread_free(e);
	free(doc);
	doc = evidence_export(v, n, fleet, 0, DAY_2025_12_01, NULL, 0); /* not asked: no rollout key */
	e = evidread_parse(doc, strlen(doc), &why);
	CHECK(e != NULL && !evidread_has_rollout(e, 0) && strstr(doc, "rollout") == NULL);
	evidread_free(e);
	free(doc);
	const char *bad =
		"{\"schema\": \"wgwatch-evidence/1\", \"fleets\": [{\"fleet\": "
		"\"cccccccccccccccccccccccccccccccc\", \"generated\": \"2026-12-01\", \"since\": null, "
		"\"cohorts\": [], \"rollout\": [{\"to_version\": \"7.22.3\", \"architecture\": null, "
		"\"board\": \"CHR\", \"routers\": 1, \"canaries\": 2, \"judged\": 0, \"regressed\": 0, "
		"\"pending\": 0}]}]}";
	e = evidread_parse(bad, strlen(bad), &why);
	CHECK(e == NULL && why != NULL &&
		strstr(why, "fleets[0].rollout[0]: the counts do not nest") != NULL);
	free(why);
	rt_free(v, n);
	rollout_unref(r);
}

/* A shard whose own routers carry no canary label, in a fleet where another shard's do: its
 * routers are not canaries (every router counts only when no router of the fleet is labelled). */
static void test_fleet_canary(void)
{
	struct rcase c = { .canaries = "", .go_min = 1, .hold_regressed = 1 };
	conf_t *conf = rt_conf(&c);
	rollout_t *r = rollout_create(conf);
	CHECK(rollout_is_canary(r, "zz-hub"));
	rollout_unref(r);
	conf->rollout_fleet_canary = true;
	r = rollout_create(conf);
	rt_conf_free(conf);
	CHECK(!rollout_is_canary(r, "zz-hub"));
	rollout_unref(r);
}

int main(void)
{
	if (unitfs_root("rollout_test") == NULL)
		return 1;
	test_shards();
	test_shards_unasked();
	test_shard_export();
	test_fleet_canary();
	test_evidence();
	test_cases();
	test_reason_fields();
	test_overrides();
	test_hold_since();
	return unitfs_end(unit_done("rollout_test"));
}
