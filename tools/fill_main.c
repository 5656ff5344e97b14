/* SPDX-License-Identifier: Apache-2.0 */
/* wgwatch-fill: the past of a simulated fleet, written into wgwatchd's database before the
 * daemon starts, so that the demo opens on weeks of history already judged. Each poll is what
 * wgwatch-sim answers at that simulated second (simrest_handle), decoded by the REST collector's
 * own decoder (restdecode) and committed by the store's own writer: nothing here makes up a row.
 * A router the config reads over SNMP alone (snmp = and no rest =) is polled as the SNMP
 * collector polls it, its requests answered by the simulated agent (fillsnmp.c).
 * Simulated second 0 is the wall time --epoch, and one simulated second is one real second, so
 * every rate stays true. It never opens a socket and writes only the database of the config.
 * Profiles and probes of the past likewise, by the daemon's rules. It wires sim, collectors
 * and store, a tool above every layer (tools/): no layer includes it. */
#include "config.h"
#include "collectors/restdecode.h"
#include "collectors/restdiag.h"
#include "collectors/resthdr.h"
#include "collectors/restreq.h"
#include "daemon/conf.h"
#include "daemon/sample.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "lib/xmem.h"
#include "tools/fillsnmp.h"
#include "sim/scenario.h"
#include "sim/simrest.h"
#include "sim/simrouter.h"
#include "store/store.h"

#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fill_opts {
	const char *conf_path, *scenario;
	double epoch;     /* wall time of simulated second 0 */
	double until;     /* wall time of the last poll; 0: now, followed while filling */
	int64_t step_ms;  /* poll interval of the past */
	double saturated; /* [detector] saturated of the config, for the profiles' rule */
	bool maintain;    /* the store's maintenance run to the end before closing */
};

/* One router of the scenario that the config polls. */
struct fill_router {
	simrouter_t *r;
	const conf_router_t *rc;
	int64_t offset_ms;       /* its polls' phase within the interval, as the daemon spreads them */
	struct filldiag *diag;   /* its profiles and probes */
	fillsnmp_router_t *snmp; /* SNMP-only in the config: what its SNMP collector keeps; else NULL */
};

static void fill_usage(FILE *f)
{
	fputs("usage: wgwatch-fill -c WGWATCH_CONF -e EPOCH [-i INTERVAL] [-u UNTIL] [-m] SCENARIO_FILE\n"
	      "  Writes the polls wgwatch-sim would have answered from EPOCH (Unix time of simulated\n"
	      "  second 0) to UNTIL (default: now), one every INTERVAL (default 1m), into the\n"
	      "  database of WGWATCH_CONF, for the routers of SCENARIO_FILE that it names: over\n"
	      "  REST, or over SNMP for a router with snmp = and no rest = (as wgwatch-sim\n"
	      "  --snmp-only writes them), as wgwatchd would poll it. -m (--maintain): then the\n"
	      "  store's roll-ups, retention and chunking of closed hours, as wgwatchd keeps it.\n",
		f);
}

static int fill_time_arg(const char *what, const char *s, double *out)
{
	char *end;
	*out = strtod(s, &end);
	if (*end || end == s || !(*out > 0 && *out <= (double)time(NULL) + 1)) {
		fprintf(stderr, "wgwatch-fill: %s %s: want a Unix time, not in the future\n", what, s);
		return -1;
	}
	return 0;
}

static int fill_parse_opts(int argc, char **argv, struct fill_opts *o)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "interval", required_argument, NULL, 'i' },
		{ "until", required_argument, NULL, 'u' },
		{ "maintain", no_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct fill_opts){ .step_ms = 60000 };
	for (int ch; (ch = getopt_long(argc, argv, "c:e:i:u:mh", lo, NULL)) != -1;) {
		if (ch == 'c')
			o->conf_path = optarg;
		else if (ch == 'm')
			o->maintain = true;
		else if (ch == 'e' && fill_time_arg("--epoch", optarg, &o->epoch) < 0)
			return -1;
		else if (ch == 'u' && fill_time_arg("--until", optarg, &o->until) < 0)
			return -1;
		else if (ch == 'i' && (conf_parse_duration(optarg, &o->step_ms) < 0 || o->step_ms < 1000)) {
			fprintf(stderr, "wgwatch-fill: --interval %s: want a duration of 1s or more\n",
				optarg);
			return -1;
		} else if (ch == 'h') {
			fill_usage(stdout);
			exit(0);
		} else if (ch == '?') {
			fill_usage(stderr);
			return -1;
		}
	}
	if (optind != argc - 1 || !o->conf_path || o->epoch <= 0) {
		fill_usage(stderr);
		return -1;
	}
	o->scenario = argv[optind];
	return 0;
}

/* The faults that never reach HTTP, as the REST collector reports them; SAMPLE_OK otherwise. */
static enum sample_err fill_net_fault(enum sc_fault f, const char **why)
{
	switch (f) {
	case SC_FAULT_REFUSE: *why = "Couldn't connect to server"; return SAMPLE_ERR_CONNECT;
	case SC_FAULT_HANG:
	case SC_FAULT_SLOWLORIS: *why = "Timeout was reached"; return SAMPLE_ERR_TIMEOUT;
	case SC_FAULT_TRUNCATE:
	case SC_FAULT_RESET: *why = "Transferred a partial file"; return SAMPLE_ERR_CONNECT;
	case SC_FAULT_BIG: *why = "reply larger than the cap"; return SAMPLE_ERR_SIZE;
	default: return SAMPLE_OK;
	}
}

/* One request of the poll, the daemon's own (collectors/restreq.c: path, .proplist, and the
 * POST query when interfaces are named), answered and decoded into s; -1 once s has failed. */
static int fill_step(const simrouter_t *r, const conf_router_t *rc, double t, const char *auth,
	enum restdecode_step step, sample_t *s)
{
	struct restreq rq;
	restreq_get(step, rc, NULL, 0, s, &rq);
	const char *what = restreq_what(step, rc, 0);
	struct simreq q = { .method = rq.post ? "POST" : "GET",
		.path = rq.path,
		.query = rq.query ? rq.query : "",
		.auth = auth,
		.body = rq.post,
		.body_len = rq.post ? strlen(rq.post) : 0,
		.content_type = rq.post ? "application/json" : NULL };
	struct simresp rs = { 0 };
	buf_init(&rs.body);
	simrest_handle(r, t, &q, &rs);
	const char *body = rs.shared ? rs.shared : rs.body.data ? rs.body.data : "";
	size_t len = rs.shared ? rs.shared_len : rs.body.len;
	char *cause = NULL;
	int ret = 0;
	if (rs.status < 200 || rs.status > 299) {
		cause = restdecode_http_reason(rs.status, body, len);
		sample_fail(s, rs.status == 401 || rs.status == 403 ? SAMPLE_ERR_AUTH : SAMPLE_ERR_HTTP,
			"%s: %s", what, cause);
		ret = -1;
	} else if (restdecode_reply(step, body, len, s, &cause) < 0) {
		sample_fail(s, SAMPLE_ERR_PARSE, "%s: %s", what, cause);
		ret = -1;
	}
	free(cause);
	free(rq.post);
	buf_free(&rs.body);
	return ret;
}

/* The poll of router f at wall time ms: what the daemon's REST collector would have stored,
 * or its SNMP collector's (through agent, the thread's) for an SNMP-only router. */
static sample_t *fill_poll(const struct fill_router *f, const struct fill_opts *o, const char *auth,
	fillsnmp_t *agent, int64_t ms)
{
	double t = (double)ms / 1000.0 - o->epoch;
	if (f->snmp != NULL)
		return fillsnmp_poll(agent, f->snmp, f->r, f->rc, ms, t);
	sample_t *s = sample_new(f->rc->name, ms, "rest");
	s->duration_ms = 20;
	const char *why;
	enum sample_err err = fill_net_fault(simrouter_fault(f->r, t), &why);
	if (err != SAMPLE_OK) {
		sample_fail(s, err, "GET /rest/system/resource: %s", why);
		return s;
	}
	for (int step = 0; step < RESTDECODE_NSTEPS; step++) {
		/* health once a wall-clock minute, as the daemon reads it (collectors/rest.c) */
		if (step == RESTDECODE_HEALTH && ms / 60000 == (ms - o->step_ms) / 60000)
			continue;
		if (step == RESTDECODE_UPDATE) /* check_updates is off by default: the past has none */
			continue;
		if (fill_step(f->r, f->rc, t, auth, (enum restdecode_step)step, s) < 0)
			break;
	}
	return s;
}

/* ---- the past's profiles and probes, by the scheduler's rules of daemon/diag.c on the fill's
 * polls: after each upgrade once 3 polls answered, when the busiest core was saturated for 3
 * polls and the newest profile is older than profile_every, and a probe every probe_every
 * (one probe, then the profile at the next poll, never both at once). Each is POSTed to the
 * simulated router with the daemon's own request body (restdiag) and decoded with its decoder;
 * a refusal or failure is skipped, as the daemon logs it and goes on. A request body is never
 * logged: a probe's holds the test server's password. ---- */

#define FILLDIAG_RUN 3 /* polls in a row, as daemon/diag.c */

struct filldiag {
	const conf_router_t *rc;
	const simrouter_t *r;
	char *auth;
	unsigned ok_run, sat_run;
	char *version;
	bool upgraded, probe_upgraded;
	int64_t profile_ms, probe_ms; /* the newest taken; 0: none */
};

static struct filldiag *filldiag_create(const conf_router_t *rc, const simrouter_t *r, const char *auth)
{
	struct filldiag *fd = xcalloc(1, sizeof(*fd));
	*fd = (struct filldiag){ .rc = rc, .r = r, .auth = xstrdup(auth) };
	return fd;
}

static void filldiag_destroy(struct filldiag *fd)
{
	if (fd == NULL)
		return;
	free(fd->auth);
	free(fd->version);
	free(fd);
}

/* POST path with body (taken: wiped and freed) at simulated time t; the reply (caller frees)
 * when 200, else NULL. */
static char *filldiag_post(const struct filldiag *fd, double t, const char *path, char *body, size_t *len)
{
	struct simreq q = { .method = "POST",
		.path = path,
		.query = "",
		.auth = fd->auth,
		.body = body,
		.body_len = strlen(body),
		.content_type = "application/json" };
	struct simresp rs = { 0 };
	buf_init(&rs.body);
	simrest_handle(fd->r, t, &q, &rs);
	explicit_bzero(body, strlen(body));
	free(body);
	char *out = NULL;
	if (rs.status == 200 && !rs.shared) {
		out = xstrndup(rs.body.data ? rs.body.data : "", rs.body.len);
		*len = rs.body.len;
	}
	buf_free(&rs.body);
	return out;
}

static void filldiag_profile(struct filldiag *fd, int64_t ms, double t, store_t *st)
{
	int64_t dur = fd->rc->profile_duration_ms > 0 ? fd->rc->profile_duration_ms : 5000;
	size_t len = 0;
	char *reply = filldiag_post(fd, t, "/rest/tool/profile", restdiag_profile_body(dur), &len);
	profile_t *p = profile_new(fd->rc->name, ms + dur);
	char *cause = NULL;
	p->duration_ms = dur;
	if (reply != NULL && restdiag_decode_profile(reply, len, p, &cause) == 0)
		store_submit_profile(st, p);
	else
		profile_free(p);
	fd->profile_ms = ms; /* tried: a refusal is not asked again before profile_every */
	fd->upgraded = false;
	free(cause);
	free(reply);
}

static double filldiag_busiest(const sample_t *s)
{
	double max = -1;
	for (size_t i = 0; i < s->ncores; i++)
		if (s->cores[i].load > max)
			max = s->cores[i].load;
	return max;
}

static void filldiag_probe(struct filldiag *fd, const sample_t *s, double t, store_t *st)
{
	const conf_router_t *rc = fd->rc;
	int64_t dur = rc->probe_duration_ms > 0 ? rc->probe_duration_ms : 10000;
	char *body = restdiag_probe_body(rc, dur);
	size_t len = 0;
	char *reply = body ? filldiag_post(fd, t, "/rest/tool/bandwidth-test", body, &len) : NULL;
	probe_t *pr[2];
	restdiag_probe_pair(
		pr, rc->name, s->time_ms + dur, rc->probe_direction, (double)rc->probe_rate_bps, dur);
	char *cause = NULL;
	if (reply != NULL && restdiag_decode_probe(reply, len, pr, &cause) == 0) {
		for (int i = 0; i < 2 && pr[i] != NULL; i++) {
			pr[i]->busiest_core_load = filldiag_busiest(
				s); /* the poll's, not the polls' during */
			store_submit_probe(st, pr[i]);
		}
	} else {
		probe_free(pr[0]);
		probe_free(pr[1]);
	}
	fd->probe_ms = s->time_ms; /* tried: a failure is not asked again before probe_every */
	fd->probe_upgraded = false;
	free(cause);
	free(reply);
}

/* Counts s into the runs and notes an upgrade, as diag_count does. */
static void filldiag_count(struct filldiag *fd, const sample_t *s, double saturated)
{
	if (s->err != SAMPLE_OK) {
		fd->ok_run = fd->sat_run = 0;
		return;
	}
	fd->ok_run++;
	if (s->version != NULL && fd->version != NULL && strcmp(s->version, fd->version) != 0) {
		fd->upgraded = fd->probe_upgraded = true;
		fd->ok_run = 1;
	}
	if (s->version != NULL) {
		free(fd->version);
		fd->version = xstrdup(s->version);
	}
	fd->sat_run = s->ncores > 0 && filldiag_busiest(s) >= saturated ? fd->sat_run + 1 : 0;
}

static void filldiag_note(struct filldiag *fd, const sample_t *s, double t, double saturated, store_t *st)
{
	const conf_router_t *rc = fd->rc;
	if (!rc->diag || rc->rest == NULL)
		return;
	filldiag_count(fd, s, saturated);
	if (fd->ok_run < FILLDIAG_RUN)
		return;
	int64_t now = s->time_ms;
	if (rc->probe != NULL &&
		(fd->probe_upgraded ||
			(rc->probe_every_ms > 0 &&
				(fd->probe_ms == 0 || now - fd->probe_ms >= rc->probe_every_ms)))) {
		filldiag_probe(fd, s, t, st);
		return; /* the profile waits for the next poll */
	}
	if (fd->upgraded ||
		(fd->sat_run >= FILLDIAG_RUN &&
			(fd->profile_ms == 0 || now - fd->profile_ms >= rc->profile_every_ms)))
		filldiag_profile(fd, now, t, st);
}

/* Whether the daemon reads rc over SNMP alone. */
static bool fill_snmp_only(const conf_router_t *rc)
{
	return rc->snmp != NULL && rc->snmp[0] != '\0' && (rc->rest == NULL || rc->rest[0] == '\0');
}

/* The scenario's routers that the config names, each with its polling phase. */
static struct fill_router *fill_match(
	const scenario_t *sc, const conf_t *conf, const struct fill_opts *o, size_t *n)
{
	struct fill_router *f = xcalloc(sc->nrouters ? sc->nrouters : 1, sizeof(*f));
	size_t k = 0, gidx = 0;
	*n = 0;
	for (size_t i = 0; i < sc->ngroups; i++)
		for (int j = 0; j < sc->groups[i].count; j++, gidx++) {
			simrouter_t *r = simrouter_create(sc, &sc->groups[i], j, gidx);
			const conf_router_t *rc = conf_router_find(conf, simrouter_name(r));
			if (!rc) {
				simrouter_destroy(r);
				continue;
			}
			uint64_t h = hash_str64(rc->name);
			char *auth = resthdr_basic(rc->diag_user ? rc->diag_user : rc->user,
				rc->diag_user ? rc->diag_password : rc->password);
			f[k++] = (struct fill_router){ r, rc, (int64_t)(h % (uint64_t)o->step_ms),
				filldiag_create(rc, r, auth),
				fill_snmp_only(rc) ? fillsnmp_router_create() : NULL };
			free(auth);
		}
	*n = k;
	return f;
}

/* One filling thread: the routers i with i % nw == w, every poll from the epoch to the end, in
 * time order per router. The store drops its oldest queued polls past its queue's cap, so the
 * writer is waited for every few thousand. */
struct fill_job {
	store_t *st;
	const struct fill_router *f;
	size_t n, w, nw;
	const struct fill_opts *o;
	const char *auth;
	int64_t polls;
	pthread_t tid;
	bool threaded;
};

static void *fill_thread(void *arg)
{
	struct fill_job *j = arg;
	const struct fill_opts *o = j->o;
	int64_t step = o->step_ms, t0 = (int64_t)(o->epoch * 1000.0);
	int64_t end = o->until > 0 ? (int64_t)(o->until * 1000.0) : clock_wall_ms();
	fillsnmp_t *agent = fillsnmp_create();
	for (int64_t base = t0; base < end; base += step) {
		for (size_t i = j->w; i < j->n; i += j->nw) {
			int64_t ms = base + j->f[i].offset_ms;
			if (ms >= end)
				continue;
			sample_t *s = fill_poll(&j->f[i], o, j->auth, agent, ms);
			filldiag_note(j->f[i].diag, s, (double)ms / 1000.0 - o->epoch, o->saturated, j->st);
			store_submit(j->st, s);
			if (++j->polls % 4096 == 0)
				store_flush(j->st);
		}
		if (o->until <= 0) /* follow the clock: the past ends when the fill has caught up */
			end = clock_wall_ms();
	}
	fillsnmp_destroy(agent);
	return NULL;
}

/* The fill on one thread per CPU (at most 4): the sim's routers and the decoder are
 * thread-safe, and the store takes submissions from any thread. */
static int64_t fill_run(
	store_t *st, const struct fill_router *f, size_t n, const struct fill_opts *o, const char *auth)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nw = cpus < 1 ? 1 : cpus > 4 ? 4 : (size_t)cpus;
	struct fill_job *jobs = xcalloc(nw, sizeof(*jobs));
	for (size_t w = 0; w < nw; w++)
		jobs[w] = (struct fill_job){
			.st = st, .f = f, .n = n, .w = w, .nw = nw, .o = o, .auth = auth
		};
	for (size_t w = 1; w < nw; w++)
		jobs[w].threaded = pthread_create(&jobs[w].tid, NULL, fill_thread, &jobs[w]) == 0;
	int64_t polls = 0;
	for (size_t w = 0; w < nw; w++) /* this thread's share, and that of any that did not start */
		if (!jobs[w].threaded)
			fill_thread(&jobs[w]);
	for (size_t w = 0; w < nw; w++) {
		if (jobs[w].threaded)
			pthread_join(jobs[w].tid, NULL);
		polls += jobs[w].polls;
	}
	free(jobs);
	return polls;
}

int main(int argc, char **argv)
{
	struct fill_opts o;
	scenario_t *sc = NULL;
	conf_t *conf = NULL;
	store_t *st = NULL;
	char *errors = NULL;
	if (fill_parse_opts(argc, argv, &o) < 0)
		return 2;
	if (scenario_load(o.scenario, &sc, &errors) < 0 || conf_load(o.conf_path, &conf, &errors) < 0) {
		fputs(errors, stderr);
		free(errors);
		scenario_free(sc);
		return 2;
	}
	if (store_open(conf->database, conf, &st, &errors) != 0) {
		fprintf(stderr, "wgwatch-fill: %s\n", errors);
		free(errors);
		conf_free(conf);
		scenario_free(sc);
		return 1;
	}
	simrest_set_epoch((time_t)o.epoch);
	o.saturated = conf->saturated;
	size_t n;
	struct fill_router *f = fill_match(sc, conf, &o, &n);
	for (size_t i = 0; i < n; i++)
		if (f[i].snmp != NULL) { /* net-snmp set up as the daemon does, once, if polled */
			fillsnmp_lib_init();
			break;
		}
	char *auth = resthdr_basic(sc->user, sc->password);
	int64_t start = clock_mono_ms(), polls = fill_run(st, f, n, &o, auth);
	if (o.maintain)
		store_maintain(st);
	store_close(st);
	fprintf(stderr, "wgwatch-fill: %" PRId64 " polls of %zu routers over %.1f days in %.1f s\n", polls, n,
		((o.until > 0 ? o.until : (double)time(NULL)) - o.epoch) / 86400.0,
		(double)(clock_mono_ms() - start) / 1000.0);
	for (size_t i = 0; i < n; i++) {
		filldiag_destroy(f[i].diag);
		fillsnmp_router_destroy(f[i].snmp);
		simrouter_destroy(f[i].r);
	}
	free(f);
	free(auth);
	conf_free(conf);
	scenario_free(sc);
	return 0;
}
