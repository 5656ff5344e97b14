/* SPDX-License-Identifier: Apache-2.0 */
/* wgwatch-sim: a simulated fleet of RouterOS routers for demos, tests and benchmarks. Parses
 * the command line and the scenario, writes the config fragment and the ready file, serves.
 * Listens on 127.0.0.0/8 only; never on any other address. */
#include "config.h"
#include "sim/scenario.h"
#include "sim/simhttp.h"
#include "sim/simrest.h"
#include "sim/simrouter.h"
#include "sim/simsnmp.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct opts {
	uint32_t first; /* host byte order */
	unsigned port;
	double time_scale; /* 0: the scenario's */
	double epoch;      /* wall time of simulated second 0; 0: now */
	const char *config_out, *ready_file, *scenario;
	int verbosity;
	int snmp;           /* 0 off, 1 SNMP too, 2 SNMP only in the config fragment */
	unsigned snmp_port; /* 0: the HTTP port */
	const char *community;
	bool config_diag; /* the fragment names the scenario's diag_user too */
};

static void sim_main_usage(FILE *f)
{
	fprintf(f,
		"usage: wgwatch-sim [options] SCENARIO_FILE\n"
		"  -a, --address A.B.C.D  first loopback address (default 127.42.0.1)\n"
		"  -p, --port N           TCP port of every router (default 8080)\n"
		"  -t, --time-scale X     simulated seconds per real second (default: scenario, or 1)\n"
		"  -e, --epoch UNIX       simulated second 0 is this wall time, in the past: the sim starts\n"
		"                         that many seconds in (the past filled by wgwatch-fill; default now)\n"
		"  -c, --config-out FILE  write a wgwatchd [router NAME] config fragment\n"
		"  -r, --ready-file FILE  create FILE once every listener accepts connections\n"
		"  -D, --config-diag      the config fragment has diag_user and diag_password too\n"
		"      --snmp             every router also answers SNMP v1/v2c on UDP\n"
		"      --snmp-only        --snmp, and the config fragment has snmp = only (no rest =)\n"
		"      --snmp-port N      UDP port of every router (default: the TCP port)\n"
		"      --snmp-community C community (default public)\n"
		"  -q, --quiet / -v, --verbose\n");
}

static int sim_main_parse_addr(const char *s, uint32_t *out)
{
	struct in_addr in;
	if (inet_pton(AF_INET, s, &in) != 1)
		return -1;
	*out = ntohl(in.s_addr);
	return (*out >> 24) == 127 ? 0 : -1;
}

static int sim_main_parse_port(const char *s, unsigned *out)
{
	char *end;
	*out = (unsigned)strtoul(s, &end, 10);
	if (*end || end == s || *out == 0 || *out > 65535) {
		fprintf(stderr, "wgwatch-sim: port %s: want 1..65535\n", s);
		return -1;
	}
	return 0;
}

/* One option of getopt_long's; -1 after its message on a bad value. --help exits. */
static int sim_main_opt(int ch, struct opts *o)
{
	char *end;
	switch (ch) {
	case 'a':
		if (sim_main_parse_addr(optarg, &o->first) < 0) {
			fprintf(stderr, "wgwatch-sim: --address %s: not an address in 127.0.0.0/8\n", optarg);
			return -1;
		}
		break;
	case 'p':
	case 'P':
		if (sim_main_parse_port(optarg, ch == 'p' ? &o->port : &o->snmp_port) < 0)
			return -1;
		break;
	case 'S': o->snmp = o->snmp ? o->snmp : 1; break;
	case 'O': o->snmp = 2; break;
	case 'C': o->community = optarg; break;
	case 't':
		o->time_scale = strtod(optarg, &end);
		if (*end || end == optarg || !(o->time_scale >= 0.001 && o->time_scale <= 1e6)) {
			fprintf(stderr, "wgwatch-sim: --time-scale %s: want 0.001..1000000\n", optarg);
			return -1;
		}
		break;
	case 'e':
		o->epoch = strtod(optarg, &end);
		if (*end || end == optarg || !(o->epoch > 0 && o->epoch <= (double)time(NULL))) {
			fprintf(stderr, "wgwatch-sim: --epoch %s: want a Unix time in the past\n", optarg);
			return -1;
		}
		break;
	case 'c': o->config_out = optarg; break;
	case 'r': o->ready_file = optarg; break;
	case 'D': o->config_diag = true; break;
	case 'q': o->verbosity--; break;
	case 'v': o->verbosity++; break;
	case 'h': sim_main_usage(stdout); exit(0);
	default: sim_main_usage(stderr); return -1;
	}
	return 0;
}

static int sim_main_parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "address", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "time-scale", required_argument, NULL, 't' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "config-out", required_argument, NULL, 'c' },
		{ "ready-file", required_argument, NULL, 'r' },
		{ "config-diag", no_argument, NULL, 'D' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "snmp", no_argument, NULL, 'S' },
		{ "snmp-only", no_argument, NULL, 'O' },
		{ "snmp-port", required_argument, NULL, 'P' },
		{ "snmp-community", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	*o = (struct opts){ .first = 0x7f2a0001, .port = 8080, .community = "public" };
	while ((ch = getopt_long(argc, argv, "a:p:t:e:c:r:Dqvh", lo, NULL)) != -1)
		if (sim_main_opt(ch, o) < 0)
			return -1;
	if (optind != argc - 1) {
		sim_main_usage(stderr);
		return -1;
	}
	o->scenario = argv[optind];
	if (o->snmp_port == 0)
		o->snmp_port = o->port;
	return 0;
}

/* The next usable address after a: skips .0 and .255 in the last octet. 0 past 127/8. */
static uint32_t sim_main_next_addr(uint32_t a)
{
	do
		a++;
	while ((a & 0xff) == 0 || (a & 0xff) == 255);
	return (a >> 24) == 127 ? a : 0;
}

static uint32_t *sim_main_assign_addrs(uint32_t first, size_t n)
{
	uint32_t *a = xcalloc(n, sizeof(*a));
	uint32_t cur = first;
	if ((cur & 0xff) == 0 || (cur & 0xff) == 255)
		cur = sim_main_next_addr(cur);
	for (size_t i = 0; i < n; i++) {
		if (cur == 0) {
			free(a);
			return NULL;
		}
		a[i] = cur;
		cur = sim_main_next_addr(cur);
	}
	return a;
}

static const char *sim_main_ip(uint32_t a, char out[16])
{
	struct in_addr in = { .s_addr = htonl(a) };
	return inet_ntop(AF_INET, &in, out, 16);
}

/* Write data to path through path.tmp and rename, so readers never see half a file. */
static int sim_main_write_atomic(const char *path, const char *data, size_t len)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "w");
	int rc = -1;
	if (f) {
		size_t w = fwrite(data, 1, len, f);
		if (fclose(f) == 0 && w == len && rename(tmp, path) == 0)
			rc = 0;
	}
	if (rc < 0) {
		log_error("cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}

static int sim_main_write_config(
	const struct opts *o, const scenario_t *sc, simrouter_t **r, const uint32_t *addrs, size_t n)
{
	buf_t b;
	char a[16];
	buf_init(&b);
	buf_printf(&b, "# written by wgwatch-sim from %s: %zu routers\n", sc->file, n);
	for (size_t i = 0; i < n; i++) {
		const struct sc_group *g = simrouter_group(r[i]);
		buf_printf(&b, "\n[router %s]\n", simrouter_name(r[i]));
		if (o->snmp != 2)
			buf_printf(&b, "rest = http%s://%s:%u\nuser = %s\npassword = %s\n", g->tls ? "s" : "",
				sim_main_ip(addrs[i], a), o->port, sc->user, sc->password);
		if (o->snmp != 2 && o->config_diag && sc->diag_user)
			buf_printf(
				&b, "diag_user = %s\ndiag_password = %s\n", sc->diag_user, sc->diag_password);
		if (o->snmp)
			buf_printf(&b, "snmp = %s:%u\nsnmp_community = %s\n", sim_main_ip(addrs[i], a),
				o->snmp_port, o->community);
		if (g->labels)
			buf_printf(&b, "labels = %s\n", g->labels);
	}
	int rc = sim_main_write_atomic(o->config_out, b.data, b.len);
	buf_free(&b);
	return rc;
}

static simrouter_t **sim_main_make_routers(const scenario_t *sc)
{
	simrouter_t **r = xcalloc(sc->nrouters, sizeof(*r));
	size_t k = 0;
	for (size_t i = 0; i < sc->ngroups; i++)
		for (int j = 0; j < sc->groups[i].count; j++, k++)
			r[k] = simrouter_create(sc, &sc->groups[i], j, k);
	return r;
}

static void sim_main_setup_process(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			log_warn("cannot raise the open files limit: %s", strerror(errno));
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int sim_main_serve(const struct opts *o, const scenario_t *sc, simrouter_t **r, const uint32_t *addrs)
{
	char *cause = NULL, a1[16], a2[16];
	size_t n = sc->nrouters;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	double wall = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	double t0 = o->epoch > 0 ? wall - o->epoch : 0;
	simrest_set_epoch((time_t)(o->epoch > 0 ? o->epoch : wall));
	simhttp_t *h = simhttp_create(r, addrs, n, (uint16_t)o->port, sc->time_scale, t0, &cause);
	if (!h) {
		log_error("%s", cause);
		free(cause);
		return 1;
	}
	simsnmp_t *snmp = NULL;
	if (o->snmp &&
		(!(snmp = simsnmp_create(r, addrs, n, (uint16_t)o->snmp_port, o->community, sc->time_scale,
			   simhttp_sim_time(h), &cause)) ||
			simsnmp_start(snmp, &cause) < 0)) {
		log_error("%s", cause);
		free(cause);
		simsnmp_destroy(snmp);
		simhttp_destroy(h);
		return 1;
	}
	if ((o->config_out && sim_main_write_config(o, sc, r, addrs, n) < 0) ||
		(o->ready_file && sim_main_write_atomic(o->ready_file, "ready\n", 6) < 0)) {
		simsnmp_destroy(snmp);
		simhttp_destroy(h);
		return 1;
	}
	fprintf(stderr, "wgwatch-sim: %zu routers on %s..%s port %u\n", n, sim_main_ip(addrs[0], a1),
		sim_main_ip(addrs[n - 1], a2), o->port);
	if (snmp)
		fprintf(stderr, "wgwatch-sim: SNMP v1/v2c on the same addresses, udp port %u\n",
			o->snmp_port);
	int rc = simhttp_run(h);
	simsnmp_destroy(snmp);
	simhttp_destroy(h);
	if (o->ready_file)
		unlink(o->ready_file);
	return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o;
	scenario_t *sc = NULL;
	char *errors = NULL;
	if (sim_main_parse_opts(argc, argv, &o) < 0)
		return 2;
	log_set_level(o.verbosity < -1    ? LOG_LVL_ERROR
			: o.verbosity < 0 ? LOG_LVL_WARN
			: o.verbosity > 0 ? LOG_LVL_DEBUG
					  : LOG_LVL_INFO);
	if (scenario_load(o.scenario, &sc, &errors) < 0) {
		fputs(errors, stderr);
		free(errors);
		return 2;
	}
	if (o.time_scale > 0)
		sc->time_scale = o.time_scale;
	uint32_t *addrs = sim_main_assign_addrs(o.first, sc->nrouters);
	if (!addrs) {
		fprintf(stderr, "wgwatch-sim: %zu routers do not fit in 127.0.0.0/8 from --address\n",
			sc->nrouters);
		scenario_free(sc);
		return 2;
	}
	sim_main_setup_process();
	simrouter_t **r = sim_main_make_routers(sc);
	int rc = sim_main_serve(&o, sc, r, addrs);
	for (size_t i = 0; i < sc->nrouters; i++)
		simrouter_destroy(r[i]);
	free(r);
	free(addrs);
	scenario_free(sc);
	return rc;
}
