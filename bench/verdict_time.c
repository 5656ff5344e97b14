/* SPDX-License-Identifier: Apache-2.0 */
/* verdict_time: how long an operator waits for a verdict (bench/README.md). Each group of a
 * scenario is one router on wgwatch-sim's CPU model, polled every 30 s in simulated time around
 * its upgrade; judge_event, the daemon's own maths, judges it as the after window fills, and the
 * bench prints per stream after how many polls the first correct provisional verdict came, and
 * the final one. It calls judge.h as the detector does. It
 * must never write a file or open a socket, and never call a verdict correct that the model's
 * own capacities do not give. */
#include "config.h"
#include "detector/judge.h"
#include "lib/hash.h"
#include "lib/xmem.h"
#include "sim/scenario.h"
#include "sim/simrouter.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define VT_INTERVAL 30.0          /* s: the poll interval operators run */
#define VT_WINDOW   (7 * 86400.0) /* s: [detector] before and after, their defaults */
#define VT_EVERY    2             /* polls: [detector] every, after / 10 capped at 1 min */
#define VT_STEP     0.05          /* judged again 5 % of the after window's polls later, at least */
#define VT_THREADS  4             /* cases run at once, at most (-j) */
#define VT_RATIO_OK \
	0.1 /* a regression's ratio within this of the model's is correct, or
				     within two of the standard errors it states (ratio_rse) */

/* The [detector] defaults (daemon/confkeys.c): min_samples 30, threshold 0.20, saturated 0.90,
 * min_mbps 1. */
static const struct frame_params vt_params = {
	.min_samples = 30, .threshold = 0.20, .saturated = 0.90, .min_bps = 1e6
};

struct vt_run { /* one router's polls around its upgrade, as the daemon would store them */
	const struct sc_group *g;
	simrouter_t *r;
	size_t nifs, ncores, nb, na; /* interfaces, cores, polls before and after */
	double *t;                   /* [poll]: its simulated time */
	float *load;                 /* [poll * ncores + core], 0..1 */
	double *rate;                /* [poll * 2 * nifs + stream], bits/s */
};

/* What the bench saw of one stream. Poll counts are after the upgrade; 0 is never. */
struct vt_stream {
	enum detector_outcome expect;
	double ratio; /* the model's capacity after / before */
	size_t first; /* the first correct verdict */
	size_t from;  /* every verdict correct from here on */
	size_t alarm; /* the first regression the model does not have: a false alarm */
	size_t off;   /* the first regression it has, at a ratio off by more than VT_RATIO_OK */
	struct frame_result at_first, at_alarm, at_off, last;
	size_t njudged, nwrong; /* verdicts looked at, wrong ones (insufficient-data is not) */
};

/* ---- the router and its polls ---- */

/* When g's upgrade happens: its first reboot into another version; -1 when none. */
static double vt_upgrade_time(const struct sc_group *g)
{
	for (size_t i = 1; i < g->nphases; i++)
		if (g->phases[i].reboot && strcmp(g->phases[i].st.version, g->phases[0].st.version) != 0)
			return g->phases[i].start;
	return -1;
}

/* The bytes at t, floored as a counter is, into b[f][d] (d 0 rx, 1 tx, as the sim has it). */
static void vt_bytes(const struct vt_run *v, double t, double b[][2])
{
	simrouter_pool_bytes(v->r, t, b);
	for (size_t f = 0; f < v->nifs; f++)
		b[f][0] = floor(b[f][0]), b[f][1] = floor(b[f][1]);
}

/* Poll i of the frame at time t, the previous poll's bytes in prev (updated to t's). */
static void vt_poll(struct vt_run *v, size_t i, double t, double prev[][2])
{
	double now[SC_CPU_MAX_WG][2];
	vt_bytes(v, t, now);
	v->t[i] = t;
	for (size_t c = 0; c < v->ncores; c++)
		v->load[i * v->ncores + c] = (float)simrouter_core_load(v->r, t, (int)c) / 100.0f;
	for (size_t f = 0; f < v->nifs; f++) /* stream 2f is tx (sim d 1), 2f + 1 rx (d 0) */
		for (size_t k = 0; k < 2; k++)
			v->rate[i * 2 * v->nifs + 2 * f + k] = (now[f][1 - k] - prev[f][1 - k]) * 8 /
				VT_INTERVAL;
	memcpy(prev, now, sizeof(now));
}

/* The polls of the windows around the upgrade at u: the first poll at or after u spans the
 * reboot and is in neither (as the daemon has it); the polls fall at the router's own phase in
 * the interval, as the daemon spreads them. */
static void vt_sample(struct vt_run *v, double u)
{
	size_t per = (size_t)(VT_WINDOW / VT_INTERVAL), n = 2 * per;
	double offset = (double)(hash_str64(v->g->name) % 30000) / 1000;
	double ke = ceil((u - offset) / VT_INTERVAL), prev[SC_CPU_MAX_WG][2];
	v->nb = v->na = per;
	v->t = xcalloc(n, sizeof(double));
	v->load = xcalloc(n * v->ncores, sizeof(float));
	v->rate = xcalloc(n * 2 * v->nifs, sizeof(double));
	vt_bytes(v, offset + (ke - (double)per - 1) * VT_INTERVAL, prev);
	for (size_t i = 0, k = 0; i < n; k++) {
		double t = offset + (ke - (double)per + (double)k) * VT_INTERVAL;
		if (k == per) /* the poll that spans the reboot */
			vt_bytes(v, t, prev);
		else
			vt_poll(v, i++, t, prev);
	}
}

/* ---- the physics: what the model's own capacities give ---- */

/* Percent of core per Mbit/s that stream s costs each of its cores at t; 0 when it costs
 * nothing. */
static double vt_cost(const struct vt_run *v, double t, size_t s, int *ncores, const unsigned char **cores)
{
	const struct sc_state *st = simrouter_state(v->r, t);
	int f = (int)(s / 2), d = s % 2 ? 0 : 1, mhz0 = v->g->phases[0].st.cpu_mhz;
	double scale = mhz0 > 0 && st->cpu_mhz > 0 ? (double)mhz0 / st->cpu_mhz : 1;
	*ncores = st->cpu.ncores[f][d];
	*cores = st->cpu.core[f][d];
	return *ncores > 0 ? scale * st->cpu.cost[f][d] / *ncores : 0;
}

/* Stream s's capacity over polls [from, to) in Mbit/s, as the model has it: its mean rate plus
 * the headroom its core leaves over its cost there (the true load, unrounded), on the core that
 * fills first. */
static double vt_capacity(const struct vt_run *v, size_t from, size_t to, size_t s)
{
	int nc;
	const unsigned char *cores;
	double per = vt_cost(v, v->t[(from + to) / 2], s, &nc, &cores), x = 0, cap = INFINITY;
	for (size_t i = from; i < to; i++)
		x += v->rate[i * 2 * v->nifs + s] / 1e6 / (double)(to - from);
	for (int j = 0; j < nc && per > 0; j++) {
		double load = 0, parts[SC_PROF_PARTS];
		for (size_t i = from; i < to; i++) {
			simrouter_core_parts(v->r, v->t[i], cores[j], parts);
			load += (parts[SC_PROF_RX] + parts[SC_PROF_TX] + parts[SC_PROF_WORK]) /
				(double)(to - from);
		}
		cap = fmin(cap, x + fmax(0, 100 - load) / per);
	}
	return cap;
}

/* The verdict the model's capacities give stream s, with their ratio. */
static void vt_physics(const struct vt_run *v, size_t s, struct vt_stream *o)
{
	o->ratio = vt_capacity(v, v->nb, v->nb + v->na, s) / vt_capacity(v, 0, v->nb, s);
	double lo = 1 - vt_params.threshold, hi = 1 + vt_params.threshold;
	o->expect = !isfinite(o->ratio) ? DETECTOR_INSUFFICIENT
		: o->ratio < lo         ? DETECTOR_REGRESSION
		: o->ratio > hi         ? DETECTOR_IMPROVEMENT
					: DETECTOR_UNCHANGED;
}

/* ---- judging as the after window fills ---- */

static void vt_stream_name(const struct vt_run *v, size_t s, char *buf, size_t size)
{
	snprintf(buf, size, "%s %s %s", v->g->name, v->g->wg[s / 2].name, s % 2 ? "rx" : "tx");
}

/* The verdicts of every stream with the first n polls of the after window. */
static void vt_judge(const struct vt_run *v, size_t n, struct frame_result *r)
{
	struct frame f = { .npolls = v->nb + n,
		.ncores = v->ncores,
		.nifs = v->nifs,
		.split = v->nb,
		.load = v->load,
		.rate = v->rate };
	judge_event(&f, &vt_params, r);
}

static bool vt_correct(const struct vt_stream *o, const struct frame_result *r)
{
	if (r->verdict != o->expect)
		return false;
	double tol = fmax(VT_RATIO_OK, isfinite(r->rse) ? 2 * r->rse * r->ratio : 0);
	return r->verdict != DETECTOR_REGRESSION || fabs(r->ratio - o->ratio) <= tol;
}

/* What the verdict r after n polls tells of stream o. */
static void vt_note(struct vt_stream *o, size_t n, const struct frame_result *r)
{
	bool ok = vt_correct(o, r);
	o->njudged++;
	o->nwrong += !ok && r->verdict != DETECTOR_INSUFFICIENT;
	if (ok && o->first == 0) {
		o->first = n;
		o->at_first = *r;
	}
	if (ok && o->from == 0)
		o->from = n;
	else if (!ok)
		o->from = 0;
	if (!ok && r->verdict == DETECTOR_REGRESSION && o->expect != DETECTOR_REGRESSION && o->alarm == 0) {
		o->alarm = n;
		o->at_alarm = *r;
	}
	if (!ok && r->verdict == DETECTOR_REGRESSION && o->expect == DETECTOR_REGRESSION && o->off == 0) {
		o->off = n;
		o->at_off = *r;
	}
	o->last = *r;
}

/* The after-window poll counts judged: the daemon's first look at min_samples polls, then every
 * VT_EVERY polls (its `every`, 1 min) until VT_STEP of the count is more, then every VT_STEP of
 * it, and the complete window. Not every minute of the week: judge_event on a 7-day before
 * window takes ~0.1 s, and a week of minutes is 10,000 of them per case. */
static size_t vt_next(size_t n, size_t na)
{
	if (n < vt_params.min_samples)
		return vt_params.min_samples;
	size_t step = (size_t)((double)n * VT_STEP) & ~(size_t)1;
	step = step > VT_EVERY ? step : VT_EVERY;
	return n + step < na ? n + step : n < na ? na : 0;
}

/* One line of -v: what stream s was told after n polls. */
static void vt_trace(FILE *out, const struct vt_run *v, size_t s, size_t n, const struct frame_result *r)
{
	char name[96];
	vt_stream_name(v, s, name, sizeof(name));
	fprintf(out, "  %-24s %6zu polls %6.1f h: %s %s %.2f (rse %.2f), cores %s%s%s\n", name, n,
		(double)n * VT_INTERVAL / 3600, outcome_name(r->verdict), outcome_method_name(r->method),
		r->ratio, r->rse, r->cores[0] ? r->cores : "-", r->why[0] ? ": " : "", r->why);
}

/* Judge v at each count of the schedule into o; with trace, every verdict on it. */
static void vt_follow(const struct vt_run *v, struct vt_stream *o, FILE *trace)
{
	size_t ns = 2 * v->nifs;
	struct frame_result *r = xcalloc(ns, sizeof(*r));
	for (size_t n = vt_next(0, v->na); n > 0; n = vt_next(n, v->na)) {
		vt_judge(v, n, r);
		for (size_t s = 0; s < ns; s++) {
			vt_note(&o[s], n, &r[s]);
			if (trace)
				vt_trace(trace, v, s, n, &r[s]);
		}
	}
	free(r);
}

/* ---- output ---- */

static const char *vt_when(size_t n, char *buf, size_t size)
{
	if (n == 0)
		snprintf(buf, size, "never");
	else
		snprintf(buf, size, "%zu (%.1f h)", n, (double)n * VT_INTERVAL / 3600);
	return buf;
}

static void vt_print_stream(FILE *out, const struct vt_run *v, size_t s, const struct vt_stream *o)
{
	char name[96], exp[384], first[384], from[384], fin[384], wrong[64], how[32] = "";
	vt_stream_name(v, s, name, sizeof(name));
	snprintf(exp, sizeof(exp), "%s %.2f", outcome_name(o->expect), o->ratio);
	if (o->first > 0)
		snprintf(how, sizeof(how), "%s", outcome_method_name(o->at_first.method));
	snprintf(fin, sizeof(fin), "%s %s %.2f", outcome_name(o->last.verdict),
		outcome_method_name(o->last.method), o->last.ratio);
	snprintf(wrong, sizeof(wrong), "%zu/%zu", o->nwrong, o->njudged);
	fprintf(out, "%-24s %-17s %-14s %-18s %-14s %-36s %-5s %s\n", name, exp,
		vt_when(o->first, first, sizeof(first)), how, vt_when(o->from, from, sizeof(from)), fin,
		vt_correct(o, &o->last) ? "ok" : "WRONG", wrong);
	if (!vt_correct(o, &o->last) && o->last.why[0])
		fprintf(out, "%-24s why: %s\n", "", o->last.why);
}

/* Loud, on a line of its own: a regression the model does not have must never be claimed. A
 * true regression claimed with a ratio far from the model's gets a quieter line. */
static void vt_print_alarm(FILE *out, const struct vt_run *v, size_t s, const struct vt_stream *o)
{
	char name[96], when[384];
	vt_stream_name(v, s, name, sizeof(name));
	if (o->alarm > 0)
		fprintf(out,
			"!!! FALSE ALARM !!! %s: regression (%s, ratio %.2f) after %s polls; the model says %s %.2f\n",
			name, outcome_method_name(o->at_alarm.method), o->at_alarm.ratio,
			vt_when(o->alarm, when, sizeof(when)), outcome_name(o->expect), o->ratio);
	if (o->off > 0)
		fprintf(out,
			"%-24s off: regression at ratio %.2f \xc2\xb1 %.2f (%s) after %s polls, the model's is %.2f\n",
			"", o->at_off.ratio, 2 * o->at_off.rse * o->at_off.ratio,
			outcome_method_name(o->at_off.method), vt_when(o->off, when, sizeof(when)), o->ratio);
}

static void vt_header(void)
{
	printf("verdict_time: polls every %.0f s (simulated), before = after = 7d (%.0f polls each), "
	       "min_samples %zu, threshold %.2f, saturated %.2f, min_mbps %.0f\n",
		VT_INTERVAL, VT_WINDOW / VT_INTERVAL, vt_params.min_samples, vt_params.threshold,
		vt_params.saturated, vt_params.min_bps / 1e6);
	printf("judged (judge_event) at %zu polls after the upgrade, then every %d polls (the daemon's "
	       "every = 1m) until %.0f %% of the polls is more, then every %.0f %% of them (not every "
	       "minute: too slow), and at the end\n",
		vt_params.min_samples, VT_EVERY, VT_STEP * 100, VT_STEP * 100);
	printf("correct = the model's verdict (its capacity after / before), a regression's ratio "
	       "within %.1f of the model's or two of the standard errors it states; polls counted "
	       "after the upgrade (30 s each)\n",
		VT_RATIO_OK);
	printf("first correct: the first verdict judged that was; correct from: every one from then on "
	       "was; wrong: verdicts other than the model's (insufficient-data is silence, not wrong) "
	       "of those judged\n\n");
	printf("%-24s %-17s %-14s %-18s %-14s %-36s %-5s %s\n", "case stream", "expected (model)",
		"first correct", "its method", "correct from", "final (7d): verdict method ratio", "final",
		"wrong");
}

/* ---- one case ---- */

struct vt_job { /* one group of the scenario, run on a worker thread */
	const scenario_t *sc;
	size_t gi;
	bool verbose; /* -v: every verdict judged too */
	char *text;   /* what it prints */
	size_t size, alarms, wrong;
	int rc;
	bool done;
};

static void vt_report(FILE *out, const struct vt_run *v, const struct vt_stream *o, struct vt_job *j)
{
	for (size_t s = 0; s < 2 * v->nifs; s++) {
		vt_print_stream(out, v, s, &o[s]);
		vt_print_alarm(out, v, s, &o[s]);
		j->alarms += o[s].alarm > 0;
		j->wrong += o[s].nwrong;
	}
}

/* Run job j's group into j->text; j->rc -1 when it cannot be run. */
static void vt_case(struct vt_job *j)
{
	const struct sc_group *g = &j->sc->groups[j->gi];
	FILE *out = open_memstream(&j->text, &j->size);
	double u = vt_upgrade_time(g);
	if (out == NULL)
		abort();
	if (!g->cpu_sim || u < VT_WINDOW + VT_INTERVAL) {
		fprintf(out, "%s: no CPU model, or no upgrade a week in: not run\n", g->name);
		j->rc = -1;
		fclose(out);
		return;
	}
	struct vt_run v = {
		.g = g, .r = simrouter_create(j->sc, g, 0, j->gi), .nifs = g->nwg, .ncores = (size_t)g->cores
	};
	vt_sample(&v, u);
	struct vt_stream *o = xcalloc(2 * v.nifs, sizeof(*o));
	for (size_t s = 0; s < 2 * v.nifs; s++)
		vt_physics(&v, s, &o[s]);
	vt_follow(&v, o, j->verbose ? out : NULL);
	vt_report(out, &v, o, j);
	fclose(out);
	free(o);
	free(v.t);
	free(v.load);
	free(v.rate);
	simrouter_destroy(v.r);
}

/* ---- main: the cases on up to VT_THREADS threads, printed in the scenario's order ---- */

struct vt_pool {
	pthread_mutex_t lock;
	pthread_cond_t done;
	struct vt_job *jobs;
	size_t njobs, next;
};

static void *vt_worker(void *arg)
{
	struct vt_pool *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->next < p->njobs ? p->next++ : p->njobs;
		pthread_mutex_unlock(&p->lock);
		if (i == p->njobs)
			return NULL;
		vt_case(&p->jobs[i]);
		pthread_mutex_lock(&p->lock);
		p->jobs[i].done = true;
		pthread_cond_broadcast(&p->done);
		pthread_mutex_unlock(&p->lock);
	}
}

/* Print each job as soon as it and those before it are done; 0, or -1 when one failed. */
static int vt_collect(struct vt_pool *p, size_t *alarms, size_t *wrong)
{
	int rc = 0;
	for (size_t i = 0; i < p->njobs; i++) {
		pthread_mutex_lock(&p->lock);
		while (!p->jobs[i].done)
			pthread_cond_wait(&p->done, &p->lock);
		pthread_mutex_unlock(&p->lock);
		fputs(p->jobs[i].text, stdout);
		fflush(stdout);
		free(p->jobs[i].text);
		*alarms += p->jobs[i].alarms;
		*wrong += p->jobs[i].wrong;
		rc |= p->jobs[i].rc;
	}
	return rc;
}

struct vt_opts {
	size_t threads;   /* -j */
	bool verbose;     /* -v */
	const char *only; /* -c: this group alone; NULL all */
	uint64_t seed;    /* -s: the noise's seed in place of the scenario's; 0 keeps it */
};

static int vt_run_all(const scenario_t *sc, const struct vt_opts *o, size_t *alarms, size_t *wrong)
{
	struct vt_pool p = { .jobs = xcalloc(sc->ngroups + 1, sizeof(struct vt_job)) };
	pthread_t th[VT_THREADS];
	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.done, NULL);
	for (size_t i = 0; i < sc->ngroups; i++)
		if (!o->only || strcmp(o->only, sc->groups[i].name) == 0)
			p.jobs[p.njobs++] = (struct vt_job){ .sc = sc, .gi = i, .verbose = o->verbose };
	for (size_t i = 0; i < o->threads; i++)
		if (pthread_create(&th[i], NULL, vt_worker, &p) != 0)
			abort();
	int rc = vt_collect(&p, alarms, wrong);
	for (size_t i = 0; i < o->threads; i++)
		pthread_join(th[i], NULL);
	pthread_cond_destroy(&p.done);
	pthread_mutex_destroy(&p.lock);
	free(p.jobs);
	if (p.njobs == 0)
		fprintf(stderr, "verdict_time: no group %s in the scenario\n", o->only ? o->only : "");
	return p.njobs ? rc : -1;
}

static double vt_now(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void vt_usage(FILE *f)
{
	fprintf(f,
		"usage: verdict_time [-v] [-j THREADS] [-c GROUP] [-s SEED] [SCENARIO]\n"
		"  -v        also every verdict judged, per stream\n"
		"  -j N      cases run at once (1..%d; default the CPUs, at most %d)\n"
		"  -c GROUP  that group of the scenario alone\n"
		"  -s SEED   other noise: this seed in place of the scenario's (1..)\n"
		"  SCENARIO  default %s\n",
		VT_THREADS, VT_THREADS, VT_SCENARIO);
}

/* The command line into *o: 0, 1 for help, -1 when it is wrong. */
static int vt_args(int argc, char **argv, struct vt_opts *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), n;
	int opt;
	o->threads = cpus < 1 ? 1 : cpus > VT_THREADS ? VT_THREADS : (size_t)cpus;
	while ((opt = getopt(argc, argv, "c:hj:s:v")) != -1)
		switch (opt) {
		case 'c': o->only = optarg; break;
		case 's':
			if ((n = strtol(optarg, NULL, 10)) < 1)
				return -1;
			o->seed = (uint64_t)n;
			break;
		case 'v': o->verbose = true; break;
		case 'j':
			if ((n = strtol(optarg, NULL, 10)) < 1 || n > VT_THREADS)
				return -1;
			o->threads = (size_t)n;
			break;
		case 'h': return 1;
		default: return -1;
		}
	return optind + 1 < argc ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct vt_opts o = { 0 };
	int a = vt_args(argc, argv, &o);
	if (a != 0) {
		vt_usage(a > 0 ? stdout : stderr);
		return a > 0 ? 0 : 2;
	}
	scenario_t *sc;
	char *errors = NULL;
	if (scenario_load(optind < argc ? argv[optind] : VT_SCENARIO, &sc, &errors) < 0) {
		fputs(errors, stderr);
		free(errors);
		return 2;
	}
	if (o.seed)
		sc->seed = o.seed;
	printf("seed %" PRIu64 "\n", sc->seed);
	double w0 = vt_now(CLOCK_MONOTONIC), c0 = vt_now(CLOCK_PROCESS_CPUTIME_ID);
	size_t alarms = 0, wrong = 0;
	vt_header();
	int rc = vt_run_all(sc, &o, &alarms, &wrong);
	printf("\n%zu wrong verdicts on the way (insufficient-data not counted), %zu false alarms%s\n", wrong,
		alarms, alarms ? ": A REGRESSION WAS CLAIMED THAT THE MODEL DOES NOT HAVE" : "");
	printf("ran in %.1f s (%.1f s CPU, %zu threads)\n", vt_now(CLOCK_MONOTONIC) - w0,
		vt_now(CLOCK_PROCESS_CPUTIME_ID) - c0, o.threads);
	scenario_free(sc);
	return rc ? 1 : 0;
}
