/* SPDX-License-Identifier: Apache-2.0 */
/* simdiag: the arguments of /tool/profile and /tool/bandwidth-test as RouterOS's console reads
 * them (JSON strings; unknown parameter, invalid value), the refusals a scenario asks for
 * (diag_refuse), and the REST server's 60 s cut; the replies are simprof.c's and simbtest.c's.
 * Never logs, never does I/O. */
#include "config.h"
#include "sim/simdiag.h"
#include "sim/simdiag_int.h"
#include "lib/jsonr.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REST_CUT 60 /* real seconds: the REST server ends every request (Session closed) */

struct arg_err {
	char detail[128];
};

bool simdiag_is_command(const char *path)
{
	return strcmp(path, "tool/profile") == 0 || strcmp(path, "tool/bandwidth-test") == 0;
}

static void simdiag_reply(struct simresp *out, int status, const char *detail)
{
	static const char *const msg[] = { [4] = "Bad Request", [5] = "Internal Server Error" };
	out->status = status;
	buf_reset(&out->body);
	buf_printf(&out->body, "{\"detail\":\"%s\",\"error\":%d,\"message\":\"%s\"}", detail, status,
		msg[status / 100]);
}

/* A value as the console would read it: strings as they are, numbers in decimal. */
static const char *simdiag_value(const jsonr_node_t *v, char *tmp, size_t size)
{
	int64_t i;
	bool b;
	if (jsonr_is_string(v))
		return jsonr_str(v);
	if (jsonr_int(v, &i)) {
		snprintf(tmp, size, "%lld", (long long)i);
		return tmp;
	}
	return jsonr_bool(v, &b) ? (b ? "true" : "false") : NULL;
}

/* "300M", "50k", "1G", "1000000": decimal bits/s. */
static int simdiag_speed(const char *v, double *out)
{
	char *end;
	double d = strtod(v, &end);
	double mult = *end == 'k' || *end == 'K' ? 1e3 : *end == 'M' ? 1e6 : *end == 'G' ? 1e9 : 1;
	if (mult > 1)
		end++;
	if (end == v || *end || !(d >= 0) || d * mult > 1e11)
		return -1;
	*out = d * mult;
	return 0;
}

static int simdiag_int(const char *v, int min, int max, int *out)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (end == v || *end || n < min || n > max)
		return -1;
	*out = (int)n;
	return 0;
}

/* One profile argument: 1 taken, 0 unknown, -1 bad value. */
static int simdiag_prof_arg(const simrouter_t *r, struct simprof_args *a, const char *k, const char *v)
{
	if (strcmp(k, "cpu") == 0) {
		a->cpu = strcmp(v, "all") == 0 ? SIMPROF_ALL : strcmp(v, "total") == 0 ? SIMPROF_TOTAL : -3;
		return a->cpu != -3 || simdiag_int(v, 0, simrouter_group(r)->cores - 1, &a->cpu) == 0 ? 1
												      : -1;
	}
	if (strcmp(k, "duration") == 0)
		return scenario_parse_duration(v, &a->duration) == 0 ? 1 : -1;
	if (strcmp(k, "freeze-frame-interval") == 0)
		return scenario_parse_duration(v, &a->interval) == 0 && a->interval >= 0.02 &&
				a->interval <= 30
			? 1
			: -1;
	return strcmp(k, ".proplist") == 0 || strcmp(k, "as-value") == 0 || strcmp(k, "without-paging") == 0;
}

static int simdiag_copy(char *dst, size_t size, const char *v)
{
	if (!*v || strlen(v) >= size)
		return -1;
	snprintf(dst, size, "%s", v);
	return 0;
}

static int simdiag_bool(const char *v, bool *out)
{
	*out = strcmp(v, "yes") == 0 || strcmp(v, "true") == 0;
	return *out || strcmp(v, "no") == 0 || strcmp(v, "false") == 0 ? 0 : -1;
}

static int simdiag_dir(const char *v, enum simbtest_dir *d)
{
	*d = strcmp(v, "receive") == 0       ? SIMBTEST_RECEIVE
		: strcmp(v, "transmit") == 0 ? SIMBTEST_TRANSMIT
		: strcmp(v, "both") == 0     ? SIMBTEST_BOTH
					     : 0;
	return *d ? 0 : -1;
}

/* One bandwidth-test argument: 1 taken, 0 unknown, -1 bad value. */
static int simdiag_btest_arg(struct simbtest_args *a, const char *k, const char *v)
{
	int rc = 0;
	if (strcmp(k, "address") == 0)
		rc = simdiag_copy(a->address, sizeof(a->address), v);
	else if (strcmp(k, "protocol") == 0)
		rc = (a->tcp = strcmp(v, "tcp") == 0) || strcmp(v, "udp") == 0 ? 0 : -1;
	else if (strcmp(k, "direction") == 0)
		rc = simdiag_dir(v, &a->dir);
	else if (strcmp(k, "local-tx-speed") == 0 || strcmp(k, "remote-tx-speed") == 0)
		rc = simdiag_speed(v, k[0] == 'l' ? &a->local_bps : &a->remote_bps);
	else if (strcmp(k, "duration") == 0)
		rc = scenario_parse_duration(v, &a->duration);
	else if (strcmp(k, "local-udp-tx-size") == 0 || strcmp(k, "remote-udp-tx-size") == 0)
		rc = simdiag_int(v, 28, 64000, &a->udp_size[k[0] == 'l']);
	else if (strcmp(k, "connection-count") == 0)
		rc = simdiag_int(v, 1, 255, &a->connections);
	else if (strcmp(k, "random-data") == 0)
		rc = simdiag_bool(v, &a->random_data);
	else if (strcmp(k, "user") == 0 || strcmp(k, "password") == 0)
		rc = strlen(v) <= 32 ? 0 : -1;
	else if (strcmp(k, "interval") != 0 && strcmp(k, "once") != 0 && strcmp(k, ".proplist") != 0)
		return 0;
	if (rc == 0 && strcmp(k, "user") == 0)
		a->user = v;
	else if (rc == 0 && strcmp(k, "password") == 0)
		a->password = v;
	return rc < 0 ? -1 : 1;
}

/* Every key of the JSON object j through one of the argument readers; -1 with e->detail. */
static int simdiag_args(const jsonr_node_t *j, const simrouter_t *r, struct simprof_args *pa,
	struct simbtest_args *ba, struct arg_err *e)
{
	char tmp[32];
	for (size_t i = 0; i < jsonr_size(j); i++) {
		const char *k = jsonr_key(j, i), *s = simdiag_value(jsonr_at(j, i), tmp, sizeof(tmp));
		int rc = !s ? -1 : pa ? simdiag_prof_arg(r, pa, k, s) : simdiag_btest_arg(ba, k, s);
		if (rc <= 0) {
			snprintf(e->detail, sizeof(e->detail),
				rc == 0 ? "unknown parameter %s" : "invalid value for argument %s", k);
			return -1;
		}
	}
	return 0;
}

/* The refusal diag_refuse asks for, if any, for command cmd ("profile"). True if refused. */
static bool simdiag_refused(const simrouter_t *r, double t, const char *cmd, struct simresp *out)
{
	char detail[96];
	switch (simrouter_state(r, t)->refuse) {
	case SC_REFUSE_POLICY: simdiag_reply(out, 500, "not enough permissions (9)"); return true;
	case SC_REFUSE_OLD:
		snprintf(detail, sizeof(detail), "no such command or directory (%s)", cmd);
		simdiag_reply(out, 400, detail);
		return true;
	case SC_REFUSE_DEVICE_MODE:
		if (strcmp(cmd, "bandwidth-test") != 0)
			return false; /* device-mode has no profile feature */
		simdiag_reply(out, 400, "not allowed by device-mode");
		return true;
	default: return false;
	}
}

static void simdiag_run(
	const simrouter_t *r, double t, double scale, const jsonr_node_t *j, bool prof, struct simresp *out)
{
	struct simprof_args pa = { .cpu = SIMPROF_TOTAL, .duration = INFINITY, .interval = 1 };
	struct simbtest_args ba = { .dir = SIMBTEST_RECEIVE,
		.duration = INFINITY,
		.udp_size = { 1500, 1500 },
		.connections = 20,
		.user = "",
		.password = "" };
	struct arg_err e = { .detail = "" };
	double duration;
	if (simdiag_args(j, r, prof ? &pa : NULL, &ba, &e) < 0) {
		simdiag_reply(out, 400, e.detail);
		return;
	}
	if (!prof && !ba.address[0]) {
		simdiag_reply(out, 400, "missing value(s) of argument(s) address");
		return;
	}
	duration = prof ? pa.duration : ba.duration;
	if (!(duration < REST_CUT)) { /* runs until stopped: the REST server cuts it */
		out->hold = REST_CUT;
		simdiag_reply(out, 400, "Session closed");
		return;
	}
	out->status = 200;
	buf_reset(&out->body);
	if (prof) {
		simprof_reply(r, t, scale, &pa, &out->body);
		out->hold = duration;
	} else
		simbtest_reply(r, t, scale, &ba, &out->body, &out->hold);
}

void simdiag_handle(const simrouter_t *r, double t, double scale, const struct simreq *q, struct simresp *out)
{
	const char *cmd = strrchr(q->path, '/') + 1;
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = q->body_len ? jsonr_parse(d, q->body, q->body_len) : jsonr_parse(d, "{}", 2);
	out->hold = 0;
	if (!simdiag_refused(r, t, cmd, out)) {
		if (!jsonr_is_object(j)) /* a repeated key too, as no console would take one */
			simdiag_reply(out, 400, "Failed to parse json");
		else
			simdiag_run(r, t, scale > 0 ? scale : 1, j, strcmp(cmd, "profile") == 0, out);
	}
	jsonr_destroy(d);
}
