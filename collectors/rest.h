/* SPDX-License-Identifier: Apache-2.0 */
/* rest: the RouterOS REST collector. Polls routers with libcurl's multi socket API joined to the
 * daemon's loop: GET system/resource, system/resource/cpu, system/routerboard, interface
 * (type=wg plus configured names), interface/wireguard/peers, each with .proplist, over one
 * keep-alive connection per router. Never requests private or preshared keys; never puts the
 * password in a log line, an error string or a sample. */
#ifndef WGWATCH_REST_H
#define WGWATCH_REST_H

#include <stddef.h>

#include "daemon/collector.h"
#include "lib/loop.h"

typedef struct rest rest_t;

/* max_body_bytes caps each reply (a bigger body fails the poll with SAMPLE_ERR_SIZE). */
rest_t *rest_create(loop_t *loop, size_t max_body_bytes);
void rest_destroy(rest_t *r);          /* detaches the handles left (their polls end without done) */
collector_t rest_collector(rest_t *r); /* the collector interface for the poller */

#endif
