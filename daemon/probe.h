/* SPDX-License-Identifier: Apache-2.0 */
/* probe: the result of one fixed-rate probe of a router (RouterOS /tool/bandwidth-test through
 * a tunnel): per direction measured, the rate offered and delivered, the loss and the CPU loads.
 * Plain data like a sample, owned by whoever holds the pointer. */
#ifndef WGWATCH_PROBE_H
#define WGWATCH_PROBE_H

#include <stdint.h>

typedef struct probe {
	char *router;
	int64_t time_ms;          /* wall clock when the probe ended */
	int64_t duration_ms;      /* how long it ran */
	const char *direction;    /* measured: "transmit" or "receive" (static) */
	const char *configured;   /* probe_direction: "transmit", "receive" or "both" (static); a
				   * both probe is two, one per direction measured */
	double offered_bps;       /* probe_rate */
	double delivered_bps;     /* tx- or rx-total-average of the last record */
	int64_t lost_packets;     /* of the last second (RouterOS counts no more); -1 when not told */
	double local_cpu_load;    /* 0..1, -1 when not told */
	double remote_cpu_load;   /* 0..1, -1 when not told */
	double busiest_core_load; /* 0..1: the busiest core in the polls during the probe; -1 none */
} probe_t;

/* A probe of one direction, configured as that direction (set configured for both). */
probe_t *probe_new(const char *router, int64_t time_ms, const char *direction);
void probe_free(probe_t *p);
probe_t *probe_dup(const probe_t *p);

#endif
