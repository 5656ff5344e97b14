/* SPDX-License-Identifier: Apache-2.0 */
/* reload: reads the configuration again, when asked (SIGHUP), on a thread of its own, and hands
 * the result to the loop thread, the only one that may swap it in. The loop never waits on a
 * file: a slow disk, a hung NFS mount or a huge include tree delays the reload, not the polls. */
#ifndef WGWATCH_RELOAD_H
#define WGWATCH_RELOAD_H

#include "daemon/conf.h"
#include "lib/loop.h"

typedef struct reload reload_t;

/* On the loop thread, once a load has ended: next is the new configuration (the callee owns
 * it), or NULL with errors (the callee frees them; NULL when none could be said). */
typedef void (*reload_done_fn)(conf_t *next, char *errors, void *arg);

/* Loads of path will end in done(…, arg) on l. Returns NULL and a cause when the loop cannot
 * be told (no pipe). */
reload_t *reload_create(loop_t *l, const char *path, reload_done_fn done, void *arg, char **cause);
/* Loop thread: start a load; one asked for while another runs starts when that one has ended,
 * so that the file read last is the newest. */
void reload_request(reload_t *r);
/* Waits for a load in progress (its result is dropped) and frees everything; NULL is fine. */
void reload_destroy(reload_t *r);

#endif
