/* SPDX-License-Identifier: Apache-2.0 */
/* packed: the cpu and ifaces BLOBs of a polls row decoded in C (packed.h), on pack.c's decoder.
 * It must never touch SQLite, and never yield a value of a malformed entry. */
#include "config.h"
#include "store/packed.h"
#include "store/store_int.h"

size_t packed_cpu(const void *blob, size_t len, int64_t *load, size_t max)
{
	const uint8_t *p = blob;
	if (blob == NULL || len < 2 || p[0] != STORE_CPU)
		return 0;
	const uint8_t *end = p + len;
	p++;
	int64_t prev = 0;
	struct store_val v;
	size_t n = 0;
	while (n < max && p < end && pack_next(&p, end, STORE_CPU, &prev, &v))
		load[n++] = v.load;
	return n;
}

void packed_ifaces(struct packed_cursor *c, const void *blob, size_t len)
{
	const uint8_t *p = blob;
	c->p = c->end = NULL;
	c->prev_id = 0;
	if (blob != NULL && len >= 2 && p[0] == STORE_IFACE) {
		c->p = p + 1;
		c->end = p + len;
	}
}

bool packed_next_iface(struct packed_cursor *c, struct packed_iface *r)
{
	struct store_val v;
	if (c->p >= c->end)
		return false;
	if (!pack_next(&c->p, c->end, STORE_IFACE, &c->prev_id, &v)) {
		c->p = c->end; /* malformed: no further entry is trusted */
		return false;
	}
	bool link = (v.flags & STORE_F_LINK) != 0;
	*r = (struct packed_iface){ .id = v.id,
		.delta = (v.flags & STORE_F_DELTA) != 0,
		.dt_ms = v.dt_ms,
		.rx_delta = v.rx_delta,
		.tx_delta = v.tx_delta,
		.reset = (v.flags & STORE_F_RESET) != 0,
		.link = link,
		.running = link && (v.flags & STORE_F_RUNNING) != 0,
		.mtu = link ? v.link[0] : 0,
		.rx_err = link ? v.link[1] : 0,
		.tx_err = link ? v.link[2] : 0,
		.txq = link ? v.link[3] : 0,
		.rx_pkts = v.c[2],
		.tx_pkts = v.c[3] };
	return true;
}
