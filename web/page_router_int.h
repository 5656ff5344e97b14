/* SPDX-License-Identifier: Apache-2.0 */
/* page_router_int: what web/page_router.c and web/page_router_verdicts.c share; nothing outside
 * them includes it. */
#ifndef WGWATCH_PAGE_ROUTER_INT_H
#define WGWATCH_PAGE_ROUTER_INT_H

#include "lib/buf.h"
#include "detector/detector.h"
#include "store/history.h"

/* Escaped text, or a dash for NULL or "". */
void page_router_text(buf_t *out, const char *s);
/* "old → new", or just new when equal or old unknown. */
void page_router_change(buf_t *out, const char *old, const char *new);
/* The upgrade detector's verdicts for router name; nothing while no detector runs. */
void page_router_verdicts(buf_t *out, detector_t *detector, const char *name);
/* When the router's newest version change the detector knows was made (wall ms); 0: none. */
int64_t page_router_latest_upgrade(detector_t *detector, const char *name);
/* The CPU profiles section: per upgrade of h, the profile diff on the busiest core. */
void page_router_profiles(buf_t *out, const char *database, const char *name, const history_t *h);

#endif
