/* SPDX-License-Identifier: Apache-2.0 */
/* opts: wgwatchd's command line (daemon/opts.h), by getopt_long. It must never read the
 * configuration nor start anything: daemon/main.c does, once the options are known. */
#include "config.h"
#include "daemon/opts.h"
#include "lib/clock.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void opts_usage(FILE *out)
{
	fprintf(out,
		"usage: wgwatchd -c FILE [--check [--offline] | --reload PID | --once | --report | --targets |\n"
		"                --rollout-check ROUTER VERSION | --export-evidence] [-v] [-q]\n"
		"       wgwatchd --merge-evidence FILE...\n"
		"  -c, --config FILE  configuration file (wgwatch.conf(5))\n"
		"      --check        validate the configuration and exit 0 (valid) or 1\n"
		"      --offline      with --check: the file alone, not this host (the listen\n"
		"                     address, the database's directory): a config for another\n"
		"                     host, checked on a CI box\n"
		"      --reload PID   validate the configuration, ask the daemon PID to reload it\n"
		"                     (SIGHUP) and wait for its answer: exit 0 taken, 1 refused\n"
		"                     (systemd's ExecReload, so that systemctl reload tells)\n"
		"      --once         poll every router once, store, print a line per router, exit\n"
		"                     (0 when every router answered)\n"
		"      --report       print the upgrade detector's verdicts, cohorts, single-core\n"
		"                     bound routers and capacity headroom from the database as\n"
		"                     tables, exit\n"
		"      --targets      print the routers as Prometheus file_sd targets (JSON), one\n"
		"                     per router, each scraped as /metrics?router=NAME; exit\n"
		"      --rollout-check ROUTER VERSION\n"
		"                     may ROUTER take VERSION? print the rollout guard's decision for\n"
		"                     its cohort and the reasons; exit 0 go, 4 hold, 5 wait\n"
		"      --export-evidence [--since YYYY-MM-DD]\n"
		"                     print the fleet's upgrade evidence, anonymous (docs/evidence.md)\n"
		"      --merge-evidence FILE...\n"
		"                     print evidence files as one, each fleet once (no -c needed);\n"
		"                     exit 1 when a file was refused\n"
		"  -v, --verbose      more log output (repeat for debug)\n"
		"  -q, --quiet        errors only\n"
		"  -V, --version      print the version\n");
}

int opts_parse(int argc, char **argv, struct opts *o)
{
	enum {
		OPT_CHECK = 256,
		OPT_ONCE,
		OPT_REPORT,
		OPT_ROLLOUT,
		OPT_TARGETS,
		OPT_EXPORT,
		OPT_SINCE,
		OPT_MERGE,
		OPT_OFFLINE,
		OPT_RELOAD
	};
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, OPT_CHECK },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ "report", no_argument, NULL, OPT_REPORT },
		{ "rollout-check", required_argument, NULL, OPT_ROLLOUT },
		{ "targets", no_argument, NULL, OPT_TARGETS },
		{ "export-evidence", no_argument, NULL, OPT_EXPORT },
		{ "since", required_argument, NULL, OPT_SINCE },
		{ "merge-evidence", no_argument, NULL, OPT_MERGE },
		{ "offline", no_argument, NULL, OPT_OFFLINE },
		{ "reload", required_argument, NULL, OPT_RELOAD },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	while ((c = getopt_long(argc, argv, "c:vqVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->conf_path = optarg; break;
		case OPT_CHECK: o->check = true; break;
		case OPT_ONCE: o->once = true; break;
		case OPT_REPORT: o->report = true; break;
		case OPT_ROLLOUT: o->rollout_router = optarg; break;
		case OPT_TARGETS: o->targets = true; break;
		case OPT_EXPORT: o->export_evidence = true; break;
		case OPT_SINCE:
			if ((o->since_ms = clock_parse_day(optarg)) <= 0) {
				fprintf(stderr, "wgwatchd: --since %s: a day (YYYY-MM-DD) expected\n",
					optarg);
				return -1;
			}
			break;
		case OPT_MERGE: o->nmerge = -1; break;
		case OPT_OFFLINE: o->offline = true; break;
		case OPT_RELOAD:
			if ((o->reload_pid = strtol(optarg, NULL, 10)) <= 0) {
				fprintf(stderr, "wgwatchd: --reload %s: a process id expected\n", optarg);
				return -1;
			}
			break;
		case 'v': o->verbosity++; break;
		case 'q': o->verbosity = -1; break;
		case 'V': printf("wgwatchd %s\n", PACKAGE_VERSION); exit(0);
		case 'h': opts_usage(stdout); exit(0);
		default: opts_usage(stderr); return -1;
		}
	}
	if (o->rollout_router != NULL && optind + 1 == argc) /* its VERSION */
		o->rollout_version = argv[optind++];
	if (o->nmerge < 0) { /* --merge-evidence: the files, and nothing else */
		o->merge = argv + optind;
		o->nmerge = argc - optind;
		if (o->nmerge == 0 || o->conf_path != NULL || o->check || o->once || o->report ||
			o->targets || o->rollout_router != NULL || o->export_evidence) {
			opts_usage(stderr);
			return -1;
		}
		return 0;
	}
	if (o->conf_path == NULL || optind != argc ||
		o->check + o->once + o->report + o->targets + o->export_evidence + (o->reload_pid > 0) +
				(o->rollout_router != NULL) >
			1 ||
		(o->since_ms > 0 && !o->export_evidence) || (o->offline && !o->check) ||
		(o->rollout_router != NULL && o->rollout_version == NULL)) {
		opts_usage(stderr);
		return -1;
	}
	return 0;
}
