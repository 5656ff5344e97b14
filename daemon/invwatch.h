/* SPDX-License-Identifier: Apache-2.0 */
/* invwatch: tells the loop when the file_sd target files of [daemon] targets changed
 * (daemon/confinv.c reads them at each configuration load), so that it reloads. The files are
 * listed and stat()ed every INVWATCH_EVERY_MS on a thread of its own: a hung mount delays the
 * news, never the loop. */
#ifndef WGWATCH_INVWATCH_H
#define WGWATCH_INVWATCH_H

#include <stdint.h>

#include "lib/loop.h"

#define INVWATCH_EVERY_MS 5000

typedef struct invwatch invwatch_t;

/* A fingerprint of the files matching pattern: names, sizes, times, inodes; 0 for none. */
uint64_t invwatch_sig(const char *pattern);

/* Watches pattern (copied) on l; changed(arg) on the loop thread after a change. NULL when
 * the thread cannot start (logged by the caller: the files are then read at reloads only). */
invwatch_t *invwatch_start(loop_t *l, const char *pattern, void (*changed)(void *), void *arg);
/* Loop thread: the pattern of a configuration just loaded. The fingerprint is not taken again
 * here (no stat on the loop): a change made while that load ran is not lost, at the cost of
 * one reload that finds nothing new. */
void invwatch_set(invwatch_t *w, const char *pattern);
/* Loop thread: stops, waiting for a look in progress; NULL is fine. */
void invwatch_stop(invwatch_t *w);

#endif
