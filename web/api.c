/* SPDX-License-Identifier: Apache-2.0 */
/* api: the JSON API (jansson). Builds documents from the fleet view under its lock.
 * Only public fields go out: names, labels, what routers reported and our own reasons;
 * never a password, community or key from the config. Router text is made valid UTF-8. */
#include "config.h"
#include "web/api.h"
#include "lib/clock.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detector/capacity.h"
#include "detector/detector.h"
#include "detector/evidimport.h"
#include "detector/rollout.h"
#include "store/history.h"
#include "lib/jsonw.h"
#include "lib/text.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "web/metrics.h"

json_t *api_str(const char *s)
{
	if (s == NULL)
		return json_null();
	buf_t b;
	buf_init(&b);
	text_put_utf8(&b, s);
	json_t *j = json_stringn(b.data ? b.data : "", b.len);
	buf_free(&b);
	return j ? j : json_null();
}

json_t *api_time(int64_t ms)
{
	if (ms <= 0)
		return json_null();
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char tmp[32];
	if (gmtime_r(&t, &tm) == NULL || strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return json_null();
	return json_string(tmp);
}

void api_put_time(buf_t *b, const char *key, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char tmp[32];
	if (ms > 0 && gmtime_r(&t, &tm) != NULL && strftime(tmp, sizeof(tmp), "%Y-%m-%dT%H:%M:%SZ", &tm) != 0)
		jsonw_add(b, key, tmp);
	else
		jsonw_null(b, key);
}

static json_t *api_labels(const conf_router_t *cr)
{
	json_t *o = json_object();
	for (size_t k = 0; k < cr->nlabels; k++) {
		buf_t key;
		buf_init(&key);
		text_put_utf8(&key, cr->labels[k].key);
		json_object_set_new(o, key.data ? key.data : "", api_str(cr->labels[k].value));
		buf_free(&key);
	}
	return o;
}

static json_t *api_bytes(int64_t v)
{
	return v >= 0 ? json_integer((json_int_t)v) : json_null();
}

/* The newest poll's sensors, memory and disk (docs/metrics.md), or null before any data. */
static json_t *api_health(const sample_t *s)
{
	if (s == NULL)
		return json_null();
	json_t *o = json_object(), *arr = json_array();
	for (size_t k = 0; k < s->nsensors; k++) {
		json_t *x = json_object();
		json_object_set_new(x, "name", api_str(s->sensors[k].name));
		json_object_set_new(x, "unit", json_string(sample_unit_name(s->sensors[k].unit)));
		json_object_set_new(x, "value", json_real(s->sensors[k].value));
		json_array_append_new(arr, x);
	}
	json_object_set_new(o, "sensors", arr);
	json_object_set_new(o, "memory_free_bytes", api_bytes(s->mem_free));
	json_object_set_new(o, "memory_total_bytes", api_bytes(s->mem_total));
	json_object_set_new(o, "disk_free_bytes", api_bytes(s->disk_free));
	json_object_set_new(o, "disk_total_bytes", api_bytes(s->disk_total));
	return o;
}

/* The optional REST menus asked so far (docs/routeros.md §2.3): up, and while failing since
 * when and why; [] before any data. */
static json_t *api_menus(const sample_t *s)
{
	json_t *arr = json_array();
	for (size_t k = 0; s != NULL && k < s->nmenus; k++) {
		const struct sample_menu *m = &s->menus[k];
		json_t *x = json_object();
		json_object_set_new(x, "menu", json_string(m->path));
		json_object_set_new(x, "up", json_boolean(m->why == NULL));
		json_object_set_new(x, "error", api_str(m->why));
		json_object_set_new(x, "failing_since", api_time(m->since_ms));
		json_array_append_new(arr, x);
	}
	return arr;
}

static json_t *api_router(const fleet_router_t *r)
{
	const sample_t *s = r->last;
	json_t *o = json_object();
	json_object_set_new(o, "name", api_str(r->conf->name));
	json_object_set_new(o, "up", json_boolean(r->up));
	json_object_set_new(o, "state", json_string(r->up ? "up" : r->polled ? "down" : "pending"));
	json_object_set_new(o, "version", api_str(s ? s->version : NULL));
	json_object_set_new(o, "firmware", api_str(s ? s->firmware : NULL));
	json_object_set_new(o, "board", api_str(s ? s->board : NULL));
	json_object_set_new(o, "architecture", api_str(s ? s->architecture : NULL));
	json_object_set_new(o, "cores", json_integer(s ? (json_int_t)s->ncores : 0));
	json_object_set_new(o, "last_poll", api_time(r->polled ? r->last_poll_ms : 0));
	json_object_set_new(o, "last_error", api_str(r->last_error));
	json_object_set_new(o, "labels", api_labels(r->conf));
	json_object_set_new(o, "health", api_health(s));
	json_object_set_new(o, "menus", api_menus(s));
	return o;
}

static int api_dump_cb(const char *data, size_t size, void *arg)
{
	buf_append(arg, data, size);
	return 0;
}

void api_routers(fleet_t *fleet, buf_t *out)
{
	json_t *arr = json_array();
	fleet_view_t *v = fleet_view(fleet);
	for (size_t i = 0; i < fleet_view_size(v); i++)
		json_array_append_new(arr, api_router(fleet_view_at(v, i)));
	fleet_view_free(v);
	json_dump_callback(arr, api_dump_cb, out, JSON_COMPACT);
	buf_putc(out, '\n');
	json_decref(arr);
}

/* ---- the upgrade detector ---- */

json_t *api_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* "a\nb" as ["a","b"]; [] for "" or NULL. */
static json_t *api_lines(const char *s)
{
	json_t *arr = json_array();
	while (s != NULL && *s != '\0') {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		json_array_append_new(arr, json_stringn(s, n));
		s += n + (nl != NULL);
	}
	return arr;
}

/* "a\nb" as ["a","b"]; [] for "" or NULL; a line not UTF-8 left out, as jansson did. */
static void api_put_lines(buf_t *b, const char *key, const char *s)
{
	jsonw_array(b, key);
	while (s != NULL && *s != '\0') {
		size_t n = strcspn(s, "\n");
		char *line = xstrndup(s, n);
		jsonw_add(b, NULL, line);
		free(line);
		s += n + (s[n] == '\n');
	}
	jsonw_end_array(b);
}

/* A string of ours (a name, a method), never NULL nor invalid; null when empty. */
static void api_put_opt(buf_t *b, const char *key, const char *s)
{
	if (s[0] != '\0')
		jsonw_add(b, key, s);
	else
		jsonw_null(b, key);
}

static void api_put_verdict_why(buf_t *b, const struct detector_verdict *v)
{
	jsonw_add(b, "method", outcome_method_name(v->method));
	jsonw_add(b, "verdict", outcome_name(v->verdict));
	jsonw_bool(b, "hint", v->hint);
	api_put_opt(b, "why", v->why);
	api_put_opt(b, "cores", v->cores);
	api_put_time(b, "reached_at", v->reached_ms);
	jsonw_bool(b, "final", v->final);
	jsonw_bool(b, "latest", v->latest);
}

void api_put_verdict(buf_t *b, const struct detector_verdict *v)
{
	jsonw_object(b, NULL);
	jsonw_int(b, "upgrade_id", v->upgrade_id);
	jsonw_text(b, "router", v->router);
	jsonw_text(b, "interface", v->interface);
	jsonw_add(b, "direction", v->direction);
	jsonw_text(b, "from_version", v->from_version);
	jsonw_text(b, "to_version", v->to_version);
	api_put_time(b, "upgraded_at", v->upgraded_ms);
	jsonw_real(b, "before_bps", v->before_bps, API_REAL_PREC);
	jsonw_real(b, "after_bps", v->after_bps, API_REAL_PREC);
	jsonw_real(b, "ratio", v->ratio, API_REAL_PREC);
	api_put_verdict_why(b, v);
	jsonw_real(b, "before_load", v->before_load, API_REAL_PREC);
	jsonw_real(b, "after_load", v->after_load, API_REAL_PREC);
	jsonw_int(b, "before_samples", (int64_t)v->before_n);
	jsonw_int(b, "after_samples", (int64_t)v->after_n);
	jsonw_text(b, "architecture", v->architecture);
	jsonw_text(b, "board", v->board);
	api_put_lines(b, "confounders", v->confounders);
	jsonw_end_object(b);
}

json_t *api_verdict(const struct detector_verdict *v)
{
	json_t *o = json_object();
	json_object_set_new(o, "upgrade_id", json_integer((json_int_t)v->upgrade_id));
	json_object_set_new(o, "router", api_str(v->router));
	json_object_set_new(o, "interface", api_str(v->interface));
	json_object_set_new(o, "direction", json_string(v->direction));
	json_object_set_new(o, "from_version", api_str(v->from_version));
	json_object_set_new(o, "to_version", api_str(v->to_version));
	json_object_set_new(o, "upgraded_at", api_time(v->upgraded_ms));
	json_object_set_new(o, "before_bps", api_num(v->before_bps));
	json_object_set_new(o, "after_bps", api_num(v->after_bps));
	json_object_set_new(o, "ratio", api_num(v->ratio));
	json_object_set_new(o, "method", json_string(outcome_method_name(v->method)));
	json_object_set_new(o, "verdict", json_string(outcome_name(v->verdict)));
	json_object_set_new(o, "hint", json_boolean(v->hint));
	json_object_set_new(o, "why", v->why[0] ? json_string(v->why) : json_null());
	json_object_set_new(o, "cores", v->cores[0] ? json_string(v->cores) : json_null());
	json_object_set_new(o, "reached_at", api_time(v->reached_ms));
	json_object_set_new(o, "final", json_boolean(v->final));
	json_object_set_new(o, "latest", json_boolean(v->latest));
	json_object_set_new(o, "before_load", api_num(v->before_load));
	json_object_set_new(o, "after_load", api_num(v->after_load));
	json_object_set_new(o, "before_samples", json_integer((json_int_t)v->before_n));
	json_object_set_new(o, "after_samples", json_integer((json_int_t)v->after_n));
	json_object_set_new(o, "architecture", api_str(v->architecture));
	json_object_set_new(o, "board", api_str(v->board));
	json_object_set_new(o, "confounders", api_lines(v->confounders));
	return o;
}

static json_t *api_cohort(const struct detector_cohort *c)
{
	json_t *o = json_object(), *m = json_object();
	json_object_set_new(o, "from_version", api_str(c->from_version));
	json_object_set_new(o, "to_version", api_str(c->to_version));
	json_object_set_new(o, "architecture", api_str(c->architecture));
	json_object_set_new(o, "board", api_str(c->board));
	json_object_set_new(o, "routers", json_integer((json_int_t)c->routers));
	json_object_set_new(o, "regressed", json_integer((json_int_t)c->regressed));
	json_object_set_new(o, "improved", json_integer((json_int_t)c->improved));
	json_object_set_new(m, "tx", api_num(c->median_ratio_tx));
	json_object_set_new(m, "rx", api_num(c->median_ratio_rx));
	json_object_set_new(o, "median_ratio", m);
	return o;
}

static void api_dump(json_t *arr, buf_t *out)
{
	json_dump_callback(arr, api_dump_cb, out, JSON_COMPACT | JSON_REAL_PRECISION(10));
	buf_putc(out, '\n');
	json_decref(arr);
}

void api_regressions(detector_t *detector, buf_t *out)
{
	json_t *arr = json_array();
	detector_view_t *v = detector_view(detector);
	for (size_t i = 0; i < detector_view_nverdicts(v); i++)
		json_array_append_new(arr, api_verdict(detector_view_verdict(v, i)));
	detector_view_free(v);
	api_dump(arr, out);
}

/* One stream's capacity headroom (docs/detector.md, Capacity headroom). */
static json_t *api_capacity_one(const struct capacity *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "router", api_str(c->router));
	json_object_set_new(o, "interface", api_str(c->interface));
	json_object_set_new(o, "direction", json_string(c->direction));
	json_object_set_new(o, "capacity_bps", api_num(c->bps));
	json_object_set_new(o, "capacity_rse", api_num(c->rse));
	json_object_set_new(o, "method", api_str(capacity_method_name(c->method)));
	json_object_set_new(o, "cores", c->cores[0] ? json_string(c->cores) : json_null());
	json_object_set_new(o, "demand_p95_day_bps", api_num(c->p95_day));
	json_object_set_new(o, "demand_p95_week_bps", api_num(c->p95_week));
	json_object_set_new(o, "headroom", api_num(c->headroom));
	json_object_set_new(o, "exhausted_at",
		c->exhausted_ms != CAPACITY_NEVER ? api_time(c->exhausted_ms) : json_null());
	json_object_set_new(o, "trend", json_string("theil-sen"));
	json_object_set_new(o, "trend_days", json_integer((json_int_t)c->days));
	json_object_set_new(o, "trend_growth",
		isfinite(c->slope_bps_day) ? json_string(c->compound ? "compound" : "linear") : json_null());
	json_object_set_new(o, "trend_bps_per_day", api_num(c->slope_bps_day));
	json_object_set_new(o, "why", c->why[0] ? api_str(c->why) : json_null());
	json_object_set_new(o, "exhausted_why", c->trend_why[0] ? api_str(c->trend_why) : json_null());
	return o;
}

void api_capacity(detector_t *detector, buf_t *out)
{
	json_t *arr = json_array();
	detector_view_t *v = detector_view(detector);
	size_t n = 0;
	const struct capacity *c = v ? detector_view_capacity(v, &n) : NULL;
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, api_capacity_one(&c[i]));
	detector_view_free(v);
	api_dump(arr, out);
}

static json_t *api_elsewhere_dir(const struct evidimport_dir *d)
{
	json_t *o = json_object();
	json_object_set_new(o, "fleets", json_integer((json_int_t)d->fleets));
	json_object_set_new(o, "fleets_regressed", json_integer((json_int_t)d->fleets_regressed));
	json_object_set_new(o, "routers", json_integer((json_int_t)d->routers));
	json_object_set_new(o, "judged", json_integer((json_int_t)d->judged));
	json_object_set_new(o, "regressed", json_integer((json_int_t)d->regressed));
	json_object_set_new(o, "improved", json_integer((json_int_t)d->improved));
	json_object_set_new(o, "unchanged", json_integer((json_int_t)d->unchanged));
	json_object_set_new(o, "median_ratio", api_num(d->median));
	return o;
}

/* Other fleets' evidence on a cohort, apart from the fleet's own figures. */
static json_t *api_elsewhere(const struct evidimport_cohort *k)
{
	json_t *o = json_object();
	json_object_set_new(o, "fleets", json_integer((json_int_t)k->fleets));
	json_object_set_new(o, "tx", api_elsewhere_dir(&k->tx));
	json_object_set_new(o, "rx", api_elsewhere_dir(&k->rx));
	return o;
}

/* The fleet's own cohorts, each with what other fleets' evidence says of it ("elsewhere", null
 * when nothing), then the cohorts known only from evidence (routers 0). */
void api_cohorts(detector_t *detector, buf_t *out)
{
	json_t *arr = json_array();
	detector_view_t *v = detector_view(detector);
	evidimport_set_t *s = rollout_evidence(detector_view_rollout(v));
	bool *used = xcalloc(evidimport_ncohorts(s) + 1, sizeof(*used));
	for (size_t i = 0; i < detector_view_ncohorts(v); i++) {
		const struct detector_cohort *c = detector_view_cohort(v, i);
		json_t *o = api_cohort(c);
		const struct evidimport_cohort *k = evidimport_find(
			s, c->from_version, c->to_version, c->architecture, c->board);
		json_object_set_new(o, "elsewhere", k == NULL ? json_null() : api_elsewhere(k));
		if (k != NULL)
			used[k - evidimport_cohort(s, 0)] = true;
		json_array_append_new(arr, o);
	}
	for (size_t i = 0; i < evidimport_ncohorts(s); i++) {
		if (used[i])
			continue;
		const struct evidimport_cohort *k = evidimport_cohort(s, i);
		struct detector_cohort c = { .from_version = k->from_version,
			.to_version = k->to_version,
			.architecture = k->architecture,
			.board = k->board,
			.median_ratio_tx = NAN,
			.median_ratio_rx = NAN };
		json_t *o = api_cohort(&c);
		json_object_set_new(o, "elsewhere", api_elsewhere(k));
		json_array_append_new(arr, o);
	}
	free(used);
	evidimport_unref(s);
	detector_view_free(v);
	api_dump(arr, out);
}

/* ---- /api/v1/history/NAME ---- */

/* A JSON array of n values, null for NAN (no data in that bucket). */
static json_t *api_series(const double *v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, api_num(v[i]));
	return a;
}

static json_t *api_history_events(const history_t *h)
{
	json_t *a = json_array();
	for (size_t i = 0; i < h->nevents; i++) {
		const struct history_event *e = &h->events[i];
		json_t *o = json_object();
		json_object_set_new(o, "time", api_time(e->time_ms));
		json_object_set_new(o, "kind", api_str(e->kind));
		json_object_set_new(o, "old_version", api_str(e->old_version));
		json_object_set_new(o, "new_version", api_str(e->new_version));
		json_object_set_new(o, "old_firmware", api_str(e->old_firmware));
		json_object_set_new(o, "new_firmware", api_str(e->new_firmware));
		json_object_set_new(o, "old_board", api_str(e->old_board));
		json_object_set_new(o, "new_board", api_str(e->new_board));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *api_history_doc(const char *name, const char *range, const history_t *h)
{
	json_t *o = json_object();
	json_object_set_new(o, "router", api_str(name));
	json_object_set_new(o, "range", json_string(range));
	json_object_set_new(o, "from", api_time(h->from_ms));
	json_object_set_new(o, "to", api_time(h->to_ms));
	json_object_set_new(o, "bucket_seconds", json_real((double)h->bucket_ms / 1000.0));
	json_object_set_new(o, "rolled_up", json_boolean(h->rolled));
	json_t *ifs = json_array();
	for (size_t i = 0; i < h->nifaces; i++) {
		json_t *f = json_object();
		json_object_set_new(f, "name", api_str(h->ifaces[i].name));
		json_object_set_new(f, "tx_bps", api_series(h->ifaces[i].tx_bps, h->nbuckets));
		json_object_set_new(f, "rx_bps", api_series(h->ifaces[i].rx_bps, h->nbuckets));
		json_array_append_new(ifs, f);
	}
	json_object_set_new(o, "interfaces", ifs);
	json_t *cores = json_array();
	for (size_t c = 0; c < h->ncores; c++)
		json_array_append_new(cores, api_series(h->load + c * h->nbuckets, h->nbuckets));
	json_object_set_new(o, "cores", cores);
	json_object_set_new(o, "events", api_history_events(h));
	return o;
}

static int64_t api_interval(const conf_t *conf, const char *name)
{
	for (size_t i = 0; i < conf->nrouters; i++)
		if (strcmp(conf->routers[i].name, name) == 0)
			return conf->routers[i].interval_ms;
	return conf->interval_ms;
}

static unsigned api_error(buf_t *out, unsigned status, const char *msg)
{
	json_t *o = json_pack("{s:s}", "error", msg);
	api_dump(o, out);
	return status;
}

unsigned api_history(const struct api_history_req *req, buf_t *out)
{
	const char *range = history_range_ms(req->range) >= 0 ? req->range : "24h";
	if (req->conf == NULL || req->conf->database == NULL)
		return api_error(out, 404, "no database");
	int64_t span = history_range_ms(range);
	struct history_req hq = {
		.db_path = req->conf->database,
		.router = req->name,
		.to_ms = req->now_ms,
		.from_ms = span > 0 ? req->now_ms - span : 0,
		.raw_retention_ms = req->conf->retention_ms,
		.min_bucket_ms = 2 * api_interval(req->conf, req->name),
	};
	history_t *h = NULL;
	char *cause = NULL;
	int rc = history_load(&hq, &h, &cause);
	if (rc < 0) {
		log_warn("web: history API: %s", cause);
		free(cause);
		return api_error(out, 500, "the database cannot be read now; see the daemon log");
	}
	if (rc == 1)
		return api_error(out, 404, "no data recorded for this router");
	api_dump(api_history_doc(req->name, range, h), out);
	history_free(h);
	return 200;
}

/* ---- /api/v1/routers/NAME/profiles ---- */

#define API_MAX_PROFILES 100

json_t *api_profile_rows(const profile_t *p)
{
	json_t *rows = json_array();
	for (size_t i = 0; p != NULL && i < p->nrows; i++) {
		const struct profile_row *r = &p->rows[i];
		json_t *x = json_object();
		json_object_set_new(x, "cpu", r->cpu >= 0 ? json_integer(r->cpu) : json_null());
		json_object_set_new(x, "name", api_str(r->name));
		json_object_set_new(x, "usage", api_num(r->usage));
		json_array_append_new(rows, x);
	}
	return rows;
}

void api_put_profile_rows(buf_t *b, const char *key, const profile_t *p)
{
	jsonw_array(b, key);
	for (size_t i = 0; p != NULL && i < p->nrows; i++) {
		const struct profile_row *r = &p->rows[i];
		jsonw_object(b, NULL);
		if (r->cpu >= 0)
			jsonw_int(b, "cpu", r->cpu);
		else
			jsonw_null(b, "cpu");
		jsonw_text(b, "name", r->name);
		jsonw_real(b, "usage", r->usage, API_REAL_PREC);
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
}

static json_t *api_profile(const profile_t *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "time", api_time(p->time_ms));
	json_object_set_new(o, "rows", api_profile_rows(p));
	return o;
}

/* Whether the fleet polls a router of that name now: after every reload and shard change,
 * not as the configuration the daemon started with said. */
static bool api_polled(fleet_t *fleet, const char *name)
{
	fleet_view_t *v = fleet ? fleet_view_router(fleet, name) : NULL;
	fleet_view_free(v);
	return v != NULL;
}

unsigned api_profiles(const conf_t *conf, fleet_t *fleet, const char *name, buf_t *out)
{
	if (conf == NULL || conf->database == NULL || !api_polled(fleet, name))
		return api_error(out, 404, "no such router");
	profile_t **v = NULL;
	size_t n = 0;
	char *cause = NULL;
	if (history_profiles(conf->database, name, API_MAX_PROFILES, &v, &n, &cause) < 0) {
		log_warn("web: profiles API: %s", cause);
		free(cause);
		return api_error(out, 500, "the database cannot be read now; see the daemon log");
	}
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, api_profile(v[i]));
	history_profiles_free(v, n);
	api_dump(arr, out);
	return 200;
}

/* ---- /api/v1/routers/NAME/probes ---- */

static json_t *api_opt(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static json_t *api_probe(const probe_t *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "time", api_time(p->time_ms));
	json_object_set_new(o, "direction", json_string(p->configured)); /* as configured */
	json_object_set_new(o, "measured", json_string(p->direction));   /* what the figures are of */
	json_object_set_new(o, "offered_bps", api_num(p->offered_bps));
	json_object_set_new(o, "delivered_bps", api_num(p->delivered_bps));
	json_object_set_new(
		o, "lost_packets", p->lost_packets >= 0 ? json_integer(p->lost_packets) : json_null());
	json_object_set_new(o, "local_cpu_load", api_opt(p->local_cpu_load));
	json_object_set_new(o, "remote_cpu_load", api_opt(p->remote_cpu_load));
	json_object_set_new(o, "busiest_core_load", api_opt(p->busiest_core_load));
	return o;
}

unsigned api_probes(const conf_t *conf, fleet_t *fleet, const char *name, buf_t *out)
{
	if (conf == NULL || conf->database == NULL || !api_polled(fleet, name))
		return api_error(out, 404, "no such router");
	probe_t **v = NULL;
	size_t n = 0;
	char *cause = NULL;
	if (history_probes(conf->database, name, API_MAX_PROFILES, &v, &n, &cause) < 0) {
		log_warn("web: probes API: %s", cause);
		free(cause);
		return api_error(out, 500, "the database cannot be read now; see the daemon log");
	}
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, api_probe(v[i]));
	history_probes_free(v, n);
	api_dump(arr, out);
	return 200;
}

/* ---- POST /api/v1/routers/NAME/probe ---- */

unsigned api_probe_demand(fleet_t *fleet, diag_t *diag, const char *name, buf_t *out)
{
	fleet_view_t *v = fleet ? fleet_view_router(fleet, name) : NULL; /* the configuration now */
	const conf_router_t *rc = v ? fleet_view_at(v, 0)->conf : NULL;
	unsigned code = rc == NULL ? 404 : rc->probe == NULL || diag == NULL ? 409 : 202;
	fleet_view_free(v);
	json_t *o = json_object();
	json_object_set_new(o, "router", api_str(name));
	json_object_set_new(o, "queued", json_boolean(code == 202));
	json_object_set_new(o, "why",
		json_string(code == 202       ? "the probe starts after the router's next poll"
				: code == 404 ? "no such router"
					      : "the router has no probe ="));
	if (code == 202)
		diag_demand_probe(diag, name);
	api_dump(o, out);
	return code;
}

/* ---- /api/v1/routers/NAME/... ---- */

/* Whether rest ends in "/suffix" after a name; *n the name's length. */
static bool api_suffix(const char *rest, const char *suffix, size_t *n)
{
	size_t len = strlen(rest), k = strlen(suffix);
	*n = len - k - 1;
	return len > k + 1 && rest[len - k - 1] == '/' && strcmp(rest + len - k, suffix) == 0;
}

unsigned api_router_sub(const conf_t *conf, fleet_t *fleet, const char *rest, buf_t *out)
{
	size_t n;
	bool profiles = api_suffix(rest, "profiles", &n);
	if (!profiles && !api_suffix(rest, "probes", &n))
		return api_error(out, 404, "not found");
	char *name = xstrndup(rest, n);
	unsigned code = profiles ? api_profiles(conf, fleet, name, out) : api_probes(conf, fleet, name, out);
	free(name);
	return code;
}

unsigned api_evidence(
	detector_t *detector, const char *since, const char *rollout, int64_t now_ms, buf_t *out)
{
	int64_t since_ms = since ? clock_parse_day(since) : 0;
	if (since_ms < 0)
		return api_error(out, 400, "since: a day (YYYY-MM-DD) expected");
	if (rollout != NULL && strcmp(rollout, "yes") != 0 && strcmp(rollout, "no") != 0)
		return api_error(out, 400, "rollout: yes or no expected");
	char *doc = detector_evidence(detector, since_ms, now_ms, rollout && strcmp(rollout, "yes") == 0);
	if (doc == NULL)
		return api_error(out, 503, "the detector has no results yet");
	buf_puts(out, doc);
	buf_putc(out, '\n');
	free(doc);
	return 200;
}
