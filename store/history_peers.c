/* SPDX-License-Identifier: Apache-2.0 */
/* history_peers: each peer's newest sample among the router's polls of the hour before its
 * newest poll with peers, for the router page and the history API. One pass, newest poll
 * first, over the packed blobs, that stops once every peer the router has is found (in the
 * newest poll, nearly always): linear in the peers, where a correlated max() per peer was
 * quadratic (issue 21 item 4). It must never write, nor answer more than HISTORY_PEERS_MAX
 * rows. */
#include "config.h"
#include "store/history.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_PEERS_MAX 5000 /* rows of the answer (the page says how many were left) */

static const char history_peers_sql_list[] =
	"SELECT id, interface, name, endpoint, allowed_address, disabled FROM peers"
	" WHERE router_id = ?1 ORDER BY interface, name";
/* Not past the router's last poll in poll order (routers.last_poll_ms): polls stamped by a wall
 * clock that went back since lie ahead of it, and are not the newest. store_polls reads oldest
 * first: the newest with peers is sought in the two hours to the last poll first, and only when
 * they hold none in all the router's rows (coalesce stops at the first). */
#define HISTORY_PEERS_LAST "(SELECT last_poll_ms FROM routers WHERE id = ?1)"
#define HISTORY_PEERS_MAX_SQL                                                              \
	"(SELECT max(time_ms) FROM store_polls WHERE router_id = ?1 AND peers IS NOT NULL" \
	" AND time_ms <= " HISTORY_PEERS_LAST
static const char history_peers_sql_polls[] =
	"SELECT time_ms, peers FROM store_polls WHERE router_id = ?1 AND peers IS NOT NULL"
	" AND time_ms <= " HISTORY_PEERS_LAST " AND time_ms >= coalesce(" HISTORY_PEERS_MAX_SQL
	" AND time_ms >= " HISTORY_PEERS_LAST " - 7200000), " HISTORY_PEERS_MAX_SQL ")) - 3600000"
	" ORDER BY time_ms DESC";

struct history_peers_slot { /* one of the router's peers, by id */
	int64_t id;
	size_t row; /* in h->peers, in the page's order */
	bool found;
};

static int history_peers_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct history_peers_slot *)a)->id,
		y = ((const struct history_peers_slot *)b)->id;
	return (x > y) - (x < y);
}

/* The router's peers in the page's order, and their ids sorted for the lookups. */
static int history_peers_list(
	sqlite3 *db, history_t *h, int64_t rid, struct history_peers_slot **slots, size_t *n, char **cause)
{
	sqlite3_stmt *q;
	if (history_prepare(db, history_peers_sql_list, &rid, 1, &q, cause) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		*slots = xreallocarray(*slots, *n + 1, sizeof(**slots));
		h->peers = xreallocarray(h->peers, *n + 1, sizeof(*h->peers));
		(*slots)[*n] = (struct history_peers_slot){ .id = sqlite3_column_int64(q, 0), .row = *n };
		h->peers[*n] = (struct history_peer){ .interface = db_col_str(q, 1),
			.name = db_col_str(q, 2),
			.endpoint = db_col_str(q, 3),
			.allowed = db_col_str(q, 4),
			.disabled = (int)db_col_int64(q, 5, -1),
			.time_ms = -1 };
		(*n)++;
	}
	if (*n > 1)
		qsort(*slots, *n, sizeof(**slots), history_peers_cmp);
	return history_done(db, q, rc, "peers", cause);
}

static double history_peers_bps(const struct store_val *v, int64_t delta)
{
	if (!(v->flags & STORE_F_DELTA) || v->dt_ms <= 0)
		return NAN;
	return (double)(uint64_t)delta * 8000.0 / (double)v->dt_ms;
}

/* One poll's blob: the peers not found yet take their values from it. Returns how many did. */
static size_t history_peers_blob(history_t *h, struct history_peers_slot *slots, size_t n, int64_t t,
	const uint8_t *p, const uint8_t *end)
{
	int64_t prev_id = 0;
	struct store_val v;
	size_t found = 0;
	if (p == NULL || p >= end || *p++ != STORE_PEER)
		return 0;
	while (p < end && pack_next(&p, end, STORE_PEER, &prev_id, &v)) {
		struct history_peers_slot key = { .id = v.id };
		struct history_peers_slot *s = bsearch(&key, slots, n, sizeof(*slots), history_peers_cmp);
		if (s == NULL || s->found)
			continue;
		s->found = true;
		found++;
		struct history_peer *x = &h->peers[s->row];
		x->time_ms = t;
		x->rx_bytes = v.c[0];
		x->tx_bytes = v.c[1];
		x->handshake_age_ms = v.handshake_ms;
		x->rx_bps = history_peers_bps(&v, v.rx_delta);
		x->tx_bps = history_peers_bps(&v, v.tx_delta);
	}
	return found;
}

/* Drops the peers no poll of the span had, keeping the order; then at most HISTORY_PEERS_MAX. */
static void history_peers_keep_found(history_t *h, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (h->peers[i].time_ms < 0 || k >= HISTORY_PEERS_MAX) {
			free(h->peers[i].interface), free(h->peers[i].name);
			free(h->peers[i].endpoint), free(h->peers[i].allowed);
			continue;
		}
		h->peers[k++] = h->peers[i];
	}
	h->npeers = k;
}

int history_peers(sqlite3 *db, history_t *h, int64_t rid, char **cause)
{
	struct history_peers_slot *slots = NULL;
	size_t n = 0, found = 0;
	sqlite3_stmt *q = NULL;
	int rc = history_peers_list(db, h, rid, &slots, &n, cause);
	if (rc == 0 && n > 0)
		rc = history_prepare(db, history_peers_sql_polls, &rid, 1, &q, cause);
	if (rc == 0 && q != NULL) {
		int step = SQLITE_DONE;
		while (found < n && (step = sqlite3_step(q)) == SQLITE_ROW) {
			const uint8_t *p = sqlite3_column_blob(q, 1);
			found += history_peers_blob(
				h, slots, n, sqlite3_column_int64(q, 0), p, p + sqlite3_column_bytes(q, 1));
		}
		rc = history_done(
			db, q, found == n || step == SQLITE_ROW ? SQLITE_DONE : step, "peers", cause);
	}
	history_peers_keep_found(h, n);
	free(slots);
	return rc;
}
