/* SPDX-License-Identifier: Apache-2.0 */
/* pollsvt: store_polls, an eponymous virtual table with the columns of the polls table whose
 * rows are those of polls and chunks alike (store/chunkstore.h), as polls held them: what the
 * SQL readers of raw polls read in place of main.polls, as the maintenance job chunks closed
 * hours (chunkstore.h). Read only. */
#ifndef WGWATCH_POLLSVT_H
#define WGWATCH_POLLSVT_H

#include <sqlite3.h>

/* The module on db (SQLite rc). */
int pollsvt_register(sqlite3 *db);

#endif
