/* SPDX-License-Identifier: Apache-2.0 */
/* shard: which routers of a fleet configuration this daemon owns under [daemon] shard = K/N,
 * so that N daemons can share one configuration. A router belongs to shard
 * fnv1a32(name) % N + 1. Operators size and route by this: the hash must never change
 * (tests/unit/shard_test.c pins it with fixed vectors). Never logs, never does I/O. */
#ifndef WGWATCH_SHARD_H
#define WGWATCH_SHARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/conf.h"

/* 32-bit FNV-1a over the bytes of name (no terminating NUL). */
uint32_t shard_hash(const char *name);

/* Whether shard sh (K/N) owns the router called name; 1/1 owns every name. */
bool shard_owns(const struct conf_shard *sh, const char *name);

/* Keep only the routers of c that c->shard owns, in config order, and free the others,
 * noting in c->rollout_fleet_canary whether one of those carried the canary label. Returns how many routers c had before (c->nrouters is how many it keeps). */
size_t shard_apply(conf_t *c);

#endif
