/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_detector: the /metrics families of the upgrade detector (detector/detector.h): the
 * verdicts of each router's newest version change, its cohorts, single-core saturation, the
 * capacity headroom of its streams, and the rollout guard's decision per cohort. Reads only the detector's view: never the database. */
#include "config.h"
#include "web/metrics_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detector/capacity.h"
#include "detector/detector.h"
#include "detector/rollout.h"
#include "lib/clock.h"
#include "lib/text.h"
#include "lib/xmem.h"

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

/* The labels of a wgwatch_upgrade_cohort_ratio series. */
static int metrics_series_cmp(const struct detector_verdict *a, const struct detector_verdict *b)
{
	int c = strcmp(a->interface, b->interface);
	c = c ? c : strcmp(a->direction, b->direction);
	c = c ? c : text_cmp(a->from_version, b->from_version);
	c = c ? c : text_cmp(a->to_version, b->to_version);
	c = c ? c : text_cmp(a->architecture, b->architecture);
	return c ? c : text_cmp(a->board, b->board);
}

/* A series' labels, then the newest version change first. */
static int metrics_ratio_cmp(const void *x, const void *y)
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)x;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)y;
	int c = metrics_series_cmp(a, b);
	return c ? c : (a->upgraded_ms < b->upgraded_ms) - (a->upgraded_ms > b->upgraded_ms);
}

/* The ratio of every high-confidence verdict, the input of the cohort medians. Of two version
 * changes with the same labels (from, to again after a downgrade) the newer: a label of the
 * change's time would make a new series of every upgrade. */
void metrics_detector_cohort_ratio(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	size_t n, k = 0;
	const struct detector_verdict *v = detector_view_router(c->det, r->conf->name, &n);
	const struct detector_verdict **p = xcalloc(n + 1, sizeof(*p));
	for (size_t j = 0; j < n; j++)
		if (outcome_method_high(v[j].method) && isfinite(v[j].ratio))
			p[k++] = &v[j];
	qsort(p, k, sizeof(*p), metrics_ratio_cmp);
	for (size_t j = 0; j < k; j++) {
		if (j > 0 && metrics_series_cmp(p[j - 1], p[j]) == 0)
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "interface", p[j]->interface);
		metrics_label(c->out, "direction", p[j]->direction);
		metrics_cohort_labels(c->out, p[j]);
		metrics_end_double(c, i, p[j]->ratio);
	}
	free(p);
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

/* The capacity headroom of the router's WireGuard streams (docs/detector.md, Capacity headroom):
 * fam->off picks the capacity, the headroom or the date; a series is absent while unknown. */
void metrics_detector_capacity(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	size_t n;
	const struct capacity *k = detector_view_capacity(c->det, &n);
	for (size_t j = 0; j < n; j++) {
		double v = fam->off == METRICS_CAP_BPS        ? k[j].bps / 8 /* bytes: the base unit */
			: fam->off == METRICS_CAP_HEADROOM    ? k[j].headroom
			: k[j].exhausted_ms != CAPACITY_NEVER ? (double)k[j].exhausted_ms / 1000
							      : NAN;
		if (strcmp(k[j].router, r->conf->name) != 0 || !isfinite(v))
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "interface", k[j].interface);
		metrics_label(c->out, "direction", k[j].direction);
		metrics_end_double(c, i, v);
	}
}

/* Whether (to, arch, board) is one of the keys[0..n) seen already (keys by three). */
static bool metrics_rollout_seen(
	const char *const *keys, size_t n, const char *to, const char *arch, const char *board)
{
	for (size_t j = 0; j < n; j++)
		if (strcmp(keys[3 * j], to) == 0 && strcmp(keys[3 * j + 1], arch) == 0 &&
			(keys[3 * j + 2] && board ? strcmp(keys[3 * j + 2], board) == 0
						  : keys[3 * j + 2] == board))
			return true;
	return false;
}

static void metrics_rollout_series(
	struct metrics_ctx *c, const struct metrics_family *fam, const struct rollout_query *q)
{
	struct rollout_result res;
	size_t nv;
	const struct detector_verdict *vs = detector_view_verdicts(c->det, &nv);
	rollout_decide(detector_view_rollout(c->det), vs, nv, q, &res);
	metrics_puts(c->out, fam->name);
	metrics_puts(c->out, "{to_version=\"");
	text_put_label(c->out, q->version);
	metrics_putc(c->out, '"');
	metrics_label(c->out, "architecture", q->architecture);
	metrics_label(c->out, "board", q->board ? q->board : "");
	metrics_label(c->out, "decision", rollout_decision_name(res.decision));
	metrics_puts(c->out, "} 1\n");
	rollout_result_free(&res);
}

/* One series per cohort (to_version, architecture, board) the detector has verdicts on, then
 * per one known only from other fleets' evidence, for the rollout guard's decision on it now
 * (docs/detector.md, Rollout guard); board "" when unknown. */
/* Cohort i of the detector's (i < nc), of the imported evidence's (then ne), or of the other
 * shards' rows, as a query. */
static struct rollout_query metrics_rollout_query(const struct metrics_ctx *c, size_t i, size_t nc,
	const evidimport_set_t *ev, size_t ne, const struct rollfleet_said *f)
{
	struct rollout_query q = { .now_ms = clock_wall_ms() };
	if (i < nc) {
		const struct detector_cohort *k = detector_view_cohort(c->det, i);
		q.version = k->to_version, q.architecture = k->architecture, q.board = k->board;
	} else if (i < nc + ne) {
		const struct evidimport_cohort *e = evidimport_cohort(ev, i - nc);
		q.version = e->to_version, q.architecture = e->architecture, q.board = e->board;
	} else {
		const struct evidread_rollout *w = &f->rows[i - nc - ne];
		q.version = w->to_version, q.architecture = w->architecture, q.board = w->board;
	}
	return q;
}

void metrics_detector_rollout(struct metrics_ctx *c, const struct metrics_family *fam)
{
	evidimport_set_t *ev = rollout_evidence(detector_view_rollout(c->det));
	struct rollfleet_said f;
	rollout_shards_said(detector_view_rollout(c->det), &f);
	size_t nc = detector_view_ncohorts(c->det), ne = evidimport_ncohorts(ev), n = 0;
	const char **keys = xcalloc(3 * (nc + ne + f.nrows) + 1, sizeof(*keys));
	for (size_t i = 0; i < nc + ne + f.nrows; i++) {
		struct rollout_query q = metrics_rollout_query(c, i, nc, ev, ne, &f);
		if (q.version == NULL || q.architecture == NULL ||
			metrics_rollout_seen(keys, n, q.version, q.architecture, q.board))
			continue; /* the same cohort from another version */
		keys[3 * n] = q.version, keys[3 * n + 1] = q.architecture, keys[3 * n + 2] = q.board;
		n++;
		metrics_rollout_series(c, fam, &q);
	}
	free(keys);
	rollfleet_said_clear(&f);
	evidimport_unref(ev);
}

/* One series per other shard of [rollout] shards: 1 when its rollout counts were read at the
 * last ask, else 0. */
void metrics_detector_shard_up(struct metrics_ctx *c, const struct metrics_family *fam)
{
	struct rollfleet_said f;
	rollout_shards_said(detector_view_rollout(c->det), &f);
	for (size_t i = 0; i < f.nshards; i++) {
		char v[16];
		metrics_puts(c->out, fam->name);
		snprintf(v, sizeof(v), "%d", f.shards[i].index);
		metrics_puts(c->out, "{shard=\"");
		metrics_puts(c->out, v);
		metrics_puts(c->out, f.shards[i].up ? "\"} 1\n" : "\"} 0\n");
	}
	rollfleet_said_clear(&f);
}
