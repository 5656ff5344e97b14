/* SPDX-License-Identifier: Apache-2.0 */
/* confound: what changes WireGuard throughput without a version change (CPU clock, WAN queue
 * drops, MTU, errors, an interface going down), compared over the same before and after windows
 * as the verdict (docs/detector.md, "Confounders"). Pure functions of loaded rows: no SQLite. */
#include "config.h"
#include "detector/confound.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONFOUND_MHZ_REL    0.05 /* a CPU clock that moved by 5% or more */
#define CONFOUND_DOWN_SHARE 0.05 /* the share of polls not running moved by 5 points */
#define CONFOUND_RATE_MIN   1.0  /* a counter's rate moved by at least 1 per second ... */
#define CONFOUND_RATE_MULT  2.0  /* ... and the larger is at least twice the smaller */

static int confound_i64_order(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The median (the lower one of an even count) of v[0..n), which it sorts; -1 when n is 0. */
static int64_t confound_median(int64_t *v, size_t n)
{
	if (n == 0)
		return -1;
	qsort(v, n, sizeof(*v), confound_i64_order);
	return v[(n - 1) / 2];
}

/* The median CPU clock of the polls before (after = false) or after t; -1 when none told. */
static int64_t confound_mhz(const struct confound_set *x, int64_t t, bool after)
{
	int64_t *v = xcalloc(x->ncpu + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < x->ncpu; i++)
		if (x->cpu[i].mhz > 0 && (after ? x->cpu[i].t > t : x->cpu[i].t < t))
			v[n++] = x->cpu[i].mhz;
	int64_t m = confound_median(v, n);
	free(v);
	return m;
}

static bool confound_in(int64_t rt, int64_t t, bool after)
{
	return after ? rt > t : rt < t;
}

/* One window of an interface: its MTU, share of polls not running, counter rates per second. */
struct confound_win {
	int64_t mtu;     /* -1 unknown */
	double down;     /* NAN when no poll */
	double rate[3];  /* rx-error, tx-error, tx-queue-drop; NAN when no two polls */
	double share[3]; /* the same per packet of their direction; NAN when no packets moved */
};

/* The counters of a row: rx-error, tx-error, tx-queue-drop, then rx and tx packets. */
#define CONFOUND_NVALS 5
static uint64_t confound_value(const struct confound_row *r, int k)
{
	const uint64_t v[CONFOUND_NVALS] = { r->rx_err, r->tx_err, r->txq, r->rx_pkts, r->tx_pkts };
	return v[k];
}

/* Add the increases from prev to r onto sum[] and their seconds onto *dt, unless a counter went
 * down (a restart): such a pair tells nothing. */
static void confound_pair(
	const struct confound_row *prev, const struct confound_row *r, double *sum, double *dt)
{
	for (int k = 0; k < CONFOUND_NVALS; k++)
		if (confound_value(r, k) < confound_value(prev, k))
			return;
	for (int k = 0; k < CONFOUND_NVALS; k++)
		sum[k] += (double)(confound_value(r, k) - confound_value(prev, k));
	*dt += (double)(r->t - prev->t) / 1000.0;
}

static void confound_window(const struct confound_iface *f, int64_t t, bool after, struct confound_win *w)
{
	int64_t *mtu = xcalloc(f->n + 1, sizeof(*mtu));
	size_t nmtu = 0, n = 0, ndown = 0;
	double sum[CONFOUND_NVALS] = { 0 }, dt = 0;
	const struct confound_row *prev = NULL;
	for (size_t i = 0; i < f->n; i++) {
		const struct confound_row *r = &f->rows[i];
		if (!confound_in(r->t, t, after))
			continue;
		n++;
		ndown += !r->running;
		if (r->mtu > 0)
			mtu[nmtu++] = r->mtu;
		if (prev != NULL && !r->reset && r->t > prev->t)
			confound_pair(prev, r, sum, &dt);
		prev = r;
	}
	w->mtu = confound_median(mtu, nmtu);
	w->down = n > 0 ? (double)ndown / (double)n : NAN;
	for (int k = 0; k < 3; k++) {
		double pkts = sum[k == 0 ? 3 : 4]; /* rx-error per rx packet, the others per tx packet */
		w->rate[k] = dt > 0 ? sum[k] / dt : NAN;
		w->share[k] = pkts > 0 ? sum[k] / pkts : NAN;
	}
	free(mtu);
}

/* "12", "0.5", "1234": a rate as an operator reads it. */
static void confound_num(char *out, size_t size, double v)
{
	snprintf(out, size, v >= 100 ? "%.0f" : "%.2g", v);
}

static void confound_line(buf_t *b, const char *line)
{
	buf_printf(b, "%s%s", b->len ? "\n" : "", line);
}

/* Moved by a factor of CONFOUND_RATE_MULT or more, either way. */
static bool confound_moved(double a, double c)
{
	return fmax(a, c) >= CONFOUND_RATE_MULT * fmin(a, c);
}

/* A counter is a confounder when its rate moved, and not merely with the traffic: errors that
 * stay the same share of the packets fell because the packets did (what the upgrade did). */
static void confound_rates(buf_t *b, const char *name, const struct confound_win *w)
{
	static const char *const what[3] = { "rx-error", "tx-error", "tx-queue-drop" };
	for (int k = 0; k < 3; k++) {
		double a = w[0].rate[k], c = w[1].rate[k], sa = w[0].share[k], sc = w[1].share[k];
		if (isnan(a) || isnan(c) || fabs(c - a) < CONFOUND_RATE_MIN || !confound_moved(a, c) ||
			(!isnan(sa) && !isnan(sc) && !confound_moved(sa, sc)))
			continue;
		char x[24], y[24], line[160];
		confound_num(x, sizeof(x), a);
		confound_num(y, sizeof(y), c);
		snprintf(line, sizeof(line), "%s %s %s from %s to %s/s", name, what[k],
			c > a ? "rose" : "fell", x, y);
		confound_line(b, line);
	}
}

static void confound_iface(buf_t *b, const struct confound_iface *f, int64_t t)
{
	struct confound_win w[2];
	confound_window(f, t, false, &w[0]);
	confound_window(f, t, true, &w[1]);
	char line[160];
	if (w[0].mtu > 0 && w[1].mtu > 0 && w[0].mtu != w[1].mtu) {
		snprintf(line, sizeof(line), "%s MTU %lld → %lld", f->name, (long long)w[0].mtu,
			(long long)w[1].mtu);
		confound_line(b, line);
	}
	if (!isnan(w[0].down) && !isnan(w[1].down) && fabs(w[1].down - w[0].down) >= CONFOUND_DOWN_SHARE) {
		snprintf(line, sizeof(line), "%s not running in %.0f%% of the polls after, %.0f%% before",
			f->name, 100 * w[1].down, 100 * w[0].down);
		confound_line(b, line);
	}
	confound_rates(b, f->name, w);
}

char *confound_list(const struct confound_set *x, int64_t t, const char *ifc)
{
	buf_t b;
	buf_init(&b);
	int64_t before = confound_mhz(x, t, false), after = confound_mhz(x, t, true);
	if (before > 0 && after > 0 && fabs((double)after / (double)before - 1) >= CONFOUND_MHZ_REL) {
		char line[96];
		snprintf(line, sizeof(line), "cpu frequency %lld → %lld MHz across the upgrade",
			(long long)before, (long long)after);
		confound_line(&b, line);
	}
	for (size_t i = 0; i < x->nifs; i++)
		if (!x->ifs[i].wg || strcmp(x->ifs[i].name, ifc) == 0)
			confound_iface(&b, &x->ifs[i], t);
	return buf_steal(&b, NULL);
}

void confound_set_free(struct confound_set *x)
{
	for (size_t i = 0; i < x->nifs; i++) {
		free(x->ifs[i].name);
		free(x->ifs[i].rows);
	}
	free(x->ifs);
	free(x->cpu);
	memset(x, 0, sizeof(*x));
}
