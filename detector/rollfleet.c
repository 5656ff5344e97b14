/* SPDX-License-Identifier: Apache-2.0 */
/* rollfleet: the other shards' rollout counts kept for the rollout guard: a copy in, a copy
 * out, under a mutex, so that the shards' reader and the guard's readers (HTTP, pages, the
 * detector) never share a row. It must never do I/O, and never hold a URL or a credential. */
#include "config.h"
#include "detector/rollfleet.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xmem.h"

struct rollfleet {
	pthread_mutex_t mu;
	struct rollfleet_said said;
};

static char *rollfleet_strdup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* s copied into *out, strings too. */
static void rollfleet_dup(const struct rollfleet_said *s, struct rollfleet_said *out)
{
	out->shards = xcalloc(s->nshards + 1, sizeof(*out->shards));
	out->rows = xcalloc(s->nrows + 1, sizeof(*out->rows));
	if (s->nshards > 0)
		memcpy(out->shards, s->shards, s->nshards * sizeof(*s->shards));
	for (size_t i = 0; i < s->nrows; i++) {
		out->rows[i] = s->rows[i];
		out->rows[i].to_version = rollfleet_strdup(s->rows[i].to_version);
		out->rows[i].architecture = rollfleet_strdup(s->rows[i].architecture);
		out->rows[i].board = rollfleet_strdup(s->rows[i].board);
	}
	out->nshards = s->nshards;
	out->nrows = s->nrows;
}

void rollfleet_said_clear(struct rollfleet_said *s)
{
	for (size_t i = 0; i < s->nrows; i++) {
		free((char *)s->rows[i].to_version);
		free((char *)s->rows[i].architecture);
		free((char *)s->rows[i].board);
	}
	free(s->rows);
	free(s->shards);
	*s = (struct rollfleet_said){ 0 };
}

rollfleet_t *rollfleet_create(const conf_t *conf)
{
	rollfleet_t *f = xcalloc(1, sizeof(*f));
	pthread_mutex_init(&f->mu, NULL);
	if (conf->nrollout_shards < 2)
		return f;
	f->said.shards = xcalloc(conf->nrollout_shards, sizeof(*f->said.shards));
	for (size_t k = 1; k <= conf->nrollout_shards; k++)
		if ((int)k != conf->shard.index)
			f->said.shards[f->said.nshards++] = (struct rollfleet_shard){ .index = (int)k,
				.cause = "not asked yet" };
	return f;
}

void rollfleet_free(rollfleet_t *f)
{
	if (f == NULL)
		return;
	rollfleet_said_clear(&f->said);
	pthread_mutex_destroy(&f->mu);
	free(f);
}

void rollfleet_set(rollfleet_t *f, const struct rollfleet_said *s)
{
	struct rollfleet_said copy, old;
	rollfleet_dup(s, &copy);
	pthread_mutex_lock(&f->mu);
	old = f->said;
	f->said = copy;
	pthread_mutex_unlock(&f->mu);
	rollfleet_said_clear(&old);
}

void rollfleet_copy(rollfleet_t *f, struct rollfleet_said *out)
{
	*out = (struct rollfleet_said){ 0 };
	if (f == NULL)
		return;
	pthread_mutex_lock(&f->mu);
	rollfleet_dup(&f->said, out);
	pthread_mutex_unlock(&f->mu);
}

static bool rollfleet_eq(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

void rollfleet_sum(const struct rollfleet_said *s, const char *version, const char *arch, const char *board,
	struct evidread_rollout *sum)
{
	*sum = (struct evidread_rollout){ 0 };
	for (size_t i = 0; i < s->nrows; i++) {
		const struct evidread_rollout *w = &s->rows[i];
		if (!rollfleet_eq(w->to_version, version) ||
			(arch != NULL && !rollfleet_eq(w->architecture, arch)) ||
			(board != NULL && !rollfleet_eq(w->board, board)))
			continue;
		sum->routers += w->routers, sum->canaries += w->canaries, sum->judged += w->judged;
		sum->regressed += w->regressed, sum->pending += w->pending;
	}
}
