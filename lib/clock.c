/* SPDX-License-Identifier: Apache-2.0 */
/* clock: millisecond clocks and the wall-time seam for tests. Never sleeps, never allocates. */
#include "config.h"
#include "lib/clock.h"

static int64_t (*clock_wall_fn)(void);

static int64_t clock_read_ms(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t clock_mono_ms(void)
{
	return clock_read_ms(CLOCK_MONOTONIC);
}

int64_t clock_wall_ms(void)
{
	return clock_wall_fn != NULL ? clock_wall_fn() : clock_read_ms(CLOCK_REALTIME);
}

void clock_set_wall(int64_t (*now)(void))
{
	clock_wall_fn = now;
}

struct timespec clock_mono_deadline(int64_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t ns = ts.tv_nsec + (ms % 1000) * 1000000;
	ts.tv_sec += (time_t)(ms / 1000 + ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	return ts;
}

int clock_cond_init(pthread_cond_t *cond)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	int err = pthread_cond_init(cond, &ca);
	pthread_condattr_destroy(&ca);
	return err;
}

int64_t clock_parse_day(const char *s)
{
	struct tm tm = { 0 };
	const char *end = s ? strptime(s, "%Y-%m-%d", &tm) : NULL;
	if (end == NULL || *end != '\0' || tm.tm_year < 70)
		return -1;
	time_t t = timegm(&tm);
	return t > 0 ? (int64_t)t * 1000 : -1;
}
