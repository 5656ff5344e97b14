/* SPDX-License-Identifier: Apache-2.0 */
/* maint: roll-ups of the raw samples into 5-minute buckets (rollup.c) and retention of both,
 * each chunk of work its own short transaction, progress kept in store_state. Writer thread
 * only; it must never delete raw samples that are not rolled up yet. */
#include "config.h"
#include "store/store_int.h"
#include "lib/db.h"

#define MAINT_BUCKET_MS 300000  /* roll-up bucket: 5 minutes */
#define MAINT_CHUNK_MS  3600000 /* most time one maintenance transaction covers */

static int64_t maint_floor_bucket(int64_t ms)
{
	int64_t r = ms % MAINT_BUCKET_MS;
	return ms - (r < 0 ? r + MAINT_BUCKET_MS : r);
}

/* Every id of the parent table: lets SQLite seek (id, time) keys instead of scanning. */
#define MAINT_IDS(table, col) " " col " IN (SELECT id FROM " table ")"

static const char *const maint_purge_raw_sql[] = {
	"DELETE FROM polls WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2", NULL
};

static const char *const maint_purge_rollup_sql[] = { "DELETE FROM cpu_rollup WHERE" MAINT_IDS(
							      "routers", "router_id") " AND bucket_ms < ?2",
	"DELETE FROM iface_rollup WHERE" MAINT_IDS("interfaces", "iface_id") " AND bucket_ms < ?2",
	"DELETE FROM peer_rollup WHERE" MAINT_IDS("peers", "peer_id") " AND bucket_ms < ?2",
	"DELETE FROM profiles WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2",
	"DELETE FROM probes WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2", NULL };

enum maint_job { JOB_ROLLUP, JOB_PURGE_RAW, JOB_PURGE_ROLLUP, JOB_COUNT };

static const struct {
	const char *key;        /* store_state: everything before value is done */
	const char *const *sql; /* run with ?1 = from, ?2 = to */
} maint_jobs[JOB_COUNT] = {
	[JOB_ROLLUP] = { "rollup_ms", NULL }, /* rollup.c */
	[JOB_PURGE_RAW] = { "raw_purged_ms", maint_purge_raw_sql },
	[JOB_PURGE_ROLLUP] = { "rollup_purged_ms", maint_purge_rollup_sql },
};

/* Where the jobs start on a database that never ran them: the oldest raw sample. */
static int maint_first_time(store_t *st, int64_t now, int64_t *out)
{
	sqlite3_stmt *q = store_stmt(st, "SELECT min(time_ms) FROM polls");
	if (q == NULL)
		return -1;
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = maint_floor_bucket(db_col_int64(q, 0, now));
	else
		store_note_error(st);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int maint_state_get(store_t *st, const char *key, int64_t now, int64_t *out)
{
	sqlite3_stmt *q = st->sq[SQ_GET_STATE];
	db_bind_text(q, 1, key);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(q, 0);
	else if (rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? 0 : -1;
	if (maint_first_time(st, now, out) < 0) /* once: it scans the raw tables */
		return -1;
	q = st->sq[SQ_SET_STATE];
	db_bind_text(q, 1, key);
	sqlite3_bind_int64(q, 2, *out);
	return store_step(st, q);
}

/* How far job j may go at time now. */
static int64_t maint_job_limit(store_t *st, enum maint_job j, int64_t now, int64_t rolled)
{
	switch (j) {
	case JOB_ROLLUP: return maint_floor_bucket(now - STORE_GRACE_MS);
	case JOB_PURGE_RAW: /* never delete what is not rolled up yet */
		return store_min64(now - st->retention_ms, rolled);
	default: return now - st->rollup_retention_ms;
	}
}

static int maint_job_run(store_t *st, enum maint_job j, int64_t from, int64_t to)
{
	if (store_exec(st, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (j == JOB_ROLLUP && rollup_span(st, from, to) < 0)
		goto fail;
	for (const char *const *sql = maint_jobs[j].sql; sql != NULL && *sql != NULL; sql++) {
		sqlite3_stmt *q = store_stmt(st, *sql);
		if (q == NULL)
			goto fail;
		sqlite3_bind_int64(q, 1, from);
		sqlite3_bind_int64(q, 2, to);
		int rc = store_step(st, q);
		sqlite3_finalize(q);
		if (rc < 0)
			goto fail;
	}
	sqlite3_stmt *q = st->sq[SQ_SET_STATE];
	db_bind_text(q, 1, maint_jobs[j].key);
	sqlite3_bind_int64(q, 2, to);
	if (store_step(st, q) == 0 && store_exec(st, "COMMIT") == 0)
		return 0;
fail:
	db_rollback(st->db);
	return -1;
}

/* Do one chunk of the first job with work left. Returns 1 after a chunk, 0 when all jobs are
 * done up to now, -1 on error (st->errmsg). */
int maint_step(store_t *st, int64_t now)
{
	int64_t rolled = 0;
	for (int j = 0; j < JOB_COUNT; j++) {
		int64_t done;
		if (maint_state_get(st, maint_jobs[j].key, now, &done) < 0)
			return -1;
		if (j == JOB_ROLLUP)
			rolled = done;
		int64_t limit = maint_job_limit(st, j, now, rolled);
		if (done >= limit)
			continue;
		int64_t to = store_min64(limit, done + MAINT_CHUNK_MS);
		return maint_job_run(st, j, done, to) < 0 ? -1 : 1;
	}
	return 0;
}
