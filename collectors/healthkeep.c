/* SPDX-License-Identifier: Apache-2.0 */
/* healthkeep: the kept health answer of one router (collectors/healthkeep.h): a sample holding
 * only sensors, where it came from and when. No I/O; its time is the samples' own monotonic
 * stamps, never the process's clock, so a poll of the past (wgwatch-fill) keeps it alike. */
#include "config.h"
#include "collectors/healthkeep.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

struct healthkeep {
	sample_t *kept; /* sensors only; NULL until a first read */
	char *source;
	int64_t mono_ms; /* the kept sample's mono_ms */
};

healthkeep_t *healthkeep_create(void)
{
	return xcalloc(1, sizeof(healthkeep_t));
}

void healthkeep_destroy(healthkeep_t *k)
{
	if (k == NULL)
		return;
	sample_free(k->kept);
	free(k->source);
	free(k);
}

bool healthkeep_use(healthkeep_t *k, sample_t *s, const char *source)
{
	if (k->kept == NULL || s->mono_ms - k->mono_ms >= HEALTHKEEP_EVERY_MS ||
		strcmp(k->source, source ? source : "") != 0)
		return false;
	sample_copy_sensors(s, k->kept);
	return true;
}

void healthkeep_save(healthkeep_t *k, const sample_t *s, const char *source)
{
	if (!s->health_fresh)
		return;
	sample_free(k->kept);
	free(k->source);
	k->kept = sample_new("", 0, s->source);
	sample_copy_sensors(k->kept, s);
	k->source = xstrdup(source ? source : "");
	k->mono_ms = s->mono_ms;
}
