/* SPDX-License-Identifier: Apache-2.0 */
/* density_export: every value a wgwatch database holds in its polls rows, written as OpenMetrics
 * (one sample per value, at the poll's time) for `promtool tsdb create-blocks-from openmetrics`,
 * and where the bytes of the packed BLOBs go, as JSON on stdout (bench/density). Derived values
 * (deltas, dt_ms, reset flags) are not exported: Prometheus derives them from the counters.
 * --only FAMILY,... writes those families alone (bench/capacitybench.py: the WireGuard byte
 * counters). Opens the database read-only and never writes it. Includes store_int.h to decode
 * the BLOBs with the store's own pack_next. Also chunks the rows themselves, every column, one
 * chunk a router and hour (store/pollchunk.c, the chunks table's row format), and reads each
 * chunk back against its rows. */
#include "config.h"
#include "store/store_int.h"
#include "store/chunk.h"
#include "store/pollchunk.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum de_fam {
	DE_DURATION,
	DE_CPU_MHZ,
	DE_LOAD,
	DE_IRQ,
	DE_IF_C0,                   /* 6 interface counters, in store_val.c's order */
	DE_IF_LINK0 = DE_IF_C0 + 6, /* mtu, rx/tx errors, tx-queue-drop */
	DE_IF_RUNNING = DE_IF_LINK0 + 4,
	DE_PEER_RX,
	DE_PEER_TX,
	DE_PEER_HANDSHAKE,
	DE_SIZE0, /* memory free/total, disk free/total */
	DE_SENSOR = DE_SIZE0 + 4,
	DE_NFAM
};

static const char *const de_names[DE_NFAM] = {
	"wgwatch_poll_duration_ms",
	"wgwatch_cpu_mhz",
	"wgwatch_cpu_load_permille",
	"wgwatch_cpu_irq_permille",
	"wgwatch_iface_rx_bytes",
	"wgwatch_iface_tx_bytes",
	"wgwatch_iface_rx_packets",
	"wgwatch_iface_tx_packets",
	"wgwatch_iface_rx_drops",
	"wgwatch_iface_tx_drops",
	"wgwatch_iface_mtu",
	"wgwatch_iface_rx_errors",
	"wgwatch_iface_tx_errors",
	"wgwatch_iface_tx_queue_drops",
	"wgwatch_iface_running",
	"wgwatch_peer_rx_bytes",
	"wgwatch_peer_tx_bytes",
	"wgwatch_peer_handshake_age_ms",
	"wgwatch_memory_free_bytes",
	"wgwatch_memory_total_bytes",
	"wgwatch_disk_free_bytes",
	"wgwatch_disk_total_bytes",
	"wgwatch_sensor_milli",
};

/* Bytes of the packed BLOBs by what they hold, and what two other encodings would take. */
enum de_part {
	DE_B_HEAD,    /* kind bytes, entry ids and flags */
	DE_B_CPU,     /* loads and irqs */
	DE_B_DELTA,   /* dt_ms, rx_delta, tx_delta: derived */
	DE_B_IFCOUNT, /* interface counters as read */
	DE_B_IFLINK,  /* mtu, errors, tx-queue-drop */
	DE_B_PEERCNT, /* peer counters as read */
	DE_B_HANDSHAKE,
	DE_B_HEALTH,
	DE_B_IFCOUNT_D, /* projection: interface counters as zigzag deltas from the series' last */
	DE_B_PEERCNT_D, /* projection: peer counters likewise */
	DE_B_IFLINK_D,  /* projection: link values likewise */
	DE_NPART
};

static const char *const de_parts[DE_NPART] = { "head", "cpu", "deltas", "iface_counters", "iface_link",
	"peer_counters", "handshake", "health", "iface_counters_as_deltas", "peer_counters_as_deltas",
	"iface_link_as_deltas" };

struct de_prev { /* the last counters of one interface or peer, for the projections */
	bool seen;
	uint64_t c[6], link[4];
};

/* Issue 38's per-router chunks (store/chunk.h) built from the same values: each router's polls
 * cut into chunks of DE_CHUNK, every value of a poll put in its series' column (a series id:
 * the family and labels, numbered in the order first seen). Their encoded bytes are the
 * figure; the store does not keep them yet. */
#define DE_CHUNK 120

struct de_key { /* a series' hash and its number */
	uint64_t key, id;
};

struct de_chunks {
	struct de_key *k;
	size_t cap, used;
	chunk_t *open; /* the current router's chunk */
	int64_t router;
	buf_t out;
	uint64_t bytes, chunks;
};

/* The rows chunked a router and hour; each chunk's rows kept as bytes (de_rows_flat) to compare
 * with what the chunk gives back. */
struct de_rows {
	pollchunk_t *open;
	int64_t router, hour;
	buf_t out, want, got;
	uint64_t bytes, chunks, rows, refused, differ;
	double encode_s, decode_s; /* CPU seconds */
};

struct de {
	sqlite3 *db;
	struct de_chunks ch;
	struct de_rows rw;
	FILE *fam[DE_NFAM];
	bool skip[DE_NFAM]; /* not asked for (--only) */
	uint64_t count[DE_NFAM];
	uint64_t bytes[DE_NPART];
	uint64_t blob_bytes[4], polls;
	uint64_t chunked;                         /* the chunks' bytes, when all is read */
	char **router, **iface, **peer, **sensor; /* label sets by id, escaped */
	int64_t nrouter, niface, npeer, nsensor;
	struct de_prev *iprev, *pprev;
};

static size_t de_vlen(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

static size_t de_zlen(int64_t v)
{
	return de_vlen(((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static uint64_t de_hash(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ULL;
	return h;
}

/* The number of series key, given when first seen. */
static uint64_t de_chunk_id(struct de_chunks *c, uint64_t key)
{
	if (2 * (c->used + 1) > c->cap) {
		struct de_key *old = c->k;
		size_t ocap = c->cap;
		c->cap = ocap ? 2 * ocap : 4096;
		c->k = xcalloc(c->cap, sizeof(*c->k));
		for (size_t i = 0; i < ocap; i++) {
			size_t j = old[i].key & (c->cap - 1);
			while (old[i].key != 0 && c->k[j].key != 0)
				j = (j + 1) & (c->cap - 1);
			if (old[i].key != 0)
				c->k[j] = old[i];
		}
		free(old);
	}
	size_t i = key & (c->cap - 1);
	while (c->k[i].key != 0 && c->k[i].key != key)
		i = (i + 1) & (c->cap - 1);
	if (c->k[i].key == 0)
		c->k[i] = (struct de_key){ .key = key, .id = c->used++ };
	return c->k[i].id;
}

/* One value of series (f, r, l) into the open chunk. */
static void de_chunk_value(struct de_chunks *c, int f, const char *r, const char *l, uint64_t v)
{
	uint64_t key = de_hash(de_hash(0xcbf29ce484222325ULL ^ (uint64_t)(f + 1), r), l) | 1;
	if (c->open != NULL && chunk_put(c->open, de_chunk_id(c, key), v) != 0)
		fprintf(stderr, "density_export: a value the chunk refused (series %s %s)\n", r, l ? l : "");
}

/* The open chunk encoded and counted. */
static void de_chunk_close(struct de_chunks *c)
{
	if (c->open == NULL)
		return;
	buf_reset(&c->out);
	chunk_encode(c->open, &c->out);
	c->bytes += c->out.len;
	c->chunks++;
	chunk_free(c->open);
	c->open = NULL;
}

/* A poll of router id at t: a new chunk for a new router or a full one. */
static void de_chunk_poll(struct de_chunks *c, int64_t id, int64_t t)
{
	if (c->open != NULL && (id != c->router || chunk_len(c->open) == DE_CHUNK))
		de_chunk_close(c);
	if (c->open == NULL)
		c->open = chunk_new();
	c->router = id;
	if (chunk_poll(c->open, t) != 0) {
		de_chunk_close(c); /* time went back: a chunk of its own */
		c->open = chunk_new();
		chunk_poll(c->open, t);
	}
}

static double de_cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void de_flat_str(buf_t *b, const char *s)
{
	buf_printf(b, "%zd:", s ? (ssize_t)strlen(s) : (ssize_t)-1);
	if (s)
		buf_puts(b, s);
}

/* Row r as bytes, every column. */
static void de_rows_flat(buf_t *b, const struct pollchunk_row *r)
{
	buf_printf(b, "%" PRId64 ",%" PRId64 ",%d,%" PRId64 ",", r->time_ms, r->duration_ms, r->have_mhz,
		r->have_mhz ? r->cpu_mhz : 0);
	de_flat_str(b, r->source);
	de_flat_str(b, r->err);
	de_flat_str(b, r->error);
	for (int i = 0; i < POLLCHUNK_NBLOB; i++) {
		buf_printf(b, "%zd:", r->blob[i] ? (ssize_t)r->len[i] : (ssize_t)-1);
		if (r->blob[i] != NULL)
			buf_append(b, r->blob[i], r->len[i]);
	}
}

/* The open chunk encoded, counted, decoded and compared with its rows. */
static void de_rows_close(struct de_rows *w)
{
	const char *why = NULL;
	struct pollchunk_row r;
	if (w->open == NULL)
		return;
	double t0 = de_cpu_s();
	buf_reset(&w->out);
	pollchunk_encode(w->open, &w->out);
	double t1 = de_cpu_s();
	pollchunk_read_t *rd = pollchunk_decode(w->out.data, w->out.len, &why);
	buf_reset(&w->got);
	while (rd != NULL && pollchunk_next(rd, &r, &why) == 1)
		de_rows_flat(&w->got, &r);
	pollchunk_read_free(rd);
	w->encode_s += t1 - t0;
	w->decode_s += de_cpu_s() - t1;
	w->differ += w->got.len != w->want.len || memcmp(w->got.data, w->want.data, w->got.len) != 0;
	w->bytes += w->out.len;
	w->chunks++;
	pollchunk_free(w->open);
	w->open = NULL;
	buf_reset(&w->want);
}

/* Row r of router id into its hour's chunk. */
static void de_rows_add(struct de_rows *w, int64_t id, const struct pollchunk_row *r)
{
	const char *why = NULL;
	int64_t hour = r->time_ms / 3600000 - (r->time_ms % 3600000 < 0);
	if (w->open != NULL && (id != w->router || hour != w->hour))
		de_rows_close(w);
	if (w->open == NULL)
		w->open = pollchunk_new();
	w->router = id;
	w->hour = hour;
	double t0 = de_cpu_s();
	int rc = pollchunk_add(w->open, r, &why);
	w->encode_s += de_cpu_s() - t0;
	if (rc < 0) {
		fprintf(stderr, "density_export: a row the chunk refused: %s\n", why);
		w->refused++;
		pollchunk_free(w->open); /* the hour stays rows: not counted */
		w->open = NULL;
		buf_reset(&w->want);
		return;
	}
	de_rows_flat(&w->want, r);
	w->rows++;
}

/* The row's columns as pollchunk takes them (the query of main). */
static void de_rows_row(struct de *d, sqlite3_stmt *q)
{
	struct pollchunk_row r = { .time_ms = sqlite3_column_int64(q, 1),
		.duration_ms = sqlite3_column_int64(q, 2) };
	r.have_mhz = sqlite3_column_type(q, 3) != SQLITE_NULL;
	r.cpu_mhz = sqlite3_column_int64(q, 3);
	for (int b = 0; b < POLLCHUNK_NBLOB; b++) {
		r.blob[b] = sqlite3_column_blob(q, 4 + b);
		r.len[b] = (size_t)sqlite3_column_bytes(q, 4 + b);
	}
	r.source = (const char *)sqlite3_column_text(q, 8);
	r.err = (const char *)sqlite3_column_text(q, 9);
	r.error = (const char *)sqlite3_column_text(q, 10);
	de_rows_add(&d->rw, sqlite3_column_int64(q, 0), &r);
}

/* s with OpenMetrics label escapes, freshly allocated. */
static char *de_escape(const char *s)
{
	size_t n = strlen(s);
	char *o = xmalloc(2 * n + 1), *q = o;
	for (; *s; s++) {
		if (*s == '"' || *s == '\\' || *s == '\n')
			*q++ = '\\';
		*q++ = *s == '\n' ? 'n' : *s;
	}
	*q = '\0';
	return o;
}

/* Label sets by id from sql: id, then ncols pairs of label value and label name. */
static char **de_labels(sqlite3 *db, const char *sql, int ncols, int64_t *n)
{
	sqlite3_stmt *q;
	char **v = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) != SQLITE_OK) {
		fprintf(stderr, "density_export: %s: %s\n", sql, sqlite3_errmsg(db));
		exit(1);
	}
	while (sqlite3_step(q) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(q, 0);
		char buf[1024];
		size_t len = 0;
		if (id < 0 || id > 10000000)
			continue;
		if (id >= *n) {
			v = xreallocarray(v, (size_t)id + 1, sizeof(*v));
			memset(v + *n, 0, (size_t)(id + 1 - *n) * sizeof(*v));
			*n = id + 1;
		}
		for (int i = 1; i <= ncols; i++) {
			const char *val = (const char *)sqlite3_column_text(q, 2 * i - 1);
			char *e = de_escape(val ? val : "");
			const char *name = (const char *)sqlite3_column_text(q, 2 * i);
			len += (size_t)snprintf(
				buf + len, sizeof(buf) - len, "%s%s=\"%s\"", len ? "," : "", name, e);
			free(e);
			if (len >= sizeof(buf))
				len = sizeof(buf) - 1;
		}
		free(v[id]);
		v[id] = xstrdup(buf);
	}
	sqlite3_finalize(q);
	return v;
}

static const char *de_label(char **v, int64_t n, int64_t id)
{
	return id >= 0 && id < n && v[id] ? v[id] : "id=\"unknown\"";
}

static void de_emit(struct de *d, enum de_fam f, const char *r, const char *l, int64_t t, uint64_t v)
{
	if (d->skip[f])
		return;
	fprintf(d->fam[f], "%s{%s%s%s} %" PRIu64 " %" PRId64 ".%03" PRId64 "\n", de_names[f], r, l ? "," : "",
		l ? l : "", v, t / 1000, t % 1000);
	d->count[f]++;
	de_chunk_value(&d->ch, f, r, l, v);
}

static void de_cpu(struct de *d, const char *r, int64_t t, const uint8_t *p, const uint8_t *end)
{
	int64_t prev = 0;
	struct store_val v;
	char l[32];
	d->bytes[DE_B_HEAD]++;
	for (p++; p < end;) {
		const uint8_t *s = p;
		if (!pack_next(&p, end, STORE_CPU, &prev, &v))
			break;
		d->bytes[DE_B_CPU] += (size_t)(p - s);
		snprintf(l, sizeof(l), "core=\"%" PRId64 "\"", v.id);
		de_emit(d, DE_LOAD, r, l, t, (uint64_t)v.load);
		if (v.irq >= 0)
			de_emit(d, DE_IRQ, r, l, t, (uint64_t)v.irq);
	}
}

/* The bytes of n values as zigzag deltas from *last (all of them whole when !*seen). */
static size_t de_proj(bool seen, uint64_t *last, const uint64_t *now, int n)
{
	size_t b = 0;
	for (int i = 0; i < n; i++) {
		b += seen ? de_zlen((int64_t)(now[i] - last[i])) : de_vlen(now[i]);
		last[i] = now[i];
	}
	return b;
}

static void de_iface(struct de *d, const char *r, int64_t t, const struct store_val *v)
{
	const char *l = de_label(d->iface, d->niface, v->id);
	d->bytes[DE_B_HEAD] += de_vlen((uint64_t)v->flags);
	if (v->flags & STORE_F_DELTA)
		d->bytes[DE_B_DELTA] += de_vlen((uint64_t)v->dt_ms) + de_vlen((uint64_t)v->rx_delta) +
			de_vlen((uint64_t)v->tx_delta);
	for (int i = 0; i < 6; i++) {
		d->bytes[DE_B_IFCOUNT] += de_vlen(v->c[i]);
		de_emit(d, DE_IF_C0 + i, r, l, t, v->c[i]);
	}
	struct de_prev *pv = v->id >= 0 && v->id < d->niface ? &d->iprev[v->id] : NULL;
	if (pv) {
		d->bytes[DE_B_IFCOUNT_D] += de_proj(pv->seen, pv->c, v->c, 6);
		if (v->flags & STORE_F_LINK)
			d->bytes[DE_B_IFLINK_D] += de_proj(pv->seen, pv->link, v->link, 4);
		pv->seen = true;
	}
	if (!(v->flags & STORE_F_LINK))
		return;
	for (int i = 0; i < 4; i++) {
		d->bytes[DE_B_IFLINK] += de_vlen(v->link[i]);
		if (i > 0 || v->link[0] > 0)
			de_emit(d, DE_IF_LINK0 + i, r, l, t, v->link[i]);
	}
	de_emit(d, DE_IF_RUNNING, r, l, t, (v->flags & STORE_F_RUNNING) ? 1 : 0);
}

static void de_peer(struct de *d, const char *r, int64_t t, const struct store_val *v)
{
	const char *l = de_label(d->peer, d->npeer, v->id);
	d->bytes[DE_B_HEAD] += de_vlen((uint64_t)v->flags);
	if (v->flags & STORE_F_DELTA)
		d->bytes[DE_B_DELTA] += de_vlen((uint64_t)v->dt_ms) + de_vlen((uint64_t)v->rx_delta) +
			de_vlen((uint64_t)v->tx_delta);
	d->bytes[DE_B_PEERCNT] += de_vlen(v->c[0]) + de_vlen(v->c[1]);
	de_emit(d, DE_PEER_RX, r, l, t, v->c[0]);
	de_emit(d, DE_PEER_TX, r, l, t, v->c[1]);
	struct de_prev *pv = v->id >= 0 && v->id < d->npeer ? &d->pprev[v->id] : NULL;
	if (pv) {
		d->bytes[DE_B_PEERCNT_D] += de_proj(pv->seen, pv->c, v->c, 2);
		pv->seen = true;
	}
	if (v->flags & STORE_F_HANDSHAKE) {
		d->bytes[DE_B_HANDSHAKE] += de_vlen((uint64_t)v->handshake_ms);
		de_emit(d, DE_PEER_HANDSHAKE, r, l, t, (uint64_t)v->handshake_ms);
	}
}

/* An ifaces or peers BLOB. */
static void de_entries(
	struct de *d, enum store_kind kind, const char *r, int64_t t, const uint8_t *p, const uint8_t *end)
{
	int64_t prev = 0;
	struct store_val v;
	d->bytes[DE_B_HEAD]++;
	for (p++; p < end;) {
		int64_t before = prev;
		if (!pack_next(&p, end, kind, &prev, &v))
			break;
		d->bytes[DE_B_HEAD] += de_zlen(v.id - before);
		if (kind == STORE_IFACE)
			de_iface(d, r, t, &v);
		else
			de_peer(d, r, t, &v);
	}
}

static void de_health(struct de *d, const char *r, int64_t t, const uint8_t *p, const uint8_t *end)
{
	int64_t sizes[4], prev = 0;
	struct store_val v;
	d->bytes[DE_B_HEALTH] += (size_t)(end - p);
	if (!pack_health_head_get(&p, end, sizes))
		return;
	for (int i = 0; i < 4; i++)
		if (sizes[i] >= 0)
			de_emit(d, DE_SIZE0 + i, r, NULL, t, (uint64_t)sizes[i]);
	while (p < end && pack_next(&p, end, STORE_HEALTH, &prev, &v) && !d->skip[DE_SENSOR]) {
		const char *l = de_label(d->sensor, d->nsensor, v.id);
		/* the value x 1000 as stored (signed) */
		fprintf(d->fam[DE_SENSOR], "%s{%s,%s} %" PRId64 " %" PRId64 ".%03" PRId64 "\n",
			de_names[DE_SENSOR], r, l, v.value, t / 1000, t % 1000);
		d->count[DE_SENSOR]++;
		de_chunk_value(&d->ch, DE_SENSOR, r, l, (uint64_t)v.value);
	}
}

static void de_row(struct de *d, sqlite3_stmt *q)
{
	const char *r = de_label(d->router, d->nrouter, sqlite3_column_int64(q, 0));
	int64_t t = sqlite3_column_int64(q, 1);
	d->polls++;
	de_rows_row(d, q);
	de_chunk_poll(&d->ch, sqlite3_column_int64(q, 0), t);
	de_emit(d, DE_DURATION, r, NULL, t, (uint64_t)sqlite3_column_int64(q, 2));
	if (sqlite3_column_type(q, 3) != SQLITE_NULL)
		de_emit(d, DE_CPU_MHZ, r, NULL, t, (uint64_t)sqlite3_column_int64(q, 3));
	for (int c = 0; c < 4; c++) {
		const uint8_t *p = sqlite3_column_blob(q, 4 + c);
		int n = sqlite3_column_bytes(q, 4 + c);
		if (p == NULL || n < 1)
			continue;
		d->blob_bytes[c] += (uint64_t)n;
		if (c == 0 && p[0] == STORE_CPU)
			de_cpu(d, r, t, p, p + n);
		else if ((c == 1 && p[0] == STORE_IFACE) || (c == 2 && p[0] == STORE_PEER))
			de_entries(d, (enum store_kind)p[0], r, t, p, p + n);
		else if (c == 3)
			de_health(d, r, t, p, p + n);
	}
}

static void de_names_load(struct de *d)
{
	d->router = de_labels(d->db, "SELECT id, name, 'router' FROM routers", 1, &d->nrouter);
	d->iface = de_labels(d->db, "SELECT id, name, 'interface' FROM interfaces", 1, &d->niface);
	/* peer: its label, or its key where two peers of an interface share a label */
	d->peer = de_labels(d->db,
		"SELECT id, interface, 'interface', CASE WHEN count(*) OVER (PARTITION BY router_id,"
		" interface, name) > 1 THEN pkey ELSE name END, 'peer' FROM peers",
		2, &d->npeer);
	d->sensor = de_labels(d->db, "SELECT id, name, 'sensor', unit, 'unit' FROM sensors", 2, &d->nsensor);
	d->iprev = xcalloc((size_t)d->niface + 1, sizeof(*d->iprev));
	d->pprev = xcalloc((size_t)d->npeer + 1, sizeof(*d->pprev));
}

static void de_copy(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;
	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

static void de_report(const struct de *d)
{
	uint64_t total = 0;
	printf("{\"polls\": %" PRIu64 ", \"families\": {", d->polls);
	for (int f = 0; f < DE_NFAM; f++) {
		printf("%s\"%s\": %" PRIu64, f ? ", " : "", de_names[f], d->count[f]);
		total += d->count[f];
	}
	printf("}, \"values\": %" PRIu64 ", \"blob_bytes\": {\"cpu\": %" PRIu64 ", \"ifaces\": %" PRIu64
	       ", \"peers\": %" PRIu64 ", \"health\": %" PRIu64 "}, \"parts\": {",
		total, d->blob_bytes[0], d->blob_bytes[1], d->blob_bytes[2], d->blob_bytes[3]);
	for (int i = 0; i < DE_NPART; i++)
		printf("%s\"%s\": %" PRIu64, i ? ", " : "", de_parts[i], d->bytes[i]);
	printf("}, \"chunked\": {\"bytes\": %" PRIu64 ", \"chunks\": %" PRIu64 ", \"polls_per_chunk\": %d}",
		d->chunked, d->ch.chunks, DE_CHUNK);
	printf(", \"rows_chunked\": {\"bytes\": %" PRIu64 ", \"chunks\": %" PRIu64 ", \"rows\": %" PRIu64
	       ", \"refused\": %" PRIu64 ", \"differ\": %" PRIu64
	       ", \"encode_s\": %.3f, \"decode_s\": %.3f}}\n",
		d->rw.bytes, d->rw.chunks, d->rw.rows, d->rw.refused, d->rw.differ, d->rw.encode_s,
		d->rw.decode_s);
}

/* --only's comma-separated family names into d->skip; -1 when one is not ours. */
static int de_only(struct de *d, const char *list)
{
	for (int f = 0; f < DE_NFAM; f++)
		d->skip[f] = true;
	for (const char *p = list; *p != '\0';) {
		size_t n = strcspn(p, ",");
		int f = 0;
		while (f < DE_NFAM && !(strlen(de_names[f]) == n && strncmp(de_names[f], p, n) == 0))
			f++;
		if (f == DE_NFAM) {
			fprintf(stderr, "density_export: no family %.*s\n", (int)n, p);
			return -1;
		}
		d->skip[f] = false;
		p += n + (p[n] == ',');
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct de d = { 0 };
	sqlite3_stmt *q;
	if (argc == 5 && strcmp(argv[1], "--only") == 0 && de_only(&d, argv[2]) == 0)
		argv += 2, argc -= 2;
	if (argc != 3) {
		fputs("usage: density_export [--only FAMILY,...] DATABASE OUT.om  (figures as JSON on"
		      " stdout)\n",
			stderr);
		return 2;
	}
	FILE *out = fopen(argv[2], "w");
	if (sqlite3_open_v2(argv[1], &d.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK || out == NULL) {
		fprintf(stderr, "density_export: cannot open %s or %s\n", argv[1], argv[2]);
		return 1;
	}
	char *cause = NULL;
	if (store_sql_attach(d.db, &cause) < 0) { /* store_polls: the rows of polls and chunks alike */
		fprintf(stderr, "density_export: %s\n", cause);
		return 1;
	}
	de_names_load(&d);
	for (int f = 0; f < DE_NFAM; f++)
		if ((d.fam[f] = tmpfile()) == NULL) {
			perror("density_export: tmpfile");
			return 1;
		}
	if (sqlite3_prepare_v2(d.db,
		    "SELECT router_id, time_ms, duration_ms, cpu_mhz, cpu, ifaces, peers, health, source, err,"
		    " error FROM store_polls"
		    " ORDER BY router_id, time_ms",
		    -1, &q, NULL) != SQLITE_OK) {
		fprintf(stderr, "density_export: %s\n", sqlite3_errmsg(d.db));
		return 1;
	}
	while (sqlite3_step(q) == SQLITE_ROW)
		de_row(&d, q);
	sqlite3_finalize(q);
	de_chunk_close(&d.ch);
	de_rows_close(&d.rw);
	d.chunked = d.ch.bytes;
	for (int f = 0; f < DE_NFAM; f++) {
		if (d.count[f] == 0)
			continue;
		fprintf(out, "# TYPE %s gauge\n", de_names[f]);
		de_copy(d.fam[f], out);
	}
	fputs("# EOF\n", out);
	if (fclose(out) != 0) {
		perror("density_export: write");
		return 1;
	}
	de_report(&d);
	sqlite3_close(d.db);
	return 0;
}
