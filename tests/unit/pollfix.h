/* SPDX-License-Identifier: Apache-2.0 */
/* pollfix: the chunk tests' shared fixture (pollchunk_test, chunkstore_test): an hour of polls of
 * router r1 with every column kind a polls row has, and r2's plain polls between them, written
 * through the real store; a polls row read into a pollchunk_row; rows compared column for
 * column. Header-only, for tests (CHECK counts in the including file); never linked into
 * wgwatchd. */
#ifndef WGWATCH_TESTS_POLLFIX_H
#define WGWATCH_TESTS_POLLFIX_H

#include "storefix.h"
#include "store/pollchunk.h"

#define POLLFIX_POLLS 180 /* an hour of 20-second polls */

static inline sample_t *pollfix_poll(int k)
{
	int64_t t = STOREFIX_T0 + (int64_t)k * 20000;
	sample_t *s = storefix_sample(
		"r1", t, "7.16", "7.16", k >= 100 ? (k - 100) * 20000 + 500 : 5000000 + k * 20000);
	s->mono_ms = 900000 + (int64_t)k * 20000 + (k % 7 == 3 ? 13 : 0); /* dt_ms != wall difference */
	s->source = k % 50 == 49 ? "snmp" : "rest";
	s->duration_ms = 40 + k % 9;
	if (k % 37 == 36) {
		sample_fail(s, SAMPLE_ERR_TIMEOUT, "timed out after %d ms", 5000 + k);
		return s;
	}
	s->cpu_freq_mhz = k % 3 ? 1400 : 0;
	sample_set_cores(s, 4);
	for (size_t c = 0; c < s->ncores; c++) {
		s->cores[c].load = (double)((k * 37 + (int)c * 101) % 1000) / 1000.0;
		s->cores[c].irq = c == 2 ? NAN : 0.01 * (double)(k % 5);
	}
	for (int i = 0; i < 3; i++) {
		if (i == 2 && k >= 60 && k < 70)
			continue; /* a gap */
		struct sample_iface *f = sample_add_iface(s);
		f->name = xasprintf("if%d", i);
		f->type = xstrdup(i == 1 ? "ether" : "wg");
		f->rx_bytes = (i == 1 && k >= 120 ? 0 : (UINT64_MAX - 3000000)) +
			(uint64_t)k * 17000 * (uint64_t)(i + 1);
		f->tx_bytes = (uint64_t)k * (uint64_t)(300 + k % 11);
		f->rx_packets = (uint64_t)k * 12;
		f->tx_packets = (uint64_t)k * 9;
		f->rx_drops = (uint64_t)k / 30;
		f->tx_errors = (uint64_t)k / 40;
		f->mtu = i == 1 ? 1500 : 1420;
		f->running = !(i == 0 && k % 25 == 0);
	}
	for (int i = 0; i < 3; i++) {
		struct sample_peer *pe = sample_add_peer(s);
		pe->interface = sample_strdup(s, "if0");
		pe->public_key = xasprintf("KEY%d=", i);
		pe->peer = xasprintf("p%d", i);
		pe->rx_bytes = (uint64_t)k * (uint64_t)(50 * i + k % 5);
		pe->tx_bytes = (uint64_t)k * (uint64_t)(20 * i);
		pe->last_handshake_ms = i == 2 ? -1 : 1000 * (k % 90);
	}
	s->have_peers = true;
	if (k % 4 == 0) {
		s->health_fresh = true;
		s->mem_free = 1000000 - k;
		s->mem_total = 1 << 30;
		s->disk_free = k % 8 ? 5000000 : -1;
		s->disk_total = 16 << 20;
		sample_add_sensor(s, "cpu-temperature", SAMPLE_UNIT_CELSIUS, 40.5 + k % 3);
		sample_add_sensor(s, "board-temperature", SAMPLE_UNIT_CELSIUS, -3.25);
	}
	return s;
}

static inline void pollfix_row_of(sqlite3_stmt *q, struct pollchunk_row *r)
{
	*r = (struct pollchunk_row){ .time_ms = sqlite3_column_int64(q, 0),
		.duration_ms = sqlite3_column_int64(q, 1) };
	r->source = (const char *)sqlite3_column_text(q, 2);
	r->err = (const char *)sqlite3_column_text(q, 3);
	r->error = (const char *)sqlite3_column_text(q, 4);
	r->have_mhz = sqlite3_column_type(q, 5) != SQLITE_NULL;
	r->cpu_mhz = sqlite3_column_int64(q, 5);
	for (int b = 0; b < POLLCHUNK_NBLOB; b++) {
		r->blob[b] = sqlite3_column_blob(q, 6 + b);
		r->len[b] = (size_t)sqlite3_column_bytes(q, 6 + b);
	}
}

static inline bool pollfix_str_eq(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static inline bool pollfix_row_eq(const struct pollchunk_row *a, const struct pollchunk_row *b)
{
	bool eq = a->time_ms == b->time_ms && a->duration_ms == b->duration_ms &&
		pollfix_str_eq(a->source, b->source) && pollfix_str_eq(a->err, b->err) &&
		pollfix_str_eq(a->error, b->error) && a->have_mhz == b->have_mhz &&
		(!a->have_mhz || a->cpu_mhz == b->cpu_mhz);
	for (int i = 0; i < POLLCHUNK_NBLOB; i++)
		eq = eq && (a->blob[i] == NULL) == (b->blob[i] == NULL) && a->len[i] == b->len[i] &&
			(a->len[i] == 0 || memcmp(a->blob[i], b->blob[i], a->len[i]) == 0);
	return eq;
}

#define POLLFIX_SQL                                                                                       \
	"SELECT time_ms, duration_ms, source, err, error, cpu_mhz, cpu, ifaces, peers, health FROM polls" \
	" WHERE router_id = (SELECT id FROM routers WHERE name = 'r1') ORDER BY time_ms"

static inline void pollfix_flat_str(buf_t *b, const char *s)
{
	buf_printf(b, "%zd:", s ? (ssize_t)strlen(s) : (ssize_t)-1);
	if (s)
		buf_puts(b, s);
}

/* Row r appended to b as bytes, every column. */
static inline void pollfix_flat(buf_t *b, const struct pollchunk_row *r)
{
	buf_printf(b, "%lld,%lld,%d,%lld,", (long long)r->time_ms, (long long)r->duration_ms, r->have_mhz,
		(long long)(r->have_mhz ? r->cpu_mhz : 0));
	pollfix_flat_str(b, r->source);
	pollfix_flat_str(b, r->err);
	pollfix_flat_str(b, r->error);
	for (int i = 0; i < POLLCHUNK_NBLOB; i++) {
		buf_printf(b, "%zd:", r->blob[i] ? (ssize_t)r->len[i] : (ssize_t)-1);
		if (r->blob[i] != NULL)
			buf_append(b, r->blob[i], r->len[i]);
	}
	buf_putc(b, '\n');
}

/* POLLFIX_POLLS polls of r1 and r2 written to a new store at path. */
static inline void pollfix_fill(const char *path)
{
	store_t *st = storefix_open(path);
	for (int k = 0; k < POLLFIX_POLLS; k++) {
		store_submit(st, pollfix_poll(k));
		store_submit(st, storefix_sample("r2", STOREFIX_T0 + k * 20000 + 5, "7.16", "7.16", 1000));
	}
	store_flush(st);
	store_close(st);
}

#endif
