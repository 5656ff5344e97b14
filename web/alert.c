/* alert: pushes the detector's regressions and single-core-bound routers to Alertmanager
 * (POST URL/api/v2/alerts) from a thread of its own, with libcurl's easy API and a short
 * timeout. It only reads detector views; it must never touch the event loop, the store or the
 * database, and never log the URL (it may hold credentials). */
#include "config.h"
#include "web/alert.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/buf.h"
#include "detector/detector.h"
#include "lib/log.h"
#include "lib/xmem.h"

#define AL_TICK_MS         1000 /* how often the thread looks for a new detector view */
#define AL_RETRY_MS        1000 /* first retry after a failed push; doubles up to resend */
#define AL_ENDS_RESENDS    4    /* a firing alert's endsAt: now + 4 x resend (as Prometheus) */
#define AL_ERRBODY         160  /* bytes of an error reply kept for the log */
#define AL_BOUND_MIN_POLLS 3    /* the detector's minimum to judge a bound (docs/detector.md) */

struct al_item {
	char *key;         /* alertname and identifying labels: the alert's identity */
	json_t *alert;     /* labels, annotations, generatorURL (no times) */
	int64_t starts_ms; /* wall clock */
	int64_t ends_ms;   /* wall clock when resolved; 0 while firing */
	bool mark;         /* wanted by the current view */
};

struct alert {
	const conf_t *conf;
	/* whose views it pushes; may be NULL */
	detector_t *detector;
	char *endpoint; /* URL/api/v2/alerts; never logged */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	atomic_bool stopping;
	detector_view_t *seen; /* the view last turned into items, held so it is not reused */
	struct al_item *items;
	size_t n, cap;
	int64_t next_ms; /* monotonic: next push; 0 = at once */
	unsigned fails;  /* pushes failed in a row */
	char *error;     /* the failure last logged; NULL while pushes work */
	CURL *curl;
};

static int64_t al_clock_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* RFC 3339 in UTC with milliseconds, as Alertmanager wants. */
static void al_time(char *out, size_t size, int64_t ms)
{
	time_t s = (time_t)(ms / 1000);
	struct tm tm;
	char date[32];
	gmtime_r(&s, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, size, "%s.%03dZ", date, (int)(ms % 1000));
}

static char *al_generator(const alert_t *a, const char *router)
{
	char *esc = curl_easy_escape(a->curl, router, 0);
	char *url = xasprintf(
		"%s://%s/router/%s", a->conf->web_cert ? "https" : "http", a->conf->listen, esc ? esc : "");
	curl_free(esc);
	return url;
}

static json_t *al_alert(
	const alert_t *a, json_t *labels, const char *router, char *summary, char *description)
{
	char *gen = al_generator(a, router);
	json_t *j = json_pack("{s:o, s:{s:s, s:s}, s:s}", "labels", labels, "annotations", "summary", summary,
		"description", description, "generatorURL", gen);
	free(gen);
	free(summary);
	free(description);
	return j;
}

/* "380.0 Mbit/s", or "-" when unknown. */
static const char *al_mbps(char *tmp, size_t size, double bps)
{
	if (!isfinite(bps))
		return "-";
	snprintf(tmp, size, "%.1f Mbit/s", bps / 1e6);
	return tmp;
}

static const char *al_pct(char *tmp, size_t size, double load)
{
	if (!isfinite(load))
		return "-";
	snprintf(tmp, size, "%.0f%%", load * 100);
	return tmp;
}

static json_t *al_regression(const alert_t *a, const struct detector_verdict *v)
{
	json_t *labels = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "alertname",
		"WgwatchUpgradeRegression", "router", v->router, "interface", v->interface, "direction",
		v->direction, "from_version", v->from_version, "to_version", v->to_version, "severity",
		"warning");
	char b[32], f[32], lb[16], lf[16];
	char *summary = xasprintf("%s %s %s: capacity down after %s -> %s", v->router, v->interface,
		v->direction, v->from_version, v->to_version);
	char *desc = xasprintf(
		"wgwatch judges that the upgrade of %s from %s to %s left %.0f%% of the"
		" %s capacity of %s (tx = encrypt, rx = decrypt): ratio %.2f by %s, %s before and %s"
		" after, busiest core %s -> %s, %zu and %zu samples.",
		v->router, v->from_version, v->to_version, v->ratio * 100, v->direction, v->interface,
		v->ratio, detector_method_name(v->method), al_mbps(b, sizeof(b), v->before_bps),
		al_mbps(f, sizeof(f), v->after_bps), al_pct(lb, sizeof(lb), v->before_load),
		al_pct(lf, sizeof(lf), v->after_load), v->before_n, v->after_n);
	return al_alert(a, labels, v->router, summary, desc);
}

static json_t *al_bound_labels(const char *router)
{
	return json_pack("{s:s, s:s, s:s}", "alertname", "WgwatchSingleCoreBound", "router", router,
		"severity", "info");
}

static json_t *al_bound(const alert_t *a, const struct detector_bound *bd)
{
	json_t *labels = al_bound_labels(bd->router);
	char t[32], r[32], lb[16], lo[16];
	char *summary = xasprintf("%s is bound by one CPU core", bd->router);
	char *desc = xasprintf("The busiest core of %s is at %s while the others average %s: its"
			       " WireGuard throughput (tx %s, rx %s) is at the ceiling of one core.",
		bd->router, al_pct(lb, sizeof(lb), bd->busiest), al_pct(lo, sizeof(lo), bd->others),
		al_mbps(t, sizeof(t), bd->tx_bps), al_mbps(r, sizeof(r), bd->rx_bps));
	return al_alert(a, labels, bd->router, summary, desc);
}

/* The identity of an alert: its labels (alertname included), as sorted compact JSON. */
static char *al_key_of(const json_t *labels)
{
	char *s = json_dumps(labels, JSON_SORT_KEYS | JSON_COMPACT);
	char *key = xstrdup(s);
	free(s);
	return key;
}

static char *al_key(const json_t *alert)
{
	return al_key_of(json_object_get(alert, "labels"));
}

static struct al_item *al_find(alert_t *a, const char *key)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->items[i].key, key) == 0)
			return &a->items[i];
	return NULL;
}

static void al_log_change(const char *what, const struct al_item *it)
{
	log_info("alert: %s %s", what, it->key);
}

/* The current view wants alert (ours now), firing since starts_ms. */
static void al_want(alert_t *a, json_t *alert, int64_t starts_ms)
{
	if (alert == NULL) /* json_pack met a NULL string: a verdict without versions */
		return;
	char *key = al_key(alert);
	struct al_item *it = al_find(a, key);
	if (it != NULL) {
		free(key);
		json_decref(it->alert);
		it->alert = alert; /* the figures may have moved */
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
	*it = (struct al_item){ .key = key, .alert = alert, .starts_ms = starts_ms, .mark = true };
	al_log_change("firing", it);
	a->next_ms = a->fails ? a->next_ms : 0;
}

/* Too few polls since a version change to tell (the detector looks at the polls since then,
 * by the router's own last poll, so a router gone quiet keeps its figures): a bound alert stays
 * as it is, rather than resolve and fire again around every upgrade. */
static void al_keep(alert_t *a, const char *router)
{
	json_t *labels = al_bound_labels(router);
	char *key = al_key_of(labels);
	struct al_item *it = al_find(a, key);
	if (it != NULL)
		it->mark = true;
	free(key);
	json_decref(labels);
}

/* Turn a detector view into the set of alerts that hold; those gone are resolved now. */
static void al_update(alert_t *a, const detector_view_t *v, int64_t now)
{
	for (size_t i = 0; i < a->n; i++)
		a->items[i].mark = false;
	for (size_t i = 0; i < detector_view_nverdicts(v); i++) {
		const struct detector_verdict *x = detector_view_verdict(v, i);
		if (x->latest && x->verdict == DETECTOR_REGRESSION)
			al_want(a, al_regression(a, x), x->reached_ms ? x->reached_ms : now);
	}
	for (size_t i = 0; i < a->conf->nrouters; i++) {
		const struct detector_bound *bd = detector_view_bound(v, a->conf->routers[i].name);
		if (bd != NULL && bd->bound)
			al_want(a, al_bound(a, bd), now);
		else if (bd == NULL || bd->n < AL_BOUND_MIN_POLLS) /* just after an upgrade */
			al_keep(a, a->conf->routers[i].name);
	}
	for (size_t i = 0; i < a->n; i++) {
		struct al_item *it = &a->items[i];
		if (!it->mark && it->ends_ms == 0) {
			it->ends_ms = now;
			al_log_change("resolved", it);
			a->next_ms = a->fails ? a->next_ms : 0;
		}
	}
}

/* The body: every alert, firing ones ending a few resends from now unless sent again. */
static char *al_body(const alert_t *a, int64_t now)
{
	json_t *arr = json_array();
	int64_t ends = now + AL_ENDS_RESENDS * a->conf->alert_resend_ms;
	for (size_t i = 0; i < a->n; i++) {
		const struct al_item *it = &a->items[i];
		char s[40], e[40];
		al_time(s, sizeof(s), it->starts_ms);
		al_time(e, sizeof(e), it->ends_ms ? it->ends_ms : ends);
		json_t *j = json_copy(it->alert);
		json_object_set_new(j, "startsAt", json_string(s));
		json_object_set_new(j, "endsAt", json_string(e));
		json_array_append_new(arr, j);
	}
	char *body = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return body;
}

static size_t al_on_data(char *p, size_t size, size_t n, void *arg)
{
	buf_t *b = arg;
	if (b->len < AL_ERRBODY)
		buf_append(b, p, size * n < AL_ERRBODY - b->len ? size * n : AL_ERRBODY - b->len);
	return size * n;
}

static int al_on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	const alert_t *a = arg;
	return atomic_load(&a->stopping) ? 1 : 0; /* non-zero aborts the transfer */
}

/* One POST; 0, or -1 with *cause. */
static int al_post(alert_t *a, const char *body, char **cause)
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
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, al_on_data);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, al_on_progress);
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
static void al_drop_resolved(alert_t *a)
{
	size_t k = 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->items[i].ends_ms != 0) {
			free(a->items[i].key);
			json_decref(a->items[i].alert);
		} else {
			a->items[k++] = a->items[i];
		}
	}
	a->n = k;
}

/* Push the whole set; a failure is logged once per distinct cause and retried with back-off. */
static void al_push(alert_t *a, int64_t now, int64_t mono)
{
	char *body = al_body(a, now), *cause = NULL;
	int rc = al_post(a, body, &cause);
	free(body);
	if (rc == 0) {
		if (a->error != NULL)
			log_info("alert: pushing to Alertmanager works again");
		free(a->error);
		a->error = NULL;
		a->fails = 0;
		al_drop_resolved(a);
		a->next_ms = mono + a->conf->alert_resend_ms;
		return;
	}
	int64_t delay = a->conf->alert_resend_ms;
	if (a->fails < 20 && ((int64_t)AL_RETRY_MS << a->fails) < delay)
		delay = (int64_t)AL_RETRY_MS << a->fails;
	a->fails++;
	a->next_ms = mono + delay;
	if (atomic_load(&a->stopping)) {
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

static void al_cycle(alert_t *a)
{
	detector_view_t *v = detector_view(a->detector);
	if (v != NULL && v != a->seen) {
		al_update(a, v, al_clock_ms(CLOCK_REALTIME));
		detector_view_free(a->seen);
		a->seen = v;
	} else {
		detector_view_free(v);
	}
	int64_t mono = al_clock_ms(CLOCK_MONOTONIC);
	if (a->n > 0 && mono >= a->next_ms)
		al_push(a, al_clock_ms(CLOCK_REALTIME), mono);
}

static void *al_thread(void *arg)
{
	alert_t *a = arg;
	while (!atomic_load(&a->stopping)) {
		al_cycle(a);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		int64_t ns = ts.tv_nsec + (int64_t)AL_TICK_MS * 1000000;
		ts.tv_sec += (time_t)(ns / 1000000000);
		ts.tv_nsec = (long)(ns % 1000000000);
		pthread_mutex_lock(&a->mu);
		if (!atomic_load(&a->stopping))
			pthread_cond_timedwait(&a->wake, &a->mu, &ts);
		pthread_mutex_unlock(&a->mu);
	}
	return NULL;
}

static void al_free(alert_t *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->items[i].key);
		json_decref(a->items[i].alert);
	}
	free(a->items);
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
	pthread_mutex_init(&a->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&a->wake, &ca);
	pthread_condattr_destroy(&ca);
	int err = a->curl ? pthread_create(&a->thread, NULL, al_thread, a) : ENOMEM;
	if (err != 0) {
		*cause = xasprintf("cannot start the Alertmanager push: %s", strerror(err));
		pthread_cond_destroy(&a->wake);
		pthread_mutex_destroy(&a->mu);
		al_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

void alert_stop(alert_t *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	atomic_store(&a->stopping, true);
	pthread_cond_signal(&a->wake);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->mu);
	al_free(a);
}
