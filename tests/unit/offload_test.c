/* SPDX-License-Identifier: Apache-2.0 */
/* offload_test: lib/offload.c. Pieces run off the loop thread in order and come back on it in
 * order; the loop turns while a piece works; destroy runs and delivers what is still queued. */
#include "config.h"
#include "lib/offload.h"
#include "lib/loop.h"
#include "unit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <unistd.h>

#define NPIECES 200

static pthread_t loop_thread;
static int gate[2];
static loop_t *L;
static offload_t *O;

struct piece {
	int index;
	bool held;     /* work waits on the gate */
	bool off_loop; /* work ran on another thread */
	bool on_loop;  /* done ran on the loop thread */
	int done_order;
};

static struct piece pieces[NPIECES];
static int ndone, ticks, ticks_at_first_done = -1;

static void work(void *arg)
{
	struct piece *p = arg;
	p->off_loop = !pthread_equal(pthread_self(), loop_thread);
	if (p->held) {
		char b;
		ssize_t n = read(gate[0], &b, 1);
		(void)n;
	}
}

static void done(void *arg)
{
	struct piece *p = arg;
	p->on_loop = pthread_equal(pthread_self(), loop_thread);
	p->done_order = ndone++;
	if (ticks_at_first_done < 0)
		ticks_at_first_done = ticks;
	if (ndone == NPIECES)
		loop_stop(L);
}

static void tick(void *arg)
{
	(void)arg;
	if (++ticks == 5)
		CHECK_INT(write(gate[1], "g", 1), 1); /* the held first piece may go on */
	if (ticks < 10000)
		loop_after(L, 2, tick, NULL);
}

static void start(void *arg)
{
	(void)arg;
	for (int i = 0; i < NPIECES; i++) {
		pieces[i] = (struct piece){ .index = i, .held = i == 0 };
		offload_run(O, work, done, &pieces[i]);
	}
	loop_after(L, 2, tick, NULL);
}

static void test_order_and_threads(void)
{
	L = loop_create();
	O = offload_create(L);
	CHECK(O != NULL);
	loop_after(L, 0, start, NULL);
	CHECK_INT(loop_run(L), 0);
	CHECK_INT(ndone, NPIECES);
	CHECK(ticks_at_first_done >= 5); /* the loop turned while the first piece waited */
	int bad = 0;
	for (int i = 0; i < NPIECES; i++)
		bad += !pieces[i].off_loop || !pieces[i].on_loop || pieces[i].done_order != i;
	CHECK_INT(bad, 0);
	offload_destroy(O);
	loop_destroy(L);
}

static atomic_int ran;
static int delivered;
static void count_work(void *arg)
{
	(void)arg;
	atomic_fetch_add(&ran, 1);
}
static void count_done(void *arg)
{
	(void)arg;
	delivered++;
}

/* Destroyed with pieces queued and none delivered (the loop never ran): all run, all delivered. */
static void test_destroy_drains(void)
{
	L = loop_create();
	O = offload_create(L);
	for (int i = 0; i < 50; i++)
		offload_run(O, count_work, count_done, NULL);
	offload_destroy(O);
	CHECK_INT(atomic_load(&ran), 50);
	CHECK_INT(delivered, 50);
	loop_destroy(L);
	offload_destroy(NULL);
}

int main(void)
{
	loop_thread = pthread_self();
	CHECK_INT(pipe(gate), 0);
	test_order_and_threads();
	test_destroy_drains();
	return unit_done("offload_test");
}
