/* SPDX-License-Identifier: Apache-2.0 */
/* pack: the packed samples of a polls row (format in store/store_int.h), encoded and decoded.
 * Pure byte work: it must never touch SQLite, and never read past the end of a blob. */
#include "config.h"
#include "store/store_int.h"

#include <string.h>

#define PACK_ENTRY_MAX 200 /* bytes of one encoded entry at most (19 varints) */

static size_t pack_put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;
	for (; v >= 0x80; v >>= 7)
		p[n++] = (uint8_t)(v | 0x80);
	p[n++] = (uint8_t)v;
	return n;
}

static bool pack_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
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

static uint64_t pack_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static int64_t pack_unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* One entry; the kind byte goes first into an empty buffer. */
void pack_append(buf_t *b, enum store_kind kind, int64_t *prev_id, const struct store_val *v)
{
	uint8_t e[PACK_ENTRY_MAX];
	size_t n = 0;
	if (b->len == 0)
		e[n++] = (uint8_t)kind;
	if (kind == STORE_HEALTH) {
		n += pack_put_varint(e + n, pack_zigzag(v->id - *prev_id));
		n += pack_put_varint(e + n, pack_zigzag(v->value));
		*prev_id = v->id;
		buf_append(b, e, n);
		return;
	}
	if (kind == STORE_CPU) {
		n += pack_put_varint(e + n, (uint64_t)v->load);
		n += pack_put_varint(e + n, (uint64_t)(v->irq + 1));
		buf_append(b, e, n);
		return;
	}
	n += pack_put_varint(e + n, pack_zigzag(v->id - *prev_id));
	*prev_id = v->id;
	n += pack_put_varint(e + n, (uint64_t)v->flags);
	if (v->flags & STORE_F_DELTA) {
		n += pack_put_varint(e + n, (uint64_t)v->dt_ms);
		n += pack_put_varint(e + n, (uint64_t)v->rx_delta);
		n += pack_put_varint(e + n, (uint64_t)v->tx_delta);
	}
	for (int i = 0; i < (kind == STORE_IFACE ? 6 : 2); i++)
		n += pack_put_varint(e + n, v->c[i]);
	if (v->flags & STORE_F_HANDSHAKE)
		n += pack_put_varint(e + n, (uint64_t)v->handshake_ms);
	for (int i = 0; (v->flags & STORE_F_LINK) && i < 4; i++)
		n += pack_put_varint(e + n, v->link[i]);
	buf_append(b, e, n);
}

/* Decode the next entry at *p; false at the end or on a malformed blob. */
bool pack_next(
	const uint8_t **p, const uint8_t *end, enum store_kind kind, int64_t *prev_id, struct store_val *v)
{
	uint64_t x[5];
	memset(v, 0, sizeof(*v));
	v->irq = v->handshake_ms = -1;
	if (kind == STORE_HEALTH) {
		if (!pack_get_varint(p, end, &x[0]) || !pack_get_varint(p, end, &x[1]))
			return false;
		v->id = *prev_id += pack_unzigzag(x[0]);
		v->value = pack_unzigzag(x[1]);
		return true;
	}
	if (kind == STORE_CPU) {
		if (!pack_get_varint(p, end, &x[0]) || !pack_get_varint(p, end, &x[1]))
			return false;
		v->id = (*prev_id)++;
		v->load = (int64_t)x[0];
		v->irq = (int64_t)x[1] - 1;
		return true;
	}
	if (!pack_get_varint(p, end, &x[0]) || !pack_get_varint(p, end, &x[1]))
		return false;
	v->id = *prev_id += pack_unzigzag(x[0]);
	v->flags = (int)x[1];
	if (v->flags & STORE_F_DELTA) {
		if (!pack_get_varint(p, end, &x[2]) || !pack_get_varint(p, end, &x[3]) ||
			!pack_get_varint(p, end, &x[4]))
			return false;
		v->dt_ms = (int64_t)x[2];
		v->rx_delta = (int64_t)x[3];
		v->tx_delta = (int64_t)x[4];
	}
	for (int i = 0; i < (kind == STORE_IFACE ? 6 : 2); i++)
		if (!pack_get_varint(p, end, &v->c[i]))
			return false;
	if ((v->flags & STORE_F_HANDSHAKE) && !pack_get_varint(p, end, &x[0]))
		return false;
	if (v->flags & STORE_F_HANDSHAKE)
		v->handshake_ms = (int64_t)x[0];
	for (int i = 0; (v->flags & STORE_F_LINK) && i < 4; i++)
		if (!pack_get_varint(p, end, &v->link[i]))
			return false;
	return true;
}

void pack_health_head(buf_t *b, const int64_t sizes[4])
{
	uint8_t e[1 + 4 * 10];
	size_t n = 0;
	e[n++] = STORE_HEALTH;
	for (int i = 0; i < 4; i++)
		n += pack_put_varint(e + n, sizes[i] < 0 ? 0 : (uint64_t)sizes[i] + 1);
	buf_append(b, e, n);
}

bool pack_health_head_get(const uint8_t **p, const uint8_t *end, int64_t sizes[4])
{
	if (*p >= end || *(*p)++ != STORE_HEALTH)
		return false;
	for (int i = 0; i < 4; i++) {
		uint64_t x;
		if (!pack_get_varint(p, end, &x))
			return false;
		sizes[i] = x == 0 || x - 1 > INT64_MAX ? -1 : (int64_t)(x - 1);
	}
	return true;
}
