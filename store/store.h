/* SPDX-License-Identifier: Apache-2.0 */
/* store: the SQLite database (WAL). Migrations from schema/ at open (PRAGMA user_version),
 * a writer thread that commits queued samples in batched transactions off the event loop,
 * version history (upgrades, firmware, board changes, reboots), retention and 5-minute
 * roll-ups. Never blocks the caller on disk I/O in store_submit. */
#ifndef WGWATCH_STORE_H
#define WGWATCH_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/conf.h"
#include "daemon/probe.h"
#include "daemon/profile.h"
#include "daemon/sample.h"

typedef struct store store_t;

struct store_stats {
	uint64_t samples_stored; /* rows of samples committed (cpu, interface, peer rows) */
	uint64_t polls_stored;   /* router polls committed */
	uint64_t write_errors;   /* failed commits (retried) */
	uint64_t dropped;        /* polls dropped because the queue overflowed */
	size_t queued;           /* polls waiting to be written */
	int64_t sqlite_bytes;    /* heap SQLite holds in this process, page caches included */
	int64_t last_commit_ms;  /* wall clock */
	bool failing;            /* the newest commit failed */
	bool files_gone;         /* the database or its WAL was deleted or replaced: no more writes */
	char last_error[256];
};

/* Open (create) the database at path, apply migrations, start the writer. On failure returns -1
 * with *cause set (caller frees): a locked or corrupt file is an error, never a new database. */
int store_open(const char *path, const conf_t *conf, store_t **out, char **cause);
/* fn(arg) is called from store_open's thread when a schema migration starts and every few
 * million SQLite steps while it runs (011 rewrites the polls table: minutes on a big database),
 * so that a service manager can be told the start goes on. NULL: none. Process-wide. */
void store_on_migrate_progress(void (*fn)(void *arg), void *arg);
/* Whether store_open could open path, as far as files tell without opening it: the directory
 * exists and this user may create files in it, and a file already there is a regular file it
 * may read and write. make_dir: a missing directory is created (mode 0750, parents too), for
 * the compiled-in default; with make_dir and check_only both, a missing directory is fine (the
 * start, or systemd's StateDirectory=, makes it). -1 with *cause otherwise. */
int store_check_path(const char *path, bool make_dir, bool check_only, char **cause);
void store_close(store_t *st); /* writes everything queued, then closes */

/* The longest a submitted poll waits in memory before the commit that stores it starts (polls
 * gather so that a commit writes each router's page once for several polls): a reader of the
 * database sees a poll this much after it was submitted, plus the commit's own time. */
#define STORE_GATHER_MS 5000
void store_submit(store_t *st, sample_t *s); /* takes ownership; returns at once */
/* A CPU profile (daemon/profile.h) into the profiles table; takes ownership, returns at once. */
void store_submit_profile(store_t *st, profile_t *p);
void store_submit_probe(store_t *st, probe_t *p); /* a probe into the probes table, likewise */
void store_flush(store_t *st);                    /* waits until everything submitted is committed */
/* After each commit that stored a version change (an upgrade or a downgrade), call fn(arg) on
 * the writer thread, so that the detector need not wait for its next round. Set it before the
 * first store_submit; fn must return at once. */
void store_on_version_change(store_t *st, void (*fn)(void *arg), void *arg);
/* Any thread: run the roll-ups, retention and chunking of closed hours now, at the store's
 * clock, and return when they are done (tests, benchmarks, wgwatch-fill -m; the writer otherwise
 * runs them every 5 minutes). */
void store_maintain(store_t *st);
void store_get_stats(store_t *st, struct store_stats *out);
int64_t store_heartbeat_ms(store_t *st); /* monotonic ms of the writer's last sign of life */

/* Make the packed samples readable on another connection to the database (any thread): the
 * table-valued function store_values(blob) and the temp views cpu_samples, iface_samples and
 * peer_samples (the columns of schema 001, plus router_id: put router_id in a query's WHERE so
 * that SQLite seeks instead of unpacking every poll). 0, or -1 with *cause (caller frees). */
struct sqlite3;
int store_sql_attach(struct sqlite3 *db, char **cause);

#endif
