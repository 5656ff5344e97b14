/* SPDX-License-Identifier: Apache-2.0 */
/* simbtest: the records of /tool/bandwidth-test as RouterOS's REST server returns them (one
 * JSON array at the end, a record a second, the last "done testing"). The test server sits
 * behind a WireGuard peer whose allowed-address holds the address; what the tunnel delivers
 * is the CPU model's capacity for that interface and direction (simrouter_capacity): a clean
 * tunnel of its own with that interface's costs. Pure: no I/O, no clock. */
#include "config.h"
#include "sim/simdiag_int.h"
#include "sim/simrest.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LINE_BPS     1e9 /* what "unlimited" sends: the router's gigabit port */
#define CONNECT_WAIT 2   /* real seconds before "can not connect" */
#define AUTH_WAIT    1   /* real seconds before "authentication failed" */
#define AVG_WINDOW   10  /* the *-10-second-average */

/* One direction of a running test: bits/s delivered each second so far. */
struct half {
	bool on;
	double offered;
	double got[60];
	int size; /* UDP packet size, bytes */
};

/* The wg interface whose active peer's allowed-address (simmenu: 10.(64+I).(N/250).(N%250+2)/32,
 * 172.(16+I).(N%250).0/24) holds addr; -1 if none. */
static int simbtest_route(const simrouter_t *r, const char *addr)
{
	unsigned a, b, c, d;
	char tail;
	if (sscanf(addr, "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4 || b > 255 || c > 255 || d > 255)
		return -1;
	for (int p = 0; p < simrouter_npeers(r); p++) {
		int f = simrouter_peer_iface(r, p), n = simrouter_peer_num(r, p);
		bool host = a == 10 && b == 64u + (unsigned)f && c == (unsigned)n / 250 &&
			d == (unsigned)n % 250 + 2;
		bool net = a == 172 && b == 16u + (unsigned)f && c == (unsigned)n % 250;
		if ((host || net) && !simrouter_peer_idle(r, p))
			return f;
	}
	return -1;
}

/* ,"k":"N" or, pct, ,"k":"N%" */
static void simbtest_key(buf_t *out, const char *k, double v, bool pct)
{
	buf_printf(out, ",\"%s\":\"%.0f%s\"", k, v, pct ? "%" : "");
}

/* rx-* or tx-* of second s (0: connecting, all 0). */
static void simbtest_rates(buf_t *out, const char *p, const struct half *h, int s)
{
	double cur = s ? h->got[s - 1] : 0, tot = 0, ten = 0;
	for (int i = 0; i < s; i++)
		tot += h->got[i] / s;
	for (int i = s > AVG_WINDOW ? s - AVG_WINDOW : 0; i < s; i++)
		ten += h->got[i] / (s < AVG_WINDOW ? s : AVG_WINDOW);
	buf_printf(out, ",\"%s-10-second-average\":\"%.0f\",\"%s-current\":\"%.0f\"", p, ten, p, cur);
	buf_printf(out, ",\"%s-size\":\"%d\",\"%s-total-average\":\"%.0f\"", p, h->size, p, tot);
}

static double simbtest_lost(const struct half *h, int s)
{
	return s && h->on ? floor(fmax(h->offered - h->got[s - 1], 0) / 8 / h->size) : 0;
}

static const char *const dir_names[] = { "", "receive", "transmit", "both" };

/* Record s; cpu[] the local load of each second, NAN before it is shown. */
static void simbtest_rec(buf_t *out, const simrouter_t *r, const struct simbtest_args *a,
	const struct half h[2], int s, const double *cpu, const char *status)
{
	unsigned shape = simrouter_group(r)->diag_shape;
	bool pct = shape & SC_DIAG_USAGE_PERCENT;
	bool loss = !a->tcp && (h[0].on || (shape & SC_DIAG_TX_LOSS));
	char dur[32];
	buf_printf(out, "%s{\".section\":\"%d\",\"connection-count\":\"%d\",\"direction\":\"%s\"",
		s ? "," : "", s, a->connections, dir_names[a->dir]);
	if (s) {
		simrest_duration(s, dur, sizeof(dur));
		buf_printf(out, ",\"duration\":\"%s\"", dur);
	}
	if (s >= 2)
		simbtest_key(out, "local-cpu-load", cpu[s - 1], pct);
	if (loss)
		simbtest_key(out, "lost-packets",
			simbtest_lost(&h[0], s) + (shape & SC_DIAG_TX_LOSS ? simbtest_lost(&h[1], s) : 0),
			false);
	buf_printf(out, ",\"random-data\":\"%s\"", a->random_data ? "true" : "false");
	if (s >= 2)
		simbtest_key(
			out, "remote-cpu-load", 3 + (double)(simrouter_hash(r, 77, (uint64_t)s) % 5), pct);
	if (h[0].on)
		simbtest_rates(out, "rx", &h[0], s);
	buf_printf(out, ",\"status\":\"%s\"", status);
	if (h[1].on)
		simbtest_rates(out, "tx", &h[1], s);
	buf_putc(out, '}');
}

/* The router's mean core load at ts with the test's own work on its cores. */
static double simbtest_cpu(
	const simrouter_t *r, double ts, int f, const struct half h[2], const double cap[2])
{
	const struct sc_group *g = simrouter_group(r);
	const struct sc_cpu *c = &simrouter_state(r, ts)->cpu;
	double sum = 0;
	for (int k = 0; k < g->cores; k++) {
		double load = simrouter_core_load(r, ts, k);
		for (int d = 0; d < 2 && g->cpu_sim; d++)
			for (int i = 0; h[d].on && isfinite(cap[d]) && i < c->ncores[f][d]; i++)
				if (c->core[f][d][i] == k)
					load += cap[d] > 0 ? 100 * fmin(h[d].offered / 1e6 / cap[d], 1) : 100;
		sum += fmin(load, 100);
	}
	return sum / g->cores;
}

/* A test that never ran: "connecting", then why. */
static void simbtest_failed(buf_t *out, const simrouter_t *r, const struct simbtest_args *a, const char *why)
{
	struct half h[2] = { { .on = a->dir & SIMBTEST_RECEIVE, .size = a->udp_size[0] },
		{ .on = (a->dir & SIMBTEST_TRANSMIT) != 0, .size = a->udp_size[1] } };
	buf_putc(out, '[');
	simbtest_rec(out, r, a, h, 0, NULL, "connecting");
	buf_printf(out, ",{\".section\":\"1\",\"status\":\"%s\"}]", why);
}

void simbtest_reply(
	const simrouter_t *r, double t, double scale, const struct simbtest_args *a, buf_t *out, double *hold)
{
	const struct sc_group *g = simrouter_group(r);
	int f = simbtest_route(r, a->address), n = (int)fmin(fmax(round(a->duration), 1), 59);
	bool auth_ok = !g->btest_user ||
		(strcmp(a->user, g->btest_user) == 0 &&
			strcmp(a->password, g->btest_password ? g->btest_password : "") == 0);
	struct half h[2] = {
		{ .on = a->dir & SIMBTEST_RECEIVE, .offered = a->remote_bps, .size = a->udp_size[0] },
		{ .on = (a->dir & SIMBTEST_TRANSMIT) != 0, .offered = a->local_bps, .size = a->udp_size[1] }
	};
	double cpu[60] = { 0 }, cap[2] = { INFINITY, INFINITY };
	if (f < 0 || !auth_ok) {
		*hold = f < 0 ? CONNECT_WAIT : AUTH_WAIT;
		simbtest_failed(out, r, a, f < 0 ? "can not connect" : "authentication failed");
		return;
	}
	for (int s = 0; s < n; s++) {
		double ts = t + (s + 0.5) * scale;
		for (int d = 0; d < 2; d++) {
			h[d].offered = h[d].offered > 0 ? h[d].offered : LINE_BPS;
			cap[d] = simrouter_capacity(r, ts, f, d);
			h[d].got[s] = fmin(h[d].offered, cap[d] * 1e6);
		}
		cpu[s] = simbtest_cpu(r, ts, f, h, cap);
	}
	*hold = n;
	buf_putc(out, '[');
	for (int s = 0; s <= n; s++)
		simbtest_rec(out, r, a, h, s, cpu,
			s == 0           ? "connecting"
				: s == n ? "done testing"
					 : "running");
	buf_putc(out, ']');
}
