/* SPDX-License-Identifier: Apache-2.0 */
/* rollchunk_test: store/rollchunk.c. Roll-up rows of each kind (cores that come and go, NULL
 * rates, values at both ends of 64 bits: counters past 2^63 stored negative, wide sums clamped)
 * come back from their chunk value for value; what a table could not hold is refused; every
 * truncation and single-byte change of a chunk is refused or read without reading past it (ASan
 * runs it too). */
#include "config.h"
#include "store/rollchunk.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define RT_ROWS 600

/* Row i of kind: a bucket every 5 minutes with a gap; CPU cores 0..2 (3 from row 100, core 1
 * missing now and then), rates NULL every 7th row, values at the ends of int64. */
static bool rt_row(enum rollchunk_kind kind, int i, struct rollchunk_row *r)
{
	static const int64_t odd[] = { INT64_MIN, INT64_MAX, -1, 0, (int64_t)(1ULL << 63 | 12345) };
	bool cpu = rollchunk_is_cpu(kind);
	int per = cpu ? (i / 4 < 100 ? 3 : 4) : 1;
	int b = i / 4, core = cpu ? i % 4 : 0;
	int nulls = kind >= ROLLCHUNK_NKIND_5M ? 2 : 1; /* the first rate column: the hourly have m */
	if (!cpu && i % 4 != 0)
		return false;
	if (core >= per || (cpu && core == 1 && b % 11 == 3))
		return false;
	*r = (struct rollchunk_row){ .bucket_ms = 1700000100000LL + 300000LL * (b + (b > 50 ? 40 : 0)),
		.core = core };
	for (int c = 0; c < rollchunk_ncols(kind); c++) {
		bool null = !cpu && c >= nulls && c < nulls + 4 && b % 7 == 2;
		if (null)
			continue;
		r->have |= 1u << c;
		r->v[c] = b % 13 == 5 ? odd[(b + c) % 5] : (int64_t)b * 1000 * (c + 1) + core * 7 - c;
	}
	return true;
}

static bool rt_same(const struct rollchunk_row *a, const struct rollchunk_row *b)
{
	bool same = a->bucket_ms == b->bucket_ms && a->core == b->core && a->have == b->have;
	for (int c = 0; c < ROLLCHUNK_MAXCOL; c++)
		same &= !((a->have >> c) & 1) || a->v[c] == b->v[c];
	return same;
}

static size_t rt_build(enum rollchunk_kind kind, buf_t *out)
{
	const char *why = NULL;
	rollchunk_t *rc = rollchunk_new(kind);
	struct rollchunk_row r;
	for (int i = 0; i < RT_ROWS * 4; i++)
		if (rt_row(kind, i, &r))
			CHECK_INT(rollchunk_add(rc, &r, &why), 0);
	size_t n = rollchunk_len(rc);
	rollchunk_encode(rc, out);
	rollchunk_free(rc);
	return n;
}

static void test_roundtrip(void)
{
	for (int k = 0; k < ROLLCHUNK_NKIND; k++) {
		buf_t b;
		buf_init(&b);
		size_t n = rt_build((enum rollchunk_kind)k, &b), got = 0;
		const char *why = NULL;
		rollchunk_read_t *rd = rollchunk_decode((enum rollchunk_kind)k, b.data, b.len, &why);
		CHECK(rd != NULL);
		struct rollchunk_row want, r;
		for (int i = 0; rd != NULL && i < RT_ROWS * 4; i++) {
			if (!rt_row((enum rollchunk_kind)k, i, &want))
				continue;
			CHECK_INT(rollchunk_next(rd, &r, &why), 1);
			CHECK(rt_same(&r, &want));
			got++;
		}
		CHECK_INT(rollchunk_next(rd, &r, &why), 0);
		CHECK_INT(got, n);
		printf("  kind %d: %zu rows in %zu bytes\n", k, n, b.len);
		rollchunk_read_free(rd);
		/* another kind's reader refuses it */
		CHECK(rollchunk_decode(
			      (enum rollchunk_kind)((k + 1) % ROLLCHUNK_NKIND), b.data, b.len, &why) == NULL);
		buf_free(&b);
	}
}

static void test_refused(void)
{
	const char *why = NULL;
	rollchunk_t *rc = rollchunk_new(ROLLCHUNK_IFACE);
	struct rollchunk_row r = { .bucket_ms = 600000, .have = 0x61, .v = { 1, 0, 0, 0, 0, 5, 6 } };
	CHECK_INT(rollchunk_add(rc, &r, &why), 0);
	CHECK_INT(rollchunk_add(rc, &r, &why), -1); /* the same bucket again */
	r.bucket_ms += 300000;
	r.have = 0x21; /* tx_bytes_end NULL */
	CHECK_INT(rollchunk_add(rc, &r, &why), -1);
	r.have = 0xe1; /* a column past the table's */
	CHECK_INT(rollchunk_add(rc, &r, &why), -1);
	r.have = 0x61;
	r.core = 1; /* an interface has no core */
	CHECK_INT(rollchunk_add(rc, &r, &why), -1);
	rollchunk_free(rc);
	rc = rollchunk_new(ROLLCHUNK_CPU);
	r = (struct rollchunk_row){ .bucket_ms = 0, .core = ROLLCHUNK_MAX_CORE + 1, .have = 0xf };
	CHECK_INT(rollchunk_add(rc, &r, &why), -1);
	r.core = 2;
	CHECK_INT(rollchunk_add(rc, &r, &why), 0);
	r.core = 1; /* a core before the last in its bucket */
	CHECK_INT(rollchunk_add(rc, &r, &why), -1);
	rollchunk_free(rc);
	CHECK(rollchunk_decode(ROLLCHUNK_CPU, "", 0, &why) == NULL);
	CHECK(rollchunk_decode(ROLLCHUNK_NKIND, "\3", 1, &why) == NULL);
}

/* Read a (maybe damaged) chunk to its end or its first error: never past its bytes. */
static void rt_read_all(enum rollchunk_kind k, const char *p, size_t len)
{
	const char *why = NULL;
	char *copy = xmalloc(len + 1); /* exactly len bytes that ASan watches */
	memcpy(copy, p, len);
	rollchunk_read_t *rd = rollchunk_decode(k, copy, len, &why);
	struct rollchunk_row r;
	while (rd != NULL && rollchunk_next(rd, &r, &why) == 1)
		;
	rollchunk_read_free(rd);
	free(copy);
}

static void test_damaged(void)
{
	for (int k = 0; k < ROLLCHUNK_NKIND; k++) {
		buf_t b;
		buf_init(&b);
		rt_build((enum rollchunk_kind)k, &b);
		for (size_t n = 0; n < b.len; n++)
			rt_read_all((enum rollchunk_kind)k, b.data, n);
		for (size_t i = 0; i < b.len; i += (i < 64 ? 1 : 7)) {
			char save = b.data[i];
			b.data[i] = (char)(save ^ 0x5a);
			rt_read_all((enum rollchunk_kind)k, b.data, b.len);
			b.data[i] = save;
		}
		buf_free(&b);
	}
	CHECK(1); /* reached: no crash, no read past a chunk */
}

int main(void)
{
	test_roundtrip();
	test_refused();
	test_damaged();
	return unit_done("rollchunk_test");
}
