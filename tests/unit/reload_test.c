/* SPDX-License-Identifier: Apache-2.0 */
/* reload_test: daemon/reload.c (included, to put a slow load in its seam). The loop goes on
 * turning while a load is held back; loads asked for during one run once after it, never two
 * at once; a bad file ends in errors and no conf; destroy waits for a load in progress. */
#include "config.h"
#include "daemon/reload.c"
#include "unit.h"

#include <stdatomic.h>
#include <stdio.h>

static int gate[2]; /* each load reads a byte here before it reads the file */
static atomic_int loads, running, overlap;

static int slow_load(const char *path, conf_t **out, char **errors)
{
	if (atomic_fetch_add(&running, 1) != 0)
		atomic_store(&overlap, 1);
	atomic_fetch_add(&loads, 1);
	char b;
	ssize_t n = read(gate[0], &b, 1); /* blocks: the test opens the gate from the loop */
	(void)n;
	int rc = conf_load(path, out, errors);
	atomic_fetch_sub(&running, 1);
	return rc;
}

struct run {
	loop_t *loop;
	reload_t *r;
	int ticks, ticks_at_first_done, dones, nfailed;
	size_t nrouters;
	char *errors;
};

static void on_done(conf_t *next, char *errors, void *arg)
{
	struct run *t = arg;
	if (t->dones++ == 0)
		t->ticks_at_first_done = t->ticks;
	if (next != NULL)
		t->nrouters = next->nrouters;
	else
		t->nfailed++;
	free(t->errors);
	t->errors = errors;
	conf_free(next);
	if (t->dones == 2)
		loop_stop(t->loop);
}

/* Every 5 ms while the loads are held: the loop turns. After 10, the gate opens for both. */
static void on_tick(void *arg)
{
	struct run *t = arg;
	if (++t->ticks == 10)
		CHECK_INT(write(gate[1], "ab", 2), 2);
	if (t->ticks < 2000)
		loop_after(t->loop, 5, on_tick, t);
}

static void on_start(void *arg)
{
	struct run *t = arg;
	reload_request(t->r);
	reload_request(t->r); /* during the first: one more after it */
	reload_request(t->r); /* still one more, not two */
	loop_after(t->loop, 5, on_tick, t);
}

static char *write_conf(const char *text)
{
	char *p = xstrdup("/tmp/reload_test.XXXXXX");
	int fd = mkstemp(p);
	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	return p;
}

static void test_held_load(void)
{
	char *p = write_conf("[router r1]\nrest = https://10.0.0.1\n[router r2]\nrest = https://10.0.0.2\n");
	struct run t = { .loop = loop_create() };
	char *cause = NULL;
	t.r = reload_create(t.loop, p, on_done, &t, &cause);
	CHECK(t.r != NULL);
	loop_after(t.loop, 0, on_start, &t);
	CHECK_INT(loop_run(t.loop), 0);
	CHECK(t.ticks_at_first_done >= 10); /* the loop turned while the load waited */
	CHECK_INT(t.dones, 2);
	CHECK_INT(atomic_load(&loads), 2);
	CHECK_INT(atomic_load(&overlap), 0);
	CHECK_INT(t.nfailed, 0);
	CHECK_INT(t.nrouters, 2);
	reload_destroy(t.r);
	loop_destroy(t.loop);
	unlink(p);
	free(p);
}

static void on_bad_done(conf_t *next, char *errors, void *arg)
{
	struct run *t = arg;
	CHECK(next == NULL);
	t->errors = errors;
	t->dones++;
	loop_stop(t->loop);
}

static void on_bad_start(void *arg)
{
	struct run *t = arg;
	reload_request(t->r);
	CHECK_INT(write(gate[1], "c", 1), 1);
}

static void test_bad_file(void)
{
	char *p = write_conf("[daemon]\ninterval = often\n");
	struct run t = { .loop = loop_create() };
	char *cause = NULL;
	t.r = reload_create(t.loop, p, on_bad_done, &t, &cause);
	loop_after(t.loop, 0, on_bad_start, &t);
	CHECK_INT(loop_run(t.loop), 0);
	CHECK_INT(t.dones, 1);
	CHECK(t.errors != NULL && strstr(t.errors, ":2: ") != NULL);
	free(t.errors);
	reload_destroy(t.r);
	loop_destroy(t.loop);
	unlink(p);
	free(p);
}

/* Destroyed with a load in progress: it waits for it and drops its conf (ASan: no leak). */
static void test_destroy_during_load(void)
{
	char *p = write_conf("[router r1]\nrest = https://10.0.0.1\n");
	loop_t *l = loop_create();
	char *cause = NULL;
	reload_t *r = reload_create(l, p, on_done, NULL, &cause);
	reload_request(r);
	CHECK_INT(write(gate[1], "d", 1), 1);
	reload_destroy(r);
	loop_destroy(l);
	unlink(p);
	free(p);
}

int main(void)
{
	log_set_level(LOG_LVL_ERROR);
	CHECK_INT(pipe(gate), 0);
	reload_load = slow_load;
	test_held_load();
	test_bad_file();
	test_destroy_during_load();
	return unit_done("reload_test");
}
