/* SPDX-License-Identifier: Apache-2.0 */
/* rate_test: counter increases across 64-bit resets, 32-bit wraps and reboots; restart detection. */
#include "config.h"
#include "daemon/rate.h"
#include "unit.h"

#include <stdint.h>

static void test_delta(void)
{
	static const struct {
		uint64_t prev, cur;
		int bits;
		bool reset;
		uint64_t want;
	} cases[] = {
		{ 100, 250, 64, false, 150 },
		{ 100, 100, 64, false, 0 },
		{ 5000000000ull, 1000, 64, false, 1000 }, /* 64-bit going down: reset, count from 0 */
		{ 100, 5000, 64, true, 5000 },            /* reboot flagged: from 0 even if cur > prev */
		{ 4294967000ull, 704, 32, false, 1000 },  /* 32-bit wrap */
		{ 1000000000ull, 10, 32, false, 10 },     /* a 3.3e9 "wrap" is implausible: a reset */
		{ UINT64_MAX - 5, 10, 64, false, 10 },    /* never a 2^64-ish increase */
		{ 0, UINT64_MAX, 64, false, UINT64_MAX },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT((long long)rate_delta(cases[i].prev, cases[i].cur, cases[i].bits, cases[i].reset),
			(long long)cases[i].want);
}

static void test_rate(void)
{
	CHECK_NEAR(rate_per_second(0, 1000, 64, false, 2000), 500.0, 1e-9);
	CHECK(isnan(rate_per_second(0, 1000, 64, false, 0)));
	CHECK(isnan(rate_per_second(0, 1000, 64, false, -5)));
	/* a reboot between two polls 30 s apart, known from uptime: 3e6 bytes since boot -> 1e5 B/s */
	CHECK_NEAR(rate_per_second(9000000000ull, 3000000, 64, true, 30000), 1e5, 1e-9);
	/* a counter that went down with no restart known (issue 39 item 6): no rate, not the
	 * 3.8 Tbit/s of 14.4 TB counted from zero over 30 s */
	CHECK(isnan(rate_per_second(14400000000000ull, 14399999000000ull, 64, false, 30000)));
	CHECK(isnan(rate_per_second(9000000000ull, 3000000, 64, false, 30000)));
	CHECK_NEAR(rate_per_second(4294967000ull, 704, 32, false, 1000), 1000.0, 1e-9); /* a wrap */
}

static void test_went_back(void)
{
	CHECK(rate_went_back(1000, 999, 64, false));
	CHECK(!rate_went_back(1000, 999, 64, true)); /* a restart explains it */
	CHECK(!rate_went_back(1000, 1000, 64, false));
	CHECK(!rate_went_back(4294967000ull, 704, 32, false)); /* wrapped */
	CHECK(rate_went_back(1000000000ull, 10, 32, false));   /* not a plausible wrap */
	CHECK(rate_went_back(UINT64_MAX - 5, 10, 64, false));  /* 64 bits never wrap */
}

static void test_elapsed(void)
{
	/* the monotonic clock when both readings have it: a wall step of +6 h is not 6 h */
	CHECK_INT(rate_elapsed_ms(1000, 500000, 1000 + 21600000 + 10000, 510000), 10000);
	CHECK_INT(rate_elapsed_ms(1000 + 21600000, 500000, 11000, 510000), 10000); /* and back */
	CHECK_INT(rate_elapsed_ms(1000, -1, 11000, 510000), 10000);                /* else the wall clock */
	CHECK_INT(rate_elapsed_ms(11000, 500000, 1000, -1), -10000);
}

static void test_restarted(void)
{
	CHECK(!rate_restarted(100000, 130000, 30000)); /* grew with wall time */
	CHECK(!rate_restarted(100000, 131000, 30000)); /* rounding */
	CHECK(rate_restarted(100000, 5000, 30000));    /* went down */
	CHECK(rate_restarted(10000, 60000, 3600000));  /* up 60 s after an hour away: restarted */
	CHECK(!rate_restarted(-1, 5000, 30000));       /* unknown */
	CHECK(!rate_restarted(100000, -1, 30000));
	CHECK(!rate_restarted(100000, 100000 + 60 * 30000, 30000)); /* time-scaled sim: faster is fine */
	CHECK(!rate_restarted(864000000, 864000000 - 7200000 + 1000, 1000)); /* clock 2 h back */
	CHECK(!rate_restarted(4000, 5000, 1000));                            /* young router, growing */
	CHECK(rate_restarted(5000, 2000, 1000));    /* young router, rebooted again */
	CHECK(rate_restarted(100000, 5000, -1000)); /* our clock went back: uptime went down */
}

int main(void)
{
	test_delta();
	test_rate();
	test_went_back();
	test_elapsed();
	test_restarted();
	return unit_done("rate_test");
}
