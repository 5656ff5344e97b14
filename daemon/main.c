/* wgwatchd: command line, start-up in dependency order, signals, shutdown in reverse order.
 * Owns no data of its own; never prints a secret from the config. */
#include "config.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "conf.h"
#include "fleet.h"
#include "http.h"
#include "log.h"
#include "loop.h"
#include "poller.h"
#include "rest.h"
#include "snmp.h"
#include "store.h"

struct opts {
	const char *conf_path;
	bool check, once;
	int verbosity;
};

static loop_t *main_loop;

static void main_usage(FILE *out)
{
	fprintf(out,
		"usage: wgwatchd -c FILE [--check | --once] [-v] [-q]\n"
		"  -c, --config FILE  configuration file (wgwatch.conf(5))\n"
		"      --check        validate the configuration and exit 0 (valid) or 1\n"
		"      --once         poll every router once, store, print a line per router, exit\n"
		"                     (0 when every router answered)\n"
		"  -v, --verbose      more log output (repeat for debug)\n"
		"  -q, --quiet        errors only\n"
		"  -V, --version      print the version\n");
}

static int main_parse_args(int argc, char **argv, struct opts *o)
{
	enum { OPT_CHECK = 256, OPT_ONCE };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' }, { "check", no_argument, NULL, OPT_CHECK },
		{ "once", no_argument, NULL, OPT_ONCE }, { "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' }, { "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "c:vqVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->conf_path = optarg; break;
		case OPT_CHECK: o->check = true; break;
		case OPT_ONCE: o->once = true; break;
		case 'v': o->verbosity++; break;
		case 'q': o->verbosity = -1; break;
		case 'V': printf("wgwatchd %s\n", PACKAGE_VERSION); exit(0);
		case 'h': main_usage(stdout); exit(0);
		default: main_usage(stderr); return -1;
		}
	}
	if (o->conf_path == NULL || optind != argc || (o->check && o->once)) {
		main_usage(stderr);
		return -1;
	}
	return 0;
}

static void main_on_signal(int sig)
{
	if (main_loop)
		loop_stop(main_loop);
}

static void main_signals(void)
{
	struct sigaction sa = { .sa_handler = main_on_signal };   /* no SA_RESTART: wake epoll */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);   /* reload comes with the reliability work; ignore, never die */
}

/* Each router holds a socket or two; thousands of routers need more than the usual 1024. */
static void main_raise_nofile(size_t nrouters)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rlim_t want = rl.rlim_max;
	if (rl.rlim_cur >= want)
		return;
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		log_warn("could not raise the open-files limit to %llu: %s", (unsigned long long)want,
			strerror(errno));
	if (rl.rlim_cur < 2 * nrouters + 64)
		log_warn("open-files limit %llu is low for %zu routers; raise LimitNOFILE",
			(unsigned long long)rl.rlim_cur, nrouters);
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

struct daemon {
	conf_t *conf;
	loop_t *loop;
	store_t *store;
	fleet_t *fleet;
	rest_t *rest;
	snmp_t *snmp;
	poller_t *poller;
	http_t *http;
	int64_t watchdog_ms;
};

#ifdef HAVE_SYSTEMD
/* Tell systemd's watchdog we live only while the loop turns and the store writer answers. */
static void main_watchdog(void *arg)
{
	struct daemon *d = arg;
	if (loop_mono_ms() - store_heartbeat_ms(d->store) < 4 * d->watchdog_ms)
		sd_notify(0, "WATCHDOG=1");
	loop_after(d->loop, d->watchdog_ms, main_watchdog, d);
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
static void main_notify_ready(struct daemon *d) { }
#endif

static int main_start(struct daemon *d, bool once)
{
	char *cause = NULL;
	main_raise_nofile(d->conf->nrouters);
	d->loop = loop_create();
	if (d->loop == NULL) {
		log_error("cannot create the event loop: %s", strerror(errno));
		return -1;
	}
	if (store_open(d->conf->database, d->conf, &d->store, &cause) != 0) {
		log_error("%s", cause);
		free(cause);
		return -1;
	}
	d->fleet = fleet_create(d->conf);
	d->rest = rest_create(d->loop, d->conf->max_body_bytes);
	d->poller = poller_create(d->loop, d->conf, d->fleet, d->store);
	d->snmp = snmp_create(d->loop);
	poller_add_collector(d->poller, rest_collector(d->rest));
	poller_add_collector(d->poller, snmp_collector(d->snmp));
	if (once)
		return 0;
	struct http_deps deps = { .conf = d->conf, .fleet = d->fleet, .store = d->store, .loop = d->loop };
	if (http_start(d->conf->listen, &deps, &d->http, &cause) != 0) {
		log_error("listen %s: %s", d->conf->listen, cause);
		free(cause);
		return -1;
	}
	log_info("wgwatchd %s: %zu routers, every %lld ms, http://%s/", PACKAGE_VERSION,
		d->conf->nrouters, (long long)d->conf->interval_ms, d->conf->listen);
	return 0;
}

static void main_stop(struct daemon *d)
{
	http_stop(d->http);
	poller_destroy(d->poller);
	rest_destroy(d->rest);
	snmp_destroy(d->snmp);
	store_close(d->store);     /* writes everything queued */
	fleet_destroy(d->fleet);
	loop_destroy(d->loop);
	conf_free(d->conf);
}

static int main_run(struct daemon *d, bool once)
{
	if (main_start(d, once) != 0)
		return 1;
	main_loop = d->loop;
	main_signals();
	if (once) {
		poller_once(d->poller, stdout);
	} else {
		poller_start(d->poller);
		main_notify_ready(d);
	}
	int rc = loop_run(d->loop) == 0 ? 0 : 1;
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

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	struct daemon d = { 0 };
	if (main_parse_args(argc, argv, &o) != 0)
		return 2;
	log_set_level(o.verbosity < 0 ? LOG_LVL_ERROR : o.verbosity == 0 ? LOG_LVL_INFO : LOG_LVL_DEBUG);
	if (main_load_conf(o.conf_path, &d.conf) != 0)
		return 1;
	if (o.check) {
		printf("%s: ok, %zu routers\n", o.conf_path, d.conf->nrouters);
		conf_free(d.conf);
		return 0;
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
