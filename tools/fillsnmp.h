/* SPDX-License-Identifier: Apache-2.0 */
/* fillsnmp: wgwatch-fill's polls of a router that the config reads over SNMP alone: each
 * request the daemon's SNMP collector would send (collectors/snmpstep), answered by the
 * simulated agent (simmib) in memory, decoded by the collector's own decoder. Part of
 * wgwatch-fill, a tool above every layer (tools/): no layer includes it. */
#ifndef WGWATCH_TOOLS_FILLSNMP_H
#define WGWATCH_TOOLS_FILLSNMP_H

#include <stdint.h>

#include "daemon/conf.h"
#include "daemon/sample.h"
#include "sim/simrouter.h"

typedef struct fillsnmp fillsnmp_t;               /* one filling thread's agent */
typedef struct fillsnmp_router fillsnmp_router_t; /* what the collector keeps of a router */

/* Once per process, before the first fillsnmp_create: net-snmp as the daemon sets it up. */
void fillsnmp_lib_init(void);
fillsnmp_t *fillsnmp_create(void);
void fillsnmp_destroy(fillsnmp_t *f);
fillsnmp_router_t *fillsnmp_router_create(void);
void fillsnmp_router_destroy(fillsnmp_router_t *fr);
/* The SNMP poll of r (configured as rc) at wall time ms, simulated time t: what snmpcoll would
 * have stored then. fr's polls come in time order, from one thread at a time. */
sample_t *fillsnmp_poll(fillsnmp_t *f, fillsnmp_router_t *fr, const simrouter_t *r, const conf_router_t *rc,
	int64_t ms, double t);

#endif
