/* SPDX-License-Identifier: Apache-2.0 */
/* view: the immutable, reference-counted snapshot of a detector's results (verdicts, cohorts,
 * single-core bounds) that the detector publishes on its handle for the web threads, and its
 * accessors. A view must never change once built; one lock guards every handle's published
 * view and every view's count, so a view outlives the detector that built it. */
#include "config.h"
#include "detector/view.h"
#include "detector/capacity.h"
#include "detector/outcome.h"
#include "detector/rollout.h"
#include "detector/stats.h"
#include "lib/xmem.h"
#include "lib/text.h"

#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct detector_view {
	int refs; /* under view_mu */
	struct detector_verdict *v;
	size_t nv;
	struct detector_cohort *c;
	size_t nc;
	struct detector_bound *b;
	size_t nb;
	struct rollout *rollout; /* a reference to the detector's */
	struct capacity *cap;    /* by router, as the detector read them */
	size_t ncap;
};

static pthread_mutex_t view_mu = PTHREAD_MUTEX_INITIALIZER;

void view_verdict_free(struct detector_verdict *v)
{
	free(v->router);
	free(v->interface);
	free(v->from_version);
	free(v->to_version);
	free(v->architecture);
	free(v->board);
	free(v->firmware_from);
	free(v->firmware_to);
	free(v->confounders);
}

static int view_verdict_order(const void *pa, const void *pb)
{
	const struct detector_verdict *a = pa, *b = pb;
	int c = strcmp(a->router, b->router);
	if (c == 0 && a->upgraded_ms != b->upgraded_ms)
		return a->upgraded_ms < b->upgraded_ms ? -1 : 1;
	if (c == 0)
		c = strcmp(a->interface, b->interface);
	return c ? c : strcmp(b->direction, a->direction); /* tx before rx */
}

static void view_verdict_copy(struct detector_verdict *dst, const struct detector_verdict *src)
{
	*dst = *src;
	dst->router = xstrdup(src->router);
	dst->interface = xstrdup(src->interface);
	dst->from_version = xstrdup(src->from_version);
	dst->to_version = xstrdup(src->to_version);
	dst->architecture = xstrdup(src->architecture);
	dst->board = xstrdup(src->board);
	dst->firmware_from = xstrdup(src->firmware_from);
	dst->firmware_to = xstrdup(src->firmware_to);
	dst->confounders = xstrdup(src->confounders ? src->confounders : "");
}

/* ---- cohorts ---- */

static int view_cohort_key(const struct detector_verdict *a, const struct detector_verdict *b)
{
	int c = text_cmp(a->from_version, b->from_version);
	if (c == 0)
		c = text_cmp(a->to_version, b->to_version);
	if (c == 0)
		c = text_cmp(a->architecture, b->architecture);
	return c ? c : text_cmp(a->board, b->board);
}

static int view_cohort_order(const void *pa, const void *pb)
{
	const struct detector_verdict *a = *(const struct detector_verdict *const *)pa;
	const struct detector_verdict *b = *(const struct detector_verdict *const *)pb;
	int c = view_cohort_key(a, b);
	return c ? c : strcmp(a->router, b->router);
}

/* One cohort from its verdicts g[0..n), sorted by router. */
static void view_cohort_fill(struct detector_cohort *c, const struct detector_verdict *const *g, size_t n)
{
	double *tx = xcalloc(n, sizeof(double)), *rx = xcalloc(n, sizeof(double));
	size_t ntx = 0, nrx = 0;
	bool reg = false, imp = false;
	for (size_t i = 0; i < n; i++) {
		const struct detector_verdict *v = g[i];
		reg |= v->verdict == DETECTOR_REGRESSION;
		imp |= v->verdict == DETECTOR_IMPROVEMENT;
		if (outcome_method_high(v->method) && isfinite(v->ratio)) {
			if (v->direction[0] == 't')
				tx[ntx++] = v->ratio;
			else
				rx[nrx++] = v->ratio;
		}
		if (i + 1 == n || strcmp(g[i + 1]->router, v->router) != 0) {
			c->routers++;
			c->regressed += reg;
			c->improved += imp && !reg;
			reg = imp = false;
		}
	}
	c->decided_tx = ntx;
	c->decided_rx = nrx;
	c->median_ratio_tx = stats_median_take(tx, ntx);
	c->median_ratio_rx = stats_median_take(rx, nrx);
}

static void view_cohorts(detector_view_t *v)
{
	const struct detector_verdict **g = xcalloc(v->nv + 1, sizeof(*g));
	for (size_t i = 0; i < v->nv; i++)
		g[i] = &v->v[i];
	qsort(g, v->nv, sizeof(*g), view_cohort_order);
	v->c = xcalloc(v->nv + 1, sizeof(*v->c));
	for (size_t i = 0, j; i < v->nv; i = j) {
		for (j = i + 1; j < v->nv && view_cohort_key(g[i], g[j]) == 0; j++)
			;
		struct detector_cohort *c = &v->c[v->nc++];
		c->from_version = xstrdup(g[i]->from_version);
		c->to_version = xstrdup(g[i]->to_version);
		c->architecture = xstrdup(g[i]->architecture);
		c->board = xstrdup(g[i]->board);
		view_cohort_fill(c, g + i, j - i);
	}
	free(g);
}

/* ---- building, publishing, freeing ---- */

detector_view_t *view_build(const struct detector_verdict *const *src, size_t n,
	const struct detector_bound *b, size_t nb, struct rollout *rollout)
{
	detector_view_t *v = xcalloc(1, sizeof(*v));
	v->refs = 1;
	v->v = xcalloc(n + 1, sizeof(*v->v));
	for (size_t i = 0; i < n; i++)
		view_verdict_copy(&v->v[v->nv++], src[i]);
	qsort(v->v, v->nv, sizeof(*v->v), view_verdict_order);
	view_cohorts(v);
	v->b = xcalloc(nb + 1, sizeof(*v->b));
	for (size_t i = 0; i < nb; i++) {
		v->b[i] = b[i];
		v->b[i].router = xstrdup(b[i].router);
	}
	v->nb = nb;
	v->rollout = rollout_ref(rollout);
	return v;
}

void view_destroy(detector_view_t *v)
{
	for (size_t i = 0; i < v->nv; i++)
		view_verdict_free(&v->v[i]);
	for (size_t i = 0; i < v->nc; i++) {
		free(v->c[i].from_version);
		free(v->c[i].to_version);
		free(v->c[i].architecture);
		free(v->c[i].board);
	}
	for (size_t i = 0; i < v->nb; i++)
		free(v->b[i].router);
	for (size_t i = 0; i < v->ncap; i++)
		capacity_clear(&v->cap[i]);
	free(v->cap);
	free(v->v);
	free(v->c);
	free(v->b);
	rollout_unref(v->rollout);
	free(v);
}

void view_set_capacity(detector_view_t *v, const struct capacity *c, size_t n)
{
	v->cap = xcalloc(n + 1, sizeof(*v->cap));
	for (size_t i = 0; i < n; i++) {
		v->cap[i] = c[i];
		v->cap[i].router = xstrdup(c[i].router);
		v->cap[i].interface = xstrdup(c[i].interface);
	}
	v->ncap = n;
}

detector_view_t *view_swap(detector_view_t **slot, detector_view_t *v)
{
	pthread_mutex_lock(&view_mu);
	detector_view_t *old = *slot;
	*slot = v;
	pthread_mutex_unlock(&view_mu);
	return old;
}

detector_view_t *view_ref(detector_view_t *const *slot)
{
	pthread_mutex_lock(&view_mu);
	detector_view_t *v = *slot;
	if (v != NULL)
		v->refs++;
	pthread_mutex_unlock(&view_mu);
	return v;
}

void detector_view_free(detector_view_t *v)
{
	if (v == NULL)
		return;
	pthread_mutex_lock(&view_mu);
	bool last = --v->refs == 0;
	pthread_mutex_unlock(&view_mu);
	if (last)
		view_destroy(v);
}

/* ---- accessors ---- */

size_t detector_view_nverdicts(const detector_view_t *v)
{
	return v ? v->nv : 0;
}

const struct detector_verdict *detector_view_verdict(const detector_view_t *v, size_t i)
{
	return &v->v[i];
}

const struct detector_verdict *detector_view_verdicts(const detector_view_t *v, size_t *n)
{
	*n = v ? v->nv : 0;
	return v && v->nv ? v->v : NULL;
}

const struct detector_verdict *detector_view_router(const detector_view_t *v, const char *router, size_t *n)
{
	*n = 0;
	size_t lo = 0, hi = v ? v->nv : 0;
	while (lo < hi) { /* the first verdict of router */
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v->v[mid].router, router) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (v != NULL && lo + *n < v->nv && strcmp(v->v[lo + *n].router, router) == 0)
		(*n)++;
	return *n ? &v->v[lo] : NULL;
}

size_t detector_view_ncohorts(const detector_view_t *v)
{
	return v ? v->nc : 0;
}

const struct detector_cohort *detector_view_cohort(const detector_view_t *v, size_t i)
{
	return &v->c[i];
}

const struct detector_bound *detector_view_bounds(const detector_view_t *v, size_t *n)
{
	*n = v ? v->nb : 0;
	return v && v->nb ? v->b : NULL;
}

const struct detector_bound *detector_view_bound(const detector_view_t *v, const char *router)
{
	size_t lo = 0, hi = v ? v->nb : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(v->b[mid].router, router);
		if (c == 0)
			return &v->b[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct rollout *detector_view_rollout(const detector_view_t *v)
{
	return v ? v->rollout : NULL;
}

const struct capacity *detector_view_capacity(const detector_view_t *v, size_t *n)
{
	*n = v != NULL ? v->ncap : 0;
	return *n ? v->cap : NULL;
}
