/* SPDX-License-Identifier: Apache-2.0 */
/* wgwatch-sql: one SQL query over a wgwatchd database, read-only, with the store's SQL
 * functions and the store_polls virtual table attached (store_sql_attach), so that the hours
 * the maintenance job moved into chunks read as polls rows, which the sqlite3 CLI cannot do.
 * Rows print as sqlite3 -list prints them. It never migrates and never writes. A tool above
 * every layer (tools/): no layer includes it. */
#include "config.h"
#include "store/schema_sql.h"
#include "store/store.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char sql_usage[] =
	"usage: wgwatch-sql DATABASE QUERY\n"
	"Run QUERY on wgwatchd's DATABASE opened read-only and print each row as sqlite3 -list\n"
	"does (columns joined by '|', NULL as empty). store_polls reads the polls of the chunked\n"
	"hours and of the plain polls rows alike, store_cpu_rollup, store_iface_rollup and\n"
	"store_peer_rollup the roll-ups' chunked days and rows alike (store_*_rollup_1h the hourly\n"
	"tier's); store_values and the sample views are attached.\n"
	"Exit 0, or 1 with the error on stderr.\n";

/* 0 when db holds the schema this build writes, else -1 with the reason on stderr. */
static int sql_check_schema(sqlite3 *db, const char *path)
{
	sqlite3_stmt *st = NULL;
	int uv = -1;
	int want = schema_migrations[schema_nmigrations - 1].version;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
		sqlite3_step(st) == SQLITE_ROW)
		uv = sqlite3_column_int(st, 0);
	else
		fprintf(stderr, "wgwatch-sql: %s: cannot read: %s\n", path, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (uv < 0)
		return -1;
	if (uv == want)
		return 0;
	fprintf(stderr, "wgwatch-sql: %s: schema version %d, not the %d of this wgwatch%s\n", path,
		uv, want, uv == 0 ? " (not a wgwatchd database?)" : "");
	return -1;
}

static sqlite3 *sql_open(const char *path)
{
	sqlite3 *db = NULL;
	char *cause = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		fprintf(stderr, "wgwatch-sql: %s: %s\n", path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return NULL;
	}
	sqlite3_busy_timeout(db, 5000);
	if (sql_check_schema(db, path) < 0) {
		sqlite3_close(db);
		return NULL;
	}
	if (store_sql_attach(db, &cause) < 0) {
		fprintf(stderr, "wgwatch-sql: %s: %s\n", path, cause);
		free(cause);
		sqlite3_close(db);
		return NULL;
	}
	return db;
}

static void sql_print_row(sqlite3_stmt *st)
{
	int n = sqlite3_column_count(st);
	for (int i = 0; i < n; i++) {
		const unsigned char *v = sqlite3_column_text(st, i);
		if (i > 0)
			putchar('|');
		if (v != NULL)
			fwrite(v, 1, (size_t)sqlite3_column_bytes(st, i), stdout);
	}
	putchar('\n');
}

/* Every statement of sql in turn, as the CLI runs them; 0 or -1 with the error on stderr. */
static int sql_run(sqlite3 *db, const char *sql)
{
	while (*sql != '\0') {
		sqlite3_stmt *st = NULL;
		const char *tail = NULL;
		int rc = sqlite3_prepare_v2(db, sql, -1, &st, &tail);
		while (rc == SQLITE_OK && st != NULL && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			sql_print_row(st);
			rc = SQLITE_OK;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_OK && rc != SQLITE_DONE) {
			fprintf(stderr, "wgwatch-sql: %s\n", sqlite3_errmsg(db));
			return -1;
		}
		sql = tail;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		fputs(sql_usage, stdout);
		return 0;
	}
	if (argc != 3) {
		fputs(sql_usage, stderr);
		return 1;
	}
	sqlite3 *db = sql_open(argv[1]);
	if (db == NULL)
		return 1;
	int rc = sql_run(db, argv[2]);
	sqlite3_close(db);
	return (rc < 0 || fflush(stdout) != 0) ? 1 : 0;
}
