/* SPDX-License-Identifier: Apache-2.0 */
/* healthkeep: the kept health answer of one router (collectors/healthkeep.h): its
 * sensors, where they came from and when. No I/O; its time is the samples' own monotonic
 * stamps, never the process's clock, so a poll of the past (wgwatch-fill) keeps it alike.
 * Kept for every router, so small: the sensors in one array, their names in a block that the
 * polls' samples share (sample_hold) rather than copy. */
#include "config.h"
#include "collectors/healthkeep.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

struct healthkeep {
	struct sample_sensor *sensors; /* names in names: the polls' samples share them */
	size_t n;
	sample_strs_t *names; /* NULL when no sensor */
	char *source;         /* NULL until a first read */
	int64_t mono_ms;      /* the kept sample's mono_ms */
};

healthkeep_t *healthkeep_create(void)
{
	return xcalloc(1, sizeof(healthkeep_t));
}

static void healthkeep_clear(healthkeep_t *k)
{
	free(k->sensors);
	sample_strs_unref(k->names);
	free(k->source);
	k->sensors = NULL;
	k->names = NULL;
	k->source = NULL;
	k->n = 0;
}

void healthkeep_destroy(healthkeep_t *k)
{
	if (k == NULL)
		return;
	healthkeep_clear(k);
	free(k);
}

bool healthkeep_use(healthkeep_t *k, sample_t *s, const char *source)
{
	if (k->source == NULL || s->mono_ms - k->mono_ms >= HEALTHKEEP_EVERY_MS ||
		strcmp(k->source, source ? source : "") != 0)
		return false;
	sample_copy_sensors(s, &(sample_t){ 0 });
	if (k->names != NULL)
		sample_hold(s, k->names); /* else (no slot) the names are copied */
	for (size_t i = 0; i < k->n; i++)
		sample_add_sensor(s, k->sensors[i].name, k->sensors[i].unit, k->sensors[i].value);
	return true;
}

void healthkeep_save(healthkeep_t *k, const sample_t *s, const char *source)
{
	if (!s->health_fresh)
		return;
	healthkeep_clear(k);
	size_t len = 0;
	for (size_t i = 0; i < s->nsensors; i++)
		len += strlen(s->sensors[i].name) + 1;
	char *names = xmalloc(len + 1);
	size_t at = 0;
	for (size_t i = 0; i < s->nsensors; i++) {
		size_t n = strlen(s->sensors[i].name) + 1;
		memcpy(names + at, s->sensors[i].name, n);
		at += n;
	}
	if (s->nsensors > 0) {
		k->names = sample_strs_new(names, len);
		k->sensors = xreallocarray(NULL, s->nsensors, sizeof(*k->sensors));
	}
	free(names);
	const char *name = k->names != NULL ? sample_strs_data(k->names) : NULL;
	for (size_t i = 0; i < s->nsensors; i++, name += strlen(name) + 1)
		k->sensors[i] = (struct sample_sensor){
			.name = (char *)name, .unit = s->sensors[i].unit, .value = s->sensors[i].value
		};
	k->n = s->nsensors;
	k->source = xstrdup(source ? source : "");
	k->mono_ms = s->mono_ms;
}
