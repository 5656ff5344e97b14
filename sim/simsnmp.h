/* SPDX-License-Identifier: Apache-2.0 */
/* simsnmp: the SNMP v1/v2c face of wgwatch-sim: every router also answers GET, GETNEXT and
 * GETBULK on a UDP socket at its own loopback address, from the same state its REST face
 * serves (HOST-RESOURCES, IF-MIB, MIKROTIK-MIB objects of routeros.md §4). */
#ifndef WGWATCH_SIMSNMP_H
#define WGWATCH_SIMSNMP_H

#include "sim/simrouter.h"

#include <stddef.h>
#include <stdint.h>

typedef struct simsnmp simsnmp_t;

/* Bind one UDP socket per router at addrs[i] (host byte order):port. Requests with another
 * community are dropped, as real agents do. The simulated clock runs at time_scale and reads
 * t0 now (pass simhttp_sim_time so both faces share one clock). Keeps the routers array, not a
 * copy. NULL and *cause (caller frees) on failure. */
simsnmp_t *simsnmp_create(simrouter_t *const *routers, const uint32_t *addrs, size_t n, uint16_t port,
	const char *community, double time_scale, double t0, char **cause);
/* An epoll fd that is readable while a request waits on any router's socket. */
int simsnmp_fd(const simsnmp_t *s);
/* Answer the requests waiting now; never blocks. */
void simsnmp_serve(simsnmp_t *s);
/* Serve from a thread of its own until simsnmp_destroy. 0 or -1 and *cause. */
int simsnmp_start(simsnmp_t *s, char **cause);
/* Stop the thread (if started), close the sockets. */
void simsnmp_destroy(simsnmp_t *s);
/* Requests answered so far (read after the thread stopped, or from it). */
unsigned long simsnmp_answered(const simsnmp_t *s);

#endif
