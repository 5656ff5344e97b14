/* SPDX-License-Identifier: Apache-2.0 */
/* history_profiles: the read of a router's CPU profiles, probes, an upgrade and its latest
 * diagnostics (store/history.h) for the API and the pages, on a read-only connection of its
 * own. It must never write: the writer's insert is ingest_profiles.c's. */
#include "config.h"
#include "store/history.h"
#include "lib/db.h"
#include "lib/jsonr.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_PROFILES_BUSY_MS 5000

void history_profile_rows(profile_t *p, const char *text)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *arr = text != NULL ? jsonr_parse(d, text, strlen(text)) : NULL;
	for (size_t i = 0; jsonr_is_array(arr) && i < jsonr_size(arr); i++) {
		const jsonr_node_t *o = jsonr_at(arr, i);
		const char *name = jsonr_str(jsonr_get(o, "name"));
		int64_t cpu = -1;
		double usage = 0;
		jsonr_num(jsonr_get(o, "usage"), &usage);
		if (name != NULL)
			profile_add(p, jsonr_int(jsonr_get(o, "cpu"), &cpu) ? (int)cpu : -1, name, usage);
	}
	jsonr_destroy(d);
}

/* A read-only connection to the daemon's database, for one request. */
static int history_profiles_open(const char *db_path, sqlite3 **db, char **cause)
{
	return db_open(
		db_path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, HISTORY_PROFILES_BUSY_MS, db, cause);
}

/* sql (?1 a router's name, ?2 the limit) on a connection of its own, row(arg, q) on each row:
 * the read that profiles and probes share, differing in sql and row. 0, or -1 with *cause
 * ("WHAT: cannot read" and SQLite's error). */
static int history_profiles_select(const char *db_path, const char *sql, const char *router, size_t limit,
	const char *what, void (*row)(void *arg, sqlite3_stmt *q), void *arg, char **cause)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL;
	int rc = SQLITE_ERROR;
	if (history_profiles_open(db_path, &db, cause) < 0)
		return -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK) {
		db_bind_text(q, 1, router);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)limit);
		while ((rc = sqlite3_step(q)) == SQLITE_ROW)
			row(arg, q);
	}
	if (rc != SQLITE_DONE)
		*cause = db_cause(db, "%s: cannot read", what);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return rc == SQLITE_DONE ? 0 : -1;
}

struct history_profiles_got {
	const char *router;
	profile_t **v;
	size_t n;
};

/* One row of history_profiles's query appended to the history_profiles_got arg. */
static void history_profiles_row(void *arg, sqlite3_stmt *q)
{
	struct history_profiles_got *g = arg;
	profile_t *p = profile_new(g->router, sqlite3_column_int64(q, 0));
	p->duration_ms = sqlite3_column_int64(q, 1);
	history_profile_rows(p, (const char *)sqlite3_column_text(q, 2));
	g->v = xreallocarray(g->v, g->n + 1, sizeof(*g->v));
	g->v[g->n++] = p;
}

int history_profiles(
	const char *db_path, const char *router, size_t limit, profile_t ***out, size_t *n, char **cause)
{
	struct history_profiles_got g = { .router = router };
	int rc = history_profiles_select(db_path,
		"SELECT p.time_ms, p.duration_ms, p.rows FROM profiles p JOIN routers r"
		" ON r.id = p.router_id WHERE r.name = ?1 ORDER BY p.time_ms DESC LIMIT ?2",
		router, limit, "profiles", history_profiles_row, &g, cause);
	if (rc < 0) {
		history_profiles_free(g.v, g.n);
		g.v = NULL, g.n = 0;
	}
	*out = g.v;
	*n = g.n;
	return rc;
}

void history_profiles_free(profile_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		profile_free(v[i]);
	free(v);
}

/* ---- probes ---- */

static double history_profiles_col_opt(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_double(q, i);
}

/* The static name of a stored probe_direction; measured when the text is none of them. */
static const char *history_profiles_direction(const char *text, const char *measured)
{
	static const char *const names[] = { "transmit", "receive", "both" };
	for (size_t i = 0; text != NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(text, names[i]) == 0)
			return names[i];
	return measured;
}

struct history_profiles_probes_got {
	const char *router;
	probe_t **v;
	size_t n;
};

/* One row of history_probes's query appended to the history_profiles_probes_got arg. */
static void history_profiles_probe_row(void *arg, sqlite3_stmt *q)
{
	struct history_profiles_probes_got *g = arg;
	const char *dir = (const char *)sqlite3_column_text(q, 2);
	probe_t *p = probe_new(g->router, sqlite3_column_int64(q, 0),
		dir && strcmp(dir, "transmit") == 0 ? "transmit" : "receive");
	p->duration_ms = sqlite3_column_int64(q, 1);
	p->offered_bps = sqlite3_column_double(q, 3);
	p->delivered_bps = sqlite3_column_double(q, 4);
	p->lost_packets = db_col_int64(q, 5, -1);
	p->local_cpu_load = history_profiles_col_opt(q, 6);
	p->remote_cpu_load = history_profiles_col_opt(q, 7);
	p->busiest_core_load = history_profiles_col_opt(q, 8);
	p->configured = history_profiles_direction((const char *)sqlite3_column_text(q, 9), p->direction);
	g->v = xreallocarray(g->v, g->n + 1, sizeof(*g->v));
	g->v[g->n++] = p;
}

int history_probes(
	const char *db_path, const char *router, size_t limit, probe_t ***out, size_t *n, char **cause)
{
	struct history_profiles_probes_got g = { .router = router };
	int rc = history_profiles_select(db_path,
		"SELECT p.time_ms, p.duration_ms, p.direction, p.offered_bps, p.delivered_bps,"
		" p.lost_packets, p.local_cpu_load, p.remote_cpu_load, p.busiest_core_load,"
		" coalesce(p.configured, p.direction)"
		" FROM probes p JOIN routers r ON r.id = p.router_id WHERE r.name = ?1"
		" ORDER BY p.time_ms DESC, p.id DESC LIMIT ?2",
		router, limit, "probes", history_profiles_probe_row, &g, cause);
	if (rc < 0) {
		history_probes_free(g.v, g.n);
		g.v = NULL, g.n = 0;
	}
	*out = g.v;
	*n = g.n;
	return rc;
}

void history_probes_free(probe_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		probe_free(v[i]);
	free(v);
}

/* ---- one upgrade ---- */

static int history_profiles_upgrade_query(sqlite3 *db, int64_t id, struct history_upgrade *u, char **cause)
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
	if (history_profiles_open(db_path, &db, cause) < 0)
		return -1;
	int rc = history_profiles_upgrade_query(db, id, out, cause);
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
	if (history_profiles_open(db_path, &db, cause) < 0)
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
