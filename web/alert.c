/* SPDX-License-Identifier: Apache-2.0 */
/* alert: pushes the detector's regressions (once final or held for [detector] hold),
 * single-core-bound routers and streams short of capacity (held for [alert] capacity_for) to
 * Alertmanager (POST URL/api/v2/alerts) from a thread of its own, with libcurl's easy API and a
 * short timeout, labelled as the shipped Prometheus rules label them (the alerts themselves are
 * built by web/alertdoc; this module decides which hold, when, and pushes them). It only reads detector
 * views; it must never touch the event loop, the store or the database, never log the URL (it
 * may hold credentials), and never put a secret in a label. */
#include "config.h"
#include "web/alert.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "detector/capacity.h"
#include "detector/detector.h"
#include "lib/clock.h"
#include "lib/jsonw.h"
#include "lib/log.h"
#include "lib/worker.h"
#include "lib/xmem.h"
#include "web/alertdoc.h"
#include "web/metrics.h"

#define ALERT_TICK_MS         1000           /* how often the thread looks for a new detector view */
#define ALERT_RETRY_MS        1000           /* first retry after a failed push; doubles up to resend */
#define ALERT_ENDS_RESENDS    4              /* a firing alert's endsAt: now + 4 x resend (as Prometheus) */
#define ALERT_ERRBODY         160            /* bytes of an error reply kept for the log */
#define ALERT_BOUND_MIN_POLLS 3              /* the detector's minimum to judge a bound (docs/detector.md) */
#define ALERT_CAP_LOW         0.10           /* WgwatchCapacityLow: headroom below this (the rule's) */
#define ALERT_CAP_SOON_S      (30 * 86400.0) /* WgwatchCapacityExhaustedSoon: within this */

struct alert_item {
	char *key;         /* alertname and identifying labels: the alert's identity */
	char *json;        /* labels, annotations, generatorURL (no times): alertdoc's json */
	int64_t starts_ms; /* wall clock */
	int64_t ends_ms;   /* wall clock when resolved; 0 while firing */
	bool mark;         /* wanted by the current view */
};

/* An alert whose condition holds but not yet for its `for` (the rules' pending state). */
struct alert_pending {
	char *key;        /* the alert's identity, as alert_item's */
	int64_t since_ms; /* wall clock: the condition has held in every view since */
	bool mark;        /* holds in the current view */
};

struct alert {
	const conf_t *conf;
	/* whose views it pushes; may be NULL */
	detector_t *detector;
	char *endpoint; /* URL/api/v2/alerts; never logged */
	worker_t *worker;
	detector_view_t *seen; /* the view last turned into items, held so it is not reused */
	struct alert_item *items;
	size_t n, cap;
	int64_t next_ms;            /* monotonic: next push; 0 = at once */
	int64_t recheck_ms;         /* wall clock: a held alert becomes due then; 0 = none held */
	struct alert_pending *pend; /* capacity alerts whose condition holds, firing or not */
	size_t npend, cappend;
	unsigned fails; /* pushes failed in a row */
	char *error;    /* the failure last logged; NULL while pushes work */
	CURL *curl;
};

/* RFC 3339 in UTC with milliseconds, as Alertmanager wants. */
static void alert_time(char *out, size_t size, int64_t ms)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;
	char date[32];
	gmtime_r(&s, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, size, "%s.%03dZ", date, (int)(ms % 1000));
}

bool alert_due(const struct detector_verdict *v, int64_t now_ms, int64_t hold_ms)
{
	return v->final || hold_ms <= 0 || now_ms - v->reached_ms >= hold_ms;
}

static struct alert_item *alert_find(alert_t *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].key, key) == 0)
			return &a->items[i];
	return NULL;
}

static void alert_log_change(const char *what, const struct alert_item *it)
{
	log_info("alert: %s %s", what, it->key);
}

/* The current view wants the alert d (its strings ours now), firing since starts_ms. */
static void alert_want(alert_t *a, struct alertdoc *d, int64_t starts_ms)
{
	struct alert_item *it = alert_find(a, d->key);
	if (it != NULL) {
		free(d->key);
		free(it->json);
		it->json = d->json; /* the figures may have moved */
		it->mark = true;
		if (it->ends_ms != 0) { /* back before its end was sent */
			it->ends_ms = 0;
			a->next_ms = a->fails ? a->next_ms : 0;
		}
		return;
	}
	if (a->n == a->cap) {
		a->cap = a->cap ? 2 * a->cap : 16;
		a->items = xreallocarray(a->items, a->cap, sizeof(*a->items));
	}
	it = &a->items[a->n++];
	*it = (struct alert_item){ .key = d->key, .json = d->json, .starts_ms = starts_ms, .mark = true };
	alert_log_change("firing", it);
	a->next_ms = a->fails ? a->next_ms : 0;
}

/* Too few polls since a version change to tell (the detector looks at the polls since then,
 * by the router's own last poll, so a router gone quiet keeps its figures): a bound alert stays
 * as it is, rather than resolve and fire again around every upgrade. */
static void alert_keep(alert_t *a, const char *router)
{
	char *key = alertdoc_bound_key(a->conf, router);
	struct alert_item *it = alert_find(a, key);
	if (it != NULL)
		it->mark = true;
	free(key);
}

/* Whether the alert of key was firing before this update (and not resolved since). */
static bool alert_firing(alert_t *a, const char *key)
{
	const struct alert_item *it = alert_find(a, key);
	return it != NULL && it->ends_ms == 0;
}

/* A regression of a newest version change is wanted when due, or when already firing (a change
 * of method restarts reached_ms: the alert must not resolve and fire again for that). Else it
 * is held, and recheck_ms brought forward to when it becomes due. */
static void alert_regression_want(alert_t *a, const struct detector_verdict *x, int64_t now)
{
	int64_t hold = a->conf->hold_ms;
	struct alertdoc d;
	if (alertdoc_regression(a->conf, a->curl, x, &d) < 0)
		return;
	if (!alert_due(x, now, hold) && !alert_firing(a, d.key)) {
		int64_t due = x->reached_ms + hold;
		a->recheck_ms = a->recheck_ms == 0 || due < a->recheck_ms ? due : a->recheck_ms;
		alertdoc_free(&d);
		return;
	}
	alert_want(a, &d, x->reached_ms ? x->reached_ms : now);
}

static void alert_regressions(alert_t *a, const detector_view_t *v, int64_t now)
{
	for (size_t i = 0; i < detector_view_nverdicts(v); i++) {
		const struct detector_verdict *x = detector_view_verdict(v, i);
		if (x->latest && x->verdict == DETECTOR_REGRESSION)
			alert_regression_want(a, x, now);
	}
}

/* ---- capacity headroom: WgwatchCapacityLow, WgwatchCapacityExhaustedSoon ---- */

/* The pending entry of key, begun at now when there was none. */
static struct alert_pending *alert_pending_get(alert_t *a, const char *key, int64_t now)
{
	for (size_t i = 0; i < a->npend; i++)
		if (strcmp(a->pend[i].key, key) == 0)
			return &a->pend[i];
	if (a->npend == a->cappend) {
		a->cappend = a->cappend ? 2 * a->cappend : 16;
		a->pend = xreallocarray(a->pend, a->cappend, sizeof(*a->pend));
	}
	struct alert_pending *p = &a->pend[a->npend++];
	*p = (struct alert_pending){ .key = xstrdup(key), .since_ms = now };
	return p;
}

/* A capacity alert whose condition holds in the current view: wanted once it has held in every
 * view for [alert] capacity_for (the rule's `for`) by this thread's clock, with startsAt when it
 * began to (Prometheus's activeAt); until then held, and recheck_ms brought forward to when it
 * becomes due. */
static void alert_held_want(alert_t *a, struct alertdoc *d, int64_t now)
{
	struct alert_pending *p = alert_pending_get(a, d->key, now);
	p->mark = true;
	int64_t due = p->since_ms + a->conf->alert_capacity_for_ms;
	if (now < due) {
		a->recheck_ms = a->recheck_ms == 0 || due < a->recheck_ms ? due : a->recheck_ms;
		alertdoc_free(d);
		return;
	}
	alert_want(a, d, p->since_ms);
}

/* The conditions of the two rules, on the streams of the configured routers (those /metrics
 * shows): a headroom below 0.10 (absent while unknown), a date within 30 days of now. */
static void alert_capacities(alert_t *a, const struct capacity *c, size_t n, int64_t now)
{
	for (size_t i = 0; i < n; i++) {
		if (conf_router_find(a->conf, c[i].router) == NULL)
			continue;
		struct alertdoc d;
		if (isfinite(c[i].headroom) && c[i].headroom < ALERT_CAP_LOW &&
			alertdoc_capacity_low(a->conf, a->curl, &c[i], &d) == 0)
			alert_held_want(a, &d, now);
		if (c[i].exhausted_ms == CAPACITY_NEVER)
			continue;
		double left_s = (double)(c[i].exhausted_ms - now) / 1000;
		if (left_s < ALERT_CAP_SOON_S &&
			alertdoc_capacity_soon(a->conf, a->curl, &c[i], left_s, &d) == 0)
			alert_held_want(a, &d, now);
	}
}

/* A pending alert whose condition no longer holds starts afresh when it holds again. */
static void alert_pending_sweep(alert_t *a)
{
	size_t k = 0;
	for (size_t i = 0; i < a->npend; i++) {
		if (a->pend[i].mark) {
			a->pend[i].mark = false;
			a->pend[k++] = a->pend[i];
		} else {
			free(a->pend[i].key);
		}
	}
	a->npend = k;
}

/* Turn a detector view into the set of alerts that hold; those gone are resolved now. */
static void alert_update(alert_t *a, const detector_view_t *v, int64_t now)
{
	for (size_t i = 0; i < a->n; i++)
		a->items[i].mark = false;
	a->recheck_ms = 0;
	alert_regressions(a, v, now);
	size_t nc;
	const struct capacity *c = detector_view_capacity(v, &nc);
	alert_capacities(a, c, nc, now);
	alert_pending_sweep(a);
	for (size_t i = 0; i < a->conf->nrouters; i++) {
		const struct detector_bound *bd = detector_view_bound(v, a->conf->routers[i].name);
		struct alertdoc d;
		if (bd != NULL && bd->bound) {
			if (alertdoc_bound(a->conf, a->curl, bd, &d) == 0)
				alert_want(a, &d, now);
		} else if (bd == NULL || bd->n < ALERT_BOUND_MIN_POLLS) /* just after an upgrade */
			alert_keep(a, a->conf->routers[i].name);
	}
	for (size_t i = 0; i < a->n; i++) {
		struct alert_item *it = &a->items[i];
		if (!it->mark && it->ends_ms == 0) {
			it->ends_ms = now;
			alert_log_change("resolved", it);
			a->next_ms = a->fails ? a->next_ms : 0;
		}
	}
}

/* The body: every alert, firing ones ending a few resends from now unless sent again. */
static char *alert_body(const alert_t *a, int64_t now)
{
	buf_t b;
	buf_init(&b);
	jsonw_array(&b, NULL);
	int64_t ends = now + ALERT_ENDS_RESENDS * a->conf->alert_resend_ms;
	for (size_t i = 0; i < a->n; i++) {
		const struct alert_item *it = &a->items[i];
		char s[40], e[40];
		alert_time(s, sizeof(s), it->starts_ms);
		alert_time(e, sizeof(e), it->ends_ms ? it->ends_ms : ends);
		jsonw_key(&b, NULL);
		buf_puts(&b, it->json);
		jsonw_add(&b, "startsAt", s);
		jsonw_add(&b, "endsAt", e);
		jsonw_end_object(&b);
	}
	jsonw_end_array(&b);
	return buf_steal(&b, NULL);
}

static size_t alert_on_data(char *p, size_t size, size_t n, void *arg)
{
	buf_t *b = arg;
	if (b->len < ALERT_ERRBODY)
		buf_append(b, p, size * n < ALERT_ERRBODY - b->len ? size * n : ALERT_ERRBODY - b->len);
	return size * n;
}

static int alert_on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const alert_t *a = arg;
	return worker_stopping(a->worker) ? 1 : 0; /* non-zero aborts the transfer */
}

/* One POST; 0, or -1 with *cause. */
static int alert_post(alert_t *a, const char *body, char **cause)
{
	buf_t reply;
	buf_init(&reply);
	struct curl_slist *hdr = curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = a->curl;
	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, a->endpoint);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)a->conf->alert_timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)a->conf->alert_timeout_ms);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, alert_on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, alert_on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, a);
	CURLcode rc = curl_easy_perform(c);
	long status = 0;
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(hdr);
	if (rc != CURLE_OK)
		*cause = xasprintf("%s", curl_easy_strerror(rc));
	else if (status / 100 != 2)
		*cause = xasprintf("HTTP %ld: %.*s", status,
			(int)strcspn(reply.data ? reply.data : "", "\r\n"), reply.data ? reply.data : "");
	buf_free(&reply);
	return rc == CURLE_OK && status / 100 == 2 ? 0 : -1;
}

/* After a push that worked, resolved alerts are done with. */
static void alert_drop_resolved(alert_t *a)
{
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->items[i].ends_ms != 0) {
			free(a->items[i].key);
			free(a->items[i].json);
		} else {
			a->items[k++] = a->items[i];
		}
	}
	a->n = k;
}

/* Push the whole set; a failure is logged once per distinct cause and retried with back-off. */
static void alert_push(alert_t *a, int64_t now, int64_t mono)
{
	char *body = alert_body(a, now), *cause = NULL;
	int rc = alert_post(a, body, &cause);
	free(body);
	if (rc == 0) {
		if (a->error != NULL)
			log_info("alert: pushing to Alertmanager works again");
		free(a->error);
		a->error = NULL;
		a->fails = 0;
		alert_drop_resolved(a);
		a->next_ms = mono + a->conf->alert_resend_ms;
		return;
	}
	int64_t delay = a->conf->alert_resend_ms;
	if (a->fails < 20 && ((int64_t)ALERT_RETRY_MS << a->fails) < delay)
		delay = (int64_t)ALERT_RETRY_MS << a->fails;
	a->fails++;
	a->next_ms = mono + delay;
	if (worker_stopping(a->worker)) {
		free(cause);
		return;
	}
	if (a->error == NULL || strcmp(a->error, cause) != 0)
		log_warn("alert: cannot push %zu alerts to Alertmanager: %s (retrying with back-off up"
			 " to [alert] resend)",
			a->n, cause);
	free(a->error);
	a->error = cause;
}

static void alert_cycle(void *arg)
{
	alert_t *a = arg;
	detector_view_t *v = detector_view(a->detector);
	int64_t wall = clock_wall_ms();
	if (v != NULL && v != a->seen) {
		alert_update(a, v, wall);
		detector_view_free(a->seen);
		a->seen = v;
	} else {
		detector_view_free(v);
		if (a->seen != NULL && a->recheck_ms != 0 && wall >= a->recheck_ms)
			alert_update(a, a->seen, wall); /* a held alert is due now */
	}
	int64_t mono = clock_mono_ms();
	if (a->n > 0 && mono >= a->next_ms)
		alert_push(a, clock_wall_ms(), mono);
}

static void alert_free(alert_t *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->items[i].key);
		free(a->items[i].json);
	}
	free(a->items);
	for (size_t i = 0; i < a->npend; i++)
		free(a->pend[i].key);
	free(a->pend);
	detector_view_free(a->seen);
	if (a->curl != NULL)
		curl_easy_cleanup(a->curl);
	free(a->endpoint);
	free(a->error);
	free(a);
}

int alert_start(const conf_t *conf, detector_t *detector, alert_t **out, char **cause)
{
	*out = NULL;
	*cause = NULL;
	if (conf->alert_url == NULL)
		return 0;
	alert_t *a = xcalloc(1, sizeof(*a));
	a->conf = conf;
	a->detector = detector;
	a->endpoint = xasprintf("%s/api/v2/alerts", conf->alert_url);
	a->curl = curl_easy_init();
	int err = a->curl ? worker_start("wg-alert", ALERT_TICK_MS, alert_cycle, a, &a->worker) : ENOMEM;
	if (err != 0) {
		*cause = xasprintf("cannot start the Alertmanager push: %s", strerror(err));
		alert_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

void alert_stop(alert_t *a)
{
	if (a == NULL)
		return;
	worker_stop(a->worker);
	alert_free(a);
}
