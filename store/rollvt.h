/* SPDX-License-Identifier: Apache-2.0 */
/* rollvt: store_cpu_rollup, store_iface_rollup and store_peer_rollup, eponymous virtual tables
 * with the columns of cpu_rollup, iface_rollup and peer_rollup whose rows are those of the table
 * and of rollup_chunks alike (store/rollstore.h), as the table held them: what the SQL readers
 * of roll-ups read in place of the tables, as the maintenance job chunks closed days; and
 * store_cpu_rollup_1h, store_iface_rollup_1h, store_peer_rollup_1h the same for the hourly
 * tier's tables (schema 017). Read only. */
#ifndef WGWATCH_ROLLVT_H
#define WGWATCH_ROLLVT_H

#include <sqlite3.h>

/* The three modules on db (SQLite rc). */
int rollvt_register(sqlite3 *db);

#endif
