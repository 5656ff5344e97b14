/* SPDX-License-Identifier: Apache-2.0 */
/* restupdate: a router's last /system/package/update answer (check_updates), kept by the REST
 * collector between polls: the version offered moves rarely, and each read costs the router a
 * request, so it is asked at most once every RESTUPDATE_EVERY_MS, a failing router included. */
#ifndef WGWATCH_RESTUPDATE_H
#define WGWATCH_RESTUPDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/conf.h"
#include "daemon/sample.h"

#define RESTUPDATE_EVERY_MS 3600000

typedef struct restupdate restupdate_t;

restupdate_t *restupdate_create(void);
void restupdate_destroy(restupdate_t *u);
/* True when this poll need not ask: check_updates is off, or the kept answer (copied into s)
 * stands. False when it is due; the time of asking is noted then (now_ms, monotonic). */
bool restupdate_use(restupdate_t *u, const conf_router_t *rc, sample_t *s, int64_t now_ms);
/* Keeps what s was told by this poll's read. */
void restupdate_keep(restupdate_t *u, const sample_t *s);

#endif
