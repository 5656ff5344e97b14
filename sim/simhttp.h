/* SPDX-License-Identifier: Apache-2.0 */
/* simhttp: the HTTP/1.1 side of wgwatch-sim on libmicrohttpd: one MHD daemon per router (its
 * own loopback address, a common port, no thread of its own), all run from one thread by one
 * epoll over the daemons' epoll fds. Applies the network faults (hang, refuse, truncate, slow,
 * slowloris, reset), serves HTTPS for routers with tls = yes, and hands each request to simrest. */
#ifndef WGWATCH_SIMHTTP_H
#define WGWATCH_SIMHTTP_H

#include "sim/simrouter.h"

#include <stddef.h>
#include <stdint.h>

typedef struct simhttp simhttp_t;

/* Listen for routers[i] on addrs[i] (host byte order):port, except routers refusing at sim
 * time t0, the simulated second the sim starts at (0, or later when the past was filled in). Needs two descriptors per router (listener, MHD's epoll) plus one per connection.
 * NULL and *cause (caller frees) on failure. Keeps the routers array, not a copy. */
simhttp_t *simhttp_create(simrouter_t *const *routers, const uint32_t *addrs, size_t n, uint16_t port,
	double time_scale, double t0, char **cause);
/* Serve until SIGTERM or SIGINT (which the caller has blocked). 0 on a clean stop. */
int simhttp_run(simhttp_t *h);
void simhttp_destroy(simhttp_t *h);
/* Simulated seconds: t0 plus the scaled time since simhttp_create. */
double simhttp_sim_time(const simhttp_t *h);

#endif
