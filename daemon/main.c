/* SPDX-License-Identifier: Apache-2.0 */
/* wgwatchd: the modes of its command line (parsed by daemon/opts.c), start-up in dependency
 * order, signals, shutdown in reverse order. Owns no data of its own; never prints a secret
 * from the config. */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "web/alert.h"
#include "daemon/conf.h"
#include "detector/detector.h"
#include "detector/evidread.h"
#include "detector/rollout.h"
#include "web/shardpeer.h"
#include "daemon/fleet.h"
#include "daemon/opts.h"
#include "web/http.h"
#include "lib/clock.h"
#include "lib/fdreserve.h"
#include "lib/listen.h"
#include "web/scrape.h"
#include "lib/log.h"
#include "lib/loop.h"
#include "web/metrics.h"
#include "daemon/poller.h"
#include "daemon/reload.h"
#include "daemon/reloadlog.h"
#include "daemon/reloadstate.h"
#include "daemon/invwatch.h"
#include "collectors/rest.h"
#include "collectors/restdiag.h"
#include "daemon/diag.h"
#include "daemon/shard.h"
#include "collectors/snmpcoll.h"
#include "store/history.h"
#include "store/store.h"
#include "lib/xmem.h"

static loop_t *main_loop;

static void main_on_signal(int sig)
{
	if (main_loop)
		loop_stop(main_loop);
}

static void main_signals(void)
{
	struct sigaction sa = { .sa_handler = main_on_signal }; /* no SA_RESTART: wake epoll */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* SIGHUP held back from main's first instruction until main_reload_setup installs the handler:
 * a SIGHUP at start (ExecReload=kill -HUP) never kills us, and it reloads once the handler is
 * in. Ignoring it instead would lose it. The threads started meanwhile inherit the mask, so a
 * SIGHUP always goes to the loop's thread. --once and --check keep it blocked to the end. */
static void main_hold_hup(int how)
{
	sigset_t hup;
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	pthread_sigmask(how, &hup, NULL);
}

/* Descriptors the daemon needs besides its routers' sockets: the database's files (each
 * connection), pipes, the listener and its connections, the logs. */
#define MAIN_OWN_FDS 64

/* Each collector of a router holds one socket (REST a keep-alive connection, SNMP a session);
 * thousands of routers need more than the usual 1024. The soft limit is raised to the hard
 * one; when even that is too low for the fleet it says so, soft equal to hard or not, and the
 * last FDRESERVE_DEFAULT descriptors stay kept from the routers (lib/fdreserve.h), so that
 * /healthz and /metrics answer whatever the fleet. */
static void main_raise_nofile(const conf_t *conf)
{
	size_t want = MAIN_OWN_FDS;
	for (size_t i = 0; i < conf->nrouters; i++)
		want += (conf->routers[i].rest != NULL) + (conf->routers[i].snmp != NULL);
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rlim_t soft = rl.rlim_cur;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
			log_warn("could not raise the open-files limit to %llu: %s",
				(unsigned long long)rl.rlim_max, strerror(errno));
			rl.rlim_cur = soft;
		}
	}
	fdreserve_set(rl.rlim_cur == RLIM_INFINITY ? 0 : (uint64_t)rl.rlim_cur, FDRESERVE_DEFAULT);
	if (rl.rlim_cur < want)
		log_warn("open-files limit %llu (hard limit %llu) is too low for %zu routers, which need "
			 "about %zu descriptors: routers that find none fail with \"out of file "
			 "descriptors\" (the last %u are kept for the HTTP listener and the database); "
			 "raise LimitNOFILE (ulimit -n) to %zu or more",
			(unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max, conf->nrouters,
			want, FDRESERVE_DEFAULT, want);
}

/* [daemon] shard = K/N: the one place where a loaded config loses the routers of other shards,
 * so that everything after it sees only this shard's. Returns how many the fleet has. */
static size_t main_shard(conf_t *c, const char *what)
{
	size_t total = shard_apply(c);
	if (c->shard.count > 1)
		log_info("%sshard %d/%d: %zu of %zu routers", what, c->shard.index, c->shard.count,
			c->nrouters, total);
	return total;
}

static int main_load_conf(const char *path, conf_t **conf)
{
	char *errors = NULL;
	if (conf_load(path, conf, &errors) == 0)
		return 0;
	fputs(errors ? errors : "configuration error\n", stderr);
	if (errors && errors[0] && errors[strlen(errors) - 1] != '\n')
		fputc('\n', stderr);
	free(errors);
	return -1;
}

/* Exit status when the database cannot be used (in use, corrupt, not SQLite): see wgwatchd(8). */
#define MAIN_EXIT_DATABASE 3

/* What the start needs of this host that a config check can tell without starting: the listen
 * address is one of this host's, and the database's directory is there and writable (the
 * compiled-in default's is made at start). Problems go to stderr as FILE:LINE: messages, as
 * the config's own; --check and the start both run this, so --check refuses what the start
 * would. check_only: --check (make nothing); with_listen: the listener will be started.
 * Returns 0, 1 (the listen address) or MAIN_EXIT_DATABASE (the database, maybe both). */
static int main_check_host(const conf_t *c, bool check_only, bool with_listen)
{
	int rc = 0;
	char *cause = NULL;
	struct sockaddr_storage ss;
	socklen_t len;
	if (with_listen && listen_parse(c->listen, &ss, &len) == 0 && listen_bindable(&ss, len, &cause) < 0) {
		fprintf(stderr, "%s: listen = %s: %s\n", c->listen_at, c->listen, cause);
		free(cause);
		cause = NULL;
		rc = 1;
	}
	if (store_check_path(c->database, c->database_default, check_only, &cause) < 0) {
		fprintf(stderr, "%s: database = %s: %s\n", c->database_at, c->database, cause);
		free(cause);
		rc = MAIN_EXIT_DATABASE;
	}
	return rc;
}

/* A timeout longer than the interval is allowed (the poller skips the grid slots a slow reply
 * overlaps, poller.c) but never silent: --check prints it, the start logs it. */
static void main_timeout_notes(const conf_t *c, bool check)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrouters; i++) {
		const conf_router_t *r = &c->routers[i];
		if (r->timeout_ms <= r->interval_ms || ++n > 3)
			continue;
		if (check)
			fprintf(stderr,
				"%s: note: router %s: timeout %" PRId64 " ms is longer than interval %" PRId64
				" ms: a reply that slow makes the poller skip the polls due meanwhile\n",
				c->path, r->name, r->timeout_ms, r->interval_ms);
		else
			log_warn("router %s: timeout %" PRId64 " ms is longer than interval %" PRId64
				 " ms: a reply that slow makes the poller skip the polls due meanwhile",
				r->name, r->timeout_ms, r->interval_ms);
	}
	if (n > 3 && check)
		fprintf(stderr, "%s: note: and %zu more routers so\n", c->path, n - 3);
	else if (n > 3)
		log_warn("and %zu more routers with a timeout longer than their interval", n - 3);
}

#define MAIN_RELOAD_WAIT_MS 30000 /* systemd's own reload timeout is longer (TimeoutSec) */

/* --reload PID (systemd's ExecReload): the configuration is valid (else its errors, exit 1 and
 * no signal), PID is asked to reload (SIGHUP), and the answer is its outcome: exit 0 when the
 * daemon took the new configuration, 1 when it refused it (a guard: its log says why) or did
 * not answer within MAIN_RELOAD_WAIT_MS. So `systemctl reload` fails when the reload did. */
static int main_reload_client(const struct opts *o, conf_t *c)
{
	unsigned long gen0 = 0, gen = 0;
	bool ok = false, had = reloadstate_read(c->database, &gen0, &ok) == 0;
	int rc = 1;
	if (kill((pid_t)o->reload_pid, SIGHUP) < 0) {
		fprintf(stderr, "wgwatchd: --reload %ld: %s\n", o->reload_pid, strerror(errno));
		conf_free(c);
		return 1;
	}
	for (int64_t waited = 0; waited < MAIN_RELOAD_WAIT_MS; waited += 50) {
		if (reloadstate_read(c->database, &gen, &ok) == 0 && (!had || gen != gen0)) {
			rc = ok ? 0 : 1;
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	if (rc != 0)
		fprintf(stderr,
			"wgwatchd: reload of %ld %s: it keeps the running configuration; its log says why\n",
			o->reload_pid, gen != gen0 || !had ? "refused" : "not answered in 30 s");
	else
		printf("%s: reloaded, %zu routers\n", o->conf_path, c->nrouters);
	conf_free(c);
	return rc;
}

struct daemon {
	conf_t *conf;
	conf_t *boot_conf; /* the one started with: HTTP holds it, it lives until exit */
	loop_t *loop;
	store_t *store;
	fleet_t *fleet;
	rest_t *rest;
	restdiag_t *restdiag; /* NULL for --once */
	diag_t *diag;         /* NULL for --once */
	snmpcoll_t *snmp;
	poller_t *poller;
	http_t *http;
	detector_t *detector;
	alert_t *alert;           /* NULL without [alert] alertmanager */
	shardpeer_t *shardpeer;   /* NULL without [rollout] shards */
	reload_t *reload;         /* NULL for --once, or when SIGHUP cannot reload */
	unsigned long reload_gen; /* loads of the configuration since the start (reloadstate.h) */
	invwatch_t *invwatch;     /* NULL without [daemon] targets */
	int64_t watchdog_ms;
	int64_t migrate_note_ms; /* when systemd was last asked for more start time */
};

#ifdef HAVE_SYSTEMD
/* Tell systemd's watchdog we live only while the loop turns and the store writer answers. */
static void main_watchdog(void *arg)
{
	struct daemon *d = arg;
	if (clock_mono_ms() - store_heartbeat_ms(d->store) < 4 * d->watchdog_ms)
		sd_notify(0, "WATCHDOG=1");
	loop_after(d->loop, d->watchdog_ms, main_watchdog, d);
}

/* A schema migration can outlast systemd's start timeout (TimeoutStartSec, 90 s by default),
 * which would kill the start and roll the migration back, start after start: while one runs,
 * ask for 60 s more, at most every 10 s. */
static void main_migrating(void *arg)
{
	struct daemon *d = arg;
	int64_t now = clock_mono_ms();
	if (d->migrate_note_ms != 0 && now - d->migrate_note_ms < 10000)
		return;
	d->migrate_note_ms = now;
	sd_notify(0, "EXTEND_TIMEOUT_USEC=60000000\nSTATUS=migrating the database schema");
}

static void main_notify_ready(struct daemon *d)
{
	uint64_t usec = 0;
	sd_notifyf(0, "READY=1\nSTATUS=polling %zu routers", d->conf->nrouters);
	if (sd_watchdog_enabled(0, &usec) > 0 && usec >= 2000) {
		d->watchdog_ms = (int64_t)(usec / 2000);
		loop_after(d->loop, d->watchdog_ms, main_watchdog, d);
	}
}
#else
static void main_notify_ready(struct daemon *d) {}
#endif

/* The poller's sink: the profile scheduler sees every finished poll, then the sample goes to
 * the store's writer queue. */
static void main_store_submit(void *arg, sample_t *s)
{
	struct daemon *d = arg;
	if (d->diag != NULL)
		diag_note_poll(d->diag, s);
	store_submit(d->store, s);
}

/* A profile: the newest goes to the fleet (/metrics), every one to the store. */
static void main_on_profile(void *arg, profile_t *p)
{
	struct daemon *d = arg;
	fleet_set_profile(d->fleet, profile_dup(p));
	store_submit_profile(d->store, p);
}

/* At start, the newest profile and probes of a router that has some, for /metrics at once
 * rather than after the next profile_every or probe_every. */
static void main_diag_restore(struct daemon *d, const char *router, bool profile, bool probe)
{
	profile_t **pv = NULL;
	probe_t **qv = NULL;
	size_t n = 0;
	char *cause = NULL;
	if (profile && history_profiles(d->conf->database, router, 1, &pv, &n, &cause) == 0 && n > 0)
		fleet_set_profile(d->fleet, profile_dup(pv[0]));
	history_profiles_free(pv, n);
	n = 0; /* the newest of each direction: fleet_set_probe keeps one per direction */
	if (cause == NULL && probe && history_probes(d->conf->database, router, 8, &qv, &n, &cause) == 0)
		for (size_t i = n; i-- > 0;)
			fleet_set_probe(d->fleet, probe_dup(qv[i]));
	history_probes_free(qv, n);
	if (cause != NULL)
		log_warn("%s: router %s's last profile and probes are on /metrics after the next", cause,
			router);
	free(cause);
}

/* At start: the scheduler learns when each router was last profiled and probed. */
static void main_diag_seed(void *arg, const char *router, int64_t profile_ms, int64_t probe_ms)
{
	struct daemon *d = arg;
	diag_seed(d->diag, router, profile_ms, probe_ms);
	if (conf_router_find(d->conf, router) != NULL && (profile_ms > 0 || probe_ms > 0))
		main_diag_restore(d, router, profile_ms > 0, probe_ms > 0);
}

/* A probe likewise. */
static void main_on_probe(void *arg, probe_t *p)
{
	struct daemon *d = arg;
	fleet_set_probe(d->fleet, probe_dup(p));
	store_submit_probe(d->store, p);
}

/* The store's writer stored an upgrade or a downgrade: the detector looks at once. */
static void main_detector_wake(void *detector)
{
	detector_wake(detector);
}

/* The threads that call out over HTTP: the Alertmanager push and the other shards' reader. */
static int main_start_clients(struct daemon *d)
{
	char *cause = NULL;
	if (alert_start(d->boot_conf, d->detector, &d->alert, &cause) != 0) {
		log_error("alert: %s", cause);
		free(cause);
		return -1;
	}
	if (shardpeer_start(d->boot_conf, d->detector, &d->shardpeer, &cause) != 0) {
		log_error("rollout: %s", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static int main_start(struct daemon *d, bool once)
{
	char *cause = NULL;
	d->boot_conf = d->conf;
	metrics_note_reload(true, clock_wall_ms()); /* the start's load counts as the first */
	main_raise_nofile(d->conf);
	d->loop = loop_create();
	if (d->loop == NULL) {
		log_error("cannot create the event loop: %s", strerror(errno));
		return -1;
	}
#ifdef HAVE_SYSTEMD
	store_on_migrate_progress(main_migrating, d);
#endif
	if (store_open(d->conf->database, d->conf, &d->store, &cause) != 0) {
		if (once && strstr(cause, "in use by another process") != NULL)
			log_error("%s: --once polls into the database and needs it to itself; the running "
				  "daemon shows the same: curl %s://%s/api/v1/routers",
				cause, d->conf->web_cert != NULL ? "https" : "http", d->conf->listen);
		else
			log_error("%s", cause);
		free(cause);
		return MAIN_EXIT_DATABASE;
	}
	d->fleet = fleet_create(d->conf);
	d->rest = rest_create(d->loop, d->conf->max_body_bytes);
	d->poller = poller_create(d->loop, d->conf, d->fleet, (sample_sink_t){ main_store_submit, d });
	d->snmp = snmpcoll_create(d->loop);
	poller_add_collector(d->poller, rest_collector(d->rest));
	poller_add_collector(d->poller, snmpcoll_collector(d->snmp));
	if (once)
		return 0;
	d->restdiag = restdiag_create(d->loop);
	if (d->restdiag == NULL)
		log_warn("diag: cannot set up the HTTP client for profiles: no profiles are taken");
	else
		d->diag = diag_create(d->conf, restdiag_runner(d->restdiag),
			(diag_sink_t){ .profile = main_on_profile, .probe = main_on_probe, .ctx = d });
	if (d->diag != NULL && history_diag_latest(d->conf->database, main_diag_seed, d, &cause) < 0) {
		log_warn("%s: profiles and probes may be taken again at once", cause);
		free(cause);
		cause = NULL;
	}
	if (detector_start(d->conf, &d->detector, &cause) != 0) { /* before http: its deps hold it */
		log_error("detector: %s", cause);
		free(cause);
		return -1;
	}
	store_on_version_change(d->store, main_detector_wake, d->detector);
	struct http_deps deps = { .conf = d->conf,
		.fleet = d->fleet,
		.store = d->store,
		.loop = d->loop,
		.detector = d->detector,
		.diag = d->diag };
	if (http_start(d->conf->listen, &deps, &d->http, &cause) != 0) {
		log_error("listen %s: %s", d->conf->listen, cause);
		free(cause);
		return -1;
	}
	if (main_start_clients(d) != 0)
		return -1;
	log_info("wgwatchd %s: %zu routers, every %lld ms, %s://%s/", PACKAGE_VERSION, d->conf->nrouters,
		(long long)d->conf->interval_ms, d->conf->web_cert != NULL ? "https" : "http",
		d->conf->listen);
	return 0;
}

/* ---- SIGHUP: reload the configuration ----
 * The handler only writes a byte to a pipe the loop watches; the loop asks daemon/reload to read
 * the files on a thread of its own, and swaps the new conf in, on the loop thread, only when
 * it is valid.
 * The conf the daemon started with lives until exit (the HTTP listener and the store read it);
 * a later one, once replaced, is freed by the fleet when no view points into it any more. */
static int main_hup_pipe[2] = { -1, -1 };

static void main_on_hup(int sig)
{
	int saved = errno;
	if (main_hup_pipe[1] >= 0) {
		ssize_t n = write(main_hup_pipe[1], "", 1);
		(void)n; /* a full pipe means a reload is pending anyway */
	}
	errno = saved;
}

static void main_conf_release(void *conf)
{
	conf_free(conf);
}

/* The load's outcome where `wgwatchd --reload` looks for it; a failure is logged, the daemon
 * goes on (its reloads work, only that client cannot tell). */
static void main_reload_state(struct daemon *d, bool ok)
{
	char *cause = NULL;
	if (reloadstate_write(d->boot_conf->database, d->reload_gen++, ok, &cause) < 0)
		log_warn("reload: cannot record its outcome for wgwatchd --reload: %s", cause);
	free(cause);
}

static void main_reload(conf_t *next, char *errors, void *arg)
{
	struct daemon *d = arg;
	conf_t *old = d->conf;
	size_t added, removed;
	if (next == NULL) {
		metrics_note_reload(false, clock_wall_ms());
		reloadlog_errors(errors ? errors : "configuration error");
		log_error("reload refused: still polling the %zu routers of the running configuration",
			old->nrouters);
		free(errors);
		main_reload_state(d, false);
		return;
	}
	main_shard(next, "reload: ");
	reloadlog_diff(old, next, &added, &removed);
	bool go = reloadlog_guard(old, next, removed) == 0; /* a file cut short drops no fleet */
	metrics_note_reload(go, clock_wall_ms());
	free(errors);
	main_reload_state(d, go);
	if (!go) {
		conf_free(next);
		return;
	}
	reloadlog_warn(d->boot_conf, next);
	d->conf = next;
	d->poller = poller_reload(d->poller, next); /* before the old conf may be freed */
	if (d->diag != NULL)
		diag_reconfigure(d->diag, next);
	detector_reload_evidence(d->detector, next);
	invwatch_set(d->invwatch, next->targets);
	fleet_reconfigure(d->fleet, next, old == d->boot_conf ? NULL : main_conf_release, old);
	main_raise_nofile(next);
	log_info("reload: %zu routers (%zu added, %zu removed)", next->nrouters, added, removed);
}

static void main_on_hup_fd(int fd, int events, void *arg)
{
	struct daemon *d = arg;
	char buf[64];
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	reload_request(d->reload);
}

/* The file_sd target files changed: load the configuration again, as SIGHUP does. */
static void main_on_targets(void *arg)
{
	struct daemon *d = arg;
	log_info("targets: %s changed: reloading", d->conf->targets);
	reload_request(d->reload);
}

static void main_reload_setup(struct daemon *d)
{
	char *cause = NULL;
	d->reload = reload_create(d->loop, d->conf->path, main_reload, d, &cause);
	if (d->reload == NULL) {
		log_warn("SIGHUP will not reload the configuration: %s", cause);
		free(cause);
		return;
	}
	if (pipe2(main_hup_pipe, O_NONBLOCK | O_CLOEXEC) != 0 ||
		loop_watch_fd(d->loop, main_hup_pipe[0], LOOP_READ, main_on_hup_fd, d) != 0) {
		log_warn("SIGHUP will not reload the configuration: %s", strerror(errno));
		return;
	}
	struct sigaction sa = { .sa_handler = main_on_hup, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGHUP, &sa, NULL);
	main_reload_state(d, true); /* the start's load: a --reload client's "before" */
	if (d->conf->targets != NULL &&
		(d->invwatch = invwatch_start(d->loop, d->conf->targets, main_on_targets, d)) == NULL)
		log_warn("targets: changes are read at reloads only: %s", strerror(errno));
	main_hold_hup(SIG_UNBLOCK); /* a SIGHUP of the start is delivered now */
}

static void main_reload_teardown(void)
{
	signal(SIGHUP, SIG_IGN);
	for (int i = 0; i < 2; i++) {
		int fd = main_hup_pipe[i];
		main_hup_pipe[i] = -1;
		if (fd >= 0)
			close(fd);
	}
}

static void main_stop(struct daemon *d)
{
	shardpeer_stop(d->shardpeer);
	alert_stop(d->alert);
	http_stop(d->http); /* before the detector: its handlers read the detector's handle */
	if (d->store != NULL)
		store_on_version_change(d->store, NULL, NULL); /* the writer outlives the detector */
	detector_stop(d->detector);
	poller_destroy(d->poller);
	restdiag_destroy(d->restdiag); /* before diag: a profile in flight then never calls back */
	diag_destroy(d->diag);
	rest_destroy(d->rest);
	snmpcoll_destroy(d->snmp);
	store_close(d->store); /* writes everything queued */
	fleet_destroy(d->fleet);
	main_reload_teardown();
	invwatch_stop(d->invwatch);
	reload_destroy(d->reload); /* a load in progress ends first; its conf is dropped */
	loop_destroy(d->loop);
	if (d->boot_conf != d->conf)
		conf_free(d->boot_conf);
	conf_free(d->conf);
}

static int main_run(struct daemon *d, bool once)
{
	int rc = main_start(d, once);
	if (rc != 0)
		return rc < 0 ? 1 : rc;
	main_loop = d->loop;
	main_signals();
	if (!once)
		main_reload_setup(d);
	if (once) {
		poller_once(d->poller, stdout);
	} else {
		poller_start(d->poller);
		main_notify_ready(d);
	}
	rc = loop_run(d->loop) == 0 ? 0 : 1;
	if (once && poller_once_failed(d->poller) > 0)
		rc = 1;
#ifdef HAVE_SYSTEMD
	if (!once)
		sd_notify(0, "STOPPING=1");
#endif
	main_loop = NULL;
	log_info("stopping");
	return rc;
}

/* --rollout-check: 0 go, 4 hold, 5 wait; 2 an unknown router, 3 the database cannot be read. */
static int main_rollout_check(const struct opts *o, conf_t *conf)
{
	static const int codes[] = { [ROLLOUT_GO] = 0, [ROLLOUT_HOLD] = 4, [ROLLOUT_WAIT] = 5 };
	if (conf_router_find(conf, o->rollout_router) == NULL) {
		log_error("rollout-check: no [router %s] in %s", o->rollout_router, o->conf_path);
		conf_free(conf);
		return 2;
	}
	char *cause = NULL;
	int decision = ROLLOUT_WAIT;
	struct rollfleet_said fleet; /* the other shards' canaries count as this shard's */
	shardpeer_ask(conf, &fleet);
	struct detector_check c = {
		.router = o->rollout_router, .version = o->rollout_version, .fleet = &fleet
	};
	char *arch = NULL, *board = NULL; /* a router of another shard: as that shard knows it */
	if (shardpeer_router_kind(conf, c.router, &arch, &board, &cause) != 0)
		log_warn("rollout-check: cannot ask %s", cause);
	free(cause);
	cause = NULL;
	c.architecture = arch, c.board = board;
	int rc = detector_rollout_check(conf, &c, stdout, &decision, &cause);
	rollfleet_said_clear(&fleet);
	free(arch);
	free(board);
	if (rc != 0)
		log_error("rollout-check: %s", cause);
	free(cause);
	conf_free(conf);
	return rc != 0 ? MAIN_EXIT_DATABASE : codes[decision];
}

/* path's text (at most max bytes: one more says it is too long) into *len; NULL with *why. */
static char *main_read_file(const char *path, size_t max, size_t *len, char **why)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		*why = xasprintf("%s", strerror(errno));
		return NULL;
	}
	char *text = xmalloc(max + 2);
	*len = fread(text, 1, max + 1, f);
	bool bad = ferror(f) != 0;
	fclose(f);
	if (bad || *len > max) {
		*why = bad ? xstrdup("read error")
			   : xasprintf("more than the %zu bytes an evidence file may have", max);
		free(text);
		return NULL;
	}
	text[*len] = '\0';
	return text;
}

/* --merge-evidence: the files as one document on stdout; 1 when one was refused (its reason on
 * stderr, the others merged all the same), 0 else. */
static int main_merge_evidence(const struct opts *o)
{
	evidread_t **docs = xcalloc((size_t)o->nmerge + 1, sizeof(*docs));
	size_t n = 0;
	int rc = 0;
	for (int i = 0; i < o->nmerge; i++) {
		size_t len;
		char *why = NULL, *text = main_read_file(o->merge[i], EVIDREAD_MAX_BYTES, &len, &why);
		if (text != NULL && (docs[n] = evidread_parse(text, len, &why)) != NULL)
			n++;
		else {
			log_error("merge-evidence: %s: refused: %s", o->merge[i], why);
			rc = 1;
		}
		free(text);
		free(why);
	}
	if (n > 0) {
		char *all = evidread_merge(docs, n);
		printf("%s\n", all);
		free(all);
	}
	for (size_t i = 0; i < n; i++)
		evidread_free(docs[i]);
	free(docs);
	return n == 0 ? 1 : rc;
}

/* --export-evidence: the fleet's evidence document on stdout. */
static int main_export_evidence(const struct opts *o, conf_t *conf)
{
	char *cause = NULL;
	int rc = detector_export_evidence(conf, o->since_ms, stdout, &cause);
	if (rc != 0)
		log_error("export-evidence: %s", cause);
	free(cause);
	conf_free(conf);
	return rc == 0 ? 0 : MAIN_EXIT_DATABASE;
}

/* --targets: this shard's routers as file_sd JSON, on the configured listen address. */
static int main_targets(conf_t *conf)
{
	const char *colon = strrchr(conf->listen, ':');
	char *addr = scrape_address(conf->listen, colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0, NULL);
	buf_t out;
	buf_init(&out);
	scrape_targets_conf(conf, addr, conf->web_cert != NULL && conf->web_key != NULL, &out);
	printf("%s\n", out.data ? out.data : "[]");
	buf_free(&out);
	free(addr);
	conf_free(conf);
	return 0;
}

#ifdef HAVE_JEMALLOC
/* jemalloc's options (MALLOC_CONF is read after these and overrides them). Its background
 * thread purges every arena on the decay time: without it an arena gives freed pages back only
 * when its own thread allocates again, and an HTTP thread, idle after a /metrics render, kept
 * the render's pages resident (bench/run: 8 MB at 1,000 routers, 17 MB at 3,000). One such
 * thread serves every arena. Freed pages go back after about 1 s, not jemalloc's 10 s: the
 * polls' garbage kept 4 MB dirty at 10,000 routers, 0.8 MB so, for some 20 madvise calls a
 * second in that thread (docs/benchmarks.md, Memory per router, sixth round). */
const char *malloc_conf = "background_thread:true,max_background_threads:1,dirty_decay_ms:1000";
#endif

int main(int argc, char **argv)
{
	main_hold_hup(SIG_BLOCK);
	struct opts o = { 0 };
	struct daemon d = { 0 };
	/* Blocks of 4 MiB and more get mappings of their own, returned to the kernel when freed;
	 * glibc would raise this threshold after the first such free, and a big block freed once
	 * would stay resident in the heap for good. Setting it stops glibc's own tuning of the trim
	 * threshold too, so that is set to what the tuning would give (twice): a page fault costs
	 * microseconds on a VM, and trimming the heap after each scrape would fault it back in. */
#ifndef HAVE_JEMALLOC /* jemalloc (configure.ac) gives freed extents back after its decay time,
			* in its background thread (malloc_conf above) */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 8 << 20);
#endif
	if (opts_parse(argc, argv, &o) != 0)
		return 2;
	log_set_level(o.verbosity < 0 ? LOG_LVL_ERROR : o.verbosity == 0 ? LOG_LVL_INFO : LOG_LVL_DEBUG);
	if (o.nmerge > 0)
		return main_merge_evidence(&o);
	if (main_load_conf(o.conf_path, &d.conf) != 0)
		return 1;
	if (o.reload_pid > 0)
		return main_reload_client(&o, d.conf);
	if (o.export_evidence) /* before sharding: the fleet's evidence is every shard's */
		return main_export_evidence(&o, d.conf);
	if (o.rollout_router != NULL) /* before sharding: the canaries of every shard count */
		return main_rollout_check(&o, d.conf);
	size_t total = o.check ? shard_apply(d.conf) : main_shard(d.conf, "");
	if (!o.targets && !o.report)
		main_timeout_notes(d.conf, o.check);
	if (o.check && !o.offline && main_check_host(d.conf, true, true) != 0) {
		conf_free(d.conf);
		return 1;
	}
	if (o.check) {
		if (d.conf->shard.count > 1)
			printf("%s: ok, %zu routers; shard %d/%d owns %zu\n", o.conf_path, total,
				d.conf->shard.index, d.conf->shard.count, d.conf->nrouters);
		else
			printf("%s: ok, %zu routers\n", o.conf_path, total);
		conf_free(d.conf);
		return 0;
	}
	if (o.targets)
		return main_targets(d.conf);
	if (o.report) {
		char *cause = NULL;
		int rc = detector_report(d.conf, stdout, &cause);
		if (rc != 0)
			log_error("report: %s", cause);
		free(cause);
		conf_free(d.conf);
		return rc == 0 ? 0 : 1;
	}
	int host = main_check_host(d.conf, false, !o.once);
	if (host != 0) {
		conf_free(d.conf);
		return host;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		log_error("libcurl initialisation failed");
		return 1;
	}
	int rc = main_run(&d, o.once);
	main_stop(&d);
	curl_global_cleanup();
	return rc;
}
