/* SPDX-License-Identifier: Apache-2.0 */
/* packed: the cpu and ifaces values of a polls row read straight from their BLOBs, for a reader
 * that needs a few values of many polls (the detector) and cannot afford the store_values()
 * virtual table's row per value. Read-only byte work: it never touches SQLite and never reads
 * past the end of a blob; a malformed entry ends the values, as it ends store_values(). */
#ifndef WGWATCH_PACKED_H
#define WGWATCH_PACKED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The per-mille loads of a cpu BLOB, core 0 first, into load[0..max); returns how many were
 * read (0 for NULL, another kind of blob or a malformed first entry). */
size_t packed_cpu(const void *blob, size_t len, int64_t *load, size_t max);

struct packed_iface { /* one interface of an ifaces BLOB, as iface_samples has it */
	int64_t id;   /* interfaces.id */
	bool delta;   /* dt_ms, rx_delta and tx_delta are known (iface_samples.dt_ms not NULL) */
	int64_t dt_ms, rx_delta, tx_delta;
	bool reset; /* the counters went back: the delta is not a rate */
	bool link;  /* the link columns are known (iface_samples.running not NULL) */
	bool running;
	uint64_t mtu; /* 0 unknown */
	uint64_t rx_err, tx_err, txq, rx_pkts, tx_pkts;
};

struct packed_cursor { /* a walk over an ifaces BLOB; the fields are packed.c's */
	const uint8_t *p, *end;
	int64_t prev_id;
};

/* Start a walk over an ifaces BLOB (NULL, or another kind of blob: no entries). */
void packed_ifaces(struct packed_cursor *c, const void *blob, size_t len);
/* The next interface into *r; false at the end or at a malformed entry. */
bool packed_next_iface(struct packed_cursor *c, struct packed_iface *r);

#endif
