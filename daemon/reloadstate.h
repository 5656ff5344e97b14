/* SPDX-License-Identifier: Apache-2.0 */
/* reloadstate: the outcome of the daemon's newest configuration load, in a file beside the
 * database (wgwatchd.reload), so that `wgwatchd --reload PID` (systemd's ExecReload) can say
 * whether the reload it asked for was taken or refused. It holds a count and a word, never a
 * value of the configuration. */
#ifndef WGWATCH_RELOADSTATE_H
#define WGWATCH_RELOADSTATE_H

#include <stdbool.h>

/* The file's path for the database at database (beside it). */
char *reloadstate_path(const char *database);
/* Writes "GEN ok" or "GEN refused" atomically (a temporary file renamed). -1 with *cause. */
int reloadstate_write(const char *database, unsigned long gen, bool ok, char **cause);
/* The file's count and outcome; -1 when it is missing or not of this form. */
int reloadstate_read(const char *database, unsigned long *gen, bool *ok);

#endif
