/* SPDX-License-Identifier: Apache-2.0 */
/* shmguard: the database's wal-index (DB-shm) guard, for every connection of this process that
 * may write or checkpoint: the store's and the detector's. It never opens a connection itself. */
#ifndef WGWATCH_SHMGUARD_H
#define WGWATCH_SHMGUARD_H

#include <stdbool.h>

struct sqlite3;

/* Catch a SIGBUS in the mappings of db_path's -shm from now on (the file must exist: call once
 * SQLite has opened it). */
void shmguard_watch(const char *db_path);
/* True once the wal-index broke under this process: a SIGBUS in its mapping (the file truncated
 * or made unwritable) was caught. From then on no connection may write or checkpoint. */
bool shmguard_lost(void);
/* On a read-write connection to the database: SQLite's automatic checkpoint (every 1000 WAL
 * pages), but none once the wal-index is lost. */
void shmguard_connection(struct sqlite3 *db);
/* sqlite3_close, without the checkpoint at close once the wal-index is lost; NULL is fine. */
void shmguard_close(struct sqlite3 *db);

#endif
