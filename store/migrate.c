/* migrate: opening the database file for the writer: lock it, check it is SQLite and sound, bring
 * its schema up to date from schema_sql.h, prepare the writer's statements and cache. It must
 * never put a new database in place of a bad one, nor touch a file that is not SQLite. */
#include "config.h"
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

#define MIGRATE_BUSY_MS 5000

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
		return 0;
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
		*cause = xasprintf("database %s is corrupt: %s (restore a backup or move it away)", st->path,
			(const char *)sqlite3_column_text(q, 0));
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
	if (sqlfn_register(st->db) != SQLITE_OK) { /* migration 003 needs them */
		*cause = db_cause(st->db, "database %s", st->path);
		return -1;
	}
	return migrate_quick_check(st, cause);
}

static int migrate_one(store_t *st, const struct schema_migration *m, char **cause)
{
	char *sql = xasprintf("BEGIN IMMEDIATE; %s; PRAGMA user_version = %d; COMMIT", m->sql, m->version);
	int rc = store_exec(st, sql);
	free(sql);
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

int migrate_open(store_t *st, char **cause)
{
	if (migrate_lock(st, cause) < 0 || migrate_db_open(st, cause) < 0 || migrate_schema(st, cause) < 0)
		return -1;
	return migrate_prepare(st, cause);
}
