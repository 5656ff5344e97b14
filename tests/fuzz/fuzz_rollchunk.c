/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_rollchunk: libFuzzer harness for store/rollchunk.c's reader, which turns bytes the store
 * keeps on disk (a damaged or hostile database file) back into roll-up rows; the first byte
 * names the kind, as in a stored chunk. A chunk is refused or read; every row of one read whole
 * goes into a new chunk, which must give the same rows back. It must never touch a file. */
#undef NDEBUG
#include "config.h"
#include "store/rollchunk.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every row of the chunk at p flattened into flat, each added to rc when not NULL; false when
 * it is refused or turns out malformed. */
static bool fuzz_read(enum rollchunk_kind kind, const void *p, size_t len, buf_t *flat, rollchunk_t *rc)
{
	const char *why;
	struct rollchunk_row r;
	int ret;
	rollchunk_read_t *rd = rollchunk_decode(kind, p, len, &why);
	if (rd == NULL)
		return false;
	while ((ret = rollchunk_next(rd, &r, &why)) == 1) {
		buf_printf(flat, "%lld,%lld,%u", (long long)r.bucket_ms, (long long)r.core, r.have);
		for (int c = 0; c < rollchunk_ncols(kind); c++)
			buf_printf(flat, ",%lld", (r.have >> c) & 1 ? (long long)r.v[c] : 0LL);
		buf_putc(flat, '\n');
		if (rc != NULL)
			assert(rollchunk_add(rc, &r, &why) == 0);
	}
	rollchunk_read_free(rd);
	return ret == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum rollchunk_kind kind = (enum rollchunk_kind)(size > 0 ? data[0] % ROLLCHUNK_NKIND : 0);
	buf_t a, b, again;
	buf_init(&a);
	buf_init(&b);
	buf_init(&again);
	rollchunk_t *rc = rollchunk_new(kind);
	if (fuzz_read(kind, data, size, &a, rc)) {
		rollchunk_encode(rc, &again);
		assert(fuzz_read(kind, again.data, again.len, &b, NULL));
		assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	}
	rollchunk_free(rc);
	buf_free(&a);
	buf_free(&b);
	buf_free(&again);
	return 0;
}
