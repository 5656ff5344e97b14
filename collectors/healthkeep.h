/* SPDX-License-Identifier: Apache-2.0 */
/* healthkeep: a router's last health answer, kept by a collector between polls. Sensors move
 * slowly and each read costs the router a request, so both collectors read them at most once
 * every HEALTHKEEP_EVERY_MS and let the polls in between carry the kept answer. */
#ifndef WGWATCH_HEALTHKEEP_H
#define WGWATCH_HEALTHKEEP_H

#include <stdbool.h>

#include "daemon/sample.h"

#define HEALTHKEEP_EVERY_MS 60000

typedef struct healthkeep healthkeep_t;

healthkeep_t *healthkeep_create(void);
void healthkeep_destroy(healthkeep_t *k);
/* When the kept answer is younger than HEALTHKEEP_EVERY_MS at s's instant (mono_ms: both
 * stamped by one clock) and came from source (a URL, an address), copies its sensors into s
 * (health_fresh stays false) and returns true. */
bool healthkeep_use(healthkeep_t *k, sample_t *s, const char *source);
/* Keeps s's sensors, read now from source, when s read them (health_fresh). */
void healthkeep_save(healthkeep_t *k, const sample_t *s, const char *source);

#endif
