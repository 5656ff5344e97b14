/* SPDX-License-Identifier: Apache-2.0 */
/* restpeers: the kept peer details of one router (collectors/restpeers.h), in the order the
 * router lists its peers. No I/O; it decodes through restdecode.h and owns every string it
 * keeps. It must never keep or ask for private or preshared keys.
 * Kept for every router between polls, so kept compactly: the strings in one block, each once
 * per peer (a label that is the key, an interface like the peer before), which the polls'
 * samples share (sample_hold) rather than copy; the details themselves are the newest poll's
 * sealed peers (sample_seal), the table the fleet and the store keep too, and beside them only
 * each peer's .id. */
#include "config.h"
#include "collectors/restpeers.h"
#include "collectors/restdecode.h"
#include "daemon/rate.h"
#include "lib/clock.h"
#include "lib/xmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RESTPEERS_NULL UINT32_MAX /* an offset standing for a NULL string */

struct restpeers_entry { /* a row of the full reply being kept: offsets into str, or RESTPEERS_NULL */
	uint32_t id, interface, peer, public_key, endpoint, allowed;
};

struct restpeers {
	/* valid: the last full reply, every row with an .id; n kept peers, the i-th with .id at
	 * offset id[i] of strs and its details at table's (at + i)-th peer */
	uint32_t *id;
	size_t n;
	sample_peers_t *table; /* the newest poll's sealed peers; NULL when n is 0 */
	size_t at;
	sample_strs_t *strs; /* the kept strings, each with its NUL, once built; else NULL */
	/* while a full reply is kept: its rows, and strs being built */
	struct restpeers_entry *e;
	size_t ne, cap;
	char *str;
	size_t len, cap_str;
	/* while a counters-only reply is decoded: the kept peers it matched, and for its j-th row
	 * (from first on) the kept one it is */
	bool *seen;
	uint32_t *from;
	size_t first;
	bool valid;
	bool pending;   /* a peers request was planned and no reply decoded since */
	bool full;      /* the request in hand asks the details */
	bool keep;      /* ... and its answer is to be kept (peer_details_every > 1) */
	bool miss;      /* the counters reply being decoded named a peer not kept */
	size_t matched; /* kept peers it named */
	int since;      /* counters-only polls since the last full one */
	char *version;  /* of the last planned poll */
	int64_t uptime_ms, mono_ms;
};

restpeers_t *restpeers_create(void)
{
	restpeers_t *k = xcalloc(1, sizeof(restpeers_t));
	k->uptime_ms = -1;
	return k;
}

static void restpeers_clear(restpeers_t *k)
{
	k->n = k->ne = 0;
	k->len = 0;
	k->valid = false;
	free(k->id);
	k->id = NULL;
	sample_peers_unref(k->table);
	k->table = NULL;
	sample_strs_unref(k->strs);
	k->strs = NULL;
}

void restpeers_destroy(restpeers_t *k)
{
	if (k == NULL)
		return;
	restpeers_clear(k);
	free(k->e);
	free(k->str);
	free(k->version);
	free(k);
}

static bool restpeers_same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

void restpeers_plan(restpeers_t *k, const conf_router_t *rc, const sample_t *s)
{
	int64_t now = clock_mono_ms();
	bool restarted = k->mono_ms > 0 && rate_restarted(k->uptime_ms, s->uptime_ms, now - k->mono_ms);
	k->full = !k->valid || k->pending || k->since + 1 >= rc->peer_details_every || restarted ||
		!restpeers_same(k->version, s->version);
	k->keep = rc->peer_details_every > 1; /* else nothing would ever read it */
	k->since = k->full ? 0 : k->since + 1;
	k->pending = true;
	free(k->version);
	k->version = xstrdup(s->version);
	k->uptime_ms = s->uptime_ms;
	k->mono_ms = now;
}

bool restpeers_full(const restpeers_t *k)
{
	return k->full;
}

/* The kept string at off, NULL for RESTPEERS_NULL: in strs, else in the one being built. */
static const char *restpeers_str(const restpeers_t *k, uint32_t off)
{
	if (off == RESTPEERS_NULL)
		return NULL;
	return (k->strs != NULL ? sample_strs_data(k->strs) : k->str) + off;
}

/* str's offset in k->str: that of one of the nsame kept strings equal to it, else a new copy's;
 * false when the block would outgrow an offset. */
static bool restpeers_put(restpeers_t *k, const char *str, const uint32_t *same, size_t nsame, uint32_t *off)
{
	*off = RESTPEERS_NULL;
	if (str == NULL)
		return true;
	for (size_t i = 0; i < nsame; i++)
		if (same[i] != RESTPEERS_NULL && strcmp(k->str + same[i], str) == 0) {
			*off = same[i];
			return true;
		}
	size_t n = strlen(str) + 1;
	if (k->len + n >= RESTPEERS_NULL)
		return false;
	if (k->len + n > k->cap_str) {
		k->cap_str = k->cap_str ? 2 * k->cap_str : 256;
		while (k->cap_str < k->len + n)
			k->cap_str *= 2;
		k->str = xreallocarray(k->str, k->cap_str, 1);
	}
	memcpy(k->str + k->len, str, n);
	*off = (uint32_t)k->len;
	k->len += n;
	return true;
}

/* restdecode_peer_fn of a full reply: keep p's details under id. */
static void restpeers_keep(void *arg, sample_t *s, struct sample_peer *p, const char *id)
{
	restpeers_t *k = arg;
	(void)s;
	if (id == NULL || !k->valid) { /* no key to find it by: ask the details next time too */
		k->valid = false;
		return;
	}
	if (k->ne == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 16;
		k->e = xreallocarray(k->e, k->cap, sizeof(*k->e));
	}
	struct restpeers_entry *e = &k->e[k->ne];
	uint32_t before = k->ne > 0 ? k->e[k->ne - 1].interface : RESTPEERS_NULL;
	*e = (struct restpeers_entry){ 0 };
	bool ok = restpeers_put(k, id, NULL, 0, &e->id) &&
		restpeers_put(k, p->interface, &before, 1, &e->interface) &&
		restpeers_put(k, p->public_key, NULL, 0, &e->public_key) &&
		restpeers_put(k, p->peer, &e->public_key, 1, &e->peer) &&
		restpeers_put(k, p->endpoint, NULL, 0, &e->endpoint) &&
		restpeers_put(k, p->allowed, NULL, 0, &e->allowed);
	if (!ok) {
		k->valid = false;
		return;
	}
	k->ne++;
}

/* The kept peer of id not yet matched: the one at the same place first, as the router lists
 * its peers in the same order; k->n when none. */
static size_t restpeers_find(const restpeers_t *k, size_t at, const char *id)
{
	if (at < k->n && !k->seen[at] && strcmp(restpeers_str(k, k->id[at]), id) == 0)
		return at;
	for (size_t i = 0; i < k->n; i++)
		if (!k->seen[i] && strcmp(restpeers_str(k, k->id[i]), id) == 0)
			return i;
	return k->n;
}

/* p's details from kept peer i; s holds the block, so they are not copied. */
static void restpeers_set(const restpeers_t *k, size_t i, sample_t *s, struct sample_peer *p)
{
	const struct sample_peer *d = &sample_peers_get(k->table)[k->at + i];
	p->interface = sample_strdup(s, d->interface);
	p->public_key = sample_strdup(s, d->public_key);
	p->peer = sample_strdup(s, d->peer);
	p->endpoint = sample_strdup(s, d->endpoint);
	p->endpoint_port = d->endpoint_port;
	p->allowed = sample_strdup(s, d->allowed);
	p->disabled = d->disabled;
}

/* restdecode_peer_fn of a counters-only reply: p's details from the kept ones. */
static void restpeers_fill(void *arg, sample_t *s, struct sample_peer *p, const char *id)
{
	restpeers_t *k = arg;
	size_t row = s->npeers - 1 - k->first;
	size_t i = id != NULL ? restpeers_find(k, row, id) : k->n;
	if (i == k->n) {
		k->miss = true;
		return;
	}
	k->seen[i] = true;
	if (row < k->n)
		k->from[row] = (uint32_t)i;
	k->matched++;
	restpeers_set(k, i, s, p);
}

/* s's peers from first on, every kept one, are kept from now on: sealed, their table in place of
 * the one before, and the .ids in their order. */
static void restpeers_adopt(restpeers_t *k, sample_t *s, size_t first)
{
	sample_seal(s);
	for (size_t j = 0; j < k->n; j++)
		k->from[j] = k->id[k->from[j]];
	uint32_t *t = k->id;
	k->id = k->from, k->from = t;
	sample_peers_unref(k->table);
	k->table = sample_peers_ref(s);
	k->at = first;
}

/* s's peer p, kept as e: its strings from the block, so that copies of s share them too. */
static void restpeers_point(
	const restpeers_t *k, const struct restpeers_entry *e, sample_t *s, struct sample_peer *p)
{
	p->interface = sample_strdup(s, restpeers_str(k, e->interface));
	p->public_key = sample_strdup(s, restpeers_str(k, e->public_key));
	p->peer = sample_strdup(s, restpeers_str(k, e->peer));
	p->endpoint = sample_strdup(s, restpeers_str(k, e->endpoint));
	p->allowed = sample_strdup(s, restpeers_str(k, e->allowed));
}

/* Kept until the next full reply: the strings made a block, s's peers from the first on (the
 * ones kept) taking theirs from it, sealed; the rows' .ids beside. */
static void restpeers_finish(restpeers_t *k, sample_t *s, size_t first)
{
	k->n = k->ne;
	if (k->n > 0) {
		k->strs = sample_strs_new(k->str, k->len);
		if (sample_hold(s, k->strs))
			for (size_t i = 0; i < k->n; i++)
				restpeers_point(k, &k->e[i], s, &s->peers[first + i]);
		k->id = xreallocarray(NULL, k->n, sizeof(*k->id));
		for (size_t i = 0; i < k->n; i++)
			k->id[i] = k->e[i].id;
		sample_seal(s);
		k->table = sample_peers_ref(s);
		k->at = first;
	}
	free(k->e);
	k->e = NULL;
	k->ne = k->cap = 0;
	free(k->str);
	k->str = NULL;
	k->cap_str = 0;
}

static int restpeers_decode_full(restpeers_t *k, const char *body, size_t len, sample_t *s, char **cause)
{
	restpeers_clear(k);
	k->valid = k->keep; /* unless a row lacks an .id */
	size_t first = s->npeers;
	if (restdecode_peers_keyed(body, len, true, s, k->keep ? restpeers_keep : NULL, k, cause) < 0) {
		restpeers_clear(k);
		return -1;
	}
	if (k->keep && (!k->valid || k->ne != s->npeers - first))
		restpeers_clear(k);
	restpeers_finish(k, s, first);
	k->pending = false;
	return 0;
}

/* A counters-only reply: 0, -1 or RESTPEERS_AGAIN, as restpeers_decode. */
static int restpeers_decode_counters(restpeers_t *k, const char *body, size_t len, sample_t *s, char **cause)
{
	k->miss = false;
	k->matched = 0;
	k->first = s->npeers;
	if (k->strs != NULL)
		sample_hold(s, k->strs); /* else (no slot) the strings are copied */
	int rc = restdecode_peers_keyed(body, len, false, s, restpeers_fill, k, cause);
	if (rc < 0) {
		s->npeers = 0; /* rows missing details must not go on, even in a failed sample */
		return -1;     /* pending stays: the next poll asks the details */
	}
	if (k->miss || k->matched != k->n) {
		s->npeers = 0; /* their strings stay in s's pool until it is freed */
		s->have_peers = false;
		k->full = true;
		return RESTPEERS_AGAIN;
	}
	if (k->n > 0)
		restpeers_adopt(k, s, k->first);
	k->pending = false;
	return 0;
}

int restpeers_decode(restpeers_t *k, const char *body, size_t len, sample_t *s, char **cause)
{
	if (k->full)
		return restpeers_decode_full(k, body, len, s, cause);
	size_t n = k->n > 0 ? k->n : 1; /* for this reply only: between polls only the .ids */
	k->seen = xcalloc(n, sizeof(*k->seen));
	k->from = xcalloc(n, sizeof(*k->from));
	int rc = restpeers_decode_counters(k, body, len, s, cause);
	free(k->seen);
	free(k->from);
	k->seen = NULL, k->from = NULL;
	return rc;
}
