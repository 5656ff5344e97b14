/* SPDX-License-Identifier: Apache-2.0 */
/* capread: one capacity pass over the database (docs/detector.md, "Capacity headroom"): per
 * router its newest window of raw polls and its WireGuard roll-ups, through data, judged by
 * capacity. It must never write the database, never keep state between passes, and never call
 * the detector above it: detector.c decides when a pass runs and keeps what it returns. */
#include "config.h"
#include "detector/capread.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define CAPREAD_DEMAND_MS (57 * 86400000LL) /* the demand read back: 8 weeks and today */

struct capread_out {
	struct capacity *c;
	size_t n;
};

/* The streams of frame f of router r, with their demand from dm, appended to o. */
static void capread_add(struct capread_out *o, const struct data_rid *r, const struct frame *f,
	const struct frame_params *p, const struct data_demand *dm, int64_t from_ms)
{
	struct capacity *c = xcalloc(2 * f->nifs + 1, sizeof(*c));
	capacity_window(f, p, c);
	o->c = xreallocarray(o->c, o->n + 2 * f->nifs + 1, sizeof(*o->c));
	for (size_t s = 0; s < 2 * f->nifs; s++) {
		const struct data_series *ds = NULL;
		for (size_t i = 0; i < dm->n && ds == NULL; i++)
			ds = strcmp(dm->s[i].name, f->names[s / 2]) == 0 ? &dm->s[i] : NULL;
		capacity_demand(&c[s], ds ? ds->t : NULL, ds ? (s % 2 ? ds->rx : ds->tx) : NULL,
			ds ? ds->n : 0, r->last_ms);
		c[s].from_ms = from_ms;
		c[s].router = xstrdup(r->name);
		c[s].interface = xstrdup(f->names[s / 2]);
		o->c[o->n++] = c[s];
	}
	free(c);
}

/* Router r's streams into o. -1 when a read failed. */
static int capread_router(data_t *data, const struct frame_params *p, int64_t before_ms,
	const struct data_rid *r, struct capread_out *o)
{
	int64_t from = r->last_ms - before_ms;
	if (r->changed_ms != INT64_MIN && r->changed_ms >= from)
		from = r->changed_ms + 1;
	struct data_set x = { 0 };
	struct data_demand dm = { 0 };
	int rc = data_load(data, r->id, from, r->last_ms + 1, &x, NULL);
	if (rc == 0)
		rc = data_load_demand(data, r->id, r->last_ms - CAPREAD_DEMAND_MS, r->last_ms + 1, &dm);
	if (rc == 0 && x.npolls > 0 && x.nifs > 0) {
		struct frame f;
		double *rates;
		float *loads;
		data_frame(&x, INT64_MIN, &f, &rates, &loads);
		capread_add(o, r, &f, p, &dm, x.polls[0].t);
		free(rates);
		free(loads);
		free(f.names);
	}
	data_set_free(&x);
	data_demand_free(&dm);
	return rc;
}

int capread_all(data_t *data, const struct frame_params *p, int64_t before_ms, worker_t *w,
	struct capacity **out, size_t *n, char **cause)
{
	struct data_rid *r;
	size_t nr;
	struct capread_out o = { 0 };
	*out = NULL;
	*n = 0;
	if (data_routers_list(data, &r, &nr, cause) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; i < nr && rc == 0 && !worker_stopping(w); i++)
		rc = capread_router(data, p, before_ms, &r[i], &o);
	data_routers_list_free(r, nr);
	if (rc < 0) {
		capread_free(o.c, o.n);
		return data_fail(data, cause, "reading the capacity's samples");
	}
	*out = o.c;
	*n = o.n;
	return 0;
}

void capread_free(struct capacity *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		capacity_clear(&c[i]);
	free(c);
}
