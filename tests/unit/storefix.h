/* SPDX-License-Identifier: Apache-2.0 */
/* storefix: the store tests' shared fixture: a temp directory (unitfs) and a fake clock for the
 * run, a store opened or refused, one-value queries on the sample views, the integrity check, a
 * sample with its version fields. Header-only, for tests (CHECK counts in the including file); it
 * must never be linked into wgwatchd. */
#ifndef WGWATCH_TESTS_STOREFIX_H
#define WGWATCH_TESTS_STOREFIX_H

#include "config.h"
#include "store/store_int.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "unit.h"
#include "unitfs.h"

static _Atomic int64_t storefix_now;

static inline int64_t storefix_clock(void)
{
	return atomic_load(&storefix_now);
}

#define STOREFIX_T0 1699999800000LL /* a bucket start */

static const char *storefix_dir; /* the run's unitfs root */

static inline char *storefix_path(const char *name)
{
	return xasprintf("%s/%s", storefix_dir, name);
}

static inline store_t *storefix_open(const char *path)
{
	conf_t conf = { .retention_ms = STORE_DAY_MS,
		.rollup_retention_ms = 3 * STORE_DAY_MS,
		.rollup_hourly_retention_ms = 5 * STORE_DAY_MS };
	store_t *st = NULL;
	char *cause = NULL;
	CHECK(store_open(path, &conf, &st, &cause) == 0);
	if (cause)
		fprintf(stderr, "store_open: %s\n", cause);
	free(cause);
	return st;
}

/* store_open must fail with a cause containing want; returns nothing. */
static inline void storefix_open_fails(const char *path, const char *want)
{
	store_t *st = NULL;
	char *cause = NULL;
	CHECK(store_open(path, NULL, &st, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, want) != NULL);
	if (cause)
		printf("  refused as expected: %s\n", cause);
	free(cause);
}

static int storefix_raw; /* 1: open without the sample views (a database before migration 003) */

static inline sqlite3 *storefix_db(const char *path)
{
	sqlite3 *db = NULL;
	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) == SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	char *cause = NULL;
	if (storefix_raw == 0 && store_sql_attach(db, &cause) < 0) { /* the sample views */
		fprintf(stderr, "%s\n", cause);
		free(cause);
	}
	return db;
}

static inline int64_t storefix_int(const char *path, const char *sql)
{
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	int64_t v = -999;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_type(q, 0) == SQLITE_NULL ? -998 : sqlite3_column_int64(q, 0);
	else
		fprintf(stderr, "query failed: %s: %s\n", sql, sqlite3_errmsg(db));
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

static char storefix_buf[4096];

static inline const char *storefix_text(const char *path, const char *sql)
{
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	snprintf(storefix_buf, sizeof(storefix_buf), "(query failed)");
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		snprintf(storefix_buf, sizeof(storefix_buf), "%s",
			sqlite3_column_text(q, 0) ? (const char *)sqlite3_column_text(q, 0) : "(null)");
	sqlite3_finalize(q);
	sqlite3_close(db);
	return storefix_buf;
}

static inline void storefix_integrity(const char *path)
{
	CHECK_STR(storefix_text(path, "PRAGMA integrity_check"), "ok");
	CHECK_INT(storefix_int(path, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
}

/* Run roll-up and retention to completion at the fake clock's time. */
static inline void storefix_maintain(store_t *st)
{
	store_maintain(st);
}

static inline void storefix_wait_write_error(store_t *st)
{
	pthread_mutex_lock(&st->mu);
	while (st->stats.write_errors == 0)
		pthread_cond_wait(&st->progress, &st->mu);
	pthread_mutex_unlock(&st->mu);
}

static inline sample_t *storefix_sample(
	const char *router, int64_t t, const char *ver, const char *fw, int64_t up)
{
	sample_t *s = sample_new(router, t, "rest");
	s->duration_ms = 12;
	s->version = xstrdup(ver);
	s->channel = xstrdup("stable");
	s->firmware = xstrdup(fw);
	s->board = xstrdup("RB5009UG+S+");
	s->architecture = xstrdup("arm64");
	s->uptime_ms = up;
	return s;
}

/* Wall-clock seconds, for the figures a test prints (never for a check). */
static inline double storefix_seconds(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* The run's temp directory as /tmp/NAME.XXXXXX (unitfs_root; unitfs_end at the end), the
 * store's clock the fake one at STOREFIX_T0; -1 when no directory can be made. */
static inline int storefix_begin(const char *name)
{
	storefix_dir = unitfs_root(name);
	if (storefix_dir == NULL)
		return -1;
	clock_set_wall(storefix_clock);
	atomic_store(&storefix_now, STOREFIX_T0);
	log_set_level(LOG_LVL_WARN);
	return 0;
}

#endif
