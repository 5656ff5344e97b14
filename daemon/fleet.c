/* fleet: the newest state of every configured router, written by the loop thread and read by
 * the HTTP threads through views. Heavy work (copying a sample, computing rates, rendering)
 * happens outside the mutex; inside it only pointer swaps, counters and reference counts. */
#include "config.h"
#include "fleet.h"
#include "rate.h"
#include "xmem.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

const double fleet_hist_bounds[FLEET_HIST_BUCKETS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
};

/* One complete sample and its rates, shared by the fleet and any views holding it. */
struct fleet_data {
	atomic_uint refs;
	sample_t *s;
	double *rx, *tx;
};

struct fleet_entry {
	fleet_router_t pub;         /* pub.last, rx_bps, tx_bps point into data */
	struct fleet_data *data;
};

struct fleet_view {
	fleet_router_t *routers;
	struct fleet_data **data;
	size_t n;
	struct fleet_stats stats;
};

struct fleet {
	pthread_mutex_t mutex;
	struct fleet_entry *routers; /* config order */
	size_t n;
	size_t *by_name;            /* indices sorted by router name, for bsearch */
	struct fleet_stats stats;
};

static fleet_t *fleet_sort_ctx;  /* qsort has no context argument; only used during create */

static int fleet_cmp_idx(const void *a, const void *b)
{
	const struct fleet_entry *r = fleet_sort_ctx->routers;
	return strcmp(r[*(const size_t *)a].pub.conf->name, r[*(const size_t *)b].pub.conf->name);
}

static struct fleet_data *fleet_data_new(sample_t *s, double *rx, double *tx)
{
	struct fleet_data *d = xcalloc(1, sizeof(*d));
	atomic_init(&d->refs, 1);
	d->s = s, d->rx = rx, d->tx = tx;
	return d;
}

static void fleet_data_unref(struct fleet_data *d)
{
	if (d == NULL || atomic_fetch_sub(&d->refs, 1) != 1)
		return;
	sample_free(d->s);
	free(d->rx);
	free(d->tx);
	free(d);
}

fleet_t *fleet_create(const conf_t *conf)
{
	fleet_t *f = xcalloc(1, sizeof(*f));
	pthread_mutex_init(&f->mutex, NULL);
	f->n = conf->nrouters;
	f->routers = xcalloc(f->n, sizeof(*f->routers));
	f->by_name = xcalloc(f->n, sizeof(*f->by_name));
	for (size_t i = 0; i < f->n; i++) {
		f->routers[i].pub.conf = &conf->routers[i];
		f->by_name[i] = i;
	}
	fleet_sort_ctx = f;
	qsort(f->by_name, f->n, sizeof(*f->by_name), fleet_cmp_idx);
	fleet_sort_ctx = NULL;
	return f;
}

static void fleet_entry_clear(struct fleet_entry *e)
{
	fleet_data_unref(e->data);
	free(e->pub.last_error);
}

void fleet_destroy(fleet_t *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n; i++)
		fleet_entry_clear(&f->routers[i]);
	pthread_mutex_destroy(&f->mutex);
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

/* Bits per second of each interface of cur against prev (NAN when no previous reading). */
static void fleet_rates(const sample_t *prev, const sample_t *cur, double *rx, double *tx)
{
	int64_t dt = prev ? cur->time_ms - prev->time_ms : 0;
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

static void fleet_observe(struct fleet_stats *st, int64_t duration_ms)
{
	double secs = (double)duration_ms / 1000.0;
	for (size_t i = 0; i < FLEET_HIST_BUCKETS; i++)
		if (secs <= fleet_hist_bounds[i])
			st->hist[i]++;
	st->hist_count++;
	st->hist_sum += secs;
}

/* Shared data for a complete sample: a copy, with rates against the previous one. */
static struct fleet_data *fleet_data_for(const struct fleet_data *prev, const sample_t *s)
{
	double *rx = xcalloc(s->nifaces, sizeof(*rx));
	double *tx = xcalloc(s->nifaces, sizeof(*tx));
	fleet_rates(prev ? prev->s : NULL, s, rx, tx);
	return fleet_data_new(sample_dup(s), rx, tx);
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
	fleet_observe(&f->stats, s->duration_ms);
	pthread_mutex_unlock(&f->mutex);

	fleet_data_unref(old);
	free(old_reason);
	return !was_polled || was_up != r->up;
}

void fleet_note_late(fleet_t *f)
{
	pthread_mutex_lock(&f->mutex);
	f->stats.polls_late++;
	pthread_mutex_unlock(&f->mutex);
}

fleet_view_t *fleet_view(fleet_t *f)
{
	fleet_view_t *v = xcalloc(1, sizeof(*v));
	v->routers = xcalloc(f->n, sizeof(*v->routers));
	v->data = xcalloc(f->n, sizeof(*v->data));
	v->n = f->n;
	pthread_mutex_lock(&f->mutex);
	for (size_t i = 0; i < f->n; i++) {
		v->routers[i] = f->routers[i].pub;
		v->routers[i].last_error = xstrdup(f->routers[i].pub.last_error);
		if ((v->data[i] = f->routers[i].data) != NULL)
			atomic_fetch_add(&v->data[i]->refs, 1);
	}
	v->stats = f->stats;
	pthread_mutex_unlock(&f->mutex);
	return v;
}

void fleet_view_free(fleet_view_t *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->n; i++) {
		fleet_data_unref(v->data[i]);
		free(v->routers[i].last_error);
	}
	free(v->routers);
	free(v->data);
	free(v);
}

size_t fleet_view_size(const fleet_view_t *v) { return v->n; }
const fleet_router_t *fleet_view_at(const fleet_view_t *v, size_t i) { return i < v->n ? &v->routers[i] : NULL; }
const struct fleet_stats *fleet_view_stats(const fleet_view_t *v) { return &v->stats; }
