/* SPDX-License-Identifier: Apache-2.0 */
/* shard: the router-to-shard mapping of [daemon] shard = K/N, applied to a loaded config in one
 * place (wgwatchd's start, --check, --once, --report and every reload), so that the poller,
 * fleet, store, detector, metrics and API of a shard only ever see its own routers. It must
 * never change the hash: the same name always lands on the same shard. */
#include "config.h"
#include "daemon/shard.h"

#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/xmem.h"

/* 32-bit FNV-1a; shard_test pins its values, so lib/hash can never change under a fleet. */
uint32_t shard_hash(const char *name)
{
	return hash_str32(name);
}

bool shard_owns(const struct conf_shard *sh, const char *name)
{
	if (sh->count <= 1)
		return true;
	return (int)(shard_hash(name) % (uint32_t)sh->count) + 1 == sh->index;
}

/* Whether router r carries the canary label of [rollout] canary ("name=value"). */
static bool shard_canary(const conf_t *c, const conf_router_t *r)
{
	const char *want = c->rollout_canary ? c->rollout_canary : "role=canary";
	size_t kl = strcspn(want, "=");
	for (size_t k = 0; k < r->nlabels; k++)
		if (strlen(r->labels[k].key) == kl && strncmp(r->labels[k].key, want, kl) == 0 &&
			want[kl] == '=' && strcmp(r->labels[k].value, want + kl + 1) == 0)
			return true;
	return false;
}

size_t shard_apply(conf_t *c)
{
	size_t total = c->nrouters, keep = 0;
	if (c->shard.count <= 1)
		return total;
	/* The routers dropped go to a config of their own, which conf_free can free whole. */
	conf_t *drop = xcalloc(1, sizeof(*drop));
	drop->routers = xcalloc(total + 1, sizeof(*drop->routers));
	for (size_t i = 0; i < total; i++) {
		if (shard_owns(&c->shard, c->routers[i].name))
			c->routers[keep++] = c->routers[i];
		else {
			c->rollout_fleet_canary |= shard_canary(c, &c->routers[i]);
			drop->routers[drop->nrouters++] = c->routers[i];
		}
	}
	c->nrouters = keep;
	conf_free(drop);
	return total;
}
