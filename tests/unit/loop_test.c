/* SPDX-License-Identifier: Apache-2.0 */
/* loop_test: timers fire in order, cancel works, fd readiness is delivered (to the parking
 * callback while parked), stop ends the run. */
#include "config.h"
#include "lib/clock.h"
#include "lib/loop.h"
#include "unit.h"

#include <unistd.h>

static int order[8], norder;
static loop_t *L;

static void mark(void *arg)
{
	order[norder++] = (int)(intptr_t)arg;
}
static void stop_cb(void *arg)
{
	loop_stop(L);
}

static int fd_calls;
static char got;
static void on_read(int fd, int events, void *arg)
{
	CHECK(events & LOOP_READ);
	CHECK_INT(read(fd, &got, 1), 1);
	fd_calls++;
	loop_unwatch_fd(L, fd);
	loop_after(L, 0, stop_cb, NULL);
}

static void test_timers(void)
{
	L = loop_create();
	int64_t now = clock_mono_ms();
	loop_at(L, now + 30, mark, (void *)3);
	loop_at(L, now + 10, mark, (void *)1);
	loop_timer_id c = loop_at(L, now + 15, mark, (void *)99);
	loop_at(L, now + 20, mark, (void *)2);
	loop_at(L, now + 20, mark, (void *)22); /* same time: FIFO */
	loop_at(L, now + 40, stop_cb, NULL);
	loop_cancel(L, c);
	loop_cancel(L, 12345); /* unknown id ignored */
	CHECK_INT(loop_run(L), 0);
	CHECK_INT(norder, 4);
	CHECK_INT(order[0], 1);
	CHECK_INT(order[1], 2);
	CHECK_INT(order[2], 22);
	CHECK_INT(order[3], 3);
	CHECK(clock_mono_ms() - now >= 40);
	CHECK(loop_heartbeat_ms(L) >= now);
	loop_destroy(L);
}

static void test_fd(void)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	L = loop_create();
	CHECK_INT(loop_watch_fd(L, p[0], LOOP_READ, on_read, NULL), 0);
	CHECK_INT(write(p[1], "x", 1), 1);
	CHECK_INT(loop_run(L), 0);
	CHECK_INT(fd_calls, 1);
	CHECK_INT(got, 'x');
	CHECK_INT(loop_watch_fd(L, -1, LOOP_READ, on_read, NULL), -1);
	loop_destroy(L);
	close(p[0]);
	close(p[1]);
}

static int parked_calls;
static void on_parked(int fd, int events, void *arg)
{
	parked_calls++;
	loop_unwatch_fd(L, fd);
	loop_after(L, 0, stop_cb, NULL);
}

/* A parked fd stays in epoll: its events go to the parking callback, and watching it again
 * with the same events hands them back to the watcher. */
static void test_park(void)
{
	int p[2];
	CHECK_INT(pipe(p), 0);
	L = loop_create();
	fd_calls = parked_calls = 0;
	CHECK_INT(loop_watch_fd(L, p[0], LOOP_READ, on_read, NULL), 0);
	loop_park_fd(L, p[0], on_parked, NULL);
	CHECK_INT(write(p[1], "y", 1), 1);
	CHECK_INT(loop_run(L), 0);
	CHECK_INT(parked_calls, 1);
	loop_destroy(L); /* stopped for good: a new loop for the second half */
	L = loop_create();
	CHECK_INT(loop_watch_fd(L, p[0], LOOP_READ, on_read, NULL), 0);
	loop_park_fd(L, p[0], on_parked, NULL);
	CHECK_INT(loop_watch_fd(L, p[0], LOOP_READ, on_read, NULL), 0); /* taken back */
	CHECK_INT(loop_run(L), 0);                                      /* "y" is still unread */
	CHECK_INT(fd_calls, 1);
	CHECK_INT(parked_calls, 1);
	CHECK_INT(got, 'y');
	loop_destroy(L);
	close(p[0]);
	close(p[1]);
}

static int fired[1000];
static void fire(void *arg)
{
	fired[(intptr_t)arg]++;
}

/* Cancel is by slot and generation: a stale id never cancels the timer that reuses its slot,
 * and cancelling many timers in any order leaves exactly the others to fire, in time order. */
static void test_cancel(void)
{
	L = loop_create();
	int64_t now = clock_mono_ms();
	loop_timer_id old = loop_at(L, now, fire, (void *)0);
	loop_cancel(L, old);
	loop_timer_id reused = loop_at(L, now, fire, (void *)1); /* takes the freed slot */
	CHECK(reused != old);
	loop_cancel(L, old); /* stale: must not cancel it */
	loop_timer_id ids[1000];
	for (int i = 2; i < 1000; i++)
		ids[i] = loop_at(L, now + (i * 7919) % 50, fire, (void *)(intptr_t)i);
	for (int i = 2; i < 1000; i += 3)
		loop_cancel(L, ids[i]);
	loop_at(L, now + 60, stop_cb, NULL);
	CHECK_INT(loop_run(L), 0);
	CHECK_INT(fired[0], 0);
	CHECK_INT(fired[1], 1);
	int bad = 0;
	for (int i = 2; i < 1000; i++)
		bad += fired[i] != (i % 3 == 2 ? 0 : 1);
	CHECK_INT(bad, 0);
	loop_cancel(L, ids[3]); /* fired: ignored */
	loop_destroy(L);
}

int main(void)
{
	test_timers();
	test_cancel();
	test_fd();
	test_park();
	return unit_done("loop_test");
}
