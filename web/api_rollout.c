/* SPDX-License-Identifier: Apache-2.0 */
/* api_rollout: the rollout guard's decision as JSON (jansson), from a detector view, and its
 * overrides: listed, and stored or revoked for the authenticated web user. Only what the
 * verdicts, [rollout] and the stored overrides say goes out; router text is made valid UTF-8.
 * It writes the database only through store/overrides.c, and logs each change once. */
#include "config.h"
#include "web/api_rollout.h"
#include "web/api.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detector/rollout.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "store/overrides.h"

static json_t *api_rollout_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *api_rollout_reason(const struct rollout_reason *x)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(rollout_kind_name(x->kind)));
	json_object_set_new(o, "router", api_str(x->router));
	json_object_set_new(o, "interface", api_str(x->interface));
	json_object_set_new(o, "direction", api_str(x->direction));
	json_object_set_new(o, "ratio", api_rollout_num(x->ratio));
	json_object_set_new(
		o, "method", x->interface ? json_string(outcome_method_name(x->method)) : json_null());
	json_object_set_new(o, "final", json_boolean(x->final));
	json_object_set_new(o, "canary", json_boolean(x->canary));
	json_object_set_new(o, "text", api_str(x->text));
	return o;
}

static json_t *api_rollout_cohort(const struct rollout_query *q, const struct rollout_result *res)
{
	json_t *o = json_object(), *m = json_object();
	json_object_set_new(o, "to_version", api_str(q->version));
	json_object_set_new(o, "architecture", api_str(q->architecture));
	json_object_set_new(o, "board", api_str(res->board));
	json_object_set_new(o, "scope", json_string(res->board ? "board" : "architecture"));
	json_object_set_new(o, "routers", json_integer((json_int_t)res->routers));
	json_object_set_new(o, "canaries", json_integer((json_int_t)res->canaries));
	json_object_set_new(o, "judged", json_integer((json_int_t)res->judged));
	json_object_set_new(o, "regressed", json_integer((json_int_t)res->regressed));
	json_object_set_new(m, "tx", api_rollout_num(res->median_ratio_tx));
	json_object_set_new(m, "rx", api_rollout_num(res->median_ratio_rx));
	json_object_set_new(o, "median_ratio", m);
	return o;
}

json_t *api_rollout_override(const struct override *o)
{
	json_t *j = json_object();
	char *allow = xasprintf("%s/%s", o->version, o->cohort);
	json_object_set_new(j, "allow", api_str(allow));
	free(allow);
	json_object_set_new(j, "version", api_str(o->version));
	json_object_set_new(j, "cohort", api_str(o->cohort));
	json_object_set_new(j, "source", json_string(o->id > 0 ? "api" : "config"));
	json_object_set_new(j, "who", api_str(o->who));
	json_object_set_new(j, "at", api_time(o->at_ms));
	return j;
}

static unsigned api_rollout_dump(json_t *o, buf_t *out, unsigned status)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
	buf_puts(out, s ? s : "{}");
	buf_putc(out, '\n');
	free(s);
	json_decref(o);
	return status;
}

unsigned api_rollout(const struct api_rollout_req *req, buf_t *out)
{
	if (req->version == NULL || *req->version == '\0' || req->architecture == NULL ||
		*req->architecture == '\0')
		return api_rollout_dump(json_pack("{s:s}", "error",
						"version and architecture are required, e.g. "
						"/api/v1/rollout?version=7.22.3&architecture=tile"),
			out, 400);
	struct rollout_query q = { .version = req->version,
		.architecture = req->architecture,
		.board = req->board && *req->board ? req->board : NULL,
		.now_ms = req->now_ms };
	detector_view_t *v = detector_view(req->detector);
	struct rollout_result res;
	size_t nv;
	const struct detector_verdict *vs = detector_view_verdicts(v, &nv);
	rollout_decide(detector_view_rollout(v), vs, nv, &q, &res);
	json_t *o = json_object(), *reasons = json_array();
	json_object_set_new(o, "decision", json_string(rollout_decision_name(res.decision)));
	json_object_set_new(o, "cohort", api_rollout_cohort(&q, &res));
	json_object_set_new(o, "override", res.allow ? api_rollout_override(res.allow) : json_null());
	for (size_t i = 0; i < res.nreasons; i++)
		json_array_append_new(reasons, api_rollout_reason(&res.reasons[i]));
	json_object_set_new(o, "reasons", reasons);
	rollout_result_free(&res);
	detector_view_free(v);
	return api_rollout_dump(o, out, 200);
}

/* ---- overrides ---- */

static unsigned api_rollout_error(buf_t *out, unsigned status, const char *msg)
{
	return api_rollout_dump(json_pack("{s:s}", "error", msg), out, status);
}

/* {"overrides": [...]}: every override in force, [rollout] allow first. */
static unsigned api_rollout_list(const struct api_allow_req *req, buf_t *out)
{
	json_t *o = json_object(), *a = json_array();
	struct override *v = NULL;
	size_t n = rollout_overrides(detector_rollout(req->detector), &v);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, api_rollout_override(&v[i]));
	overrides_free(v, n);
	json_object_set_new(o, "overrides", a);
	json_object_set_new(o, "writable", json_boolean(req->user != NULL));
	return api_rollout_dump(o, out, 200);
}

/* After a change: the detector's guard takes the database's overrides at once. */
static void api_rollout_refresh(const struct api_allow_req *req)
{
	struct override *v = NULL;
	size_t n = 0;
	char *cause = NULL;
	if (overrides_list(req->database, &v, &n, &cause) < 0) {
		log_warn("rollout: the stored overrides changed but cannot be read back: %s", cause);
		free(cause);
		return;
	}
	if (detector_rollout(req->detector) != NULL)
		rollout_set_stored(detector_rollout(req->detector), v, n);
	overrides_free(v, n);
}

/* The version and cohort of a POST body {"version": V, "cohort": C[, "revoke": true]}, or of
 * a DELETE's query; NULL with a 400 in out when they are missing or not an allow. */
static json_t *api_rollout_body(const struct api_allow_req *req, buf_t *out, unsigned *status)
{
	json_error_t err;
	json_t *b = req->body_len > 0 || req->version == NULL
		? json_loadb(req->body ? req->body : "", req->body_len, JSON_REJECT_DUPLICATES, &err)
		: json_pack("{s:s, s:s?}", "version", req->version, "cohort", req->cohort);
	const char *version = NULL, *cohort = NULL;
	int revoke = 0;
	if (b == NULL ||
		json_unpack(b, "{s:s, s:s, s?b}", "version", &version, "cohort", &cohort, "revoke",
			&revoke) != 0 ||
		!conf_allow_ok(version, cohort)) {
		json_decref(b);
		*status = api_rollout_error(out, 400,
			"want JSON {\"version\": \"7.22.3\", \"cohort\": \"tile\"} (an architecture "
			"or a board; \"revoke\": true to remove it), as [rollout] allow = VERSION/COHORT");
		return NULL;
	}
	return b;
}

static unsigned api_rollout_change(
	const struct api_allow_req *req, bool revoke, const char *version, const char *cohort, buf_t *out)
{
	struct override want = { .version = (char *)version,
		.cohort = (char *)cohort,
		.who = (char *)req->user,
		.at_ms = req->now_ms },
			got;
	char *cause = NULL;
	int rc = revoke
		? overrides_revoke(req->database, version, cohort, req->user, req->now_ms, &got, &cause)
		: overrides_add(req->database, &want, &got, &cause);
	if (rc < 0) {
		log_error("rollout: %s %s/%s for %s: %s", revoke ? "revoking" : "allowing", version, cohort,
			req->user, cause);
		free(cause);
		return api_rollout_error(out, 500, "the database refused the change: see the daemon's log");
	}
	if (rc == 0 && revoke)
		return api_rollout_error(out, 404, "no stored override of that version for that cohort");
	if (rc == 1) {
		log_info("rollout: %s %s %s/%s", req->user, revoke ? "revoked" : "allowed", version, cohort);
		api_rollout_refresh(req);
	}
	json_t *o = json_object();
	json_object_set_new(o, revoke ? "revoked" : "override", api_rollout_override(&got));
	json_object_set_new(o, "changed", json_boolean(rc == 1));
	overrides_clear(&got);
	return api_rollout_dump(o, out, rc == 1 && !revoke ? 201 : 200);
}

unsigned api_rollout_allow(const struct api_allow_req *req, buf_t *out)
{
	if (strcmp(req->method, "GET") == 0 || strcmp(req->method, "HEAD") == 0)
		return api_rollout_list(req, out);
	if (req->user == NULL)
		return api_rollout_error(out, 403,
			"storing rollout overrides needs web authentication: set [web] user and "
			"password_file (wgwatch.conf(5)), or use [rollout] allow in the configuration");
	unsigned status = 0;
	json_t *b = api_rollout_body(req, out, &status);
	if (b == NULL)
		return status;
	const char *version = json_string_value(json_object_get(b, "version"));
	const char *cohort = json_string_value(json_object_get(b, "cohort"));
	bool revoke = strcmp(req->method, "DELETE") == 0 || json_is_true(json_object_get(b, "revoke"));
	status = api_rollout_change(req, revoke, version, cohort, out);
	json_decref(b);
	return status;
}
