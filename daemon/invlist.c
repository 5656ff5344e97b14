/* SPDX-License-Identifier: Apache-2.0 */
/* invlist: the groups of a file_sd target file as read (daemon/invlist.h). Arrays grow by
 * doubling; every string is a copy. It must never judge or drop what a reader hands it. */
#include "config.h"
#include "daemon/invlist.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

/* Room for item n of array p of size-byte items: doubled whenever n is 0 or a power of two. */
static void *invlist_grow(void *p, size_t n, size_t size)
{
	if ((n & (n - 1)) == 0)
		p = xreallocarray(p, n ? 2 * n : 1, size);
	return p;
}

struct invlist_group *invlist_group(invlist_t *l, int line)
{
	l->groups = invlist_grow(l->groups, l->ngroups, sizeof(*l->groups));
	struct invlist_group *g = &l->groups[l->ngroups++];
	*g = (struct invlist_group){ .line = line };
	return g;
}

void invlist_target(struct invlist_group *g, const char *s, size_t n, int line)
{
	g->targets = invlist_grow(g->targets, g->ntargets, sizeof(*g->targets));
	g->targets[g->ntargets++] = (struct invlist_target){ .s = s ? xstrndup(s, n) : NULL, .line = line };
}

void invlist_label(struct invlist_group *g, const char *name, size_t nn, const char *value, size_t vn)
{
	g->labels = invlist_grow(g->labels, g->nlabels, sizeof(*g->labels));
	g->labels[g->nlabels++] = (struct invlist_label){
		.name = xstrndup(name, nn),
		.value = value ? xstrndup(value, vn) : NULL,
	};
}

void invlist_unknown(struct invlist_group *g, const char *key, size_t n)
{
	if (g->unknown == NULL)
		g->unknown = xstrndup(key, n);
}

static void invlist_group_free(struct invlist_group *g)
{
	for (size_t i = 0; i < g->ntargets; i++)
		free(g->targets[i].s);
	for (size_t i = 0; i < g->nlabels; i++) {
		free(g->labels[i].name);
		free(g->labels[i].value);
	}
	free(g->targets);
	free(g->labels);
	free(g->unknown);
}

void invlist_free(invlist_t *l)
{
	for (size_t i = 0; i < l->ngroups; i++)
		invlist_group_free(&l->groups[i]);
	free(l->groups);
	*l = (invlist_t){ 0 };
}
