/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_pollchunk: libFuzzer harness for store/pollchunk.c's reader, which turns bytes the store
 * is to keep on disk (a damaged or hostile database file) back into polls rows. A chunk is
 * refused or read; every row of one read whole goes into a new chunk, which must give the same
 * rows back, and a read of some of its BLOBs (pollchunk_decode_some) the same rows with the others
 * NULL, and a read that starts inside it (pollchunk_seek) the same rows from there on. It must
 * never touch a file. */
#undef NDEBUG
#include "config.h"
#include "store/pollchunk.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_str(buf_t *b, const char *s)
{
	buf_printf(b, "%d:", s ? (int)strlen(s) : -1);
	if (s)
		buf_puts(b, s);
}

/* Row r as bytes, every column; the BLOBs mask leaves out as NULL. */
static void fuzz_flat(buf_t *b, const struct pollchunk_row *r, unsigned mask)
{
	buf_printf(b, "%lld,%lld,%d,%lld,", (long long)r->time_ms, (long long)r->duration_ms, r->have_mhz,
		(long long)(r->have_mhz ? r->cpu_mhz : 0));
	fuzz_str(b, r->source);
	fuzz_str(b, r->err);
	fuzz_str(b, r->error);
	for (int i = 0; i < POLLCHUNK_NBLOB; i++) {
		bool on = r->blob[i] != NULL && (mask & (1u << i));
		buf_printf(b, "%d:", on ? (int)r->len[i] : -1);
		if (on)
			buf_append(b, r->blob[i], r->len[i]);
	}
}

/* Every row of the chunk at p from time `from` on, walked to or (seek) past the earlier ones by
 * pollchunk_seek, read with the BLOBs of mask, flattened with those of shown into flat, each
 * added to pc when not NULL; false when it is refused or turns out malformed. */
static bool fuzz_read_from(const void *p, size_t len, unsigned mask, unsigned shown, int64_t from, bool seek,
	buf_t *flat, pollchunk_t *pc)
{
	const char *why;
	struct pollchunk_row r;
	int rc;
	pollchunk_read_t *rd = mask == (1u << POLLCHUNK_NBLOB) - 1
		? pollchunk_decode(p, len, &why)
		: pollchunk_decode_some(p, len, mask, &why);
	if (rd == NULL)
		return false;
	if (seek)
		pollchunk_seek(rd, from);
	while ((rc = pollchunk_next(rd, &r, &why)) == 1) {
		if (r.time_ms < from)
			continue; /* the walk's rows before it */
		fuzz_flat(flat, &r, shown);
		if (pc != NULL)
			assert(pollchunk_add(pc, &r, &why) == 0);
	}
	pollchunk_read_free(rd);
	return rc == 0;
}

static bool fuzz_read(const void *p, size_t len, unsigned mask, unsigned shown, buf_t *flat, pollchunk_t *pc)
{
	return fuzz_read_from(p, len, mask, shown, INT64_MIN, false, flat, pc);
}

/* The time of the chunk's middle row, or INT64_MIN. */
static int64_t fuzz_middle(const void *p, size_t len)
{
	const char *why;
	struct pollchunk_row r;
	int64_t t = INT64_MIN;
	pollchunk_read_t *rd = pollchunk_decode(p, len, &why);
	for (size_t i = 0, n = rd ? pollchunk_rows(rd) / 2 + 1 : 0; i < n; i++)
		if (pollchunk_next(rd, &r, &why) == 1)
			t = r.time_ms;
	pollchunk_read_free(rd);
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	buf_t a, b, again;
	buf_init(&a);
	buf_init(&b);
	buf_init(&again);
	pollchunk_t *pc = pollchunk_new();
	unsigned all = (1u << POLLCHUNK_NBLOB) - 1, some = (unsigned)size & all;
	if (fuzz_read(data, size, all, all, &a, pc)) {
		pollchunk_encode(pc, &again);
		assert(fuzz_read(again.data, again.len, all, all, &b, NULL));
		assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
		buf_reset(&a);
		buf_reset(&b);
		/* some of the BLOBs: the rows read whole, the others NULL */
		assert(fuzz_read(data, size, all, some, &a, NULL));
		assert(fuzz_read(data, size, some, some, &b, NULL));
		assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
		/* from the middle on: the walk's rows from there, seeking past the rest */
		int64_t mid = fuzz_middle(data, size);
		buf_reset(&a);
		buf_reset(&b);
		assert(fuzz_read_from(data, size, some, some, mid, false, &a, NULL));
		assert(fuzz_read_from(data, size, some, some, mid, true, &b, NULL));
		assert(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
	} else {
		fuzz_read(data, size, some, some, &a, NULL); /* refused or read, never past its bytes */
		fuzz_read_from(
			data, size, some, some, fuzz_middle(data, size), true, &b, NULL); /* and seeking */
	}
	pollchunk_free(pc);
	buf_free(&a);
	buf_free(&b);
	buf_free(&again);
	return 0;
}
