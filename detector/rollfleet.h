/* SPDX-License-Identifier: Apache-2.0 */
/* rollfleet: what the other shards of a fleet ([rollout] shards) said of their rollout counts,
 * held for the rollout guard under a lock of its own: replaced whole by the shards' reader,
 * copied and summed by the guard. Pure data: no I/O, no clock; it never holds a URL. */
#ifndef WGWATCH_ROLLFLEET_H
#define WGWATCH_ROLLFLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/conf.h"
#include "detector/evidread.h"

/* One other shard, as last asked. */
struct rollfleet_shard {
	int index;       /* K of K/N */
	bool up;         /* its evidence was read at the last ask */
	char cause[160]; /* why not, when !up; never a URL or a credential */
};

/* What the other shards said at one ask: their states, and the rollout rows of those up
 * (strings owned). */
struct rollfleet_said {
	struct rollfleet_shard *shards;
	size_t nshards;
	struct evidread_rollout *rows;
	size_t nrows;
};
void rollfleet_said_clear(struct rollfleet_said *s); /* frees what s holds, strings too */

typedef struct rollfleet rollfleet_t;

/* The other shards of conf's [rollout] shards (none without), not asked yet. */
rollfleet_t *rollfleet_create(const conf_t *conf);
void rollfleet_free(rollfleet_t *f); /* NULL is fine */
/* Replace what the shards said with a copy of s; any thread. */
void rollfleet_set(rollfleet_t *f, const struct rollfleet_said *s);
/* A copy of what they said last into *out (rollfleet_said_clear after); none for NULL f. */
void rollfleet_copy(rollfleet_t *f, struct rollfleet_said *out);
/* The counts of s's rows of version, architecture (NULL: any) and board (NULL: any), added up
 * into *sum (its strings NULL). */
void rollfleet_sum(const struct rollfleet_said *s, const char *version, const char *arch, const char *board,
	struct evidread_rollout *sum);

#endif
