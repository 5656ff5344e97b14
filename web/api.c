/* api: the JSON API (jansson). Builds documents from the fleet view under its lock.
 * Only public fields go out: names, labels, what routers reported and our own reasons;
 * never a password, community or key from the config. Router text is made valid UTF-8. */
#include "config.h"
#include "api.h"

#include <jansson.h>
#include <stdlib.h>
#include <time.h>

#include "metrics.h"

/* A JSON string of s with invalid UTF-8 replaced, or null for NULL. */
static json_t *api_str(const char *s)
{
	if (s == NULL)
		return json_null();
	buf_t b;
	buf_init(&b);
	metrics_put_utf8(&b, s);
	json_t *j = json_stringn(b.data ? b.data : "", b.len);
	buf_free(&b);
	return j ? j : json_null();
}

/* RFC 3339 UTC ("2024-05-01T12:00:00Z") of a wall clock in ms, or null when 0. */
static json_t *api_time(int64_t ms)
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

static json_t *api_labels(const conf_router_t *cr)
{
	json_t *o = json_object();
	for (size_t k = 0; k < cr->nlabels; k++) {
		buf_t key;
		buf_init(&key);
		metrics_put_utf8(&key, cr->labels[k].key);
		json_object_set_new(o, key.data ? key.data : "", api_str(cr->labels[k].value));
		buf_free(&key);
	}
	return o;
}

static json_t *api_router(const fleet_router_t *r)
{
	const sample_t *s = r->last;
	json_t *o = json_object();
	json_object_set_new(o, "name", api_str(r->conf->name));
	json_object_set_new(o, "up", json_boolean(r->up));
	json_object_set_new(o, "version", api_str(s ? s->version : NULL));
	json_object_set_new(o, "firmware", api_str(s ? s->firmware : NULL));
	json_object_set_new(o, "board", api_str(s ? s->board : NULL));
	json_object_set_new(o, "architecture", api_str(s ? s->architecture : NULL));
	json_object_set_new(o, "cores", json_integer(s ? (json_int_t)s->ncores : 0));
	json_object_set_new(o, "last_poll", api_time(r->polled ? r->last_poll_ms : 0));
	json_object_set_new(o, "last_error", api_str(r->last_error));
	json_object_set_new(o, "labels", api_labels(r->conf));
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
