/* SPDX-License-Identifier: Apache-2.0 */
/* history_health: the health part of what the router page shows: the newest health reading of
 * a router (sensors, memory, disk) and each sensor's lowest and highest value over the page's
 * range, decoded from the polls rows' health BLOBs (pack.c). Read-only, like history.c. */
#include "config.h"
#include "store/history.h"
#include "store/store_int.h"
#include "lib/db.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_HEALTH_MAX_SENSORS 256

static const char history_health_sql_sensors[] =
	"SELECT id, name, unit FROM sensors WHERE router_id = ?1 ORDER BY id LIMIT 256";
/* The newest reading, wherever it is; then every reading of the range, oldest first. store_polls
 * reads oldest first: the newest is sought in the two hours to the last poll first (a bound it
 * takes), and only when they hold none in all the router's rows. */
static const char history_health_sql_newest[] =
	"SELECT time_ms, health FROM store_polls WHERE router_id = ?1 AND health IS NOT NULL"
	" AND time_ms >= coalesce((SELECT max(time_ms) FROM store_polls WHERE router_id = ?1"
	"  AND health IS NOT NULL AND time_ms >= (SELECT last_poll_ms - 7200000 FROM routers"
	"  WHERE id = ?1)), -9223372036854775807 - 1) ORDER BY time_ms DESC LIMIT 1";
static const char history_health_sql_range[] =
	"SELECT time_ms, health FROM store_polls WHERE router_id = ?1 AND time_ms >= ?2 AND time_ms < ?3"
	" AND health IS NOT NULL";

static int history_health_sensors(sqlite3 *db, history_t *h, int64_t rid, int64_t **ids, char **cause)
{
	sqlite3_stmt *q;
	if (history_prepare(db, history_health_sql_sensors, &rid, 1, &q, cause) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW && h->nsensors < HISTORY_HEALTH_MAX_SENSORS) {
		h->sensors = xreallocarray(h->sensors, h->nsensors + 1, sizeof(*h->sensors));
		*ids = xreallocarray(*ids, h->nsensors + 1, sizeof(**ids));
		(*ids)[h->nsensors] = sqlite3_column_int64(q, 0);
		h->sensors[h->nsensors++] = (struct history_sensor){ .name = db_col_str(q, 1),
			.unit = db_col_str(q, 2),
			.value = NAN,
			.min = NAN,
			.max = NAN,
			.v = xcalloc(h->nbuckets + 1, sizeof(double)) };
	}
	return history_done(db, q, rc == SQLITE_ROW ? SQLITE_DONE : rc, "sensors", cause);
}

static struct history_sensor *history_health_find(history_t *h, const int64_t *ids, int64_t id)
{
	for (size_t i = 0; i < h->nsensors; i++)
		if (ids[i] == id)
			return &h->sensors[i];
	return NULL;
}

/* A range reading d of sensor x at t: its min and max, and its bucket's sum (n counts). */
static void history_health_add(history_t *h, struct history_sensor *x, size_t *n, int64_t t, double d)
{
	x->min = isnan(x->min) || d < x->min ? d : x->min;
	x->max = isnan(x->max) || d > x->max ? d : x->max;
	if (h->bucket_ms <= 0 || t < h->from_ms || (size_t)((t - h->from_ms) / h->bucket_ms) >= h->nbuckets)
		return;
	size_t b = (size_t)((t - h->from_ms) / h->bucket_ms);
	x->v[b] += d;
	n[b]++;
}

/* One BLOB: the newest reading (newest = true) sets the values and sizes, else the ranges
 * (counts: nsensors rows of nbuckets). */
static void history_health_blob(
	history_t *h, const int64_t *ids, sqlite3_stmt *q, bool newest, size_t *counts)
{
	const uint8_t *p = sqlite3_column_blob(q, 1), *end = p + sqlite3_column_bytes(q, 1);
	int64_t sizes[4], prev_id = 0;
	struct store_val v;
	if (p == NULL || !pack_health_head_get(&p, end, sizes))
		return;
	if (newest) {
		h->health_ms = sqlite3_column_int64(q, 0);
		h->mem_free = sizes[0], h->mem_total = sizes[1];
		h->disk_free = sizes[2], h->disk_total = sizes[3];
	}
	while (p < end && pack_next(&p, end, STORE_HEALTH, &prev_id, &v)) {
		struct history_sensor *x = history_health_find(h, ids, v.id);
		double d = (double)v.value / 1000.0;
		if (x == NULL)
			continue;
		if (newest)
			x->value = d;
		else
			history_health_add(h, x, counts + (size_t)(x - h->sensors) * h->nbuckets,
				sqlite3_column_int64(q, 0), d);
	}
}

static int history_health_rows(sqlite3 *db, history_t *h, const int64_t *ids, const int64_t *args,
	bool newest, size_t *counts, char **cause)
{
	sqlite3_stmt *q;
	if (history_prepare(db, newest ? history_health_sql_newest : history_health_sql_range, args, 3, &q,
		    cause) < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		history_health_blob(h, ids, q, newest, counts);
	return history_done(db, q, rc, "health", cause);
}

int history_health(sqlite3 *db, struct history *h, int64_t rid, char **cause)
{
	int64_t *ids = NULL, args[3] = { rid, h->from_ms, h->to_ms };
	h->mem_free = h->mem_total = h->disk_free = h->disk_total = -1;
	int rc = history_health_sensors(db, h, rid, &ids, cause);
	size_t *counts = xcalloc(h->nsensors * h->nbuckets + 1, sizeof(*counts));
	if (rc == 0)
		rc = history_health_rows(db, h, ids, args, true, counts, cause);
	if (rc == 0)
		rc = history_health_rows(db, h, ids, args, false, counts, cause);
	for (size_t i = 0; i < h->nsensors; i++) { /* sums to means */
		const size_t *n = counts + i * h->nbuckets;
		for (size_t b = 0; b < h->nbuckets; b++)
			h->sensors[i].v[b] = n[b] ? h->sensors[i].v[b] / (double)n[b] : NAN;
	}
	free(counts);
	free(ids);
	return rc;
}
