/* SPDX-License-Identifier: Apache-2.0 */
/* opts: wgwatchd's command line (wgwatchd(8)): the configuration file, the one-shot modes
 * (--check, --once, --report, --targets, --rollout-check, --export-evidence, --merge-evidence)
 * and the log level. Parses only: what
 * a mode does is daemon/main.c's. */
#ifndef WGWATCH_OPTS_H
#define WGWATCH_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct opts {
	const char *conf_path;
	bool check, once, report, targets;
	bool offline;    /* --check --offline: the file alone, not this host */
	long reload_pid; /* --reload PID: ask the daemon PID to reload and wait for its answer */
	const char *rollout_router, *rollout_version; /* --rollout-check ROUTER VERSION */
	bool export_evidence;                         /* --export-evidence ... */
	int64_t since_ms;                             /* ... --since DAY (UTC midnight); 0: all */
	char **merge;                                 /* --merge-evidence FILE...: the files ... */
	int nmerge;                                   /* ... and how many (no -c needed) */
	int verbosity;
};

/* argv into o (zeroed by the caller; its strings point into argv). --version and --help print
 * to stdout and exit 0. 0, or -1 with the usage on stderr (a bad option, no -c, more than one
 * mode). */
int opts_parse(int argc, char **argv, struct opts *o);

#endif
