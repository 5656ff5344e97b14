/* SPDX-License-Identifier: Apache-2.0 */
/* store: the public API and the writer thread. store_open has migrate.c lock, check and migrate
 * the database; then one writer thread owns the connection: it commits queued polls in batched
 * transactions (ingest.c) and runs roll-ups and retention (maint.c). It must never block a
 * store_submit caller on disk I/O, and never put a new database in place of a bad one. */
#include "config.h"
#include "store/pollsvt.h"
#include "store/rollvt.h"
#include "store/shmguard.h"
#include "store/store.h"
#include "store/store_int.h"
#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define STORE_MAINT_EVERY_MS 300000 /* maintenance period (monotonic clock) */
#define STORE_MAINT_FIRST_MS 60000  /* first maintenance after open */
#define STORE_BEAT_MS        500    /* longest writer wait between heartbeats */
#define STORE_BACKOFF_MIN_MS 100    /* retry delay after a failed commit, doubling ... */
#define STORE_BACKOFF_MAX_MS 5000   /* ... up to this */
#define STORE_CLOSE_RETRIES  5      /* failed commits tolerated while closing */
#define STORE_GATHER_POLLS   512    /* polls gather STORE_GATHER_MS (store.h) unless this many */

size_t store_queue_max = 100000;

/* ---- SQLite calls of the writer (errors land in st->errmsg) ---- */

void store_note_error(store_t *st)
{
	db_errcpy(st->db, st->errmsg, sizeof(st->errmsg));
}

int store_exec(store_t *st, const char *sql)
{
	return db_exec(st->db, sql, st->errmsg, sizeof(st->errmsg));
}

int store_step(store_t *st, sqlite3_stmt *q)
{
	return db_step(q, st->errmsg, sizeof(st->errmsg));
}

sqlite3_stmt *store_stmt(store_t *st, const char *sql)
{
	return db_prepare(st->db, sql, 0, st->errmsg, sizeof(st->errmsg));
}

int store_sql_attach(sqlite3 *db, char **cause)
{
	if (sqlfn_attach(db) == SQLITE_OK && pollsvt_register(db) == SQLITE_OK &&
		rollvt_register(db) == SQLITE_OK)
		return 0;
	*cause = xasprintf("cannot set up the sample views: %s", sqlite3_errmsg(db));
	return -1;
}

static void store_item_free(struct store_item *it)
{
	sample_free(it->s);
	profile_free(it->prof);
	probe_free(it->probe);
	it->s = NULL;
	it->prof = NULL;
	it->probe = NULL;
}

static void store_free(store_t *st)
{
	for (int i = 0; i < SQ_COUNT; i++)
		sqlite3_finalize(st->sq[i]);
	shmguard_close(st->db);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	if (st->db_fd >= 0)
		close(st->db_fd);
	cache_clear(st);
	for (size_t i = 0; i < sizeof(st->pk) / sizeof(st->pk[0]); i++)
		buf_free(&st->pk[i]);
	for (size_t i = 0; i < st->qlen; i++)
		store_item_free(&st->q[(st->qhead + i) % st->qcap]);
	for (size_t i = 0; i < st->nbatch; i++)
		store_item_free(&st->batch[i]);
	free(st->q);
	free(st->batch);
	free(st->path);
	pthread_mutex_destroy(&st->mu);
	pthread_cond_destroy(&st->wake);
	pthread_cond_destroy(&st->progress);
	free(st);
}

/* ---- the writer thread ---- */

static void store_timed_wait(store_t *st, int64_t ms)
{
	struct timespec ts = clock_mono_deadline(ms);
	pthread_cond_timedwait(&st->wake, &st->mu, &ts);
	st->heartbeat_ms = clock_mono_ms();
}

/* Wait ms without being cut short by submits, beating the heart meanwhile. Called locked. */
static void store_sleep(store_t *st, int64_t ms)
{
	int64_t end = clock_mono_ms() + ms;
	for (int64_t left = ms; left > 0 && !st->stopping; left = end - clock_mono_ms())
		store_timed_wait(st, left < STORE_BEAT_MS ? left : STORE_BEAT_MS);
}

/* Move everything queued into the writer's batch. Called locked, with an empty batch. */
static void store_take(store_t *st)
{
	st->batch = xreallocarray(st->batch, st->qlen ? st->qlen : 1, sizeof(*st->batch));
	for (size_t i = 0; i < st->qlen; i++)
		st->batch[i] = st->q[(st->qhead + i) % st->qcap];
	st->nbatch = st->inflight = st->qlen;
	st->qhead = st->qlen = 0;
}

/* The batch is done with (committed, or given up): free it and wake flushers. Locked. */
static void store_batch_done(store_t *st)
{
	if (st->nbatch > 0 && st->batch[st->nbatch - 1].seq > st->done_seq)
		st->done_seq = st->batch[st->nbatch - 1].seq;
	for (size_t i = 0; i < st->nbatch; i++)
		store_item_free(&st->batch[i]);
	st->nbatch = st->inflight = 0;
	pthread_cond_broadcast(&st->progress);
}

static void store_committed(store_t *st, size_t rows)
{
	if (st->stats.failing)
		log_info("store: writing to %s works again (%" PRIu64 " failed attempts in all)", st->path,
			st->stats.write_errors);
	st->stats.failing = false;
	st->stats.samples_stored += rows;
	st->stats.polls_stored += st->nbatch;
	st->stats.last_commit_ms = clock_wall_ms();
	store_batch_done(st);
	if (st->batch_versions && st->on_version != NULL)
		st->on_version(st->on_version_arg);
	st->batch_versions = false;
}

/* Returns true when the batch should be retried. Called locked. */
static bool store_commit_failed(store_t *st, int *failures)
{
	if (!st->stats.failing || strcmp(st->stats.last_error, st->errmsg) != 0)
		log_error("store: writing to %s failed: %s (keeping %zu polls, retrying)", st->path,
			st->errmsg, st->nbatch);
	st->stats.failing = true;
	st->stats.write_errors++;
	snprintf(st->stats.last_error, sizeof(st->stats.last_error), "%s", st->errmsg);
	pthread_cond_broadcast(&st->progress);
	if (!st->stopping || ++*failures < STORE_CLOSE_RETRIES)
		return true;
	log_error("store: closing %s: giving up on %zu polls that cannot be written", st->path, st->nbatch);
	st->stats.dropped += st->nbatch;
	store_batch_done(st);
	return false;
}

/* Commit the batch (called locked, unlocks meanwhile); back off after a failure. */
static void store_commit_round(store_t *st, int64_t *backoff, int *failures)
{
	size_t rows;
	pthread_mutex_unlock(&st->mu);
	bool gone = migrate_files_check(st) < 0;
	int rc = gone ? -1 : ingest_batch(st, &rows);
	pthread_mutex_lock(&st->mu);
	st->stats.files_gone |= gone;
	st->heartbeat_ms = clock_mono_ms();
	if (rc == 0) {
		store_committed(st, rows);
		*backoff = STORE_BACKOFF_MIN_MS;
		*failures = 0;
		return;
	}
	if (!store_commit_failed(st, failures))
		return;
	store_sleep(st, st->stopping ? STORE_BACKOFF_MIN_MS : *backoff);
	*backoff = store_min64(*backoff * 2, STORE_BACKOFF_MAX_MS);
}

/* One maintenance step (called locked, unlocks meanwhile); none once writing stopped for good. */
static void store_maint_round(store_t *st)
{
	bool gone = st->stats.files_gone;
	pthread_mutex_unlock(&st->mu);
	int64_t now = clock_wall_ms(); /* tests drive it: clock_set_wall */
	int rc = gone || migrate_files_check(st) < 0 ? 0 : maint_step(st, now);
	if (rc < 0)
		log_warn("store: %s: roll-up/retention failed: %s (retrying later)", st->path, st->errmsg);
	pthread_mutex_lock(&st->mu);
	st->heartbeat_ms = clock_mono_ms();
	st->maint_active = rc > 0;
	if (rc > 0)
		return;
	st->next_maint_ms = clock_mono_ms() + STORE_MAINT_EVERY_MS;
	if (st->maint_forced) {
		st->maint_forced = false;
		st->maint_gen++;
		pthread_cond_broadcast(&st->progress);
	}
}

/* Let polls gather before a commit, so that one commit writes each router's pages once for
 * several of its polls (the samples are keyed by router): 2 s holds two polls of each router
 * polled every second, and 512 polls bound the memory held (a queued poll is some 10 KiB) at
 * the cost of sharing less in fleets of more than 256 such routers. True while waiting. Locked. */
static bool store_gathering(store_t *st)
{
	if (st->stopping || st->flushing > 0 || st->qlen >= STORE_GATHER_POLLS)
		return false;
	int64_t left = st->gather_ms + STORE_GATHER_MS - clock_mono_ms();
	if (left <= 0)
		return false;
	store_timed_wait(st, left < STORE_BEAT_MS ? left : STORE_BEAT_MS); /* the heartbeat ticks on */
	return true;
}

static void *store_writer(void *arg)
{
	store_t *st = arg;
	pthread_setname_np(pthread_self(), "wg-store"); /* by itself: prctl, no /proc file opened */
	int64_t backoff = STORE_BACKOFF_MIN_MS;
	int failures = 0;
	pthread_mutex_lock(&st->mu);
	for (;;) {
		st->heartbeat_ms = clock_mono_ms();
		if (st->nbatch == 0 && st->qlen > 0) {
			if (store_gathering(st))
				continue;
			store_take(st);
		}
		if (st->nbatch > 0)
			store_commit_round(st, &backoff, &failures);
		else if (!st->stopping &&
			(st->maint_active || st->maint_forced || clock_mono_ms() >= st->next_maint_ms))
			store_maint_round(st);
		else if (st->stopping)
			break;
		else
			store_timed_wait(st, STORE_BEAT_MS);
	}
	pthread_mutex_unlock(&st->mu);
	return NULL;
}

/* ---- public ---- */

static int store_start(store_t *st, char **cause)
{
	st->heartbeat_ms = clock_mono_ms();
	st->next_maint_ms = clock_mono_ms() + STORE_MAINT_FIRST_MS;
	int err = pthread_create(&st->thread, NULL, store_writer, st);
	if (err == 0)
		return 0;
	*cause = xasprintf("cannot start the database writer: %s", strerror(err));
	return -1;
}

int store_open(const char *path, const conf_t *conf, store_t **out, char **cause)
{
	store_t *st = xcalloc(1, sizeof(*st));
	st->path = xstrdup(path);
	st->lock_fd = -1;
	st->db_fd = -1;
	st->retention_ms = conf && conf->retention_ms > 0 ? conf->retention_ms : 35 * STORE_DAY_MS;
	st->rollup_retention_ms = conf && conf->rollup_retention_ms > 0 ? conf->rollup_retention_ms
									: 60 * STORE_DAY_MS;
	st->rollup_hourly_retention_ms = conf && conf->rollup_hourly_retention_ms > 0
		? conf->rollup_hourly_retention_ms
		: 400 * STORE_DAY_MS;
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->progress, NULL);
	clock_cond_init(&st->wake);
	*cause = NULL;
	if (migrate_open(st, cause) < 0 || store_start(st, cause) < 0) {
		store_free(st);
		return -1;
	}
	*out = st;
	return 0;
}

void store_close(store_t *st)
{
	if (st == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	st->stopping = true;
	pthread_cond_signal(&st->wake);
	pthread_mutex_unlock(&st->mu);
	pthread_join(st->thread, NULL);
	store_free(st);
}

/* Append to the ring, dropping the oldest poll when full. Called locked. */
static void store_push(store_t *st, sample_t *s, profile_t *prof, probe_t *probe)
{
	if (st->qlen >= store_queue_max && st->qlen > 0) {
		store_item_free(&st->q[st->qhead]);
		st->qhead = (st->qhead + 1) % st->qcap;
		st->qlen--;
		st->stats.dropped++;
	}
	if (st->qlen == st->qcap) {
		size_t cap = st->qcap ? st->qcap * 2 : 64;
		struct store_item *q = xcalloc(cap, sizeof(*q));
		for (size_t i = 0; i < st->qlen; i++)
			q[i] = st->q[(st->qhead + i) % st->qcap];
		free(st->q);
		st->q = q;
		st->qcap = cap;
		st->qhead = 0;
	}
	st->q[(st->qhead + st->qlen++) % st->qcap] = (struct store_item){ s, ++st->submit_seq, prof, probe };
	if (st->qlen == 1)
		st->gather_ms = clock_mono_ms();
}

void store_submit(store_t *st, sample_t *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	store_push(st, s, NULL, NULL);
	if (st->qlen == 1 || st->qlen >= STORE_GATHER_POLLS) /* else the writer is gathering */
		pthread_cond_signal(&st->wake);
	pthread_mutex_unlock(&st->mu);
}

void store_submit_profile(store_t *st, profile_t *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	store_push(st, NULL, p, NULL);
	if (st->qlen == 1)
		pthread_cond_signal(&st->wake);
	pthread_mutex_unlock(&st->mu);
}

void store_submit_probe(store_t *st, probe_t *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	store_push(st, NULL, NULL, p);
	if (st->qlen == 1)
		pthread_cond_signal(&st->wake);
	pthread_mutex_unlock(&st->mu);
}

void store_on_version_change(store_t *st, void (*fn)(void *arg), void *arg)
{
	pthread_mutex_lock(&st->mu);
	st->on_version = fn;
	st->on_version_arg = arg;
	pthread_mutex_unlock(&st->mu);
}

void store_flush(store_t *st)
{
	pthread_mutex_lock(&st->mu);
	uint64_t target = st->submit_seq;
	st->flushing++;
	pthread_cond_signal(&st->wake);
	while (st->done_seq < target)
		pthread_cond_wait(&st->progress, &st->mu);
	st->flushing--;
	pthread_mutex_unlock(&st->mu);
}

void store_maintain(store_t *st)
{
	pthread_mutex_lock(&st->mu);
	uint64_t gen = st->maint_gen;
	st->maint_forced = true;
	pthread_cond_signal(&st->wake);
	while (st->maint_gen == gen)
		pthread_cond_wait(&st->progress, &st->mu);
	pthread_mutex_unlock(&st->mu);
}

void store_get_stats(store_t *st, struct store_stats *out)
{
	pthread_mutex_lock(&st->mu);
	*out = st->stats;
	out->queued = st->qlen + st->inflight;
	pthread_mutex_unlock(&st->mu);
	out->sqlite_bytes = sqlite3_memory_used();
}

int64_t store_heartbeat_ms(store_t *st)
{
	pthread_mutex_lock(&st->mu);
	int64_t ms = st->heartbeat_ms;
	pthread_mutex_unlock(&st->mu);
	return ms;
}
