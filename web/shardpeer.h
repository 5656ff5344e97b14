/* SPDX-License-Identifier: Apache-2.0 */
/* shardpeer: the rollout guard's view of the other shards of a fleet ([rollout] shards). A
 * thread of its own reads each other shard's evidence export with its rollout counts
 * (GET URL/api/v1/evidence?rollout=yes, [web] credentials when set) and hands them to the
 * guard, which counts them as the fleet's own; a shard not read is said so (reason, metric),
 * and the guard then never says go. It never runs on the event loop, and never puts a URL or
 * a credential in a log line, a metric or a reason. */
#ifndef WGWATCH_SHARDPEER_H
#define WGWATCH_SHARDPEER_H

#include "daemon/conf.h"
#include "detector/detector.h"
#include "detector/rollout.h"

typedef struct shardpeer shardpeer_t;

/* Ask every other shard of conf once, with a timeout each, into *out (rollfleet_said_clear after);
 * nothing when conf has no [rollout] shards. Any thread; blocks up to the timeouts. */
void shardpeer_ask(const conf_t *conf, struct rollfleet_said *out);

/* For a router another shard of conf polls: its architecture and board (each NULL when unknown)
 * as that shard's /api/v1/routers says, into *arch and *board (caller frees). 0 (both NULL for
 * a router of this shard, or without [rollout] shards), or -1 with *cause (caller frees). */
int shardpeer_router_kind(const conf_t *conf, const char *router, char **arch, char **board, char **cause);

/* Start the thread that asks again every so often when conf has [rollout] shards; *out NULL
 * (and 0) when not. conf and detector must outlive it. -1 with *cause (caller frees). */
int shardpeer_start(const conf_t *conf, detector_t *detector, shardpeer_t **out, char **cause);
void shardpeer_stop(shardpeer_t *p); /* aborts an ask in flight, joins the thread; NULL is fine */

#endif
