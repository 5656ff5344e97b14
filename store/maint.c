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

static int64_t maint_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
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

/* The writer's copy of a job's mark (rollup_ms, raw_purged_ms), or NULL for the other job. */
static int64_t *maint_mark(store_t *st, enum maint_job j)
{
	return j == JOB_ROLLUP ? &st->rollup_ms : j == JOB_PURGE_RAW ? &st->raw_purged_ms : NULL;
}

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

static int maint_state_set(store_t *st, const char *key, int64_t v)
{
	sqlite3_stmt *q = st->sq[SQ_SET_STATE];
	db_bind_text(q, 1, key);
	sqlite3_bind_int64(q, 2, v);
	return store_step(st, q);
}

/* The job's mark into *out; a database that never ran it gets one (now: INT64_MIN instead). */
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
	if (now == INT64_MIN) { /* maint_load: none yet */
		*out = INT64_MIN;
		return 0;
	}
	if (maint_first_time(st, now, out) < 0) /* once: it scans the raw tables */
		return -1;
	return maint_state_set(st, key, *out);
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
	if (maint_state_set(st, maint_jobs[j].key, to) == 0 && store_exec(st, "COMMIT") == 0) {
		if (maint_mark(st, j) != NULL)
			*maint_mark(st, j) = to;
		return 0;
	}
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
		if (maint_mark(st, j) != NULL)
			*maint_mark(st, j) = done;
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

int maint_load(store_t *st)
{
	for (int j = JOB_ROLLUP; j <= JOB_PURGE_RAW; j++)
		if (maint_state_get(st, maint_jobs[j].key, INT64_MIN, maint_mark(st, j)) < 0)
			return -1;
	return 0;
}

/* Not below the raw purge's mark: the bucket it lies in, and those before, lost polls to it,
 * and a roll-up of what is left would replace a whole one. A poll stamped there (a clock more
 * than `retention` behind) stays raw until the purge. */
int maint_rollup_back(store_t *st, int64_t t)
{
	if (t >= st->rollup_ms)
		return 0;
	int64_t floor = st->raw_purged_ms == INT64_MIN
		? INT64_MIN
		: maint_floor_bucket(st->raw_purged_ms + MAINT_BUCKET_MS - 1);
	int64_t mark = maint_max64(maint_floor_bucket(t), floor);
	if (mark >= st->rollup_ms)
		return 0;
	if (maint_state_set(st, maint_jobs[JOB_ROLLUP].key, mark) < 0)
		return -1;
	st->rollup_ms = mark; /* a rollback of the batch reloads it (maint_load) */
	return 0;
}
