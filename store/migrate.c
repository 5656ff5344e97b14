/* SPDX-License-Identifier: Apache-2.0 */
/* migrate: opening the database file for the writer: lock it, check it is SQLite and sound, bring
 * its schema up to date from schema_sql.h, prepare the writer's statements and cache. It must
 * never put a new database in place of a bad one, nor touch a file that is not SQLite. */
#include "config.h"
#include "store/shmguard.h"
#include "store/store_int.h"
#include "store/schema_sql.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIGRATE_BUSY_MS      5000
#define MIGRATE_CACHE_KB     "8192"  /* the writer connection's page cache, KiB */
#define MIGRATE_PROGRESS_OPS 4000000 /* SQLite steps between progress calls */

static void (*migrate_progress_fn)(void *arg);
static void *migrate_progress_arg;

/* mkdir -p of dir, mode 0750; 0 or -1 with errno. */
static int migrate_mkdirs(const char *dir)
{
	char *p = xstrdup(dir);
	int rc = 0;
	for (char *s = p + 1; rc == 0 && s != NULL; s = strchr(s + 1, '/')) {
		char c = *s;
		*s = '\0';
		if (*p != '\0' && mkdir(p, 0750) < 0 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (c == '\0')
			break;
	}
	if (rc == 0 && mkdir(p, 0750) < 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

static char *migrate_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (slash == NULL)
		return xstrdup(".");
	return xstrndup(path, slash == path ? 1 : (size_t)(slash - path));
}

int store_check_path(const char *path, bool make_dir, bool check_only, char **cause)
{
	char *dir = migrate_dirname(path);
	struct stat sb;
	bool missing = stat(dir, &sb) < 0 && errno == ENOENT;
	if (missing && make_dir && check_only) { /* the start makes it */
		free(dir);
		return 0;
	}
	if (missing && make_dir && migrate_mkdirs(dir) < 0)
		*cause = xasprintf("cannot create directory %s: %s", dir, strerror(errno));
	else if (stat(dir, &sb) < 0)
		*cause = xasprintf("directory %s: %s", dir, strerror(errno));
	else if (!S_ISDIR(sb.st_mode))
		*cause = xasprintf("%s is not a directory", dir);
	else if (access(dir, W_OK | X_OK) < 0)
		*cause = xasprintf(
			"directory %s is not writable by uid %ld: %s", dir, (long)geteuid(), strerror(errno));
	else if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		*cause = xasprintf("%s is not a regular file", path);
	else if (stat(path, &sb) == 0 && access(path, R_OK | W_OK) < 0)
		*cause = xasprintf(
			"%s is not writable by uid %ld: %s", path, (long)geteuid(), strerror(errno));
	free(dir);
	return *cause == NULL ? 0 : -1;
}

/* The lock that counts is on the database's inode: a hard link or a second path to the same
 * file is the same database. flock() locks are independent of the POSIX locks SQLite takes, and
 * the descriptor stays open until store_close, so closing it never drops SQLite's locks early.
 * O_NONBLOCK: a FIFO in the database's place must not hang the start. */
static int migrate_lock_inode(store_t *st, char **cause)
{
	st->db_fd = open(st->path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
	if (st->db_fd < 0) {
		*cause = xasprintf("database %s: %s", st->path, strerror(errno));
		return -1;
	}
	struct stat sb;
	if (fstat(st->db_fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		*cause = xasprintf("database %s is not a regular file", st->path);
		return -1;
	}
	if (flock(st->db_fd, LOCK_EX | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		*cause = xasprintf("database %s is in use by another process, under another name "
				   "(a hard link to the same file)",
			st->path);
	else
		*cause = xasprintf("cannot lock database %s: %s", st->path, strerror(errno));
	return -1;
}

/* The lock file beside the database holds the owner's pid, for the message a second daemon
 * gives; the inode lock (above) is what keeps two writers apart. */
static int migrate_lock(store_t *st, char **cause)
{
	char *lock = xasprintf("%s.lock", st->path);
	st->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (st->lock_fd < 0) {
		*cause = xasprintf("cannot open lock file %s: %s", lock, strerror(errno));
		free(lock);
		return -1;
	}
	free(lock);
	if (flock(st->lock_fd, LOCK_EX | LOCK_NB) == 0) {
		char pid[32];
		int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (ftruncate(st->lock_fd, 0) < 0 || pwrite(st->lock_fd, pid, (size_t)n, 0) != n)
			log_debug("store: %s.lock: cannot write our pid", st->path);
		return migrate_lock_inode(st, cause);
	}
	if (errno != EWOULDBLOCK) {
		*cause = xasprintf("cannot lock %s.lock: %s", st->path, strerror(errno));
		return -1;
	}
	char buf[32] = "";
	ssize_t n = pread(st->lock_fd, buf, sizeof(buf) - 1, 0);
	long pid = n > 0 ? strtol(buf, NULL, 10) : 0;
	if (pid > 0)
		*cause = xasprintf("database %s is in use by another process (pid %ld)", st->path, pid);
	else
		*cause = xasprintf("database %s is in use by another process", st->path);
	return -1;
}

/* A file that is there must look like SQLite before SQLite may touch it. */
static int migrate_check_file(store_t *st, bool *exists, char **cause)
{
	struct stat sb;
	*exists = stat(st->path, &sb) == 0;
	if (!*exists) {
		if (errno == ENOENT)
			return 0;
		*cause = xasprintf("database %s: %s", st->path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		*cause = xasprintf("database %s is not a regular file", st->path);
		return -1;
	}
	if (sb.st_size == 0)
		return 0;
	char head[16] = "";
	FILE *f = fopen(st->path, "rb");
	size_t n = f ? fread(head, 1, sizeof(head), f) : 0;
	if (f)
		fclose(f);
	if (n == sizeof(head) && memcmp(head, "SQLite format 3", 16) == 0)
		return 0;
	*cause = xasprintf("%s is not a SQLite database (refusing to touch it)", st->path);
	return -1;
}

static int migrate_quick_check(store_t *st, char **cause)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(st->db, "PRAGMA quick_check", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(q, 0), "ok") == 0) {
		sqlite3_finalize(q);
		return 0;
	}
	if (rc == SQLITE_ROW)
		*cause = xasprintf("database %s is corrupt: %s (restore a backup, or recover what it holds "
				   "into a new file and point database = at it: sqlite3 %s .recover | "
				   "sqlite3 %s.recovered; the old file is left as it is)",
			st->path, (const char *)sqlite3_column_text(q, 0), st->path, st->path);
	else
		*cause = xasprintf("database %s is unusable: %s", st->path, sqlite3_errmsg(st->db));
	sqlite3_finalize(q);
	return -1;
}

static int migrate_db_open(store_t *st, char **cause)
{
	bool exists;
	if (migrate_check_file(st, &exists, cause) < 0)
		return -1;
	int flags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
	if (db_open(st->path, flags, MIGRATE_BUSY_MS, &st->db, cause) < 0)
		return -1;
	sqlite3_extended_result_codes(st->db, 1);
	shmguard_connection(st->db);
	if (sqlfn_register(st->db) != SQLITE_OK) { /* migration 003 needs them */
		*cause = db_cause(st->db, "database %s", st->path);
		return -1;
	}
	return migrate_quick_check(st, cause);
}

void store_on_migrate_progress(void (*fn)(void *arg), void *arg)
{
	migrate_progress_fn = fn;
	migrate_progress_arg = arg;
}

static int migrate_progress(void *arg)
{
	(void)arg;
	migrate_progress_fn(migrate_progress_arg);
	return 0; /* go on */
}

static int migrate_one(store_t *st, const struct schema_migration *m, char **cause)
{
	log_info("store: %s: applying schema migration %s", st->path, m->name);
	if (migrate_progress_fn != NULL) {
		migrate_progress_fn(migrate_progress_arg);
		sqlite3_progress_handler(st->db, MIGRATE_PROGRESS_OPS, migrate_progress, NULL);
	}
	char *sql = xasprintf("BEGIN IMMEDIATE; %s; PRAGMA user_version = %d; COMMIT", m->sql, m->version);
	int rc = store_exec(st, sql);
	free(sql);
	sqlite3_progress_handler(st->db, 0, NULL, NULL);
	if (rc == 0) {
		log_info("store: %s: applied schema migration %s", st->path, m->name);
		return 0;
	}
	db_rollback(st->db);
	*cause = xasprintf("database %s: schema migration %s failed: %s", st->path, m->name, st->errmsg);
	return -1;
}

static int migrate_schema(store_t *st, char **cause)
{
	int uv = 0;
	if (db_query_int(st->db, "PRAGMA user_version", &uv) < 0) {
		*cause = db_cause(st->db, "database %s", st->path);
		return -1;
	}
	/* A migration's version is its file's number, not its position: numbers may skip one
	 * (a branch that adds 006 before 005 is merged), and only the later ones run. */
	int newest = schema_nmigrations ? schema_migrations[schema_nmigrations - 1].version : 0;
	if (uv > newest) {
		*cause = xasprintf("database %s has schema version %d, newer than this wgwatchd "
				   "knows (%d): run a newer wgwatchd",
			st->path, uv, newest);
		return -1;
	}
	if (db_use_wal(st->db) < 0) {
		*cause = db_cause(st->db, "database %s: cannot switch to WAL mode", st->path);
		return -1;
	}
	/* A commit places each router's polls in its own part of the polls index and of the other
	 * tables a poll touches, so 100 routers outgrow SQLite's default 2 MB cache, which then
	 * spills and re-reads pages mid-transaction (a third of the writer's CPU at 100 routers
	 * polled every second, measured before migration 011). */
	sqlite3_exec(st->db, "PRAGMA cache_size = -" MIGRATE_CACHE_KB, NULL, NULL, NULL);
	for (size_t i = 0; i < schema_nmigrations; i++)
		if (schema_migrations[i].version > uv && migrate_one(st, &schema_migrations[i], cause) < 0)
			return -1;
	return 0;
}

static int migrate_prepare(store_t *st, char **cause)
{
	char *why = NULL;
	if (store_sql_attach(st->db, &why) < 0) {
		*cause = xasprintf("database %s: %s", st->path, why);
		free(why);
		return -1;
	}
	for (int i = 0; i < SQ_COUNT; i++) {
		st->sq[i] = db_prepare(
			st->db, ingest_sql[i], SQLITE_PREPARE_PERSISTENT, st->errmsg, sizeof(st->errmsg));
		if (st->sq[i] == NULL) {
			*cause = db_cause(st->db, "database %s", st->path);
			return -1;
		}
	}
	if (cache_load(st) < 0) {
		*cause = xasprintf("database %s: %s", st->path, st->errmsg);
		return -1;
	}
	return 0;
}

/* The identity of the write-ahead log as the writer opened it: the test below compares. */
static void migrate_note_wal(store_t *st)
{
	char *wal = xasprintf("%s-wal", st->path);
	struct stat sb;
	st->wal_known = stat(wal, &sb) == 0;
	st->wal_dev = st->wal_known ? sb.st_dev : 0;
	st->wal_ino = st->wal_known ? sb.st_ino : 0;
	free(wal);
}

int migrate_open(store_t *st, char **cause)
{
	if (migrate_lock(st, cause) < 0 || migrate_db_open(st, cause) < 0 || migrate_schema(st, cause) < 0)
		return -1;
	if (migrate_prepare(st, cause) < 0)
		return -1;
	migrate_note_wal(st);
	shmguard_watch(st->path);
	return 0;
}

/* Whether the database and its write-ahead log are still the files the writer has open. One
 * deleted or replaced under it (rm, a restore over it) splits what the writer writes from what
 * readers and the next start see, and writing on damages the database: the writer stops. */
int migrate_files_check(store_t *st)
{
	struct stat open_db, named;
	if (shmguard_lost()) {
		snprintf(st->errmsg, sizeof(st->errmsg),
			"its wal-index (-shm) was truncated or made unwritable while in use: writing "
			"stopped; everything committed is in the -wal, read back at the next start: restart "
			"wgwatchd");
		return -1;
	}
	if (fstat(st->db_fd, &open_db) == 0 &&
		(open_db.st_nlink == 0 || stat(st->path, &named) != 0 || named.st_dev != open_db.st_dev ||
			named.st_ino != open_db.st_ino)) {
		snprintf(st->errmsg, sizeof(st->errmsg),
			"the database file was deleted or replaced while in use: not writing to it any "
			"more; restart wgwatchd");
		return -1;
	}
	if (!st->wal_known) {
		migrate_note_wal(st);
		return 0;
	}
	char *wal = xasprintf("%s-wal", st->path);
	int gone = stat(wal, &named) != 0 || named.st_dev != st->wal_dev || named.st_ino != st->wal_ino;
	free(wal);
	if (!gone)
		return 0;
	snprintf(st->errmsg, sizeof(st->errmsg),
		"its write-ahead log (-wal) was deleted or replaced while in use: writing stopped so as "
		"not to damage the database; stop wgwatchd and check it");
	return -1;
}
