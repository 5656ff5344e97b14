/* SPDX-License-Identifier: Apache-2.0 */
/* offload: work the loop thread must not do itself (a big reply to decode), done on a thread
 * of its own, in the order given, with a callback back on the loop thread when each piece is
 * done. The loop never waits for the work; the work never touches the loop. */
#ifndef WGWATCH_OFFLOAD_H
#define WGWATCH_OFFLOAD_H

#include "lib/loop.h"

typedef struct offload offload_t;

typedef void (*offload_fn)(void *arg);

/* A thread for l; NULL with errno when it cannot start (the caller then works inline). */
offload_t *offload_create(loop_t *l);
/* Loop thread: run work(arg) on the offload thread, then done(arg) on the loop thread. Until
 * done runs, arg belongs to work: the caller must not touch what work touches. */
void offload_run(offload_t *o, offload_fn work, offload_fn done, void *arg);
/* Loop thread: runs every piece not yet run, then calls the done of every piece not yet
 * delivered, here; then stops the thread and frees. NULL is fine. */
void offload_destroy(offload_t *o);

#endif
