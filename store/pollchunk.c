/* SPDX-License-Identifier: Apache-2.0 */
/* pollchunk: polls rows <-> one chunk (pollchunk.h). Layout: 1 (version), the number of texts,
 * each as its length and bytes (varints), then the chunk of store/chunk.c to the end. A series
 * id is entity << 7 | kind << 4 | field: kind 0 the poll's own columns (entity 0), else the
 * store_kind of a BLOB entry and its id (a core's index for cpu). It must never read past its
 * input nor yield a row of a chunk it would not have written. */
#include "config.h"
#include "store/pollchunk.h"
#include "store/chunk.h"
#include "store/store_int.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define PC_VERSION     1
#define PC_POLL        0                  /* kind of the poll's own columns */
#define PC_NFIELD      16                 /* fields of one entity */
#define PC_ENT_MAX     (INT64_C(1) << 56) /* entity ids below this */
#define PC_ID(e, k, f) ((uint64_t)(e) << 7 | (uint64_t)(k) << 4 | (uint64_t)(f))

enum { /* fields of the poll (kind 0) */
	PF_DURATION,
	PF_MHZ,
	PF_SOURCE, /* a text: its index in the table + 1 */
	PF_ERR,
	PF_ERROR,
	PF_BLOBS, /* bit b: blob b (POLLCHUNK_*) is not NULL */
	PF_SIZE0, /* health: memory free/total, disk free/total (4) */
};
enum {                    /* fields of an interface or peer entry; cpu: load 0, irq + 1 1; health: value 0 */
	EF_LINK0 = 6,     /* interface: mtu, rx/tx errors, tx-queue-drop */
	EF_HANDSHAKE = 2, /* peer */
	EF_NOTRUNNING = 10, /* 1: STORE_F_LINK without STORE_F_RUNNING */
	EF_RESET = 11,      /* 1: STORE_F_RESET */
	EF_NODELTA = 12,    /* 1: no STORE_F_DELTA */
	EF_DT = 13,         /* dt_ms, rx_delta, tx_delta less their prediction (pc_predict), when not 0 */
};

/* The fields each kind may have (bit f: field f). */
static const uint16_t pc_fields[5] = { 0x03ff, 0x0003, 0xffff, 0xf807, 0x0001 };

struct pc_last { /* an interface's or peer's previous entry in the chunk */
	bool seen;
	int64_t t;
	uint64_t rx, tx;
};

struct pollchunk {
	chunk_t *c;
	char **str;
	size_t nstr;
	uint64_t *key; /* open addressing: the entries' PC_ID(id, kind, 0), 0 empty */
	struct pc_last *last;
	size_t cap, used;
};

struct pc_ent {        /* one entity of a chunk read */
	uint64_t base; /* PC_ID(id, kind, 0) */
	int32_t col[PC_NFIELD];
	size_t cur[PC_NFIELD];
	struct pc_last last;
};

struct pollchunk_read {
	chunk_read_t *c;
	char **str;
	size_t nstr;
	struct pc_ent *ent; /* by kind, then id: the poll's own first */
	size_t nent, poll;  /* poll: the next row */
	unsigned want;      /* the BLOBs made (bit b: blob b); the others read as NULL */
	buf_t blob[POLLCHUNK_NBLOB];
};

/* What dt_ms, rx_delta and tx_delta are taken to be: the differences from the entity's
 * previous entry in the chunk, or 0 without one. */
static void pc_predict(const struct pc_last *l, int64_t t, uint64_t rx, uint64_t tx, uint64_t p[3])
{
	p[0] = l->seen ? (uint64_t)t - (uint64_t)l->t : 0;
	p[1] = l->seen ? rx - l->rx : 0;
	p[2] = l->seen ? tx - l->tx : 0;
}

/* ---- writing ---- */

pollchunk_t *pollchunk_new(void)
{
	pollchunk_t *pc = xcalloc(1, sizeof(*pc));
	pc->c = chunk_new();
	pc->cap = 64;
	pc->key = xcalloc(pc->cap, sizeof(*pc->key));
	pc->last = xcalloc(pc->cap, sizeof(*pc->last));
	return pc;
}

void pollchunk_free(pollchunk_t *pc)
{
	if (pc == NULL)
		return;
	for (size_t i = 0; i < pc->nstr; i++)
		free(pc->str[i]);
	free(pc->str);
	free(pc->key);
	free(pc->last);
	chunk_free(pc->c);
	free(pc);
}

size_t pollchunk_len(const pollchunk_t *pc)
{
	return chunk_len(pc->c);
}

static size_t pc_slot(const uint64_t *key, size_t cap, uint64_t k)
{
	size_t h = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
	while (key[h] != 0 && key[h] != k)
		h = (h + 1) & (cap - 1);
	return h;
}

/* The previous entry of entity k (a PC_ID(id, kind, 0), never 0), made when new. */
static struct pc_last *pc_last_of(pollchunk_t *pc, uint64_t k)
{
	if (2 * (pc->used + 1) > pc->cap) {
		uint64_t *okey = pc->key;
		struct pc_last *olast = pc->last;
		size_t ocap = pc->cap;
		pc->cap *= 2;
		pc->key = xcalloc(pc->cap, sizeof(*pc->key));
		pc->last = xcalloc(pc->cap, sizeof(*pc->last));
		for (size_t i = 0; i < ocap; i++) {
			size_t h = okey[i] ? pc_slot(pc->key, pc->cap, okey[i]) : 0;
			if (okey[i]) {
				pc->key[h] = okey[i];
				pc->last[h] = olast[i];
			}
		}
		free(okey);
		free(olast);
	}
	size_t h = pc_slot(pc->key, pc->cap, k);
	if (pc->key[h] == 0) {
		pc->key[h] = k;
		pc->used++;
	}
	return &pc->last[h];
}

/* Text s as a value: its index in the table + 1, added when new. */
static uint64_t pc_text(pollchunk_t *pc, const char *s)
{
	for (size_t i = 0; i < pc->nstr; i++)
		if (strcmp(pc->str[i], s) == 0)
			return i + 1;
	pc->str = xreallocarray(pc->str, pc->nstr + 1, sizeof(*pc->str));
	pc->str[pc->nstr++] = xstrdup(s);
	return pc->nstr;
}

/* An interface's or peer's entry; -1 on what the layout cannot say. */
static int pc_put_counted(pollchunk_t *pc, enum store_kind k, const struct store_val *v, int64_t t)
{
	int f = v->flags, rc = 0;
	int known = STORE_F_DELTA | STORE_F_RESET |
		(k == STORE_IFACE ? STORE_F_LINK | STORE_F_RUNNING : STORE_F_HANDSHAKE);
	if ((f & ~known) || ((f & STORE_F_RUNNING) && !(f & STORE_F_LINK)))
		return -1;
	uint64_t b = PC_ID(v->id, k, 0);
	for (int i = 0; i < (k == STORE_IFACE ? 6 : 2); i++)
		rc |= chunk_put(pc->c, b + (uint64_t)i, v->c[i]);
	if (f & STORE_F_HANDSHAKE)
		rc |= chunk_put(pc->c, b + EF_HANDSHAKE, (uint64_t)v->handshake_ms);
	for (int i = 0; (f & STORE_F_LINK) && i < 4; i++)
		rc |= chunk_put(pc->c, b + EF_LINK0 + (uint64_t)i, v->link[i]);
	if ((f & STORE_F_LINK) && !(f & STORE_F_RUNNING))
		rc |= chunk_put(pc->c, b + EF_NOTRUNNING, 1);
	if (f & STORE_F_RESET)
		rc |= chunk_put(pc->c, b + EF_RESET, 1);
	if (!(f & STORE_F_DELTA))
		rc |= chunk_put(pc->c, b + EF_NODELTA, 1);
	struct pc_last *l = pc_last_of(pc, b);
	uint64_t p[3], d[3] = { (uint64_t)v->dt_ms, (uint64_t)v->rx_delta, (uint64_t)v->tx_delta };
	pc_predict(l, t, v->c[0], v->c[1], p);
	for (int i = 0; (f & STORE_F_DELTA) && i < 3; i++)
		if (d[i] != p[i])
			rc |= chunk_put(pc->c, b + EF_DT + (uint64_t)i, d[i] - p[i]);
	*l = (struct pc_last){ .seen = true, .t = t, .rx = v->c[0], .tx = v->c[1] };
	return rc;
}

static int pc_put_val(pollchunk_t *pc, enum store_kind k, const struct store_val *v, int64_t t)
{
	if (v->id < 0 || v->id >= PC_ENT_MAX)
		return -1;
	if (k == STORE_CPU)
		return chunk_put(pc->c, PC_ID(v->id, k, 0), (uint64_t)v->load) |
			chunk_put(pc->c, PC_ID(v->id, k, 1), (uint64_t)(v->irq + 1));
	if (k == STORE_HEALTH)
		return chunk_put(pc->c, PC_ID(v->id, k, 0), (uint64_t)v->value);
	return pc_put_counted(pc, k, v, t);
}

/* The entries of BLOB b (POLLCHUNK_*) of len bytes at p. */
static int pc_put_blob(pollchunk_t *pc, int b, const uint8_t *p, size_t len, int64_t t)
{
	const uint8_t *end = p + len;
	enum store_kind k = (enum store_kind)(b + 1);
	int64_t prev = 0, sz[4];
	struct store_val v;
	if (len == 0 || *p != k)
		return -1;
	if (k == STORE_HEALTH) {
		if (!pack_health_head_get(&p, end, sz))
			return -1;
		for (int i = 0; i < 4; i++)
			if (chunk_put(pc->c, PC_ID(0, PC_POLL, PF_SIZE0 + i), (uint64_t)sz[i]) < 0)
				return -1;
	} else
		p++;
	while (p < end)
		if (!pack_next(&p, end, k, &prev, &v) || pc_put_val(pc, k, &v, t) < 0)
			return -1;
	return 0;
}

int pollchunk_add(pollchunk_t *pc, const struct pollchunk_row *row, const char **why)
{
	const char *txt[3] = { row->source, row->err, row->error };
	uint64_t blobs = 0;
	int rc = 0;
	*why = "a time before the last one, or a full chunk";
	if (chunk_poll(pc->c, row->time_ms) < 0)
		return -1;
	*why = "a column the chunk cannot hold";
	for (int b = 0; b < POLLCHUNK_NBLOB; b++)
		blobs |= row->blob[b] != NULL ? 1u << b : 0;
	rc |= chunk_put(pc->c, PC_ID(0, PC_POLL, PF_DURATION), (uint64_t)row->duration_ms);
	rc |= chunk_put(pc->c, PC_ID(0, PC_POLL, PF_BLOBS), blobs);
	if (row->have_mhz)
		rc |= chunk_put(pc->c, PC_ID(0, PC_POLL, PF_MHZ), (uint64_t)row->cpu_mhz);
	for (int i = 0; i < 3; i++)
		if (txt[i] != NULL)
			rc |= chunk_put(pc->c, PC_ID(0, PC_POLL, PF_SOURCE + i), pc_text(pc, txt[i]));
	for (int b = 0; b < POLLCHUNK_NBLOB && rc == 0; b++)
		if (row->blob[b] != NULL && pc_put_blob(pc, b, row->blob[b], row->len[b], row->time_ms) < 0) {
			*why = "a malformed BLOB, or an entry the chunk cannot hold";
			return -1;
		}
	return rc < 0 ? -1 : 0;
}

static void pc_varint(buf_t *b, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		buf_putc(b, (char)(v | 0x80));
	buf_putc(b, (char)v);
}

void pollchunk_encode(const pollchunk_t *pc, buf_t *out)
{
	buf_putc(out, PC_VERSION);
	pc_varint(out, pc->nstr);
	for (size_t i = 0; i < pc->nstr; i++) {
		size_t n = strlen(pc->str[i]);
		pc_varint(out, n);
		buf_append(out, pc->str[i], n);
	}
	chunk_encode(pc->c, out);
}

/* ---- reading ---- */

static bool pc_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
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

static bool pc_get_texts(pollchunk_read_t *rd, const uint8_t **p, const uint8_t *end)
{
	uint64_t n, len;
	if (!pc_get(p, end, &n) || n > (uint64_t)(end - *p))
		return false;
	rd->str = xcalloc((size_t)n + 1, sizeof(*rd->str));
	for (; rd->nstr < n; rd->nstr++) {
		if (!pc_get(p, end, &len) || len > (uint64_t)(end - *p) || memchr(*p, 0, (size_t)len))
			return false;
		rd->str[rd->nstr] = xstrndup((const char *)*p, (size_t)len);
		*p += len;
	}
	return true;
}

static int pc_ent_cmp(const void *a, const void *b)
{
	const struct pc_ent *x = a, *y = b;
	uint64_t kx = (x->base >> 4) & 7, ky = (y->base >> 4) & 7;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->base < y->base ? -1 : x->base > y->base;
}

/* Whether the chunk's series id is read: the poll's own, and the entries of the BLOBs wanted. */
static bool pc_keep(uint64_t id, void *arg)
{
	uint64_t k = (id >> 4) & 7;
	return k == PC_POLL || k > POLLCHUNK_NBLOB || (*(const unsigned *)arg & (1u << (k - 1)));
}

/* The chunk's series grouped into entities, each field of a kind that has it at most once. */
static bool pc_get_ents(pollchunk_read_t *rd)
{
	size_t ns = chunk_nseries(rd->c), nk = 0;
	for (size_t s = 0; s < ns; s++) {
		uint64_t id = chunk_series_id(rd->c, s), k = (id >> 4) & 7, f = id & 15;
		if (k > STORE_HEALTH || !(pc_fields[k] & (1u << f)) || (k == PC_POLL && id >> 7 != 0) ||
			id >> 7 >= (uint64_t)PC_ENT_MAX)
			return false;
		nk += pc_keep(id, &rd->want);
	}
	rd->ent = xcalloc(nk + 1, sizeof(*rd->ent)); /* the series read alone */
	for (size_t s = 0, j = 0; s < ns; s++) {
		uint64_t id = chunk_series_id(rd->c, s), f = id & 15;
		if (!pc_keep(id, &rd->want))
			continue;
		rd->ent[j].base = id & ~(uint64_t)15;
		memset(rd->ent[j].col, -1, sizeof(rd->ent[j].col));
		rd->ent[j++].col[f] = (int32_t)s;
	}
	qsort(rd->ent, nk, sizeof(*rd->ent), pc_ent_cmp);
	for (size_t s = 0; s < nk; s++) { /* merge the fields of one entity into its first */
		struct pc_ent *e = rd->nent > 0 ? &rd->ent[rd->nent - 1] : NULL;
		if (e == NULL || e->base != rd->ent[s].base) {
			rd->ent[rd->nent++] = rd->ent[s];
			continue;
		}
		for (int f = 0; f < PC_NFIELD; f++) {
			if (rd->ent[s].col[f] >= 0 && e->col[f] >= 0)
				return false;
			if (rd->ent[s].col[f] >= 0)
				e->col[f] = rd->ent[s].col[f];
		}
	}
	return rd->nent > 0 && rd->ent[0].base == 0 && rd->ent[0].col[PF_DURATION] >= 0;
}

pollchunk_read_t *pollchunk_decode(const void *p, size_t len, const char **why)
{
	return pollchunk_decode_some(p, len, (1u << POLLCHUNK_NBLOB) - 1, why);
}

pollchunk_read_t *pollchunk_decode_some(const void *p, size_t len, unsigned blobs, const char **why)
{
	const uint8_t *q = p, *end = q + len;
	pollchunk_read_t *rd = xcalloc(1, sizeof(*rd));
	rd->want = blobs & ((1u << POLLCHUNK_NBLOB) - 1);
	for (int b = 0; b < POLLCHUNK_NBLOB; b++)
		buf_init(&rd->blob[b]);
	*why = "not a chunk of polls of this version";
	if (len < 1 || *q++ != PC_VERSION)
		goto fail;
	*why = "malformed texts";
	if (!pc_get_texts(rd, &q, end))
		goto fail;
	if ((rd->c = chunk_decode_some(q, (size_t)(end - q), pc_keep, &rd->want, why)) == NULL)
		goto fail;
	*why = "series that are no columns of polls";
	if (!pc_get_ents(rd))
		goto fail;
	return rd;
fail:
	pollchunk_read_free(rd);
	return NULL;
}

void pollchunk_read_free(pollchunk_read_t *rd)
{
	if (rd == NULL)
		return;
	for (size_t i = 0; i < rd->nstr; i++)
		free(rd->str[i]);
	free(rd->str);
	free(rd->ent);
	for (int b = 0; b < POLLCHUNK_NBLOB; b++)
		buf_free(&rd->blob[b]);
	chunk_read_free(rd->c);
	free(rd);
}

size_t pollchunk_rows(const pollchunk_read_t *rd)
{
	return chunk_polls(rd->c);
}

/* Entity e's values at poll i into x; bit f of the result: field f has one. */
static unsigned pc_fields_at(pollchunk_read_t *rd, struct pc_ent *e, size_t i, uint64_t x[PC_NFIELD])
{
	unsigned has = 0;
	for (int f = 0; f < PC_NFIELD; f++)
		if (e->col[f] >= 0 && chunk_next(rd->c, (size_t)e->col[f], i, &e->cur[f], &x[f]))
			has |= 1u << f;
	return has;
}

/* An interface's or peer's flags and deltas from what it has; false where it cannot be. */
static bool pc_get_counted(
	struct pc_ent *e, enum store_kind k, unsigned has, const uint64_t *x, int64_t t, struct store_val *v)
{
	unsigned n = k == STORE_IFACE ? 0x3f : 0x3, link = 0xfu << EF_LINK0,
		 flags = 1u << EF_NOTRUNNING | 1u << EF_RESET | 1u << EF_NODELTA;
	if ((has & n) != n || ((has & link) != 0 && (has & link) != link) ||
		((has & (1u << EF_NOTRUNNING)) && !(has & link)) ||
		((has & (1u << EF_NODELTA)) && (has & (7u << EF_DT))))
		return false;
	for (int f = EF_NOTRUNNING; f <= EF_NODELTA; f++)
		if ((has & flags & (1u << f)) && x[f] != 1)
			return false;
	memcpy(v->c, x, (k == STORE_IFACE ? 6 : 2) * sizeof(*x));
	memcpy(v->link, x + EF_LINK0, sizeof(v->link));
	v->handshake_ms = (has & (1u << EF_HANDSHAKE)) && k == STORE_PEER ? (int64_t)x[EF_HANDSHAKE] : -1;
	v->flags = ((has & (1u << EF_NODELTA)) ? 0 : STORE_F_DELTA) |
		((has & (1u << EF_RESET)) ? STORE_F_RESET : 0) | ((has & link) ? STORE_F_LINK : 0) |
		((has & link) && !(has & (1u << EF_NOTRUNNING)) ? STORE_F_RUNNING : 0) |
		(k == STORE_PEER && (has & (1u << EF_HANDSHAKE)) ? STORE_F_HANDSHAKE : 0);
	uint64_t p[3];
	pc_predict(&e->last, t, v->c[0], v->c[1], p);
	for (int i = 0; (v->flags & STORE_F_DELTA) && i < 3; i++)
		p[i] += (has & (1u << (EF_DT + i))) ? x[EF_DT + i] : 0;
	if (v->flags & STORE_F_DELTA) {
		v->dt_ms = (int64_t)p[0];
		v->rx_delta = (int64_t)p[1];
		v->tx_delta = (int64_t)p[2];
	}
	e->last = (struct pc_last){ .seen = true, .t = t, .rx = v->c[0], .tx = v->c[1] };
	return true;
}

/* Entity e's entry at poll i into *v: 1, 0 when it has none there, -1 when malformed. */
static int pc_get_entry(pollchunk_read_t *rd, struct pc_ent *e, size_t i, struct store_val *v)
{
	uint64_t x[PC_NFIELD] = { 0 };
	enum store_kind k = (enum store_kind)((e->base >> 4) & 7);
	unsigned has = pc_fields_at(rd, e, i, x);
	if (!(has & 1))
		return has ? -1 : 0;
	memset(v, 0, sizeof(*v));
	v->id = (int64_t)(e->base >> 7);
	v->irq = v->handshake_ms = -1;
	if (k == STORE_CPU) {
		v->load = (int64_t)x[0];
		v->irq = (int64_t)x[1] - 1;
		return has == 3 ? 1 : -1;
	}
	if (k == STORE_HEALTH) {
		v->value = (int64_t)x[0];
		return 1;
	}
	return pc_get_counted(e, k, has, x, chunk_time(rd->c, i), v) ? 1 : -1;
}

/* The poll's own columns of row i; the BLOBs begun (kind byte, health head). */
static bool pc_get_poll(pollchunk_read_t *rd, size_t i, struct pollchunk_row *row, uint64_t *blobs)
{
	uint64_t x[PC_NFIELD] = { 0 };
	const char **txt[3] = { &row->source, &row->err, &row->error };
	unsigned has = pc_fields_at(rd, &rd->ent[0], i, x), sizes = 0xfu << PF_SIZE0;
	unsigned must = 1u << PF_DURATION | 1u << PF_BLOBS; /* pollchunk_add writes both, always */
	*blobs = x[PF_BLOBS];
	if ((has & must) != must || *blobs > 15 || (has & sizes) != ((*blobs & 8) ? sizes : 0))
		return false;
	for (int f = PF_SIZE0; f < PF_SIZE0 + 4; f++)
		if ((has & (1u << f)) && (int64_t)x[f] < -1) /* pack_health_head's -1 for unknown */
			return false;
	row->duration_ms = (int64_t)x[PF_DURATION];
	row->have_mhz = (has & (1u << PF_MHZ)) != 0;
	row->cpu_mhz = row->have_mhz ? (int64_t)x[PF_MHZ] : 0;
	for (int t = 0; t < 3; t++) {
		bool on = (has & (1u << (PF_SOURCE + t))) != 0;
		if (on && (x[PF_SOURCE + t] == 0 || x[PF_SOURCE + t] > rd->nstr))
			return false;
		*txt[t] = on ? rd->str[x[PF_SOURCE + t] - 1] : NULL;
	}
	for (int b = 0; b < POLLCHUNK_NBLOB; b++) {
		buf_reset(&rd->blob[b]);
		if ((*blobs & (1u << b)) && b == POLLCHUNK_HEALTH)
			pack_health_head(&rd->blob[b],
				(const int64_t[4]){ (int64_t)x[PF_SIZE0], (int64_t)x[PF_SIZE0 + 1],
					(int64_t)x[PF_SIZE0 + 2], (int64_t)x[PF_SIZE0 + 3] });
		else if (*blobs & (1u << b))
			buf_putc(&rd->blob[b], (char)(b + 1));
	}
	return true;
}

/* Entity e's state at poll p, as a walk from rd->poll would leave it: its fields' value counts,
 * and an interface's or peer's entry last before p (its deltas are predicted from it). */
static void pc_seek_ent(pollchunk_read_t *rd, struct pc_ent *e, size_t p)
{
	uint64_t k = (e->base >> 4) & 7, rx = 0, tx = 0;
	for (int f = 0; f < PC_NFIELD; f++)
		if (e->col[f] >= 0)
			e->cur[f] = chunk_count(rd->c, (size_t)e->col[f], p);
	if ((k != STORE_IFACE && k != STORE_PEER) || e->col[0] < 0)
		return; /* no state, or no entry at all (a malformed chunk: its rows say so) */
	for (size_t j = p; j-- > rd->poll;) {
		if (!chunk_value(rd->c, (size_t)e->col[0], j, &rx))
			continue;
		if (e->col[1] >= 0)
			chunk_value(rd->c, (size_t)e->col[1], j, &tx);
		e->last = (struct pc_last){ .seen = true, .t = chunk_time(rd->c, j), .rx = rx, .tx = tx };
		return;
	}
}

void pollchunk_seek(pollchunk_read_t *rd, int64_t t)
{
	size_t lo = rd->poll, hi = chunk_polls(rd->c);
	while (lo < hi) { /* the first poll at t or later: times never go back */
		size_t mid = lo + (hi - lo) / 2;
		if (chunk_time(rd->c, mid) < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == rd->poll)
		return;
	for (size_t n = 0; n < rd->nent; n++)
		pc_seek_ent(rd, &rd->ent[n], lo);
	rd->poll = lo;
}

int pollchunk_next(pollchunk_read_t *rd, struct pollchunk_row *row, const char **why)
{
	uint64_t blobs;
	int64_t prev[POLLCHUNK_NBLOB] = { 0 };
	struct store_val v;
	size_t i = rd->poll;
	if (i >= chunk_polls(rd->c))
		return 0;
	*row = (struct pollchunk_row){ .time_ms = chunk_time(rd->c, i) };
	*why = "a poll whose columns do not fit together";
	if (!pc_get_poll(rd, i, row, &blobs))
		return -1;
	for (size_t n = 1; n < rd->nent; n++) {
		struct pc_ent *e = &rd->ent[n];
		int b = (int)((e->base >> 4) & 7) - 1;
		if (!(rd->want & (1u << b)))
			continue; /* a BLOB not wanted: its values stay unread */
		int rc = pc_get_entry(rd, e, i, &v);
		if (rc < 0 || (rc > 0 && (!(blobs & (1u << b)) || (b == POLLCHUNK_CPU && v.id != prev[b]))))
			return -1;
		if (rc > 0)
			pack_append(&rd->blob[b], (enum store_kind)(b + 1), &prev[b], &v);
		if (rc > 0 && b == POLLCHUNK_CPU)
			prev[b] = v.id + 1; /* cores come 0, 1, ... */
	}
	for (int b = 0; b < POLLCHUNK_NBLOB; b++) {
		row->blob[b] = (blobs & rd->want & (1u << b)) ? rd->blob[b].data : NULL;
		row->len[b] = row->blob[b] != NULL ? rd->blob[b].len : 0;
	}
	rd->poll++;
	return 1;
}
