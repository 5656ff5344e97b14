/* SPDX-License-Identifier: Apache-2.0 */
/* worker: one thread per background job (see worker.h). Knows nothing of what a tick does;
 * never calls tick after worker_stop has begun. */
#include "config.h"
#include "lib/worker.h"

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "lib/xmem.h"

struct worker {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake; /* waits on CLOCK_MONOTONIC */
	atomic_bool stopping;
	bool woken; /* under mu: a wake came while the tick ran */
	int64_t every_ms;
	int64_t next_ms; /* the tick thread only: the wait after this tick; -1: every_ms */
	worker_tick_fn tick;
	void *arg;
	char name[16]; /* the thread's, set by itself (prctl: no file of /proc opened for it) */
};

static void *worker_main(void *arg)
{
	worker_t *w = arg;
	pthread_setname_np(pthread_self(), w->name); /* a help, not a need: no error */
	while (!atomic_load(&w->stopping)) {
		w->next_ms = -1;
		w->tick(w->arg);
		int64_t wait = w->next_ms >= 0 && w->next_ms < w->every_ms ? w->next_ms : w->every_ms;
		struct timespec ts = clock_mono_deadline(wait);
		pthread_mutex_lock(&w->mu);
		if (!atomic_load(&w->stopping) && !w->woken)
			pthread_cond_timedwait(&w->wake, &w->mu, &ts);
		w->woken = false;
		pthread_mutex_unlock(&w->mu);
	}
	return NULL;
}

int worker_start(const char *name, int64_t every_ms, worker_tick_fn tick, void *arg, worker_t **out)
{
	worker_t *w = xcalloc(1, sizeof(*w));
	w->every_ms = every_ms;
	w->tick = tick;
	w->arg = arg;
	snprintf(w->name, sizeof(w->name), "%s", name);
	pthread_mutex_init(&w->mu, NULL);
	clock_cond_init(&w->wake);
	*out = w; /* before the thread starts: its first tick may read it */
	int err = pthread_create(&w->thread, NULL, worker_main, w);
	if (err != 0) {
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->mu);
		free(w);
		*out = NULL;
		return err;
	}
	return 0;
}

void worker_wake(worker_t *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	w->woken = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->mu);
}

void worker_next(worker_t *w, int64_t ms)
{
	if (w != NULL && (w->next_ms < 0 || ms < w->next_ms))
		w->next_ms = ms < 0 ? 0 : ms;
}

bool worker_stopping(worker_t *w)
{
	return w != NULL && atomic_load(&w->stopping);
}

void worker_stop(worker_t *w)
{
	if (w == NULL)
		return;
	pthread_mutex_lock(&w->mu);
	atomic_store(&w->stopping, true);
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->mu);
	free(w);
}
