/* SPDX-License-Identifier: Apache-2.0 */
/* collector: the interface every data source (collectors/rest.c, collectors/snmpcoll.c)
 * implements and registers with the poller. The core knows nothing of HTTP or SNMP; it owns
 * each router's collector state as an opaque handle (collectd's plugin user_data). */
#ifndef WGWATCH_COLLECTOR_H
#define WGWATCH_COLLECTOR_H

#include <stdbool.h>

#include "daemon/conf.h"
#include "daemon/sample.h"

/* Called exactly once per poll, on the loop thread, never from inside poll(). The callee owns s. */
typedef void (*collector_done_fn)(sample_t *s, void *arg);

typedef struct collector {
	const char *name; /* "rest", "snmp" */
	void *ctx;
	bool (*handles)(void *ctx, const conf_router_t *rc);
	/* The collector's state for router rc (its connection, caches), made when the poller binds
	 * rc to it; never NULL. The poller keeps it and frees it with detach. */
	void *(*attach)(void *ctx, const conf_router_t *rc);
	/* Frees a handle of attach, abandoning its poll in flight without calling done. */
	void (*detach)(void *ctx, void *handle);
	/* Start one poll of the handle's router with rc (which outlives it). 0 when started, -1 when
	 * it could not be. */
	int (*poll)(void *ctx, void *handle, const conf_router_t *rc, collector_done_fn done, void *arg);
	/* Abandon the handle's poll in flight without calling done (router removed, shutdown). */
	void (*cancel)(void *ctx, void *handle);
} collector_t;

#endif
