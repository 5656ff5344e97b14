/* SPDX-License-Identifier: Apache-2.0 */
/* diag: the profile scheduler. Per router it counts polls answered and polls with a saturated
 * core in a row, notes version changes, and starts a profile when one is due (daemon/diag.h).
 * Without diag_user a profile runs under the poll's user, whom RouterOS serves one request at
 * a time: it is started right after a poll, and only when it ends before the next is due. */
#include "config.h"
#include "daemon/diag.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define DIAG_RUN       3    /* polls in a row: saturated, or answered after an upgrade */
#define DIAG_MARGIN_MS 2000 /* a profile under the poll's user ends this long before the next poll */

struct drouter {
	char *name;
	const conf_router_t *rc; /* NULL: gone from the conf (kept while a profile is in flight) */
	unsigned ok_run, sat_run;
	char *version;  /* the newest version seen */
	bool upgraded;  /* a profile after the upgrade is wanted */
	bool sat_after; /* the upgrade's profile found no saturated moment: the first one gets one */
	bool busy, for_upgrade;
	bool told;           /* a refusal or failure was logged; the next success is too */
	bool told_nofit;     /* "does not fit between polls" was logged */
	int64_t last_ok_ms;  /* monotonic (negative: before the boot); 0: none */
	int64_t last_bad_ms; /* monotonic time of the newest refusal or failure; 0: none */
	/* probes: the same marks, and the busiest core seen by the polls during the one running */
	bool probe_upgraded, probe_busy, probe_for_upgrade, probe_told, probe_demanded;
	int64_t probe_ok_ms, probe_bad_ms;
	double probe_core;
};

struct diag {
	const conf_t *conf;
	diag_runner_t runner;
	diag_sink_t sink;
	size_t probes;      /* in flight */
	struct drouter **r; /* sorted by name */
	size_t n;
	pthread_mutex_t mu; /* guards demands: the HTTP threads add, the loop takes */
	char **demands;
	size_t ndemands;
};

static int diag_cmp(const void *a, const void *b)
{
	return strcmp((*(struct drouter *const *)a)->name, (*(struct drouter *const *)b)->name);
}

static struct drouter *diag_find(const diag_t *d, const char *name)
{
	size_t lo = 0, hi = d->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, d->r[mid]->name);
		if (c == 0)
			return d->r[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static void diag_router_free(struct drouter *r)
{
	free(r->name);
	free(r->version);
	free(r);
}

/* Routers of conf, with the state of those d had; routers gone are freed unless busy. */
void diag_reconfigure(diag_t *d, const conf_t *conf)
{
	struct drouter **r = xcalloc(conf->nrouters + d->n + 1, sizeof(*r));
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		d->r[i]->rc = NULL;
	for (size_t i = 0; i < conf->nrouters; i++) {
		struct drouter *x = diag_find(d, conf->routers[i].name);
		if (x == NULL) {
			x = xcalloc(1, sizeof(*x));
			x->name = xstrdup(conf->routers[i].name);
		}
		x->rc = &conf->routers[i];
		r[n++] = x;
	}
	for (size_t i = 0; i < d->n; i++) {
		if (d->r[i]->rc == NULL && (d->r[i]->busy || d->r[i]->probe_busy))
			r[n++] = d->r[i];
		else if (d->r[i]->rc == NULL)
			diag_router_free(d->r[i]);
	}
	qsort(r, n, sizeof(*r), diag_cmp);
	free(d->r);
	d->r = r;
	d->n = n;
	d->conf = conf;
}

diag_t *diag_create(const conf_t *conf, diag_runner_t runner, diag_sink_t sink)
{
	diag_t *d = xcalloc(1, sizeof(*d));
	d->runner = runner;
	d->sink = sink;
	pthread_mutex_init(&d->mu, NULL);
	diag_reconfigure(d, conf);
	return d;
}

void diag_destroy(diag_t *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->n; i++)
		diag_router_free(d->r[i]);
	for (size_t i = 0; i < d->ndemands; i++)
		free(d->demands[i]);
	free(d->demands);
	pthread_mutex_destroy(&d->mu);
	free(d->r);
	free(d);
}

/* The monotonic time of wall clock time wall_ms, at most now; 0 (none) when unknown. Before
 * the boot it is negative, still a time: a host that rebooted keeps profile_every too. */
static int64_t diag_mono_of(int64_t wall_ms)
{
	if (wall_ms <= 0)
		return 0;
	int64_t now = clock_mono_ms(), mono = now - (clock_wall_ms() - wall_ms);
	mono = mono < now ? mono : now;
	return mono != 0 ? mono : -1;
}

void diag_seed(diag_t *d, const char *router, int64_t profile_wall_ms, int64_t probe_wall_ms)
{
	struct drouter *r = diag_find(d, router);
	if (r == NULL)
		return;
	r->last_ok_ms = diag_mono_of(profile_wall_ms);
	r->probe_ok_ms = diag_mono_of(probe_wall_ms);
}

void diag_demand_probe(diag_t *d, const char *router)
{
	pthread_mutex_lock(&d->mu);
	if (d->ndemands < 1024) { /* more is someone looping on the API: they wait */
		d->demands = xreallocarray(d->demands, d->ndemands + 1, sizeof(*d->demands));
		d->demands[d->ndemands++] = xstrdup(router);
	}
	pthread_mutex_unlock(&d->mu);
}

/* Loop thread: the demands made since, onto their routers. */
static void diag_take_demands(diag_t *d)
{
	pthread_mutex_lock(&d->mu);
	for (size_t i = 0; i < d->ndemands; i++) {
		struct drouter *r = diag_find(d, d->demands[i]);
		if (r != NULL)
			r->probe_demanded = true;
		free(d->demands[i]);
	}
	d->ndemands = 0;
	pthread_mutex_unlock(&d->mu);
}

/* ---- a profile's or a probe's end ---- */

/* r went from the conf while its profile or probe ran: once both ended, it goes. */
static void diag_drop_gone(diag_t *d, struct drouter *r)
{
	if (r->rc != NULL || r->busy || r->probe_busy)
		return;
	size_t i = 0;
	while (d->r[i] != r)
		i++;
	memmove(&d->r[i], &d->r[i + 1], (d->n - i - 1) * sizeof(*d->r));
	d->n--;
	diag_router_free(r);
}

static void diag_probe_done(
	const char *router, enum diag_status st, probe_t *p[2], const char *why, void *arg)
{
	diag_t *d = arg;
	struct drouter *r = diag_find(d, router);
	d->probes--;
	if (r == NULL) {
		probe_free(p[0]);
		probe_free(p[1]);
		return;
	}
	r->probe_busy = false;
	if (r->probe_for_upgrade)
		r->probe_upgraded = false;
	if (st == DIAG_OK) {
		r->probe_ok_ms = clock_mono_ms();
		if (r->probe_told)
			log_info("diag: router %s: probes work again", router);
		r->probe_told = false;
		for (int i = 0; i < 2 && p[i] != NULL; i++) {
			p[i]->busiest_core_load = r->probe_core;
			log_info("diag: router %s: probe %s: %.0f of %.0f bit/s delivered", router,
				p[i]->direction, p[i]->delivered_bps, p[i]->offered_bps);
			d->sink.probe(d->sink.ctx, p[i]);
		}
	} else {
		r->probe_bad_ms = clock_mono_ms();
		if (!r->probe_told)
			log_warn("diag: router %s: %s %s; polls go on", router,
				st == DIAG_REFUSED ? "refused a probe:" : "probe failed:", why);
		r->probe_told = true;
	}
	diag_drop_gone(d, r);
}

static void diag_done(const char *router, enum diag_status st, profile_t *p, const char *why, void *arg)
{
	diag_t *d = arg;
	struct drouter *r = diag_find(d, router);
	if (r == NULL) { /* cannot be: a busy router stays; but never lose a profile's memory */
		profile_free(p);
		return;
	}
	r->busy = false;
	if (r->for_upgrade)
		r->upgraded = false; /* one try per upgrade: a refusal is not asked again and again */
	if (st == DIAG_OK) {
		r->last_ok_ms = clock_mono_ms();
		if (r->told)
			log_info("diag: router %s: profiles work again", router);
		r->told = false;
		log_debug("diag: router %s: profile of %zu rows", router, p->nrows);
		d->sink.profile(d->sink.ctx, p);
	} else {
		r->last_bad_ms = clock_mono_ms();
		if (!r->told)
			log_warn("diag: router %s: %s %s; polls go on, profiles are asked again after "
				 "profile_every",
				router, st == DIAG_REFUSED ? "refused a profile:" : "profile failed:", why);
		r->told = true;
	}
	diag_drop_gone(d, r);
}

/* ---- when to profile ---- */

static double diag_busiest(const sample_t *s)
{
	double max = 0;
	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].load > max)
			max = s->cores[i].load;
	return max;
}

/* Counts s into r's runs and notes an upgrade. */
static void diag_count(const diag_t *d, struct drouter *r, const sample_t *s)
{
	if (s->err != SAMPLE_OK) {
		r->ok_run = r->sat_run = 0;
		return;
	}
	r->ok_run++;
	if (s->version != NULL && r->version != NULL && strcmp(s->version, r->version) != 0) {
		r->upgraded = r->probe_upgraded = true;
		r->sat_after = false;
		r->ok_run = 1;
	}
	if (s->version != NULL) {
		free(r->version);
		r->version = xstrdup(s->version);
	}
	r->sat_run = s->ncores > 0 && diag_busiest(s) >= d->conf->saturated ? r->sat_run + 1 : 0;
}

static bool diag_due(const struct drouter *r, int64_t now)
{
	int64_t every = r->rc->profile_every_ms;
	if (r->last_bad_ms != 0 && now - r->last_bad_ms < every)
		return false;
	if (r->upgraded && r->ok_run >= DIAG_RUN)
		return true;
	if (r->sat_run < DIAG_RUN)
		return false;
	return r->sat_after || r->last_ok_ms == 0 || now - r->last_ok_ms >= every;
}

/* Without diag_user a request of duration_ms holds the poll user's queue: it must end before
 * the next poll. what: "profile" or "probe". */
static bool diag_fits(struct drouter *r, const sample_t *s, int64_t duration_ms, const char *what)
{
	const conf_router_t *rc = r->rc;
	if (rc->diag_user != NULL || rc->interval_ms - s->duration_ms - DIAG_MARGIN_MS >= duration_ms)
		return true;
	if (!r->told_nofit)
		log_warn("diag: router %s: a %s of %" PRId64 " ms under the poll's user would delay "
			 "the next poll (interval %" PRId64 " ms): set diag_user to run it",
			rc->name, what, duration_ms, rc->interval_ms);
	r->told_nofit = true;
	return false;
}

static bool diag_probe_due(const diag_t *d, const struct drouter *r, int64_t now)
{
	const conf_router_t *rc = r->rc;
	int64_t every = rc->probe_every_ms > 0 ? rc->probe_every_ms : 3600000;
	if (rc->probe == NULL || r->probe_busy || r->busy || d->probes >= (size_t)d->conf->max_probes ||
		r->ok_run < DIAG_RUN)
		return false;
	if (r->probe_demanded)
		return true;
	if (r->probe_bad_ms != 0 && now - r->probe_bad_ms < every)
		return false;
	if (r->probe_upgraded)
		return true;
	return rc->probe_every_ms > 0 && (r->probe_ok_ms == 0 || now - r->probe_ok_ms >= rc->probe_every_ms);
}

/* A probe, when one is due and no profile of the router runs. */
static void diag_maybe_probe(diag_t *d, struct drouter *r, const sample_t *s)
{
	if (r->probe_busy && s->err == SAMPLE_OK && diag_busiest(s) > r->probe_core)
		r->probe_core = diag_busiest(s);
	if (!diag_probe_due(d, r, clock_mono_ms()) || !diag_fits(r, s, r->rc->probe_duration_ms, "probe"))
		return;
	r->probe_for_upgrade = r->probe_upgraded;
	r->probe_demanded = false;
	r->probe_core = -1;
	if (d->runner.probe(d->runner.ctx, r->rc, diag_probe_done, d) == 0) {
		r->probe_busy = true;
		d->probes++;
	}
}

void diag_note_poll(diag_t *d, const sample_t *s)
{
	diag_take_demands(d); /* an uncontended lock per poll */
	struct drouter *r = diag_find(d, s->router);
	if (r == NULL || r->rc == NULL || !r->rc->diag || r->rc->rest == NULL)
		return;
	diag_count(d, r, s);
	diag_maybe_probe(d, r, s);
	if (r->busy || r->probe_busy || !diag_due(r, clock_mono_ms()) ||
		!diag_fits(r, s, r->rc->profile_duration_ms, "profile"))
		return;
	r->for_upgrade = r->upgraded && r->ok_run >= DIAG_RUN;
	if (d->runner.profile(d->runner.ctx, r->rc, diag_done, d) != 0)
		return;
	r->busy = true;
	/* An upgrade's profile taken while no core was saturated says little of the ceiling: the
	 * first saturated moment after it gets one more, whatever profile_every says. */
	r->sat_after = r->for_upgrade && r->sat_run < DIAG_RUN;
}
