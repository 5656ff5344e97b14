/* fleet: the newest state of every configured router, written by the loop thread and read by
 * the HTTP threads under one mutex. Heavy work (copying a sample, computing rates) happens
 * outside the lock; only pointer swaps and counters inside. */
#include "config.h"
#include "fleet.h"
#include "rate.h"
#include "xmem.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const double fleet_hist_bounds[FLEET_HIST_BUCKETS] = {
	0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
};

struct fleet {
	pthread_mutex_t mutex;
	fleet_router_t *routers;    /* config order */
	size_t n;
	size_t *by_name;            /* indices sorted by router name, for bsearch */
	struct fleet_stats stats;
};

static fleet_t *fleet_sort_ctx;  /* qsort has no context argument; only used during create */

static int fleet_cmp_idx(const void *a, const void *b)
{
	const fleet_router_t *r = fleet_sort_ctx->routers;
	return strcmp(r[*(const size_t *)a].conf->name, r[*(const size_t *)b].conf->name);
}

fleet_t *fleet_create(const conf_t *conf)
{
	fleet_t *f = xcalloc(1, sizeof(*f));
	pthread_mutex_init(&f->mutex, NULL);
	f->n = conf->nrouters;
	f->routers = xcalloc(f->n, sizeof(*f->routers));
	f->by_name = xcalloc(f->n, sizeof(*f->by_name));
	for (size_t i = 0; i < f->n; i++) {
		f->routers[i].conf = &conf->routers[i];
		f->by_name[i] = i;
	}
	fleet_sort_ctx = f;
	qsort(f->by_name, f->n, sizeof(*f->by_name), fleet_cmp_idx);
	fleet_sort_ctx = NULL;
	return f;
}

static void fleet_router_clear(fleet_router_t *r)
{
	sample_free(r->last);
	free(r->rx_bps);
	free(r->tx_bps);
	free(r->last_error);
}

void fleet_destroy(fleet_t *f)
{
	if (f == NULL)
		return;
	for (size_t i = 0; i < f->n; i++)
		fleet_router_clear(&f->routers[i]);
	pthread_mutex_destroy(&f->mutex);
	free(f->routers);
	free(f->by_name);
	free(f);
}

static fleet_router_t *fleet_lookup(const fleet_t *f, const char *name)
{
	size_t lo = 0, hi = f->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		fleet_router_t *r = &f->routers[f->by_name[mid]];
		int c = strcmp(name, r->conf->name);
		if (c == 0)
			return r;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const fleet_router_t *fleet_find(const fleet_t *f, const char *name) { return fleet_lookup(f, name); }

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

bool fleet_update(fleet_t *f, const sample_t *s)
{
	fleet_router_t *r = fleet_lookup(f, s->router);
	if (r == NULL)
		return false;
	/* A sample carries data when the identity endpoint answered (board is required there). */
	bool has_data = s->board != NULL;
	sample_t *copy = NULL;
	double *rx = NULL, *tx = NULL;
	if (has_data) {
		copy = sample_dup(s);
		rx = xcalloc(s->nifaces, sizeof(*rx));
		tx = xcalloc(s->nifaces, sizeof(*tx));
		fleet_rates(r->last, s, rx, tx);   /* r->last is only replaced by this thread */
	}
	char *reason = s->err != SAMPLE_OK ? xstrdup(s->error) : NULL;

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
	sample_t *old = NULL;
	double *old_rx = NULL, *old_tx = NULL;
	if (has_data) {
		old = r->last, old_rx = r->rx_bps, old_tx = r->tx_bps;
		r->last = copy, r->rx_bps = rx, r->tx_bps = tx;
	}
	fleet_observe(&f->stats, s->duration_ms);
	pthread_mutex_unlock(&f->mutex);

	sample_free(old);
	free(old_rx);
	free(old_tx);
	free(old_reason);
	return !was_polled || was_up != r->up;
}

void fleet_note_late(fleet_t *f)
{
	pthread_mutex_lock(&f->mutex);
	f->stats.polls_late++;
	pthread_mutex_unlock(&f->mutex);
}

void fleet_lock(fleet_t *f) { pthread_mutex_lock(&f->mutex); }
void fleet_unlock(fleet_t *f) { pthread_mutex_unlock(&f->mutex); }
size_t fleet_size(const fleet_t *f) { return f->n; }
const fleet_router_t *fleet_at(const fleet_t *f, size_t i) { return i < f->n ? &f->routers[i] : NULL; }
const struct fleet_stats *fleet_stats(const fleet_t *f) { return &f->stats; }
