/* SPDX-License-Identifier: Apache-2.0 */
/* fleet: the newest state of every configured router, written by the loop thread and read by
 * the HTTP threads through views. Heavy work (copying a sample, computing rates, rendering)
 * happens outside the mutex; inside it only pointer swaps, counters and reference counts.
 * A reload swaps the router table; a conf replaced by it is released only after every view
 * pointing into it is gone. */
#include "config.h"
#include "daemon/fleet.h"
#include "daemon/rate.h"
#include "lib/xmem.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

const double fleet_hist_bounds[FLEET_HIST_BUCKETS] = {
	0.001,
	0.005,
	0.01,
	0.025,
	0.05,
	0.1,
	0.25,
	0.5,
	1,
	2.5,
	5,
	10,
	30,
};

/* One complete sample and its rates, shared by the fleet and any views holding it. */
struct fleet_data {
	atomic_uint refs;
	sample_t *s;
	double *rx, *tx; /* into rates: one allocation with the struct */
	double rates[];  /* rx then tx, s->nifaces each */
};

/* One config generation: views hold it so that the conf their routers point into lives on. */
struct fleet_gen {
	atomic_uint refs;
	void (*release)(void *); /* set when the generation is replaced */
	void *arg;
};

/* A profile or a probe, shared like the data. */
struct fleet_prof {
	atomic_uint refs;
	void *p;
	void (*free_fn)(void *);
};

#define FLEET_NDIAG 3 /* per router: the newest profile, transmit probe, receive probe */

struct fleet_entry {
	fleet_router_t pub; /* pub.last, rx_bps, tx_bps point into data; pub.profile, .probe into diag */
	struct fleet_data *data;
	struct fleet_prof *diag[FLEET_NDIAG];
};

struct fleet_view {
	fleet_router_t *routers;
	struct fleet_data **data;
	struct fleet_prof **diag; /* n x FLEET_NDIAG */
	size_t n;
	struct fleet_stats stats;
	struct fleet_gen *gen;
};

struct fleet {
	pthread_mutex_t mutex;
	struct fleet_entry *routers; /* config order */
	size_t n;
	size_t *by_name; /* indices sorted by router name, for bsearch */
	struct fleet_stats stats;
	struct fleet_gen *gen; /* the current one; routers[].pub.conf point into its conf */
};

/* qsort has no context argument; only used on the loop thread, by create and reconfigure. */
static const struct fleet_entry *fleet_sort_ctx;

static int fleet_cmp_idx(const void *a, const void *b)
{
	const struct fleet_entry *r = fleet_sort_ctx;
	return strcmp(r[*(const size_t *)a].pub.conf->name, r[*(const size_t *)b].pub.conf->name);
}

static size_t *fleet_index(const struct fleet_entry *routers, size_t n)
{
	size_t *by_name = xcalloc(n, sizeof(*by_name));
	for (size_t i = 0; i < n; i++)
		by_name[i] = i;
	fleet_sort_ctx = routers;
	qsort(by_name, n, sizeof(*by_name), fleet_cmp_idx);
	fleet_sort_ctx = NULL;
	return by_name;
}

static struct fleet_gen *fleet_gen_new(void)
{
	struct fleet_gen *g = xcalloc(1, sizeof(*g));
	atomic_init(&g->refs, 1);
	return g;
}

static void fleet_gen_unref(struct fleet_gen *g)
{
	if (g == NULL || atomic_fetch_sub(&g->refs, 1) != 1)
		return;
	if (g->release)
		g->release(g->arg);
	free(g);
}

/* Takes s; rx and tx are left for the caller to fill. */
static struct fleet_data *fleet_data_new(sample_t *s)
{
	struct fleet_data *d = xcalloc(1, sizeof(*d) + 2 * s->nifaces * sizeof(d->rates[0]));
	atomic_init(&d->refs, 1);
	d->s = s, d->rx = d->rates, d->tx = d->rates + s->nifaces;
	return d;
}

static void fleet_data_unref(struct fleet_data *d)
{
	if (d == NULL || atomic_fetch_sub(&d->refs, 1) != 1)
		return;
	sample_free(d->s);
	free(d);
}

static void fleet_prof_unref(struct fleet_prof *x)
{
	if (x == NULL || atomic_fetch_sub(&x->refs, 1) != 1)
		return;
	x->free_fn(x->p);
	free(x);
}

static void fleet_set_shard(fleet_t *f, const conf_t *conf)
{
	f->stats.shard_index = conf->shard.count > 0 ? conf->shard.index : 1;
	f->stats.shard_count = conf->shard.count > 0 ? conf->shard.count : 1;
}

fleet_t *fleet_create(const conf_t *conf)
{
	fleet_t *f = xcalloc(1, sizeof(*f));
	pthread_mutex_init(&f->mutex, NULL);
	f->n = conf->nrouters;
	f->routers = xcalloc(f->n, sizeof(*f->routers));
	for (size_t i = 0; i < f->n; i++)
		f->routers[i].pub.conf = &conf->routers[i];
	f->by_name = fleet_index(f->routers, f->n);
	f->gen = fleet_gen_new();
	fleet_set_shard(f, conf);
	return f;
}

static void fleet_entry_clear(struct fleet_entry *e)
{
	fleet_data_unref(e->data);
	for (int k = 0; k < FLEET_NDIAG; k++)
		fleet_prof_unref(e->diag[k]);
	free(e->pub.last_error);
}

void fleet_destroy(fleet_t *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n; i++)
		fleet_entry_clear(&f->routers[i]);
	pthread_mutex_destroy(&f->mutex);
	fleet_gen_unref(f->gen);
	free(f->routers);
	free(f->by_name);
	free(f);
}

static struct fleet_entry *fleet_lookup(const fleet_t *f, const char *name)
{
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct fleet_entry *e = &f->routers[f->by_name[mid]];
		int c = strcmp(name, e->pub.conf->name);
		if (c == 0)
			return e;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const struct sample_iface *fleet_find_iface(const sample_t *s, const char *name)
{
	for (size_t i = 0; s != NULL && i < s->nifaces; i++)
		if (strcmp(s->ifaces[i].name, name) == 0)
			return &s->ifaces[i];
	return NULL;
}

/* Bits per second of each interface of cur against prev (NAN when no previous reading), over
 * the monotonic time between them: a step of the wall clock is no interval. */
static void fleet_rates(const sample_t *prev, const sample_t *cur, double *rx, double *tx)
{
	int64_t dt = prev ? rate_elapsed_ms(prev->time_ms, prev->mono_ms, cur->time_ms, cur->mono_ms) : 0;
	bool restarted = prev && rate_restarted(prev->uptime_ms, cur->uptime_ms, dt);
	for (size_t i = 0; i < cur->nifaces; i++) {
		const struct sample_iface *c = &cur->ifaces[i];
		const struct sample_iface *p = fleet_find_iface(prev, c->name);
		rx[i] = tx[i] = NAN;
		if (p == NULL || dt <= 0)
			continue;
		rx[i] = 8 * rate_per_second(p->rx_bytes, c->rx_bytes, 64, restarted, dt);
		tx[i] = 8 * rate_per_second(p->tx_bytes, c->tx_bytes, 64, restarted, dt);
	}
}

static void fleet_observe(struct fleet_hist *h, int64_t ms)
{
	double secs = (double)ms / 1000.0;
	for (size_t i = 0; i < FLEET_HIST_BUCKETS; i++)
		if (secs <= fleet_hist_bounds[i])
			h->le[i]++;
	h->count++;
	h->sum += secs;
}

/* Shared data for a complete sample: a copy, with rates against the previous one. */
static struct fleet_data *fleet_data_for(const struct fleet_data *prev, const sample_t *s)
{
	struct fleet_data *d = fleet_data_new(sample_dup(s));
	fleet_rates(prev ? prev->s : NULL, s, d->rx, d->tx);
	return d;
}

bool fleet_update(fleet_t *f, const sample_t *s)
{
	struct fleet_entry *e = fleet_lookup(f, s->router);
	if (e == NULL)
		return false;
	/* Only a complete sample replaces the data: a poll that failed half way (a timeout after
	 * the identity answered) must not make interfaces and peers vanish. e->data is replaced
	 * by this thread only, so reading it unlocked is safe. */
	struct fleet_data *data = s->err == SAMPLE_OK ? fleet_data_for(e->data, s) : NULL;
	char *reason = s->err != SAMPLE_OK ? xstrdup(s->error) : NULL;
	fleet_router_t *r = &e->pub;

	pthread_mutex_lock(&f->mutex);
	bool was_up = r->up, was_polled = r->polled;
	r->up = s->err == SAMPLE_OK;
	r->polled = true;
	r->polls++;
	r->last_poll_ms = s->time_ms;
	r->last_err = s->err;
	if (s->err != SAMPLE_OK)
		r->errors[s->err]++;
	char *old_reason = r->last_error;
	r->last_error = reason;
	struct fleet_data *old = NULL;
	if (data) {
		old = e->data;
		e->data = data;
		r->last = data->s, r->rx_bps = data->rx, r->tx_bps = data->tx;
	}
	fleet_observe(&f->stats.duration, s->duration_ms);
	pthread_mutex_unlock(&f->mutex);

	fleet_data_unref(old);
	free(old_reason);
	return !was_polled || was_up != r->up;
}

/* The new table: kept routers move over (state, sample, reason) with their new conf. */
static struct fleet_entry *fleet_carry(fleet_t *f, const conf_t *conf, bool *kept)
{
	struct fleet_entry *routers = xcalloc(conf->nrouters, sizeof(*routers));
	for (size_t i = 0; i < conf->nrouters; i++) {
		struct fleet_entry *old = fleet_lookup(f, conf->routers[i].name);
		if (old != NULL) {
			routers[i] = *old;
			kept[old - f->routers] = true;
		}
		routers[i].pub.conf = &conf->routers[i];
	}
	return routers;
}

void fleet_reconfigure(fleet_t *f, const conf_t *conf, void (*release)(void *), void *arg)
{
	bool *kept = xcalloc(f->n + 1, sizeof(*kept));
	struct fleet_entry *routers = fleet_carry(f, conf, kept);
	size_t *by_name = fleet_index(routers, conf->nrouters);
	struct fleet_gen *gen = fleet_gen_new();

	pthread_mutex_lock(&f->mutex);
	struct fleet_entry *old = f->routers;
	size_t *old_by_name = f->by_name, old_n = f->n;
	struct fleet_gen *old_gen = f->gen;
	f->routers = routers, f->by_name = by_name, f->n = conf->nrouters;
	f->gen = gen;
	fleet_set_shard(f, conf);
	old_gen->release = release, old_gen->arg = arg;
	pthread_mutex_unlock(&f->mutex);

	for (size_t i = 0; i < old_n; i++)
		if (!kept[i])
			fleet_entry_clear(&old[i]);
	free(kept);
	free(old);
	free(old_by_name);
	fleet_gen_unref(old_gen);
}

/* Holder k of router's entry takes p; pub points at it. */
static void fleet_set_diag(fleet_t *f, const char *router, int k, void *p, void (*free_fn)(void *))
{
	struct fleet_entry *e = fleet_lookup(f, router);
	if (e == NULL) {
		free_fn(p);
		return;
	}
	struct fleet_prof *x = xcalloc(1, sizeof(*x));
	atomic_init(&x->refs, 1);
	x->p = p;
	x->free_fn = free_fn;
	pthread_mutex_lock(&f->mutex);
	struct fleet_prof *old = e->diag[k];
	e->diag[k] = x;
	if (k == 0)
		e->pub.profile = p;
	else
		e->pub.probe[k - 1] = p;
	pthread_mutex_unlock(&f->mutex);
	fleet_prof_unref(old);
}

static void fleet_profile_free(void *p)
{
	profile_free(p);
}

static void fleet_probe_free(void *p)
{
	probe_free(p);
}

void fleet_set_profile(fleet_t *f, profile_t *p)
{
	fleet_set_diag(f, p->router, 0, p, fleet_profile_free);
}

void fleet_set_probe(fleet_t *f, probe_t *p)
{
	fleet_set_diag(f, p->router, strcmp(p->direction, "transmit") == 0 ? 1 : 2, p, fleet_probe_free);
}

void fleet_note_start(fleet_t *f, int64_t delay_ms, bool late)
{
	pthread_mutex_lock(&f->mutex);
	fleet_observe(&f->stats.start_delay, delay_ms < 0 ? 0 : delay_ms);
	if (late)
		f->stats.polls_late++;
	pthread_mutex_unlock(&f->mutex);
}

void fleet_note_clock_step(fleet_t *f)
{
	pthread_mutex_lock(&f->mutex);
	f->stats.clock_steps++;
	pthread_mutex_unlock(&f->mutex);
}

/* Entry e into slot i of v: the state copied, the sample shared. Under the mutex. */
static void fleet_view_put(fleet_view_t *v, size_t i, const struct fleet_entry *e)
{
	v->routers[i] = e->pub;
	v->routers[i].last_error = xstrdup(e->pub.last_error);
	if ((v->data[i] = e->data) != NULL)
		atomic_fetch_add(&v->data[i]->refs, 1);
	for (int k = 0; k < FLEET_NDIAG; k++)
		if ((v->diag[i * FLEET_NDIAG + k] = e->diag[k]) != NULL)
			atomic_fetch_add(&v->diag[i * FLEET_NDIAG + k]->refs, 1);
}

/* A view of n routers, its stats and generation taken; the caller fills the routers. */
static fleet_view_t *fleet_view_new(fleet_t *f, size_t n)
{
	fleet_view_t *v = xcalloc(1, sizeof(*v));
	v->n = n;
	v->routers = xcalloc(n, sizeof(*v->routers));
	v->data = xcalloc(n, sizeof(*v->data));
	v->diag = xcalloc(n * FLEET_NDIAG + 1, sizeof(*v->diag));
	v->stats = f->stats;
	v->gen = f->gen;
	atomic_fetch_add(&v->gen->refs, 1);
	return v;
}

fleet_view_t *fleet_view(fleet_t *f)
{
	pthread_mutex_lock(&f->mutex); /* a reload may change n: read it locked */
	fleet_view_t *v = fleet_view_new(f, f->n);
	for (size_t i = 0; i < f->n; i++)
		fleet_view_put(v, i, &f->routers[i]);
	pthread_mutex_unlock(&f->mutex);
	return v;
}

fleet_view_t *fleet_view_router(fleet_t *f, const char *name)
{
	pthread_mutex_lock(&f->mutex);
	const struct fleet_entry *e = fleet_lookup(f, name);
	fleet_view_t *v = e != NULL ? fleet_view_new(f, 1) : NULL;
	if (v != NULL)
		fleet_view_put(v, 0, e);
	pthread_mutex_unlock(&f->mutex);
	return v;
}

void fleet_view_free(fleet_view_t *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n; i++) {
		fleet_data_unref(v->data[i]);
		for (int k = 0; k < FLEET_NDIAG; k++)
			fleet_prof_unref(v->diag[i * FLEET_NDIAG + k]);
		free(v->routers[i].last_error);
	}
	free(v->routers);
	free(v->data);
	free(v->diag);
	fleet_gen_unref(v->gen);
	free(v);
}

size_t fleet_view_size(const fleet_view_t *v)
{
	return v->n;
}
const fleet_router_t *fleet_view_at(const fleet_view_t *v, size_t i)
{
	return i < v->n ? &v->routers[i] : NULL;
}
const struct fleet_stats *fleet_view_stats(const fleet_view_t *v)
{
	return &v->stats;
}
