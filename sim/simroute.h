/* SPDX-License-Identifier: Apache-2.0 */
/* simroute: a simulated router's routing table and `/ip/route/check` (docs/sim.md): which
 * interface and next hop a destination leaves by. Pure functions of the scenario's `routes`. */
#ifndef WGWATCH_SIMROUTE_H
#define WGWATCH_SIMROUTE_H

#include <stddef.h>

/* Checks a `routes` value: "PREFIX IFACE[, PREFIX IFACE ...]" (IPv4 prefixes; the interface
 * name may hold spaces but no comma). 0, or -1 when any entry is bad. */
int simroute_valid(const char *routes);

/* The route of dst (dotted IPv4) in routes (NULL: none configured) plus the implicit default
 * 0.0.0.0/0 via ether1: the interface and next hop of the longest matching prefix, 0; -1 when
 * dst is not an IPv4 address. */
int simroute_check(
	const char *routes, const char *dst, char *iface, size_t isize, char *nexthop, size_t nsize);

#endif
