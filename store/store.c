/* store: the SQLite database. store_open checks, locks and migrates it; then one writer thread
 * owns the connection: it commits queued polls in batched transactions, derives version history
 * and counter deltas, and runs roll-ups and retention in small transactions. It must never block
 * a store_submit caller on disk I/O, and never put a new database in place of a bad one. */
#include "config.h"
#include "store/store.h"
#include "store/schema_sql.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "daemon/rate.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STORE_BUCKET_MS      300000  /* roll-up bucket: 5 minutes */
#define STORE_GRACE_MS       60000   /* a bucket is rolled up once it ended this long ago */
#define STORE_CHUNK_MS       3600000 /* most time one maintenance transaction covers */
#define STORE_MAINT_EVERY_MS 300000  /* maintenance period (store clock) */
#define STORE_MAINT_FIRST_MS 60000   /* first maintenance after open */
#define STORE_BEAT_MS        500     /* longest writer wait between heartbeats */
#define STORE_BACKOFF_MIN_MS 100     /* retry delay after a failed commit, doubling ... */
#define STORE_BACKOFF_MAX_MS 5000    /* ... up to this */
#define STORE_CLOSE_RETRIES  5       /* failed commits tolerated while closing */
#define STORE_BUSY_MS        5000
#define STORE_GATHER_MS      500   /* polls gather this long before a commit ... */
#define STORE_GATHER_POLLS   20000 /* ... unless there are this many (or a flush waits) */
#define STORE_DAY_MS         86400000LL
#define STORE_PREV_POLLS     "2880" /* polls looked back for a series' last counters */

static size_t store_queue_max = 100000; /* polls; a variable so that the test can lower it */

static int64_t store_wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t store_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The clock that drives maintenance (wall ms, like sample time_ms); the test's seam. */
static int64_t (*store_clock_ms)(void) = store_wall_ms;

enum store_sq {
	SQ_INS_ROUTER,
	SQ_UPD_ROUTER,
	SQ_INS_IFACE,
	SQ_INS_PEER,
	SQ_INS_POLL,
	SQ_INS_HIST,
	SQ_GET_STATE,
	SQ_SET_STATE,
	SQ_COUNT
};

static const char *const store_sql[SQ_COUNT] = {
	[SQ_INS_ROUTER] = "INSERT INTO routers (name, first_seen_ms) VALUES (?1, ?2)",
	[SQ_UPD_ROUTER] =
		"UPDATE routers SET last_poll_ms = ?2,"
		" last_ok_ms = CASE WHEN ?3 THEN ?2 ELSE last_ok_ms END,"
		" version = coalesce(?4, version), channel = coalesce(?5, channel),"
		" firmware = coalesce(?6, firmware), upgrade_firmware = coalesce(?7, upgrade_firmware),"
		" board = coalesce(?8, board), architecture = coalesce(?9, architecture),"
		" cpu_model = coalesce(?10, cpu_model), uptime_ms = coalesce(?11, uptime_ms),"
		" info_ms = CASE WHEN ?11 IS NULL THEN info_ms ELSE ?2 END WHERE id = ?1",
	[SQ_INS_IFACE] = "INSERT INTO interfaces (router_id, name, type) VALUES (?1, ?2, ?3)",
	[SQ_INS_PEER] = "INSERT INTO peers (router_id, interface, pkey, name) VALUES (?1, ?2, ?3, ?4)",
	[SQ_INS_POLL] = "INSERT OR REPLACE INTO polls (router_id, time_ms, duration_ms, source, err,"
			" error, cpu, ifaces, peers) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[SQ_INS_HIST] =
		"INSERT INTO version_history (router_id, time_ms, kind, old_version,"
		" new_version, old_firmware, new_firmware, old_board, new_board, architecture, uptime_ms)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
	[SQ_GET_STATE] = "SELECT value FROM store_state WHERE key = ?1",
	[SQ_SET_STATE] = "INSERT OR REPLACE INTO store_state VALUES (?1, ?2)",
};

struct store_series { /* an interface, or a peer, of one router */
	char *name;   /* interface name; for a peer its interface */
	char *key;    /* peer: public key, else label; NULL for interfaces */
	int64_t id;
	bool have_prev; /* prev_* hold the newest stored counters */
	int64_t prev_ms;
	uint64_t prev_rx, prev_tx;
};

struct store_router { /* what the writer remembers of a router (from the db) */
	char *name;
	int64_t id;
	char *version, *firmware, *board;
	int64_t uptime_ms, info_ms; /* last known uptime and the poll time it was read; -1 */
	struct store_series *ifaces, *peers;
	size_t nifaces, npeers;
};

struct store_item {
	sample_t *s;
	uint64_t seq;
};

struct store {
	char *path;
	sqlite3 *db;
	sqlite3_stmt *sq[SQ_COUNT];
	int lock_fd;
	int64_t retention_ms, rollup_retention_ms;
	char errmsg[200]; /* the last SQLite error of the writer */
	buf_t pk[3];      /* the poll being written, packed: cpu, ifaces, peers */

	/* writer thread only */
	struct store_router **routers; /* sorted by name */
	size_t nrouters;
	bool cache_stale; /* reload the routers from the db before writing */
	struct store_item *batch;
	size_t nbatch;
	int64_t next_maint_ms;
	bool maint_active;

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

/* ---- small helpers ---- */

static int64_t store_min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

static int64_t store_floor_bucket(int64_t ms)
{
	int64_t r = ms % STORE_BUCKET_MS;
	return ms - (r < 0 ? r + STORE_BUCKET_MS : r);
}

static bool store_differs(const char *old, const char *cur)
{
	return old != NULL && cur != NULL && strcmp(old, cur) != 0;
}

static void store_set_str(char **dst, const char *src)
{
	if (src == NULL)
		return;
	free(*dst);
	*dst = xstrdup(src);
}

/* Grow an array of n elements when n is 0 or a power of two (capacity doubling). */
static void *store_grow(void *p, size_t n, size_t size)
{
	if (n != 0 && (n & (n - 1)) != 0)
		return p;
	return xreallocarray(p, n ? n * 2 : 4, size);
}

struct store_ver {
	long part[3];
	int stage; /* 0 beta, 1 rc, 2 release */
	long stage_n;
};

static void store_ver_parse(const char *s, struct store_ver *v)
{
	memset(v, 0, sizeof(*v));
	v->stage = 2;
	for (int i = 0; i < 3 && isdigit((unsigned char)*s); i++) {
		char *end;
		v->part[i] = strtol(s, &end, 10);
		s = *end == '.' ? end + 1 : end;
	}
	if (strncmp(s, "beta", 4) == 0 || strncmp(s, "alpha", 5) == 0)
		v->stage = 0;
	else if (strncmp(s, "rc", 2) == 0)
		v->stage = 1;
	while (*s != '\0' && !isdigit((unsigned char)*s))
		s++;
	if (v->stage < 2)
		v->stage_n = strtol(s, NULL, 10);
}

/* RouterOS versions compared numerically: 7.9 < 7.10, 7.8 == 7.8.0, 7.23beta2 < 7.23rc1 < 7.23. */
static int store_ver_cmp(const char *a, const char *b)
{
	struct store_ver x, y;
	store_ver_parse(a, &x);
	store_ver_parse(b, &y);
	long kx[5] = { x.part[0], x.part[1], x.part[2], x.stage, x.stage_n };
	long ky[5] = { y.part[0], y.part[1], y.part[2], y.stage, y.stage_n };
	for (int i = 0; i < 5; i++)
		if (kx[i] != ky[i])
			return kx[i] < ky[i] ? -1 : 1;
	return 0;
}

/* ---- SQLite helpers (writer side: errors land in st->errmsg) ---- */

static void store_note_error(store_t *st)
{
	snprintf(st->errmsg, sizeof(st->errmsg), "%s", sqlite3_errmsg(st->db));
}

static int store_exec(store_t *st, const char *sql)
{
	if (sqlite3_exec(st->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	store_note_error(st);
	return -1;
}

/* Run a prepared statement to completion and reset it. */
static int store_step(store_t *st, sqlite3_stmt *q)
{
	int rc = sqlite3_step(q);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		store_note_error(st);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

static void store_bind_text(sqlite3_stmt *q, int i, const char *s)
{
	if (s == NULL)
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
}

static void store_bind_opt(sqlite3_stmt *q, int i, int64_t v, bool known)
{
	if (known)
		sqlite3_bind_int64(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

static char *store_col_dup(sqlite3_stmt *q, int i)
{
	return xstrdup((const char *)sqlite3_column_text(q, i));
}

static int64_t store_col_opt(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(q, i);
}

/* ---- packed samples: one polls row holds all the values of its poll ----
 *
 * polls.cpu, polls.ifaces and polls.peers are BLOBs: a kind byte, then one entry per core,
 * interface or peer, made of LEB128 varints. An entry of a series starts with its id as a
 * zigzag difference from the previous entry's id. Readers go through the table-valued function
 * store_values(blob) and the temp views named like the tables of schema 001 (store_sql_attach). */

enum store_kind { STORE_CPU = 1, STORE_IFACE = 2, STORE_PEER = 3 };

enum {                     /* entry flags of interfaces and peers */
	STORE_F_DELTA = 1, /* dt_ms, rx_delta and tx_delta follow */
	STORE_F_RESET = 2,
	STORE_F_HANDSHAKE = 4, /* peer: handshake_age_ms follows */
};

struct store_val {            /* one entry, decoded */
	int64_t id;           /* core index, interface id or peer id */
	int64_t load, irq;    /* cpu, per mille; irq -1 when unknown */
	uint64_t c[6];        /* rx/tx bytes, rx/tx packets, rx/tx drops (peers: 2) */
	int64_t handshake_ms; /* peer: -1 when never */
	int flags;
	int64_t dt_ms, rx_delta, tx_delta;
};

#define STORE_ENTRY_MAX 160 /* bytes of one encoded entry at most (15 varints) */

static size_t store_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

static bool store_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static uint64_t store_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static int64_t store_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* Append one entry of the given kind; *prev_id is the id of the blob's previous entry. */
static void store_pack(buf_t *b, enum store_kind kind, int64_t *prev_id, const struct store_val *v)
{
	uint8_t e[STORE_ENTRY_MAX];
	size_t n = 0;
	if (b->len == 0)
		e[n++] = (uint8_t)kind;
	if (kind == STORE_CPU) {
		n += store_put_varint(e + n, (uint64_t)v->load);
		n += store_put_varint(e + n, (uint64_t)(v->irq + 1));
		buf_append(b, e, n);
		return;
	}
	n += store_put_varint(e + n, store_zigzag(v->id - *prev_id));
	*prev_id = v->id;
	n += store_put_varint(e + n, (uint64_t)v->flags);
	if (v->flags & STORE_F_DELTA) {
		n += store_put_varint(e + n, (uint64_t)v->dt_ms);
		n += store_put_varint(e + n, (uint64_t)v->rx_delta);
		n += store_put_varint(e + n, (uint64_t)v->tx_delta);
	}
	for (int i = 0; i < (kind == STORE_IFACE ? 6 : 2); i++)
		n += store_put_varint(e + n, v->c[i]);
	if (v->flags & STORE_F_HANDSHAKE)
		n += store_put_varint(e + n, (uint64_t)v->handshake_ms);
	buf_append(b, e, n);
}

/* Decode the next entry at *p; false at the end or on a malformed blob. */
static bool store_unpack(
	const uint8_t **p, const uint8_t *end, enum store_kind kind, int64_t *prev_id, struct store_val *v)
{
	uint64_t x[5];
	memset(v, 0, sizeof(*v));
	v->irq = v->handshake_ms = -1;
	if (kind == STORE_CPU) {
		if (!store_get_varint(p, end, &x[0]) || !store_get_varint(p, end, &x[1]))
			return false;
		v->id = (*prev_id)++;
		v->load = (int64_t)x[0];
		v->irq = (int64_t)x[1] - 1;
		return true;
	}
	if (!store_get_varint(p, end, &x[0]) || !store_get_varint(p, end, &x[1]))
		return false;
	v->id = *prev_id += store_unzigzag(x[0]);
	v->flags = (int)x[1];
	if (v->flags & STORE_F_DELTA) {
		if (!store_get_varint(p, end, &x[2]) || !store_get_varint(p, end, &x[3]) ||
			!store_get_varint(p, end, &x[4]))
			return false;
		v->dt_ms = (int64_t)x[2];
		v->rx_delta = (int64_t)x[3];
		v->tx_delta = (int64_t)x[4];
	}
	for (int i = 0; i < (kind == STORE_IFACE ? 6 : 2); i++)
		if (!store_get_varint(p, end, &v->c[i]))
			return false;
	if ((v->flags & STORE_F_HANDSHAKE) && !store_get_varint(p, end, &x[0]))
		return false;
	if (v->flags & STORE_F_HANDSHAKE)
		v->handshake_ms = (int64_t)x[0];
	return true;
}

/* ---- store_values(blob): the entries of a packed blob as rows (an eponymous virtual table) */

enum store_vcol {
	VC_ID,
	VC_LOAD,
	VC_IRQ,
	VC_RX_BYTES,
	VC_TX_BYTES,
	VC_RX_PACKETS,
	VC_TX_PACKETS,
	VC_RX_DROPS,
	VC_TX_DROPS,
	VC_HANDSHAKE,
	VC_DT,
	VC_RX_DELTA,
	VC_TX_DELTA,
	VC_RESET,
	VC_DATA
};

struct store_vcursor {
	sqlite3_vtab_cursor base;
	uint8_t *data; /* our copy of the blob */
	const uint8_t *p, *end;
	enum store_kind kind;
	int64_t prev_id, rowid;
	bool eof;
	struct store_val v;
};

static int store_vconnect(
	sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux, (void)argc, (void)argv, (void)err;
	int rc = sqlite3_declare_vtab(db,
		"CREATE TABLE x(id, load, irq, rx_bytes, tx_bytes,"
		" rx_packets, tx_packets, rx_drops, tx_drops, handshake_age_ms, dt_ms, rx_delta,"
		" tx_delta, reset, data HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	*out = sqlite3_malloc(sizeof(**out));
	if (*out == NULL)
		return SQLITE_NOMEM;
	memset(*out, 0, sizeof(**out));
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	return SQLITE_OK;
}

static int store_vdisconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Only a plan with data = <value> is usable: the function needs its argument. */
static int store_vbestindex(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	(void)vt;
	for (int i = 0; i < ix->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
		if (c->iColumn != VC_DATA || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (!c->usable)
			return SQLITE_CONSTRAINT;
		ix->aConstraintUsage[i].argvIndex = 1;
		ix->aConstraintUsage[i].omit = 1;
		ix->estimatedCost = 10;
		ix->estimatedRows = 20;
		return SQLITE_OK;
	}
	return SQLITE_CONSTRAINT;
}

static int store_vopen(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct store_vcursor *c = sqlite3_malloc(sizeof(*c));
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int store_vclose(sqlite3_vtab_cursor *cur)
{
	struct store_vcursor *c = (struct store_vcursor *)cur;
	sqlite3_free(c->data);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int store_vnext(sqlite3_vtab_cursor *cur)
{
	struct store_vcursor *c = (struct store_vcursor *)cur;
	c->eof = c->p >= c->end || !store_unpack(&c->p, c->end, c->kind, &c->prev_id, &c->v);
	c->rowid++;
	return SQLITE_OK;
}

static int store_vfilter(
	sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idx, (void)idxstr;
	struct store_vcursor *c = (struct store_vcursor *)cur;
	sqlite3_free(c->data);
	c->data = NULL;
	c->p = c->end = NULL;
	c->kind = 0;
	c->prev_id = c->rowid = 0;
	int n = argc > 0 && sqlite3_value_type(argv[0]) == SQLITE_BLOB ? sqlite3_value_bytes(argv[0]) : 0;
	if (n > 1) {
		if ((c->data = sqlite3_malloc(n)) == NULL)
			return SQLITE_NOMEM;
		memcpy(c->data, sqlite3_value_blob(argv[0]), (size_t)n);
		c->kind = (enum store_kind)c->data[0];
		c->p = c->data + 1;
		c->end = c->data + n;
	}
	if (c->kind < STORE_CPU || c->kind > STORE_PEER)
		c->p = c->end;
	return store_vnext(cur);
}

static int store_veof(sqlite3_vtab_cursor *cur)
{
	return ((struct store_vcursor *)cur)->eof;
}

static int store_vrowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct store_vcursor *)cur)->rowid;
	return SQLITE_OK;
}

static void store_vresult(sqlite3_context *ctx, int64_t v, bool known)
{
	if (known)
		sqlite3_result_int64(ctx, v);
}

static int store_vcolumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct store_vcursor *c = (const struct store_vcursor *)cur;
	const struct store_val *v = &c->v;
	bool cpu = c->kind == STORE_CPU, delta = v->flags & STORE_F_DELTA;
	int ncounters = c->kind == STORE_IFACE ? 6 : c->kind == STORE_PEER ? 2 : 0;
	switch (col) {
	case VC_ID: store_vresult(ctx, v->id, true); break;
	case VC_LOAD: store_vresult(ctx, v->load, cpu); break;
	case VC_IRQ: store_vresult(ctx, v->irq, cpu && v->irq >= 0); break;
	case VC_HANDSHAKE: store_vresult(ctx, v->handshake_ms, v->handshake_ms >= 0); break;
	case VC_DT: store_vresult(ctx, v->dt_ms, delta); break;
	case VC_RX_DELTA: store_vresult(ctx, v->rx_delta, delta); break;
	case VC_TX_DELTA: store_vresult(ctx, v->tx_delta, delta); break;
	case VC_RESET: store_vresult(ctx, (v->flags & STORE_F_RESET) != 0, !cpu); break;
	case VC_DATA: break;
	default: store_vresult(ctx, (int64_t)v->c[col - VC_RX_BYTES], col - VC_RX_BYTES < ncounters);
	}
	return SQLITE_OK;
}

static sqlite3_module store_values_module = {
	.xConnect = store_vconnect,
	.xBestIndex = store_vbestindex,
	.xDisconnect = store_vdisconnect,
	.xOpen = store_vopen,
	.xClose = store_vclose,
	.xFilter = store_vfilter,
	.xNext = store_vnext,
	.xEof = store_veof,
	.xColumn = store_vcolumn,
	.xRowid = store_vrowid,
};

/* ---- store_pack_cpu/iface/peer(...): aggregates that build a blob (migration 003) ---- */

struct store_agg {
	buf_t b;
	int64_t prev_id;
};

static int64_t store_arg(sqlite3_value **argv, int i, int64_t null_value)
{
	return sqlite3_value_type(argv[i]) == SQLITE_NULL ? null_value : sqlite3_value_int64(argv[i]);
}

/* Arguments as the columns of the 001 tables: cpu (load, irq); iface (id, rx_bytes, tx_bytes,
 * rx_packets, tx_packets, rx_drops, tx_drops, dt_ms, rx_delta, tx_delta, reset); peer (id,
 * rx_bytes, tx_bytes, handshake_age_ms, dt_ms, rx_delta, tx_delta, reset). */
static void store_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct store_agg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	if (a == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	enum store_kind kind = argc == 2 ? STORE_CPU : argc == 11 ? STORE_IFACE : STORE_PEER;
	struct store_val v = { .load = store_arg(argv, 0, 0), .irq = store_arg(argv, 1, -1) };
	if (kind == STORE_CPU) {
		store_pack(&a->b, kind, &a->prev_id, &v);
		return;
	}
	int nc = kind == STORE_IFACE ? 6 : 2, d = kind == STORE_IFACE ? 7 : 4;
	v.id = store_arg(argv, 0, 0);
	for (int i = 0; i < nc; i++)
		v.c[i] = (uint64_t)store_arg(argv, 1 + i, 0);
	v.handshake_ms = kind == STORE_PEER ? store_arg(argv, 3, -1) : -1;
	v.flags = (sqlite3_value_type(argv[d]) != SQLITE_NULL ? STORE_F_DELTA : 0) |
		(store_arg(argv, d + 3, 0) ? STORE_F_RESET : 0) |
		(v.handshake_ms >= 0 ? STORE_F_HANDSHAKE : 0);
	v.dt_ms = store_arg(argv, d, 0);
	v.rx_delta = store_arg(argv, d + 1, 0);
	v.tx_delta = store_arg(argv, d + 2, 0);
	store_pack(&a->b, kind, &a->prev_id, &v);
}

static void store_agg_final(sqlite3_context *ctx)
{
	struct store_agg *a = sqlite3_aggregate_context(ctx, 0);
	if (a == NULL || a->b.len == 0)
		return; /* no rows: NULL */
	sqlite3_result_blob(ctx, a->b.data, (int)a->b.len, SQLITE_TRANSIENT);
	buf_free(&a->b);
}

static const char store_views_sql[] =
	"CREATE TEMP VIEW IF NOT EXISTS cpu_samples AS SELECT p.router_id, p.time_ms,"
	" v.id AS core, v.load, v.irq FROM main.polls p, store_values(p.cpu) v;"
	"CREATE TEMP VIEW IF NOT EXISTS iface_samples AS SELECT p.router_id, v.id AS iface_id,"
	" p.time_ms, v.rx_bytes, v.tx_bytes, v.rx_packets, v.tx_packets, v.rx_drops, v.tx_drops,"
	" v.dt_ms, v.rx_delta, v.tx_delta, v.reset FROM main.polls p, store_values(p.ifaces) v;"
	"CREATE TEMP VIEW IF NOT EXISTS peer_samples AS SELECT p.router_id, v.id AS peer_id,"
	" p.time_ms, v.rx_bytes, v.tx_bytes, v.handshake_age_ms, v.dt_ms, v.rx_delta, v.tx_delta,"
	" v.reset FROM main.polls p, store_values(p.peers) v";

/* The function, the aggregates and the module; the views come once the schema is current. */
static int store_sql_functions(sqlite3 *db)
{
	static const struct {
		const char *name;
		int argc;
	} aggs[] = {
		{ "store_pack_cpu", 2 },
		{ "store_pack_iface", 11 },
		{ "store_pack_peer", 8 },
	};
	int rc = sqlite3_create_module_v2(db, "store_values", &store_values_module, NULL, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(aggs) / sizeof(aggs[0]); i++)
		rc = sqlite3_create_function_v2(db, aggs[i].name, aggs[i].argc,
			SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL, NULL, store_agg_step,
			store_agg_final, NULL);
	return rc;
}

int store_sql_attach(sqlite3 *db, char **cause)
{
	if (store_sql_functions(db) == SQLITE_OK &&
		sqlite3_exec(db, store_views_sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	*cause = xasprintf("cannot set up the sample views: %s", sqlite3_errmsg(db));
	return -1;
}

/* ---- the writer's memory of routers, interfaces and peers ---- */

static void store_series_free(struct store_series *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].key);
	}
	free(v);
}

static void store_cache_clear(store_t *st)
{
	for (size_t i = 0; i < st->nrouters; i++) {
		struct store_router *r = st->routers[i];
		store_series_free(r->ifaces, r->nifaces);
		store_series_free(r->peers, r->npeers);
		free(r->name);
		free(r->version);
		free(r->firmware);
		free(r->board);
		free(r);
	}
	free(st->routers);
	st->routers = NULL;
	st->nrouters = 0;
}

static size_t store_router_pos(store_t *st, const char *name, bool *found)
{
	size_t lo = 0, hi = st->nrouters;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(st->routers[mid]->name, name);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

static struct store_router *store_router_find(store_t *st, const char *name)
{
	bool found;
	size_t i = store_router_pos(st, name, &found);
	return found ? st->routers[i] : NULL;
}

static struct store_router *store_router_insert(store_t *st, const char *name, int64_t id)
{
	bool found;
	size_t i = store_router_pos(st, name, &found);
	struct store_router *r = xcalloc(1, sizeof(*r));
	r->name = xstrdup(name);
	r->id = id;
	r->uptime_ms = r->info_ms = -1;
	st->routers = store_grow(st->routers, st->nrouters, sizeof(*st->routers));
	memmove(&st->routers[i + 1], &st->routers[i], (st->nrouters - i) * sizeof(*st->routers));
	st->routers[i] = r;
	st->nrouters++;
	return r;
}

/* Look up a series; polls list interfaces in the same order each time, so try `hint` first. */
static struct store_series *store_series_find(
	struct store_series *v, size_t n, size_t hint, const char *name, const char *key)
{
	for (size_t k = 0; k < n; k++) {
		struct store_series *x = &v[(hint + k) % n];
		if (strcmp(x->name, name) == 0 && (key == NULL || strcmp(x->key, key) == 0))
			return x;
	}
	return NULL;
}

static struct store_series *store_series_add(
	struct store_series **v, size_t *n, const char *name, const char *key, int64_t id)
{
	*v = store_grow(*v, *n, sizeof(**v));
	struct store_series *x = &(*v)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->name = xstrdup(name);
	x->key = xstrdup(key);
	x->id = id;
	return x;
}

static int store_load_routers(store_t *st)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(st->db,
		    "SELECT id, name, version, firmware, board, uptime_ms,"
		    " info_ms FROM routers",
		    -1, &q, NULL) != SQLITE_OK)
		return store_note_error(st), -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_router *r = store_router_insert(
			st, (const char *)sqlite3_column_text(q, 1), sqlite3_column_int64(q, 0));
		r->version = store_col_dup(q, 2);
		r->firmware = store_col_dup(q, 3);
		r->board = store_col_dup(q, 4);
		r->uptime_ms = store_col_opt(q, 5);
		r->info_ms = store_col_opt(q, 6);
	}
	if (rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

static const char store_load_ifaces_sql[] =
	"SELECT r.name, i.id, i.name, NULL FROM interfaces i JOIN routers r ON r.id = i.router_id";
static const char store_load_peers_sql[] =
	"SELECT r.name, p.id, p.interface, p.pkey FROM peers p JOIN routers r ON r.id = p.router_id";

static int store_load_series(store_t *st, bool peer)
{
	sqlite3_stmt *q;
	const char *sql = peer ? store_load_peers_sql : store_load_ifaces_sql;
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return store_note_error(st), -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_router *r = store_router_find(st, (const char *)sqlite3_column_text(q, 0));
		if (r != NULL)
			store_series_add(peer ? &r->peers : &r->ifaces, peer ? &r->npeers : &r->nifaces,
				(const char *)sqlite3_column_text(q, 2),
				(const char *)sqlite3_column_text(q, 3), sqlite3_column_int64(q, 1));
	}
	if (rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_finalize(q);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Take the counters of one packed blob as the previous ones of series that have none yet;
 * returns how many series got theirs. */
static size_t store_prev_from(
	struct store_series *v, size_t n, sqlite3_stmt *q, int col, int64_t t, enum store_kind kind)
{
	const uint8_t *p = sqlite3_column_blob(q, col);
	const uint8_t *end = p + sqlite3_column_bytes(q, col);
	if (p == NULL || p == end || *p++ != kind)
		return 0;
	size_t got = 0;
	int64_t prev_id = 0;
	struct store_val e;
	while (p < end && store_unpack(&p, end, kind, &prev_id, &e)) {
		for (size_t i = 0; i < n; i++) {
			if (v[i].id != e.id || v[i].have_prev)
				continue;
			v[i] = (struct store_series){ v[i].name, v[i].key, v[i].id, true, t, e.c[0], e.c[1] };
			got++;
		}
	}
	return got;
}

/* The newest stored counters of each series of r, so that deltas go on after a restart. Looks
 * back over at most STORE_PREV_POLLS polls: a series silent for longer starts afresh. */
static int store_load_prev(store_t *st, sqlite3_stmt *q, struct store_router *r)
{
	size_t want = r->nifaces + r->npeers;
	sqlite3_bind_int64(q, 1, r->id);
	int rc = SQLITE_DONE;
	while (want > 0 && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		int64_t t = sqlite3_column_int64(q, 0);
		want -= store_prev_from(r->ifaces, r->nifaces, q, 1, t, STORE_IFACE);
		want -= store_prev_from(r->peers, r->npeers, q, 2, t, STORE_PEER);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_reset(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static int store_load_prevs(store_t *st)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(st->db,
		    "SELECT time_ms, ifaces, peers FROM polls WHERE router_id = ?1"
		    " AND (ifaces IS NOT NULL OR peers IS NOT NULL) ORDER BY time_ms DESC"
		    " LIMIT " STORE_PREV_POLLS,
		    -1, &q, NULL) != SQLITE_OK)
		return store_note_error(st), -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < st->nrouters; i++)
		rc = store_load_prev(st, q, st->routers[i]);
	sqlite3_finalize(q);
	return rc;
}

/* (Re)build the writer's memory from the database: at open, and after a rollback. */
static int store_cache_load(store_t *st)
{
	store_cache_clear(st);
	st->cache_stale = true;
	if (store_load_routers(st) < 0 || store_load_series(st, false) < 0 ||
		store_load_series(st, true) < 0 || store_load_prevs(st) < 0)
		return -1;
	st->cache_stale = false;
	return 0;
}

/* ---- writing one poll ---- */

static struct store_router *store_router_get(store_t *st, const sample_t *s)
{
	struct store_router *r = store_router_find(st, s->router);
	if (r != NULL)
		return r;
	sqlite3_stmt *q = st->sq[SQ_INS_ROUTER];
	store_bind_text(q, 1, s->router);
	sqlite3_bind_int64(q, 2, s->time_ms);
	if (store_step(st, q) < 0)
		return NULL;
	return store_router_insert(st, s->router, sqlite3_last_insert_rowid(st->db));
}

static struct store_series *store_series_get(store_t *st, struct store_router *r, bool peer, size_t hint,
	const char *name, const char *key, const char *label)
{
	struct store_series **v = peer ? &r->peers : &r->ifaces;
	size_t *n = peer ? &r->npeers : &r->nifaces;
	struct store_series *x = store_series_find(*v, *n, hint, name, key);
	if (x != NULL)
		return x;
	sqlite3_stmt *q = st->sq[peer ? SQ_INS_PEER : SQ_INS_IFACE];
	sqlite3_bind_int64(q, 1, r->id);
	store_bind_text(q, 2, name);
	store_bind_text(q, 3, peer ? key : label);
	if (peer)
		store_bind_text(q, 4, label);
	if (store_step(st, q) < 0)
		return NULL;
	return store_series_add(v, n, name, key, sqlite3_last_insert_rowid(st->db));
}

struct store_delta {
	bool valid; /* there is a previous sample to compare with */
	bool reset; /* counters restarted from zero in between */
	int64_t dt_ms, rx, tx;
};

static int64_t store_clamp(uint64_t v)
{
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* Increase since the series' previous sample; remembers this one as the previous. */
static void store_delta(
	struct store_series *x, int64_t t, uint64_t rx, uint64_t tx, bool restarted, struct store_delta *d)
{
	memset(d, 0, sizeof(*d));
	if (x->have_prev && t <= x->prev_ms)
		return; /* older or repeated poll: no delta, keep the newer as prev */
	if (x->have_prev) {
		d->valid = true;
		d->reset = restarted || rx < x->prev_rx || tx < x->prev_tx;
		d->dt_ms = t - x->prev_ms;
		d->rx = store_clamp(rate_delta(x->prev_rx, rx, 64, restarted));
		d->tx = store_clamp(rate_delta(x->prev_tx, tx, 64, restarted));
	}
	x->have_prev = true;
	x->prev_ms = t;
	x->prev_rx = rx;
	x->prev_tx = tx;
}

static void store_delta_flags(struct store_val *v, const struct store_delta *d)
{
	v->flags |= (d->valid ? STORE_F_DELTA : 0) | (d->reset ? STORE_F_RESET : 0);
	v->dt_ms = d->dt_ms;
	v->rx_delta = d->rx;
	v->tx_delta = d->tx;
}

static int store_pack_ifaces(store_t *st, struct store_router *r, const sample_t *s, bool restarted, buf_t *b)
{
	int64_t prev_id = 0;
	for (size_t i = 0; i < s->nifaces; i++) {
		const struct sample_iface *f = &s->ifaces[i];
		struct store_series *x = store_series_get(
			st, r, false, i, f->name ? f->name : "", NULL, f->type ? f->type : "");
		if (x == NULL)
			return -1;
		struct store_delta d;
		store_delta(x, s->time_ms, f->rx_bytes, f->tx_bytes, restarted, &d);
		struct store_val v = { .id = x->id,
			.c = { f->rx_bytes, f->tx_bytes, f->rx_packets, f->tx_packets, f->rx_drops,
				f->tx_drops } };
		store_delta_flags(&v, &d);
		store_pack(b, STORE_IFACE, &prev_id, &v);
	}
	return 0;
}

static const char *store_peer_key(const struct sample_peer *p)
{
	if (p->public_key != NULL && p->public_key[0] != '\0')
		return p->public_key;
	return p->peer ? p->peer : "";
}

static int store_pack_peers(store_t *st, struct store_router *r, const sample_t *s, bool restarted, buf_t *b)
{
	int64_t prev_id = 0;
	for (size_t i = 0; i < s->npeers; i++) {
		const struct sample_peer *p = &s->peers[i];
		struct store_series *x = store_series_get(st, r, true, i, p->interface ? p->interface : "",
			store_peer_key(p), p->peer ? p->peer : "");
		if (x == NULL)
			return -1;
		struct store_delta d;
		store_delta(x, s->time_ms, p->rx_bytes, p->tx_bytes, restarted, &d);
		struct store_val v = { .id = x->id,
			.c = { p->rx_bytes, p->tx_bytes },
			.handshake_ms = p->last_handshake_ms,
			.flags = p->last_handshake_ms >= 0 ? STORE_F_HANDSHAKE : 0 };
		store_delta_flags(&v, &d);
		store_pack(b, STORE_PEER, &prev_id, &v);
	}
	return 0;
}

static int64_t store_permille(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 1 ? 1000 : llround(v * 1000);
}

static void store_pack_cpu(const sample_t *s, buf_t *b)
{
	int64_t prev_id = 0;
	for (size_t i = 0; i < s->ncores; i++) {
		double irq = s->cores[i].irq;
		struct store_val v = { .load = store_permille(s->cores[i].load),
			.irq = isnan(irq) ? -1 : store_permille(irq) };
		store_pack(b, STORE_CPU, &prev_id, &v);
	}
}

static int store_hist(store_t *st, const struct store_router *r, const sample_t *s, const char *kind)
{
	sqlite3_stmt *q = st->sq[SQ_INS_HIST];
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, s->time_ms);
	store_bind_text(q, 3, kind);
	store_bind_text(q, 4, r->version);
	store_bind_text(q, 5, s->version ? s->version : r->version);
	store_bind_text(q, 6, r->firmware);
	store_bind_text(q, 7, s->firmware ? s->firmware : r->firmware);
	store_bind_text(q, 8, r->board);
	store_bind_text(q, 9, s->board ? s->board : r->board);
	store_bind_text(q, 10, s->architecture);
	store_bind_opt(q, 11, s->uptime_ms, s->uptime_ms >= 0);
	return store_step(st, q);
}

/* Compare the poll with what was known of the router and record what changed. */
static int store_write_history(store_t *st, const struct store_router *r, const sample_t *s, bool restarted)
{
	int cmp = 0;
	if (s->version != NULL && r->version == NULL) {
		if (store_hist(st, r, s, "first") < 0)
			return -1;
	} else if (s->version != NULL) {
		cmp = store_ver_cmp(s->version, r->version);
		if (cmp != 0 && store_hist(st, r, s, cmp > 0 ? "upgrade" : "downgrade") < 0)
			return -1;
	}
	if (store_differs(r->firmware, s->firmware) && store_hist(st, r, s, "firmware") < 0)
		return -1;
	if (store_differs(r->board, s->board) && store_hist(st, r, s, "board") < 0)
		return -1;
	if (restarted && cmp == 0 && store_hist(st, r, s, "reboot") < 0)
		return -1;
	return 0;
}

static int store_update_router(store_t *st, struct store_router *r, const sample_t *s)
{
	sqlite3_stmt *q = st->sq[SQ_UPD_ROUTER];
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, s->time_ms);
	sqlite3_bind_int(q, 3, s->err == SAMPLE_OK);
	const char *text[] = { s->version, s->channel, s->firmware, s->upgrade_firmware, s->board,
		s->architecture, s->cpu_model };
	for (int i = 0; i < 7; i++)
		store_bind_text(q, 4 + i, text[i]);
	store_bind_opt(q, 11, s->uptime_ms, s->uptime_ms >= 0);
	if (store_step(st, q) < 0)
		return -1;
	store_set_str(&r->version, s->version);
	store_set_str(&r->firmware, s->firmware);
	store_set_str(&r->board, s->board);
	if (s->uptime_ms >= 0) {
		r->uptime_ms = s->uptime_ms;
		r->info_ms = s->time_ms;
	}
	return 0;
}

static void store_bind_blob(sqlite3_stmt *q, int i, const buf_t *b)
{
	if (b->len == 0)
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_blob(q, i, b->data, (int)b->len, SQLITE_STATIC);
}

static int store_write_poll(store_t *st, const struct store_router *r, const sample_t *s)
{
	sqlite3_stmt *q = st->sq[SQ_INS_POLL];
	sqlite3_bind_int64(q, 1, r->id);
	sqlite3_bind_int64(q, 2, s->time_ms);
	sqlite3_bind_int64(q, 3, s->duration_ms);
	store_bind_text(q, 4, s->source);
	store_bind_text(q, 5, s->err == SAMPLE_OK ? NULL : sample_err_name(s->err));
	store_bind_text(q, 6, s->err == SAMPLE_OK ? NULL : s->error);
	for (int i = 0; i < 3; i++)
		store_bind_blob(q, 7 + i, &st->pk[i]);
	return store_step(st, q);
}

static bool store_has_data(const sample_t *s)
{
	return s->err == SAMPLE_OK || s->version != NULL || s->ncores > 0 || s->nifaces > 0 ||
		s->npeers > 0 || s->uptime_ms >= 0;
}

/* One polls row with the poll's values packed (st->pk: cpu, ifaces, peers). */
static int store_write_sample(store_t *st, const sample_t *s, size_t *rows)
{
	if (s->router == NULL)
		return 0;
	struct store_router *r = store_router_get(st, s);
	if (r == NULL)
		return -1;
	for (int i = 0; i < 3; i++)
		buf_reset(&st->pk[i]);
	if (!store_has_data(s))
		return store_write_poll(st, r, s) < 0 ? -1 : store_update_router(st, r, s);
	bool restarted = rate_restarted(r->uptime_ms, s->uptime_ms, s->time_ms - r->info_ms);
	store_pack_cpu(s, &st->pk[0]);
	if (store_write_history(st, r, s, restarted) < 0 ||
		store_pack_ifaces(st, r, s, restarted, &st->pk[1]) < 0 ||
		store_pack_peers(st, r, s, restarted, &st->pk[2]) < 0 || store_write_poll(st, r, s) < 0)
		return -1;
	*rows += s->ncores + s->nifaces + s->npeers;
	return store_update_router(st, r, s);
}

/* The whole batch in one transaction. On failure everything is rolled back, the writer's
 * memory is reloaded from the database, and the batch stays for the next attempt. */
static int store_write_batch(store_t *st, size_t *rows)
{
	*rows = 0;
	if (st->cache_stale && store_cache_load(st) < 0)
		return -1;
	if (store_exec(st, "BEGIN IMMEDIATE") < 0)
		return -1;
	for (size_t i = 0; i < st->nbatch; i++)
		if (store_write_sample(st, st->batch[i].s, rows) < 0)
			goto fail;
	if (store_exec(st, "COMMIT") == 0)
		return 0;
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	if (store_cache_load(st) < 0)
		log_debug("store: %s: reloading after a rollback failed", st->path);
	*rows = 0;
	return -1;
}

/* ---- maintenance: roll-ups and retention, each step its own short transaction ---- */

/* Every id of the parent table: lets SQLite seek (id, time) keys instead of scanning. */
#define STORE_IDS(table, col) " " col " IN (SELECT id FROM " table ")"

/* Roll-up of rates of one kind of counter series (tab = "iface" or "peer"), over the temp views
 * of the packed samples. The router_id conditions let SQLite seek the polls key. */
#define STORE_END(tab, col, what)                                                    \
	" (SELECT e." what " FROM " tab "_samples e WHERE e.router_id = s.router_id" \
	"  AND e.time_ms >= b AND e.time_ms < b + 300000 AND e." col " = s." col     \
	"  ORDER BY e.time_ms DESC LIMIT 1)"
#define STORE_RATES(tab, col)                                                                        \
	"INSERT OR REPLACE INTO " tab "_rollup SELECT " col ", b, count(*),"                         \
	" CAST(round(sum(rx_delta) * 1000.0 / sum(dt_ms)) AS INTEGER),"                              \
	" CAST(round(max(rx_delta * 1000.0 / dt_ms)) AS INTEGER),"                                   \
	" CAST(round(sum(tx_delta) * 1000.0 / sum(dt_ms)) AS INTEGER),"                              \
	" CAST(round(max(tx_delta * 1000.0 / dt_ms)) AS INTEGER)," STORE_END(                        \
		tab, col, "rx_bytes") "," STORE_END(tab, col,                                        \
		"tx_bytes") " FROM (SELECT *, time_ms - time_ms % 300000 AS b FROM " tab "_samples"  \
			    "  WHERE" STORE_IDS(                                                     \
				    "routers", "router_id") " AND time_ms >= ?1 AND time_ms < ?2) s" \
							    " GROUP BY " col ", b"

static const char *const store_rollup_sql[] = {
	"INSERT OR REPLACE INTO cpu_rollup SELECT router_id, time_ms - time_ms % 300000, core,"
	" count(*), min(load), CAST(round(avg(load)) AS INTEGER), max(load) FROM cpu_samples"
	" WHERE" STORE_IDS("routers", "router_id") " AND time_ms >= ?1 AND time_ms < ?2"
						   " GROUP BY router_id, time_ms / 300000, core",
	STORE_RATES("iface", "iface_id"), STORE_RATES("peer", "peer_id"), NULL
};

static const char *const store_purge_raw_sql[] = {
	"DELETE FROM polls WHERE" STORE_IDS("routers", "router_id") " AND time_ms < ?2", NULL
};

static const char *const store_purge_rollup_sql[] = { "DELETE FROM cpu_rollup WHERE" STORE_IDS(
							      "routers", "router_id") " AND bucket_ms < ?2",
	"DELETE FROM iface_rollup WHERE" STORE_IDS("interfaces", "iface_id") " AND bucket_ms < ?2",
	"DELETE FROM peer_rollup WHERE" STORE_IDS("peers", "peer_id") " AND bucket_ms < ?2", NULL };

enum store_job { JOB_ROLLUP, JOB_PURGE_RAW, JOB_PURGE_ROLLUP, JOB_COUNT };

static const struct {
	const char *key;        /* store_state: everything before value is done */
	const char *const *sql; /* run with ?1 = from, ?2 = to */
} store_jobs[JOB_COUNT] = {
	[JOB_ROLLUP] = { "rollup_ms", store_rollup_sql },
	[JOB_PURGE_RAW] = { "raw_purged_ms", store_purge_raw_sql },
	[JOB_PURGE_ROLLUP] = { "rollup_purged_ms", store_purge_rollup_sql },
};

/* Where the jobs start on a database that never ran them: the oldest raw sample. */
static int store_first_time(store_t *st, int64_t now, int64_t *out)
{
	sqlite3_stmt *q;
	const char *sql = "SELECT min(time_ms) FROM polls";
	if (sqlite3_prepare_v2(st->db, sql, -1, &q, NULL) != SQLITE_OK)
		return store_note_error(st), -1;
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = store_floor_bucket(
			sqlite3_column_type(q, 0) == SQLITE_NULL ? now : sqlite3_column_int64(q, 0));
	else
		store_note_error(st);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int store_state_get(store_t *st, const char *key, int64_t now, int64_t *out)
{
	sqlite3_stmt *q = st->sq[SQ_GET_STATE];
	store_bind_text(q, 1, key);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(q, 0);
	else if (rc != SQLITE_DONE)
		store_note_error(st);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? 0 : -1;
	if (store_first_time(st, now, out) < 0) /* once: it scans the raw tables */
		return -1;
	q = st->sq[SQ_SET_STATE];
	store_bind_text(q, 1, key);
	sqlite3_bind_int64(q, 2, *out);
	return store_step(st, q);
}

/* How far job j may go at time now. */
static int64_t store_job_limit(store_t *st, enum store_job j, int64_t now, int64_t rolled)
{
	switch (j) {
	case JOB_ROLLUP: return store_floor_bucket(now - STORE_GRACE_MS);
	case JOB_PURGE_RAW: /* never delete what is not rolled up yet */
		return store_min64(now - st->retention_ms, rolled);
	default: return now - st->rollup_retention_ms;
	}
}

static int store_job_run(store_t *st, enum store_job j, int64_t from, int64_t to)
{
	if (store_exec(st, "BEGIN IMMEDIATE") < 0)
		return -1;
	for (const char *const *sql = store_jobs[j].sql; *sql != NULL; sql++) {
		sqlite3_stmt *q;
		if (sqlite3_prepare_v2(st->db, *sql, -1, &q, NULL) != SQLITE_OK) {
			store_note_error(st);
			goto fail;
		}
		sqlite3_bind_int64(q, 1, from);
		sqlite3_bind_int64(q, 2, to);
		int rc = store_step(st, q);
		sqlite3_finalize(q);
		if (rc < 0)
			goto fail;
	}
	sqlite3_stmt *q = st->sq[SQ_SET_STATE];
	store_bind_text(q, 1, store_jobs[j].key);
	sqlite3_bind_int64(q, 2, to);
	if (store_step(st, q) == 0 && store_exec(st, "COMMIT") == 0)
		return 0;
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Do one chunk of the first job with work left. Returns 1 after a chunk, 0 when all jobs are
 * done up to now, -1 on error (st->errmsg). */
static int store_maint_step(store_t *st, int64_t now)
{
	int64_t rolled = 0;
	for (int j = 0; j < JOB_COUNT; j++) {
		int64_t done;
		if (store_state_get(st, store_jobs[j].key, now, &done) < 0)
			return -1;
		if (j == JOB_ROLLUP)
			rolled = done;
		int64_t limit = store_job_limit(st, j, now, rolled);
		if (done >= limit)
			continue;
		int64_t to = store_min64(limit, done + STORE_CHUNK_MS);
		return store_job_run(st, j, done, to) < 0 ? -1 : 1;
	}
	return 0;
}

/* ---- opening ---- */

static int store_lock(store_t *st, char **cause)
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
static int store_check_file(store_t *st, bool *exists, char **cause)
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

static int store_quick_check(store_t *st, char **cause)
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

static int store_pragma_int(store_t *st, const char *sql, int *out)
{
	sqlite3_stmt *q;
	int rc = sqlite3_prepare_v2(st->db, sql, -1, &q, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(q)) == SQLITE_ROW)
		*out = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int store_setup(store_t *st, char **cause)
{
	sqlite3_stmt *q;
	bool wal = false;
	if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode = WAL", -1, &q, NULL) == SQLITE_OK &&
		sqlite3_step(q) == SQLITE_ROW)
		wal = strcmp((const char *)sqlite3_column_text(q, 0), "wal") == 0;
	sqlite3_finalize(q);
	if (!wal || store_exec(st, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON") < 0) {
		*cause = xasprintf(
			"database %s: cannot switch to WAL mode: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

static int store_db_open(store_t *st, char **cause)
{
	bool exists;
	if (store_check_file(st, &exists, cause) < 0)
		return -1;
	int flags = SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
	if (sqlite3_open_v2(st->path, &st->db, flags, NULL) != SQLITE_OK) {
		*cause = xasprintf("cannot open database %s: %s", st->path,
			st->db ? sqlite3_errmsg(st->db) : "out of memory");
		return -1;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, STORE_BUSY_MS);
	if (store_sql_functions(st->db) != SQLITE_OK) { /* migration 003 needs them */
		*cause = xasprintf("database %s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	return store_quick_check(st, cause);
}

static int store_migrate_one(store_t *st, const struct schema_migration *m, char **cause)
{
	char *sql = xasprintf("BEGIN IMMEDIATE; %s; PRAGMA user_version = %d; COMMIT", m->sql, m->version);
	int rc = store_exec(st, sql);
	free(sql);
	if (rc == 0) {
		log_info("store: %s: applied schema migration %s", st->path, m->name);
		return 0;
	}
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	*cause = xasprintf("database %s: schema migration %s failed: %s", st->path, m->name, st->errmsg);
	return -1;
}

static int store_migrate(store_t *st, char **cause)
{
	int uv = 0;
	if (store_pragma_int(st, "PRAGMA user_version", &uv) < 0) {
		*cause = xasprintf("database %s: %s", st->path, sqlite3_errmsg(st->db));
		return -1;
	}
	if (uv > (int)schema_nmigrations) {
		*cause = xasprintf("database %s has schema version %d, newer than this wgwatchd "
				   "knows (%zu): run a newer wgwatchd",
			st->path, uv, schema_nmigrations);
		return -1;
	}
	if (store_setup(st, cause) < 0)
		return -1;
	for (size_t i = (size_t)uv; i < schema_nmigrations; i++)
		if (store_migrate_one(st, &schema_migrations[i], cause) < 0)
			return -1;
	return 0;
}

static int store_prepare(store_t *st, char **cause)
{
	char *why = NULL;
	if (store_sql_attach(st->db, &why) < 0) {
		*cause = xasprintf("database %s: %s", st->path, why);
		free(why);
		return -1;
	}
	for (int i = 0; i < SQ_COUNT; i++) {
		if (sqlite3_prepare_v3(st->db, store_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->sq[i],
			    NULL) != SQLITE_OK) {
			*cause = xasprintf("database %s: %s", st->path, sqlite3_errmsg(st->db));
			return -1;
		}
	}
	if (store_cache_load(st) < 0) {
		*cause = xasprintf("database %s: %s", st->path, st->errmsg);
		return -1;
	}
	return 0;
}

static void store_free(store_t *st)
{
	for (int i = 0; i < SQ_COUNT; i++)
		sqlite3_finalize(st->sq[i]);
	if (st->db != NULL)
		sqlite3_close(st->db);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	store_cache_clear(st);
	for (int i = 0; i < 3; i++)
		buf_free(&st->pk[i]);
	for (size_t i = 0; i < st->qlen; i++)
		sample_free(st->q[(st->qhead + i) % st->qcap].s);
	for (size_t i = 0; i < st->nbatch; i++)
		sample_free(st->batch[i].s);
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
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t ns = ts.tv_nsec + (ms % 1000) * 1000000;
	ts.tv_sec += (time_t)(ms / 1000 + ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	pthread_cond_timedwait(&st->wake, &st->mu, &ts);
	st->heartbeat_ms = store_mono_ms();
}

/* Wait ms without being cut short by submits, beating the heart meanwhile. Called locked. */
static void store_sleep(store_t *st, int64_t ms)
{
	int64_t end = store_mono_ms() + ms;
	for (int64_t left = ms; left > 0 && !st->stopping; left = end - store_mono_ms())
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
		sample_free(st->batch[i].s);
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
	st->stats.last_commit_ms = store_wall_ms();
	store_batch_done(st);
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
	int rc = store_write_batch(st, &rows);
	pthread_mutex_lock(&st->mu);
	st->heartbeat_ms = store_mono_ms();
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

/* One maintenance step (called locked, unlocks meanwhile). */
static void store_maint_round(store_t *st)
{
	pthread_mutex_unlock(&st->mu);
	int64_t now = store_clock_ms();
	int rc = store_maint_step(st, now);
	if (rc < 0)
		log_warn("store: %s: roll-up/retention failed: %s (retrying later)", st->path, st->errmsg);
	pthread_mutex_lock(&st->mu);
	st->heartbeat_ms = store_mono_ms();
	st->maint_active = rc > 0;
	if (rc > 0)
		return;
	st->next_maint_ms = now + STORE_MAINT_EVERY_MS;
	if (st->maint_forced) {
		st->maint_forced = false;
		st->maint_gen++;
		pthread_cond_broadcast(&st->progress);
	}
}

/* Let polls gather before a commit, so that one commit writes each router's pages once for
 * several of its polls (the samples are keyed by router). True while waiting. Locked. */
static bool store_gathering(store_t *st)
{
	if (st->stopping || st->flushing > 0 || st->qlen >= STORE_GATHER_POLLS)
		return false;
	int64_t left = st->gather_ms + STORE_GATHER_MS - store_mono_ms();
	if (left <= 0)
		return false;
	store_timed_wait(st, left);
	return true;
}

static void *store_writer(void *arg)
{
	store_t *st = arg;
	int64_t backoff = STORE_BACKOFF_MIN_MS;
	int failures = 0;
	pthread_mutex_lock(&st->mu);
	for (;;) {
		st->heartbeat_ms = store_mono_ms();
		if (st->nbatch == 0 && st->qlen > 0) {
			if (store_gathering(st))
				continue;
			store_take(st);
		}
		if (st->nbatch > 0)
			store_commit_round(st, &backoff, &failures);
		else if (!st->stopping &&
			(st->maint_active || st->maint_forced || store_clock_ms() >= st->next_maint_ms))
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
	st->heartbeat_ms = store_mono_ms();
	st->next_maint_ms = store_clock_ms() + STORE_MAINT_FIRST_MS;
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
	st->retention_ms = conf && conf->retention_ms > 0 ? conf->retention_ms : 35 * STORE_DAY_MS;
	st->rollup_retention_ms = conf && conf->rollup_retention_ms > 0 ? conf->rollup_retention_ms
									: 400 * STORE_DAY_MS;
	pthread_mutex_init(&st->mu, NULL);
	pthread_cond_init(&st->progress, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->wake, &ca);
	pthread_condattr_destroy(&ca);
	*cause = NULL;
	if (store_lock(st, cause) < 0 || store_db_open(st, cause) < 0 || store_migrate(st, cause) < 0 ||
		store_prepare(st, cause) < 0 || store_start(st, cause) < 0) {
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
static void store_push(store_t *st, sample_t *s)
{
	if (st->qlen >= store_queue_max && st->qlen > 0) {
		sample_free(st->q[st->qhead].s);
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
	st->q[(st->qhead + st->qlen++) % st->qcap] = (struct store_item){ s, ++st->submit_seq };
	if (st->qlen == 1)
		st->gather_ms = store_mono_ms();
}

void store_submit(store_t *st, sample_t *s)
{
	if (s == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	store_push(st, s);
	if (st->qlen == 1 || st->qlen >= STORE_GATHER_POLLS) /* else the writer is gathering */
		pthread_cond_signal(&st->wake);
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
