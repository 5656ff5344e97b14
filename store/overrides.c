/* SPDX-License-Identifier: Apache-2.0 */
/* overrides: the rows of rollout_allows (schema/008-rollout-allow.sql). Writes happen in one
 * short IMMEDIATE transaction on a connection of their own, so the writer thread's batches and
 * the detector's reads go on; a revoked row stays, with who revoked it and when. It never
 * decides anything: detector/rollout.c does. */
#include "config.h"
#include "store/overrides.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#define OVERRIDES_BUSY_MS 5000
#define OVERRIDES_COLS    "id, version, cohort, who, at_ms"

void overrides_clear(struct override *o)
{
	free(o->version);
	free(o->cohort);
	free(o->who);
	*o = (struct override){ 0 };
}

void overrides_free(struct override *v, size_t n)
{
	for (size_t i = 0; v != NULL && i < n; i++)
		overrides_clear(&v[i]);
	free(v);
}

void overrides_copy(struct override *out, const struct override *o)
{
	*out = (struct override){ .id = o->id,
		.version = o->version ? xstrdup(o->version) : NULL,
		.cohort = o->cohort ? xstrdup(o->cohort) : NULL,
		.who = o->who ? xstrdup(o->who) : NULL,
		.at_ms = o->at_ms };
}

static void overrides_row(sqlite3_stmt *q, struct override *o)
{
	*o = (struct override){ .id = sqlite3_column_int64(q, 0),
		.version = db_col_str(q, 1),
		.cohort = db_col_str(q, 2),
		.who = db_col_str(q, 3),
		.at_ms = sqlite3_column_int64(q, 4) };
}

/* Whether the database has the table yet (schema 008). */
static int overrides_has_table(sqlite3 *db, char **cause)
{
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_prepare_v2(db,
		"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rollout_allows'", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc == SQLITE_ROW;
	*cause = db_cause(db, "rollout overrides");
	return -1;
}

int overrides_load(sqlite3 *db, struct override **out, size_t *n, char **cause)
{
	*out = NULL;
	*n = 0;
	int has = overrides_has_table(db, cause);
	if (has <= 0)
		return has;
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_prepare_v2(db,
		"SELECT " OVERRIDES_COLS " FROM rollout_allows WHERE revoked_ms IS NULL ORDER BY at_ms, id",
		-1, &q, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		overrides_row(q, &(*out)[(*n)++]);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(q);
	if (rc == SQLITE_DONE)
		return 0;
	*cause = db_cause(db, "rollout overrides");
	overrides_free(*out, *n);
	*out = NULL;
	*n = 0;
	return -1;
}

int overrides_list(const char *path, struct override **out, size_t *n, char **cause)
{
	sqlite3 *db = NULL;
	*out = NULL;
	*n = 0;
	if (db_open(path, SQLITE_OPEN_READONLY, OVERRIDES_BUSY_MS, &db, cause) < 0)
		return -1;
	int rc = overrides_load(db, out, n, cause);
	sqlite3_close(db);
	return rc;
}

/* The active row of version for cohort into *out: 1, 0 when none, -1 (the error in db). */
static int overrides_find(sqlite3 *db, const char *version, const char *cohort, struct override *out)
{
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_prepare_v2(db,
		"SELECT " OVERRIDES_COLS " FROM rollout_allows WHERE version = ?1 AND cohort = ?2"
		" AND revoked_ms IS NULL",
		-1, &q, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(q, 1, version, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, cohort, -1, SQLITE_STATIC);
		rc = sqlite3_step(q);
	}
	if (rc == SQLITE_ROW)
		overrides_row(q, out);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* One statement with text, text, text, integer parameters; 0 or -1 (the error in db). */
static int overrides_exec4(
	sqlite3 *db, const char *sql, const char *a, const char *b, const char *c, int64_t d)
{
	sqlite3_stmt *q = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &q, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(q, 1, a, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 2, b, -1, SQLITE_STATIC);
		sqlite3_bind_text(q, 3, c, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 4, d);
		rc = sqlite3_step(q);
	}
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Open path for writing and begin an IMMEDIATE transaction; NULL with *cause. */
static sqlite3 *overrides_begin(const char *path, char **cause)
{
	sqlite3 *db = NULL;
	if (db_open(path, SQLITE_OPEN_READWRITE, OVERRIDES_BUSY_MS, &db, cause) < 0)
		return NULL;
	int has = overrides_has_table(db, cause);
	if (has == 0)
		*cause = xasprintf("database %s has no table rollout_allows (schema 008): restart wgwatchd "
				   "to migrate it",
			path);
	if (has == 1 && sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK)
		return db;
	if (has == 1)
		*cause = db_cause(db, "database %s", path);
	sqlite3_close(db);
	return NULL;
}

/* COMMIT and close; rc, or -1 with *cause when the commit failed. */
static int overrides_end(sqlite3 *db, const char *path, int rc, char **cause)
{
	if (rc >= 0 && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = -1;
	if (rc < 0) {
		*cause = db_cause(db, "database %s: rollout overrides", path);
		db_rollback(db);
	}
	sqlite3_close(db);
	return rc;
}

int overrides_add(const char *path, const struct override *want, struct override *out, char **cause)
{
	sqlite3 *db = overrides_begin(path, cause);
	if (db == NULL)
		return -1;
	*out = (struct override){ 0 };
	int found = overrides_find(db, want->version, want->cohort, out), rc = found < 0 ? -1 : 0;
	if (found == 0 &&
		overrides_exec4(db,
			"INSERT INTO rollout_allows (version, cohort, who, at_ms) VALUES (?1, ?2, ?3, ?4)",
			want->version, want->cohort, want->who, want->at_ms) == 0) {
		overrides_copy(out, want);
		out->id = sqlite3_last_insert_rowid(db);
		rc = 1;
	} else if (found == 0) {
		rc = -1;
	}
	rc = overrides_end(db, path, rc, cause);
	if (rc < 0)
		overrides_clear(out);
	return rc;
}

int overrides_revoke(const char *path, const char *version, const char *cohort, const char *who,
	int64_t now_ms, struct override *out, char **cause)
{
	sqlite3 *db = overrides_begin(path, cause);
	if (db == NULL)
		return -1;
	*out = (struct override){ 0 };
	int rc = overrides_find(db, version, cohort, out);
	if (rc == 1 &&
		overrides_exec4(db,
			"UPDATE rollout_allows SET revoked_by = ?3, revoked_ms = ?4"
			" WHERE version = ?1 AND cohort = ?2 AND revoked_ms IS NULL",
			version, cohort, who, now_ms) != 0)
		rc = -1;
	rc = overrides_end(db, path, rc, cause);
	if (rc < 0)
		overrides_clear(out);
	return rc;
}
