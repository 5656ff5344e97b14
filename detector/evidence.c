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
#include "lib/buf.h"
#include "lib/jsonw.h"
#include "lib/text.h"
#include "lib/xmem.h"

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

/* The day of ms (UTC), or null when unknown. */
static void evidence_day(buf_t *b, const char *key, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char d[16];
	if (ms <= 0 || gmtime_r(&t, &tm) == NULL || strftime(d, sizeof(d), "%Y-%m-%d", &tm) == 0)
		jsonw_null(b, key);
	else
		jsonw_add(b, key, d);
}

/* s, or null for NULL; a string that is not UTF-8 leaves the member out (as jansson did). */
static void evidence_str(buf_t *b, const char *key, const char *s)
{
	if (s != NULL)
		jsonw_add(b, key, s);
	else
		jsonw_null(b, key);
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

static void evidence_tally_json(buf_t *b, const char *key, struct evidence_tally *t)
{
	size_t judged = t->n[DETECTOR_REGRESSION] + t->n[DETECTOR_IMPROVEMENT] + t->n[DETECTOR_UNCHANGED];
	jsonw_object(b, key);
	jsonw_int(b, "routers", (int64_t)t->routers);
	jsonw_int(b, "judged", (int64_t)judged);
	jsonw_int(b, "regressed", (int64_t)t->n[DETECTOR_REGRESSION]);
	jsonw_int(b, "improved", (int64_t)t->n[DETECTOR_IMPROVEMENT]);
	jsonw_int(b, "unchanged", (int64_t)t->n[DETECTOR_UNCHANGED]);
	jsonw_int(b, "insufficient", (int64_t)t->n[DETECTOR_INSUFFICIENT]);
	if (t->nratio > 0) {
		jsonw_object(b, "ratio");
		jsonw_real(b, "q1", stats_quantile(t->ratio, t->nratio, 0.25), 6);
		jsonw_real(b, "median", stats_quantile(t->ratio, t->nratio, 0.5), 6);
		jsonw_real(b, "q3", stats_quantile(t->ratio, t->nratio, 0.75), 6);
		jsonw_end_object(b);
	} else
		jsonw_null(b, "ratio");
	jsonw_object(b, "methods");
	for (int k = 1; k < EVIDENCE_NMETHODS; k++)
		if (t->method[k] > 0)
			jsonw_int(b, outcome_method_name((enum detector_method)k), (int64_t)t->method[k]);
	jsonw_end_object(b);
	jsonw_end_object(b);
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
static void evidence_firmware(buf_t *b, const struct detector_verdict *const *v, size_t n)
{
	const struct detector_verdict **r = xcalloc(n + 1, sizeof(*r));
	size_t k = 0;
	memcpy(r, v, n * sizeof(*r));
	qsort(r, n, sizeof(*r), evidence_fw_cmp);
	for (size_t i = 0; i < n; i++)
		if (k == 0 || strcmp(r[k - 1]->router, r[i]->router) != 0)
			r[k++] = r[i];
	qsort(r, k, sizeof(*r), evidence_fw_pair_cmp);
	jsonw_array(b, "firmware");
	for (size_t i = 0, j; i < k; i = j) {
		for (j = i + 1; j < k && evidence_fw_pair_cmp(&r[j], &r[i]) == 0; j++)
			;
		if (!text_is_utf8(r[i]->firmware_from) || !text_is_utf8(r[i]->firmware_to))
			continue; /* the pair left out, as jansson's json_pack refused it */
		jsonw_object(b, NULL);
		evidence_str(b, "before", r[i]->firmware_from);
		evidence_str(b, "after", r[i]->firmware_to);
		jsonw_int(b, "routers", (int64_t)(j - i));
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
	free(r);
}

/* The cohort of v[0..n) (sorted: direction, router), as a JSON object. */
static void evidence_cohort(buf_t *b, const struct detector_verdict *const *v, size_t n)
{
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
	jsonw_object(b, NULL);
	jsonw_add(b, "from_version", v[0]->from_version);
	jsonw_add(b, "to_version", v[0]->to_version);
	evidence_str(b, "architecture", v[0]->architecture);
	evidence_str(b, "board", v[0]->board);
	evidence_day(b, "first_day", first);
	evidence_day(b, "last_day", last);
	evidence_firmware(b, v, n);
	evidence_tally_json(b, "tx", &t[0]);
	evidence_tally_json(b, "rx", &t[1]);
	jsonw_end_object(b);
	free(t[0].ratio);
	free(t[1].ratio);
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
static void evidence_rollout(buf_t *b, const struct evidread_rollout *ro, size_t nro)
{
	jsonw_array(b, "rollout");
	for (size_t i = 0; i < nro; i++) {
		jsonw_object(b, NULL);
		jsonw_add(b, "to_version", ro[i].to_version);
		evidence_str(b, "architecture", ro[i].architecture);
		evidence_str(b, "board", ro[i].board);
		jsonw_int(b, "routers", (int64_t)ro[i].routers);
		jsonw_int(b, "canaries", (int64_t)ro[i].canaries);
		jsonw_int(b, "judged", (int64_t)ro[i].judged);
		jsonw_int(b, "regressed", (int64_t)ro[i].regressed);
		jsonw_int(b, "pending", (int64_t)ro[i].pending);
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
}

char *evidence_export(const struct detector_verdict *vs, size_t n, const char *fleet, int64_t since_ms,
	int64_t now_ms, const struct evidread_rollout *ro, size_t nro)
{
	size_t k;
	const struct detector_verdict **p = evidence_pick(vs, n, since_ms, &k);
	buf_t b, out;
	buf_init(&b);
	buf_init(&out);
	jsonw_object(&b, NULL);
	jsonw_add(&b, "schema", EVIDENCE_SCHEMA);
	jsonw_array(&b, "fleets");
	jsonw_object(&b, NULL);
	jsonw_add(&b, "fleet", fleet);
	evidence_day(&b, "generated", now_ms);
	if (since_ms > 0)
		evidence_day(&b, "since", since_ms);
	else
		jsonw_null(&b, "since");
	jsonw_array(&b, "cohorts");
	for (size_t i = 0, j; i < k; i = j) {
		for (j = i + 1; j < k && evidence_cohort_cmp(p[j], p[i]) == 0; j++)
			;
		evidence_cohort(&b, p + i, j - i);
	}
	jsonw_end_array(&b);
	free(p);
	if (ro != NULL)
		evidence_rollout(&b, ro, nro);
	jsonw_end_object(&b);
	jsonw_end_array(&b);
	jsonw_end_object(&b);
	jsonw_indent(&out, b.data, 1); /* one space a level, as jansson's JSON_INDENT(1) */
	buf_free(&b);
	return buf_steal(&out, NULL);
}
