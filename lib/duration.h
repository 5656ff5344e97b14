/* SPDX-License-Identifier: Apache-2.0 */
/* duration: the one grammar of durations in wgwatch's files, the config (daemon/confval.c) and
 * the simulator's scenarios (sim/scenario.c): numbers with units, largest first or not, "250ms",
 * "30s", "5m", "2h", "7d", "1w", "1h30m"; and its shortest form. Never logs. */
#ifndef WGWATCH_DURATION_H
#define WGWATCH_DURATION_H

#include <stdint.h>

#include "lib/buf.h"

#define DURATION_BARE_SECONDS 0x1 /* a bare number is seconds ("90"); else only "0" may be bare */
#define DURATION_FRACTIONS    0x2 /* a number may have a fraction ("1.5h", "0.25") */

/* s into *ms (rounded to the millisecond). -1 with *cause (a phrase to follow the value in a
 * message: "needs a unit: ...") when s is not one, *ms untouched. */
int duration_parse(const char *s, unsigned flags, int64_t *ms, const char **cause);
/* ms (>= 0) appended to b in the grammar's shortest form: "1d", "1h30m", "250ms", "0s"; the
 * largest units first, weeks left as days. */
void duration_fmt(buf_t *b, int64_t ms);

#endif
