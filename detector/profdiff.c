/* SPDX-License-Identifier: Apache-2.0 */
/* profdiff: a profile pair's change on the busiest core, the biggest moves first. idle and the
 * core's total are left out: they say how full the core is, not what fills it. */
#include "config.h"
#include "detector/profdiff.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct profdiff_item {
	const char *name;
	double before, after;
};

#define PROFDIFF_ALL -2 /* "core" of the mean across cores */

/* The per-core mean of name over p's cores (rows of cores without it count 0). */
static double profdiff_mean(const profile_t *p, const char *name)
{
	int maxc = -1;
	double sum = 0;
	for (size_t i = 0; p != NULL && i < p->nrows; i++) {
		if (p->rows[i].cpu > maxc)
			maxc = p->rows[i].cpu;
		if (p->rows[i].cpu >= 0 && strcmp(p->rows[i].name, name) == 0)
			sum += p->rows[i].usage;
	}
	return maxc >= 0 ? sum / (maxc + 1) : 0;
}

static double profdiff_usage(const profile_t *p, int cpu, const char *name)
{
	if (cpu == PROFDIFF_ALL)
		return profdiff_mean(p, name);
	const struct profile_row *r = p ? profile_find(p, cpu, name) : NULL;
	return r ? r->usage : 0;
}

static int profdiff_cmp(const void *a, const void *b)
{
	const struct profdiff_item *x = a, *y = b;
	double dx = fabs(x->after - x->before), dy = fabs(y->after - y->before);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Adds p's classifiers of core c (any core for PROFDIFF_ALL) to v (once each). */
static void profdiff_collect(const profile_t *p, int c, struct profdiff_item **v, size_t *n)
{
	for (size_t i = 0; p != NULL && i < p->nrows; i++) {
		const char *name = p->rows[i].name;
		bool skip = (c == PROFDIFF_ALL ? p->rows[i].cpu < 0 : p->rows[i].cpu != c) ||
			strcmp(name, "total") == 0 || strcmp(name, "idle") == 0;
		for (size_t k = 0; !skip && k < *n; k++)
			skip = strcmp((*v)[k].name, name) == 0;
		if (skip)
			continue;
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct profdiff_item){ .name = name };
	}
}

/* The classifiers of core c (or across cores) that moved most, "name b % → a %, ...", onto out;
 * the first followed by what; false when there is none. */
static bool profdiff_moves(
	buf_t *out, const profile_t *before, const profile_t *after, int c, size_t max, const char *what)
{
	struct profdiff_item *v = NULL;
	size_t n = 0;
	profdiff_collect(after, c, &v, &n);
	profdiff_collect(before, c, &v, &n);
	for (size_t i = 0; i < n; i++) {
		v[i].before = profdiff_usage(before, c, v[i].name);
		v[i].after = profdiff_usage(after, c, v[i].name);
	}
	qsort(v, n, sizeof(*v), profdiff_cmp);
	for (size_t i = 0; i < n && i < max; i++)
		buf_printf(out, "%s%s %.0f %% \xe2\x86\x92 %.0f %%%s", i ? ", " : "", v[i].name, v[i].before,
			v[i].after, i == 0 ? what : "");
	free(v);
	return n > 0;
}

char *profdiff_text(const profile_t *before, const profile_t *after)
{
	int c = after ? profile_busiest(after) : -1;
	if (c < 0)
		c = before ? profile_busiest(before) : -1;
	if (c < 0)
		return NULL;
	buf_t b;
	buf_init(&b);
	char on[32];
	snprintf(on, sizeof(on), " on cpu%d", c);
	if (!profdiff_moves(&b, before, after, c, PROFDIFF_MAX, on))
		buf_printf(&b, "no classifier on cpu%d", c);
	buf_puts(&b, "; across cores: ");
	profdiff_moves(&b, before, after, PROFDIFF_ALL, 2, "");
	return buf_steal(&b, NULL);
}

const profile_t *profdiff_pick(profile_t *const *v, size_t n, int64_t t_ms, bool after)
{
	if (!after) {
		for (size_t i = 0; i < n; i++)
			if (v[i]->time_ms < t_ms)
				return v[i];
		return NULL;
	}
	for (size_t i = n; i-- > 0;) /* started after t: one that spans t mixes both versions */
		if (v[i]->time_ms - v[i]->duration_ms >= t_ms)
			return v[i];
	return NULL;
}
