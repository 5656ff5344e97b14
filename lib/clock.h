/* SPDX-License-Identifier: Apache-2.0 */
/* clock: the milliseconds every module reads, and the one seam through which a test drives
 * wall time. Monotonic time is never faked: it orders timers and deadlines. */
#ifndef WGWATCH_CLOCK_H
#define WGWATCH_CLOCK_H

#include <stdint.h>
#include <time.h>

int64_t clock_mono_ms(void); /* CLOCK_MONOTONIC, ms */
int64_t clock_wall_ms(void); /* CLOCK_REALTIME, ms, or what clock_set_wall's function says */

/* "YYYY-MM-DD" as wall ms at that day's UTC midnight; -1 when s is not such a day (1970 on). */
int64_t clock_parse_day(const char *s);

/* Tests: make clock_wall_ms() return now() (NULL restores the real clock). Not thread-safe:
 * call before starting the threads that read it. */
void clock_set_wall(int64_t (*now)(void));

/* The CLOCK_MONOTONIC instant ms from now, for pthread_cond_timedwait on a condition variable
 * made with clock_cond_init. */
struct timespec clock_mono_deadline(int64_t ms);

#include <pthread.h>
int clock_cond_init(pthread_cond_t *cond); /* a condition variable that waits on CLOCK_MONOTONIC */

#endif
