/* SPDX-License-Identifier: Apache-2.0 */
/* pollchunk_test: store/pollchunk.c. Polls rows the real store wrote (every column: cores with
 * and without irq, interfaces running or not, peers with and without a handshake, a counter
 * reset, a gap, failed polls, health, SNMP polls, cpu MHz, a monotonic clock that disagrees
 * with the wall clock) come back from their chunk byte for byte; hand-made rows with entries
 * out of id order come back with the same values in id order; what the layout cannot hold is
 * refused; every truncation and single-byte change of a chunk is refused or read without
 * reading past it (ASan runs it too). */
#include "pollfix.h"

/* The rows of r1 chunked into out; their BLOB bytes into *blob_bytes. */
static size_t pt_chunk_rows(sqlite3 *db, buf_t *out, size_t *blob_bytes)
{
	sqlite3_stmt *q = NULL;
	const char *why = NULL;
	struct pollchunk_row r;
	pollchunk_t *pc = pollchunk_new();
	CHECK(sqlite3_prepare_v2(db, POLLFIX_SQL, -1, &q, NULL) == SQLITE_OK);
	*blob_bytes = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		pollfix_row_of(q, &r);
		CHECK(pollchunk_add(pc, &r, &why) == 0);
		for (int b = 0; b < POLLCHUNK_NBLOB; b++)
			*blob_bytes += r.len[b];
	}
	sqlite3_finalize(q);
	size_t n = pollchunk_len(pc);
	pollchunk_encode(pc, out);
	pollchunk_free(pc);
	return n;
}

/* Every row of r1 from time `from` on as the chunk gives it back with the BLOBs of mask
 * (pollchunk_decode_some), past the earlier ones by pollchunk_seek, against the table's with the
 * others NULL; the rows compared. */
static size_t pt_compare_from(sqlite3 *db, const buf_t *chunk, unsigned mask, int64_t from)
{
	sqlite3_stmt *q = NULL;
	const char *why = NULL;
	struct pollchunk_row want, got;
	pollchunk_read_t *rd = pollchunk_decode_some(chunk->data, chunk->len, mask, &why);
	CHECK(rd != NULL);
	if (rd == NULL)
		return 0;
	if (from > INT64_MIN)
		pollchunk_seek(rd, from);
	CHECK(sqlite3_prepare_v2(db, POLLFIX_SQL, -1, &q, NULL) == SQLITE_OK);
	size_t same = 0, n = 0, rows = 0;
	while (sqlite3_step(q) == SQLITE_ROW) {
		pollfix_row_of(q, &want);
		if (want.time_ms < from)
			continue;
		rows++;
		if (pollchunk_next(rd, &got, &why) != 1)
			break;
		for (int b = 0; b < POLLCHUNK_NBLOB; b++)
			if (!(mask & (1u << b)))
				want.blob[b] = NULL, want.len[b] = 0;
		same += pollfix_row_eq(&want, &got);
		n++;
	}
	CHECK_INT(n, rows);
	CHECK_INT(same, rows);
	CHECK_INT(pollchunk_next(rd, &got, &why), 0);
	sqlite3_finalize(q);
	pollchunk_read_free(rd);
	return rows;
}

/* Every row of r1, from the first on. */
static void pt_compare(sqlite3 *db, const buf_t *chunk, size_t rows, unsigned mask)
{
	const char *why = NULL;
	pollchunk_read_t *rd = pollchunk_decode_some(chunk->data, chunk->len, mask, &why);
	CHECK(rd != NULL && pollchunk_rows(rd) == rows);
	pollchunk_read_free(rd);
	CHECK_INT(pt_compare_from(db, chunk, mask, INT64_MIN), rows);
}

static void test_store_rows(void)
{
	char *p = storefix_path("rows.db");
	pollfix_fill(p);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls WHERE err IS NOT NULL"), 4);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls WHERE health IS NOT NULL"), 44);
	sqlite3 *db = storefix_db(p);
	buf_t out;
	buf_init(&out);
	size_t blob_bytes, rows = pt_chunk_rows(db, &out, &blob_bytes);
	CHECK_INT(rows, POLLFIX_POLLS);
	pt_compare(db, &out, rows, (1u << POLLCHUNK_NBLOB) - 1);
	for (unsigned m = 0; m < (1u << POLLCHUNK_NBLOB) - 1; m++) /* a reader of fewer columns */
		pt_compare(db, &out, rows, m);
	printf("  %zu rows: BLOBs %zu bytes, chunk %zu bytes\n", rows, blob_bytes, out.len);
	CHECK(out.len * 2 < blob_bytes);
	buf_free(&out);
	sqlite3_close(db);
	free(p);
}

/* A read that starts inside the chunk (pollchunk_seek) gives the rows a read from the start
 * gives from there on: at each row's time and just after it, at the first and past the last,
 * with every BLOB and with the counted ones alone (their deltas predicted from rows not made). */
static void test_seek(void)
{
	char *p = storefix_path("rows.db");
	sqlite3 *db = storefix_db(p);
	buf_t out;
	buf_init(&out);
	size_t blob_bytes, rows = pt_chunk_rows(db, &out, &blob_bytes);
#define PT_R1 "FROM polls WHERE router_id = (SELECT id FROM routers WHERE name = 'r1')"
	int64_t t0 = storefix_int(p, "SELECT min(time_ms) " PT_R1);
	int64_t t1 = storefix_int(p, "SELECT max(time_ms) " PT_R1);
	unsigned masks[] = { (1u << POLLCHUNK_NBLOB) - 1, 1u << POLLCHUNK_IFACES | 1u << POLLCHUNK_PEERS };
	size_t compared = 0;
	for (size_t m = 0; m < 2; m++) {
		CHECK_INT(pt_compare_from(db, &out, masks[m], t0 - 1), rows);
		CHECK_INT(pt_compare_from(db, &out, masks[m], t1 + 1), 0);
		for (int64_t k = 0; k < (int64_t)rows; k += 1 + k / 16) {
			char *sql = xasprintf("SELECT time_ms " PT_R1 " ORDER BY time_ms LIMIT 1 OFFSET %lld",
				(long long)k);
			int64_t t = storefix_int(p, sql);
			free(sql);
			CHECK_INT(pt_compare_from(db, &out, masks[m], t), rows - (size_t)k);
			compared += pt_compare_from(db, &out, masks[m], t + 1);
		}
	}
	CHECK(compared > rows);
	buf_free(&out);
	sqlite3_close(db);
	free(p);
}

/* A peers BLOB of entries ids (in that order), each with counters from base. */
static void pt_peers(buf_t *b, const int64_t *ids, size_t n, uint64_t base, int flags)
{
	int64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		struct store_val v = { .id = ids[i],
			.c = { base + (uint64_t)ids[i], base * 2 },
			.flags = flags,
			.dt_ms = 777,
			.rx_delta = -5,
			.tx_delta = INT64_MAX,
			.handshake_ms = 12 };
		pack_append(b, STORE_PEER, &prev, &v);
	}
}

static void test_hand_rows(void)
{
	static const int64_t order[] = { 9, 3, 70000 };
	buf_t peers, empty, out;
	const char *why = NULL;
	buf_init(&peers);
	buf_init(&empty);
	buf_init(&out);
	pt_peers(&peers, order, 3, UINT64_MAX - 2, STORE_F_DELTA | STORE_F_RESET | STORE_F_HANDSHAKE);
	buf_putc(&empty, STORE_IFACE); /* an ifaces BLOB of no entries */
	struct pollchunk_row r = { .time_ms = -5, .duration_ms = -1, .source = "", .error = "é\tx" };
	r.blob[POLLCHUNK_PEERS] = peers.data;
	r.len[POLLCHUNK_PEERS] = peers.len;
	r.blob[POLLCHUNK_IFACES] = empty.data;
	r.len[POLLCHUNK_IFACES] = empty.len;
	pollchunk_t *pc = pollchunk_new();
	CHECK(pollchunk_add(pc, &r, &why) == 0);
	CHECK(pollchunk_add(pc, &r, &why) == 0); /* the same time again: kept, in order */
	pollchunk_encode(pc, &out);
	pollchunk_free(pc);
	pollchunk_read_t *rd = pollchunk_decode(out.data, out.len, &why);
	CHECK(rd != NULL);
	struct pollchunk_row got;
	for (int n = 0; rd != NULL && n < 2; n++) {
		CHECK_INT(pollchunk_next(rd, &got, &why), 1);
		CHECK(got.time_ms == -5 && got.duration_ms == -1 && pollfix_str_eq(got.source, "") &&
			got.err == NULL);
		CHECK(pollfix_str_eq(got.error, "é\tx") && got.blob[POLLCHUNK_CPU] == NULL && !got.have_mhz);
		CHECK(got.len[POLLCHUNK_IFACES] == 1 && got.len[POLLCHUNK_PEERS] == peers.len);
		const uint8_t *q = (const uint8_t *)got.blob[POLLCHUNK_PEERS] + 1,
			      *end = q + got.len[POLLCHUNK_PEERS] - 1;
		int64_t prev = 0, want[] = { 3, 9, 70000 };
		struct store_val v;
		for (int i = 0; i < 3; i++) { /* in id order, each as it went in */
			CHECK(pack_next(&q, end, STORE_PEER, &prev, &v));
			CHECK(v.id == want[i] && v.c[0] == UINT64_MAX - 2 + (uint64_t)want[i] &&
				v.c[1] == (UINT64_MAX - 2) * 2);
			CHECK(v.dt_ms == 777 && v.rx_delta == -5 && v.tx_delta == INT64_MAX &&
				v.handshake_ms == 12);
			CHECK(v.flags == (STORE_F_DELTA | STORE_F_RESET | STORE_F_HANDSHAKE));
		}
		CHECK(q == end);
	}
	pollchunk_read_free(rd);
	buf_free(&peers);
	buf_free(&empty);
	buf_free(&out);
}

/* A row with one peers BLOB of one entry with these flags; pollchunk_add's answer. */
static int pt_add_flags(int64_t t, enum store_kind kind, int flags, size_t cut)
{
	buf_t b;
	const char *why = NULL;
	int64_t prev = 0;
	buf_init(&b);
	struct store_val v = { .id = 4, .flags = flags };
	pack_append(&b, kind, &prev, &v);
	struct pollchunk_row r = { .time_ms = t };
	int i = kind == STORE_IFACE ? POLLCHUNK_IFACES : POLLCHUNK_PEERS;
	r.blob[i] = b.data;
	r.len[i] = b.len - cut;
	pollchunk_t *pc = pollchunk_new();
	struct pollchunk_row first = { .time_ms = 100 };
	CHECK(pollchunk_add(pc, &first, &why) == 0);
	int rc = pollchunk_add(pc, &r, &why);
	pollchunk_free(pc);
	buf_free(&b);
	return rc;
}

static void test_refused(void)
{
	CHECK_INT(pt_add_flags(200, STORE_PEER, STORE_F_HANDSHAKE, 0), 0);
	CHECK_INT(pt_add_flags(200, STORE_PEER, STORE_F_LINK, 0), -1);       /* never on a peer */
	CHECK_INT(pt_add_flags(200, STORE_IFACE, STORE_F_RUNNING, 0), -1);   /* without LINK */
	CHECK_INT(pt_add_flags(200, STORE_IFACE, STORE_F_HANDSHAKE, 0), -1); /* never on an interface */
	CHECK_INT(pt_add_flags(200, STORE_IFACE, 64, 0), -1);                /* unknown */
	CHECK_INT(pt_add_flags(200, STORE_IFACE, STORE_F_LINK, 1), -1);      /* truncated */
	CHECK_INT(pt_add_flags(99, STORE_PEER, 0, 0), -1);                   /* before the last */
	const char *why = NULL;
	CHECK(pollchunk_decode("", 0, &why) == NULL);
	pollchunk_t *pc = pollchunk_new();
	buf_t out;
	buf_init(&out);
	pollchunk_encode(pc, &out); /* no rows: not a chunk */
	CHECK(pollchunk_decode(out.data, out.len, &why) == NULL);
	pollchunk_free(pc);
	buf_free(&out);
	/* fuzz_pollchunk's find: a poll without its duration, which pollchunk_add always writes,
	 * was read from an unset slot; now the walk stops there, malformed */
	static const uint8_t nodur[] = { 0x01, 0x03, 0x04, 0x72, 0x65, 0x73, 0x74, 0x07, 0x74, 0x69, 0x6d,
		0x65, 0x6f, 0x75, 0x72, 0x09, 0x7d, 0x57, 0x6d, 0x65, 0x64, 0x20, 0x30, 0x75, 0x74, 0x01,
		0x03, 0xfe, 0xf9, 0x62, 0xe0, 0xd4, 0x03, 0x00, 0x02, 0x05, 0x02, 0x00, 0x08, 0x07, 0x00,
		0x00, 0x05, 0x00, 0x01 };
	pollchunk_read_t *rd = pollchunk_decode(nodur, sizeof(nodur), &why);
	struct pollchunk_row r;
	int rc = 1;
	while (rd != NULL && (rc = pollchunk_next(rd, &r, &why)) == 1)
		;
	CHECK(rd != NULL && rc == -1);
	pollchunk_read_free(rd);
}

/* Every row of a chunk read, or refused; counts what was read. */
static size_t pt_read_all(const uint8_t *p, size_t len)
{
	const char *why = NULL;
	struct pollchunk_row r;
	size_t n = 0;
	pollchunk_read_t *rd = pollchunk_decode(p, len, &why);
	while (rd != NULL && pollchunk_next(rd, &r, &why) == 1)
		n++;
	pollchunk_read_free(rd);
	return n;
}

static void test_damage(void)
{
	char *p = storefix_path("rows.db");
	sqlite3 *db = storefix_db(p);
	buf_t out;
	buf_init(&out);
	size_t blob_bytes, rows = pt_chunk_rows(db, &out, &blob_bytes);
	sqlite3_close(db);
	free(p);
	CHECK_INT(pt_read_all((const uint8_t *)out.data, out.len), rows);
	uint8_t *copy = xmalloc(out.len);
	for (size_t n = 0; n < out.len; n += 1 + n / 64) /* truncations: never a whole chunk */
		CHECK(pt_read_all((const uint8_t *)out.data, n) < rows || n == out.len);
	for (size_t i = 0; i < out.len; i += 1 + i / 128)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(copy, out.data, out.len);
			copy[i] ^= (uint8_t)(1u << bit);
			pt_read_all(copy, out.len); /* refused or read: never past it */
		}
	free(copy);
	buf_free(&out);
}

int main(void)
{
	if (storefix_begin("pollchunk_test") < 0)
		return 99;
	test_store_rows();
	test_seek();
	test_hand_rows();
	test_refused();
	test_damage();
	return unitfs_end(unit_done("pollchunk_test"));
}
