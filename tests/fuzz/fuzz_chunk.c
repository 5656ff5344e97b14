/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_chunk: libFuzzer harness for store/chunk.c's decoder, the reader of bytes the store
 * keeps on disk (a damaged or hostile database file). A chunk decodes or is refused; one that
 * decodes is built again from what it read, and that one must decode to the same times and
 * values; chunk_count agrees with them. It must never touch a file. */
#undef NDEBUG
#include "config.h"
#include "store/chunk.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* r built again: its polls and values through the builder. */
static void fuzz_rebuild(const chunk_read_t *r, buf_t *out)
{
	chunk_t *c = chunk_new();
	for (size_t i = 0; i < chunk_polls(r); i++) {
		assert(chunk_poll(c, chunk_time(r, i)) == 0);
		for (size_t s = 0; s < chunk_nseries(r); s++) {
			uint64_t v;
			if (chunk_value(r, s, i, &v))
				chunk_put(c, chunk_series_id(r, s), v); /* a repeated id: refused, as in r */
		}
	}
	chunk_encode(c, out);
	chunk_free(c);
}

/* The series of r whose id is id, SIZE_MAX when none, or when two have it (then the builder
 * kept the first's values and refused the other's). */
static size_t fuzz_series(const chunk_read_t *r, uint64_t id)
{
	size_t at = SIZE_MAX, n = 0;
	for (size_t s = 0; s < chunk_nseries(r); s++)
		if (chunk_series_id(r, s) == id)
			at = s, n++;
	return n == 1 ? at : SIZE_MAX;
}

/* Every value of a series of r with an id of its own is in again, at the same poll. */
static void fuzz_same_values(const chunk_read_t *r, const chunk_read_t *again)
{
	if (chunk_nseries(r) > 256) /* quadratic below: enough to check the small ones */
		return;
	for (size_t s = 0; s < chunk_nseries(r); s++) {
		size_t t = fuzz_series(again, chunk_series_id(r, s));
		if (fuzz_series(r, chunk_series_id(r, s)) == SIZE_MAX)
			continue;
		assert(t != SIZE_MAX);
		for (size_t i = 0; i < chunk_polls(r); i++) {
			uint64_t a, b;
			bool ha = chunk_value(r, s, i, &a), hb = chunk_value(again, t, i, &b);
			assert(ha == hb && (!ha || a == b));
		}
	}
}

static bool fuzz_odd(uint64_t id, void *arg)
{
	(void)arg;
	return id % 2 == 1;
}

/* A read of the odd series alone accepts what the whole read accepts, with the same values
 * there and none elsewhere. */
static void fuzz_some(const uint8_t *data, size_t size, const chunk_read_t *r)
{
	const char *why;
	chunk_read_t *some = chunk_decode_some(data, size, fuzz_odd, NULL, &why);
	assert(some != NULL && chunk_nseries(some) == chunk_nseries(r));
	for (size_t s = 0; s < chunk_nseries(r); s++)
		for (size_t i = 0, n = 0; i <= chunk_polls(r); i++) {
			uint64_t a = 0, b = 0;
			bool ha = chunk_value(r, s, i, &a), hb = chunk_value(some, s, i, &b);
			assert(chunk_series_id(r, s) % 2 ? ha == hb && (!ha || a == b) : !hb);
			/* chunk_count: the values before poll i, none for a series not decoded */
			assert(chunk_count(r, s, i) == n &&
				chunk_count(some, s, i) == (chunk_series_id(r, s) % 2 ? n : 0));
			n += ha;
		}
	chunk_read_free(some);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why;
	chunk_read_t *r = chunk_decode(data, size, &why);
	if (r == NULL) {
		chunk_read_free(chunk_decode_some(data, size, fuzz_odd, NULL, &why)); /* refused or read */
		return 0;
	}
	fuzz_some(data, size, r);
	buf_t b;
	buf_init(&b);
	fuzz_rebuild(r, &b);
	chunk_read_t *again = chunk_decode(b.data, b.len, &why);
	assert(again != NULL && chunk_polls(again) == chunk_polls(r));
	for (size_t i = 0; i < chunk_polls(r); i++)
		assert(chunk_time(again, i) == chunk_time(r, i));
	fuzz_same_values(r, again);
	chunk_read_free(again);
	chunk_read_free(r);
	buf_free(&b);
	return 0;
}
