/* SPDX-License-Identifier: Apache-2.0 */
/* reload: one load of the configuration at a time, on a thread started for it; the loop learns
 * of its end through a pipe it watches, joins the thread and calls back. It must never read a
 * file on the loop thread, nor touch anything but the conf it builds on the load thread. */
#include "config.h"
#include "daemon/reload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/xmem.h"

struct reload {
	loop_t *loop;
	char *path;
	reload_done_fn done;
	void *arg;
	int pipe[2]; /* the load thread writes a byte to [1] when it has ended */
	pthread_t thread;
	bool running; /* loop thread only */
	bool again;   /* loop thread only: asked for during a load */
	conf_t *next; /* written by the load thread, read after the join */
	char *errors;
};

/* What a load runs: conf_load; a unit test (tests/unit/reload_test.c) puts a slow one here. */
static int (*reload_load)(const char *path, conf_t **out, char **errors) = conf_load;

static void *reload_thread(void *arg)
{
	reload_t *r = arg;
	pthread_setname_np(pthread_self(), "wg-reload"); /* by itself: prctl, no /proc file opened */
	if (reload_load(r->path, &r->next, &r->errors) != 0)
		r->next = NULL;
	ssize_t n = write(r->pipe[1], "", 1);
	(void)n; /* the pipe is empty: only one load runs at a time */
	return NULL;
}

static void reload_start(reload_t *r)
{
	r->next = NULL;
	r->errors = NULL;
	int e = pthread_create(&r->thread, NULL, reload_thread, r);
	if (e != 0) {
		log_error("reload: cannot start a thread to read %s: %s", r->path, strerror(e));
		return;
	}
	r->running = true;
	log_info("reload: reading %s", r->path);
}

static void reload_on_done(int fd, int events, void *arg)
{
	(void)events;
	reload_t *r = arg;
	char b;
	if (read(fd, &b, 1) != 1 || !r->running)
		return;
	pthread_join(r->thread, NULL);
	r->running = false;
	conf_t *next = r->next;
	char *errors = r->errors;
	r->next = NULL;
	r->errors = NULL;
	r->done(next, errors, r->arg);
	if (r->again) {
		r->again = false;
		reload_start(r);
	}
}

reload_t *reload_create(loop_t *l, const char *path, reload_done_fn done, void *arg, char **cause)
{
	reload_t *r = xcalloc(1, sizeof(*r));
	r->loop = l;
	r->path = xstrdup(path);
	r->done = done;
	r->arg = arg;
	r->pipe[0] = r->pipe[1] = -1;
	if (pipe2(r->pipe, O_NONBLOCK | O_CLOEXEC) != 0 ||
		loop_watch_fd(l, r->pipe[0], LOOP_READ, reload_on_done, r) != 0) {
		*cause = xasprintf("cannot watch a pipe: %s", strerror(errno));
		if (r->pipe[0] >= 0) {
			close(r->pipe[0]);
			close(r->pipe[1]);
		}
		free(r->path);
		free(r);
		return NULL;
	}
	return r;
}

void reload_request(reload_t *r)
{
	if (r->running)
		r->again = true;
	else
		reload_start(r);
}

void reload_destroy(reload_t *r)
{
	if (r == NULL)
		return;
	if (r->running) {
		pthread_join(r->thread, NULL);
		conf_free(r->next);
		free(r->errors);
	}
	loop_unwatch_fd(r->loop, r->pipe[0]);
	close(r->pipe[0]);
	close(r->pipe[1]);
	free(r->path);
	free(r);
}
