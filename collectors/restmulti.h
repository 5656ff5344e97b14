/* SPDX-License-Identifier: Apache-2.0 */
/* restmulti: one curl multi handle joined to the daemon's loop through curl's socket and timer
 * callbacks; collectors/rest.c spreads its routers over several. Knows nothing of routers. */
#ifndef WGWATCH_RESTMULTI_H
#define WGWATCH_RESTMULTI_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

#include "lib/loop.h"

typedef struct restmulti restmulti_t;

/* A transfer of the multi ended with res; called from the loop's fd and timer callbacks. */
typedef void (*restmulti_done_fn)(CURL *easy, CURLcode res);

/* NULL when curl cannot make a multi. While *dying, curl's timer requests are not armed. */
restmulti_t *restmulti_create(loop_t *loop, const bool *dying, restmulti_done_fn done);
void restmulti_destroy(restmulti_t *rm);      /* cleans the multi up, then drops its watches and timer */
CURLM *restmulti_curl(const restmulti_t *rm); /* for curl_multi_add_handle and _remove_handle */
/* CURLOPT_CLOSESOCKETFUNCTION of every easy handle (CURLOPT_CLOSESOCKETDATA: the loop_t): a
 * socket is unwatched before it closes, since idle ones stay parked in the loop. */
int restmulti_close(void *loop, curl_socket_t fd);
size_t restmulti_routers(const restmulti_t *rm); /* routers joined and not left */
/* One router more: curl's connection cache keeps room for one idle connection per router. */
void restmulti_join(restmulti_t *rm);
void restmulti_leave(restmulti_t *rm); /* one router less (the cache keeps its size) */

#endif
