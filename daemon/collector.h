/* collector: the interface every data source (collectors/rest.c, later collectors/snmp.c)
 * implements and registers with the poller. The core knows nothing of HTTP or SNMP. */
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
	/* Start one poll of rc (which outlives it). 0 when started, -1 when it could not be. */
	int (*poll)(void *ctx, const conf_router_t *rc, collector_done_fn done, void *arg);
	/* Abandon a poll in flight for rc without calling done (router removed, shutdown). */
	void (*cancel)(void *ctx, const conf_router_t *rc);
} collector_t;

#endif
