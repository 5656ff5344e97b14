/* SPDX-License-Identifier: Apache-2.0 */
/* api_rollout: the rollout guard's decision as JSON (written with lib/jsonw), from a detector
 * view, and its overrides: listed, and stored or revoked for the authenticated web user (a
 * POST's body read with lib/jsonr). Only what the
 * verdicts, [rollout] and the stored overrides say goes out; router text is made valid UTF-8.
 * It writes the database only through store/overrides.c, and logs each change once. */
#include "config.h"
#include "web/api_rollout.h"
#include "web/api.h"

#include <stdlib.h>
#include <string.h>

#include "detector/rollout.h"
#include "lib/jsonr.h"
#include "lib/jsonw.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "store/overrides.h"

static void api_rollout_reason(buf_t *b, const struct rollout_reason *x)
{
	jsonw_object(b, NULL);
	jsonw_add(b, "kind", rollout_kind_name(x->kind));
	jsonw_text(b, "router", x->router);
	jsonw_text(b, "interface", x->interface);
	jsonw_text(b, "direction", x->direction);
	jsonw_real(b, "ratio", x->ratio, API_REAL_PREC);
	if (x->interface != NULL)
		jsonw_add(b, "method", outcome_method_name(x->method));
	else
		jsonw_null(b, "method");
	jsonw_bool(b, "final", x->final);
	jsonw_bool(b, "canary", x->canary);
	jsonw_text(b, "text", x->text);
	jsonw_end_object(b);
}

static void api_rollout_cohort(buf_t *b, const struct rollout_query *q, const struct rollout_result *res)
{
	jsonw_object(b, "cohort");
	jsonw_text(b, "to_version", q->version);
	jsonw_text(b, "architecture", q->architecture);
	jsonw_text(b, "board", res->board);
	jsonw_add(b, "scope", res->board ? "board" : "architecture");
	jsonw_int(b, "routers", (int64_t)res->routers);
	jsonw_int(b, "canaries", (int64_t)res->canaries);
	jsonw_int(b, "judged", (int64_t)res->judged);
	jsonw_int(b, "regressed", (int64_t)res->regressed);
	jsonw_object(b, "median_ratio");
	jsonw_real(b, "tx", res->median_ratio_tx, API_REAL_PREC);
	jsonw_real(b, "rx", res->median_ratio_rx, API_REAL_PREC);
	jsonw_end_object(b);
	jsonw_end_object(b);
}

/* One override: {allow, version, cohort, source "config"|"api", who, at}. */
static void api_rollout_override(buf_t *b, const char *key, const struct override *o)
{
	jsonw_object(b, key);
	char *allow = xasprintf("%s/%s", o->version, o->cohort);
	jsonw_text(b, "allow", allow);
	free(allow);
	jsonw_text(b, "version", o->version);
	jsonw_text(b, "cohort", o->cohort);
	jsonw_add(b, "source", o->id > 0 ? "api" : "config");
	jsonw_text(b, "who", o->who);
	api_put_time(b, "at", o->at_ms);
	jsonw_end_object(b);
}

/* The document ends in a newline; status passes through. */
static unsigned api_rollout_done(buf_t *out, unsigned status)
{
	buf_putc(out, '\n');
	return status;
}

static unsigned api_rollout_error(buf_t *out, unsigned status, const char *msg)
{
	jsonw_object(out, NULL);
	jsonw_text(out, "error", msg);
	jsonw_end_object(out);
	return api_rollout_done(out, status);
}

unsigned api_rollout(const struct api_rollout_req *req, buf_t *out)
{
	if (req->version == NULL || *req->version == '\0' || req->architecture == NULL ||
		*req->architecture == '\0')
		return api_rollout_error(out, 400,
			"version and architecture are required, e.g. "
			"/api/v1/rollout?version=7.22.3&architecture=tile");
	struct rollout_query q = { .version = req->version,
		.architecture = req->architecture,
		.board = req->board && *req->board ? req->board : NULL,
		.now_ms = req->now_ms };
	detector_view_t *v = detector_view(req->detector);
	struct rollout_result res;
	size_t nv;
	const struct detector_verdict *vs = detector_view_verdicts(v, &nv);
	rollout_decide(detector_view_rollout(v), vs, nv, &q, &res);
	jsonw_object(out, NULL);
	jsonw_add(out, "decision", rollout_decision_name(res.decision));
	api_rollout_cohort(out, &q, &res);
	if (res.allow != NULL)
		api_rollout_override(out, "override", res.allow);
	else
		jsonw_null(out, "override");
	jsonw_array(out, "reasons");
	for (size_t i = 0; i < res.nreasons; i++)
		api_rollout_reason(out, &res.reasons[i]);
	jsonw_end_array(out);
	jsonw_end_object(out);
	rollout_result_free(&res);
	detector_view_free(v);
	return api_rollout_done(out, 200);
}

/* ---- overrides ---- */

/* {"overrides": [...]}: every override in force, [rollout] allow first. */
static unsigned api_rollout_list(const struct api_allow_req *req, buf_t *out)
{
	struct override *v = NULL;
	size_t n = rollout_overrides(detector_rollout(req->detector), &v);
	jsonw_object(out, NULL);
	jsonw_array(out, "overrides");
	for (size_t i = 0; i < n; i++)
		api_rollout_override(out, NULL, &v[i]);
	jsonw_end_array(out);
	overrides_free(v, n);
	jsonw_bool(out, "writable", req->user != NULL);
	jsonw_end_object(out);
	return api_rollout_done(out, 200);
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

/* What a POST body {"version": V, "cohort": C[, "revoke": true]}, or a DELETE's query, asks. */
struct api_rollout_ask {
	const char *version, *cohort;
	bool revoke;
};

/* The ask of req (its strings in d, or req's own) into *a: 0, or -1 with a 400 in out when the
 * version or cohort is missing, revoke is not a boolean, or they are not an allow. */
static int api_rollout_body(
	const struct api_allow_req *req, jsonr_t *d, struct api_rollout_ask *a, buf_t *out, unsigned *status)
{
	*a = (struct api_rollout_ask){ .version = req->version, .cohort = req->cohort };
	bool ok = true;
	if (req->body_len > 0 || req->version == NULL) {
		const jsonr_node_t *b = jsonr_parse(d, req->body ? req->body : "", req->body_len);
		const jsonr_node_t *revoke = jsonr_get(b, "revoke");
		a->version = jsonr_str(jsonr_get(b, "version"));
		a->cohort = jsonr_str(jsonr_get(b, "cohort"));
		ok = revoke == NULL || jsonr_bool(revoke, &a->revoke);
	}
	if (!ok || a->version == NULL || a->cohort == NULL || !conf_allow_ok(a->version, a->cohort)) {
		*status = api_rollout_error(out, 400,
			"want JSON {\"version\": \"7.22.3\", \"cohort\": \"tile\"} (an architecture "
			"or a board; \"revoke\": true to remove it), as [rollout] allow = VERSION/COHORT");
		return -1;
	}
	return 0;
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
	jsonw_object(out, NULL);
	api_rollout_override(out, revoke ? "revoked" : "override", &got);
	jsonw_bool(out, "changed", rc == 1);
	jsonw_end_object(out);
	overrides_clear(&got);
	return api_rollout_done(out, rc == 1 && !revoke ? 201 : 200);
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
	jsonr_t *d = jsonr_create();
	struct api_rollout_ask a;
	if (api_rollout_body(req, d, &a, out, &status) == 0)
		status = api_rollout_change(
			req, strcmp(req->method, "DELETE") == 0 || a.revoke, a.version, a.cohort, out);
	jsonr_destroy(d);
	return status;
}
