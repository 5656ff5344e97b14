/* SPDX-License-Identifier: Apache-2.0 */
/* rate: counter arithmetic. Pure functions; unit-tested in tests/unit/rate_test.c. */
#include "config.h"
#include "daemon/rate.h"

#include <math.h>

/* Whether a 32-bit counter that went down from prev to cur wrapped: an increase under 2^31. */
static bool rate_wrapped(uint64_t prev, uint64_t cur, int bits)
{
	return bits == 32 && prev <= UINT32_MAX && cur <= UINT32_MAX &&
		((uint64_t)1 << 32) - prev + cur < ((uint64_t)1 << 31);
}

uint64_t rate_delta(uint64_t prev, uint64_t cur, int bits, bool reset)
{
	if (reset)
		return cur;
	if (cur >= prev)
		return cur - prev;
	if (rate_wrapped(prev, cur, bits))
		return ((uint64_t)1 << 32) - prev + cur;
	return cur;
}

bool rate_went_back(uint64_t prev, uint64_t cur, int bits, bool reset)
{
	return !reset && cur < prev && !rate_wrapped(prev, cur, bits);
}

double rate_per_second(uint64_t prev, uint64_t cur, int bits, bool reset, int64_t dt_ms)
{
	if (dt_ms <= 0 || rate_went_back(prev, cur, bits, reset))
		return NAN;
	return (double)rate_delta(prev, cur, bits, reset) * 1000.0 / (double)dt_ms;
}

int64_t rate_elapsed_ms(int64_t prev_wall, int64_t prev_mono, int64_t cur_wall, int64_t cur_mono)
{
	return prev_mono >= 0 && cur_mono >= 0 ? cur_mono - prev_mono : cur_wall - prev_wall;
}

bool rate_restarted(int64_t prev_uptime_ms, int64_t cur_uptime_ms, int64_t elapsed_ms)
{
	if (prev_uptime_ms < 0 || cur_uptime_ms < 0)
		return false;
	if (elapsed_ms <= 0)
		return cur_uptime_ms < prev_uptime_ms; /* our clock went back: uptime is all we have */
	/* Uptime is counted in whole seconds and clocks drift: allow some slack. */
	int64_t slack = 5000 + elapsed_ms / 100;
	/* A restart since the previous reading leaves an uptime shorter than the time since it.
	 * An uptime that went down but is still longer is the router's clock jumping, not a
	 * restart: its counters ran on. */
	if (cur_uptime_ms > elapsed_ms + slack)
		return false;
	/* Without a restart uptime grows by the wall time elapsed: clearly less means one. */
	return cur_uptime_ms < prev_uptime_ms || cur_uptime_ms + slack < prev_uptime_ms + elapsed_ms;
}
