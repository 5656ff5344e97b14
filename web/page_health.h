/* SPDX-License-Identifier: Apache-2.0 */
/* page_health: the router page's health section (sensors, memory, disk: the newest reading and
 * each sensor's range over the page's time range) and the peer detail cells (endpoint, allowed
 * addresses, disabled) of its peer table. From the database (store/history.h), escaped HTML. */
#ifndef WGWATCH_PAGE_HEALTH_H
#define WGWATCH_PAGE_HEALTH_H

#include <stdbool.h>

#include "lib/buf.h"
#include "store/history.h"

/* The <section id="health">; stale greys it (the router is down: these are its last values). */
void page_health(buf_t *out, const history_t *h, bool stale);
/* Two <td> cells of peer p: its endpoint (or "disabled"), its allowed addresses. */
void page_health_peer_cells(buf_t *out, const struct history_peer *p);
/* The matching two <th> cells. */
void page_health_peer_heads(buf_t *out);

#endif
