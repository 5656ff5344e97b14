/* SPDX-License-Identifier: Apache-2.0 */
/* restwan: a REST router's WAN (the interfaces its tunnels' outer packets leave by), found from
 * its peers' endpoints with /ip/route/check when `wan =` does not name it. A round checks the
 * endpoints of up to RESTWAN_ENDPOINTS busiest peers, one at the end of each poll, and starts
 * again every RESTWAN_EVERY_MS; what it finds is polled with the WireGuard interfaces from then
 * on. No I/O: collectors/rest.c sends the checks. */
#ifndef WGWATCH_RESTWAN_H
#define WGWATCH_RESTWAN_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/conf.h"
#include "daemon/sample.h"

#define RESTWAN_ENDPOINTS 8
#define RESTWAN_EVERY_MS  3600000
#define RESTWAN_RETRY_MS  300000 /* a round that found no endpoint looks again this soon */

typedef struct restwan restwan_t;

restwan_t *restwan_create(void);
void restwan_destroy(restwan_t *w);
/* The endpoint (dotted IPv4) to check at the end of this poll, whose peers s holds, or NULL:
 * none due, `wan` set, or wan_from_peers = no. Valid until the next call or restwan_done. */
const char *restwan_due(restwan_t *w, const conf_router_t *rc, const sample_t *s, int64_t now_ms);
/* The check of the endpoint restwan_due gave ended: iface found, or NULL when it failed. A
 * failure ends the round (collectors/restopt.h logs it). */
void restwan_done(restwan_t *w, const char *router, const char *iface, int64_t now_ms);
/* The interfaces found, to poll besides `interfaces` (none when `wan` is set or
 * wan_from_peers = no); *n gets their count. */
char *const *restwan_names(const restwan_t *w, const conf_router_t *rc, size_t *n);
/* {"dst-ip":"A","once":""} (malloc'd). */
char *restwan_body(const char *dst);

#endif
