/* poller: the scheduler of router polls. Spreads first polls over one interval, keeps each
 * router on its own `next += interval` grid, caps polls in flight, backs off from routers that
 * are down, hands every finished sample to the fleet view and the store, and logs each change
 * of a router's state once. Knows nothing of HTTP or SNMP: it calls registered collectors. */
#ifndef WGWATCH_POLLER_H
#define WGWATCH_POLLER_H

#include <stdio.h>

#include "collector.h"
#include "conf.h"
#include "fleet.h"
#include "loop.h"
#include "store.h"

typedef struct poller poller_t;

poller_t *poller_create(loop_t *loop, const conf_t *conf, fleet_t *fleet, store_t *store);
void poller_destroy(poller_t *p);              /* cancels polls in flight */
void poller_add_collector(poller_t *p, collector_t c);

void poller_start(poller_t *p);                /* poll forever on the interval grid */

/* Poll every router once, print one line per router to out as each finishes, then stop the
 * loop. Returns through poller_once_failed() how many did not answer fully. */
void poller_once(poller_t *p, FILE *out);
size_t poller_once_failed(const poller_t *p);

#endif
