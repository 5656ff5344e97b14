/* SPDX-License-Identifier: Apache-2.0 */
/* profdiff: what changed in a router's CPU profile across an upgrade, in words the router page
 * shows: per classifier, its share of the busiest core before and after, then its mean share
 * across cores ("networking 38 % → 91 % on cpu4, encrypting 9 % → 10 %; across cores:
 * networking 10 % → 18 %, ..."). Pure: no I/O, no state. */
#ifndef WGWATCH_PROFDIFF_H
#define WGWATCH_PROFDIFF_H

#include <stdbool.h>

#include "daemon/profile.h"

#define PROFDIFF_MAX 4 /* classifiers named, the ones that moved most first */

/* The diff of before and after on after's busiest core (before's when after has no core), or
 * NULL when neither has a per-core row (caller frees). Classifier names are router text: the
 * caller escapes the result for its page. */
char *profdiff_text(const profile_t *before, const profile_t *after);
/* The newest profile of v (newest first, n of them) that ended before t_ms, or the oldest that
 * started at or after it (after = true); NULL when there is none. */
const profile_t *profdiff_pick(profile_t *const *v, size_t n, int64_t t_ms, bool after);

#endif
