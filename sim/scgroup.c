/* SPDX-License-Identifier: Apache-2.0 */
/* scgroup: the keys only a [group] of a scenario has (count, board, wg, labels...) and their
 * values; the keys the timeline may change too are scenario.c's. Never logs: a bad value is
 * a return code that scenario.c turns into a FILE:LINE message. */
#include "config.h"
#include "sim/scenario.h"
#include "lib/text.h"
#include "sim/scenario_int.h"
#include "sim/simroute.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int scgroup_parse_int(const char *v, long min, long max, int *out)
{
	char *end;
	errno = 0;
	long n = strtol(v, &end, 10);
	if (end == v || *end || errno || n < min || n > max)
		return -1;
	*out = (int)n;
	return 0;
}

static int scgroup_parse_size(const char *v, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (end == v || errno || v[0] == '-')
		return -1;
	uint64_t mult = 1;
	if (*end == 'K' || *end == 'k')
		mult = 1024, end++;
	else if (*end == 'M')
		mult = 1024 * 1024, end++;
	else if (*end == 'G')
		mult = 1024ULL * 1024 * 1024, end++;
	if (*end || n == 0 || n > (1ULL << 50) / mult)
		return -1;
	*out = n * mult;
	return 0;
}

static int scgroup_duration(const char *v, double min, double max, double *out)
{
	double d;
	if (scenario_parse_duration(v, &d) < 0 || !(d >= min && d <= max))
		return -1;
	*out = d;
	return 0;
}

/* growth: percent a week, 0..100, compound ("2" or "2%"). */
static int scgroup_growth(const char *v, double *out)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v)
		return -1;
	end += *end == '%';
	if (*end != '\0' || !(x >= 0 && x <= 100))
		return -1;
	*out = x / 100;
	return 0;
}

int scgroup_parse_wg(struct sc_group *g, const char *v)
{
	char *copy = xstrdup(v), *rest = copy, *t;
	int rc = 0;
	for (size_t i = 0; i < g->nwg; i++)
		free(g->wg[i].name);
	free(g->wg);
	g->wg = NULL, g->nwg = 0;
	if (strcmp(v, "none") == 0)
		rest = NULL;
	while ((t = scenario_split_next(&rest, ',')) != NULL) {
		char *colon = strrchr(t, ':'); /* the last: names may hold colons, "wg: Hub (NMS):4" */
		int np;
		if (!colon || scgroup_parse_int(text_trim(colon + 1), 0, 10000, &np) < 0) {
			rc = -1;
			break;
		}
		*colon = '\0';
		t = text_trim(t);
		if (!*t || strlen(t) > 32) {
			rc = -1;
			break;
		}
		g->wg = xreallocarray(g->wg, g->nwg + 1, sizeof(*g->wg));
		g->wg[g->nwg++] = (struct sc_wg){ .name = xstrdup(t), .npeers = np };
	}
	free(copy);
	return rc;
}

/* "site=x, role=y": names [A-Za-z_][A-Za-z0-9_]*, values without , " \ or spaces. */
static int scgroup_parse_labels(struct sc_group *g, const char *v)
{
	buf_t out;
	buf_init(&out);
	char *copy = xstrdup(v), *rest = copy, *t;
	int rc = 0;
	while ((t = scenario_split_next(&rest, ',')) != NULL) {
		char *eq = strchr(t, '=');
		if (!eq) {
			rc = -1;
			break;
		}
		*eq = '\0';
		char *k = text_trim(t), *val = text_trim(eq + 1);
		bool ok = (isalpha((unsigned char)k[0]) || k[0] == '_') && *val;
		for (char *c = k; *c; c++)
			ok = ok && (isalnum((unsigned char)*c) || *c == '_');
		for (char *c = val; *c; c++)
			ok = ok && !strchr(",\"\\ \t", *c);
		if (!ok) {
			rc = -1;
			break;
		}
		buf_printf(&out, "%s%s=%s", out.len ? "," : "", k, val);
	}
	free(copy);
	free(g->labels);
	g->labels = rc == 0 && out.len ? buf_steal(&out, NULL) : NULL;
	buf_free(&out);
	return rc;
}

int scgroup_set_str(char **dst, const char *v)
{
	if (!*v || strlen(v) > 64 || strchr(v, '"') || strchr(v, '\\'))
		return -1;
	free(*dst);
	*dst = xstrdup(v);
	return 0;
}

/* "resource-array, snmp-ros6, more-interfaces" into enum sc_shape bits; "none" clears. */
static int scgroup_parse_shape(struct sc_group *g, const char *v)
{
	static const struct {
		const char *word;
		unsigned bit;
	} words[] = {
		{ "resource-array", SC_SHAPE_RESOURCE_ARRAY },
		{ "snmp-ros6", SC_SHAPE_SNMP_ROS6 },
		{ "more-interfaces", SC_SHAPE_MORE_IFACES },
		{ "no-route-check", SC_SHAPE_NO_ROUTE_CHECK },
		{ "lo-type-24", SC_SHAPE_LO_TYPE_24 },
	};
	char *copy = xstrdup(v), *rest = strcmp(v, "none") == 0 ? NULL : copy, *t;
	int rc = 0;
	g->shape = 0;
	while (rc == 0 && (t = scenario_split_next(&rest, ',')) != NULL) {
		size_t i = 0;
		t = text_trim(t);
		while (i < sizeof(words) / sizeof(words[0]) && strcmp(t, words[i].word) != 0)
			i++;
		if (i == sizeof(words) / sizeof(words[0]))
			rc = -1;
		else
			g->shape |= words[i].bit;
	}
	free(copy);
	return rc;
}

/* Keys only a group has (not changeable on the timeline). 0 ok, -1 bad value, -2 unknown. */
int scgroup_set(struct sc_group *g, const char *k, const char *v)
{
	if (strcmp(k, "count") == 0)
		return scgroup_parse_int(v, 1, 65535, &g->count);
	if (strcmp(k, "board") == 0)
		return scgroup_set_str(&g->board, v);
	if (strcmp(k, "architecture") == 0)
		return scgroup_set_str(&g->arch, v);
	if (strcmp(k, "cpu") == 0)
		return scgroup_set_str(&g->cpu_model, v);
	if (strcmp(k, "cores") == 0)
		return scgroup_parse_int(v, 1, SC_MAX_CORES, &g->cores);
	if (strcmp(k, "memory") == 0)
		return scgroup_parse_size(v, &g->memory);
	if (strcmp(k, "serial") == 0)
		return scgroup_set_str(&g->model_serial, v);
	if (strcmp(k, "labels") == 0)
		return scgroup_parse_labels(g, v);
	if (strcmp(k, "wg") == 0)
		return scgroup_parse_wg(g, v);
	if (strcmp(k, "idle_peers") == 0)
		return scgroup_parse_int(v, 0, 10000, &g->idle_peers);
	if (strcmp(k, "disabled_peers") == 0)
		return scgroup_parse_int(v, 0, 10000, &g->disabled_peers);
	if (strcmp(k, "fans") == 0)
		return scgroup_parse_int(v, 0, 4, &g->fans);
	if (strcmp(k, "psus") == 0)
		return scgroup_parse_int(v, 0, 2, &g->psus);
	if (strcmp(k, "failed_psu") == 0)
		return scgroup_parse_int(v, 0, 2, &g->failed_psu);
	if (strcmp(k, "health") == 0) {
		static const char *const shapes[] = { "v7", "v6", "none" };
		for (int i = 0; i < 3; i++)
			if (strcmp(v, shapes[i]) == 0)
				g->health = (enum sc_health)(SC_HEALTH_V7 + i);
		return g->health != SC_HEALTH_DEFAULT ? 0 : -1;
	}
	if (strcmp(k, "comment_every") == 0)
		return scgroup_parse_int(v, 0, 10000, &g->comment_every);
	if (strcmp(k, "peer_prefix") == 0)
		return scgroup_set_str(&g->peer_prefix, v);
	if (strcmp(k, "vlans") == 0)
		return scgroup_parse_int(v, 0, 4094, &g->vlans);
	if (strcmp(k, "packet_size") == 0)
		return scgroup_parse_int(v, 64, 65535, &g->packet_size);
	if (strcmp(k, "uptime") == 0)
		return scenario_parse_duration(v, &g->uptime0);
	if (strcmp(k, "boot_time") == 0)
		return scenario_parse_duration(v, &g->boot_time);
	if (strcmp(k, "load_jitter") == 0)
		return scgroup_parse_int(v, 0, 50, &g->load_jitter);
	if (strcmp(k, "drip_every") == 0)
		return scenario_parse_duration(v, &g->drip_every) < 0 || g->drip_every < 0.001 ||
				g->drip_every > 3600
			? -1
			: 0;
	if (strcmp(k, "wave_period") == 0)
		return scgroup_duration(v, 1, 1e9, &g->wave_period);
	if (strcmp(k, "growth") == 0)
		return scgroup_growth(v, &g->growth);
	if (strcmp(k, "slot") == 0)
		return scgroup_duration(v, 0.001, 60, &g->slot);
	if (strcmp(k, "noise_every") == 0)
		return scgroup_duration(v, 0.001, 86400, &g->noise_every);
	if (strcmp(k, "load_window") == 0)
		return scgroup_duration(v, 0, 10, &g->load_window);
	if (strcmp(k, "shape") == 0)
		return scgroup_parse_shape(g, v);
	if (strcmp(k, "bridge_name") == 0)
		return scgroup_set_str(&g->bridge_name, v);
	if (strcmp(k, "routes") == 0) {
		if (simroute_valid(v) < 0)
			return -1;
		free(g->routes);
		g->routes = xstrdup(v);
		return 0;
	}
	if (strcmp(k, "snmp_restart_every") == 0)
		return scgroup_duration(v, 0, 1e9, &g->snmp_restart_every);
	if (strcmp(k, "tls") == 0) {
		g->tls = strcmp(v, "yes") == 0;
		return g->tls || strcmp(v, "no") == 0 ? 0 : -1;
	}
	return scdiag_group_set(g, k, v);
}
