/* SPDX-License-Identifier: Apache-2.0 */
/* poller_test: daemon/poller.c's start grid. The grid's width for a fleet size and interval;
 * then a real loop with 100 routers at 500 ms and a collector that answers at once: every poll
 * starts on its router's schedule (at most one slot early, and within its own interval; how
 * late a timer fires is the machine's load and is not judged), and the polls of an interval
 * start at a handful of instants (the grid's slots), not one instant per router. With the wall
 * clock stepped 6 h forward and back through the clock seam, the poller counts two steps, not
 * one per router or poll. */
#include "config.h"
#include "daemon/poller.h"
#include "lib/clock.h"
#include "lib/hash.h"
#include "lib/text.h"
#include "lib/xmem.h"
#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

#define NR      100
#define IV_MS   500
#define MAXSEEN 8

static void test_widths(void)
{
	CHECK_INT(poller_grid_ms(1000, 1000), 16);    /* 16 polls a slot */
	CHECK_INT(poller_grid_ms(1000, 100), 100);    /* 160 ms, but at most a tenth */
	CHECK_INT(poller_grid_ms(1000, 5000), 8);     /* at least 8 ms */
	CHECK_INT(poller_grid_ms(30000, 10000), 100); /* a 300th of the interval */
	CHECK_INT(poller_grid_ms(5000, 200), 400);
	CHECK_INT(poller_grid_ms(1000, 0), 8);
	CHECK_INT(poller_grid_ms(100, 1), 10);
}

struct seen {
	const char *name;
	int64_t at[MAXSEEN];
	int n;
};

struct run {
	loop_t *loop;
	struct seen routers[NR];
	int64_t t0;
};

static struct run R;

struct answer {
	collector_done_fn done;
	void *arg;
	const char *name;
};

static struct seen *seen_of(const char *name)
{
	for (int i = 0; i < NR; i++)
		if (strcmp(R.routers[i].name, name) == 0)
			return &R.routers[i];
	return NULL;
}

static void answer(void *arg)
{
	struct answer *a = arg;
	sample_t *s = sample_new(a->name, 0, "fake");
	sample_stamp(s);
	a->done(s, a->arg);
	free(a);
}

static bool fake_handles(void *ctx, const conf_router_t *rc)
{
	(void)ctx, (void)rc;
	return true;
}

static void *fake_attach(void *ctx, const conf_router_t *rc)
{
	(void)ctx;
	return (void *)rc->name;
}

static void fake_detach(void *ctx, void *handle)
{
	(void)ctx, (void)handle;
}

static int fake_poll(void *ctx, void *handle, const conf_router_t *rc, collector_done_fn done, void *arg)
{
	(void)ctx, (void)handle;
	struct seen *s = seen_of(rc->name);
	CHECK(s != NULL);
	if (s != NULL && s->n < MAXSEEN)
		s->at[s->n++] = clock_mono_ms();
	struct answer *a = xcalloc(1, sizeof(*a));
	*a = (struct answer){ done, arg, rc->name };
	loop_after(R.loop, 0, answer, a);
	return 0;
}

static void fake_cancel(void *ctx, void *handle)
{
	(void)ctx, (void)handle;
}

static void sink_free(void *ctx, sample_t *s)
{
	(void)ctx;
	sample_free(s);
}

static void stop(void *arg)
{
	loop_stop(arg);
}

static conf_t *fleet_conf(void)
{
	char path[] = "/tmp/poller_test.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "[daemon]\ninterval = %dms\n", IV_MS);
	for (int i = 0; i < NR; i++)
		fprintf(f, "[router r%03d]\nrest = http://127.0.0.1:9\n", i);
	fclose(f);
	conf_t *c = NULL;
	char *errors = NULL;
	CHECK_INT(conf_load(path, &c, &errors), 0);
	free(errors);
	unlink(path);
	return c;
}

static int64_t wall_offset; /* what the fake wall clock adds to the real one */

static int64_t fake_wall(void)
{
	clock_set_wall(NULL);
	int64_t now = clock_wall_ms() + wall_offset;
	clock_set_wall(fake_wall);
	return now;
}

static void step_forward(void *arg)
{
	(void)arg;
	wall_offset = 6 * 3600000LL;
}

static void step_back(void *arg)
{
	(void)arg;
	wall_offset = 0;
}

static uint64_t clock_steps(fleet_t *fleet)
{
	fleet_view_t *v = fleet_view(fleet);
	uint64_t n = fleet_view_stats(v)->clock_steps;
	fleet_view_free(v);
	return n;
}

/* Start instants of the first interval's polls, told apart when more than 2 ms apart. */
static int distinct_first_starts(void)
{
	int64_t firsts[NR];
	for (int i = 0; i < NR; i++)
		firsts[i] = R.routers[i].at[0];
	int distinct = 0;
	for (int i = 0; i < NR; i++) {
		bool near = false;
		for (int j = 0; j < i && !near; j++)
			near = llabs(firsts[i] - firsts[j]) <= 2;
		distinct += !near;
	}
	return distinct;
}

/* A loop, fleet and poller of c with the fake collector (R.loop set); *fleet for the caller. */
static poller_t *fake_poller(const conf_t *c, fleet_t **fleet)
{
	R.loop = loop_create();
	*fleet = fleet_create(c);
	poller_t *p = poller_create(R.loop, c, *fleet, (sample_sink_t){ sink_free, NULL });
	poller_add_collector(p,
		(collector_t){
			"fake", NULL, fake_handles, fake_attach, fake_detach, fake_poll, fake_cancel });
	return p;
}

static void test_schedule(void)
{
	conf_t *c = fleet_conf();
	fleet_t *fleet;
	poller_t *p = fake_poller(c, &fleet);
	for (int i = 0; i < NR; i++)
		R.routers[i].name = c->routers[i].name;
	int64_t grid = poller_grid_ms(IV_MS, NR);
	R.t0 = clock_mono_ms();
	poller_start(p);
	loop_at(R.loop, R.t0 + 2 * IV_MS + IV_MS / 4, stop, R.loop);
	loop_run(R.loop);

	int early = 0, not_its_slot = 0;
	for (int i = 0; i < NR; i++) {
		struct seen *s = &R.routers[i];
		CHECK(s->n >= 2);
		/* due = start + the router's phase in its interval (poller.c's poller_phase). The
		 * k-th poll starts in its own interval: not before its slot (timers never fire early),
		 * and before the next poll's slot. How late within that, the machine's load decides
		 * (a timer 60 ms late under ASan is no fault of the poller), so it is not judged. */
		int64_t due = R.t0 + (int64_t)(hash_str64(s->name) % IV_MS);
		for (int k = 0; k < s->n; k++, due += IV_MS) {
			early += s->at[k] < due - grid - 1;
			not_its_slot += s->at[k] >= due + IV_MS - grid;
		}
	}
	CHECK_INT(early, 0);
	CHECK_INT(not_its_slot, 0);
	CHECK_INT(clock_steps(fleet), 0);
	int distinct = distinct_first_starts();
	CHECK(distinct <= IV_MS / grid + 1);
	if (distinct > IV_MS / grid + 1)
		fprintf(stderr, "%d distinct start instants for %d routers, want at most %d\n", distinct, NR,
			(int)(IV_MS / grid + 1));

	poller_destroy(p);
	fleet_destroy(fleet);
	loop_destroy(R.loop);
	conf_free(c);
}

/* Issue 39: a step of the wall clock is counted once, whatever the number of routers polled
 * across it. */
static void test_clock_step(void)
{
	conf_t *c = fleet_conf();
	fleet_t *fleet;
	poller_t *p = fake_poller(c, &fleet);
	for (int i = 0; i < NR; i++)
		R.routers[i] = (struct seen){ .name = c->routers[i].name };
	clock_set_wall(fake_wall);
	R.t0 = clock_mono_ms();
	poller_start(p);
	loop_at(R.loop, R.t0 + IV_MS + IV_MS / 2, step_forward, NULL);
	loop_at(R.loop, R.t0 + 3 * IV_MS + IV_MS / 2, step_back, NULL);
	loop_at(R.loop, R.t0 + 5 * IV_MS, stop, R.loop);
	loop_run(R.loop);
	clock_set_wall(NULL);
	CHECK_INT(clock_steps(fleet), 2);
	poller_destroy(p);
	fleet_destroy(fleet);
	loop_destroy(R.loop);
	conf_free(c);
}

int main(void)
{
	test_widths();
	test_schedule();
	test_clock_step();
	return unit_done("poller_test");
}
