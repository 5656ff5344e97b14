/* profdiff: a profile pair's change on the busiest core, the biggest moves first. idle and the
 * core's total are left out: they say how full the core is, not what fills it. */
#include "config.h"
#include "detector/profdiff.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct profdiff_item {
	const char *name;
	double before, after;
};

static double profdiff_usage(const profile_t *p, int cpu, const char *name)
{
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

/* Adds p's classifiers of core c to v (once each). */
static void profdiff_collect(const profile_t *p, int c, struct profdiff_item **v, size_t *n)
{
	for (size_t i = 0; p != NULL && i < p->nrows; i++) {
		const char *name = p->rows[i].name;
		bool skip = p->rows[i].cpu != c || strcmp(name, "total") == 0 || strcmp(name, "idle") == 0;
		for (size_t k = 0; !skip && k < *n; k++)
			skip = strcmp((*v)[k].name, name) == 0;
		if (skip)
			continue;
		*v = xreallocarray(*v, *n + 1, sizeof(**v));
		(*v)[(*n)++] = (struct profdiff_item){ .name = name };
	}
}

char *profdiff_text(const profile_t *before, const profile_t *after)
{
	int c = after ? profile_busiest(after) : -1;
	if (c < 0)
		c = before ? profile_busiest(before) : -1;
	if (c < 0)
		return NULL;
	struct profdiff_item *v = NULL;
	size_t n = 0;
	profdiff_collect(after, c, &v, &n);
	profdiff_collect(before, c, &v, &n);
	for (size_t i = 0; i < n; i++) {
		v[i].before = profdiff_usage(before, c, v[i].name);
		v[i].after = profdiff_usage(after, c, v[i].name);
	}
	qsort(v, n, sizeof(*v), profdiff_cmp);
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < n && i < PROFDIFF_MAX; i++) {
		buf_printf(&b, "%s%s %.0f %% \xe2\x86\x92 %.0f %%", i ? ", " : "", v[i].name, v[i].before,
			v[i].after);
		if (i == 0)
			buf_printf(&b, " on cpu%d", c);
	}
	if (n == 0)
		buf_printf(&b, "no classifier on cpu%d", c);
	free(v);
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
