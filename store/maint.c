/* SPDX-License-Identifier: Apache-2.0 */
/* maint: roll-ups of the raw samples into 5-minute buckets (rollup.c) and of those into hours
 * (rollhour.c), retention of each tier, each
 * router's closed hours of polls rows made chunks (chunkstore.c) and each series' closed days of
 * roll-up rows (rollstore.c), each step of work its own
 * short transaction, progress kept in store_state. Writer thread only; it must never delete raw
 * samples that are not rolled up yet. */
#include "config.h"
#include "store/store_int.h"
#include "store/chunkstore.h"
#include "store/rollstore.h"
#include "lib/db.h"
#include "lib/log.h"

#include <inttypes.h>
#include <string.h>

#define MAINT_BUCKET_MS        300000  /* roll-up bucket: 5 minutes */
#define MAINT_HOUR_MS          3600000 /* the hourly tier's bucket */
#define MAINT_CHUNK_MS         3600000 /* most time one maintenance transaction covers */
#define MAINT_ROLLCHUNK_SERIES 1000    /* most series' days one transaction chunks (0.3 ms each) */

static int64_t maint_floor_bucket(int64_t ms)
{
	int64_t r = ms % MAINT_BUCKET_MS;
	return ms - (r < 0 ? r + MAINT_BUCKET_MS : r);
}

static int64_t maint_floor_span(int64_t ms)
{
	int64_t r = ms % CHUNKSTORE_SPAN_MS;
	return ms - (r < 0 ? r + CHUNKSTORE_SPAN_MS : r);
}

static int64_t maint_floor_hour(int64_t ms)
{
	int64_t r = ms % MAINT_HOUR_MS;
	return ms - (r < 0 ? r + MAINT_HOUR_MS : r);
}

static int64_t maint_floor_day(int64_t ms)
{
	int64_t r = ms % ROLLSTORE_SPAN_MS;
	return ms - (r < 0 ? r + ROLLSTORE_SPAN_MS : r);
}

static int64_t maint_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Every id of the parent table: lets SQLite seek (id, time) keys instead of scanning. */
#define MAINT_IDS(table, col) " " col " IN (SELECT id FROM " table ")"

/* A chunk that ends before the bound goes whole; one across it is trimmed (maint_trim_chunks). */
static const char *const maint_purge_raw_sql[] = {
	"DELETE FROM polls WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2",
	"DELETE FROM chunks WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2 AND end_ms < ?2", NULL
};

static const char *const maint_purge_rollup_sql[] = { "DELETE FROM cpu_rollup WHERE" MAINT_IDS(
							      "routers", "router_id") " AND bucket_ms < ?2",
	"DELETE FROM iface_rollup WHERE" MAINT_IDS("interfaces", "iface_id") " AND bucket_ms < ?2",
	"DELETE FROM peer_rollup WHERE" MAINT_IDS("peers", "peer_id") " AND bucket_ms < ?2",
	/* a chunk across the bound stays until its day is past: the readers leave out its rows
	 * before the mark (rollstore_open) */
	"DELETE FROM rollup_chunks WHERE kind = 0 AND" MAINT_IDS(
		"routers", "id") " AND time_ms < ?2 AND end_ms < ?2",
	"DELETE FROM rollup_chunks WHERE kind = 1 AND" MAINT_IDS(
		"interfaces", "id") " AND time_ms < ?2 AND end_ms < ?2",
	"DELETE FROM rollup_chunks WHERE kind = 2 AND" MAINT_IDS(
		"peers", "id") " AND time_ms < ?2 AND end_ms < ?2",
	NULL };

/* The hourly tier's (rollup_hourly_retention), as the 5-minute tier's above; the CPU profiles
 * and probes go with the longest-kept roll-ups, as they went with the roll-ups before the
 * hourly tier (400 days by default). */
static const char *const maint_purge_hourly_sql[] = { "DELETE FROM cpu_rollup_1h WHERE" MAINT_IDS(
							      "routers", "router_id") " AND bucket_ms < ?2",
	"DELETE FROM profiles WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2",
	"DELETE FROM probes WHERE" MAINT_IDS("routers", "router_id") " AND time_ms < ?2",
	"DELETE FROM iface_rollup_1h WHERE" MAINT_IDS("interfaces", "iface_id") " AND bucket_ms < ?2",
	"DELETE FROM peer_rollup_1h WHERE" MAINT_IDS("peers", "peer_id") " AND bucket_ms < ?2",
	"DELETE FROM rollup_chunks WHERE kind = 3 AND" MAINT_IDS(
		"routers", "id") " AND time_ms < ?2 AND end_ms < ?2",
	"DELETE FROM rollup_chunks WHERE kind = 4 AND" MAINT_IDS(
		"interfaces", "id") " AND time_ms < ?2 AND end_ms < ?2",
	"DELETE FROM rollup_chunks WHERE kind = 5 AND" MAINT_IDS(
		"peers", "id") " AND time_ms < ?2 AND end_ms < ?2",
	NULL };

enum maint_job {
	JOB_ROLLUP,
	JOB_ROLLUP_1H,
	JOB_PURGE_RAW,
	JOB_PURGE_ROLLUP,
	JOB_PURGE_1H,
	JOB_CHUNK,
	JOB_ROLLCHUNK,
	JOB_COUNT
};

static const struct {
	const char *key;        /* store_state: everything before value is done */
	const char *const *sql; /* run with ?1 = from, ?2 = to */
} maint_jobs[JOB_COUNT] = {
	[JOB_ROLLUP] = { "rollup_ms", NULL },       /* rollup.c */
	[JOB_ROLLUP_1H] = { "rollup_1h_ms", NULL }, /* rollhour.c */
	[JOB_PURGE_RAW] = { "raw_purged_ms", maint_purge_raw_sql },
	[JOB_PURGE_ROLLUP] = { "rollup_purged_ms", maint_purge_rollup_sql },
	[JOB_PURGE_1H] = { "rollup_1h_purged_ms", maint_purge_hourly_sql },
	[JOB_CHUNK] = { "chunked_ms", NULL },            /* maint_chunk_hours */
	[JOB_ROLLCHUNK] = { "rollup_chunked_ms", NULL }, /* rollstore_days */
};

/* The writer's copy of a job's mark (rollup_ms, raw_purged_ms, chunked_ms), or NULL. */
static int64_t *maint_mark(store_t *st, enum maint_job j)
{
	switch (j) {
	case JOB_ROLLUP: return &st->rollup_ms;
	case JOB_ROLLUP_1H: return &st->rollup_1h_ms;
	case JOB_PURGE_ROLLUP: return &st->rollup_purged_ms;
	case JOB_PURGE_RAW: return &st->raw_purged_ms;
	case JOB_CHUNK: return &st->chunked_ms;
	case JOB_ROLLCHUNK: return &st->rollup_chunked_ms;
	default: return NULL;
	}
}

/* Where the jobs start on a database that never ran them: the oldest raw sample. */
static int maint_first_time(store_t *st, int64_t now, int64_t *out)
{
	sqlite3_stmt *q = store_stmt(st,
		"SELECT min(m) FROM (SELECT min(time_ms) AS m FROM polls"
		" UNION ALL SELECT min(time_ms) FROM chunks)");
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
	/* The roll-ups' chunking starts where their purge is (the job before it made that mark):
	 * the roll-ups older than the raw samples are to be chunked too. */
	if (strcmp(key, maint_jobs[JOB_ROLLCHUNK].key) == 0)
		return maint_state_get(st, maint_jobs[JOB_PURGE_ROLLUP].key, now, out) < 0
			? -1
			: maint_state_set(st, key, *out = maint_floor_day(*out));
	/* The hourly tier likewise: on a database of an older schema it is made from the 5-minute
	 * roll-ups already stored, a step at a time; its purge's mark starts on the hour (its
	 * readers leave out the rows before it, the first hour's too otherwise). */
	if (strcmp(key, maint_jobs[JOB_ROLLUP_1H].key) == 0 || strcmp(key, maint_jobs[JOB_PURGE_1H].key) == 0)
		return maint_state_get(st, maint_jobs[JOB_PURGE_ROLLUP].key, now, out) < 0
			? -1
			: maint_state_set(st, key, *out = maint_floor_hour(*out));
	if (maint_first_time(st, now, out) < 0) /* once: it scans the raw tables */
		return -1;
	return maint_state_set(st, key, *out);
}

/* How far job j may go at time now. */
static int64_t maint_job_limit(store_t *st, enum maint_job j, int64_t now, int64_t rolled)
{
	switch (j) {
	case JOB_ROLLUP: return maint_floor_bucket(now - STORE_GRACE_MS);
	case JOB_ROLLUP_1H: /* an hour is closed once it is all rolled up */
		return st->rollup_ms == INT64_MIN ? INT64_MIN : maint_floor_hour(st->rollup_ms);
	case JOB_PURGE_RAW: /* never delete what is not rolled up yet */
		return store_min64(now - st->retention_ms, rolled);
	case JOB_CHUNK: /* an hour is closed once the gather window past its end has passed */
		return maint_floor_span(now - STORE_GATHER_MS);
	case JOB_ROLLCHUNK: /* a day is closed once it is all rolled up, into hours too */
		return st->rollup_ms == INT64_MIN || st->rollup_1h_ms == INT64_MIN
			? INT64_MIN
			: maint_floor_day(store_min64(st->rollup_ms, st->rollup_1h_ms));
	case JOB_PURGE_1H: return now - st->rollup_hourly_retention_ms;
	default: return now - st->rollup_retention_ms;
	}
}

/* The step's end: the next hour's start for the chunking (its mark stays on hours). */
static int64_t maint_job_to(enum maint_job j, int64_t done, int64_t limit)
{
	int64_t step = j == JOB_CHUNK                      ? maint_floor_span(done) + CHUNKSTORE_SPAN_MS
		: j == JOB_ROLLCHUNK || j == JOB_ROLLUP_1H ? maint_floor_day(done) + ROLLSTORE_SPAN_MS
							   : done + MAINT_CHUNK_MS;
	return store_min64(limit, step);
}

/* chunkstore's answer for rid's span: 1 (rows it cannot chunk, a malformed chunk) is logged,
 * once as the job passes each span once, and the rows stay; -1 fails the step. */
static int maint_chunk_answer(store_t *st, int rc, int64_t rid, int64_t span, const char *what)
{
	if (rc == 1)
		log_warn("store: %s: router %" PRId64 ", the hour at %" PRId64 " ms: %s (%s)", st->path, rid,
			span, what, st->errmsg);
	return rc < 0 ? -1 : 0;
}

/* Each router's span by chunkstore_span (span_ms) or trimmed to what lies from `from` on
 * (chunkstore_trim: the chunks across the purge's bound, from > 0); rows are the routers' ids
 * and their spans. */
static int maint_chunk_each(store_t *st, const char *sql, int64_t a, int64_t b, bool trim)
{
	sqlite3_stmt *q = store_stmt(st, sql);
	if (q == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, a);
	sqlite3_bind_int64(q, 2, b);
	int rc, ret = 0;
	while (ret == 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t rid = sqlite3_column_int64(q, 0), span = maint_floor_span(sqlite3_column_int64(q, 1));
		int r = trim ? chunkstore_trim(st, rid, span, b) : chunkstore_span(st, rid, span);
		ret = maint_chunk_answer(st, r, rid, span,
			trim ? "its chunk across the retention bound stays whole" : "its rows stay rows");
	}
	if (ret == 0 && rc != SQLITE_DONE) {
		store_note_error(st);
		ret = -1;
	}
	sqlite3_finalize(q);
	return ret;
}

/* The routers' closed hours in [from, to) made chunks: those with polls rows (a router without
 * polls there has nothing to chunk). */
static int maint_chunk_hours(store_t *st, int64_t from, int64_t to)
{
	return maint_chunk_each(st,
		"SELECT r.id, s.h FROM routers r, (SELECT ?1 AS h) s WHERE EXISTS (SELECT 1 FROM polls"
		" WHERE router_id = r.id AND time_ms >= ?1 AND time_ms < ?2) ORDER BY r.id",
		maint_floor_span(from), to, false);
}

/* The chunks across the purge's bound to: their rows before it deleted, as polls rows are. */
static int maint_trim_chunks(store_t *st, int64_t to)
{
	return maint_chunk_each(st,
		"SELECT router_id, time_ms FROM chunks WHERE" MAINT_IDS(
			"routers", "router_id") " AND time_ms < ?2 AND time_ms >= ?2 - ?1 AND end_ms >= ?2",
		CHUNKSTORE_SPAN_MS, to, true);
}

/* Whether a series' 5-minute rows of day (the chunking's mark: the open day, or the one being
 * chunked after a re-roll moved the marks back into it) are chunked: one seek a series at most,
 * the first chunk found ending it. 1, 0, or -1 with st->errmsg. */
static int maint_day_begun(store_t *st, int64_t day)
{
	sqlite3_stmt *q = store_stmt(st,
		"SELECT EXISTS (SELECT 1 FROM routers p WHERE EXISTS (SELECT 1 FROM rollup_chunks WHERE"
		" kind = 0 AND id = p.id AND time_ms >= ?1 AND time_ms < ?2) UNION ALL"
		" SELECT 1 FROM interfaces p WHERE EXISTS (SELECT 1 FROM rollup_chunks WHERE kind = 1 AND"
		" id = p.id AND time_ms >= ?1 AND time_ms < ?2) UNION ALL"
		" SELECT 1 FROM peers p WHERE EXISTS (SELECT 1 FROM rollup_chunks WHERE kind = 2 AND"
		" id = p.id AND time_ms >= ?1 AND time_ms < ?2))");
	if (q == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, day);
	sqlite3_bind_int64(q, 2, day + ROLLSTORE_SPAN_MS);
	int rc = sqlite3_step(q), ret = rc == SQLITE_ROW ? sqlite3_column_int(q, 0) : -1;
	if (ret < 0)
		store_note_error(st);
	sqlite3_finalize(q);
	return ret;
}

/* The hours of [from, to) (within one day) rolled up from their 5-minute rows: from the tables
 * for a day none of whose series is chunked yet (the open day, every hour), else through the
 * store_ tables. A day already chunked (a re-roll, or a database of an older schema whose days
 * are all chunked) goes at most so many series a step, their hourly chunks written in the same
 * transaction; the day being chunked is chunked again from its first series. 1 when the hours
 * are done, 0 when series are left (st->rollhour_pos tells where), -1 with st->errmsg. */
static int maint_hours(store_t *st, int64_t from, int64_t to)
{
	int64_t day = maint_floor_day(from);
	bool chunked = st->rollup_chunked_ms != INT64_MIN && day < st->rollup_chunked_ms;
	int merged = chunked, max = st->rollchunk_series > 0 ? st->rollchunk_series : MAINT_ROLLCHUNK_SERIES;
	if (!chunked && day == st->rollup_chunked_ms && (merged = maint_day_begun(st, day)) < 0)
		return -1;
	int rc = rollhour_span(st, from, to, merged, chunked ? &st->rollhour_pos : NULL, max);
	if (rc < 0)
		return -1;
	if (merged && !chunked)
		st->rollchunk_pos.day = INT64_MIN;
	/* the series of the step are those with hourly rows in the day's tables */
	if (chunked &&
		rollstore_days(st, day, day + ROLLSTORE_SPAN_MS, ROLLCHUNK_NKIND_5M, ROLLCHUNK_NKIND) < 0)
		return -1;
	return rc;
}

static int maint_job_run(store_t *st, enum maint_job j, int64_t from, int64_t to)
{
	if (store_exec(st, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (j == JOB_ROLLUP && rollup_span(st, from, to) < 0)
		goto fail;
	/* a re-roll into the day being chunked: do it again from its first series, so that those
	 * done get the rows it writes too */
	if (j == JOB_ROLLUP && from < st->rollup_chunked_ms + ROLLSTORE_SPAN_MS)
		st->rollchunk_pos.day = INT64_MIN;
	/* a re-roll of days already chunked (the mark went back) rewrites their chunks */
	if (j == JOB_ROLLUP && from < st->rollup_chunked_ms && st->rollup_chunked_ms != INT64_MIN &&
		rollstore_days(st, maint_floor_day(from), store_min64(to, st->rollup_chunked_ms), 0,
			ROLLCHUNK_NKIND_5M) < 0)
		goto fail;
	if (j == JOB_ROLLUP_1H) { /* a chunked day in steps of at most so many series */
		int rc = maint_hours(st, from, to);
		if (rc < 0 || (rc == 0 && store_exec(st, "COMMIT") < 0))
			goto fail;
		if (rc == 0)
			return 0; /* series left: the mark stays, the next step goes on from rollhour_pos */
	}
	if (j == JOB_ROLLCHUNK) { /* a day in steps of at most so many series; the mark at its end */
		int rc = rollstore_day_step(st, maint_floor_day(from), &st->rollchunk_pos,
			st->rollchunk_series > 0 ? st->rollchunk_series : MAINT_ROLLCHUNK_SERIES);
		if (rc < 0 || (rc == 0 && store_exec(st, "COMMIT") < 0))
			goto fail;
		if (rc == 0)
			return 0; /* series left: the mark stays, the next step goes on from rollchunk_pos */
	}
	if (j == JOB_CHUNK && maint_chunk_hours(st, from, to) < 0)
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
	if (j == JOB_PURGE_RAW && maint_trim_chunks(st, to) < 0)
		goto fail;
	if (maint_state_set(st, maint_jobs[j].key, to) == 0 && store_exec(st, "COMMIT") == 0) {
		if (maint_mark(st, j) != NULL)
			*maint_mark(st, j) = to;
		return 0;
	}
fail:
	db_rollback(st->db);
	st->rollchunk_pos.day = INT64_MIN; /* the series it passed are not chunked after all */
	st->rollhour_pos.day = INT64_MIN;
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
		int64_t to = maint_job_to(j, done, limit);
		return maint_job_run(st, j, done, to) < 0 ? -1 : 1;
	}
	return 0;
}

int maint_load(store_t *st)
{
	st->rollchunk_pos.day = INT64_MIN;
	st->rollhour_pos.day = INT64_MIN;
	for (int j = JOB_ROLLUP; j < JOB_COUNT; j++)
		if (maint_mark(st, j) != NULL &&
			maint_state_get(st, maint_jobs[j].key, INT64_MIN, maint_mark(st, j)) < 0)
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
	st->rollup_ms = mark;             /* a rollback of the batch reloads it (maint_load) */
	st->rollhour_pos.day = INT64_MIN; /* the series an hourly step did take the re-roll too */
	/* the hour of the mark is made again from its 5-minute rows, unless the 5-minute purge took
	 * some of them: an hour of what is left would replace a whole one */
	int64_t hour = maint_max64(maint_floor_hour(mark),
		st->rollup_purged_ms == INT64_MIN
			? INT64_MIN
			: maint_floor_hour(st->rollup_purged_ms + MAINT_HOUR_MS - 1));
	if (st->rollup_1h_ms == INT64_MIN || hour >= st->rollup_1h_ms)
		return 0;
	if (maint_state_set(st, maint_jobs[JOB_ROLLUP_1H].key, hour) < 0)
		return -1;
	st->rollup_1h_ms = hour;
	return 0;
}
