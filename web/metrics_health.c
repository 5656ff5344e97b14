/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_health: the /metrics families of a router's health (sensors, memory, disk, the
 * optional REST menus failing or not), of its peers' detail (endpoint, allowed addresses,
 * disabled, handshake time), from the newest sample, and of its newest CPU profile and probes.
 * Like metrics.c it reads only samples: never a key, never I/O; router text is escaped. */
#include "config.h"
#include "web/metrics_int.h"

#include <stdio.h>
#include <string.h>

void metrics_health_sensor(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && k < s->nsensors; k++) {
		if (s->sensors[k].unit != (enum sample_unit)fam->off)
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "sensor", s->sensors[k].name);
		metrics_end_double(c, i, s->sensors[k].value);
	}
}

void metrics_health_bytes(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	int64_t v;
	if (s == NULL)
		return;
	memcpy(&v, (const char *)s + fam->off, sizeof(v));
	if (v < 0)
		return;
	metrics_begin(c, fam, i);
	metrics_end_u64(c, i, (uint64_t)v);
}

void metrics_health_menu(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && k < s->nmenus; k++) {
		metrics_begin(c, fam, i);
		metrics_label(c->out, "menu", s->menus[k].path);
		metrics_end_u64(c, i, s->menus[k].why == NULL ? 1 : 0);
	}
}

/* "198.51.100.7:51209", "[2001:db8::1]:51209", or "" when the peer has none. */
static void metrics_health_endpoint(const struct sample_peer *p, char *out, size_t size)
{
	out[0] = '\0';
	if (p->endpoint == NULL || p->endpoint[0] == '\0')
		return;
	bool v6 = strchr(p->endpoint, ':') != NULL;
	snprintf(out, size, "%s%s%s:%d", v6 ? "[" : "", p->endpoint, v6 ? "]" : "", p->endpoint_port);
}

void metrics_health_peer_info(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && s->have_peers && k < s->npeers; k++) {
		char ep[80];
		metrics_health_endpoint(&s->peers[k], ep, sizeof(ep));
		metrics_begin_seg(c, i, true, k);
		metrics_label(c->out, "endpoint", ep);
		metrics_label(c->out, "allowed_address", s->peers[k].allowed ? s->peers[k].allowed : "");
		metrics_end_u64(c, i, 1);
	}
}

void metrics_health_peer_disabled(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && s->have_peers && k < s->npeers; k++) {
		metrics_begin_seg(c, i, true, k);
		metrics_end_u64(c, i, s->peers[k].disabled ? 1 : 0);
	}
}

void metrics_health_handshake_time(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const sample_t *s = metrics_current(r);
	for (size_t k = 0; s != NULL && s->have_peers && k < s->npeers; k++) {
		if (s->peers[k].last_handshake_ms < 0)
			continue;
		metrics_begin_seg(c, i, true, k);
		metrics_end_double(c, i, (double)(s->time_ms - s->peers[k].last_handshake_ms) / 1000.0);
	}
}

/* The newest CPU profile's per-core rows (whole-router rows have no core to label), 0..1. */
void metrics_profile_usage(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	const profile_t *p = r->profile;
	for (size_t k = 0; p != NULL && k < p->nrows; k++) {
		char core[16];
		if (p->rows[k].cpu < 0)
			continue;
		snprintf(core, sizeof(core), "%d", p->rows[k].cpu);
		metrics_begin(c, fam, i);
		metrics_label(c->out, "core", core); /* as wgwatch_cpu_core_load_ratio's */
		metrics_label(c->out, "name", p->rows[k].name);
		metrics_end_double(c, i, p->rows[k].usage / 100.0);
	}
}

/* The newest probe of each direction: what the tunnel delivered, bytes/s (the base unit). */
void metrics_probe_delivered(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	for (int k = 0; k < 2; k++) {
		if (r->probe[k] == NULL)
			continue;
		metrics_begin(c, fam, i);
		metrics_label(c->out, "direction", r->probe[k]->direction);
		metrics_end_double(c, i, r->probe[k]->delivered_bps / 8);
	}
}
