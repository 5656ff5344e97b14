/* SPDX-License-Identifier: Apache-2.0 */
/* hash: FNV-1a over strings and bytes, for tables and stable per-name phases, and a 64-bit
 * integer mix for deterministic pseudo-random draws (the sim). Not for secrets
 * or anything an attacker chooses to collide (use it where a collision costs only speed). */
#ifndef WGWATCH_HASH_H
#define WGWATCH_HASH_H

#include <stddef.h>
#include <stdint.h>

uint32_t hash_str32(const char *s);             /* 32-bit FNV-1a of a NUL-terminated string */
uint32_t hash_bytes32(const void *p, size_t n); /* 32-bit FNV-1a of n bytes */
uint64_t hash_str64(const char *s);             /* 64-bit FNV-1a of a NUL-terminated string */
uint64_t hash_mix64(uint64_t x);                /* a bijective avalanche of x (fmix64's steps) */

#endif
