/* SPDX-License-Identifier: Apache-2.0 */
/* ingest_profiles: the writer's insert of one CPU profile or probe (schema 007, 010) into the
 * database, beside ingest.c's polls. A profile's rows are stored as JSON text, [{"cpu", "name",
 * "usage"}], as the API serves them. It must never fail a batch of polls for a database
 * without those tables: the row is dropped, and that said once. */
#include "config.h"
#include "store/store_int.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/jsonw.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The rows of p as JSON text (caller frees). */
static char *ingest_profiles_rows_json(const profile_t *p)
{
	buf_t b;
	buf_init(&b);
	jsonw_array(&b, NULL);
	for (size_t i = 0; i < p->nrows; i++) {
		const struct profile_row *r = &p->rows[i];
		jsonw_object(&b, NULL);
		if (r->cpu >= 0)
			jsonw_int(&b, "cpu", r->cpu);
		else
			jsonw_null(&b, "cpu");
		if (r->name != NULL)
			jsonw_add(&b, "name", r->name); /* not UTF-8: no key */
		jsonw_real(&b, "usage", isfinite(r->usage) ? r->usage : 0, 6);
		jsonw_end_object(&b);
	}
	jsonw_end_array(&b);
	return buf_steal(&b, NULL);
}

/* A statement of the diagnostic tables, or NULL when they cannot be used: a database that
 * skipped migration 007 or 010 (one at a later version without it) must not make every batch of
 * polls fail, so the row is dropped and that said once, and the batch goes on. */
static sqlite3_stmt *ingest_profiles_stmt(store_t *st, const char *sql, bool *skip)
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
static int64_t ingest_profiles_router_id(store_t *st, const char *name, int64_t time_ms)
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

static void ingest_profiles_bind_opt(sqlite3_stmt *q, int i, double v)
{
	if (v >= 0)
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

int ingest_write_probe(store_t *st, const probe_t *p)
{
	int64_t rid = ingest_profiles_router_id(st, p->router, p->time_ms);
	if (rid < 0)
		return -1;
	bool skip;
	sqlite3_stmt *q = ingest_profiles_stmt(st,
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
	ingest_profiles_bind_opt(q, 8, p->local_cpu_load);
	ingest_profiles_bind_opt(q, 9, p->remote_cpu_load);
	ingest_profiles_bind_opt(q, 10, p->busiest_core_load);
	db_bind_text(q, 11, p->configured != NULL ? p->configured : p->direction);
	int rc = store_step(st, q);
	sqlite3_finalize(q);
	return rc;
}

int ingest_write_profile(store_t *st, const profile_t *p)
{
	int64_t rid = ingest_profiles_router_id(st, p->router, p->time_ms);
	if (rid < 0)
		return -1;
	bool skip;
	sqlite3_stmt *q = ingest_profiles_stmt(st,
		"INSERT INTO profiles (router_id, time_ms, duration_ms, rows)"
		" VALUES (?1, ?2, ?3, ?4)",
		&skip);
	if (q == NULL)
		return skip ? 0 : -1;
	char *rows = ingest_profiles_rows_json(p);
	sqlite3_bind_int64(q, 1, rid);
	sqlite3_bind_int64(q, 2, p->time_ms);
	sqlite3_bind_int64(q, 3, p->duration_ms);
	db_bind_text(q, 4, rows);
	int rc = store_step(st, q);
	sqlite3_finalize(q);
	free(rows);
	return rc;
}
