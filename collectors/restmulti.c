/* SPDX-License-Identifier: Apache-2.0 */
/* restmulti: a curl multi handle on the daemon's loop (curl docs/examples/ephiperfifo.c): the
 * sockets curl asks for are watched by the loop, curl's timeout is a loop timer, and finished
 * transfers are handed to the owner. It must never block, nor touch a transfer's easy handle. */
#include "config.h"
#include "collectors/restmulti.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <unistd.h>

struct restmulti {
	loop_t *loop;
	const bool *dying; /* the owner is being destroyed: no new timers */
	restmulti_done_fn done;
	CURLM *multi;
	loop_timer_id timer; /* curl's timeout for this multi */
	int *fds;            /* sockets curl asked us to watch */
	size_t nfds;
	size_t nrouters; /* routers joined */
};

static void restmulti_check(restmulti_t *rm)
{
	CURLMsg *m;
	int left;
	while ((m = curl_multi_info_read(rm->multi, &left)) != NULL) {
		if (m->msg == CURLMSG_DONE)
			rm->done(m->easy_handle, m->data.result);
	}
}

static void restmulti_on_fd(int fd, int events, void *arg)
{
	restmulti_t *rm = arg;
	int running;
	int flags = (events & LOOP_READ ? CURL_CSELECT_IN : 0) | (events & LOOP_WRITE ? CURL_CSELECT_OUT : 0);
	curl_multi_socket_action(rm->multi, fd, flags, &running);
	restmulti_check(rm);
}

static void restmulti_on_timer(void *arg)
{
	restmulti_t *rm = arg;
	int running;
	rm->timer = 0;
	curl_multi_socket_action(rm->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	restmulti_check(rm);
}

static void restmulti_fd_forget(restmulti_t *rm, int fd)
{
	for (size_t i = 0; i < rm->nfds; i++) {
		if (rm->fds[i] == fd) {
			rm->fds[i] = rm->fds[--rm->nfds];
			return;
		}
	}
}

/* An idle connection in curl's cache spoke (the router closed it, or sent what nobody asked
 * for): stop watching it; curl finds it dead when it would reuse it, and closes it. */
static void restmulti_on_parked(int fd, int events, void *arg)
{
	restmulti_t *rm = arg;
	loop_unwatch_fd(rm->loop, fd);
}

/* sockp is non-NULL once the socket is in rm->fds (set with curl_multi_assign). A socket curl
 * no longer needs is mostly a kept-alive connection that the next poll takes back: it stays in
 * epoll, parked, so that neither step costs a system call (restmulti_close unwatches it). */
static int restmulti_sock_cb(CURL *e, curl_socket_t fd, int what, void *arg, void *sockp)
{
	restmulti_t *rm = arg;
	if (what == CURL_POLL_REMOVE) {
		if (sockp != NULL)
			restmulti_fd_forget(rm, fd);
		loop_park_fd(rm->loop, fd, restmulti_on_parked, rm);
		return 0;
	}
	int ev = (what & CURL_POLL_IN ? LOOP_READ : 0) | (what & CURL_POLL_OUT ? LOOP_WRITE : 0);
	if (loop_watch_fd(rm->loop, fd, ev, restmulti_on_fd, rm) < 0)
		return -1;
	if (sockp == NULL) {
		rm->fds = xreallocarray(rm->fds, rm->nfds + 1, sizeof(*rm->fds));
		rm->fds[rm->nfds++] = fd;
		curl_multi_assign(rm->multi, fd, rm);
	}
	return 0;
}

static int restmulti_timer_cb(CURLM *multi, long timeout_ms, void *arg)
{
	restmulti_t *rm = arg;
	if (rm->timer)
		loop_cancel(rm->loop, rm->timer);
	rm->timer = 0;
	if (timeout_ms >= 0 && !*rm->dying)
		rm->timer = loop_after(rm->loop, timeout_ms, restmulti_on_timer, rm);
	return 0;
}

restmulti_t *restmulti_create(loop_t *loop, const bool *dying, restmulti_done_fn done)
{
	CURLM *multi = curl_multi_init();
	if (multi == NULL)
		return NULL;
	restmulti_t *rm = xcalloc(1, sizeof(*rm));
	rm->loop = loop;
	rm->dying = dying;
	rm->done = done;
	rm->multi = multi;
	curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, restmulti_sock_cb);
	curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, rm);
	curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, restmulti_timer_cb);
	curl_multi_setopt(multi, CURLMOPT_TIMERDATA, rm);
	curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 8L);
	return rm;
}

void restmulti_destroy(restmulti_t *rm)
{
	curl_multi_cleanup(rm->multi);
	/* Cached connections may close without a CURL_POLL_REMOVE: drop their watches. */
	for (size_t i = 0; i < rm->nfds; i++)
		loop_unwatch_fd(rm->loop, rm->fds[i]);
	if (rm->timer)
		loop_cancel(rm->loop, rm->timer);
	free(rm->fds);
	free(rm);
}

int restmulti_close(void *loop, curl_socket_t fd)
{
	loop_unwatch_fd(loop, fd);
	return close(fd);
}

CURLM *restmulti_curl(const restmulti_t *rm)
{
	return rm->multi;
}

size_t restmulti_routers(const restmulti_t *rm)
{
	return rm->nrouters;
}

void restmulti_join(restmulti_t *rm)
{
	rm->nrouters++;
	curl_multi_setopt(rm->multi, CURLMOPT_MAXCONNECTS, (long)rm->nrouters + 8);
}

void restmulti_leave(restmulti_t *rm)
{
	rm->nrouters--;
}
