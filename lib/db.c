/* SPDX-License-Identifier: Apache-2.0 */
/* db: thin helpers around SQLite calls that every user of a connection repeats. It must never
 * know a table, a schema or a router, and never log: errors go back to the caller as text. */
#include "config.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int db_open(const char *path, int flags, int busy_ms, sqlite3 **out, char **cause)
{
	if (sqlite3_open_v2(path, out, flags, NULL) != SQLITE_OK) {
		*cause = xasprintf(
			"cannot open database %s: %s", path, *out ? sqlite3_errmsg(*out) : "out of memory");
		sqlite3_close(*out);
		*out = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*out, busy_ms);
	return 0;
}

int db_use_wal(sqlite3 *db)
{
	sqlite3_stmt *q;
	bool wal = false;
	if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &q, NULL) == SQLITE_OK &&
		sqlite3_step(q) == SQLITE_ROW)
		wal = strcmp((const char *)sqlite3_column_text(q, 0), "wal") == 0;
	sqlite3_finalize(q);
	if (!wal)
		return -1;
	return sqlite3_exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", NULL, NULL, NULL) ==
			SQLITE_OK
		? 0
		: -1;
}

char *db_cause(sqlite3 *db, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *what = xvasprintf(fmt, ap);
	va_end(ap);
	char *cause = xasprintf("%s: %s", what, sqlite3_errmsg(db));
	free(what);
	return cause;
}

void db_errcpy(sqlite3 *db, char *err, size_t size)
{
	snprintf(err, size, "%s", sqlite3_errmsg(db));
}

int db_exec(sqlite3 *db, const char *sql, char *err, size_t size)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	db_errcpy(db, err, size);
	return -1;
}

void db_rollback(sqlite3 *db)
{
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
}

sqlite3_stmt *db_prepare(sqlite3 *db, const char *sql, unsigned flags, char *err, size_t size)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v3(db, sql, -1, flags, &q, NULL) == SQLITE_OK)
		return q;
	db_errcpy(db, err, size);
	return NULL;
}

int db_step(sqlite3_stmt *q, char *err, size_t size)
{
	int rc = sqlite3_step(q);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		db_errcpy(sqlite3_db_handle(q), err, size);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

int db_query_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW)
		*out = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : -1;
}

void db_bind_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
}

void db_bind_opt(sqlite3_stmt *q, int i, int64_t v, bool known)
{
	if (known)
		sqlite3_bind_int64(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

void db_bind_blob(sqlite3_stmt *q, int i, const void *data, size_t len)
{
	if (len == 0)
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_blob(q, i, data, (int)len, SQLITE_STATIC);
}

char *db_col_str(sqlite3_stmt *q, int col)
{
	return xstrdup((const char *)sqlite3_column_text(q, col));
}

int64_t db_col_int64(sqlite3_stmt *q, int col, int64_t null_value)
{
	return sqlite3_column_type(q, col) == SQLITE_NULL ? null_value : sqlite3_column_int64(q, col);
}

int64_t db_value_int64(sqlite3_value *v, int64_t null_value)
{
	return sqlite3_value_type(v) == SQLITE_NULL ? null_value : sqlite3_value_int64(v);
}

struct db_shelf {
	size_t n;
	sqlite3_stmt *q[]; /* by slot; NULL: none kept */
};

db_shelf_t *db_shelf_new(size_t nslots)
{
	db_shelf_t *s = xcalloc(1, sizeof(*s) + nslots * sizeof(s->q[0]));
	s->n = nslots;
	return s;
}

void db_shelf_free(db_shelf_t *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n; i++)
		sqlite3_finalize(s->q[i]);
	free(s);
}

sqlite3_stmt *db_shelf_take(db_shelf_t *s, sqlite3 *db, size_t i, const char *sql)
{
	sqlite3_stmt *q = NULL;
	if (s != NULL && i < s->n && s->q[i] != NULL) {
		q = s->q[i];
		s->q[i] = NULL;
		return q;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		sqlite3_finalize(q);
		return NULL;
	}
	return q;
}

void db_shelf_give(db_shelf_t *s, size_t i, sqlite3_stmt *q)
{
	if (s == NULL || q == NULL || i >= s->n || s->q[i] != NULL) {
		sqlite3_finalize(q);
		return;
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	s->q[i] = q;
}
