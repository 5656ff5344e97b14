/* SPDX-License-Identifier: Apache-2.0 */
/* rollfix: roll-up rows as a wgwatchd before schema 016 left them, of every column kind (cores
 * that come and go, NULL rates, counters past 2^63 stored negative, rates of wide sums clamped
 * to INT64_MAX), over three whole UTC days and a part of a fourth; and every roll-up row of a
 * database as text, to compare two. For rollstore_test and storemigrate_test. */
#ifndef WGWATCH_ROLLFIX_H
#define WGWATCH_ROLLFIX_H

#include "storefix.h"
#include "store/rollstore.h"

#define ROLLFIX_D0    (STOREFIX_T0 - STOREFIX_T0 % ROLLSTORE_SPAN_MS - 3 * ROLLSTORE_SPAN_MS)
#define ROLLFIX_FIRST (ROLLFIX_D0 + 12 * 3600000LL)                        /* the first bucket */
#define ROLLFIX_END   (ROLLFIX_D0 + 3 * ROLLSTORE_SPAN_MS + 6 * 3600000LL) /* after the last */

/* The rows, by SQL with ?1 = ROLLFIX_FIRST, ?2 = ROLLFIX_END. Router 1 has cores 0..2 (core 2
 * not every bucket); interface 5 every bucket, 7 (router 2) a few of the second day; peer 3
 * every bucket. */
static const char rollfix_sql[] =
	"INSERT INTO routers (id, name, first_seen_ms) VALUES (1, 'r1', 0), (2, 'r2', 0);"
	"INSERT INTO interfaces VALUES (5, 1, 'wg0', 'wg'), (6, 1, 'ether1', 'ether'), (7, 2, 'wg0', 'wg');"
	"INSERT INTO peers (id, router_id, interface, pkey, name) VALUES (3, 1, 'wg0', 'KEY=', 'site'),"
	" (4, 2, 'wg0', 'K2=', 'p');"
	"CREATE TEMP TABLE b AS WITH RECURSIVE s(t) AS (SELECT ?1 UNION ALL SELECT t + 300000 FROM s"
	" WHERE t + 300000 < ?2) SELECT t, t / 300000 AS k FROM s;"
	"INSERT INTO cpu_rollup SELECT 1, t, c.value, 10 - c.value, k % 1000, (k * 7) % 1000,"
	" 1000 - c.value FROM b, (SELECT 0 AS value UNION ALL SELECT 1 UNION ALL SELECT 2) c"
	" WHERE NOT (c.value = 2 AND k % 5 = 0);"
	"INSERT INTO iface_rollup SELECT 5, t, 10, CASE WHEN k % 7 = 0 THEN NULL ELSE k * 1000 END,"
	" CASE WHEN k % 7 = 0 THEN NULL WHEN k % 11 = 0 THEN 9223372036854775807 ELSE k * 1500 END,"
	" CASE WHEN k % 7 = 0 THEN NULL ELSE k % 300 END, CASE WHEN k % 7 = 0 THEN NULL ELSE 0 END,"
	" -9223372036854775807 + k * 3000, 9223372036854775807 - k FROM b;"
	"INSERT INTO iface_rollup SELECT 7, t, 1, NULL, NULL, NULL, NULL, 0, -1 FROM b"
	" WHERE t >= ?1 + 86400000 AND t < ?1 + 86400000 + 1800000;"
	"INSERT INTO peer_rollup SELECT 3, t, 9, (k * 13) % 100000, (k * 17) % 200000,"
	" CASE WHEN k % 3 = 0 THEN NULL ELSE -5 END, CASE WHEN k % 3 = 0 THEN NULL ELSE 0 END,"
	" k * 100000, k * 5 FROM b;"
	"DROP TABLE b";

/* Runs rollfix_sql on the database at path (made by the store beforehand). */
static inline void rollfix_fill(const char *path)
{
	sqlite3 *db = storefix_db(path);
	const char *sql = rollfix_sql;
	while (*sql != '\0') {
		sqlite3_stmt *q = NULL;
		CHECK(sqlite3_prepare_v2(db, sql, -1, &q, &sql) == SQLITE_OK);
		if (q == NULL) {
			if (*sql != '\0')
				fprintf(stderr, "rollfix: %s\n", sqlite3_errmsg(db));
			break;
		}
		if (sqlite3_bind_parameter_count(q) > 0) {
			sqlite3_bind_int64(q, 1, ROLLFIX_FIRST);
			sqlite3_bind_int64(q, 2, ROLLFIX_END);
		}
		CHECK_INT(sqlite3_step(q), SQLITE_DONE);
		sqlite3_finalize(q);
	}
	sqlite3_close(db);
}

/* Every row sql gives on the database at path appended to out as text, one line each (quote():
 * a NULL, an integer and a real all tell apart); the rows it gave. */
static inline int64_t rollfix_dump(const char *path, const char *sql, buf_t *out)
{
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	int64_t n = 0;
	char *wrapped = xasprintf("SELECT * FROM (%s)", sql);
	CHECK(sqlite3_prepare_v2(db, wrapped, -1, &q, NULL) == SQLITE_OK);
	if (q == NULL)
		fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
	while (q != NULL && sqlite3_step(q) == SQLITE_ROW) {
		for (int c = 0; c < sqlite3_column_count(q); c++) {
			int t = sqlite3_column_type(q, c);
			if (t == SQLITE_NULL)
				buf_puts(out, " NULL");
			else if (t == SQLITE_INTEGER)
				buf_printf(out, " %lld", (long long)sqlite3_column_int64(q, c));
			else
				buf_printf(out, " ?%s", (const char *)sqlite3_column_text(q, c));
		}
		buf_putc(out, '\n');
		n++;
	}
	sqlite3_finalize(q);
	free(wrapped);
	sqlite3_close(db);
	return n;
}

/* The three tables' rows, or the store_ tables' with prefix "store_", ordered, into out. */
static inline int64_t rollfix_all(const char *path, const char *prefix, const char *where, buf_t *out)
{
	static const char *const t[] = { "cpu_rollup", "iface_rollup", "peer_rollup" };
	int64_t n = 0;
	for (int i = 0; i < 3; i++) {
		char *sql = xasprintf("SELECT * FROM %s%s %s ORDER BY 1, 2, 3", prefix, t[i], where);
		n += rollfix_dump(path, sql, out);
		free(sql);
	}
	return n;
}

/* The hourly tier's rows (store_*_rollup_1h) that differ from the sums of their hour's 5-minute
 * rows (store_*_rollup; a rate's of the rows with both averages, as the history reads them), and the hours of those that have no hourly row: 0 when every hour is
 * what rollhour.c must make of them. On rows a read can see (the 5-minute tier not purged). */
static inline int64_t rollfix_hourly_wrong(const char *path)
{
	static const char sql[] =
		"SELECT (SELECT count(*) FROM (SELECT router_id AS id, bucket_ms - bucket_ms % 3600000 AS h,"
		" core, sum(n) AS n, min(load_min) AS mi, sum(load_avg * n) AS s, max(load_max) AS ma"
		" FROM store_cpu_rollup"
		" WHERE bucket_ms < (SELECT value FROM store_state WHERE key = 'rollup_1h_ms') GROUP BY 1, 2, 3) a LEFT JOIN store_cpu_rollup_1h b"
		" ON b.router_id = a.id AND b.bucket_ms = a.h AND b.core = a.core"
		" WHERE b.n IS NOT a.n OR b.load_min IS NOT a.mi OR b.load_sum IS NOT a.s OR b.load_max IS NOT a.ma)"
		" + (SELECT count(*) FROM (SELECT iface_id AS id, bucket_ms - bucket_ms % 3600000 AS h,"
		" max(bucket_ms) AS last, sum(n) AS n, sum((rx_rate_avg IS NOT NULL AND tx_rate_avg IS NOT NULL)) AS m,"
		" sum(CASE WHEN (rx_rate_avg IS NOT NULL AND tx_rate_avg IS NOT NULL) THEN rx_rate_avg END) AS rs,"
		" max(CASE WHEN (rx_rate_max IS NOT NULL AND tx_rate_max IS NOT NULL) THEN rx_rate_max END) AS rm,"
		" sum(CASE WHEN (rx_rate_avg IS NOT NULL AND tx_rate_avg IS NOT NULL) THEN tx_rate_avg END) AS ts,"
		" max(CASE WHEN (rx_rate_max IS NOT NULL AND tx_rate_max IS NOT NULL) THEN tx_rate_max END) AS tm"
		" FROM store_iface_rollup"
		" WHERE bucket_ms < (SELECT value FROM store_state WHERE key = 'rollup_1h_ms') GROUP BY 1, 2) a LEFT JOIN store_iface_rollup_1h b"
		" ON b.iface_id = a.id AND b.bucket_ms = a.h"
		" WHERE b.n IS NOT a.n OR b.m IS NOT a.m OR b.rx_rate_sum IS NOT a.rs OR b.rx_rate_max IS NOT a.rm"
		" OR b.tx_rate_sum IS NOT a.ts OR b.tx_rate_max IS NOT a.tm OR b.rx_bytes_end IS NOT"
		" (SELECT rx_bytes_end FROM store_iface_rollup WHERE iface_id = a.id AND bucket_ms = a.last))"
		" + (SELECT count(*) FROM (SELECT peer_id AS id, bucket_ms - bucket_ms % 3600000 AS h,"
		" sum(n) AS n, sum((rx_rate_avg IS NOT NULL AND tx_rate_avg IS NOT NULL)) AS m,"
		" sum(CASE WHEN (rx_rate_avg IS NOT NULL AND tx_rate_avg IS NOT NULL) THEN rx_rate_avg END) AS rs,"
		" sum(CASE WHEN (rx_rate_avg IS NOT NULL AND tx_rate_avg IS NOT NULL) THEN tx_rate_avg END) AS ts"
		" FROM store_peer_rollup"
		" WHERE bucket_ms < (SELECT value FROM store_state WHERE key = 'rollup_1h_ms') GROUP BY 1, 2) a LEFT JOIN store_peer_rollup_1h b"
		" ON b.peer_id = a.id AND b.bucket_ms = a.h"
		" WHERE b.n IS NOT a.n OR b.m IS NOT a.m OR b.rx_rate_sum IS NOT a.rs OR b.tx_rate_sum IS NOT a.ts)";
	sqlite3 *db = storefix_db(path);
	sqlite3_stmt *q = NULL;
	int64_t n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		n = sqlite3_column_int64(q, 0);
	else
		fprintf(stderr, "rollfix_hourly_wrong: %s\n", sqlite3_errmsg(db));
	sqlite3_finalize(q);
	sqlite3_close(db);
	return n;
}

#endif
