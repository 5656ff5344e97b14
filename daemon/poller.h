/* SPDX-License-Identifier: Apache-2.0 */
/* poller: the scheduler of router polls. Spreads first polls over one interval, keeps each
 * router on its own `next += interval` grid, caps polls in flight, backs off from routers that
 * are down, hands every finished sample to the fleet view and a sink (the store), and logs each change
 * of a router's state once. Knows nothing of HTTP or SNMP: it calls registered collectors. */
#ifndef WGWATCH_POLLER_H
#define WGWATCH_POLLER_H

#include <stdio.h>

#include "daemon/collector.h"
#include "daemon/conf.h"
#include "daemon/fleet.h"
#include "lib/loop.h"

typedef struct poller poller_t;

/* Every finished sample goes to fleet (a copy) and then to sink, which takes it. */
poller_t *poller_create(loop_t *loop, const conf_t *conf, fleet_t *fleet, sample_sink_t sink);
void poller_destroy(poller_t *p); /* cancels polls in flight */
void poller_add_collector(poller_t *p, collector_t c);

void poller_start(poller_t *p); /* poll forever on the interval grid */

/* The width in ms of the grid polls start on, for `routers` routers polled every interval_ms:
 * a poll starts up to one slot before it is due, so that polls due close together share the
 * loop's wake-ups. */
int64_t poller_grid_ms(int64_t interval_ms, size_t routers);

/* Follow a reloaded config: returns a started poller of conf with old's loop, fleet, sink and
 * collectors, and destroys old (a poller started with poller_start). Routers are matched by
 * name: a kept one keeps its place on its interval grid and its back-off (a poll it had in
 * flight is cancelled and made again at once), a new one starts within one interval, a removed
 * one stops. Collectors drop every router's connection, so changed settings apply. */
poller_t *poller_reload(poller_t *old, const conf_t *conf);

/* Poll every router once, print one line per router to out as each finishes, then stop the
 * loop. Returns through poller_once_failed() how many did not answer fully. */
void poller_once(poller_t *p, FILE *out);
size_t poller_once_failed(const poller_t *p);

#endif
