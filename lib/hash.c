/* SPDX-License-Identifier: Apache-2.0 */
/* hash: FNV-1a (http://www.isthe.com/chongo/tech/comp/fnv/), 32 and 64 bits. Pure functions. */
#include "config.h"
#include "lib/hash.h"

#define HASH_OFFSET32 2166136261u
#define HASH_PRIME32  16777619u
#define HASH_OFFSET64 14695981039346656037ull
#define HASH_PRIME64  1099511628211ull

uint32_t hash_bytes32(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t h = HASH_OFFSET32;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HASH_PRIME32;
	return h;
}

uint32_t hash_str32(const char *s)
{
	uint32_t h = HASH_OFFSET32;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HASH_PRIME32;
	return h;
}

uint64_t hash_str64(const char *s)
{
	uint64_t h = HASH_OFFSET64;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * HASH_PRIME64;
	return h;
}

uint64_t hash_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}
