/* SPDX-License-Identifier: Apache-2.0 */
/* pollsvt: store_polls, an eponymous virtual table with the columns of the polls table whose
 * rows are those of polls and chunks alike (store/chunkstore.h), as polls held them: what the
 * SQL readers of raw polls are to read in place of main.polls once chunks are written. Read
 * only. Not yet read by any reader (docs/benchmarks.md). */
#ifndef WGWATCH_POLLSVT_H
#define WGWATCH_POLLSVT_H

#include <sqlite3.h>

/* The module on db (SQLite rc). */
int pollsvt_register(sqlite3 *db);

#endif
