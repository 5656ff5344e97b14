/* SPDX-License-Identifier: Apache-2.0 */
/* detector: judges each version change per WireGuard interface and direction on CAPACITY, not
 * demand (docs/detector.md), in rounds on its own thread: it keeps the verdicts in memory, has
 * data.c load and store them, judge.c decide them, view.c publish them. It must never run on
 * the event loop, never write a sample, never guess (too little data is insufficient-data). */
#include "config.h"
#include "detector/detector_int.h"
#include "lib/buf.h"
#include "detector/evidence.h"
#include "detector/profdiff.h"
#include "detector/rollout.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "store/history.h"
#include "store/store.h"

#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- verdicts kept in memory ---- */

static int detector_item_cmp(int64_t ev, const char *ifc, const char *dir, const struct detector_item *it)
{
	if (ev != it->event_id)
		return ev < it->event_id ? -1 : 1;
	int c = strcmp(ifc, it->v.interface);
	return c ? c : strcmp(dir, it->v.direction);
}

/* Index of the first item not below (ev, ifc, dir). */
static size_t detector_item_pos(const detector_t *d, int64_t ev, const char *ifc, const char *dir)
{
	size_t lo = 0, hi = d->nitems;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (detector_item_cmp(ev, ifc, dir, &d->items[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct detector_item *detector_item_get(
	detector_t *d, int64_t ev, const char *ifc, const char *dir, bool *created)
{
	size_t lo = detector_item_pos(d, ev, ifc, dir);
	*created = lo == d->nitems || detector_item_cmp(ev, ifc, dir, &d->items[lo]) != 0;
	if (!*created)
		return &d->items[lo];
	if (d->nitems == d->capitems) {
		d->capitems = d->capitems ? 2 * d->capitems : 64;
		d->items = xreallocarray(d->items, d->capitems, sizeof(*d->items));
	}
	memmove(&d->items[lo + 1], &d->items[lo], (d->nitems - lo) * sizeof(*d->items));
	d->nitems++;
	struct detector_item *it = &d->items[lo];
	memset(it, 0, sizeof(*it));
	it->event_id = ev;
	it->v.upgrade_id = ev;
	it->v.interface = xstrdup(ifc);
	it->v.direction = strcmp(dir, "tx") == 0 ? "tx" : "rx";
	return it;
}

static void detector_set(char **dst, const char *src)
{
	if (*dst != NULL && src != NULL && strcmp(*dst, src) == 0)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

/* Names and flags of the event onto every item of it. */
static void detector_items_mark(detector_t *d, const struct data_event *e)
{
	size_t i = detector_item_pos(d, e->id, "", "");
	for (; i < d->nitems && d->items[i].event_id == e->id; i++) {
		struct detector_verdict *v = &d->items[i].v;
		detector_set(&v->router, e->router);
		detector_set(&v->from_version, e->from);
		detector_set(&v->to_version, e->to);
		detector_set(&v->architecture, e->arch);
		detector_set(&v->board, e->board);
		detector_set(&v->firmware_from, e->fw_from);
		detector_set(&v->firmware_to, e->fw_to);
		v->upgraded_ms = e->time_ms;
		v->latest = e->latest;
	}
}

static bool detector_is_done(const detector_t *d, int64_t ev)
{
	size_t lo = 0, hi = d->ndone;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->done[mid] == ev)
			return true;
		if (d->done[mid] < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

void detector_mark_done(detector_t *d, int64_t ev)
{
	if (detector_is_done(d, ev))
		return;
	d->done = xreallocarray(d->done, d->ndone + 1, sizeof(*d->done));
	size_t i = d->ndone;
	while (i > 0 && d->done[i - 1] > ev) {
		d->done[i] = d->done[i - 1];
		i--;
	}
	d->done[i] = ev;
	d->ndone++;
}

/* The names come from the event: a new item's own strings are filled in later. */
static void detector_log_change(const struct data_event *e, const struct detector_item *it)
{
	const struct detector_verdict *v = &it->v;
	buf_t b; /* the confounders on one line: "a; b" */
	buf_init(&b);
	for (const char *p = v->confounders; p != NULL && *p != '\0'; p++)
		if (*p == '\n')
			buf_puts(&b, "; ");
		else
			buf_putc(&b, *p);
	char *also = buf_steal(&b, NULL);
	log_info("detector: router %s %s %s %s -> %s: %s (%s, ratio %.2f, cores %s%s%s%s)%s%s",
		e->router ? e->router : "?", v->interface, v->direction, e->from ? e->from : "?",
		e->to ? e->to : "?", outcome_name(v->verdict), outcome_method_name(v->method), v->ratio,
		v->cores[0] ? v->cores : "unknown", v->hint ? ", hint" : "", v->why[0] ? ": " : "", v->why,
		also[0] ? "; confounders: " : "", also);
	free(also);
}

static void detector_record(detector_t *d, const struct data_event *e, const char *ifc, const char *dir,
	const struct frame_result *r, const char *confounders, bool final, int64_t now)
{
	bool created;
	struct detector_item *it = detector_item_get(d, e->id, ifc, dir, &created);
	struct detector_verdict *v = &it->v;
	bool changed = created || v->verdict != r->verdict || v->method != r->method;
	bool was_final = v->final;
	v->verdict = r->verdict;
	v->method = r->method;
	v->hint = r->hint;
	v->before_bps = r->before_bps;
	v->after_bps = r->after_bps;
	v->ratio = r->ratio;
	v->ratio_rse = isfinite(r->ratio) ? r->rse : NAN;
	v->before_load = r->before_load;
	v->after_load = r->after_load;
	v->before_n = r->before_n;
	v->after_n = r->after_n;
	memcpy(v->cores, r->cores, sizeof(v->cores));
	memcpy(v->why, r->why, sizeof(v->why));
	detector_set(&v->confounders, confounders);
	v->final = final;
	if (changed)
		v->reached_ms = now;
	it->dirty = true;
	it->changed |= changed;
	/* once per verdict reached; insufficient-data only when it is final */
	if ((changed && r->verdict != DETECTOR_INSUFFICIENT) ||
		(final && !was_final && r->verdict == DETECTOR_INSUFFICIENT))
		detector_log_change(e, it);
}

static void detector_bounds_clear(detector_t *d)
{
	for (size_t i = 0; i < d->nbounds; i++)
		free(d->bounds[i].router);
	free(d->bounds);
	d->bounds = NULL;
	d->nbounds = 0;
}

/* ---- one round: every version change not judged final yet ---- */

/* The next moment after now that e's data allows a verdict it has not had: a first judgement
 * once the after window holds min_samples polls, a final one once the window is complete and
 * its last polls are stored. The round that follows comes then, not `every` later. */
static void detector_due(detector_t *d, const struct data_event *e, int64_t now)
{
	int64_t first = e->time_ms + (int64_t)d->params.min_samples * d->interval_ms + d->grace_ms;
	int64_t last = e->to_ms + d->grace_ms;
	int64_t due = first > now && first < last ? first : last;
	if (due > now && due < d->next_due_ms)
		d->next_due_ms = due;
}

/* The verdicts of e's streams recorded, each with its confounders: what the links and the CPU
 * clock show for its interface, and what the profiles show on its own cores. */
static void detector_record_all(detector_t *d, const struct data_event *e, const struct data_set *x,
	const struct frame *f, const struct frame_result *r, const struct confound_set *cs, bool final,
	int64_t now)
{
	static const char *const dirs[2] = { "tx", "rx" };
	for (size_t i = 0; i < x->nifs; i++) {
		char *links = confound_list(cs, e->time_ms, x->ifs[i].name);
		for (size_t k = 0; k < 2; k++) {
			const struct frame_result *rs = &r[2 * i + k];
			char *own = rs->moved[0] == '\0' ? xstrdup(links)
				: links[0] == '\0'       ? xstrdup(rs->moved)
							 : xasprintf("%s\n%s", rs->moved, links);
			char *conf = profcore_confounders(own, f->prof[0], f->prof[1], rs->cores);
			detector_record(d, e, x->ifs[i].name, dirs[k], rs, conf, final, now);
			free(conf);
		}
		free(links);
	}
}

static const char *detector_probe_address(const detector_t *d, const char *router)
{
	for (size_t i = 0; router != NULL && i < d->nprobe_to; i++)
		if (strcmp(d->probe_to[2 * i], router) == 0)
			return d->probe_to[2 * i + 1];
	return NULL;
}

/* Where e's router has a probe address, its probes over e's windows may replace a stream's
 * verdict in r (probe.c). -1 when they cannot be read. */
static int detector_probe(
	detector_t *d, const struct data_event *e, const struct frame *f, struct frame_result *r)
{
	const char *address = detector_probe_address(d, e->router);
	if (address == NULL || f->nifs == 0)
		return 0;
	struct probepair_set p;
	int rc = data_load_probes(d->data, e->router_id, e->from_ms, e->to_ms, &p);
	if (rc == 0)
		probepair_apply(&p, address, e->time_ms, f->names, f->nifs, &d->params, r);
	probepair_set_free(&p);
	return rc;
}

/* Judge e on its samples x, link rows cs and profiles pv[0..np) (newest first) and record the
 * verdicts. -1 with *what on a failed read. */
static int detector_judge(detector_t *d, const struct data_event *e, const struct data_set *x,
	const struct confound_set *cs, profile_t *const *pv, size_t np, bool final, int64_t now,
	const char **what)
{
	struct frame f;
	double *rates;
	float *loads;
	data_frame(x, e->time_ms, &f, &rates, &loads);
	f.prof[0] = profdiff_pick(pv, np, e->time_ms, false); /* inside the windows: loaded so */
	f.prof[1] = profdiff_pick(pv, np, e->time_ms, true);
	struct frame_result *r = xcalloc(2 * x->nifs + 1, sizeof(*r));
	judge_event(&f, &d->params, r);
	int rc = detector_probe(d, e, &f, r); /* a probe pair overrides its stream's verdict */
	*what = "reading probes";
	if (rc == 0)
		detector_record_all(d, e, x, &f, r, cs, final, now);
	free(r);
	free(rates);
	free(loads);
	free(f.names);
	return rc;
}

static int detector_eval(detector_t *d, const struct data_event *e, int64_t now, char **cause)
{
	struct data_set x;
	struct confound_set cs;
	profile_t **pv = NULL;
	size_t np = 0;
	const char *what = "reading samples";
	int rc = data_load(d->data, e->router_id, e->from_ms, e->to_ms, &x, &cs);
	if (rc == 0 && (rc = data_load_profiles(d->data, e->router_id, e->from_ms, e->to_ms, &pv, &np)) < 0)
		what = "reading profiles";
	bool final = now >= e->to_ms + d->grace_ms;
	if (rc == 0 && !final)
		detector_due(d, e, now);
	if (rc == 0)
		rc = detector_judge(d, e, &x, &cs, pv, np, final, now, &what);
	history_profiles_free(pv, np);
	data_set_free(&x);
	confound_set_free(&cs);
	if (rc < 0)
		return data_fail(d->data, cause, what);
	detector_items_mark(d, e);
	if (final)
		detector_mark_done(d, e->id);
	return 0;
}

/* Write the items that changed in one short transaction; kept dirty (retried) on failure. */
static int detector_flush(detector_t *d, int64_t now, char **cause)
{
	if (data_write_begin(d->data, cause) < 0)
		return -1;
	for (size_t i = 0; i < d->nitems; i++) {
		const struct detector_item *it = &d->items[i];
		if (it->dirty && data_write(d->data, it->event_id, &it->v, it->changed, now, cause) < 0)
			return -1;
	}
	if (data_write_commit(d->data, cause) < 0)
		return -1;
	for (size_t i = 0; i < d->nitems; i++)
		d->items[i].dirty = d->items[i].changed = false;
	return 0;
}

/* Every router's recent single-core shape into d->bounds, from its recent polls. */
static int detector_bounds(detector_t *d, char **cause)
{
	const struct data_router *r;
	size_t n;
	detector_bounds_clear(d);
	if (data_recent(d->data, &r, &n, cause) < 0)
		return -1;
	d->bounds = xcalloc(n + 1, sizeof(*d->bounds));
	for (size_t i = 0; i < n; i++) {
		struct detector_bound *b = &d->bounds[d->nbounds++];
		b->router = xstrdup(r[i].name);
		judge_bound(r[i].polls, r[i].n, b);
	}
	return 0;
}

/* ---- capacity headroom (docs/detector.md) ---- */

#define DETECTOR_CAP_EVERY_MS (60 * 60 * 1000LL) /* a capacity pass at most this far apart */

static void detector_caps_clear(detector_t *d)
{
	capread_free(d->caps, d->ncaps);
	d->caps = NULL;
	d->ncaps = 0;
}

/* Every router's capacities afresh, when the last pass is old enough: a tenth of before, at
 * least every, at most an hour; in a read-only run only for --report (d->capacity). */
static int detector_capacity(detector_t *d, int64_t now, char **cause)
{
	if ((d->readonly && !d->capacity) || now < d->caps_next_ms)
		return 0; /* --rollout-check and --export-evidence print no capacity: spare them the reads */
	struct capacity *c;
	size_t n;
	if (capread_all(d->data, &d->params, d->before_ms, d->worker, &c, &n, cause) < 0)
		return -1;
	detector_caps_clear(d);
	d->caps = c;
	d->ncaps = n;
	int64_t every = d->before_ms / 10 < d->every_ms ? d->every_ms : d->before_ms / 10;
	d->caps_next_ms = now + (every < DETECTOR_CAP_EVERY_MS ? every : DETECTOR_CAP_EVERY_MS);
	return 0;
}

int detector_load_stored(detector_t *d, char **cause)
{
	struct detector_verdict *v;
	size_t n;
	if (data_load_stored(d->data, &v, &n, cause) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		bool created;
		struct detector_item *it = detector_item_get(
			d, v[i].upgrade_id, v[i].interface, v[i].direction, &created);
		free(it->v.confounders);
		char *ifc = it->v.interface;
		it->v = v[i];
		it->v.interface = ifc;
		v[i].confounders = NULL; /* moved into the item */
		if (it->v.final)
			detector_mark_done(d, it->event_id);
	}
	data_stored_free(v, n);
	return 0;
}

int detector_round(detector_t *d, int64_t now, char **cause)
{
	struct data_event e;
	int rc;
	d->next_due_ms = INT64_MAX;
	while ((rc = data_event_next(d->data, &e, cause)) > 0 && !worker_stopping(d->worker)) {
		if (detector_is_done(d, e.id)) {
			detector_items_mark(d, &e);
		} else if (detector_eval(d, &e, now, cause) < 0) {
			data_events_end(d->data);
			return -1;
		}
	}
	data_events_end(d->data);
	if (rc < 0)
		return -1;
	if (!d->readonly && detector_flush(d, now, cause) < 0)
		return -1;
	if (detector_bounds(d, cause) < 0)
		return -1;
	return detector_capacity(d, now, cause);
}

/* ---- the view web/ reads ---- */

detector_view_t *detector_view_build(const detector_t *d)
{
	const struct detector_verdict **v = xcalloc(d->nitems + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < d->nitems; i++)
		if (d->items[i].v.router != NULL)
			v[n++] = &d->items[i].v;
	detector_view_t *view = view_build(v, n, d->bounds, d->nbounds, d->rollout);
	view_set_capacity(view, d->caps, d->ncaps);
	free(v);
	return view;
}

void detector_publish(detector_t *d, detector_view_t *v)
{
	detector_view_free(view_swap(&d->view, v));
}

detector_view_t *detector_view(detector_t *d)
{
	return d != NULL ? view_ref(&d->view) : NULL;
}

/* ---- other fleets' evidence ---- */

/* Read [evidence] files (as last set) and hand the set to the rollout guard and the views. */
static void detector_evidence_load(detector_t *d)
{
	pthread_mutex_lock(&d->evidence_mu);
	char *glob = d->evidence_glob ? xstrdup(d->evidence_glob) : NULL;
	d->evidence_again = false;
	pthread_mutex_unlock(&d->evidence_mu);
	evidimport_set_t *s = evidimport_load(d->evidence, glob, d->fleet);
	rollout_set_evidence(d->rollout, s);
	evidimport_unref(s);
	free(glob);
}

/* ---- lifecycle ---- */

int detector_open(detector_t *d, const conf_t *conf, bool readonly, char **cause)
{
	d->readonly = readonly;
	d->params = (struct frame_params){ .min_samples = (size_t)(conf->min_samples > 0 ? conf->min_samples
											 : 1),
		.threshold = conf->threshold,
		.saturated = conf->saturated,
		.min_bps = conf->min_mbps * 1e6 };
	d->before_ms = conf->before_ms;
	d->after_ms = conf->after_ms;
	d->every_ms = conf->every_ms > 0 ? conf->every_ms : 60000;
	d->interval_ms = conf->interval_ms;
	d->grace_ms = 2 * conf->interval_ms + STORE_GATHER_MS; /* the polls made and stored */
	d->rollout = rollout_create(conf);
	d->probe_to = xcalloc(2 * conf->nrouters + 1, sizeof(*d->probe_to));
	for (size_t i = 0; i < conf->nrouters; i++)
		if (conf->routers[i].probe != NULL) {
			d->probe_to[2 * d->nprobe_to] = xstrdup(conf->routers[i].name);
			d->probe_to[2 * d->nprobe_to++ + 1] = xstrdup(conf->routers[i].probe);
		}
	if ((d->data = data_open(conf->database, readonly, d->before_ms, d->after_ms, cause)) == NULL)
		return -1;
	struct override *v;
	size_t n;
	if (data_fleet_id(d->data, d->fleet, cause) < 0 || data_load_overrides(d->data, &v, &n, cause) < 0)
		return -1;
	rollout_set_stored(d->rollout, v, n);
	overrides_free(v, n);
	d->evidence = evidimport_create();
	pthread_mutex_init(&d->evidence_mu, NULL);
	d->evidence_glob = conf->evidence_files ? xstrdup(conf->evidence_files) : NULL;
	detector_evidence_load(d);
	return 0;
}

void detector_reload_evidence(detector_t *d, const conf_t *conf)
{
	if (d == NULL)
		return;
	pthread_mutex_lock(&d->evidence_mu);
	free(d->evidence_glob);
	d->evidence_glob = conf->evidence_files ? xstrdup(conf->evidence_files) : NULL;
	d->evidence_again = true;
	pthread_mutex_unlock(&d->evidence_mu);
	detector_wake(d);
}

struct rollout *detector_rollout(detector_t *d)
{
	return d != NULL ? d->rollout : NULL;
}

void detector_free(detector_t *d)
{
	data_close(d->data);
	for (size_t i = 0; i < d->nitems; i++)
		view_verdict_free(&d->items[i].v);
	free(d->items);
	free(d->done);
	detector_bounds_clear(d);
	detector_caps_clear(d);
	rollout_unref(d->rollout);
	if (d->evidence != NULL) { /* opened that far */
		evidimport_free(d->evidence);
		pthread_mutex_destroy(&d->evidence_mu);
		free(d->evidence_glob);
	}
	for (size_t i = 0; i < 2 * d->nprobe_to; i++)
		free(d->probe_to[i]);
	free(d->probe_to);
	free(d->error);
	free(d);
}

/* One round in the thread; a failure is logged once per distinct cause, the recovery once. */
static void detector_tick(void *arg)
{
	detector_t *d = arg;
	char *cause = NULL;
	pthread_mutex_lock(&d->evidence_mu);
	bool again = d->evidence_again;
	pthread_mutex_unlock(&d->evidence_mu);
	if (again)
		detector_evidence_load(d);
	if (detector_round(d, clock_wall_ms(), &cause) == 0) {
		if (d->error != NULL)
			log_info("detector: evaluating works again");
		free(d->error);
		d->error = NULL;
		detector_publish(d, detector_view_build(d));
		if (d->next_due_ms != INT64_MAX)
			worker_next(d->worker, d->next_due_ms - clock_wall_ms());
		return;
	}
	if (d->error == NULL || strcmp(d->error, cause) != 0)
		log_warn("detector: %s (retrying in %" PRId64 " ms)", cause, d->every_ms);
	free(d->error);
	d->error = cause;
}

int detector_start(const conf_t *conf, detector_t **out, char **cause)
{
	detector_t *d = xcalloc(1, sizeof(*d));
	*cause = NULL;
	if (detector_open(d, conf, false, cause) < 0 || detector_load_stored(d, cause) < 0) {
		detector_free(d);
		return -1;
	}
	int err = worker_start("wg-detector", d->every_ms, detector_tick, d, &d->worker);
	if (err != 0) {
		*cause = xasprintf("cannot start the detector thread: %s", strerror(err));
		detector_free(d);
		return -1;
	}
	*out = d;
	return 0;
}

void detector_stop(detector_t *d)
{
	if (d == NULL)
		return;
	worker_stop(d->worker);
	detector_publish(d, NULL);
	detector_free(d);
}

void detector_wake(detector_t *d)
{
	if (d != NULL)
		worker_wake(d->worker);
}

/* A detector opened read-only on conf's database and evaluated once, with its view (with the
 * capacities when capacity); NULL with *cause. For the one-shot modes (--report,
 * --export-evidence). */
static detector_t *detector_once(const conf_t *conf, bool capacity, detector_view_t **view, char **cause)
{
	detector_t *d = xcalloc(1, sizeof(*d));
	*cause = NULL;
	d->capacity = capacity;
	if (detector_open(d, conf, true, cause) != 0 || detector_round(d, clock_wall_ms(), cause) != 0) {
		detector_free(d);
		return NULL;
	}
	*view = detector_view_build(d);
	return d;
}

int detector_report(const conf_t *conf, FILE *out, char **cause)
{
	detector_view_t *v;
	detector_t *d = detector_once(conf, true, &v, cause);
	if (d == NULL)
		return -1;
	report_print(out, v);
	view_destroy(v);
	detector_free(d);
	return 0;
}

detector_view_t *detector_capacity_once(const conf_t *conf, char **cause)
{
	detector_t *d = xcalloc(1, sizeof(*d));
	detector_view_t *v = NULL;
	*cause = NULL;
	d->capacity = true;
	if (detector_open(d, conf, true, cause) == 0 && detector_capacity(d, clock_wall_ms(), cause) == 0)
		v = detector_view_build(d);
	detector_free(d);
	return v;
}

/* The decision for version on router's cohort, from d's verdicts as of now. */
static void detector_rollout_decide(detector_t *d, const char *router, const char *version, FILE *out,
	const char *arch, const char *board, int *decision)
{
	detector_view_t *v = detector_view_build(d);
	struct rollout_query q = {
		.version = version, .architecture = arch, .board = board, .now_ms = clock_wall_ms()
	};
	struct rollout_result res;
	size_t n;
	const struct detector_verdict *vs = detector_view_verdicts(v, &n);
	rollout_decide(detector_view_rollout(v), vs, n, &q, &res);
	report_rollout(out, router, &q, &res);
	*decision = (int)res.decision;
	rollout_result_free(&res);
	view_destroy(v);
}

int detector_rollout_check(
	const conf_t *conf, const struct detector_check *c, FILE *out, int *decision, char **cause)
{
	detector_t *d = xcalloc(1, sizeof(*d));
	char *arch = NULL, *board = NULL;
	*cause = NULL;
	*decision = ROLLOUT_WAIT;
	int rc = detector_open(d, conf, true, cause);
	if (rc == 0 && c->fleet != NULL)
		rollout_set_shards(d->rollout, c->fleet);
	int known = rc == 0 ? data_router_kind(d->data, c->router, &arch, &board, cause) : -1;
	if (known == 0 && (c->architecture != NULL || c->board != NULL)) { /* another shard's router */
		arch = c->architecture ? xstrdup(c->architecture) : NULL;
		board = c->board ? xstrdup(c->board) : NULL;
		known = 1;
	}
	if (known == 0 || (known == 1 && arch == NULL && board == NULL))
		fprintf(out,
			"rollout %s for %s: wait\n  the database knows neither the router's architecture nor its board yet\n",
			c->version, c->router);
	else if (known == 1 && (rc = detector_round(d, clock_wall_ms(), cause)) == 0)
		detector_rollout_decide(d, c->router, c->version, out, arch, board, decision);
	free(arch);
	free(board);
	detector_free(d);
	return known < 0 ? -1 : rc;
}

char *detector_evidence(detector_t *d, int64_t since_ms, int64_t now_ms, bool rollout)
{
	detector_view_t *v = detector_view(d);
	if (v == NULL)
		return NULL;
	size_t n, nro = 0;
	struct evidread_rollout *ro = NULL;
	const struct detector_verdict *vs = detector_view_verdicts(v, &n);
	if (rollout)
		nro = rollout_tally(detector_view_rollout(v), vs, n, now_ms, &ro);
	char *doc = evidence_export(vs, n, d->fleet, since_ms, now_ms, ro, nro);
	free(ro);
	detector_view_free(v);
	return doc;
}

int detector_export_evidence(const conf_t *conf, int64_t since_ms, FILE *out, char **cause)
{
	detector_view_t *v;
	detector_t *d = detector_once(conf, false, &v, cause);
	if (d == NULL)
		return -1;
	size_t n;
	const struct detector_verdict *vs = detector_view_verdicts(v, &n);
	char *doc = evidence_export(vs, n, d->fleet, since_ms, clock_wall_ms(), NULL, 0);
	fprintf(out, "%s\n", doc);
	free(doc);
	view_destroy(v);
	detector_free(d);
	return 0;
}
