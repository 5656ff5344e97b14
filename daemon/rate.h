/* SPDX-License-Identifier: Apache-2.0 */
/* rate: increases and per-second rates of router counters across wraps and resets, and the
 * time between two readings. A reboot or /interface reset-counters makes a counter go down:
 * never a negative or huge rate. */
#ifndef WGWATCH_RATE_H
#define WGWATCH_RATE_H

#include <stdbool.h>
#include <stdint.h>

/* Increase of a counter of `bits` width (32 or 64) from prev to cur. `reset` says the source
 * restarted in between (uptime went backwards): the increase is then cur, counted from zero.
 * A 64-bit counter that goes down was reset. A 32-bit one that goes down wrapped when the
 * wrapped increase is under 2^31, else it was reset. */
uint64_t rate_delta(uint64_t prev, uint64_t cur, int bits, bool reset);

/* True when the counter went down from prev to cur and no restart explains it (`reset` false):
 * a 64-bit counter that went down, or a 32-bit one that did not plausibly wrap. Its increase is
 * unknown: counted from zero, a counter that went back from 10 TB to 9.9 TB would claim 9.9 TB
 * in one interval. The caller records a reset and no rate for that reading. */
bool rate_went_back(uint64_t prev, uint64_t cur, int bits, bool reset);

/* Per-second rate of that increase over dt_ms; NAN when dt_ms <= 0 or rate_went_back. */
double rate_per_second(uint64_t prev, uint64_t cur, int bits, bool reset, int64_t dt_ms);

/* Milliseconds from one reading to the next: by the monotonic clock when both carry its time
 * (mono >= 0), which the wall clock's steps (NTP, a restored snapshot) do not move; else by the
 * wall clock. */
int64_t rate_elapsed_ms(int64_t prev_wall, int64_t prev_mono, int64_t cur_wall, int64_t cur_mono);

/* True when the second uptime shows the router restarted since the first: it is shorter than
 * the wall time elapsed, and went down or grew by less than that time (give or take slack). An
 * uptime that jumps back but stays longer than elapsed is a clock jump, not a restart. Unknown
 * uptimes (< 0) never mean a restart. */
bool rate_restarted(int64_t prev_uptime_ms, int64_t cur_uptime_ms, int64_t elapsed_ms);

#endif
