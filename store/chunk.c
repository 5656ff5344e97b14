/* SPDX-License-Identifier: Apache-2.0 */
/* chunk: the codec of store/chunk.h. Layout, every integer a LEB128 varint, "zz" zigzagged:
 *   1 (version), npolls, zz(t0), zz(t1 - t0), then zz of each delta of the deltas of time;
 *   nseries, then per series: id, flags (1: deltas of deltas, 2: a value at every poll), the
 *   presence bitmap unless flag 2 (npolls bits, poll 0 the low bit of the first byte), and its
 *   values: the first whole, the second zz(delta), the rest zz(delta) or zz(delta of delta).
 * All arithmetic on values is modulo 2^64, so any 64-bit value comes back as it went in. It must
 * never read past its input nor trust a count it has not checked against the bytes left. */
#include "config.h"
#include "store/chunk.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_VERSION 1
#define CHUNK_F_DOD   1
#define CHUNK_F_ALL   2
#define CHUNK_BITMAP  (CHUNK_MAX_POLLS / 8)

struct chunk_col {
	uint64_t id;
	uint64_t *v; /* its values, in poll order, only where it has one */
	size_t n, cap;
	uint8_t has[CHUNK_BITMAP];
};

struct chunk {
	int64_t t[CHUNK_MAX_POLLS];
	size_t np;
	struct chunk_col **col;
	size_t ncol, colcap;
	uint32_t *slot; /* id hash -> col index + 1 */
	size_t hcap;
};

struct chunk_rs { /* a decoded series */
	uint64_t id;
	size_t off;        /* its first value in chunk_read.v */
	size_t n;          /* its values */
	const uint8_t *bm; /* its bitmap in chunk_read.bits, NULL: a value at every poll */
	bool skipped;      /* left undecoded (chunk_decode_some): it has no values */
};

struct chunk_read {
	size_t np, ns;
	int64_t *t; /* np times */
	struct chunk_rs *s;
	uint64_t *v;
	uint8_t *bits;
};

static uint64_t chunk_zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static uint64_t chunk_unzz(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

static size_t chunk_vlen(uint64_t v)
{
	size_t n = 1;
	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

static void chunk_put_varint(buf_t *b, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		buf_putc(b, (char)(v | 0x80));
	buf_putc(b, (char)v);
}

/* ---- building ---- */

chunk_t *chunk_new(void)
{
	chunk_t *c = xcalloc(1, sizeof(*c));
	c->hcap = 64;
	c->slot = xcalloc(c->hcap, sizeof(*c->slot));
	return c;
}

void chunk_free(chunk_t *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->ncol; i++) {
		free(c->col[i]->v);
		free(c->col[i]);
	}
	free(c->col);
	free(c->slot);
	free(c);
}

int chunk_poll(chunk_t *c, int64_t t_ms)
{
	if (c->np == CHUNK_MAX_POLLS || (c->np > 0 && t_ms < c->t[c->np - 1]))
		return -1;
	c->t[c->np++] = t_ms;
	return 0;
}

size_t chunk_len(const chunk_t *c)
{
	return c->np;
}

static size_t chunk_hash(uint64_t id, size_t cap)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

static void chunk_rehash(chunk_t *c)
{
	free(c->slot);
	c->hcap *= 2;
	c->slot = xcalloc(c->hcap, sizeof(*c->slot));
	for (size_t i = 0; i < c->ncol; i++) {
		size_t h = chunk_hash(c->col[i]->id, c->hcap);
		while (c->slot[h] != 0)
			h = (h + 1) & (c->hcap - 1);
		c->slot[h] = (uint32_t)i + 1;
	}
}

/* The column of id, made when new; NULL when the chunk holds CHUNK_MAX_SERIES already. */
static struct chunk_col *chunk_col_of(chunk_t *c, uint64_t id)
{
	size_t h = chunk_hash(id, c->hcap);
	for (; c->slot[h] != 0; h = (h + 1) & (c->hcap - 1))
		if (c->col[c->slot[h] - 1]->id == id)
			return c->col[c->slot[h] - 1];
	if (c->ncol == CHUNK_MAX_SERIES)
		return NULL;
	if (c->ncol == c->colcap) {
		c->colcap = c->colcap ? 2 * c->colcap : 16;
		c->col = xreallocarray(c->col, c->colcap, sizeof(*c->col));
	}
	struct chunk_col *k = xcalloc(1, sizeof(*k));
	k->id = id;
	c->col[c->ncol++] = k;
	c->slot[h] = (uint32_t)c->ncol;
	if (2 * c->ncol > c->hcap)
		chunk_rehash(c);
	return k;
}

int chunk_put(chunk_t *c, uint64_t id, uint64_t v)
{
	if (c->np == 0)
		return -1;
	size_t p = c->np - 1;
	struct chunk_col *k = chunk_col_of(c, id);
	if (k == NULL || (k->has[p / 8] & (1u << (p % 8))))
		return -1;
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 8;
		k->v = xreallocarray(k->v, k->cap, sizeof(*k->v));
	}
	k->has[p / 8] |= (uint8_t)(1u << (p % 8));
	k->v[k->n++] = v;
	return 0;
}

/* The bytes of column k's values after the first two as deltas (*d) and as deltas of deltas. */
static void chunk_cost(const struct chunk_col *k, size_t *d, size_t *dd)
{
	*d = *dd = 0;
	for (size_t i = 2; i < k->n; i++) {
		uint64_t a = k->v[i] - k->v[i - 1], b = k->v[i - 1] - k->v[i - 2];
		*d += chunk_vlen(chunk_zz((int64_t)a));
		*dd += chunk_vlen(chunk_zz((int64_t)(a - b)));
	}
}

static void chunk_encode_col(const chunk_t *c, const struct chunk_col *k, buf_t *out)
{
	size_t d, dd;
	chunk_cost(k, &d, &dd);
	unsigned flags = (dd < d ? CHUNK_F_DOD : 0) | (k->n == c->np ? CHUNK_F_ALL : 0);
	chunk_put_varint(out, k->id);
	buf_putc(out, (char)flags);
	if (!(flags & CHUNK_F_ALL))
		buf_append(out, k->has, (c->np + 7) / 8);
	for (size_t i = 0; i < k->n; i++) {
		uint64_t a = i > 0 ? k->v[i] - k->v[i - 1] : 0, b = i > 1 ? k->v[i - 1] - k->v[i - 2] : 0;
		chunk_put_varint(out,
			i == 0                                   ? k->v[0]
				: (flags & CHUNK_F_DOD) && i > 1 ? chunk_zz((int64_t)(a - b))
								 : chunk_zz((int64_t)a));
	}
}

void chunk_encode(const chunk_t *c, buf_t *out)
{
	buf_putc(out, CHUNK_VERSION);
	chunk_put_varint(out, c->np);
	for (size_t i = 0; i < c->np; i++) {
		uint64_t a = i > 0 ? (uint64_t)c->t[i] - (uint64_t)c->t[i - 1] : (uint64_t)c->t[0];
		uint64_t b = i > 1 ? (uint64_t)c->t[i - 1] - (uint64_t)c->t[i - 2] : 0;
		chunk_put_varint(out, chunk_zz((int64_t)(a - b)));
	}
	chunk_put_varint(out, c->ncol);
	for (size_t i = 0; i < c->ncol; i++)
		chunk_encode_col(c, c->col[i], out);
}

/* ---- reading ---- */

struct chunk_in {
	const uint8_t *p, *end;
};

/* A minimal varint into *v; false when truncated, longer than 10 bytes, past 64 bits, or
 * overlong (a needless last byte of 0). */
static bool chunk_get(struct chunk_in *in, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0, n = 0; in->p < in->end && n < 10; shift += 7, n++) {
		uint8_t b = *in->p++;
		if (n == 9 && b > 1)
			return false;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return n == 0 || b != 0;
	}
	return false;
}

/* Past n varints (each ends at a byte below 0x80) without reading their values; false when the
 * input ends first. */
static bool chunk_skip(struct chunk_in *in, size_t n)
{
	while (n > 0 && in->p < in->end)
		n -= !(*in->p++ & 0x80);
	return n == 0;
}

static bool chunk_get_times(struct chunk_in *in, chunk_read_t *r)
{
	uint64_t n, z, t = 0, d = 0;
	if (!chunk_get(in, &n) || n == 0 || n > CHUNK_MAX_POLLS)
		return false;
	if (n > (uint64_t)(in->end - in->p)) /* a time takes a byte at least */
		return false;
	r->np = (size_t)n;
	r->t = xreallocarray(NULL, r->np, sizeof(*r->t));
	for (size_t i = 0; i < r->np; i++) {
		if (!chunk_get(in, &z))
			return false;
		if (i == 0)
			t = chunk_unzz(z);
		else {
			d = i == 1 ? chunk_unzz(z) : d + chunk_unzz(z);
			t += d;
		}
		r->t[i] = (int64_t)t;
		if (i > 0 && r->t[i] < r->t[i - 1])
			return false;
	}
	return true;
}

static size_t chunk_popcount(const uint8_t *bm, size_t nbits)
{
	size_t n = 0;
	for (size_t i = 0; i < nbits; i++)
		n += (bm[i / 8] >> (i % 8)) & 1;
	return n;
}

/* Series s's bitmap and values; *nv the values stored so far in r->v (room: cap). */
static bool chunk_get_series(struct chunk_in *in, chunk_read_t *r, size_t s, size_t *nv, size_t cap)
{
	uint64_t flags, z, d = 0, v = 0;
	struct chunk_rs *x = &r->s[s];
	size_t nb = (r->np + 7) / 8, count = r->np;
	if (!chunk_get(in, &x->id) || !chunk_get(in, &flags) || flags > 3)
		return false;
	x->bm = NULL;
	if (!(flags & CHUNK_F_ALL)) {
		if ((size_t)(in->end - in->p) < nb)
			return false;
		x->bm = in->p;
		in->p += nb;
		count = chunk_popcount(x->bm, r->np);
		if (count == 0 || count == r->np || (r->np % 8 && (x->bm[nb - 1] >> (r->np % 8)) != 0))
			return false;
	}
	if (count > cap - *nv)
		return false;
	x->off = *nv;
	x->n = x->skipped ? 0 : count;
	if (x->skipped) /* its varints counted to their end, their values not kept */
		return chunk_skip(in, count);
	for (size_t i = 0; i < count; i++) {
		if (!chunk_get(in, &z))
			return false;
		uint64_t a = i == 0 ? z : (flags & CHUNK_F_DOD) && i > 1 ? d + chunk_unzz(z) : chunk_unzz(z);
		v = i == 0 ? z : v + a;
		d = a;
		r->v[(*nv)++] = v;
	}
	return true;
}

chunk_read_t *chunk_decode(const void *p, size_t len, const char **why)
{
	return chunk_decode_some(p, len, NULL, NULL, why);
}

chunk_read_t *chunk_decode_some(
	const void *p, size_t len, bool (*keep)(uint64_t id, void *arg), void *arg, const char **why)
{
	struct chunk_in in = { p, (const uint8_t *)p + len };
	uint64_t ns;
	chunk_read_t *r = xcalloc(1, sizeof(*r));
	*why = "not a chunk of this version";
	if (len < 1 || *in.p++ != CHUNK_VERSION)
		goto fail;
	*why = "malformed times";
	if (!chunk_get_times(&in, r))
		goto fail;
	*why = "malformed series";
	/* each series takes an id, its flags and a value at least: 3 bytes */
	if (!chunk_get(&in, &ns) || ns > CHUNK_MAX_SERIES || ns > (uint64_t)(in.end - in.p) / 3)
		goto fail;
	r->ns = (size_t)ns;
	r->s = xcalloc(r->ns + 1, sizeof(*r->s));
	size_t cap = (size_t)(in.end - in.p), nv = 0;       /* a value takes a byte at least */
	r->v = xreallocarray(NULL, cap + 1, sizeof(*r->v)); /* a bound: only what is decoded is touched */
	for (size_t s = 0; s < r->ns; s++) {
		const uint8_t *at = in.p;
		uint64_t id;
		r->s[s].skipped = keep != NULL && chunk_get(&in, &id) && !keep(id, arg);
		in.p = at;
		if (!chunk_get_series(&in, r, s, &nv, cap))
			goto fail;
	}
	*why = "bytes after its last series";
	if (in.p != in.end)
		goto fail;
	return r;
fail:
	chunk_read_free(r);
	return NULL;
}

void chunk_read_free(chunk_read_t *r)
{
	if (r == NULL)
		return;
	free(r->t);
	free(r->s);
	free(r->v);
	free(r);
}

size_t chunk_polls(const chunk_read_t *r)
{
	return r->np;
}

int64_t chunk_time(const chunk_read_t *r, size_t poll)
{
	return r->t[poll];
}

size_t chunk_nseries(const chunk_read_t *r)
{
	return r->ns;
}

uint64_t chunk_series_id(const chunk_read_t *r, size_t s)
{
	return r->s[s].id;
}

bool chunk_value(const chunk_read_t *r, size_t s, size_t poll, uint64_t *v)
{
	const struct chunk_rs *x = &r->s[s];
	if (poll >= r->np || x->skipped)
		return false;
	if (x->bm == NULL) {
		*v = r->v[x->off + poll];
		return true;
	}
	if (!((x->bm[poll / 8] >> (poll % 8)) & 1))
		return false;
	*v = r->v[x->off + chunk_popcount(x->bm, poll)];
	return true;
}

bool chunk_next(const chunk_read_t *r, size_t s, size_t poll, size_t *cur, uint64_t *v)
{
	const struct chunk_rs *x = &r->s[s];
	if (poll >= r->np || x->skipped)
		return false;
	if (x->bm == NULL) {
		*v = r->v[x->off + poll];
		return true;
	}
	if (!((x->bm[poll / 8] >> (poll % 8)) & 1) || *cur >= x->n)
		return false;
	*v = r->v[x->off + (*cur)++];
	return true;
}

size_t chunk_count(const chunk_read_t *r, size_t s, size_t poll)
{
	const struct chunk_rs *x = &r->s[s];
	size_t n = 0, whole = (poll < r->np ? poll : r->np) / 8;
	if (x->skipped || x->n == 0)
		return 0;
	if (x->bm == NULL)
		return poll < r->np ? poll : r->np;
	for (size_t i = 0; i < whole; i++)
		n += (size_t)__builtin_popcount(x->bm[i]);
	for (size_t i = whole * 8; i < poll && i < r->np; i++)
		n += (x->bm[i / 8] >> (i % 8)) & 1;
	return n;
}
