/* SPDX-License-Identifier: Apache-2.0 */
/* scenario_int: what scenario.c and scgroup.c share while reading a scenario file; for those
 * two files only. */
#ifndef WGWATCH_SCENARIO_INT_H
#define WGWATCH_SCENARIO_INT_H

#include "sim/scenario.h"

#include <stdbool.h>
#include <stddef.h>

/* strsep-like: the next sep-separated piece of *s, or NULL at the end. */
char *scenario_split_next(char **s, char sep);
/* s without leading and trailing white space (trailing cut in place). */

/* Keys only a group has (not changeable on the timeline). 0 ok, -1 bad value, -2 unknown. */
int scgroup_set(struct sc_group *g, const char *k, const char *v);
/* *dst = a copy of v (1..64 characters, no quote or backslash): 0; else -1, *dst as it was. */
int scgroup_set_str(char **dst, const char *v);
/* "wg0:24, wg1:6" or "none": the group's WireGuard interfaces and their peers. 0 or -1. */
int scgroup_parse_wg(struct sc_group *g, const char *v);

/* True for the CPU model's keys (sccpu.c): demand, cost, follow, work, noise, shared_noise,
 * work_noise, burst. */
bool sccpu_is_key(const char *k);
/* Key k of the CPU model into c, interface names and cores checked against g: 1 done, 0 not a
 * CPU model key, -1 bad value with the reason in why (wl bytes). */
int sccpu_set(const struct sc_group *g, struct sc_cpu *c, const char *k, const char *v, char *why, size_t wl);

/* The diagnostics' keys the timeline may change (scdiag.c): profile_rx, profile_tx,
 * profile_work, diag_refuse. 1 handled, 0 not one of them, -1 bad value. */
int scdiag_state_set(struct sc_state *st, const char *k, const char *v);
/* The diagnostics' group keys: diag_shape, btest_user, btest_password. 0, -1 bad, -2 unknown. */
int scdiag_group_set(struct sc_group *g, const char *k, const char *v);
/* The default classifier shares (docs/sim.md "Diagnostics"). */
void scdiag_defaults(struct sc_state *st);

/* The menu_fault key (scfault.c): 1 handled, 0 another key, -1 bad value. */
int scfault_state_set(struct sc_state *st, const char *k, const char *v);

#endif
