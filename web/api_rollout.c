/* api_rollout: the rollout guard's decision as JSON (jansson), from a detector view. Only what
 * the verdicts and [rollout] say goes out; router text is made valid UTF-8. */
#include "config.h"
#include "web/api_rollout.h"
#include "web/api.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "detector/rollout.h"

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
		o, "method", x->interface ? json_string(detector_method_name(x->method)) : json_null());
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
	rollout_decide_view(v, &q, &res);
	json_t *o = json_object(), *reasons = json_array();
	json_object_set_new(o, "decision", json_string(rollout_decision_name(res.decision)));
	json_object_set_new(o, "cohort", api_rollout_cohort(&q, &res));
	json_object_set_new(o, "override", api_str(res.allow));
	for (size_t i = 0; i < res.nreasons; i++)
		json_array_append_new(reasons, api_rollout_reason(&res.reasons[i]));
	json_object_set_new(o, "reasons", reasons);
	rollout_result_free(&res);
	detector_view_free(v);
	return api_rollout_dump(o, out, 200);
}
