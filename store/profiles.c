/* SPDX-License-Identifier: Apache-2.0 */
/* profiles: the CPU profiles and probes in the database (schema 007): the writer's insert of
 * one, and the read of a router's for the API and the pages on a read-only connection of the
 * caller's. A profile's rows are JSON text, [{"cpu", "name", "usage"}], as the API serves them. */
#include "config.h"
#include "store/history.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROFILES_BUSY_MS 5000

/* The rows of p as JSON text (caller frees). */
static char *profiles_rows_json(const profile_t *p)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < p->nrows; i++) {
		const struct profile_row *r = &p->rows[i];
		json_t *o = json_object();
		json_object_set_new(o, "cpu", r->cpu >= 0 ? json_integer(r->cpu) : json_null());
		json_object_set_new(o, "name", json_string(r->name)); /* NULL (not UTF-8): no key */
		json_object_set_new(o, "usage", json_real(isfinite(r->usage) ? r->usage : 0));
		json_array_append_new(arr, o);
	}
	char *text = json_dumps(arr, JSON_COMPACT | JSON_REAL_PRECISION(6));
	json_decref(arr);
	return text ? text : xstrdup("[]");
}

/* A statement of the diagnostic tables, or NULL when they cannot be used: a database that
 * skipped migration 007 or 010 (one at a later version without it) must not make every batch of
 * polls fail, so the row is dropped and that said once, and the batch goes on. */
static sqlite3_stmt *profiles_stmt(store_t *st, const char *sql, bool *skip)
{
	static bool told;
	sqlite3_stmt *q = store_stmt(st, sql);
	*skip = q == NULL &&
		(strstr(st->errmsg, "no such table") != NULL || strstr(st->errmsg, "no such column") != NULL);
	if (*skip && !told)
		log_error("store: %s: %s: profiles and probes are not stored (schema 007 or 010 missing)",
			st->path, st->errmsg);
	told |= *skip;
	return q;
}

/* The router's id, the router inserted when the database does not know it yet; -1 on error. */
static int64_t profiles_router_id(store_t *st, const char *name, int64_t time_ms)
{
	struct store_router *r = cache_router_find(st, name);
	if (r != NULL)
		return r->id;
	sqlite3_stmt *q = st->sq[SQ_INS_ROUTER];
	db_bind_text(q, 1, name);
	sqlite3_bind_int64(q, 2, time_ms);
	if (store_step(st, q) < 0)
		return -1;
	return cache_router_add(st, name, sqlite3_last_insert_rowid(st->db))->id;
}

static void profiles_bind_opt(sqlite3_stmt *q, int i, double v)
{
	if (v >= 0)
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

int ingest_write_probe(store_t *st, const probe_t *p)
{
	int64_t rid = profiles_router_id(st, p->router, p->time_ms);
	if (rid < 0)
		return -1;
	bool skip;
	sqlite3_stmt *q = profiles_stmt(st,
		"INSERT INTO probes (router_id, time_ms, duration_ms, direction,"
		" offered_bps, delivered_bps, lost_packets, local_cpu_load,"
		" remote_cpu_load, busiest_core_load, configured)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
		&skip);
	if (q == NULL)
		return skip ? 0 : -1;
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, p->time_ms);
	sqlite3_bind_int64(q, 3, p->duration_ms);
	db_bind_text(q, 4, p->direction);
	sqlite3_bind_double(q, 5, p->offered_bps);
	sqlite3_bind_double(q, 6, p->delivered_bps);
	db_bind_opt(q, 7, p->lost_packets, p->lost_packets >= 0);
	profiles_bind_opt(q, 8, p->local_cpu_load);
	profiles_bind_opt(q, 9, p->remote_cpu_load);
	profiles_bind_opt(q, 10, p->busiest_core_load);
	db_bind_text(q, 11, p->configured != NULL ? p->configured : p->direction);
	int rc = store_step(st, q);
	sqlite3_finalize(q);
	return rc;
}

int ingest_write_profile(store_t *st, const profile_t *p)
{
	int64_t rid = profiles_router_id(st, p->router, p->time_ms);
	if (rid < 0)
		return -1;
	bool skip;
	sqlite3_stmt *q = profiles_stmt(st,
		"INSERT INTO profiles (router_id, time_ms, duration_ms, rows)"
		" VALUES (?1, ?2, ?3, ?4)",
		&skip);
	if (q == NULL)
		return skip ? 0 : -1;
	char *rows = profiles_rows_json(p);
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, p->time_ms);
	sqlite3_bind_int64(q, 3, p->duration_ms);
	db_bind_text(q, 4, rows);
	int rc = store_step(st, q);
	sqlite3_finalize(q);
	free(rows);
	return rc;
}

/* ---- reading ---- */

void history_profile_rows(profile_t *p, const char *text)
{
	json_t *arr = json_loads(text ? text : "[]", 0, NULL);
	size_t i;
	json_t *o;
	json_array_foreach(arr, i, o)
	{
		const char *name = json_string_value(json_object_get(o, "name"));
		json_t *cpu = json_object_get(o, "cpu");
		if (name != NULL)
			profile_add(p, json_is_integer(cpu) ? (int)json_integer_value(cpu) : -1, name,
				json_number_value(json_object_get(o, "usage")));
	}
	json_decref(arr);
}

static int profiles_query(
	sqlite3 *db, const char *router, size_t limit, profile_t ***out, size_t *n, char **cause)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db,
		    "SELECT p.time_ms, p.duration_ms, p.rows FROM profiles p JOIN routers r"
		    " ON r.id = p.router_id WHERE r.name = ?1 ORDER BY p.time_ms DESC LIMIT ?2",
		    -1, &q, NULL) != SQLITE_OK) {
		*cause = db_cause(db, "profiles: cannot read");
		return -1;
	}
	db_bind_text(q, 1, router);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)limit);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		profile_t *p = profile_new(router, sqlite3_column_int64(q, 0));
		p->duration_ms = sqlite3_column_int64(q, 1);
		history_profile_rows(p, (const char *)sqlite3_column_text(q, 2));
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		(*out)[(*n)++] = p;
	}
	if (rc != SQLITE_DONE)
		*cause = db_cause(db, "profiles: cannot read");
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* A read-only connection to the daemon's database, for one request. */
static int profiles_open(const char *db_path, sqlite3 **db, char **cause)
{
	return db_open(db_path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, PROFILES_BUSY_MS, db, cause);
}

int history_profiles(
	const char *db_path, const char *router, size_t limit, profile_t ***out, size_t *n, char **cause)
{
	*out = NULL;
	*n = 0;
	sqlite3 *db = NULL;
	if (profiles_open(db_path, &db, cause) < 0)
		return -1;
	int rc = profiles_query(db, router, limit, out, n, cause);
	sqlite3_close(db);
	if (rc < 0) {
		history_profiles_free(*out, *n);
		*out = NULL, *n = 0;
	}
	return rc;
}

void history_profiles_free(profile_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		profile_free(v[i]);
	free(v);
}

/* ---- probes ---- */

static double profiles_col_opt(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_double(q, i);
}

/* The static name of a stored probe_direction; measured when the text is none of them. */
static const char *profiles_direction(const char *text, const char *measured)
{
	static const char *const names[] = { "transmit", "receive", "both" };
	for (size_t i = 0; text != NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(text, names[i]) == 0)
			return names[i];
	return measured;
}

static int probes_query(
	sqlite3 *db, const char *router, size_t limit, probe_t ***out, size_t *n, char **cause)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db,
		    "SELECT p.time_ms, p.duration_ms, p.direction, p.offered_bps, p.delivered_bps,"
		    " p.lost_packets, p.local_cpu_load, p.remote_cpu_load, p.busiest_core_load,"
		    " coalesce(p.configured, p.direction)"
		    " FROM probes p JOIN routers r ON r.id = p.router_id WHERE r.name = ?1"
		    " ORDER BY p.time_ms DESC, p.id DESC LIMIT ?2",
		    -1, &q, NULL) != SQLITE_OK) {
		*cause = db_cause(db, "probes: cannot read");
		return -1;
	}
	db_bind_text(q, 1, router);
	sqlite3_bind_int64(q, 2, (sqlite3_int64)limit);
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *dir = (const char *)sqlite3_column_text(q, 2);
		probe_t *p = probe_new(router, sqlite3_column_int64(q, 0),
			dir && strcmp(dir, "transmit") == 0 ? "transmit" : "receive");
		p->duration_ms = sqlite3_column_int64(q, 1);
		p->offered_bps = sqlite3_column_double(q, 3);
		p->delivered_bps = sqlite3_column_double(q, 4);
		p->lost_packets = db_col_int64(q, 5, -1);
		p->local_cpu_load = profiles_col_opt(q, 6);
		p->remote_cpu_load = profiles_col_opt(q, 7);
		p->busiest_core_load = profiles_col_opt(q, 8);
		p->configured = profiles_direction((const char *)sqlite3_column_text(q, 9), p->direction);
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		(*out)[(*n)++] = p;
	}
	if (rc != SQLITE_DONE)
		*cause = db_cause(db, "probes: cannot read");
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

int history_probes(
	const char *db_path, const char *router, size_t limit, probe_t ***out, size_t *n, char **cause)
{
	*out = NULL;
	*n = 0;
	sqlite3 *db = NULL;
	if (profiles_open(db_path, &db, cause) < 0)
		return -1;
	int rc = probes_query(db, router, limit, out, n, cause);
	sqlite3_close(db);
	if (rc < 0) {
		history_probes_free(*out, *n);
		*out = NULL, *n = 0;
	}
	return rc;
}

void history_probes_free(probe_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		probe_free(v[i]);
	free(v);
}

/* ---- one upgrade ---- */

static int profiles_upgrade_query(sqlite3 *db, int64_t id, struct history_upgrade *u, char **cause)
{
	sqlite3_stmt *q = NULL;
	if (sqlite3_prepare_v2(db,
		    "SELECT h.time_ms, r.name, h.old_version, h.new_version, coalesce(h.new_board, r.board),"
		    " coalesce(h.architecture, r.architecture), r.firmware FROM version_history h"
		    " JOIN routers r ON r.id = h.router_id WHERE h.id = ?1"
		    " AND h.kind IN ('upgrade', 'downgrade')",
		    -1, &q, NULL) != SQLITE_OK) {
		*cause = db_cause(db, "upgrade: cannot read");
		return -1;
	}
	sqlite3_bind_int64(q, 1, id);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*u = (struct history_upgrade){ .id = id,
			.time_ms = sqlite3_column_int64(q, 0),
			.router = db_col_str(q, 1),
			.from_version = db_col_str(q, 2),
			.to_version = db_col_str(q, 3),
			.board = db_col_str(q, 4),
			.architecture = db_col_str(q, 5),
			.firmware = db_col_str(q, 6) };
	} else if (rc != SQLITE_DONE) {
		*cause = db_cause(db, "upgrade: cannot read");
	}
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

int history_upgrade(const char *db_path, int64_t id, struct history_upgrade *out, char **cause)
{
	sqlite3 *db = NULL;
	*out = (struct history_upgrade){ .id = 0 };
	if (profiles_open(db_path, &db, cause) < 0)
		return -1;
	int rc = profiles_upgrade_query(db, id, out, cause);
	sqlite3_close(db);
	return rc;
}

void history_upgrade_clear(struct history_upgrade *u)
{
	free(u->router), free(u->from_version), free(u->to_version);
	free(u->board), free(u->architecture), free(u->firmware);
	*u = (struct history_upgrade){ .id = 0 };
}

/* ---- the newest of each router, for the scheduler at start ---- */

int history_diag_latest(const char *db_path,
	void (*fn)(void *arg, const char *router, int64_t profile_ms, int64_t probe_ms), void *arg,
	char **cause)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int rc = SQLITE_ERROR;
	if (profiles_open(db_path, &db, cause) < 0)
		return -1;
	if (sqlite3_prepare_v2(db,
		    "SELECT r.name, (SELECT max(time_ms) FROM profiles WHERE router_id = r.id),"
		    " (SELECT max(time_ms) FROM probes WHERE router_id = r.id) FROM routers r",
		    -1, &q, NULL) == SQLITE_OK) {
		while ((rc = sqlite3_step(q)) == SQLITE_ROW)
			fn(arg, (const char *)sqlite3_column_text(q, 0), db_col_int64(q, 1, 0),
				db_col_int64(q, 2, 0));
	}
	if (rc != SQLITE_DONE)
		*cause = db_cause(db, "diag: cannot read the newest profiles");
	sqlite3_finalize(q);
	sqlite3_close(db);
	return rc == SQLITE_DONE ? 0 : -1;
}
