/* SPDX-License-Identifier: Apache-2.0 */
/* rollvt: the store_*_rollup and store_*_rollup_1h tables (rollvt.h) on rollstore's cursor, one module per kind: the
 * series id = ? and bucket_ms bounds go down to it; without an id it reads every id the table or
 * the chunks have, in id order. SQLite checks every constraint again, so a bound it cannot take
 * (not an integer) is only left out; a malformed chunk's rows are left out (the maintenance job
 * logs it). It must never write, and never yield a row twice or out of (id, bucket) order. */
#include "config.h"
#include "store/rollvt.h"
#include "store/rollstore.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

enum { RV_ID, RV_BUCKET };
/* idxNum: the arguments xFilter gets, in this order */
enum { RV_F_ID = 1, RV_F_EQ = 2, RV_F_GE = 4, RV_F_GT = 8, RV_F_LT = 16, RV_F_LE = 32, RV_F_END = 64 };

static const struct {
	const char *name, *decl, *ids;
} rv_kinds[ROLLCHUNK_NKIND] = {
	/* the 5-minute tier, then the hourly (schema 017) */
	[ROLLCHUNK_CPU] = { "store_cpu_rollup",
		"CREATE TABLE x(router_id, bucket_ms, core, n, load_min, load_avg, load_max)",
		"SELECT router_id FROM cpu_rollup UNION SELECT id FROM rollup_chunks WHERE kind = 0 ORDER BY 1" },
	[ROLLCHUNK_IFACE] = { "store_iface_rollup",
		"CREATE TABLE x(iface_id, bucket_ms, n, rx_rate_avg, rx_rate_max, tx_rate_avg, tx_rate_max,"
		" rx_bytes_end, tx_bytes_end)",
		"SELECT iface_id FROM iface_rollup UNION SELECT id FROM rollup_chunks WHERE kind = 1 ORDER BY 1" },
	[ROLLCHUNK_PEER] = { "store_peer_rollup",
		"CREATE TABLE x(peer_id, bucket_ms, n, rx_rate_avg, rx_rate_max, tx_rate_avg, tx_rate_max,"
		" rx_bytes_end, tx_bytes_end)",
		"SELECT peer_id FROM peer_rollup UNION SELECT id FROM rollup_chunks WHERE kind = 2 ORDER BY 1" },
	[ROLLCHUNK_CPU_1H] = { "store_cpu_rollup_1h",
		"CREATE TABLE x(router_id, bucket_ms, core, n, load_min, load_sum, load_max)",
		"SELECT router_id FROM cpu_rollup_1h UNION SELECT id FROM rollup_chunks WHERE kind = 3 ORDER BY 1" },
	[ROLLCHUNK_IFACE_1H] = { "store_iface_rollup_1h",
		"CREATE TABLE x(iface_id, bucket_ms, n, m, rx_rate_sum, rx_rate_max, tx_rate_sum, tx_rate_max,"
		" rx_bytes_end, tx_bytes_end)",
		"SELECT iface_id FROM iface_rollup_1h UNION SELECT id FROM rollup_chunks WHERE kind = 4 ORDER BY 1" },
	[ROLLCHUNK_PEER_1H] = { "store_peer_rollup_1h",
		"CREATE TABLE x(peer_id, bucket_ms, n, m, rx_rate_sum, rx_rate_max, tx_rate_sum, tx_rate_max,"
		" rx_bytes_end, tx_bytes_end)",
		"SELECT peer_id FROM peer_rollup_1h UNION SELECT id FROM rollup_chunks WHERE kind = 5 ORDER BY 1" },
};

struct rv_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	enum rollchunk_kind kind;
	db_shelf_t *shelf; /* the connection's reads prepare their statements once, not per filter */
};

struct rv_cursor {
	sqlite3_vtab_cursor base;
	sqlite3 *db;
	enum rollchunk_kind kind;
	db_shelf_t *shelf; /* the table's */
	sqlite3_stmt *ids; /* without id = ?: every id, in order */
	int64_t id, from, to, purged, rowid;
	rollstore_cur_t *cur;
	const struct rollchunk_row *row; /* NULL: at the end */
};

static int rv_connect(
	sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)argc, (void)argv, (void)err;
	enum rollchunk_kind kind = (enum rollchunk_kind)(intptr_t)aux;
	int rc = sqlite3_declare_vtab(db, rv_kinds[kind].decl);
	if (rc != SQLITE_OK)
		return rc;
	struct rv_vtab *v = sqlite3_malloc(sizeof(*v));
	if (v == NULL)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	v->kind = kind;
	v->shelf = rollstore_shelf_new();
	*out = &v->base;
	return SQLITE_OK;
}

static int rv_disconnect(sqlite3_vtab *vt)
{
	db_shelf_free(((struct rv_vtab *)vt)->shelf);
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The usable constraint of ix that gives flag f, or -1. */
static int rv_find(const sqlite3_index_info *ix, int f)
{
	static const struct {
		int flag, col, op;
	} map[] = { { RV_F_ID, RV_ID, SQLITE_INDEX_CONSTRAINT_EQ },
		{ RV_F_EQ, RV_BUCKET, SQLITE_INDEX_CONSTRAINT_EQ },
		{ RV_F_GE, RV_BUCKET, SQLITE_INDEX_CONSTRAINT_GE },
		{ RV_F_GT, RV_BUCKET, SQLITE_INDEX_CONSTRAINT_GT },
		{ RV_F_LT, RV_BUCKET, SQLITE_INDEX_CONSTRAINT_LT },
		{ RV_F_LE, RV_BUCKET, SQLITE_INDEX_CONSTRAINT_LE } };
	for (size_t m = 0; m < sizeof(map) / sizeof(*map); m++)
		for (int i = 0; map[m].flag == f && i < ix->nConstraint; i++) {
			const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
			if (c->usable && c->iColumn == map[m].col && c->op == map[m].op)
				return i;
		}
	return -1;
}

static int rv_bestindex(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	(void)vt;
	int n = 0;
	ix->idxNum = 0;
	for (int f = RV_F_ID; f < RV_F_END; f <<= 1) {
		int i = rv_find(ix, f);
		if (i >= 0) {
			ix->idxNum |= f;
			ix->aConstraintUsage[i].argvIndex = ++n;
		}
	}
	bool by_bucket = ix->nOrderBy == 1 && ix->aOrderBy[0].iColumn == RV_BUCKET && !ix->aOrderBy[0].desc;
	bool by_both = ix->nOrderBy == 2 && ix->aOrderBy[0].iColumn == RV_ID && !ix->aOrderBy[0].desc &&
		ix->aOrderBy[1].iColumn == RV_BUCKET && !ix->aOrderBy[1].desc;
	int eq = rv_find(ix, RV_F_ID);
	bool in = eq >= 0 && sqlite3_vtab_in(ix, eq, -1); /* a filter per id: order within each alone */
	ix->orderByConsumed = (by_both && !in) || (by_bucket && eq >= 0 && !in);
	ix->estimatedCost = (ix->idxNum & RV_F_ID ? 1e3 : 1e6) / (ix->idxNum & ~RV_F_ID ? 10 : 1);
	return SQLITE_OK;
}

static int rv_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct rv_cursor *c = sqlite3_malloc(sizeof(*c));
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct rv_vtab *)vt)->db;
	c->kind = ((struct rv_vtab *)vt)->kind;
	c->shelf = ((struct rv_vtab *)vt)->shelf;
	*out = &c->base;
	return SQLITE_OK;
}

static void rv_reset(struct rv_cursor *c)
{
	rollstore_close(c->cur);
	sqlite3_finalize(c->ids);
	c->cur = NULL;
	c->ids = NULL;
	c->row = NULL;
}

static int rv_close(sqlite3_vtab_cursor *cur)
{
	rv_reset((struct rv_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int rv_error(struct rv_cursor *c, char *cause)
{
	sqlite3_free(c->base.pVtab->zErrMsg);
	c->base.pVtab->zErrMsg = sqlite3_mprintf(
		"%s: %s", rv_kinds[c->kind].name, cause ? cause : "out of memory");
	free(cause);
	return SQLITE_ERROR;
}

static int rv_start(struct rv_cursor *c)
{
	char *cause = NULL;
	c->cur = rollstore_open(c->db, c->shelf, c->kind, c->id, c->from, c->to, c->purged, true, &cause);
	return c->cur == NULL ? rv_error(c, cause) : SQLITE_OK;
}

/* The next row: of the id being read, else of the next id (without id = ?). */
static int rv_advance(struct rv_cursor *c)
{
	char *cause = NULL;
	for (;;) {
		int rc = c->cur != NULL ? rollstore_next(c->cur, &c->row, &cause) : 0;
		if (rc == 1)
			return SQLITE_OK;
		c->row = NULL;
		if (rc < 0)
			return rv_error(c, cause);
		rollstore_close(c->cur);
		c->cur = NULL;
		if (c->ids == NULL || (rc = sqlite3_step(c->ids)) == SQLITE_DONE)
			return SQLITE_OK;
		if (rc != SQLITE_ROW)
			return rv_error(c, xstrdup(sqlite3_errmsg(c->db)));
		c->id = sqlite3_column_int64(c->ids, 0);
		if ((rc = rv_start(c)) != SQLITE_OK)
			return rc;
	}
}

/* The purge's mark of the kind's tier (store_state), INT64_MIN before the first purge. */
static int rv_purged(struct rv_cursor *c)
{
	sqlite3_stmt *q = NULL;
	c->purged = INT64_MIN;
	const char *sql = c->kind < ROLLCHUNK_NKIND_5M
		? "SELECT value FROM store_state WHERE key = 'rollup_purged_ms'"
		: "SELECT value FROM store_state WHERE key = 'rollup_1h_purged_ms'";
	if (sqlite3_prepare_v2(c->db, sql, -1, &q, NULL) != SQLITE_OK)
		return rv_error(c, xstrdup(sqlite3_errmsg(c->db)));
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		c->purged = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK
						     : rv_error(c, xstrdup(sqlite3_errmsg(c->db)));
}

/* The bucket bounds of idx's arguments from argv[*a] on into c->from, c->to (to exclusive;
 * buckets are multiples of 5 minutes, never INT64_MAX): false when no bucket can meet them. A
 * bound not an integer is left out. */
static bool rv_bounds(struct rv_cursor *c, int idx, sqlite3_value **argv, int *a)
{
	c->from = INT64_MIN;
	c->to = INT64_MAX;
	for (int f = RV_F_EQ; f < RV_F_END; f <<= 1) {
		if (!(idx & f))
			continue;
		sqlite3_value *v = argv[(*a)++];
		if (sqlite3_value_type(v) != SQLITE_INTEGER)
			continue;
		int64_t x = sqlite3_value_int64(v), up = x < INT64_MAX ? x + 1 : x;
		if (f == RV_F_GT && x == INT64_MAX)
			return false;
		int64_t lo = f == RV_F_GT ? x + 1 : f & (RV_F_EQ | RV_F_GE) ? x : INT64_MIN;
		int64_t hi = f == RV_F_LT ? x : f & (RV_F_EQ | RV_F_LE) ? up : INT64_MAX;
		c->from = lo > c->from ? lo : c->from;
		c->to = hi < c->to ? hi : c->to;
	}
	return c->from < c->to;
}

static int rv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idxstr, (void)argc;
	struct rv_cursor *c = (struct rv_cursor *)cur;
	int a = 0;
	rv_reset(c);
	c->rowid = 0;
	if (idx & RV_F_ID && sqlite3_value_type(argv[a]) != SQLITE_INTEGER)
		return SQLITE_OK; /* id = NULL, or not an id: no rows */
	c->id = idx & RV_F_ID ? sqlite3_value_int64(argv[a++]) : 0;
	if (!rv_bounds(c, idx, argv, &a))
		return SQLITE_OK;
	int rc = rv_purged(c);
	if (rc != SQLITE_OK)
		return rc;
	if (idx & RV_F_ID)
		rc = rv_start(c);
	else if (sqlite3_prepare_v2(c->db, rv_kinds[c->kind].ids, -1, &c->ids, NULL) != SQLITE_OK)
		rc = rv_error(c, xstrdup(sqlite3_errmsg(c->db)));
	return rc == SQLITE_OK ? rv_advance(c) : rc;
}

static int rv_next(sqlite3_vtab_cursor *cur)
{
	((struct rv_cursor *)cur)->rowid++;
	return rv_advance((struct rv_cursor *)cur);
}

static int rv_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct rv_cursor *)cur)->row == NULL;
}

static int rv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct rv_cursor *c = (const struct rv_cursor *)cur;
	const struct rollchunk_row *r = c->row;
	int first = rollchunk_is_cpu(c->kind) ? 3 : 2; /* the first value column */
	if (col == RV_ID)
		sqlite3_result_int64(ctx, c->id);
	else if (col == RV_BUCKET)
		sqlite3_result_int64(ctx, r->bucket_ms);
	else if (col < first)
		sqlite3_result_int64(ctx, r->core);
	else if ((r->have >> (col - first)) & 1)
		sqlite3_result_int64(ctx, r->v[col - first]);
	return SQLITE_OK;
}

static int rv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = ((struct rv_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static sqlite3_module rv_module = {
	.xConnect = rv_connect,
	.xBestIndex = rv_bestindex,
	.xDisconnect = rv_disconnect,
	.xOpen = rv_open,
	.xClose = rv_close,
	.xFilter = rv_filter,
	.xNext = rv_next,
	.xEof = rv_eof,
	.xColumn = rv_column,
	.xRowid = rv_rowid,
};

int rollvt_register(sqlite3 *db)
{
	int rc = SQLITE_OK;
	for (int k = 0; k < ROLLCHUNK_NKIND && rc == SQLITE_OK; k++)
		rc = sqlite3_create_module_v2(db, rv_kinds[k].name, &rv_module, (void *)(intptr_t)k, NULL);
	return rc;
}
