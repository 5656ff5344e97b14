/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_detector: the /metrics families of the upgrade detector (detector/detector.h): the
 * verdicts of each router's newest version change, its cohorts, single-core saturation, and the
 * rollout guard's decision per cohort. Reads only the detector's view: never the database. */
#include "config.h"
#include "web/metrics_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "detector/detector.h"
#include "detector/rollout.h"
#include "lib/clock.h"
#include "lib/text.h"

/* Lines of a verdict's confounders list (docs/detector.md): what else moved across the change. */
static uint64_t metrics_count_lines(const char *s)
{
	uint64_t n = s != NULL && s[0] != '\0';
	for (; s != NULL && *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

void metrics_detector_upgrade(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	size_t n;
	const struct detector_verdict *v = detector_view_router(c->det, r->conf->name, &n);
	for (size_t k = 0; k < n; k++) {
		if (!v[k].latest || (fam->off == METRICS_UP_RATIO && !isfinite(v[k].ratio)) ||
			(fam->off == METRICS_UP_REACHED && v[k].reached_ms <= 0))
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "interface", v[k].interface);
		metrics_label(c->out, "direction", v[k].direction);
		metrics_label(c->out, "from_version", v[k].from_version);
		metrics_label(c->out, "to_version", v[k].to_version);
		if (fam->off == METRICS_UP_RATIO)
			metrics_end_double(c, i, v[k].ratio);
		else if (fam->off == METRICS_UP_REACHED)
			metrics_end_double(c, i, (double)v[k].reached_ms / 1000);
		else if (fam->off == METRICS_UP_CONFOUNDERS)
			metrics_end_u64(c, i, metrics_count_lines(v[k].confounders));
		else
			metrics_end_u64(c, i, v[k].verdict == DETECTOR_REGRESSION);
	}
}

/* The cohort of a verdict (docs/detector.md, Cohorts): from, to, architecture, board. */
static bool metrics_same_cohort(const struct detector_verdict *a, const struct detector_verdict *b)
{
	const char *x[] = { a->from_version, a->to_version, a->architecture, a->board };
	const char *y[] = { b->from_version, b->to_version, b->architecture, b->board };
	for (size_t k = 0; k < 4; k++)
		if (x[k] == NULL || y[k] == NULL ? x[k] != y[k] : strcmp(x[k], y[k]) != 0)
			return false;
	return true;
}

static void metrics_cohort_labels(buf_t *out, const struct detector_verdict *v)
{
	metrics_label(out, "from_version", v->from_version);
	metrics_label(out, "to_version", v->to_version);
	metrics_label(out, "architecture", v->architecture);
	metrics_label(out, "board", v->board);
}

/* One series per cohort the router is in (all its version changes the detector knows, not only
 * the newest), as detector.c's cohort table counts it: regressed when any verdict of the router
 * in the cohort is a regression; improved when one is an improvement and none a regression. */
void metrics_detector_cohort(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	size_t n;
	const struct detector_verdict *v = detector_view_router(c->det, r->conf->name, &n);
	for (size_t k = 0; k < n; k++) {
		bool seen = false, reg = false, imp = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = metrics_same_cohort(&v[j], &v[k]);
		if (seen)
			continue;
		for (size_t j = k; j < n; j++) {
			if (!metrics_same_cohort(&v[j], &v[k]))
				continue;
			reg |= v[j].verdict == DETECTOR_REGRESSION;
			imp |= v[j].verdict == DETECTOR_IMPROVEMENT;
		}
		metrics_begin(c, fam, i);
		metrics_cohort_labels(c->out, &v[k]);
		metrics_end_u64(c, i, fam->off == 1 ? imp && !reg : reg);
	}
}

/* The ratio of every high-confidence verdict, the input of the cohort medians: `upgraded`
 * (unix seconds) tells apart two version changes with the same from and to. */
void metrics_detector_cohort_ratio(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	size_t n;
	const struct detector_verdict *v = detector_view_router(c->det, r->conf->name, &n);
	for (size_t k = 0; k < n; k++) {
		if (!outcome_method_high(v[k].method) || !isfinite(v[k].ratio))
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "interface", v[k].interface);
		metrics_label(c->out, "direction", v[k].direction);
		metrics_cohort_labels(c->out, &v[k]);
		metrics_put(c->out, ",upgraded=\"", 11);
		metrics_put_u64(c->out, (uint64_t)(v[k].upgraded_ms > 0 ? v[k].upgraded_ms / 1000 : 0));
		metrics_putc(c->out, '"');
		metrics_end_double(c, i, v[k].ratio);
	}
}

void metrics_detector_core_saturated(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const struct detector_bound *b = detector_view_bound(c->det, r->conf->name);
	if (b == NULL)
		return;
	metrics_begin(c, fam, i);
	metrics_end_u64(c, i, b->bound);
}

/* One series per cohort (to_version, architecture, board) the detector has verdicts on, for the
 * rollout guard's decision on it now (docs/detector.md, Rollout guard); board "" when unknown. */
void metrics_detector_rollout(struct metrics_ctx *c, const struct metrics_family *fam)
{
	int64_t now = clock_wall_ms();
	for (size_t i = 0; i < detector_view_ncohorts(c->det); i++) {
		const struct detector_cohort *k = detector_view_cohort(c->det, i);
		bool seen = k->to_version == NULL || k->architecture == NULL;
		for (size_t j = 0; j < i && !seen; j++) { /* the same cohort from another version */
			const struct detector_cohort *o = detector_view_cohort(c->det, j);
			seen = o->to_version && o->architecture &&
				strcmp(o->to_version, k->to_version) == 0 &&
				strcmp(o->architecture, k->architecture) == 0 &&
				(o->board && k->board ? strcmp(o->board, k->board) == 0
						      : o->board == k->board);
		}
		if (seen)
			continue;
		struct rollout_query q = { .version = k->to_version,
			.architecture = k->architecture,
			.board = k->board,
			.now_ms = now };
		struct rollout_result res;
		size_t nv;
		const struct detector_verdict *vs = detector_view_verdicts(c->det, &nv);
		rollout_decide(detector_view_rollout(c->det), vs, nv, &q, &res);
		metrics_puts(c->out, fam->name);
		metrics_puts(c->out, "{to_version=\"");
		text_put_label(c->out, k->to_version);
		metrics_putc(c->out, '"');
		metrics_label(c->out, "architecture", k->architecture);
		metrics_label(c->out, "board", k->board ? k->board : "");
		metrics_label(c->out, "decision", rollout_decision_name(res.decision));
		metrics_puts(c->out, "} 1\n");
		rollout_result_free(&res);
	}
}
