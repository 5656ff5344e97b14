/* simhttp: the HTTP/1.1 side of wgwatch-sim: one listening socket per router (its own loopback
 * address, a common port), all served from one thread with one epoll. Applies the network
 * faults (hang, refuse, truncate, slow) and hands each request to simrest. */
#ifndef WGWATCH_SIMHTTP_H
#define WGWATCH_SIMHTTP_H

#include "simrouter.h"

#include <stddef.h>
#include <stdint.h>

typedef struct simhttp simhttp_t;

/* Listen for routers[i] on addrs[i] (host byte order):port, except routers refusing at sim
 * time 0. NULL and *cause (caller frees) on failure. Keeps the routers array, not a copy. */
simhttp_t *simhttp_create(simrouter_t *const *routers, const uint32_t *addrs, size_t n,
			  uint16_t port, double time_scale, char **cause);
/* Serve until SIGTERM or SIGINT (which the caller has blocked). 0 on a clean stop. */
int simhttp_run(simhttp_t *h);
void simhttp_destroy(simhttp_t *h);
/* Simulated seconds since simhttp_create. */
double simhttp_sim_time(const simhttp_t *h);

#endif
