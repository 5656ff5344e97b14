/* scenario_int: what scenario.c and scgroup.c share while reading a scenario file; for those
 * two files only. */
#ifndef WGWATCH_SCENARIO_INT_H
#define WGWATCH_SCENARIO_INT_H

#include "sim/scenario.h"

/* strsep-like: the next sep-separated piece of *s, or NULL at the end. */
char *scenario_split_next(char **s, char sep);
/* s without leading and trailing white space (trailing cut in place). */

/* Keys only a group has (not changeable on the timeline). 0 ok, -1 bad value, -2 unknown. */
int scgroup_set(struct sc_group *g, const char *k, const char *v);
/* *dst = a copy of v (1..64 characters, no quote or backslash): 0; else -1, *dst as it was. */
int scgroup_set_str(char **dst, const char *v);
/* "wg0:24, wg1:6" or "none": the group's WireGuard interfaces and their peers. 0 or -1. */
int scgroup_parse_wg(struct sc_group *g, const char *v);

#endif
