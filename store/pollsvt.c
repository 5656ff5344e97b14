/* SPDX-License-Identifier: Apache-2.0 */
/* pollsvt: store_polls (pollsvt.h) on chunkstore's cursor: router_id = ? and time_ms bounds go
 * down to it; without a router it reads each router of routers in id order. SQLite checks every
 * constraint again, so a bound it cannot take (not an integer) is only left out; a BLOB column
 * the query does not use is not read from polls (colUsed); a malformed chunk's rows are left
 * out (the maintenance job logs it). The table keeps chunkstore's statements between reads. It must never write, and never yield a row twice or out of (router_id, time_ms) order. */
#include "config.h"
#include "store/pollsvt.h"
#include "store/chunkstore.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

enum {
	PV_ROUTER,
	PV_TIME,
	PV_DURATION,
	PV_SOURCE,
	PV_ERR,
	PV_ERROR,
	PV_CPU,
	PV_IFACES,
	PV_PEERS,
	PV_MHZ,
	PV_HEALTH
};
enum { PV_F_ROUTER = 1, PV_F_FROM = 2, PV_F_TO = 4 }; /* idxNum: the arguments xFilter gets, in this order */
enum { PV_BLOBS_SHIFT = 3 }; /* idxNum above them: the BLOBs the query reads (chunkstore_open_cols) */

struct pv_cursor {
	sqlite3_vtab_cursor base;
	sqlite3 *db;
	db_shelf_t *shelf;     /* the table's: chunkstore's statements, kept between the reads */
	sqlite3_stmt *routers; /* without router_id = ?: every router, in id order */
	int64_t rid, from, to, rowid;
	unsigned blobs;
	chunkstore_cur_t *cur;
	const struct pollchunk_row *row; /* NULL: at the end */
};

struct pv_vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	db_shelf_t *shelf; /* the connection's reads prepare their statements once, not per filter */
};

static int pv_connect(
	sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux, (void)argc, (void)argv, (void)err;
	int rc = sqlite3_declare_vtab(db,
		"CREATE TABLE x(router_id, time_ms, duration_ms, source, err, error,"
		" cpu, ifaces, peers, cpu_mhz, health)");
	if (rc != SQLITE_OK)
		return rc;
	struct pv_vtab *v = sqlite3_malloc(sizeof(*v));
	if (v == NULL)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof(*v));
	v->db = db;
	v->shelf = chunkstore_shelf_new();
	*out = &v->base;
	return SQLITE_OK;
}

static int pv_disconnect(sqlite3_vtab *vt)
{
	db_shelf_free(((struct pv_vtab *)vt)->shelf);
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* The constraint of ix that gives flag f, or -1. */
static int pv_find(const sqlite3_index_info *ix, int f)
{
	for (int i = 0; i < ix->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
		int op = c->op;
		if (!c->usable)
			continue;
		if (f == PV_F_ROUTER && c->iColumn == PV_ROUTER && op == SQLITE_INDEX_CONSTRAINT_EQ)
			return i;
		if (f == PV_F_FROM && c->iColumn == PV_TIME && op == SQLITE_INDEX_CONSTRAINT_GE)
			return i;
		if (f == PV_F_TO && c->iColumn == PV_TIME && op == SQLITE_INDEX_CONSTRAINT_LT)
			return i;
	}
	return -1;
}

static int pv_bestindex(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	(void)vt;
	int n = 0;
	ix->idxNum = 0;
	for (int f = PV_F_ROUTER; f <= PV_F_TO; f <<= 1) {
		int i = pv_find(ix, f);
		if (i >= 0) {
			ix->idxNum |= f;
			ix->aConstraintUsage[i].argvIndex = ++n;
		}
	}
	static const int col[POLLCHUNK_NBLOB] = { [POLLCHUNK_CPU] = PV_CPU,
		[POLLCHUNK_IFACES] = PV_IFACES,
		[POLLCHUNK_PEERS] = PV_PEERS,
		[POLLCHUNK_HEALTH] = PV_HEALTH };
	for (int b = 0; b < POLLCHUNK_NBLOB; b++)
		if (ix->colUsed & ((sqlite3_uint64)1 << col[b]))
			ix->idxNum |= 1 << (PV_BLOBS_SHIFT + b);
	bool by_time = ix->nOrderBy == 1 && ix->aOrderBy[0].iColumn == PV_TIME && !ix->aOrderBy[0].desc;
	bool by_both = ix->nOrderBy == 2 && ix->aOrderBy[0].iColumn == PV_ROUTER && !ix->aOrderBy[0].desc &&
		ix->aOrderBy[1].iColumn == PV_TIME && !ix->aOrderBy[1].desc;
	/* router_id IN (...) runs a filter per router: time order holds within each alone */
	int eq = pv_find(ix, PV_F_ROUTER);
	bool in = eq >= 0 && sqlite3_vtab_in(ix, eq, -1);
	ix->orderByConsumed = (by_both && !in) || (by_time && eq >= 0 && !in);
	ix->estimatedCost = (ix->idxNum & PV_F_ROUTER ? 1e3 : 1e6) /
		(ix->idxNum & (PV_F_FROM | PV_F_TO) ? 10 : 1);
	return SQLITE_OK;
}

static int pv_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct pv_cursor *c = sqlite3_malloc(sizeof(*c));
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->db = ((struct pv_vtab *)vt)->db;
	c->shelf = ((struct pv_vtab *)vt)->shelf;
	*out = &c->base;
	return SQLITE_OK;
}

static void pv_reset(struct pv_cursor *c)
{
	chunkstore_close(c->cur);
	sqlite3_finalize(c->routers);
	c->cur = NULL;
	c->routers = NULL;
	c->row = NULL;
}

static int pv_close(sqlite3_vtab_cursor *cur)
{
	pv_reset((struct pv_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* An SQLite error from chunkstore into the table's message. */
static int pv_error(struct pv_cursor *c, char *cause)
{
	sqlite3_free(c->base.pVtab->zErrMsg);
	c->base.pVtab->zErrMsg = sqlite3_mprintf("store_polls: %s", cause ? cause : "out of memory");
	free(cause);
	return SQLITE_ERROR;
}

/* The next row: of the router being read, else of the next router (without router_id = ?). */
static int pv_advance(struct pv_cursor *c)
{
	char *cause = NULL;
	for (;;) {
		int rc = c->cur != NULL ? chunkstore_next(c->cur, &c->row, &cause) : 0;
		if (rc == 1)
			return SQLITE_OK;
		c->row = NULL;
		if (rc < 0)
			return pv_error(c, cause);
		chunkstore_close(c->cur);
		c->cur = NULL;
		if (c->routers == NULL || (rc = sqlite3_step(c->routers)) == SQLITE_DONE)
			return SQLITE_OK;
		if (rc != SQLITE_ROW)
			return pv_error(c, xstrdup(sqlite3_errmsg(c->db)));
		c->rid = sqlite3_column_int64(c->routers, 0);
		if ((c->cur = chunkstore_open_shelf(c->db, c->shelf, c->rid, c->from, c->to,
			     c->blobs | CHUNKSTORE_SKIP_MALFORMED, &cause)) == NULL)
			return pv_error(c, cause);
	}
}

/* Argument a as a bound: an integer, else none (SQLite checks the constraint itself). */
static int64_t pv_bound(sqlite3_value *a, int64_t none)
{
	return sqlite3_value_type(a) == SQLITE_INTEGER ? sqlite3_value_int64(a) : none;
}

static int pv_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idxstr, (void)argc;
	struct pv_cursor *c = (struct pv_cursor *)cur;
	char *cause = NULL;
	int a = 0;
	pv_reset(c);
	c->rowid = 0;
	if (idx & PV_F_ROUTER && sqlite3_value_type(argv[a]) != SQLITE_INTEGER)
		return SQLITE_OK; /* router_id = NULL, or not an id: no rows */
	c->rid = idx & PV_F_ROUTER ? sqlite3_value_int64(argv[a++]) : 0;
	c->from = idx & PV_F_FROM ? pv_bound(argv[a++], INT64_MIN) : INT64_MIN;
	c->to = idx & PV_F_TO ? pv_bound(argv[a++], INT64_MAX) : INT64_MAX;
	c->blobs = (unsigned)idx >> PV_BLOBS_SHIFT;
	if (!(idx & PV_F_ROUTER)) {
		if (sqlite3_prepare_v2(c->db, "SELECT id FROM routers ORDER BY id", -1, &c->routers, NULL) !=
			SQLITE_OK)
			return pv_error(c, xstrdup(sqlite3_errmsg(c->db)));
	} else if ((c->cur = chunkstore_open_shelf(c->db, c->shelf, c->rid, c->from, c->to,
			    c->blobs | CHUNKSTORE_SKIP_MALFORMED, &cause)) == NULL)
		return pv_error(c, cause);
	return pv_advance(c);
}

static int pv_next(sqlite3_vtab_cursor *cur)
{
	((struct pv_cursor *)cur)->rowid++;
	return pv_advance((struct pv_cursor *)cur);
}

static int pv_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct pv_cursor *)cur)->row == NULL;
}

static void pv_text(sqlite3_context *ctx, const char *s)
{
	if (s != NULL)
		sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
}

static int pv_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct pv_cursor *c = (const struct pv_cursor *)cur;
	const struct pollchunk_row *r = c->row;
	static const int blob[] = { [PV_CPU] = POLLCHUNK_CPU + 1,
		[PV_IFACES] = POLLCHUNK_IFACES + 1,
		[PV_PEERS] = POLLCHUNK_PEERS + 1,
		[PV_HEALTH] = POLLCHUNK_HEALTH + 1 };
	if (col < (int)(sizeof(blob) / sizeof(*blob)) && blob[col] > 0) {
		int b = blob[col] - 1;
		if (r->blob[b] != NULL)
			sqlite3_result_blob(ctx, r->blob[b], (int)r->len[b], SQLITE_TRANSIENT);
		return SQLITE_OK;
	}
	switch (col) {
	case PV_ROUTER: sqlite3_result_int64(ctx, c->rid); break;
	case PV_TIME: sqlite3_result_int64(ctx, r->time_ms); break;
	case PV_DURATION: sqlite3_result_int64(ctx, r->duration_ms); break;
	case PV_SOURCE: pv_text(ctx, r->source); break;
	case PV_ERR: pv_text(ctx, r->err); break;
	case PV_ERROR: pv_text(ctx, r->error); break;
	case PV_MHZ:
		if (r->have_mhz)
			sqlite3_result_int64(ctx, r->cpu_mhz);
		break;
	}
	return SQLITE_OK;
}

static int pv_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = ((struct pv_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static sqlite3_module pv_module = {
	.xConnect = pv_connect,
	.xBestIndex = pv_bestindex,
	.xDisconnect = pv_disconnect,
	.xOpen = pv_open,
	.xClose = pv_close,
	.xFilter = pv_filter,
	.xNext = pv_next,
	.xEof = pv_eof,
	.xColumn = pv_column,
	.xRowid = pv_rowid,
};

int pollsvt_register(sqlite3 *db)
{
	return sqlite3_create_module_v2(db, "store_polls", &pv_module, NULL, NULL);
}
