/* SPDX-License-Identifier: Apache-2.0 */
/* probepair: the detector's highest-confidence method, a fixed-rate probe pair across a version
 * change (docs/detector.md). Pure: the caller loads the probes (data.c) and hands them in; it
 * calls nothing above it. */
#ifndef WGWATCH_DETECTOR_PROBEPAIR_H
#define WGWATCH_DETECTOR_PROBEPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detector/frame.h"

struct probepair_row { /* one stored probe */
	int64_t t, duration_ms;
	bool transmit;                      /* else receive */
	double offered, delivered, busiest; /* bits/s; busiest-core load 0..1 or NAN */
};

struct probepair_set {              /* a router's probes over an event's windows and its peers' addresses */
	struct probepair_row *rows; /* ascending time */
	size_t n, cap;
	char **peers; /* [2 * i] a WireGuard interface, [2 * i + 1] its peer's allowed addresses */
	size_t npeers, cappeers;
};

/* Where p holds a probe pair around the version change at t (the newest probe before t, the
 * first that started after it, same direction and offered rate within 1%) through one of the
 * interfaces names[0..nifs) (the one whose peer's allowed addresses hold address, else the
 * only one), it replaces that stream's verdict in r (judge_event's) by one of method probe. */
void probepair_apply(const struct probepair_set *p, const char *address, int64_t t, const char *const *names,
	size_t nifs, const struct frame_params *params, struct frame_result *r);
/* Whether address (IPv4 or IPv6) lies in one of the comma-separated prefixes of list. */
bool probepair_addr_in(const char *address, const char *list);
void probepair_set_free(struct probepair_set *p); /* what p holds, not p */

#endif
