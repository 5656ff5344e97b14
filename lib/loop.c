/* SPDX-License-Identifier: Apache-2.0 */
/* loop: epoll + a binary min-heap of timers + a quit flag, in the manner of redis' ae.c and
 * chrony's sched.c. Single-threaded: only loop_stop and loop_heartbeat_ms may be called from
 * other threads or signal handlers. */
#include "config.h"
#include "lib/clock.h"
#include "lib/loop.h"
#include "lib/xmem.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

struct loop_fd {
	loop_fd_fn fn;
	void *arg;
	int events;
	bool active;
	bool parked; /* loop_park_fd: still in epoll, and its owner unwatches it before close */
};

struct loop_timer {
	int64_t at_ms;
	uint64_t seq; /* creation order: FIFO among equal times */
	uint32_t slot;
	loop_timer_fn fn;
	void *arg;
};

/* Where a pending timer sits in the heap, so that cancel is O(log n). A timer id is
 * (generation << 32 | slot): a fired or cancelled id no longer matches its slot. */
struct loop_slot {
	uint32_t gen;
	uint32_t pos;
	bool pending;
};

struct loop {
	int epfd;
	struct loop_fd *fds; /* indexed by fd */
	size_t nfds;
	struct loop_timer *heap;
	size_t nheap, capheap;
	struct loop_slot *slots;
	uint32_t *free_slots; /* stack of unused slot numbers */
	size_t nslots, nfree;
	uint64_t next_seq;
	int64_t now_ms;
	volatile sig_atomic_t quit;
	_Atomic int64_t heartbeat_ms;
};

int64_t loop_now_ms(loop_t *l)
{
	return l->now_ms;
}
int64_t loop_heartbeat_ms(const loop_t *l)
{
	return atomic_load(&l->heartbeat_ms);
}
void loop_stop(loop_t *l)
{
	l->quit = 1;
}

loop_t *loop_create(void)
{
	loop_t *l = xcalloc(1, sizeof(*l));
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	l->now_ms = clock_mono_ms();
	atomic_store(&l->heartbeat_ms, l->now_ms);
	return l;
}

void loop_destroy(loop_t *l)
{
	if (l == NULL)
		return;
	close(l->epfd);
	free(l->fds);
	free(l->heap);
	free(l->slots);
	free(l->free_slots);
	free(l);
}

static uint32_t loop_epoll_events(int events)
{
	return (events & LOOP_READ ? EPOLLIN : 0) | (events & LOOP_WRITE ? EPOLLOUT : 0);
}

int loop_watch_fd(loop_t *l, int fd, int events, loop_fd_fn fn, void *arg)
{
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if ((size_t)fd >= l->nfds) {
		size_t n = l->nfds ? l->nfds : 64;
		while (n <= (size_t)fd)
			n *= 2;
		l->fds = xreallocarray(l->fds, n, sizeof(*l->fds));
		memset(l->fds + l->nfds, 0, (n - l->nfds) * sizeof(*l->fds));
		l->nfds = n;
	}
	struct loop_fd *f = &l->fds[fd];
	if (f->active && f->parked && f->events == events) {
		*f = (struct loop_fd){ .fn = fn, .arg = arg, .events = events, .active = true };
		return 0;
	}
	struct epoll_event ev = { .events = loop_epoll_events(events), .data.fd = fd };
	/* An fd closed without unwatch and then reused looks active to us but is unknown to
	 * epoll (and the reverse): retry with the other operation. */
	int op = f->active ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
	if (epoll_ctl(l->epfd, op, fd, &ev) < 0) {
		if (errno != ENOENT && errno != EEXIST)
			return -1;
		op = errno == ENOENT ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
		if (epoll_ctl(l->epfd, op, fd, &ev) < 0)
			return -1;
	}
	*f = (struct loop_fd){ .fn = fn, .arg = arg, .events = events, .active = true };
	return 0;
}

void loop_unwatch_fd(loop_t *l, int fd)
{
	if (fd < 0 || (size_t)fd >= l->nfds || !l->fds[fd].active)
		return;
	/* The fd may already be closed (curl closes before telling us): ignore errors. */
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	l->fds[fd].active = false;
}

void loop_park_fd(loop_t *l, int fd, loop_fd_fn fn, void *arg)
{
	if (fd < 0 || (size_t)fd >= l->nfds || !l->fds[fd].active)
		return;
	l->fds[fd].fn = fn;
	l->fds[fd].arg = arg;
	l->fds[fd].parked = true;
}

static void loop_heap_place(loop_t *l, size_t i, struct loop_timer t)
{
	l->heap[i] = t;
	l->slots[t.slot].pos = (uint32_t)i;
}

static void loop_heap_swap(loop_t *l, size_t a, size_t b)
{
	struct loop_timer t = l->heap[a];
	loop_heap_place(l, a, l->heap[b]);
	loop_heap_place(l, b, t);
}

static bool loop_heap_less(const loop_t *l, size_t a, size_t b)
{
	if (l->heap[a].at_ms != l->heap[b].at_ms)
		return l->heap[a].at_ms < l->heap[b].at_ms;
	return l->heap[a].seq < l->heap[b].seq; /* FIFO for equal times */
}

static void loop_heap_up(loop_t *l, size_t i)
{
	while (i > 0 && loop_heap_less(l, i, (i - 1) / 2)) {
		loop_heap_swap(l, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void loop_heap_down(loop_t *l, size_t i)
{
	for (;;) {
		size_t m = i, c1 = 2 * i + 1, c2 = 2 * i + 2;
		if (c1 < l->nheap && loop_heap_less(l, c1, m))
			m = c1;
		if (c2 < l->nheap && loop_heap_less(l, c2, m))
			m = c2;
		if (m == i)
			return;
		loop_heap_swap(l, i, m);
		i = m;
	}
}

static void loop_heap_remove(loop_t *l, size_t i)
{
	uint32_t slot = l->heap[i].slot;
	l->slots[slot].pending = false;
	l->free_slots[l->nfree++] = slot;
	if (i < --l->nheap) {
		loop_heap_place(l, i, l->heap[l->nheap]);
		loop_heap_down(l, i);
		loop_heap_up(l, i);
	}
}

static uint32_t loop_slot_get(loop_t *l)
{
	if (l->nfree > 0)
		return l->free_slots[--l->nfree];
	if (l->nslots == UINT32_MAX)
		abort(); /* four billion pending timers: our bug */
	l->slots = xreallocarray(l->slots, l->nslots + 1, sizeof(*l->slots));
	l->free_slots = xreallocarray(l->free_slots, l->nslots + 1, sizeof(*l->free_slots));
	l->slots[l->nslots] = (struct loop_slot){ 0 };
	return (uint32_t)l->nslots++;
}

loop_timer_id loop_at(loop_t *l, int64_t at_ms, loop_timer_fn fn, void *arg)
{
	if (l->nheap == l->capheap) {
		l->capheap = l->capheap ? l->capheap * 2 : 64;
		l->heap = xreallocarray(l->heap, l->capheap, sizeof(*l->heap));
	}
	uint32_t slot = loop_slot_get(l);
	struct loop_slot *sl = &l->slots[slot];
	sl->gen = sl->gen == UINT32_MAX ? 1 : sl->gen + 1; /* never 0: id 0 is never valid */
	sl->pending = true;
	loop_heap_place(l, l->nheap,
		(struct loop_timer){
			.at_ms = at_ms, .seq = l->next_seq++, .slot = slot, .fn = fn, .arg = arg });
	loop_heap_up(l, l->nheap++);
	return (uint64_t)sl->gen << 32 | slot;
}

loop_timer_id loop_after(loop_t *l, int64_t delay_ms, loop_timer_fn fn, void *arg)
{
	return loop_at(l, clock_mono_ms() + (delay_ms > 0 ? delay_ms : 0), fn, arg);
}

void loop_cancel(loop_t *l, loop_timer_id id)
{
	uint32_t slot = (uint32_t)id, gen = (uint32_t)(id >> 32);
	if (slot < l->nslots && l->slots[slot].pending && l->slots[slot].gen == gen)
		loop_heap_remove(l, l->slots[slot].pos);
}

static void loop_run_timers(loop_t *l)
{
	/* Run only timers due now; timers they add for "now" wait for the next iteration so
	 * fd events are never starved. */
	uint64_t limit = l->next_seq;
	while (l->nheap > 0 && l->heap[0].at_ms <= l->now_ms && l->heap[0].seq < limit && !l->quit) {
		struct loop_timer t = l->heap[0];
		loop_heap_remove(l, 0);
		t.fn(t.arg);
	}
}

static int loop_wait_ms(const loop_t *l)
{
	if (l->nheap == 0)
		return 1000; /* wake at least each second for the heartbeat */
	int64_t d = l->heap[0].at_ms - clock_mono_ms();
	if (d < 0)
		return 0;
	return d > 1000 ? 1000 : (int)d;
}

static void loop_dispatch(loop_t *l, const struct epoll_event *ev)
{
	int fd = ev->data.fd;
	if ((size_t)fd >= l->nfds || !l->fds[fd].active)
		return;
	struct loop_fd f = l->fds[fd];
	int events = 0;
	if (ev->events & EPOLLIN)
		events |= LOOP_READ;
	if (ev->events & EPOLLOUT)
		events |= LOOP_WRITE;
	if (ev->events & (EPOLLHUP | EPOLLERR))
		events |= f.events; /* let the owner read the EOF or the error */
	f.fn(fd, events, f.arg);
}

int loop_run(loop_t *l)
{
	struct epoll_event evs[256];
	while (!l->quit) {
		int n = epoll_wait(l->epfd, evs, 256, loop_wait_ms(l));
		if (n < 0 && errno != EINTR)
			return -1;
		l->now_ms = clock_mono_ms();
		atomic_store(&l->heartbeat_ms, l->now_ms);
		for (int i = 0; i < n && !l->quit; i++)
			loop_dispatch(l, &evs[i]);
		l->now_ms = clock_mono_ms();
		loop_run_timers(l);
	}
	return 0;
}
