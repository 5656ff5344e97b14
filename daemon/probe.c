/* SPDX-License-Identifier: Apache-2.0 */
/* probe: the plain data of one fixed-rate probe (daemon/probe.h): made, copied and freed. No
 * I/O, no parsing of router text: collectors/restdiag.c fills it. */
#include "config.h"
#include "daemon/probe.h"
#include "lib/xmem.h"

#include <stdlib.h>

probe_t *probe_new(const char *router, int64_t time_ms, const char *direction)
{
	probe_t *p = xcalloc(1, sizeof(*p));
	*p = (probe_t){ .router = xstrdup(router),
		.time_ms = time_ms,
		.direction = direction,
		.configured = direction,
		.lost_packets = -1,
		.local_cpu_load = -1,
		.remote_cpu_load = -1,
		.busiest_core_load = -1 };
	return p;
}

void probe_free(probe_t *p)
{
	if (p == NULL)
		return;
	free(p->router);
	free(p);
}

probe_t *probe_dup(const probe_t *p)
{
	probe_t *d = xcalloc(1, sizeof(*d));
	*d = *p;
	d->router = xstrdup(p->router);
	return d;
}
