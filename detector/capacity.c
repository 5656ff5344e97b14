/* SPDX-License-Identifier: Apache-2.0 */
/* capacity: a stream's capacity now, its demand, its headroom and the date its daily peaks
 * reach the capacity (docs/detector.md, "Capacity headroom"), on samples already in memory.
 * It must never touch SQLite, a clock or a lock, and never guess: a capacity the data cannot
 * measure or project is unknown with its reason, and a trend it cannot tell from flat has no
 * date. */
#include "config.h"
#include "detector/capacity.h"
#include "detector/judge.h"
#include "detector/stats.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAPACITY_DAY_MS    86400000LL
#define CAPACITY_WEEK_MS   (7 * CAPACITY_DAY_MS)
#define CAPACITY_DAYS      56   /* the trend looks back this many days at most */
#define CAPACITY_MIN_DAYS  7    /* ... and needs this many daily peaks */
#define CAPACITY_DAY_SHARE 0.5  /* a day counts with this share of its 5-minute buckets */
#define CAPACITY_BUCKETS   288  /* 5-minute buckets in a day */
#define CAPACITY_HORIZON   365  /* a date further out than this many days is none */
#define CAPACITY_PEAK_Q    0.95 /* a day's peak, the demand: this quantile */
#define CAPACITY_HALF_TOL  0.15 /* a projection's halves agree within this share */

const char *capacity_method_name(enum capacity_method m)
{
	return m == CAPACITY_PINNED ? "pinned" : m == CAPACITY_PROJECTED ? "projected" : NULL;
}

void capacity_clear(struct capacity *c)
{
	free(c->router);
	free(c->interface);
	c->router = c->interface = NULL;
}

static void capacity_text(char *out, size_t size, const char *text)
{
	snprintf(out, size, "%s", text);
}

/* A projection w of stream s that each half of the window gives again: the same cores, a
 * capacity within CAPACITY_HALF_TOL (or 3 relative errors). A core that carries a stream keeps
 * carrying it; a chance likeness of a core's load to a stream's rate does not persist, and
 * samples that are not independent (several polls within one change of the load) make such a
 * likeness look significant in the whole window alone. */
static bool capacity_steady(
	const struct judge_wcap *w, const struct judge_wcap *h1, const struct judge_wcap *h2)
{
	double tol = fmax(CAPACITY_HALF_TOL, 3 * w->rse);
	for (int k = 0; k < 2; k++) {
		const struct judge_wcap *h = k ? h2 : h1;
		if (!h->ok || h->pinned || strcmp(h->cores, w->cores) != 0 ||
			!(fabs(h->cap / w->cap - 1) <= tol))
			return false;
	}
	return true;
}

void capacity_window(const struct frame *f, const struct frame_params *p, struct capacity *c)
{
	size_t ns = frame_nstreams(f), half = f->npolls / 2;
	struct judge_wcap *w = xcalloc(ns + 1, sizeof(*w));
	struct judge_wcap *h1 = xcalloc(ns + 1, sizeof(*h1)), *h2 = xcalloc(ns + 1, sizeof(*h2));
	judge_window(f, p, w);
	judge_window_part(f, p, 0, half, h1);
	judge_window_part(f, p, half, f->npolls, h2);
	for (size_t s = 0; s < ns; s++) {
		struct capacity *o = &c[s];
		*o = (struct capacity){ .direction = s % 2 ? "rx" : "tx",
			.bps = NAN,
			.rse = NAN,
			.p95_day = NAN,
			.p95_week = NAN,
			.headroom = NAN,
			.exhausted_ms = CAPACITY_NEVER,
			.slope_bps_day = NAN };
		capacity_text(o->cores, sizeof(o->cores), w[s].cores);
		if (!w[s].ok) {
			capacity_text(
				o->why, sizeof(o->why), w[s].why ? w[s].why : "its capacity cannot be told");
			continue;
		}
		if (!w[s].pinned && !capacity_steady(&w[s], &h1[s], &h2[s])) {
			capacity_text(o->why, sizeof(o->why),
				"its cores could not be told steadily: the halves of its window disagree");
			continue;
		}
		o->method = w[s].pinned ? CAPACITY_PINNED : CAPACITY_PROJECTED;
		o->bps = w[s].cap;
		o->rse = w[s].rse;
		if (w[s].pinned)
			capacity_text(o->why, sizeof(o->why), "at its limit");
	}
	free(w);
	free(h1);
	free(h2);
}

/* The quantile q of the values bps[i] with t[i] in [from, to); NAN when none. */
static double capacity_q(
	const int64_t *t, const double *bps, size_t n, int64_t from, int64_t to, double q, size_t *count)
{
	double *v = xcalloc(n + 1, sizeof(*v));
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (t[i] >= from && t[i] < to && isfinite(bps[i]))
			v[m++] = bps[i];
	double r = stats_quantile(v, m, q);
	free(v);
	if (count != NULL)
		*count = m;
	return r;
}

/* The daily peaks of the UTC days that are over, back CAPACITY_DAYS from now_ms, each with
 * enough buckets: x the day's middle in days since the epoch, y its peak. Their count. */
static size_t capacity_peaks(
	const int64_t *t, const double *bps, size_t n, int64_t now_ms, double *x, double *y)
{
	int64_t today = now_ms / CAPACITY_DAY_MS; /* the day still running does not count */
	size_t k = 0;
	for (int64_t d = today - CAPACITY_DAYS; d < today; d++) {
		size_t count;
		double peak = capacity_q(
			t, bps, n, d * CAPACITY_DAY_MS, (d + 1) * CAPACITY_DAY_MS, CAPACITY_PEAK_Q, &count);
		if ((double)count < CAPACITY_DAY_SHARE * CAPACITY_BUCKETS)
			continue;
		x[k] = (double)d + 0.5;
		y[k++] = peak;
	}
	return k;
}

/* The trend's value at day x: a line, or a compound growth (exp of a line through the logs). */
static double capacity_at(const struct stats_trend *tr, bool compound, double x)
{
	double v = tr->intercept + tr->slope * x;
	return compound ? exp(v) : v;
}

/* The median distance of the peaks from the trend, in bits/s. */
static double capacity_spread(
	const double *x, const double *y, size_t n, const struct stats_trend *tr, bool compound)
{
	double d[CAPACITY_DAYS];
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(y[i] - capacity_at(tr, compound, x[i]));
	return stats_quantile(d, n, 0.5);
}

/* The Theil-Sen trend of the peaks that lies closer to them: a straight line, or a line
 * through their logarithms (growth in percent a day, as traffic grows when users do). -1
 * when too few peaks. */
static int capacity_fit(const double *x, const double *y, size_t n, struct stats_trend *tr, bool *compound)
{
	double ly[CAPACITY_DAYS];
	struct stats_trend tl;
	bool positive = true;
	*compound = false;
	if (n < CAPACITY_MIN_DAYS || stats_theil_sen(x, y, n, tr) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		positive = positive && y[i] > 0;
		ly[i] = positive ? log(y[i]) : 0;
	}
	if (positive && stats_theil_sen(x, ly, n, &tl) == 0 &&
		capacity_spread(x, y, n, &tl, true) < capacity_spread(x, y, n, tr, false))
		*tr = tl, *compound = true;
	return 0;
}

/* The date the daily peaks' trend reaches c->bps into c->exhausted_ms; NULL, or why none. */
static const char *capacity_trend(
	struct capacity *c, const int64_t *t, const double *bps, size_t n, int64_t now_ms)
{
	double x[CAPACITY_DAYS], y[CAPACITY_DAYS];
	struct stats_trend tr;
	bool compound;
	c->exhausted_ms = CAPACITY_NEVER;
	c->slope_bps_day = NAN;
	c->days = capacity_peaks(t, bps, n, now_ms, x, y);
	if (c->method == CAPACITY_PINNED)
		return "already at its limit";
	if (capacity_fit(x, y, c->days, &tr, &compound) < 0)
		return "fewer than 7 days of peaks";
	c->compound = compound;
	/* bits/s a day at the last peak: a compound trend's slope is a rate of the value */
	c->slope_bps_day = compound ? tr.slope * capacity_at(&tr, true, x[c->days - 1]) : tr.slope;
	if (!(tr.lo > 0) || !(tr.slope > 0))
		return "its daily peaks are flat or falling";
	double day = ((compound ? log(c->bps) : c->bps) - tr.intercept) / tr.slope; /* since the epoch */
	if (day > (double)now_ms / CAPACITY_DAY_MS + CAPACITY_HORIZON)
		return "not within a year";
	c->exhausted_ms = (int64_t)llround(day * CAPACITY_DAY_MS);
	return NULL;
}

void capacity_demand(struct capacity *c, const int64_t *t, const double *bps, size_t n, int64_t now_ms)
{
	c->p95_day = capacity_q(t, bps, n, now_ms - CAPACITY_DAY_MS, INT64_MAX, CAPACITY_PEAK_Q, NULL);
	c->p95_week = capacity_q(t, bps, n, now_ms - CAPACITY_WEEK_MS, INT64_MAX, CAPACITY_PEAK_Q, NULL);
	if (c->method == CAPACITY_UNKNOWN)
		return;
	if (c->method == CAPACITY_PINNED)
		c->headroom = 0; /* the core holds it at its ceiling: the rest is not seen */
	else if (isfinite(c->p95_week))
		c->headroom = fmax(0, 1 - c->p95_week / c->bps);
	const char *why = capacity_trend(c, t, bps, n, now_ms);
	capacity_text(c->trend_why, sizeof(c->trend_why), why ? why : "");
}
