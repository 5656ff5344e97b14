/* SPDX-License-Identifier: Apache-2.0 */
/* capacity_test: capacity.c on synthetic windows whose truth is worked out by hand from the
 * model of a core (load = other work + cost per Mbit/s x rate, a stream's capacity where its
 * core fills): a pinned core, a projected one, a quiet, a steady and a short window; then the
 * demand, the headroom and the Theil-Sen date on daily peaks of known slope, with outliers,
 * compound growth, flat and falling trends; and stats_theil_sen itself. */
#include "config.h"
#include "detector/capacity.h"
#include "detector/stats.h"

#include <stdint.h>
#include <stdlib.h>

#include "unit.h"

#define MBIT 1e6
#define DAY  86400000LL

static uint64_t rng_state = 42;

static double rnd(void) /* 0..1, deterministic */
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

struct model {
	size_t npolls;
	double other, cost; /* core 1's other work (0..1) and the stream's cost, load per Mbit/s */
	double mean, swing; /* the demand, Mbit/s: mean and daily-wave amplitude ... */
	double noise;       /* ... and per-poll noise, relative */
	double rx_share;    /* rx = this x tx, on core 2 at 0.1 % per Mbit/s; 0: rx at 0.05 Mbit/s */
};

/* One stream (wg0 tx) on core 1 of 4; core 0 does other work of its own. The core throttles
 * the stream where it fills; the load is read in whole percents. */
static void model_frame(const struct model *m, struct frame *f, double **rate, float **load)
{
	*rate = calloc(m->npolls * 2 + 1, sizeof(double));
	*load = calloc(m->npolls * 4 + 1, sizeof(float));
	for (size_t k = 0; k < m->npolls; k++) {
		double x = m->mean + m->swing * sin(2 * M_PI * (double)k / 200) +
			m->mean * m->noise * (2 * rnd() - 1);
		double a = m->other + 0.02 * (2 * rnd() - 1), cap = (1 - a) / m->cost;
		x = fmax(0, fmin(x, cap));
		(*rate)[2 * k] = x * MBIT;
		(*rate)[2 * k + 1] = m->rx_share > 0 ? m->rx_share * x * MBIT : 0.05 * MBIT;
		(*load)[4 * k + 0] = (float)(round(100 * (0.3 + 0.1 * rnd())) / 100);
		(*load)[4 * k + 1] = (float)(round(100 * (a + m->cost * x)) / 100);
		(*load)[4 * k + 2] = (float)(round(100 * (0.05 * rnd() + 0.001 * m->rx_share * x)) / 100);
		(*load)[4 * k + 3] = 0.01f;
	}
	*f = (struct frame){
		.npolls = m->npolls, .ncores = 4, .nifs = 1, .split = m->npolls, .rate = *rate, .load = *load
	};
}

static const struct frame_params params = {
	.min_samples = 30, .threshold = 0.2, .saturated = 0.9, .min_bps = 1 * MBIT
};

static void window(const struct model *m, struct capacity *c)
{
	struct frame f;
	double *rate;
	float *load;
	model_frame(m, &f, &rate, &load);
	capacity_window(&f, &params, c);
	free(rate);
	free(load);
}

/* The CCR1009 after 7.22.3: its encrypt costs 1/128 of a core per Mbit/s on a core with no
 * other work; users offer ~200 Mbit/s, so the core is full and holds 128 Mbit/s. Truth:
 * pinned, 128 Mbit/s, headroom 0, at its limit, no date. */
static void test_pinned(void)
{
	struct capacity c[2];
	window(&(struct model){ 600, 0.0, 1.0 / 128, 200, 20, 0.1, 0 }, c);
	CHECK_INT(c[0].method, CAPACITY_PINNED);
	CHECK_NEAR(c[0].bps / MBIT, 128, 128 * 0.03); /* the other work's +-2 % moves the ceiling */
	CHECK(c[0].rse < 0.01);
	CHECK_STR(c[0].why, "at its limit");
	CHECK_STR(c[0].cores, "1");
	int64_t t[7 * 288];
	double v[7 * 288];
	int64_t now = 20000 * DAY;
	for (size_t i = 0; i < 7 * 288; i++)
		t[i] = now - 7 * DAY + (int64_t)i * 300000, v[i] = 129 * MBIT;
	capacity_demand(&c[0], t, v, 7 * 288, now);
	CHECK_NEAR(c[0].headroom, 0, 0);
	CHECK(c[0].exhausted_ms == CAPACITY_NEVER);
	CHECK_STR(c[0].trend_why, "already at its limit");
	CHECK_INT(c[1].method, CAPACITY_UNKNOWN); /* rx at 0.05 Mbit/s */
	CHECK_STR(c[1].why, "its traffic is too low to measure its capacity");
}

/* A hub with headroom: core 1 at 20 % other work, 0.5 % of a core per Mbit/s, 50 +- 25 Mbit/s.
 * Truth: (1 - 0.2) / 0.005 = 160 Mbit/s; with a week's p95 of 80 Mbit/s, headroom 0.5. */
static void test_projected(void)
{
	struct capacity c[2];
	window(&(struct model){ 800, 0.2, 0.005, 50, 25, 0.2, 0 }, c);
	CHECK_INT(c[0].method, CAPACITY_PROJECTED);
	CHECK_NEAR(c[0].bps / MBIT, 160, 160 * 0.05);
	CHECK(c[0].rse > 0 && c[0].rse < 0.05);
	CHECK(fabs(c[0].bps / MBIT - 160) <= 3 * c[0].rse * c[0].bps / MBIT + 1.6); /* within its error */
	CHECK_STR(c[0].cores, "1");
	CHECK_STR(c[0].why, "");
	int64_t t[7 * 288];
	double v[7 * 288];
	int64_t now = 20000 * DAY;
	for (size_t i = 0; i < 7 * 288; i++)
		t[i] = now - 7 * DAY + (int64_t)i * 300000, v[i] = 80 * MBIT;
	capacity_demand(&c[0], t, v, 7 * 288, now);
	CHECK_NEAR(c[0].p95_week / MBIT, 80, 1e-9);
	CHECK_NEAR(c[0].p95_day / MBIT, 80, 1e-9);
	CHECK_NEAR(c[0].headroom, 1 - 80 / (c[0].bps / MBIT), 1e-12);
	CHECK_NEAR(c[0].headroom, 0.5, 0.03);
	CHECK(c[0].exhausted_ms == CAPACITY_NEVER); /* constant: a flat trend */
	CHECK_STR(c[0].trend_why, "its daily peaks are flat or falling");
}

/* tx and rx on one curve (rx = tx / 2), tx on core 1, rx on core 2: one group to a fit, whose
 * core 1 follows rx too. Claiming core 1's 160 Mbit/s for rx, whose own core 2 fills only at
 * (1 - 0.025) / 0.001 = 975, would be a false alarm: both unknown, and say why. */
static void test_group(void)
{
	struct capacity c[2];
	window(&(struct model){ 800, 0.2, 0.005, 50, 25, 0, 0.5 }, c);
	CHECK_INT(c[0].method, CAPACITY_UNKNOWN);
	CHECK_INT(c[1].method, CAPACITY_UNKNOWN);
	CHECK_STR(c[1].why, "it moves with other streams: which core fills first for it cannot be told");
}

/* tx pinned at 128 Mbit/s on core 1, rx steady at 64 on core 2, neither moving: the loads
 * cannot tell which of the two flat streams fills core 1, so neither is "at its limit". */
static void test_two_flat(void)
{
	struct capacity c[2];
	window(&(struct model){ 600, 0.0, 1.0 / 128, 200, 0, 0, 0.5 }, c);
	CHECK_INT(c[0].method, CAPACITY_UNKNOWN);
	CHECK_INT(c[1].method, CAPACITY_UNKNOWN);
	CHECK_STR(c[1].why, "its rates held too steady to project its capacity");
}

/* Unknown, never a guess: a quiet hub, a steady stream no slope can tell (its core at 45 %,
 * not full), a window of 20 polls. */
static void test_unknown(void)
{
	struct capacity c[2];
	window(&(struct model){ 600, 0.2, 0.005, 0.3, 0.1, 0.1, 0 }, c);
	CHECK_INT(c[0].method, CAPACITY_UNKNOWN);
	CHECK(isnan(c[0].bps));
	CHECK_STR(c[0].why, "its traffic is too low to measure its capacity");
	window(&(struct model){ 600, 0.2, 0.005, 50, 0, 0, 0 }, c);
	CHECK_INT(c[0].method, CAPACITY_UNKNOWN);
	CHECK_STR(c[0].why, "its rates held too steady to project its capacity");
	window(&(struct model){ 20, 0.2, 0.005, 50, 25, 0.2, 0 }, c);
	CHECK_INT(c[0].method, CAPACITY_UNKNOWN);
	CHECK_STR(c[0].why, "too few polls yet");
	int64_t t[1] = { 0 };
	double v[1] = { 5 * MBIT };
	capacity_demand(&c[0], t, v, 1, 10 * DAY);
	CHECK(isnan(c[0].headroom));
	CHECK(c[0].exhausted_ms == CAPACITY_NEVER);
}

/* 5-minute averages for the days [first, first + ndays): each day 268 buckets at 30 % of its
 * peak and 20 at the peak, so its p95 (position 0.95 x 287 = 272.65) is the peak exactly. */
static size_t days_fill(int64_t first, size_t ndays, double (*peak)(size_t), int64_t *t, double *v)
{
	size_t n = 0;
	for (size_t d = 0; d < ndays; d++)
		for (size_t i = 0; i < 288; i++, n++) {
			t[n] = (first + (int64_t)d) * DAY + (int64_t)i * 300000;
			v[n] = (i % 14 == 0 ? 1.0 : 0.3) * peak(d); /* 21 of 288 at the peak */
		}
	return n;
}

static double peak_linear(size_t d) /* 100 Mbit/s growing 1 Mbit/s a day */
{
	return (100 + (double)d) * MBIT;
}

static double peak_outliers(size_t d) /* the same, with a holiday and a flash crowd */
{
	return peak_linear(d) * (d == 20 ? 0.2 : d == 40 ? 2.0 : 1.0);
}

static double peak_compound(size_t d) /* 100 Mbit/s growing 2 % a week */
{
	return 100 * MBIT * pow(1.02, (double)d / 7);
}

static double peak_flat(size_t d)
{
	return 100 * MBIT * (1 + 0.05 * sin((double)d * 1.7));
}

static double peak_falling(size_t d)
{
	return (150 - (double)d * 0.5) * MBIT;
}

static double peak_slow(size_t d) /* 0.01 Mbit/s a day */
{
	return (100 + 0.01 * (double)d) * MBIT;
}

static struct capacity trend_case(double cap_mbps, double (*peak)(size_t), int64_t today)
{
	static int64_t t[56 * 288 + 288];
	static double v[56 * 288 + 288];
	size_t n = days_fill(today - 56, 57, peak, t, v); /* today's first hour is cut below */
	while (n > 0 && t[n - 1] >= today * DAY + 3600000)
		n--;
	struct capacity c = { .method = CAPACITY_PROJECTED, .bps = cap_mbps * MBIT, .rse = 0.02 };
	capacity_demand(&c, t, v, n, today * DAY + 3600000);
	return c;
}

/* Days today-56 .. today-1 (i = 0..55, middles at i + 0.5) have peaks 100 + i Mbit/s:
 * 160 Mbit/s is reached at i = 60, day (today - 56) + 60.5 = today + 4.5. */
static void test_trend(void)
{
	int64_t today = 20000;
	struct capacity c = trend_case(160, peak_linear, today);
	CHECK_INT(c.days, 56);
	CHECK_NEAR(c.slope_bps_day / MBIT, 1, 1e-9);
	CHECK_NEAR((double)c.exhausted_ms / DAY, (double)today + 4.5, 1e-6);
	CHECK_STR(c.trend_why, "");
	c = trend_case(160, peak_outliers, today); /* a holiday and a flash crowd move it by hours */
	CHECK_NEAR((double)c.exhausted_ms / DAY, (double)today + 4.5, 0.25);
	/* Compound growth, 2 % a week from 100 Mbit/s: 130 is reached 7 ln 1.3 / ln 1.02 = 92.74
	 * days after day 0's middle, today + 37.24. A straight line through 8 weeks of it would
	 * have the slope of their middle (0.306 Mbit/s a day, 0.330 at the end) and come ~6 days
	 * late; the line through the logarithms lies on the peaks and is chosen: the truth, to the
	 * hour (the day's p95 of 5-minute buckets sits within the day's growth of its middle). */
	c = trend_case(130, peak_compound, today);
	double left = 7 * log(1.3) / log(1.02) + 0.5 - 56, got = (double)c.exhausted_ms / DAY - (double)today;
	CHECK_NEAR(got, left, 0.25);
	CHECK_NEAR(c.slope_bps_day / MBIT, 100 * pow(1.02, 55.5 / 7) * log(1.02) / 7, 0.005);
	printf("compound 2 %%/week over 8 weeks: today + %.2f days, truth %.2f\n", got, left);
	c = trend_case(160, peak_flat, today);
	CHECK(c.exhausted_ms == CAPACITY_NEVER);
	CHECK_STR(c.trend_why, "its daily peaks are flat or falling");
	c = trend_case(160, peak_falling, today);
	CHECK(c.exhausted_ms == CAPACITY_NEVER);
	CHECK(c.slope_bps_day < 0);
	CHECK_STR(c.trend_why, "its daily peaks are flat or falling");
	c = trend_case(160, peak_slow, today); /* ln 1.6 / 1e-4 a day: 13 years */
	CHECK(c.exhausted_ms == CAPACITY_NEVER);
	CHECK_STR(c.trend_why, "not within a year");
	/* The week's p95 (the 7 days before now: 20 or 21 buckets of 288 a day at that day's peak,
	 * 149..155 Mbit/s) lies among the peaks, above every 30 % bucket (46.5 Mbit/s at most). */
	c = trend_case(160, peak_linear, today);
	CHECK(c.p95_week >= 149 * MBIT && c.p95_week <= 155 * MBIT);
	CHECK_NEAR(c.headroom, 1 - c.p95_week / (160 * MBIT), 1e-12);
	static int64_t t[6 * 288];
	static double v[6 * 288];
	size_t n = days_fill(today - 6, 6, peak_linear, t, v); /* less than a week of days: none */
	c = (struct capacity){ .method = CAPACITY_PROJECTED, .bps = 160 * MBIT, .rse = 0.02 };
	capacity_demand(&c, t, v, n, today * DAY);
	CHECK_INT(c.days, 6);
	CHECK_STR(c.trend_why, "fewer than 7 days of peaks");
}

/* Theil-Sen on five points, one of them wild: slopes of the ten pairs, median 2. */
static void test_theil_sen(void)
{
	double x[] = { 0, 1, 2, 3, 4 }, y[] = { 1, 3, 5, 100, 9 };
	struct stats_trend t;
	CHECK_INT(stats_theil_sen(x, y, 5, &t), 0);
	CHECK_NEAR(t.slope, 2, 1e-12);
	CHECK_NEAR(t.intercept, 1, 1e-12);
	CHECK(t.lo < 2 && t.hi > 2);
	double same[] = { 1, 1, 1 };
	CHECK_INT(stats_theil_sen(same, y, 3, &t), -1);
	CHECK_INT(stats_theil_sen(x, y, 2, &t), -1);
}

int main(void)
{
	test_pinned();
	test_projected();
	test_unknown();
	test_group();
	test_two_flat();
	test_trend();
	test_theil_sen();
	return unit_done("capacity_test");
}
