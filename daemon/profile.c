/* SPDX-License-Identifier: Apache-2.0 */
/* profile: the plain data of one CPU profile, and the few questions asked of it (a row, the
 * busiest core). No I/O, no parsing of router text: collectors/restdiag.c fills it. */
#include "config.h"
#include "daemon/profile.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

profile_t *profile_new(const char *router, int64_t time_ms)
{
	profile_t *p = xcalloc(1, sizeof(*p));
	p->router = xstrdup(router);
	p->time_ms = time_ms;
	return p;
}

void profile_free(profile_t *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->nrows; i++)
		free(p->rows[i].name);
	free(p->rows);
	free(p->router);
	free(p);
}

profile_t *profile_dup(const profile_t *p)
{
	profile_t *d = profile_new(p->router, p->time_ms);
	d->duration_ms = p->duration_ms;
	d->rows = xcalloc(p->nrows + 1, sizeof(*d->rows));
	for (size_t i = 0; i < p->nrows; i++)
		d->rows[i] = (struct profile_row){
			.cpu = p->rows[i].cpu, .name = xstrdup(p->rows[i].name), .usage = p->rows[i].usage
		};
	d->nrows = p->nrows;
	return d;
}

const struct profile_row *profile_find(const profile_t *p, int cpu, const char *name)
{
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].cpu == cpu && strcmp(p->rows[i].name, name) == 0)
			return &p->rows[i];
	return NULL;
}

struct profile_row *profile_add(profile_t *p, int cpu, const char *name, double usage)
{
	struct profile_row *r = (struct profile_row *)profile_find(p, cpu, name);
	if (r == NULL) {
		p->rows = xreallocarray(p->rows, p->nrows + 1, sizeof(*p->rows));
		r = &p->rows[p->nrows++];
		*r = (struct profile_row){ .cpu = cpu, .name = xstrdup(name) };
	}
	r->usage += usage;
	return r;
}

double profile_core_load(const profile_t *p, int c)
{
	const struct profile_row *t = profile_find(p, c, "total");
	if (t != NULL)
		return t->usage;
	double sum = -1;
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].cpu == c && strcmp(p->rows[i].name, "idle") != 0)
			sum = (sum < 0 ? 0 : sum) + p->rows[i].usage;
	return sum;
}

int profile_busiest(const profile_t *p)
{
	int best = -1;
	double best_load = -1;
	for (size_t i = 0; i < p->nrows; i++) {
		int c = p->rows[i].cpu;
		double load = c >= 0 ? profile_core_load(p, c) : -1;
		if (c >= 0 && (load > best_load || (load == best_load && c < best))) {
			best = c;
			best_load = load;
		}
	}
	return best;
}

static int profile_cmp_row(const void *a, const void *b)
{
	const struct profile_row *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->usage != y->usage)
		return x->usage > y->usage ? -1 : 1;
	return strcmp(x->name, y->name);
}

void profile_sort(profile_t *p)
{
	if (p->nrows > 1)
		qsort(p->rows, p->nrows, sizeof(*p->rows), profile_cmp_row);
}
