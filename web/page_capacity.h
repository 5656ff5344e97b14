/* SPDX-License-Identifier: Apache-2.0 */
/* page_capacity: the fleet page's capacity headroom (docs/detector.md, Capacity headroom): a
 * router's least headroom as a cell, and the table of the streams closest to their limit. From
 * the detector's view only, escaped HTML, no script. */
#ifndef WGWATCH_PAGE_CAPACITY_H
#define WGWATCH_PAGE_CAPACITY_H

#include "detector/capacity.h"
#include "detector/detector.h"
#include "lib/buf.h"

/* The stream of router with the least known headroom in dv; NULL when none is known. */
const struct capacity *page_capacity_least(const detector_view_t *dv, const char *router);
/* A <td> of c's headroom ("0 % at its limit wg0 tx"), a dash when c is NULL. */
void page_capacity_cell(buf_t *out, const struct capacity *c);
/* The <section id="capacity"> of the ten streams with the least headroom; nothing when none. */
void page_capacity_table(buf_t *out, const detector_view_t *dv);

#endif
