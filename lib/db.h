/* SPDX-License-Identifier: Apache-2.0 */
/* db: small helpers around one SQLite connection: open with a busy timeout, WAL, prepare, step,
 * bind and read values where NULL means "unknown", error texts, and a shelf of statements kept
 * between reads. Knows no schema. */
#ifndef WGWATCH_DB_H
#define WGWATCH_DB_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Open path with sqlite3_open_v2 flags and a busy timeout of busy_ms; 0, or -1 with *out NULL
 * and *cause "cannot open database PATH: ERROR" (caller frees). */
int db_open(const char *path, int flags, int busy_ms, sqlite3 **out, char **cause);
/* journal_mode = WAL (checked), synchronous = NORMAL, foreign_keys = ON; 0 or -1 (errmsg). */
int db_use_wal(sqlite3 *db);
/* "FORMAT...: ERROR" with the connection's last error; caller frees. */
char *db_cause(sqlite3 *db, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void db_errcpy(sqlite3 *db, char *err, size_t size); /* the last error into err[size] */

/* sqlite3_exec without callback; 0, or -1 with the error in err[size]. */
int db_exec(sqlite3 *db, const char *sql, char *err, size_t size);
void db_rollback(sqlite3 *db); /* ROLLBACK, whatever it returns */
/* Prepare sql (flags: SQLITE_PREPARE_*); the statement, or NULL with the error in err[size]. */
sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql, unsigned flags, char *err, size_t size);
/* Step q once, then reset it and clear its bindings: 0 on a row or done, -1 with err[size]. */
int db_step(sqlite3_stmt *q, char *err, size_t size);
/* The integer of a one-row query (a PRAGMA); 0, or -1 (errmsg). */
int db_query_int(sqlite3 *db, const char *sql, int *out);

void db_bind_text(sqlite3_stmt *q, int i, const char *s); /* NULL binds NULL; s must outlive q's step */
void db_bind_opt(sqlite3_stmt *q, int i, int64_t v, bool known);         /* NULL unless known */
void db_bind_blob(sqlite3_stmt *q, int i, const void *data, size_t len); /* NULL when empty */
char *db_col_str(sqlite3_stmt *q, int col);                              /* copy, or NULL; caller frees */
int64_t db_col_int64(sqlite3_stmt *q, int col, int64_t null_value);
int64_t db_value_int64(sqlite3_value *v, int64_t null_value); /* an SQL function's argument */

/* Statements a connection keeps for reads it makes again and again (a virtual table's, whose
 * cursors SQLite opens anew for every run of a statement): slot i's is taken while a read runs
 * and given back after. A shelf belongs to one connection, used as the connection is. */
typedef struct db_shelf db_shelf_t;
db_shelf_t *db_shelf_new(size_t nslots);
void db_shelf_free(db_shelf_t *s); /* finalizes what it keeps; NULL is fine */
/* Slot i's statement, the one kept or sql prepared now on db (a slot is always the same sql;
 * s NULL: prepared now); NULL with db's error. */
sqlite3_stmt *db_shelf_take(db_shelf_t *s, sqlite3 *db, size_t i, const char *sql);
/* q, taken from slot i, reset with its bindings cleared and kept, or finalized when the slot
 * holds another already (two reads at once) or s is NULL. NULL q is fine. */
void db_shelf_give(db_shelf_t *s, size_t i, sqlite3_stmt *q);

#endif
