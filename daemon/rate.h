/* SPDX-License-Identifier: Apache-2.0 */
/* rate: increases and per-second rates of router counters across wraps and resets.
 * A reboot or /interface reset-counters makes a counter go down: never a negative or huge rate. */
#ifndef WGWATCH_RATE_H
#define WGWATCH_RATE_H

#include <stdbool.h>
#include <stdint.h>

/* Increase of a counter of `bits` width (32 or 64) from prev to cur. `reset` says the source
 * restarted in between (uptime went backwards): the increase is then cur, counted from zero.
 * A 64-bit counter that goes down was reset. A 32-bit one that goes down wrapped when the
 * wrapped increase is under 2^31, else it was reset. */
uint64_t rate_delta(uint64_t prev, uint64_t cur, int bits, bool reset);

/* Per-second rate of that increase over dt_ms; NAN when dt_ms <= 0. */
double rate_per_second(uint64_t prev, uint64_t cur, int bits, bool reset, int64_t dt_ms);

/* True when the second uptime shows the router restarted since the first: it is shorter than
 * the wall time elapsed, and went down or grew by less than that time (give or take slack). An
 * uptime that jumps back but stays longer than elapsed is a clock jump, not a restart. Unknown
 * uptimes (< 0) never mean a restart. */
bool rate_restarted(int64_t prev_uptime_ms, int64_t cur_uptime_ms, int64_t elapsed_ms);

#endif
