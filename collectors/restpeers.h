/* SPDX-License-Identifier: Apache-2.0 */
/* restpeers: a router's WireGuard peer details (interface, label, key, endpoint, allowed
 * addresses, disabled), kept between REST polls by `.id`. They rarely change, and they are most
 * of the peers' reply: a poll asks them only every peer_details_every polls, or when the cache
 * may be wrong, and the polls in between ask the counters and take the details from here. */
#ifndef WGWATCH_RESTPEERS_H
#define WGWATCH_RESTPEERS_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/conf.h"
#include "daemon/sample.h"

typedef struct restpeers restpeers_t;

restpeers_t *restpeers_create(void);
void restpeers_destroy(restpeers_t *k);
/* Before a poll's peers request, s holding that poll's resource answer: whether it asks the
 * details (restpeers_full) — when nothing is kept, the last peers step failed, every
 * rc->peer_details_every polls (<= 1: always), or s shows a restart or another version. */
void restpeers_plan(restpeers_t *k, const conf_router_t *rc, const sample_t *s);
/* Whether the peers request in hand asks the details. */
bool restpeers_full(const restpeers_t *k);
#define RESTPEERS_AGAIN 1
/* The peers reply into s (restdecode.h), its details kept or filled in from those kept: 0; -1
 * with *cause (caller frees); RESTPEERS_AGAIN when a counters-only reply has a peer not kept
 * or lacks one kept: s has no peers then, and the request must be made again, now full. */
int restpeers_decode(restpeers_t *k, const char *body, size_t len, sample_t *s, char **cause);

#endif
