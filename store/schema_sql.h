/* SPDX-License-Identifier: Apache-2.0 */
/* schema_sql: the SQL migrations of schema/NNN-name.sql, compiled into the daemon by
 * schema/embed.sh (generated store/schema_sql.c). Entry i brings a database to version i + 1. */
#ifndef WGWATCH_SCHEMA_SQL_H
#define WGWATCH_SCHEMA_SQL_H

#include <stddef.h>

struct schema_migration {
	int version;      /* the PRAGMA user_version after this migration */
	const char *name; /* "001-initial" */
	const char *sql;  /* statements, run in one transaction */
};

extern const struct schema_migration schema_migrations[];
extern const size_t schema_nmigrations;

#endif
