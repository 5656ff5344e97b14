/* SPDX-License-Identifier: Apache-2.0 */
/* evidence: a fleet's final verdicts as cohort results another fleet can read. A cohort is an
 * upgrade (from, to version) on an architecture and board; per direction it counts routers,
 * not interfaces: a router regressed when any of its WireGuard interfaces did, else improved
 * when one did, else unchanged when one was judged so; its ratio is the lowest of its judged
 * interfaces'. Dates are days. It must never write a router's name, address, label, serial or
 * interface name: the router's name is used only to count it once, and never leaves this file. */
#include "config.h"
#include "detector/evidence.h"
#include "detector/stats.h"
#include "lib/xmem.h"
#include "lib/text.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EVIDENCE_NMETHODS (DETECTOR_M_MATCHED + 1)

/* One direction of one cohort: its routers' outcomes. */
struct evidence_tally {
	size_t routers, n[DETECTOR_REGRESSION + 1], method[EVIDENCE_NMETHODS], nratio;
	double *ratio; /* the judged routers' ratios */
};

static int evidence_cohort_cmp(const struct detector_verdict *a, const struct detector_verdict *b)
{
	int c = strcmp(a->from_version, b->from_version);
	c = c ? c : strcmp(a->to_version, b->to_version);
	c = c ? c : text_cmp(a->architecture, b->architecture);
	return c ? c : text_cmp(a->board, b->board);
}

/* Cohort, direction, router: the order of one pass. */
static int evidence_cmp(const void *x, const void *y)
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)x;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)y;
	int c = evidence_cohort_cmp(a, b);
	c = c ? c : strcmp(a->direction, b->direction);
	return c ? c : strcmp(a->router, b->router);
}

static json_t *evidence_day(int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char d[16];
	if (ms <= 0 || gmtime_r(&t, &tm) == NULL || strftime(d, sizeof(d), "%Y-%m-%d", &tm) == 0)
		return json_null();
	return json_string(d);
}

static json_t *evidence_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* The router's verdicts v[0..n) (its interfaces, one direction) into t. */
static void evidence_router(const struct detector_verdict *const *v, size_t n, struct evidence_tally *t)
{
	enum detector_outcome worst = DETECTOR_INSUFFICIENT;
	enum detector_method method = DETECTOR_M_NONE;
	double lo = INFINITY;
	for (size_t i = 0; i < n; i++) {
		worst = v[i]->verdict > worst ? v[i]->verdict : worst;
		if (v[i]->verdict != DETECTOR_INSUFFICIENT && isfinite(v[i]->ratio) && v[i]->ratio < lo)
			lo = v[i]->ratio, method = v[i]->method;
	}
	t->routers++;
	t->n[worst]++;
	if (worst != DETECTOR_INSUFFICIENT && isfinite(lo)) {
		t->ratio[t->nratio++] = lo;
		t->method[method < EVIDENCE_NMETHODS ? method : DETECTOR_M_NONE]++;
	}
}

static json_t *evidence_tally_json(struct evidence_tally *t)
{
	json_t *o = json_object(), *m = json_object(), *r = json_null();
	size_t judged = t->n[DETECTOR_REGRESSION] + t->n[DETECTOR_IMPROVEMENT] + t->n[DETECTOR_UNCHANGED];
	json_object_set_new(o, "routers", json_integer((json_int_t)t->routers));
	json_object_set_new(o, "judged", json_integer((json_int_t)judged));
	json_object_set_new(o, "regressed", json_integer((json_int_t)t->n[DETECTOR_REGRESSION]));
	json_object_set_new(o, "improved", json_integer((json_int_t)t->n[DETECTOR_IMPROVEMENT]));
	json_object_set_new(o, "unchanged", json_integer((json_int_t)t->n[DETECTOR_UNCHANGED]));
	json_object_set_new(o, "insufficient", json_integer((json_int_t)t->n[DETECTOR_INSUFFICIENT]));
	if (t->nratio > 0) {
		r = json_object();
		json_object_set_new(r, "q1", json_real(stats_quantile(t->ratio, t->nratio, 0.25)));
		json_object_set_new(r, "median", json_real(stats_quantile(t->ratio, t->nratio, 0.5)));
		json_object_set_new(r, "q3", json_real(stats_quantile(t->ratio, t->nratio, 0.75)));
	}
	json_object_set_new(o, "ratio", r);
	for (int k = 1; k < EVIDENCE_NMETHODS; k++)
		if (t->method[k] > 0)
			json_object_set_new(m, outcome_method_name((enum detector_method)k),
				json_integer((json_int_t)t->method[k]));
	json_object_set_new(o, "methods", m);
	return o;
}

static int evidence_fw_cmp(const void *x, const void *y) /* router, then its firmware */
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)x;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)y;
	int c = strcmp(a->router, b->router);
	c = c ? c : text_cmp(a->firmware_from, b->firmware_from);
	return c ? c : text_cmp(a->firmware_to, b->firmware_to);
}

static int evidence_fw_pair_cmp(const void *x, const void *y) /* firmware only */
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)x;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)y;
	int c = text_cmp(a->firmware_from, b->firmware_from);
	return c ? c : text_cmp(a->firmware_to, b->firmware_to);
}

/* The cohort's routers by RouterBOOT firmware before and after: [{before, after, routers}],
 * each router once (its interfaces and directions share one version change). */
static json_t *evidence_firmware(const struct detector_verdict *const *v, size_t n)
{
	const struct detector_verdict **r = xcalloc(n + 1, sizeof(*r));
	size_t k = 0;
	memcpy(r, v, n * sizeof(*r));
	qsort(r, n, sizeof(*r), evidence_fw_cmp);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || strcmp(r[k - 1]->router, r[i]->router) != 0)
			r[k++] = r[i];
	qsort(r, k, sizeof(*r), evidence_fw_pair_cmp);
	json_t *a = json_array();
	for (size_t i = 0, j; i < k; i = j) {
		for (j = i + 1; j < k && evidence_fw_pair_cmp(&r[j], &r[i]) == 0; j++)
			;
		json_array_append_new(a,
			json_pack("{s:o, s:o, s:I}", "before", evidence_str(r[i]->firmware_from), "after",
				evidence_str(r[i]->firmware_to), "routers", (json_int_t)(j - i)));
	}
	free(r);
	return a;
}

/* The cohort of v[0..n) (sorted: direction, router), as a JSON object. */
static json_t *evidence_cohort(const struct detector_verdict *const *v, size_t n)
{
	json_t *o = json_object();
	int64_t first = INT64_MAX, last = 0;
	struct evidence_tally t[2] = { { .ratio = xcalloc(n + 1, sizeof(double)) },
		{ .ratio = xcalloc(n + 1, sizeof(double)) } };
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(v[j]->direction, v[i]->direction) == 0 &&
			strcmp(v[j]->router, v[i]->router) == 0;
			j++)
			;
		evidence_router(v + i, j - i, &t[strcmp(v[i]->direction, "rx") == 0]);
	}
	for (size_t i = 0; i < n; i++) {
		first = v[i]->upgraded_ms < first ? v[i]->upgraded_ms : first;
		last = v[i]->upgraded_ms > last ? v[i]->upgraded_ms : last;
	}
	json_object_set_new(o, "from_version", json_string(v[0]->from_version));
	json_object_set_new(o, "to_version", json_string(v[0]->to_version));
	json_object_set_new(o, "architecture", evidence_str(v[0]->architecture));
	json_object_set_new(o, "board", evidence_str(v[0]->board));
	json_object_set_new(o, "first_day", evidence_day(first));
	json_object_set_new(o, "last_day", evidence_day(last));
	json_object_set_new(o, "firmware", evidence_firmware(v, n));
	json_object_set_new(o, "tx", evidence_tally_json(&t[0]));
	json_object_set_new(o, "rx", evidence_tally_json(&t[1]));
	free(t[0].ratio);
	free(t[1].ratio);
	return o;
}

/* The final verdicts of vs[n] upgraded at or after since_ms, sorted; *k of them. */
static const struct detector_verdict **evidence_pick(
	const struct detector_verdict *vs, size_t n, int64_t since_ms, size_t *k)
{
	const struct detector_verdict **p = xcalloc(n + 1, sizeof(*p));
	*k = 0;
	for (size_t i = 0; i < n; i++)
		if (vs[i].final && vs[i].upgraded_ms >= since_ms && vs[i].from_version && vs[i].to_version)
			p[(*k)++] = &vs[i];
	qsort(p, *k, sizeof(*p), evidence_cmp);
	return p;
}

/* The guard's counts per rollout cohort: counts only, no router. */
static json_t *evidence_rollout(const struct evidread_rollout *ro, size_t nro)
{
	json_t *a = json_array();
	for (size_t i = 0; i < nro; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "to_version", json_string(ro[i].to_version));
		json_object_set_new(o, "architecture", evidence_str(ro[i].architecture));
		json_object_set_new(o, "board", evidence_str(ro[i].board));
		json_object_set_new(o, "routers", json_integer((json_int_t)ro[i].routers));
		json_object_set_new(o, "canaries", json_integer((json_int_t)ro[i].canaries));
		json_object_set_new(o, "judged", json_integer((json_int_t)ro[i].judged));
		json_object_set_new(o, "regressed", json_integer((json_int_t)ro[i].regressed));
		json_object_set_new(o, "pending", json_integer((json_int_t)ro[i].pending));
		json_array_append_new(a, o);
	}
	return a;
}

char *evidence_export(const struct detector_verdict *vs, size_t n, const char *fleet, int64_t since_ms,
	int64_t now_ms, const struct evidread_rollout *ro, size_t nro)
{
	size_t k;
	const struct detector_verdict **p = evidence_pick(vs, n, since_ms, &k);
	json_t *cohorts = json_array(), *f = json_object(), *doc = json_object();
	for (size_t i = 0, j; i < k; i = j) {
		for (j = i + 1; j < k && evidence_cohort_cmp(p[j], p[i]) == 0; j++)
			;
		json_array_append_new(cohorts, evidence_cohort(p + i, j - i));
	}
	free(p);
	json_object_set_new(f, "fleet", json_string(fleet));
	json_object_set_new(f, "generated", evidence_day(now_ms));
	json_object_set_new(f, "since", since_ms > 0 ? evidence_day(since_ms) : json_null());
	json_object_set_new(f, "cohorts", cohorts);
	if (ro != NULL)
		json_object_set_new(f, "rollout", evidence_rollout(ro, nro));
	json_object_set_new(doc, "schema", json_string(EVIDENCE_SCHEMA));
	json_object_set_new(doc, "fleets", json_pack("[o]", f));
	char *s = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return s;
}
