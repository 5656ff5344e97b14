/* metrics: renders the Prometheus text exposition of the fleet and the daemon itself.
 * Every family is declared once in a table (name, type, help). Label values are escaped per the
 * exposition format. Secrets never reach it: it reads only samples and public config fields. */
#ifndef WGWATCH_METRICS_H
#define WGWATCH_METRICS_H

#include <stdbool.h>

#include "lib/buf.h"
#include "daemon/fleet.h"
#include "store/store.h"
#include "detector/detector.h"

/* Append the whole exposition to out. Reads through a fleet view. */
/* store may be NULL (tests): its series then read 0. */
void metrics_render(fleet_t *fleet, store_t *store, detector_t *detector, buf_t *out);

/* Whether a router's config label named key is left out of its series because a family, or
 * Prometheus itself (job, instance), uses that name; the Alertmanager push leaves out the same. */
bool metrics_label_reserved(const char *key);

#endif
