/* SPDX-License-Identifier: Apache-2.0 */
/* sqlfn: the SQL side of the packed samples, registered on each connection that reads them:
 * store_values(blob), an eponymous table-valued function, the store_pack_* aggregates that build
 * blobs (migration 003), and the temp views cpu_samples, iface_samples and peer_samples. They read
 * their arguments only: never the database behind them, never the writer's state. */
#include "config.h"
#include "store/store_int.h"
#include "lib/db.h"

#include <string.h>

/* ---- store_values(blob): the entries of a packed blob as rows (an eponymous virtual table) */

enum sqlfn_col {
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
	VC_MTU,
	VC_RX_ERRORS,
	VC_TX_ERRORS,
	VC_TX_QUEUE_DROPS,
	VC_RUNNING,
	VC_DATA
};

struct sqlfn_cursor {
	sqlite3_vtab_cursor base;
	uint8_t *data; /* our copy of the blob */
	const uint8_t *p, *end;
	enum store_kind kind;
	int64_t prev_id, rowid;
	bool eof;
	struct store_val v;
};

static int sqlfn_vconnect(
	sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux, (void)argc, (void)argv, (void)err;
	int rc = sqlite3_declare_vtab(db,
		"CREATE TABLE x(id, load, irq, rx_bytes, tx_bytes,"
		" rx_packets, tx_packets, rx_drops, tx_drops, handshake_age_ms, dt_ms, rx_delta,"
		" tx_delta, reset, mtu, rx_errors, tx_errors, tx_queue_drops, running, data HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	*out = sqlite3_malloc(sizeof(**out));
	if (*out == NULL)
		return SQLITE_NOMEM;
	memset(*out, 0, sizeof(**out));
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	return SQLITE_OK;
}

static int sqlfn_vdisconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Only a plan with data = <value> is usable: the function needs its argument. */
static int sqlfn_vbestindex(sqlite3_vtab *vt, sqlite3_index_info *ix)
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

static int sqlfn_vopen(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct sqlfn_cursor *c = sqlite3_malloc(sizeof(*c));
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int sqlfn_vclose(sqlite3_vtab_cursor *cur)
{
	struct sqlfn_cursor *c = (struct sqlfn_cursor *)cur;
	sqlite3_free(c->data);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int sqlfn_vnext(sqlite3_vtab_cursor *cur)
{
	struct sqlfn_cursor *c = (struct sqlfn_cursor *)cur;
	c->eof = c->p >= c->end || !pack_next(&c->p, c->end, c->kind, &c->prev_id, &c->v);
	c->rowid++;
	return SQLITE_OK;
}

static int sqlfn_vfilter(
	sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc, sqlite3_value **argv)
{
	(void)idx, (void)idxstr;
	struct sqlfn_cursor *c = (struct sqlfn_cursor *)cur;
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
	return sqlfn_vnext(cur);
}

static int sqlfn_veof(sqlite3_vtab_cursor *cur)
{
	return ((struct sqlfn_cursor *)cur)->eof;
}

static int sqlfn_vrowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct sqlfn_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static void sqlfn_vresult(sqlite3_context *ctx, int64_t v, bool known)
{
	if (known)
		sqlite3_result_int64(ctx, v);
}

static int sqlfn_vcolumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct sqlfn_cursor *c = (const struct sqlfn_cursor *)cur;
	const struct store_val *v = &c->v;
	bool cpu = c->kind == STORE_CPU, delta = v->flags & STORE_F_DELTA;
	bool link = c->kind == STORE_IFACE && (v->flags & STORE_F_LINK);
	int ncounters = c->kind == STORE_IFACE ? 6 : c->kind == STORE_PEER ? 2 : 0;
	switch (col) {
	case VC_ID: sqlfn_vresult(ctx, v->id, true); break;
	case VC_LOAD: sqlfn_vresult(ctx, v->load, cpu); break;
	case VC_IRQ: sqlfn_vresult(ctx, v->irq, cpu && v->irq >= 0); break;
	case VC_HANDSHAKE: sqlfn_vresult(ctx, v->handshake_ms, v->handshake_ms >= 0); break;
	case VC_DT: sqlfn_vresult(ctx, v->dt_ms, delta); break;
	case VC_RX_DELTA: sqlfn_vresult(ctx, v->rx_delta, delta); break;
	case VC_TX_DELTA: sqlfn_vresult(ctx, v->tx_delta, delta); break;
	case VC_RESET: sqlfn_vresult(ctx, (v->flags & STORE_F_RESET) != 0, !cpu); break;
	case VC_MTU: sqlfn_vresult(ctx, (int64_t)v->link[0], link && v->link[0] > 0); break;
	case VC_RX_ERRORS:
	case VC_TX_ERRORS:
	case VC_TX_QUEUE_DROPS: sqlfn_vresult(ctx, (int64_t)v->link[col - VC_MTU], link); break;
	case VC_RUNNING: sqlfn_vresult(ctx, (v->flags & STORE_F_RUNNING) != 0, link); break;
	case VC_DATA: break;
	default: sqlfn_vresult(ctx, (int64_t)v->c[col - VC_RX_BYTES], col - VC_RX_BYTES < ncounters);
	}
	return SQLITE_OK;
}

static sqlite3_module sqlfn_module = {
	.xConnect = sqlfn_vconnect,
	.xBestIndex = sqlfn_vbestindex,
	.xDisconnect = sqlfn_vdisconnect,
	.xOpen = sqlfn_vopen,
	.xClose = sqlfn_vclose,
	.xFilter = sqlfn_vfilter,
	.xNext = sqlfn_vnext,
	.xEof = sqlfn_veof,
	.xColumn = sqlfn_vcolumn,
	.xRowid = sqlfn_vrowid,
};

/* ---- store_pack_cpu/iface/peer(...): aggregates that build a blob (migration 003) ---- */

struct sqlfn_agg {
	buf_t b;
	int64_t prev_id;
};

/* Arguments as the columns of the 001 tables: cpu (load, irq); iface (id, rx_bytes, tx_bytes,
 * rx_packets, tx_packets, rx_drops, tx_drops, dt_ms, rx_delta, tx_delta, reset); peer (id,
 * rx_bytes, tx_bytes, handshake_age_ms, dt_ms, rx_delta, tx_delta, reset). */
static void sqlfn_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct sqlfn_agg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	if (a == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	enum store_kind kind = argc == 2 ? STORE_CPU : argc == 11 ? STORE_IFACE : STORE_PEER;
	struct store_val v = { .load = db_value_int64(argv[0], 0), .irq = db_value_int64(argv[1], -1) };
	if (kind == STORE_CPU) {
		pack_append(&a->b, kind, &a->prev_id, &v);
		return;
	}
	int nc = kind == STORE_IFACE ? 6 : 2, d = kind == STORE_IFACE ? 7 : 4;
	v.id = db_value_int64(argv[0], 0);
	for (int i = 0; i < nc; i++)
		v.c[i] = (uint64_t)db_value_int64(argv[1 + i], 0);
	v.handshake_ms = kind == STORE_PEER ? db_value_int64(argv[3], -1) : -1;
	v.flags = (sqlite3_value_type(argv[d]) != SQLITE_NULL ? STORE_F_DELTA : 0) |
		(db_value_int64(argv[d + 3], 0) ? STORE_F_RESET : 0) |
		(v.handshake_ms >= 0 ? STORE_F_HANDSHAKE : 0);
	v.dt_ms = db_value_int64(argv[d], 0);
	v.rx_delta = db_value_int64(argv[d + 1], 0);
	v.tx_delta = db_value_int64(argv[d + 2], 0);
	pack_append(&a->b, kind, &a->prev_id, &v);
}

static void sqlfn_agg_final(sqlite3_context *ctx)
{
	struct sqlfn_agg *a = sqlite3_aggregate_context(ctx, 0);
	if (a == NULL || a->b.len == 0)
		return; /* no rows: NULL */
	sqlite3_result_blob(ctx, a->b.data, (int)a->b.len, SQLITE_TRANSIENT);
	buf_free(&a->b);
}

static const char sqlfn_views_sql[] =
	"CREATE TEMP VIEW IF NOT EXISTS cpu_samples AS SELECT p.router_id, p.time_ms,"
	" v.id AS core, v.load, v.irq FROM store_polls p, store_values(p.cpu) v;"
	"CREATE TEMP VIEW IF NOT EXISTS iface_samples AS SELECT p.router_id, v.id AS iface_id,"
	" p.time_ms, v.rx_bytes, v.tx_bytes, v.rx_packets, v.tx_packets, v.rx_drops, v.tx_drops,"
	" v.dt_ms, v.rx_delta, v.tx_delta, v.reset, v.mtu, v.rx_errors, v.tx_errors, v.tx_queue_drops,"
	" v.running FROM store_polls p, store_values(p.ifaces) v;"
	"CREATE TEMP VIEW IF NOT EXISTS peer_samples AS SELECT p.router_id, v.id AS peer_id,"
	" p.time_ms, v.rx_bytes, v.tx_bytes, v.handshake_age_ms, v.dt_ms, v.rx_delta, v.tx_delta,"
	" v.reset FROM store_polls p, store_values(p.peers) v";

/* The function, the aggregates and the module; the views come once the schema is current. */
int sqlfn_register(sqlite3 *db)
{
	static const struct {
		const char *name;
		int argc;
	} aggs[] = {
		{ "store_pack_cpu", 2 },
		{ "store_pack_iface", 11 },
		{ "store_pack_peer", 8 },
	};
	int rc = sqlite3_create_module_v2(db, "store_values", &sqlfn_module, NULL, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof(aggs) / sizeof(aggs[0]); i++)
		rc = sqlite3_create_function_v2(db, aggs[i].name, aggs[i].argc,
			SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL, NULL, sqlfn_agg_step,
			sqlfn_agg_final, NULL);
	return rc;
}

int sqlfn_attach(sqlite3 *db)
{
	int rc = sqlfn_register(db);
	return rc == SQLITE_OK ? sqlite3_exec(db, sqlfn_views_sql, NULL, NULL, NULL) : rc;
}
