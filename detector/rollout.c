/* SPDX-License-Identifier: Apache-2.0 */
/* rollout: the rollout guard's decisions (go, hold, wait) per cohort, from the detector's
 * verdicts and [rollout], and the overrides stored through the API (which it is handed, under
 * a lock: the one part of its settings that changes); docs/detector.md, Rollout guard. Pure
 * logic over what it is handed: it must never read the database, the clock or the config file. */
#include "config.h"
#include "detector/rollout.h"
#include "detector/stats.h"
#include "lib/xmem.h"
#include "store/overrides.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rollout {
	atomic_int refs;
	char *canary;      /* "name=value" */
	char **canaries;   /* names of the routers that carry it, sorted */
	size_t ncanaries;  /* 0: no router is labelled, every router counts as one */
	bool fleet_canary; /* a router of another shard is labelled: only those labelled count */
	size_t hold_regressed, go_min;
	double hold_ratio;
	int64_t hold_ms;        /* [detector] hold */
	struct override *allow; /* [rollout] allow, who "config FILE:LINE" */
	size_t nallow;
	bool evidence_hold; /* [rollout] evidence = hold */
	size_t evidence_fleets, evidence_routers;
	struct rollout_stored *stored; /* those of the API, and the evidence: the parts that change */
	rollfleet_t *shards;           /* the other shards' counts ([rollout] shards) */
};

struct rollout_stored {
	pthread_mutex_t mu;
	struct override *v;
	size_t n;
	evidimport_set_t *evidence; /* other fleets' ([evidence] files); NULL: none */
};

/* ---- settings ---- */

static int rollout_strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool rollout_has_label(const conf_router_t *cr, const char *key, const char *value)
{
	for (size_t k = 0; k < cr->nlabels; k++)
		if (strcmp(cr->labels[k].key, key) == 0 && strcmp(cr->labels[k].value, value) == 0)
			return true;
	return false;
}

/* item "VERSION/COHORT" of [rollout] allow, set at at ("FILE:LINE", or NULL), into *o. */
static void rollout_allow_conf(struct override *o, const char *item, const char *at)
{
	const char *slash = strchr(item, '/');
	size_t vl = slash ? (size_t)(slash - item) : strlen(item);
	*o = (struct override){ .version = xstrndup(item, vl),
		.cohort = xstrdup(slash ? slash + 1 : ""),
		.who = at ? xasprintf("config %s", at) : xstrdup("config") };
}

rollout_t *rollout_create(const conf_t *conf)
{
	rollout_t *r = xcalloc(1, sizeof(*r));
	atomic_init(&r->refs, 1);
	r->canary = xstrdup(conf->rollout_canary ? conf->rollout_canary : "role=canary");
	char *key = xstrdup(r->canary), *eq = strchr(key, '=');
	const char *value = eq ? eq + 1 : "";
	if (eq != NULL)
		*eq = '\0';
	r->canaries = xcalloc(conf->nrouters + 1, sizeof(*r->canaries));
	for (size_t i = 0; i < conf->nrouters; i++)
		if (rollout_has_label(&conf->routers[i], key, value))
			r->canaries[r->ncanaries++] = xstrdup(conf->routers[i].name);
	free(key);
	qsort(r->canaries, r->ncanaries, sizeof(*r->canaries), rollout_strp_cmp);
	r->hold_regressed = conf->rollout_hold_regressed > 0 ? (size_t)conf->rollout_hold_regressed : 1;
	r->go_min = conf->rollout_go_min > 0 ? (size_t)conf->rollout_go_min : 1;
	r->hold_ratio = conf->rollout_hold_ratio;
	r->hold_ms = conf->hold_ms;
	r->evidence_hold = conf->rollout_evidence != NULL && strcmp(conf->rollout_evidence, "hold") == 0;
	r->evidence_fleets = conf->rollout_evidence_fleets > 0 ? (size_t)conf->rollout_evidence_fleets : 2;
	r->evidence_routers = conf->rollout_evidence_routers > 0 ? (size_t)conf->rollout_evidence_routers : 3;
	r->allow = xcalloc(conf->nrollout_allow + 1, sizeof(*r->allow));
	for (size_t i = 0; i < conf->nrollout_allow; i++)
		rollout_allow_conf(&r->allow[r->nallow++], conf->rollout_allow[i],
			conf->rollout_allow_at ? conf->rollout_allow_at[i] : NULL);
	r->fleet_canary = conf->rollout_fleet_canary;
	r->stored = xcalloc(1, sizeof(*r->stored));
	pthread_mutex_init(&r->stored->mu, NULL);
	r->shards = rollfleet_create(conf);
	return r;
}

rollout_t *rollout_ref(rollout_t *r)
{
	if (r != NULL)
		atomic_fetch_add(&r->refs, 1);
	return r;
}

void rollout_unref(rollout_t *r)
{
	if (r == NULL || atomic_fetch_sub(&r->refs, 1) != 1)
		return;
	for (size_t i = 0; i < r->ncanaries; i++)
		free(r->canaries[i]);
	overrides_free(r->allow, r->nallow);
	overrides_free(r->stored->v, r->stored->n);
	evidimport_unref(r->stored->evidence);
	rollfleet_free(r->shards);
	pthread_mutex_destroy(&r->stored->mu);
	free(r->stored);
	free(r->canaries);
	free(r->canary);
	free(r);
}

bool rollout_is_canary(const rollout_t *r, const char *router)
{
	if (r->ncanaries == 0 && !r->fleet_canary)
		return true;
	return bsearch(&router, r->canaries, r->ncanaries, sizeof(*r->canaries), rollout_strp_cmp) != NULL;
}

/* ---- names ---- */

const char *rollout_decision_name(enum rollout_decision d)
{
	return d == ROLLOUT_GO ? "go" : d == ROLLOUT_HOLD ? "hold" : "wait";
}

const char *rollout_kind_name(enum rollout_kind k)
{
	static const char *const names[] = {
		[ROLLOUT_R_REGRESSION] = "regression",
		[ROLLOUT_R_RATIO] = "median-ratio",
		[ROLLOUT_R_JUDGED] = "judged",
		[ROLLOUT_R_PENDING] = "pending",
		[ROLLOUT_R_COUNT] = "count",
		[ROLLOUT_R_COHORT] = "cohort",
		[ROLLOUT_R_OVERRIDE] = "override",
		[ROLLOUT_R_EVIDENCE] = "evidence",
		[ROLLOUT_R_SHARD] = "shard",
	};
	return (unsigned)k <= ROLLOUT_R_SHARD ? names[k] : "?";
}

/* ---- reasons ---- */

static struct rollout_reason *rollout_reason_add(struct rollout_result *res, enum rollout_kind kind,
	const struct detector_verdict *v, bool canary, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static struct rollout_reason *rollout_reason_add(struct rollout_result *res, enum rollout_kind kind,
	const struct detector_verdict *v, bool canary, const char *fmt, ...)
{
	res->reasons = xreallocarray(res->reasons, res->nreasons + 1, sizeof(*res->reasons));
	struct rollout_reason *x = &res->reasons[res->nreasons++];
	*x = (struct rollout_reason){ .kind = kind, .ratio = NAN, .canary = canary };
	if (v != NULL) {
		x->router = v->router;
		x->interface = v->interface;
		x->direction = v->direction;
		x->ratio = v->ratio;
		x->method = v->method;
		x->final = v->final;
	}
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->text, sizeof(x->text), fmt, ap);
	va_end(ap);
	return x;
}

/* The reasons the guard's own decision d shows (an override shows them too, after its own). */
static void rollout_reasons_keep(struct rollout_result *res, enum rollout_decision d)
{
	unsigned keep = d == ROLLOUT_HOLD ? 1u << ROLLOUT_R_REGRESSION | 1u << ROLLOUT_R_RATIO |
			1u << ROLLOUT_R_COHORT | 1u << ROLLOUT_R_EVIDENCE | 1u << ROLLOUT_R_SHARD
		: d == ROLLOUT_GO ? 1u << ROLLOUT_R_JUDGED | 1u << ROLLOUT_R_COUNT | 1u << ROLLOUT_R_COHORT |
			1u << ROLLOUT_R_SHARD
				  : ~(1u << ROLLOUT_R_JUDGED);
	keep |= 1u << ROLLOUT_R_OVERRIDE;
	size_t n = 0;
	for (size_t i = 0; i < res->nreasons; i++)
		if (keep & 1u << res->reasons[i].kind)
			res->reasons[n++] = res->reasons[i];
	res->nreasons = n;
}

/* ---- the cohort's routers ---- */

static bool rollout_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

static bool rollout_match(const struct detector_verdict *v, const struct rollout_query *q, const char *board)
{
	return rollout_eq(v->to_version, q->version) &&
		(q->architecture == NULL || rollout_eq(v->architecture, q->architecture)) &&
		(board == NULL || rollout_eq(v->board, board));
}

/* By router, then newest version change first, so a router's newest event to the version leads. */
static int rollout_verdict_order(const void *pa, const void *pb)
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)pa;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)pb;
	int c = strcmp(a->router, b->router);
	if (c == 0 && a->upgraded_ms != b->upgraded_ms)
		return a->upgraded_ms > b->upgraded_ms ? -1 : 1;
	return c;
}

/* The cohort's verdicts, sorted; *n of them (caller frees). */
static const struct detector_verdict **rollout_gather(const struct detector_verdict *v, size_t n,
	const struct rollout_query *q, const char *board, size_t *ng)
{
	const struct detector_verdict **g = xcalloc(n + 1, sizeof(*g));
	*ng = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].router != NULL && rollout_match(&v[i], q, board))
			g[(*ng)++] = &v[i];
	qsort(g, *ng, sizeof(*g), rollout_verdict_order);
	return g;
}

/* Routers in g[0..n): their count. */
static size_t rollout_count_routers(const struct detector_verdict **g, size_t n)
{
	size_t routers = 0;
	for (size_t i = 0; i < n; i++)
		routers += i == 0 || strcmp(g[i - 1]->router, g[i]->router) != 0;
	return routers;
}

struct rollout_acc { /* what the routers add up to */
	double *tx, *rx;
	size_t ntx, nrx;
};

/* Whether canaries are told apart by their label (some router of the fleet carries it). */
static bool rollout_labelled(const rollout_t *r)
{
	return r->ncanaries > 0 || r->fleet_canary;
}

static bool rollout_settled(const rollout_t *r, const struct detector_verdict *v, int64_t now)
{
	return v->final || now - v->reached_ms >= r->hold_ms;
}

/* One verdict of a router: a regression, a ratio for the medians. Returns whether it is a
 * regression that counts. */
static bool rollout_verdict(const rollout_t *r, const struct detector_verdict *v, bool canary, int64_t now,
	struct rollout_acc *acc, struct rollout_result *res)
{
	bool settled = rollout_settled(r, v, now);
	const char *method = outcome_method_name(v->method);
	if (settled && outcome_method_high(v->method) && isfinite(v->ratio)) {
		if (v->direction[0] == 't')
			acc->tx[acc->ntx++] = v->ratio;
		else
			acc->rx[acc->nrx++] = v->ratio;
	}
	if (v->verdict != DETECTOR_REGRESSION)
		return false;
	if (!settled) {
		rollout_reason_add(res, ROLLOUT_R_PENDING, v, canary,
			"%s %s %s: regression (%s, ratio %.2f) not held for [detector] hold yet", v->router,
			v->interface, v->direction, method, v->ratio);
		return false;
	}
	rollout_reason_add(res, ROLLOUT_R_REGRESSION, v, canary, "%s %s %s: regression (%s, ratio %.2f%s)",
		v->router, v->interface, v->direction, method, v->ratio, v->final ? ", final" : ", held");
	return true;
}

/* The verdicts g[0..n) of one router's newest version change to the version. */
static void rollout_router(const rollout_t *r, const struct detector_verdict **g, size_t n, int64_t now,
	struct rollout_acc *acc, struct rollout_result *res)
{
	bool canary = rollout_is_canary(r, g[0]->router), regressed = false, final = true, judged = false;
	bool any = false; /* a regression verdict, counted or not */
	for (size_t i = 0; i < n; i++) {
		regressed |= rollout_verdict(r, g[i], canary, now, acc, res);
		any |= g[i]->verdict == DETECTOR_REGRESSION;
		final &= g[i]->final;
		judged |= g[i]->verdict != DETECTOR_INSUFFICIENT;
	}
	res->routers++;
	res->canaries += canary;
	res->regressed += regressed;
	res->pending += any && !regressed;
	if (!final || !judged) {
		rollout_reason_add(res, ROLLOUT_R_PENDING, NULL, canary, "%s%s: %s", g[0]->router,
			canary && rollout_labelled(r) ? " (canary)" : "",
			!final ? "after window still filling"
			       : "final, but insufficient-data in every direction");
		res->reasons[res->nreasons - 1].router = g[0]->router;
		return;
	}
	if (!canary)
		return;
	res->judged++;
	for (size_t i = 0; i < n; i++)
		if (g[i]->verdict != DETECTOR_INSUFFICIENT)
			rollout_reason_add(res, ROLLOUT_R_JUDGED, g[i], canary,
				"%s %s %s: %s (%s, ratio %.2f)", g[i]->router, g[i]->interface,
				g[i]->direction, outcome_name(g[i]->verdict),
				outcome_method_name(g[i]->method), g[i]->ratio);
}

/* ---- the decision ---- */

/* The routers of the cohort g[0..n) (sorted) into res; returns whether a median ratio is low. */
static bool rollout_judge(const rollout_t *r, const struct detector_verdict **g, size_t n, int64_t now,
	struct rollout_result *res)
{
	struct rollout_acc acc = { .tx = xcalloc(n + 1, sizeof(double)),
		.rx = xcalloc(n + 1, sizeof(double)) };
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(g[j]->router, g[i]->router) == 0; j++)
			;
		size_t k = i + 1; /* the newest version change of the router only */
		while (k < j && g[k]->upgraded_ms == g[i]->upgraded_ms)
			k++;
		rollout_router(r, g + i, k - i, now, &acc, res);
	}
	res->median_ratio_tx = stats_median_take(acc.tx, acc.ntx);
	res->median_ratio_rx = stats_median_take(acc.rx, acc.nrx);
	const double med[2] = { res->median_ratio_tx, res->median_ratio_rx };
	bool low = false;
	for (int d = 0; d < 2; d++) {
		if (!(med[d] < r->hold_ratio))
			continue;
		low = true;
		rollout_reason_add(res, ROLLOUT_R_RATIO, NULL, false,
			"median %s ratio %.2f is below hold_ratio %.2f", d == 0 ? "tx" : "rx", med[d],
			r->hold_ratio);
		res->reasons[res->nreasons - 1].direction = d == 0 ? "tx" : "rx";
		res->reasons[res->nreasons - 1].ratio = med[d];
	}
	return low;
}

/* The decision before evidence and overrides, over the fleet's routers (every shard's). Go
 * needs every other shard read: never on part of the fleet. */
static void rollout_conclude(const rollout_t *r, bool low, struct rollout_result *res)
{
	rollout_reason_add(res, ROLLOUT_R_COUNT, NULL, false,
		"%zu of %zu %s judged with final verdicts; go needs %zu", res->judged, res->canaries,
		rollout_labelled(r) ? "canaries" : "routers", r->go_min);
	res->decision = res->regressed >= r->hold_regressed || low ? ROLLOUT_HOLD
		: res->judged >= r->go_min && res->regressed + res->pending == 0 && res->shards_down == 0
		? ROLLOUT_GO
		: ROLLOUT_WAIT;
}

/* ---- the other shards of the fleet ---- */

void rollout_set_shards(rollout_t *r, const struct rollfleet_said *s)
{
	rollfleet_set(r->shards, s);
}

void rollout_shards_said(const rollout_t *r, struct rollfleet_said *out)
{
	rollfleet_copy(r ? r->shards : NULL, out);
}

/* The other shards' routers of the cohort (the board's, or the architecture's: board NULL). */
static size_t rollout_shard_routers(const rollout_t *r, const struct rollout_query *q, const char *board)
{
	struct rollfleet_said said;
	struct evidread_rollout sum;
	rollfleet_copy(r->shards, &said);
	rollfleet_sum(&said, q->version, q->architecture, board, &sum);
	rollfleet_said_clear(&said);
	return sum.routers;
}

/* The other shards' counts of the cohort added to res as the fleet's own, with a reason for
 * them and one for each shard not read. */
static void rollout_shards_add(const rollout_t *r, const struct rollout_query *q, struct rollout_result *res)
{
	struct rollfleet_said said;
	struct evidread_rollout sum;
	rollfleet_copy(r->shards, &said);
	rollfleet_sum(&said, q->version, q->architecture, res->board, &sum);
	for (size_t i = 0; i < said.nshards; i++) {
		if (said.shards[i].up)
			continue;
		res->shards_down++;
		rollout_reason_add(res, ROLLOUT_R_SHARD, NULL, false,
			"shard %d of the fleet cannot be read (%s): no go on part of the fleet's canaries",
			said.shards[i].index, said.shards[i].cause);
	}
	res->routers += sum.routers, res->canaries += sum.canaries, res->judged += sum.judged;
	res->regressed += sum.regressed, res->pending += sum.pending;
	if (said.nshards > res->shards_down && sum.routers > 0)
		rollout_reason_add(res, ROLLOUT_R_SHARD, NULL, false,
			"other shards: %zu router(s) took %s, %zu canaries of them, %zu judged, %zu regressed, "
			"%zu regression(s) not held yet",
			sum.routers, q->version, sum.canaries, sum.judged, sum.regressed, sum.pending);
	rollfleet_said_clear(&said);
}

/* ---- other fleets' evidence ---- */

void rollout_set_evidence(rollout_t *r, evidimport_set_t *s)
{
	evidimport_ref(s);
	pthread_mutex_lock(&r->stored->mu);
	evidimport_set_t *old = r->stored->evidence;
	r->stored->evidence = s;
	pthread_mutex_unlock(&r->stored->mu);
	evidimport_unref(old);
}

evidimport_set_t *rollout_evidence(const rollout_t *r)
{
	if (r == NULL)
		return NULL;
	pthread_mutex_lock(&r->stored->mu);
	evidimport_set_t *s = evidimport_ref(r->stored->evidence);
	pthread_mutex_unlock(&r->stored->mu);
	return s;
}

/* Whether imported cohort c is of the cohort decided: the version, the query's architecture
 * (when known) and the deciding board (when the board decides). */
static bool rollout_evidence_match(
	const struct evidimport_cohort *c, const struct rollout_query *q, const char *board)
{
	return rollout_eq(c->to_version, q->version) &&
		(q->architecture == NULL || rollout_eq(c->architecture, q->architecture)) &&
		(board == NULL || rollout_eq(c->board, board));
}

/* A hold reason when other fleets' evidence says the cohort regressed in a direction: at
 * least evidence_fleets fleets of one imported cohort, or evidence_routers routers over all
 * of them. Only while no canary of ours is judged final: our own verdicts outweigh it. */
static bool rollout_evidence_hold(
	const rollout_t *r, const struct rollout_query *q, struct rollout_result *res)
{
	if (!r->evidence_hold || res->judged > 0)
		return false;
	evidimport_set_t *s = rollout_evidence(r);
	bool hold = false;
	for (int d = 0; d < 2 && !hold; d++) {
		size_t fleets = 0, regressed = 0, judged = 0;
		const struct evidimport_cohort *most = NULL;
		for (size_t i = 0; i < evidimport_ncohorts(s); i++) {
			const struct evidimport_cohort *c = evidimport_cohort(s, i);
			const struct evidimport_dir *x = d == 0 ? &c->tx : &c->rx;
			if (!rollout_evidence_match(c, q, res->board) || x->regressed == 0)
				continue;
			regressed += x->regressed;
			judged += x->judged;
			if (most == NULL || x->fleets_regressed > fleets)
				most = c, fleets = x->fleets_regressed;
		}
		if (fleets < r->evidence_fleets && regressed < r->evidence_routers)
			continue;
		hold = true;
		const struct evidimport_dir *x = d == 0 ? &most->tx : &most->rx;
		rollout_reason_add(res, ROLLOUT_R_EVIDENCE, NULL, false,
			"evidence: %zu of %zu routers of other fleets regressed on %s taking %s "
			"(%zu fleet(s) on %s %s from %s, median ratio %.2f), no canary of ours judged yet",
			regressed, judged, d == 0 ? "tx" : "rx", q->version, fleets,
			most->architecture ? most->architecture : "?", most->board ? most->board : "?",
			most->from_version, x->median);
		res->reasons[res->nreasons - 1].direction = d == 0 ? "tx" : "rx";
		res->reasons[res->nreasons - 1].ratio = x->median;
	}
	evidimport_unref(s);
	return hold;
}

static bool rollout_allow_match(const struct override *o, const struct rollout_query *q)
{
	return rollout_eq(o->version, q->version) &&
		(rollout_eq(o->cohort, q->architecture) || rollout_eq(o->cohort, q->board));
}

/* A copy of the override for the query's version and architecture or board: [rollout] allow
 * first, then the stored ones; NULL when none. */
static struct override *rollout_allowed(const rollout_t *r, const struct rollout_query *q)
{
	const struct override *hit = NULL;
	for (size_t i = 0; i < r->nallow && hit == NULL; i++)
		if (rollout_allow_match(&r->allow[i], q))
			hit = &r->allow[i];
	struct override *copy = NULL;
	pthread_mutex_lock(&r->stored->mu);
	for (size_t i = 0; i < r->stored->n && hit == NULL; i++)
		if (rollout_allow_match(&r->stored->v[i], q))
			hit = &r->stored->v[i];
	if (hit != NULL) {
		copy = xmalloc(sizeof(*copy));
		overrides_copy(copy, hit);
	}
	pthread_mutex_unlock(&r->stored->mu);
	return copy;
}

/* "by WHO[ at TIME]" of an override into buf. */
void rollout_override_by(const struct override *o, char *buf, size_t size)
{
	char at[32] = "";
	time_t t = (time_t)(o->at_ms / 1000);
	struct tm tm;
	if (o->at_ms > 0 && gmtime_r(&t, &tm) != NULL)
		strftime(at, sizeof(at), " at %Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, size, "by %s%s", o->who ? o->who : "?", at);
}

void rollout_decide(const rollout_t *r, const struct detector_verdict *v, size_t n,
	const struct rollout_query *q, struct rollout_result *out)
{
	*out = (struct rollout_result){ .decision = ROLLOUT_WAIT, .board = q->board };
	if (r == NULL) {
		out->median_ratio_tx = out->median_ratio_rx = NAN;
		rollout_reason_add(out, ROLLOUT_R_PENDING, NULL, false, "the detector has not evaluated yet");
		return;
	}
	if (q->architecture == NULL && q->board == NULL) { /* no cohort to speak of */
		out->median_ratio_tx = out->median_ratio_rx = NAN;
		rollout_reason_add(out, ROLLOUT_R_COHORT, NULL, false,
			"neither the architecture nor the board is known");
		return;
	}
	size_t ng;
	const struct detector_verdict **g = rollout_gather(v, n, q, q->board, &ng);
	size_t on_board = rollout_count_routers(g, ng) +
		(q->board ? rollout_shard_routers(r, q, q->board) : 0);
	if (q->architecture ==
		NULL) /* SNMP tells no architecture: a board implies one, but a CHR's may be either */
		rollout_reason_add(out, ROLLOUT_R_COHORT, NULL, false,
			"architecture unknown (SNMP tells none): the board %s decides, whatever its routers' architecture",
			q->board);
	else if (q->board != NULL && on_board < r->go_min) {
		free(g);
		g = rollout_gather(v, n, q, NULL, &ng);
		out->board = NULL;
		rollout_reason_add(out, ROLLOUT_R_COHORT, NULL, false,
			"board %s: %zu router(s) took %s, fewer than go_min %zu: the %s cohort decides",
			q->board, on_board, q->version, r->go_min, q->architecture);
	}
	bool low = rollout_judge(r, g, ng, q->now_ms, out);
	free(g);
	rollout_shards_add(r, q, out);
	rollout_conclude(r, low, out);
	if (rollout_evidence_hold(r, q, out))
		out->decision = ROLLOUT_HOLD;
	out->allow = rollout_allowed(r, q);
	enum rollout_decision was = out->decision;
	if (out->allow != NULL) {
		out->decision = ROLLOUT_GO;
		struct rollout_reason x = { .kind = ROLLOUT_R_OVERRIDE, .ratio = NAN };
		char by[160];
		rollout_override_by(out->allow, by, sizeof(by));
		snprintf(x.text, sizeof(x.text), "override: allow %s/%s %s (the guard said %s)",
			out->allow->version, out->allow->cohort, by, rollout_decision_name(was));
		rollout_reason_add(out, ROLLOUT_R_OVERRIDE, NULL, false, "%s", x.text);
		memmove(&out->reasons[1], &out->reasons[0], (out->nreasons - 1) * sizeof(x));
		out->reasons[0] = x;
	}
	rollout_reasons_keep(out, was);
}

static int rollout_i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The cohort's verdicts as rollout_decide picks them (the board's, or the architecture's when
 * the board has too few routers); *ng of them (caller frees). */
static const struct detector_verdict **rollout_cohort(const rollout_t *r, const struct detector_verdict *v,
	size_t n, const struct rollout_query *q, size_t *ng)
{
	const struct detector_verdict **g = rollout_gather(v, n, q, q->board, ng);
	if (q->board != NULL &&
		rollout_count_routers(g, *ng) + rollout_shard_routers(r, q, q->board) < r->go_min) {
		free(g);
		g = rollout_gather(v, n, q, NULL, ng);
	}
	return g;
}

int64_t rollout_hold_since(const rollout_t *r, const struct detector_verdict *v, size_t n,
	const struct rollout_query *q, const char *except)
{
	size_t ng, nt = 0;
	const struct detector_verdict **g = rollout_cohort(r, v, n, q, &ng);
	int64_t *t = xcalloc(ng + 1, sizeof(*t)); /* per router, when its first regression counted */
	const char *last = NULL;                  /* g is sorted by router */
	for (size_t i = 0; i < ng; i++) {
		if (g[i]->verdict != DETECTOR_REGRESSION || rollout_eq(g[i]->router, except))
			continue;
		int64_t at = g[i]->reached_ms + r->hold_ms;
		if (rollout_eq(last, g[i]->router)) {
			t[nt - 1] = at < t[nt - 1] ? at : t[nt - 1];
			continue;
		}
		last = g[i]->router;
		t[nt++] = at;
	}
	qsort(t, nt, sizeof(*t), rollout_i64_cmp);
	int64_t since = nt >= r->hold_regressed ? t[r->hold_regressed - 1] : INT64_MAX;
	free(t);
	free(g);
	return since;
}

/* ---- this shard's counts, for the others ---- */

static int rollout_nullcmp(const char *a, const char *b) /* NULL (unknown) first */
{
	return a == NULL || b == NULL ? (a != NULL) - (b != NULL) : strcmp(a, b);
}

static int rollout_row_cmp(const struct detector_verdict *a, const struct detector_verdict *b)
{
	int c = rollout_nullcmp(a->to_version, b->to_version);
	c = c ? c : rollout_nullcmp(a->architecture, b->architecture);
	return c ? c : rollout_nullcmp(a->board, b->board);
}

/* Rollout cohort, then as rollout_verdict_order. */
static int rollout_tally_order(const void *pa, const void *pb)
{
	int c = rollout_row_cmp(
		*(const struct detector_verdict *const *)pa, *(const struct detector_verdict *const *)pb);
	return c ? c : rollout_verdict_order(pa, pb);
}

size_t rollout_tally(const rollout_t *r, const struct detector_verdict *v, size_t n, int64_t now_ms,
	struct evidread_rollout **out)
{
	const struct detector_verdict **g = xcalloc(n + 1, sizeof(*g));
	size_t ng = 0, nout = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].router != NULL && v[i].to_version != NULL)
			g[ng++] = &v[i];
	qsort(g, ng, sizeof(*g), rollout_tally_order);
	*out = xcalloc(ng + 1, sizeof(**out));
	for (size_t i = 0, j; i < ng; i = j) {
		for (j = i + 1; j < ng && rollout_row_cmp(g[j], g[i]) == 0; j++)
			;
		struct rollout_result res = { 0 };
		rollout_judge(r, g + i, j - i, now_ms, &res);
		(*out)[nout++] = (struct evidread_rollout){ .to_version = g[i]->to_version,
			.architecture = g[i]->architecture,
			.board = g[i]->board,
			.routers = res.routers,
			.canaries = res.canaries,
			.judged = res.judged,
			.regressed = res.regressed,
			.pending = res.pending };
		rollout_result_free(&res);
	}
	free(g);
	return nout;
}

void rollout_result_free(struct rollout_result *res)
{
	if (res->allow != NULL)
		overrides_clear(res->allow);
	free(res->allow);
	res->allow = NULL;
	free(res->reasons);
	res->reasons = NULL;
	res->nreasons = 0;
}

void rollout_set_stored(rollout_t *r, const struct override *v, size_t n)
{
	struct override *copy = xcalloc(n + 1, sizeof(*copy));
	for (size_t i = 0; i < n; i++)
		overrides_copy(&copy[i], &v[i]);
	pthread_mutex_lock(&r->stored->mu);
	struct override *old = r->stored->v;
	size_t nold = r->stored->n;
	r->stored->v = copy;
	r->stored->n = n;
	pthread_mutex_unlock(&r->stored->mu);
	overrides_free(old, nold);
}

size_t rollout_overrides(const rollout_t *r, struct override **out)
{
	*out = NULL;
	if (r == NULL)
		return 0;
	pthread_mutex_lock(&r->stored->mu);
	size_t n = r->nallow + r->stored->n;
	*out = xcalloc(n + 1, sizeof(**out));
	for (size_t i = 0; i < r->nallow; i++)
		overrides_copy(&(*out)[i], &r->allow[i]);
	for (size_t i = 0; i < r->stored->n; i++)
		overrides_copy(&(*out)[r->nallow + i], &r->stored->v[i]);
	pthread_mutex_unlock(&r->stored->mu);
	return n;
}
