/* SPDX-License-Identifier: Apache-2.0 */
/* chunk_test: store/chunk.c's codec. Every value and time comes back as it went in (counters
 * that wrap, signed values, series with gaps, a full chunk), a chunk is smaller than its
 * values whole, a reader of some series gets exactly those, and every truncation and every single-byte change of a chunk is refused or
 * decoded without reading past it (ASan runs it too). */
#include "config.h"
#include "store/chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static uint64_t chunk_rng = 88172645463325252ULL;

static uint64_t rnd(void)
{
	chunk_rng ^= chunk_rng << 13;
	chunk_rng ^= chunk_rng >> 7;
	chunk_rng ^= chunk_rng << 17;
	return chunk_rng;
}

/* The value series s has at poll i, or false where the test gives it none. */
static bool model(size_t s, size_t i, uint64_t *v)
{
	switch (s % 5) {
	case 0: /* a byte counter near the top of 64 bits: it wraps */
		*v = UINT64_MAX - 5000000 + i * 1250000 + (rnd() % 1000);
		return true;
	case 1: /* a signed value, negative */ *v = (uint64_t)(-20000 + (int64_t)(rnd() % 500)); return true;
	case 2: /* a load in per mille */ *v = rnd() % 1001; return true;
	case 3: /* a peer that comes and goes */ *v = 1000 * i; return (i / 7) % 2 == 0;
	default: /* an age that grows, then starts again */ *v = (i % 13) * 30000; return i != 5;
	}
}

/* A chunk of np polls of ns series into out; the values, [s * np + i], into want/has. */
static void build(size_t np, size_t ns, buf_t *out, uint64_t *want, bool *has, int64_t *t)
{
	chunk_t *c = chunk_new();
	for (size_t i = 0; i < np; i++) {
		t[i] = 1764950400000LL + (int64_t)i * 30000 + (int64_t)(rnd() % 50);
		CHECK_INT(chunk_poll(c, t[i]), 0);
		for (size_t s = 0; s < ns; s++) {
			has[s * np + i] = model(s, i, &want[s * np + i]);
			if (has[s * np + i])
				CHECK_INT(chunk_put(c, 1000 + s * 7, want[s * np + i]), 0);
		}
	}
	CHECK_INT(chunk_len(c), np);
	chunk_encode(c, out);
	chunk_free(c);
}

static bool keep_even(uint64_t id, void *arg)
{
	(void)arg;
	return id % 2 == 0;
}

static void test_round_trip(size_t np, size_t ns)
{
	buf_t b;
	buf_init(&b);
	uint64_t *want = calloc(np * ns, sizeof(*want));
	bool *has = calloc(np * ns, sizeof(*has));
	int64_t *t = calloc(np, sizeof(*t));
	build(np, ns, &b, want, has, t);
	const char *why = NULL;
	chunk_read_t *r = chunk_decode(b.data, b.len, &why);
	CHECK(r != NULL);
	if (r == NULL) {
		fprintf(stderr, "  decode: %s\n", why);
		goto out;
	}
	CHECK_INT(chunk_polls(r), np);
	CHECK_INT(chunk_nseries(r), ns);
	size_t wrong = 0;
	for (size_t i = 0; i < np; i++)
		wrong += chunk_time(r, i) != t[i];
	for (size_t s = 0; s < ns && s < chunk_nseries(r); s++) {
		CHECK_INT(chunk_series_id(r, s), 1000 + s * 7);
		for (size_t i = 0; i < np; i++) {
			uint64_t v = 0;
			bool got = chunk_value(r, s, i, &v);
			wrong += got != has[s * np + i] || (got && v != want[s * np + i]);
		}
	}
	CHECK_INT(wrong, 0);
	wrong = 0; /* the odd series' ids left undecoded: they have no values, the rest as before */
	chunk_read_t *some = chunk_decode_some(b.data, b.len, keep_even, NULL, &why);
	CHECK(some != NULL);
	for (size_t s = 0; some != NULL && s < ns; s++)
		for (size_t i = 0, cur = 0; i < np; i++) {
			uint64_t v = 0;
			bool got = chunk_next(some, s, i, &cur, &v), odd = (1000 + s * 7) % 2;
			wrong += odd ? got : got != has[s * np + i] || (got && v != want[s * np + i]);
		}
	CHECK_INT(wrong, 0);
	wrong = 0; /* chunk_count: the values before each poll (those of chunk_next's *cur), none when undecoded */
	for (size_t s = 0; some != NULL && s < ns; s++)
		for (size_t i = 0, n = 0; i <= np; i++) {
			bool odd = (1000 + s * 7) % 2;
			wrong += chunk_count(r, s, i) != n || chunk_count(some, s, i) != (odd ? 0 : n);
			n += i < np && has[s * np + i];
		}
	CHECK_INT(wrong, 0);
	chunk_read_free(some);
	/* a full hour: under a third of the values and times as 8-byte words */
	if (np >= 120)
		CHECK(b.len < (np * ns + np) * 8 / 3);
	chunk_read_free(r);
out:
	buf_free(&b);
	free(want);
	free(has);
	free(t);
}

static void test_refused_puts(void)
{
	chunk_t *c = chunk_new();
	CHECK_INT(chunk_put(c, 1, 1), -1); /* no poll yet */
	CHECK_INT(chunk_poll(c, 1000), 0);
	CHECK_INT(chunk_poll(c, 999), -1); /* time goes back */
	CHECK_INT(chunk_put(c, 1, 1), 0);
	CHECK_INT(chunk_put(c, 1, 2), -1); /* twice in a poll */
	for (size_t i = 1; i < CHUNK_MAX_POLLS; i++)
		CHECK_INT(chunk_poll(c, 1000 + (int64_t)i), 0);
	CHECK_INT(chunk_poll(c, 999999), -1); /* full */
	chunk_free(c);
}

/* Every prefix and every one-byte change of a chunk: refused, or decoded and read whole. */
static void test_hostile(void)
{
	buf_t b;
	buf_init(&b);
	uint64_t want[40 * 5];
	bool has[40 * 5];
	int64_t t[40];
	build(40, 5, &b, want, has, t);
	const char *why;
	size_t refused = 0, changes = 0;
	for (size_t n = 0; n < b.len; n++) {
		chunk_read_t *r = chunk_decode(b.data, n, &why);
		refused += r == NULL;
		chunk_read_free(r);
	}
	CHECK_INT(refused, b.len); /* every truncation */
	uint8_t *copy = malloc(b.len);
	for (size_t n = 0; n < b.len; n++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(copy, b.data, b.len);
			copy[n] ^= (uint8_t)(1u << bit);
			chunk_read_t *r = chunk_decode(copy, b.len, &why);
			for (size_t s = 0; r && s < chunk_nseries(r); s++)
				for (size_t i = 0; i < chunk_polls(r); i++) {
					uint64_t v;
					changes += chunk_value(r, s, i, &v);
				}
			chunk_read_free(r);
		}
	CHECK(changes > 0);
	CHECK(chunk_decode("", 0, &why) == NULL);
	CHECK(chunk_decode("\x02", 1, &why) == NULL);
	free(copy);
	buf_free(&b);
}

int main(void)
{
	test_round_trip(1, 1);
	test_round_trip(2, 5);
	test_round_trip(120, 40);
	test_round_trip(CHUNK_MAX_POLLS, 10);
	test_refused_puts();
	test_hostile();
	return unit_done("chunk_test");
}
