/* SPDX-License-Identifier: Apache-2.0 */
/* capread: one capacity pass (docs/detector.md, "Capacity headroom"): every router's WireGuard
 * streams' capacity, demand, headroom and date, read from the database through data and judged
 * by capacity. A reader: it returns what it read and changes no caller's state; it never writes
 * the database and never calls the detector above it. */
#ifndef WGWATCH_CAPREAD_H
#define WGWATCH_CAPREAD_H

#include <stddef.h>
#include <stdint.h>

#include "detector/capacity.h"
#include "detector/data.h"
#include "detector/frame.h"
#include "lib/worker.h"

/* Every router's streams as of its own last poll, routers by name: its newest window (before_ms
 * back from its last poll, never across its last version change) and 8 weeks and a day of its
 * roll-ups, into *out and *n (capread_free). A stopping worker w (NULL: none) ends the pass
 * between routers with what it has. -1 with *cause, and nothing in *out. */
int capread_all(data_t *data, const struct frame_params *p, int64_t before_ms, worker_t *w,
	struct capacity **out, size_t *n, char **cause);
void capread_free(struct capacity *c, size_t n); /* each one's strings, then c */

#endif
