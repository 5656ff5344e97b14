/* SPDX-License-Identifier: Apache-2.0 */
/* profile: one CPU profile of one router (RouterOS /tool/profile cpu=all), averaged over its
 * frames: per core and classifier, the share of that core in percent. Plain data like a
 * sample, owned by whoever holds the pointer; names come from routers: untrusted text. */
#ifndef WGWATCH_PROFILE_H
#define WGWATCH_PROFILE_H

#include <stddef.h>
#include <stdint.h>

struct profile_row {
	int cpu;      /* core index; -1 for a whole-router row */
	char *name;   /* classifier ("networking", "idle", ...); "total": the core's (or router's) sum */
	double usage; /* percent of that core, 0..100 */
};

typedef struct profile {
	char *router;
	int64_t time_ms;     /* wall clock when the profile ended */
	int64_t duration_ms; /* how long it sampled */
	size_t nrows;
	struct profile_row *rows;
} profile_t;

profile_t *profile_new(const char *router, int64_t time_ms);
void profile_free(profile_t *p);
profile_t *profile_dup(const profile_t *p);
/* Adds usage to the row (cpu, name), made with 0 when there is none yet; returns the row. */
struct profile_row *profile_add(profile_t *p, int cpu, const char *name, double usage);
/* The row (cpu, name), or NULL. */
const struct profile_row *profile_find(const profile_t *p, int cpu, const char *name);
/* Core c's load in percent: its "total" row, else the sum of its classifiers other than idle;
 * -1 when it has no row. */
double profile_core_load(const profile_t *p, int c);
/* The busiest core: highest "total" row, or without one the highest sum of classifiers other
 * than idle; -1 when p has no per-core row. */
int profile_busiest(const profile_t *p);
/* Sorts rows by core (whole-router rows first), then by usage, highest first. */
void profile_sort(profile_t *p);

#endif
