/* SPDX-License-Identifier: Apache-2.0 */
/* api: the JSON API, written with lib/jsonw. Builds documents from the fleet view under its lock.
 * Only public fields go out: names, labels, what routers reported and our own reasons;
 * never a password, community or key from the config. Router text is made valid UTF-8. */
#include "config.h"
#include "web/api.h"
#include "lib/clock.h"

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
#include "lib/log.h"
#include "lib/xmem.h"
#include "web/metrics.h"

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

static void api_labels(buf_t *b, const conf_router_t *cr)
{
	jsonw_object(b, "labels");
	for (size_t k = 0; k < cr->nlabels; k++)
		jsonw_text(b, cr->labels[k].key, cr->labels[k].value);
	jsonw_end_object(b);
}

static void api_bytes(buf_t *b, const char *key, int64_t v)
{
	if (v >= 0)
		jsonw_int(b, key, v);
	else
		jsonw_null(b, key);
}

/* The newest poll's sensors, memory and disk (docs/metrics.md), or null before any data. */
static void api_health(buf_t *b, const sample_t *s)
{
	if (s == NULL) {
		jsonw_null(b, "health");
		return;
	}
	jsonw_object(b, "health");
	jsonw_array(b, "sensors");
	for (size_t k = 0; k < s->nsensors; k++) {
		jsonw_object(b, NULL);
		jsonw_text(b, "name", s->sensors[k].name);
		jsonw_add(b, "unit", sample_unit_name(s->sensors[k].unit));
		if (isfinite(s->sensors[k].value)) /* else left out, as jansson's json_real refused */
			jsonw_real(b, "value", s->sensors[k].value, JSONW_PREC_MAX);
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
	api_bytes(b, "memory_free_bytes", s->mem_free);
	api_bytes(b, "memory_total_bytes", s->mem_total);
	api_bytes(b, "disk_free_bytes", s->disk_free);
	api_bytes(b, "disk_total_bytes", s->disk_total);
	jsonw_end_object(b);
}

/* The optional REST menus asked so far (docs/routeros.md §2.3): up, and while failing since
 * when and why; [] before any data. */
static void api_menus(buf_t *b, const sample_t *s)
{
	jsonw_array(b, "menus");
	for (size_t k = 0; s != NULL && k < s->nmenus; k++) {
		const struct sample_menu *m = &s->menus[k];
		jsonw_object(b, NULL);
		jsonw_add(b, "menu", m->path);
		jsonw_bool(b, "up", m->why == NULL);
		jsonw_text(b, "error", m->why);
		api_put_time(b, "failing_since", m->since_ms);
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
}

static void api_router(buf_t *b, const fleet_router_t *r)
{
	const sample_t *s = r->last;
	jsonw_object(b, NULL);
	jsonw_text(b, "name", r->conf->name);
	jsonw_bool(b, "up", r->up);
	jsonw_add(b, "state", r->up ? "up" : r->polled ? "down" : "pending");
	jsonw_text(b, "version", s ? s->version : NULL);
	jsonw_text(b, "firmware", s ? s->firmware : NULL);
	jsonw_text(b, "board", s ? s->board : NULL);
	jsonw_text(b, "architecture", s ? s->architecture : NULL);
	jsonw_int(b, "cores", s ? (int64_t)s->ncores : 0);
	api_put_time(b, "last_poll", r->polled ? r->last_poll_ms : 0);
	jsonw_text(b, "last_error", r->last_error);
	api_labels(b, r->conf);
	api_health(b, s);
	api_menus(b, s);
	jsonw_end_object(b);
}

void api_routers(fleet_t *fleet, buf_t *out)
{
	fleet_view_t *v = fleet_view(fleet);
	jsonw_array(out, NULL);
	for (size_t i = 0; i < fleet_view_size(v); i++)
		api_router(out, fleet_view_at(v, i));
	jsonw_end_array(out);
	fleet_view_free(v);
	buf_putc(out, '\n');
}

/* ---- the upgrade detector ---- */

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
	jsonw_real(b, "ratio_rse", v->ratio_rse, API_REAL_PREC);
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

static void api_cohort(buf_t *b, const struct detector_cohort *c)
{
	jsonw_text(b, "from_version", c->from_version);
	jsonw_text(b, "to_version", c->to_version);
	jsonw_text(b, "architecture", c->architecture);
	jsonw_text(b, "board", c->board);
	jsonw_int(b, "routers", (int64_t)c->routers);
	jsonw_int(b, "regressed", (int64_t)c->regressed);
	jsonw_int(b, "improved", (int64_t)c->improved);
	jsonw_object(b, "median_ratio");
	jsonw_real(b, "tx", c->median_ratio_tx, API_REAL_PREC);
	jsonw_real(b, "rx", c->median_ratio_rx, API_REAL_PREC);
	jsonw_end_object(b);
}

void api_regressions(detector_t *detector, buf_t *out)
{
	detector_view_t *v = detector_view(detector);
	jsonw_array(out, NULL);
	for (size_t i = 0; i < detector_view_nverdicts(v); i++)
		api_put_verdict(out, detector_view_verdict(v, i));
	jsonw_end_array(out);
	detector_view_free(v);
	buf_putc(out, '\n');
}

/* One stream's capacity headroom (docs/detector.md, Capacity headroom). */
static void api_capacity_trend(buf_t *b, const struct capacity *c)
{
	jsonw_add(b, "trend", "theil-sen");
	jsonw_int(b, "trend_days", (int64_t)c->days);
	if (isfinite(c->slope_bps_day))
		jsonw_add(b, "trend_growth", c->compound ? "compound" : "linear");
	else
		jsonw_null(b, "trend_growth");
	jsonw_real(b, "trend_bps_per_day", c->slope_bps_day, API_REAL_PREC);
}

/* One stream's capacity headroom (docs/detector.md, Capacity headroom). */
static void api_capacity_one(buf_t *b, const struct capacity *c)
{
	jsonw_object(b, NULL);
	jsonw_text(b, "router", c->router);
	jsonw_text(b, "interface", c->interface);
	jsonw_add(b, "direction", c->direction);
	jsonw_real(b, "capacity_bps", c->bps, API_REAL_PREC);
	jsonw_real(b, "capacity_rse", c->rse, API_REAL_PREC);
	jsonw_text(b, "method", capacity_method_name(c->method));
	api_put_opt(b, "cores", c->cores);
	jsonw_real(b, "demand_p95_day_bps", c->p95_day, API_REAL_PREC);
	jsonw_real(b, "demand_p95_week_bps", c->p95_week, API_REAL_PREC);
	jsonw_real(b, "headroom", c->headroom, API_REAL_PREC);
	api_put_time(b, "exhausted_at", c->exhausted_ms != CAPACITY_NEVER ? c->exhausted_ms : 0);
	api_capacity_trend(b, c);
	jsonw_text(b, "why", c->why[0] ? c->why : NULL);
	jsonw_text(b, "exhausted_why", c->trend_why[0] ? c->trend_why : NULL);
	jsonw_end_object(b);
}

void api_capacity(detector_t *detector, buf_t *out)
{
	detector_view_t *v = detector_view(detector);
	size_t n = 0;
	const struct capacity *c = v ? detector_view_capacity(v, &n) : NULL;
	jsonw_array(out, NULL);
	for (size_t i = 0; i < n; i++)
		api_capacity_one(out, &c[i]);
	jsonw_end_array(out);
	detector_view_free(v);
	buf_putc(out, '\n');
}

static void api_elsewhere_dir(buf_t *b, const char *key, const struct evidimport_dir *d)
{
	jsonw_object(b, key);
	jsonw_int(b, "fleets", (int64_t)d->fleets);
	jsonw_int(b, "fleets_regressed", (int64_t)d->fleets_regressed);
	jsonw_int(b, "routers", (int64_t)d->routers);
	jsonw_int(b, "judged", (int64_t)d->judged);
	jsonw_int(b, "regressed", (int64_t)d->regressed);
	jsonw_int(b, "improved", (int64_t)d->improved);
	jsonw_int(b, "unchanged", (int64_t)d->unchanged);
	jsonw_real(b, "median_ratio", d->median, API_REAL_PREC);
	jsonw_end_object(b);
}

/* One cohort and other fleets' evidence on it ("elsewhere", apart from the fleet's own
 * figures; null when nothing). */
static void api_cohort_row(buf_t *b, const struct detector_cohort *c, const struct evidimport_cohort *k)
{
	jsonw_object(b, NULL);
	api_cohort(b, c);
	if (k != NULL) {
		jsonw_object(b, "elsewhere");
		jsonw_int(b, "fleets", (int64_t)k->fleets);
		api_elsewhere_dir(b, "tx", &k->tx);
		api_elsewhere_dir(b, "rx", &k->rx);
		jsonw_end_object(b);
	} else {
		jsonw_null(b, "elsewhere");
	}
	jsonw_end_object(b);
}

/* The cohorts known only from other fleets' evidence (routers 0). */
static void api_cohorts_elsewhere(buf_t *b, evidimport_set_t *s, const bool *used)
{
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
		api_cohort_row(b, &c, k);
	}
}

/* The fleet's own cohorts, each with what other fleets' evidence says of it, then the cohorts
 * known only from evidence. */
void api_cohorts(detector_t *detector, buf_t *out)
{
	detector_view_t *v = detector_view(detector);
	evidimport_set_t *s = rollout_evidence(detector_view_rollout(v));
	bool *used = xcalloc(evidimport_ncohorts(s) + 1, sizeof(*used));
	jsonw_array(out, NULL);
	for (size_t i = 0; i < detector_view_ncohorts(v); i++) {
		const struct detector_cohort *c = detector_view_cohort(v, i);
		const struct evidimport_cohort *k = evidimport_find(
			s, c->from_version, c->to_version, c->architecture, c->board);
		api_cohort_row(out, c, k);
		if (k != NULL)
			used[k - evidimport_cohort(s, 0)] = true;
	}
	api_cohorts_elsewhere(out, s, used);
	jsonw_end_array(out);
	free(used);
	evidimport_unref(s);
	detector_view_free(v);
	buf_putc(out, '\n');
}

/* ---- /api/v1/history/NAME ---- */

/* A JSON array of n values, null for NAN (no data in that bucket). */
static void api_series(buf_t *b, const char *key, const double *v, size_t n)
{
	jsonw_array(b, key);
	for (size_t i = 0; i < n; i++)
		jsonw_real(b, NULL, v[i], API_REAL_PREC);
	jsonw_end_array(b);
}

static void api_history_events(buf_t *b, const history_t *h)
{
	jsonw_array(b, "events");
	for (size_t i = 0; i < h->nevents; i++) {
		const struct history_event *e = &h->events[i];
		jsonw_object(b, NULL);
		api_put_time(b, "time", e->time_ms);
		jsonw_text(b, "kind", e->kind);
		jsonw_text(b, "old_version", e->old_version);
		jsonw_text(b, "new_version", e->new_version);
		jsonw_text(b, "old_firmware", e->old_firmware);
		jsonw_text(b, "new_firmware", e->new_firmware);
		jsonw_text(b, "old_board", e->old_board);
		jsonw_text(b, "new_board", e->new_board);
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
}

static void api_history_doc(buf_t *b, const char *name, const char *range, const history_t *h)
{
	jsonw_object(b, NULL);
	jsonw_text(b, "router", name);
	jsonw_add(b, "range", range);
	api_put_time(b, "from", h->from_ms);
	api_put_time(b, "to", h->to_ms);
	jsonw_real(b, "bucket_seconds", (double)h->bucket_ms / 1000.0, API_REAL_PREC);
	jsonw_bool(b, "rolled_up", h->rolled);
	jsonw_array(b, "interfaces");
	for (size_t i = 0; i < h->nifaces; i++) {
		jsonw_object(b, NULL);
		jsonw_text(b, "name", h->ifaces[i].name);
		api_series(b, "tx_bps", h->ifaces[i].tx_bps, h->nbuckets);
		api_series(b, "rx_bps", h->ifaces[i].rx_bps, h->nbuckets);
		jsonw_end_object(b);
	}
	jsonw_end_array(b);
	jsonw_array(b, "cores");
	for (size_t c = 0; c < h->ncores; c++)
		api_series(b, NULL, h->load + c * h->nbuckets, h->nbuckets);
	jsonw_end_array(b);
	api_history_events(b, h);
	jsonw_end_object(b);
	buf_putc(b, '\n');
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
	jsonw_object(out, NULL);
	jsonw_text(out, "error", msg);
	jsonw_end_object(out);
	buf_putc(out, '\n');
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
	api_history_doc(out, req->name, range, h);
	history_free(h);
	return 200;
}

/* ---- /api/v1/routers/NAME/profiles ---- */

#define API_MAX_PROFILES 100

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

static void api_profile(buf_t *b, const profile_t *p)
{
	jsonw_object(b, NULL);
	api_put_time(b, "time", p->time_ms);
	api_put_profile_rows(b, "rows", p);
	jsonw_end_object(b);
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
	jsonw_array(out, NULL);
	for (size_t i = 0; i < n; i++)
		api_profile(out, v[i]);
	jsonw_end_array(out);
	history_profiles_free(v, n);
	buf_putc(out, '\n');
	return 200;
}

/* ---- /api/v1/routers/NAME/probes ---- */

/* v, or null when below 0 (not known). */
static void api_opt(buf_t *b, const char *key, double v)
{
	if (v >= 0)
		jsonw_real(b, key, v, API_REAL_PREC);
	else
		jsonw_null(b, key);
}

void api_put_probe_members(buf_t *b, const probe_t *p)
{
	api_put_time(b, "time", p->time_ms);
	jsonw_add(b, "direction", p->configured); /* as configured */
	jsonw_add(b, "measured", p->direction);   /* what the figures are of */
	jsonw_real(b, "offered_bps", p->offered_bps, API_REAL_PREC);
	jsonw_real(b, "delivered_bps", p->delivered_bps, API_REAL_PREC);
	if (p->lost_packets >= 0)
		jsonw_int(b, "lost_packets", p->lost_packets);
	else
		jsonw_null(b, "lost_packets");
}

static void api_probe(buf_t *b, const probe_t *p)
{
	jsonw_object(b, NULL);
	api_put_probe_members(b, p);
	api_opt(b, "local_cpu_load", p->local_cpu_load);
	api_opt(b, "remote_cpu_load", p->remote_cpu_load);
	api_opt(b, "busiest_core_load", p->busiest_core_load);
	jsonw_end_object(b);
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
	jsonw_array(out, NULL);
	for (size_t i = 0; i < n; i++)
		api_probe(out, v[i]);
	jsonw_end_array(out);
	history_probes_free(v, n);
	buf_putc(out, '\n');
	return 200;
}

/* ---- POST /api/v1/routers/NAME/probe ---- */

unsigned api_probe_demand(fleet_t *fleet, diag_t *diag, const char *name, buf_t *out)
{
	fleet_view_t *v = fleet ? fleet_view_router(fleet, name) : NULL; /* the configuration now */
	const conf_router_t *rc = v ? fleet_view_at(v, 0)->conf : NULL;
	unsigned code = rc == NULL ? 404 : rc->probe == NULL || diag == NULL ? 409 : 202;
	fleet_view_free(v);
	jsonw_object(out, NULL);
	jsonw_text(out, "router", name);
	jsonw_bool(out, "queued", code == 202);
	jsonw_add(out, "why",
		code == 202           ? "the probe starts after the router's next poll"
			: code == 404 ? "no such router"
				      : "the router has no probe =");
	jsonw_end_object(out);
	buf_putc(out, '\n');
	if (code == 202)
		diag_demand_probe(diag, name);
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
