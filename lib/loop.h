/* SPDX-License-Identifier: Apache-2.0 */
/* loop: the daemon's single event loop (epoll for fds, a binary heap for timers, a quit flag).
 * Collectors join it with their sockets and timeouts. Callbacks run on the loop thread only;
 * no callback may block (no disk, no DNS without a resolver thread, no sleeping). */
#ifndef WGWATCH_LOOP_H
#define WGWATCH_LOOP_H

#include <stdint.h>

typedef struct loop loop_t;

#define LOOP_READ  1
#define LOOP_WRITE 2

typedef void (*loop_fd_fn)(int fd, int events, void *arg); /* events: LOOP_READ|LOOP_WRITE */
typedef void (*loop_timer_fn)(void *arg);
typedef uint64_t loop_timer_id; /* 0 is never a valid id */

loop_t *loop_create(void);
void loop_destroy(loop_t *l);

/* Watch fd for events (LOOP_READ|LOOP_WRITE); calling again for the same fd changes the events
 * and callback. Returns 0, or -1 with errno set. */
int loop_watch_fd(loop_t *l, int fd, int events, loop_fd_fn fn, void *arg);
void loop_unwatch_fd(loop_t *l, int fd); /* safe to call from its callback */
/* Parks a watched fd that will be wanted again soon (an idle keep-alive connection): fn now
 * gets its events, and no system call is made, now or when loop_watch_fd takes it back with
 * the same events. The caller must loop_unwatch_fd it before closing it. */
void loop_park_fd(loop_t *l, int fd, loop_fd_fn fn, void *arg);

/* Run fn once at monotonic time at_ms (see loop_now_ms). Returns an id for loop_cancel. */
loop_timer_id loop_at(loop_t *l, int64_t at_ms, loop_timer_fn fn, void *arg);
loop_timer_id loop_after(loop_t *l, int64_t delay_ms, loop_timer_fn fn, void *arg);
void loop_cancel(loop_t *l, loop_timer_id id); /* unknown or fired ids are ignored */

int64_t loop_now_ms(loop_t *l); /* monotonic milliseconds, cached per iteration */

/* Run until loop_stop. Returns 0, or -1 if epoll failed. */
int loop_run(loop_t *l);
void loop_stop(loop_t *l);                  /* async-signal-safe */
int64_t loop_heartbeat_ms(const loop_t *l); /* monotonic time of the last iteration; any thread */

#endif
