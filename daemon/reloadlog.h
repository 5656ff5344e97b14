/* SPDX-License-Identifier: Apache-2.0 */
/* reloadlog: what wgwatchd logs of a reload (SIGHUP): a refused configuration's errors, how
 * many routers came and went, and the changed settings that wait for a restart. Reads the
 * configurations only; never logs a secret from them. */
#ifndef WGWATCH_RELOADLOG_H
#define WGWATCH_RELOADLOG_H

#include <stddef.h>

#include "daemon/conf.h"

/* One error line "reload: LINE" per non-empty line of text (conf_load's errors). */
void reloadlog_errors(const char *text);
/* How many routers of next are new, and how many of cur are gone (by name). */
void reloadlog_diff(const conf_t *cur, const conf_t *next, size_t *added, size_t *removed);
/* 0 when next may replace cur: it removes (removed, by name) at most next's
 * reload_max_removed percent of cur's routers. Else -1, and the refusal is logged: the counts,
 * each file that lost routers with its counts before and after, and what to do about it. */
int reloadlog_guard(const conf_t *cur, const conf_t *next, size_t removed);
/* A warning for each group of settings that differs between boot, the configuration started
 * with, and next, and that only a restart applies ([daemon] listen, database, max_body,
 * retention; [rollout]). */
void reloadlog_warn(const conf_t *boot, const conf_t *next);

#endif
