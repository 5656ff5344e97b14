/* SPDX-License-Identifier: Apache-2.0 */
/* offload: one worker thread with a queue in, and a queue out that a pipe tells the loop
 * about. It must never call done off the loop thread, nor lose a piece: every piece given is
 * run and delivered, at the latest by offload_destroy. */
#include "config.h"
#include "lib/offload.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/xmem.h"

struct offload_piece {
	offload_fn work, done;
	void *arg;
	struct offload_piece *next;
};

struct offload_list {
	struct offload_piece *head, *tail;
};

struct offload {
	loop_t *loop;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;
	struct offload_list todo, done; /* under mu */
	bool stopping;
	int pipe[2]; /* a byte in [1] when done went from empty to not */
};

static void offload_push(struct offload_list *l, struct offload_piece *p)
{
	p->next = NULL;
	if (l->tail)
		l->tail->next = p;
	else
		l->head = p;
	l->tail = p;
}

static struct offload_piece *offload_take_all(struct offload_list *l)
{
	struct offload_piece *p = l->head;
	l->head = l->tail = NULL;
	return p;
}

static void *offload_thread(void *arg)
{
	offload_t *o = arg;
	pthread_setname_np(pthread_self(), "wg-offload"); /* by itself: prctl, no /proc file opened */
	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (o->todo.head == NULL && !o->stopping)
			pthread_cond_wait(&o->wake, &o->mu);
		struct offload_piece *p = o->todo.head;
		if (p == NULL)
			break; /* stopping, and nothing left to run */
		o->todo.head = p->next;
		if (o->todo.head == NULL)
			o->todo.tail = NULL;
		pthread_mutex_unlock(&o->mu);
		p->work(p->arg);
		pthread_mutex_lock(&o->mu);
		bool was_empty = o->done.head == NULL;
		offload_push(&o->done, p);
		ssize_t n = was_empty ? write(o->pipe[1], "", 1) : 0;
		(void)n; /* a full pipe: the loop has a byte to read already */
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

/* Loop thread: every done callback due, in order. */
static void offload_deliver(offload_t *o)
{
	pthread_mutex_lock(&o->mu);
	struct offload_piece *p = offload_take_all(&o->done);
	pthread_mutex_unlock(&o->mu);
	while (p != NULL) {
		struct offload_piece *next = p->next;
		p->done(p->arg);
		free(p);
		p = next;
	}
}

static void offload_on_pipe(int fd, int events, void *arg)
{
	(void)events;
	char buf[64];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	offload_deliver(arg);
}

offload_t *offload_create(loop_t *l)
{
	offload_t *o = xcalloc(1, sizeof(*o));
	o->loop = l;
	if (pipe2(o->pipe, O_NONBLOCK | O_CLOEXEC) != 0) {
		free(o);
		return NULL;
	}
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->wake, NULL);
	int e = loop_watch_fd(l, o->pipe[0], LOOP_READ, offload_on_pipe, o) != 0 ? errno : 0;
	if (e == 0)
		e = pthread_create(&o->thread, NULL, offload_thread, o);
	if (e == 0)
		return o;
	loop_unwatch_fd(l, o->pipe[0]);
	close(o->pipe[0]);
	close(o->pipe[1]);
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->wake);
	free(o);
	errno = e;
	return NULL;
}

void offload_run(offload_t *o, offload_fn work, offload_fn done, void *arg)
{
	struct offload_piece *p = xcalloc(1, sizeof(*p));
	p->work = work;
	p->done = done;
	p->arg = arg;
	pthread_mutex_lock(&o->mu);
	offload_push(&o->todo, p);
	pthread_cond_signal(&o->wake);
	pthread_mutex_unlock(&o->mu);
}

void offload_destroy(offload_t *o)
{
	if (o == NULL)
		return;
	pthread_mutex_lock(&o->mu);
	o->stopping = true;
	pthread_cond_signal(&o->wake);
	pthread_mutex_unlock(&o->mu);
	pthread_join(o->thread, NULL); /* it runs what is queued before it ends */
	offload_deliver(o);
	loop_unwatch_fd(o->loop, o->pipe[0]);
	close(o->pipe[0]);
	close(o->pipe[1]);
	pthread_mutex_destroy(&o->mu);
	pthread_cond_destroy(&o->wake);
	free(o);
}
