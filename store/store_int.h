/* SPDX-License-Identifier: Apache-2.0 */
/* store_int: what the files of store/ share, and its unit test and bench reach; no other folder. */
#ifndef WGWATCH_STORE_INT_H
#define WGWATCH_STORE_INT_H

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/buf.h"
#include "daemon/probe.h"
#include "daemon/profile.h"
#include "daemon/sample.h"
#include "store/store.h"
#include "store/rollstore.h"

#define STORE_GRACE_MS 60000 /* a roll-up bucket is rolled up once it ended this long ago */
#define STORE_DAY_MS   86400000LL

extern size_t store_queue_max; /* polls; a variable so that the test can lower it */

enum store_sq { /* the writer's prepared statements (ingest_sql) */
	SQ_INS_ROUTER,
	SQ_UPD_ROUTER,
	SQ_INS_IFACE,
	SQ_INS_PEER,
	SQ_INS_POLL,
	SQ_INS_SENSOR,
	SQ_UPD_PEER,
	SQ_INS_HIST,
	SQ_GET_STATE,
	SQ_SET_STATE,
	SQ_COUNT
};

/* A string the writer keeps of a router, as an offset rather than a pointer (4 bytes, not 8):
 * into the router's block of poll strings (store_router.strs, shared with the polls), or with
 * CACHE_OWN set into its own block (store_router.own, copies); CACHE_NOSTR for none.
 * cache_str gives the string. */
#define CACHE_OWN   0x80000000u
#define CACHE_NOSTR UINT32_MAX

/* An interface or a peer of one router; one per series kept, 48 bytes with a peer's details
 * (jemalloc's classes: 20 peers take 1,024 bytes): so the strings are offsets, the previous
 * poll's time is one field, its monotonic time when it had one, and the id 32 bits
 * (cache_id_check). */
struct store_series {
	uint32_t name; /* interface name; for a peer its interface */
	uint32_t key;  /* peer: public key, else label; CACHE_NOSTR for interfaces */
	/* a peer's endpoint and allowed addresses as stored in peers (written when they change);
	 * the endpoint in cache_endpoint's form, or, when it lies in the polls' block, the bare
	 * address with endpoint_port */
	uint32_t endpoint, allowed;
	int64_t prev_t; /* the previous poll's monotonic time with prev_mono, else its wall time */
	uint64_t prev_rx, prev_tx;
	uint32_t id;
	uint16_t endpoint_port;
	bool have_prev : 1;  /* prev_* hold the counters of the poll before, in poll order */
	bool prev_mono : 1;  /* prev_t is monotonic; never after a load from the database */
	int8_t disabled : 2; /* a peer's, as stored in peers: -1 unknown, else 0 or 1 */
};
_Static_assert(sizeof(struct store_series) == 48, "a series in 48 bytes");

/* A health sensor of one router, as sensors stores it: its name (an offset, as a series') and unit. */
struct store_sensor {
	uint32_t name;
	uint32_t id;  /* cache_id_check */
	uint8_t unit; /* enum sample_unit, or CACHE_UNIT_OTHER */
};
#define CACHE_UNIT_OTHER 0xff /* a unit text this build does not know: no poll's sensor has it */

/* A router's own strings (copies: interface and sensor names, what was read from the database
 * or lies in no block of the polls), one block rather than a malloc each; dead counts the
 * bytes of strings no longer used, which cache_router_trim squeezes out. */
struct store_own {
	uint32_t len, cap, dead;
	char data[];
};

struct store_router { /* what the writer remembers of a router (from the db) */
	char *name;
	int64_t id;
	char *version, *firmware, *board;
	int64_t uptime_ms, info_ms; /* last known uptime and the poll time it was read; -1 */
	int64_t info_mono;          /* the monotonic time it was read; -1 unknown */
	struct store_series *ifaces, *peers;
	struct store_own *own; /* the strings at CACHE_OWN offsets; NULL when none */
	struct store_sensor *sensors;
	/* 32 bits, so that the entry is 128 bytes (jemalloc's class), not 152 (160) */
	uint32_t nifaces, npeers, nsensors;
	uint32_t cap_ifaces, cap_peers, cap_sensors; /* allocated; cache_router_trim: no more than n */
	/* The block of peer strings (restpeers.h) of the newest poll: its peer series point into it
	 * rather than keep copies of the same names, keys and addresses; NULL when none. */
	sample_strs_t *strs;
};
_Static_assert(sizeof(struct store_router) == 128, "a router entry in 128 bytes");

struct store_item {
	sample_t *s; /* a poll, or NULL when the item is a profile */
	uint64_t seq;
	profile_t *prof; /* a CPU profile (store_submit_profile), or NULL */
	probe_t *probe;  /* a probe (store_submit_probe), or NULL */
};

struct store {
	char *path;
	sqlite3 *db;
	sqlite3_stmt *sq[SQ_COUNT];
	int lock_fd;    /* flock()ed: <path>.lock, with our pid */
	int db_fd;      /* flock()ed: the database file itself (its inode) */
	bool wal_known; /* wal_dev and wal_ino hold the -wal file opened */
	dev_t wal_dev;
	ino_t wal_ino;
	int64_t retention_ms, rollup_retention_ms, rollup_hourly_retention_ms;
	char errmsg[200]; /* the last SQLite error of the writer */
	buf_t pk[4];      /* the poll being written, packed: cpu, ifaces, peers, health */

	/* writer thread only */
	struct store_router **routers; /* sorted by name */
	size_t nrouters;
	bool cache_stale; /* reload the routers from the db before writing */
	struct store_item *batch;
	size_t nbatch;
	int64_t next_maint_ms;     /* monotonic: a step of the wall clock neither stops nor hurries it */
	int64_t rollup_ms;         /* store_state's rollup_ms as committed; INT64_MIN none yet (maint.c) */
	int64_t raw_purged_ms;     /* store_state's raw_purged_ms likewise */
	int64_t chunked_ms;        /* store_state's chunked_ms likewise: no chunk holds a row past it */
	int64_t rollup_chunked_ms; /* store_state's rollup_chunked_ms likewise: days before it are chunks */
	int64_t rollup_1h_ms;      /* store_state's rollup_1h_ms likewise: hours before it are rolled up */
	int64_t rollup_purged_ms;  /* store_state's rollup_purged_ms likewise (the 5-minute tier's) */
	struct rollstore_pos rollchunk_pos; /* how far the chunking of the day after it has got */
	int rollchunk_series; /* most series a chunking step takes; 0: maint.c's (tests lower it) */
	struct rollstore_pos rollhour_pos; /* how far the hours of a chunked day have got (maint.c) */
	bool maint_active;
	bool batch_versions; /* the batch being written stores a version change */
	void (*on_version)(void *arg);
	void *on_version_arg;

	pthread_t thread;
	pthread_mutex_t mu;      /* guards everything below */
	pthread_cond_t wake;     /* the writer waits for work */
	pthread_cond_t progress; /* flushers wait for commits */
	struct store_item *q;    /* ring of submitted polls */
	size_t qhead, qlen, qcap;
	uint64_t submit_seq, done_seq;
	size_t inflight;
	bool stopping, maint_forced;
	int64_t gather_ms;  /* monotonic ms when the oldest queued poll came */
	int flushing;       /* store_flush callers waiting */
	uint64_t maint_gen; /* forced maintenance runs completed */
	int64_t heartbeat_ms;
	struct store_stats stats;
};

static inline int64_t store_min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* store.c: SQLite calls of the writer; errors land in st->errmsg. */
void store_note_error(store_t *st);                     /* the connection's last error into st->errmsg */
int store_exec(store_t *st, const char *sql);           /* 0 or -1 */
int store_step(store_t *st, sqlite3_stmt *q);           /* to a row or done, then reset; 0 or -1 */
sqlite3_stmt *store_stmt(store_t *st, const char *sql); /* prepared (caller finalizes), or NULL */

/* pack.c: polls.cpu, .ifaces and .peers are BLOBs, a kind byte and then one entry per core,
 * interface or peer, made of LEB128 varints. An entry of a series starts with its id as a zigzag
 * difference from the previous entry's id. SQL reads them through sqlfn.c (store_sql_attach). */
enum store_kind { STORE_CPU = 1, STORE_IFACE = 2, STORE_PEER = 3, STORE_HEALTH = 4 };

enum {                     /* entry flags of interfaces and peers */
	STORE_F_DELTA = 1, /* dt_ms, rx_delta and tx_delta follow */
	STORE_F_RESET = 2,
	STORE_F_HANDSHAKE = 4, /* peer: handshake_age_ms follows */
	STORE_F_LINK = 8,      /* interface (005): mtu, rx/tx errors, tx-queue-drop follow */
	STORE_F_RUNNING = 16,  /* interface, with STORE_F_LINK: it was running */
};

struct store_val {            /* one entry, decoded */
	int64_t id;           /* core index, interface id or peer id */
	int64_t load, irq;    /* cpu, per mille; irq -1 when unknown */
	uint64_t c[6];        /* rx/tx bytes, rx/tx packets, rx/tx drops (peers: 2) */
	int64_t handshake_ms; /* peer: -1 when never */
	uint64_t link[4];     /* interface, STORE_F_LINK: mtu (0 unknown), rx/tx errors, tx-queue-drop */
	int flags;
	int64_t dt_ms, rx_delta, tx_delta;
	int64_t value; /* health: the sensor's value x 1000 */
};

/* Append one entry of the given kind (the kind byte first if b is empty); *prev_id is the id of
 * the blob's previous entry. */
void pack_append(buf_t *b, enum store_kind kind, int64_t *prev_id, const struct store_val *v);
/* Decode the entry at *p (past the kind byte); false at the end or on a malformed blob. */
bool pack_next(
	const uint8_t **p, const uint8_t *end, enum store_kind kind, int64_t *prev_id, struct store_val *v);

/* A health blob's head: the kind byte and memory free/total, disk free/total (bytes, -1 unknown)
 * into an empty b; pack_health_head reads it back (false when malformed). Its entries are
 * STORE_HEALTH entries of pack_append/pack_next: id and value. */
void pack_health_head(buf_t *b, const int64_t sizes[4]);
bool pack_health_head_get(const uint8_t **p, const uint8_t *end, int64_t sizes[4]);

/* history.c and history_health.c (a read-only connection of the caller's). */
struct history;
/* Prepare sql and bind ?1..?nargs; -1 with *cause. */
int history_prepare(
	sqlite3 *db, const char *sql, const int64_t *args, int nargs, sqlite3_stmt **q, char **cause);
/* Finalize q; -1 with *cause (naming what) unless rc is SQLITE_DONE. */
int history_done(sqlite3 *db, sqlite3_stmt *q, int rc, const char *what, char **cause);
/* The router's newest health reading and each sensor's range over [h->from_ms, h->to_ms). */
int history_health(sqlite3 *db, struct history *h, int64_t rid, char **cause);
/* Each peer's newest sample of the last hour with peers (history_peers.c). */
int history_peers(sqlite3 *db, struct history *h, int64_t rid, char **cause);

/* sqlfn.c: store_values(blob) and the store_pack_* aggregates, on one connection (SQLite rc). */
int sqlfn_register(sqlite3 *db);
int sqlfn_attach(sqlite3 *db); /* sqlfn_register and the temp views of the samples */

/* cache.c: the writer's memory of routers, interfaces and peers (writer thread only). */
void cache_clear(store_t *st); /* forget everything (at close, before a reload) */
int cache_load(store_t *st);   /* (re)build it from the database; 0 or -1 (st->errmsg) */
struct store_router *cache_router_find(store_t *st, const char *name); /* or NULL */
/* Remember a router just inserted with this id (kept sorted by name); never NULL. */
struct store_router *cache_router_add(store_t *st, const char *name, int64_t id);
/* The string at off of r (cache_str's offsets), or NULL for CACHE_NOSTR. Valid until r's own
 * strings change (cache_own_put, cache_peers_block, cache_router_trim). */
const char *cache_str(const struct store_router *r, uint32_t off);
/* off in the polls' block (not CACHE_OWN, not CACHE_NOSTR) */
static inline bool cache_shared(uint32_t off)
{
	return (off & CACHE_OWN) == 0;
}
/* A copy of str among r's own strings: its offset, CACHE_NOSTR for NULL. str must not be one of
 * them (the block may move). */
uint32_t cache_own_put(struct store_router *r, const char *str);
/* *off no longer used: its own string counts as dead; *off becomes CACHE_NOSTR. */
void cache_own_drop(struct store_router *r, uint32_t *off);
/* Look up a series of r (its peers, else its interfaces); polls list them in the same order each
 * time, so `hint` goes first. */
struct store_series *cache_series_find(
	const struct store_router *r, bool peer, size_t hint, const char *name, const char *key);
/* 0 when id fits a series' 32 bits (1 .. UINT32_MAX; SQLite gives a new row max(id) + 1), else -1
 * with st->errmsg: a database with 4e9 series is refused rather than mixed up. */
int cache_id_check(store_t *st, int64_t id);
/* r's sensor of this name and unit, or NULL; polls list sensors in the same order, `hint` first. */
struct store_sensor *cache_sensor_find(const struct store_router *r, size_t hint, const char *name, int unit);
/* Remember a sensor of r just inserted with this id (cache_id_check); never NULL. */
struct store_sensor *cache_sensor_add(struct store_router *r, const char *name, int unit, int64_t id);
/* Remember a series of r (a peer, else an interface) just inserted with this id
 * (cache_id_check), without previous counters and, for a peer, with its details unknown; never
 * NULL. */
struct store_series *cache_series_add(
	struct store_router *r, bool peer, const char *name, const char *key, int64_t id);
/* r's series arrays no longer than their series, as they are kept for good, and its own strings
 * without the dead ones: after a poll. */
void cache_router_trim(struct store_router *r);
/* Before a poll's peers, whose strings lie in b (sample_holder; NULL: in none): when r shares
 * another block, its peer series take copies of what they pointed at, and r holds b instead. */
void cache_peers_block(struct store_router *r, sample_strs_t *b);
/* *field (of r) becomes str's offset, the poll's equal string, when str lies in r->strs; its own
 * copy goes. s is the poll. */
void cache_series_share(struct store_router *r, const sample_t *s, uint32_t *field, const char *str);
/* The same for peer x's endpoint: addr (the poll's, bare) and port stand for the stored form. */
void cache_series_share_endpoint(
	struct store_router *r, const sample_t *s, struct store_series *x, const char *addr, int port);
/* An endpoint as peers stores it: "198.51.100.7:51209", "[2001:db8::7]:51209" (malloc'd), or
 * NULL for no address. */
char *cache_endpoint(const char *addr, int port);

/* ingest.c: writing polls. */
extern const char *const ingest_sql[SQ_COUNT]; /* the statements of enum store_sq */
/* st->batch in one transaction, *rows the samples in it; 0, or -1 (st->errmsg) with all rolled
 * back and the cache reloaded, the batch kept for the next attempt. */
int ingest_batch(store_t *st, size_t *rows);

/* ingest_profile.c: one profiles row (schema 007) for a profile of the batch; 0 or -1. */
int ingest_write_profile(store_t *st, const profile_t *p);
int ingest_write_probe(store_t *st, const probe_t *p); /* one probes row; 0 or -1 */

/* maint.c: one step of roll-up, retention or chunking: 1 after a step, 0 when all is done up to now,
 * -1 on error (st->errmsg). */
int maint_step(store_t *st, int64_t now);
/* st->rollup_ms, st->raw_purged_ms and st->chunked_ms from the database (at open, after a
 * rollback); 0 or -1. */
int maint_load(store_t *st);
/* A poll with values was just stored at time t, in the writer's open transaction: when t lies
 * behind the roll-up mark (the wall clock went back), move the mark back to t's bucket, so that
 * the bucket is rolled up again with it and the raw purge keeps it until then. 0 or -1. */
int maint_rollup_back(store_t *st, int64_t t);
/* rollup.c: the roll-ups of the raw polls in [from, to), whole buckets, in the caller's
 * transaction; -1 with st->errmsg. */
int rollup_span(store_t *st, int64_t from, int64_t to);
/* rollhour.c: the hourly tier's rows of the hours in [from, to) (whole hours, none before the
 * 5-minute purge's mark) from their 5-minute rows, in the caller's transaction: read from the
 * store_ tables when merged (a day that is chunked, or being chunked), else from the tables. At
 * most max series from *pos on (a pos of another from: from the first; NULL: every series): 1
 * when every series is done, 0 when some are left (pos tells where), -1 with st->errmsg. */
int rollhour_span(store_t *st, int64_t from, int64_t to, bool merged, struct rollstore_pos *pos, int max);

/* migrate.c: lock, check and open st->path, migrate it and prepare the writer; 0 or -1 with
 * *cause (caller frees). */
int migrate_open(store_t *st, char **cause);
/* 0 while the database and its WAL are the files opened, else -1 with st->errmsg set. */
int migrate_files_check(store_t *st);

#endif
