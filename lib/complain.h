/* SPDX-License-Identifier: Apache-2.0 */
/* complain: throttled reports of a condition that repeats (collectd's c_complain/c_release).
 * The first occurrence is reported, then every Nth with the number held back, and the end of
 * the condition once. Counters only: the caller words and logs the lines. */
#ifndef WGWATCH_COMPLAIN_H
#define WGWATCH_COMPLAIN_H

#include <stdbool.h>
#include <stdint.h>

typedef struct complain {
	uint64_t every; /* report each every-th occurrence after the first; 0 and 1: each one */
	uint64_t count; /* occurrences since the condition began; 0: it is not on */
	uint64_t held;  /* occurrences not reported since the last report */
} complain_t;

void complain_init(complain_t *c, uint64_t every); /* the condition is off */
/* One more occurrence. true when this one is to be reported; *held then gets how many were
 * not reported since the last report (0 for the first). */
bool complain_note(complain_t *c, uint64_t *held);
/* The condition is over: how many times it occurred when it had been reported (the caller logs
 * one recovery line), else 0 (nothing to say). The counters start again. */
uint64_t complain_release(complain_t *c);

#endif
