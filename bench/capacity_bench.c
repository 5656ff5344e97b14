/* SPDX-License-Identifier: Apache-2.0 */
/* capacity_bench: the time and memory of one capacity pass (docs/detector.md, "Capacity
 * headroom") over the database of a wgwatch.conf, as the running detector and --report make it
 * (detector_capacity_once), N times in a row (bench/README.md). Prints figures only, as one
 * JSON object on stdout for bench/capacitybench.py. It opens the database read-only through the
 * detector, and must never write a file nor judge a figure. */
#include "config.h"
#include "daemon/conf.h"
#include "detector/capacity.h"
#include "detector/detector.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct cb_pass {
	double wall_s, cpu_s;
	long rss_kib, hwm_kib;        /* VmRSS before the pass, VmHWM after (reset before) */
	long anon_kib, anon_peak_kib; /* RssAnon before, and its highest seen every 5 ms meanwhile */
	long majflt;                  /* major page faults: the database read from disk */
	int64_t sqlite_hw;            /* SQLite's heap high-water mark during the pass, bytes */
};

/* A "Vm...: N kB" line of /proc/self/status; -1 when absent. */
static long cb_status_kib(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f != NULL)
		fclose(f);
	return v;
}

/* Start VmHWM afresh at the current RSS (Linux 4.0 and later); false when refused. */
static bool cb_reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");
	bool ok = f != NULL && fputs("5", f) >= 0;
	if (f != NULL && fclose(f) != 0)
		ok = false;
	return ok;
}

/* The sampler: the highest RssAnon (the heap and stacks, not the database's mapped pages,
 * which are page cache) while a pass runs. */
struct cb_sampler {
	atomic_bool done;
	long peak_kib;
};

static void *cb_sample(void *arg)
{
	struct cb_sampler *s = arg;
	while (!atomic_load(&s->done)) {
		long v = cb_status_kib("RssAnon");
		s->peak_kib = v > s->peak_kib ? v : s->peak_kib;
		usleep(5000);
	}
	return NULL;
}

static double cb_now(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass into *p; the view it made, or NULL with *cause. */
static detector_view_t *cb_pass(const conf_t *conf, struct cb_pass *p, bool *peak_ok, char **cause)
{
	struct rusage r0, r1;
	struct cb_sampler smp = { .peak_kib = 0 };
	pthread_t th;
	p->rss_kib = cb_status_kib("VmRSS");
	p->anon_kib = cb_status_kib("RssAnon");
	bool sampling = pthread_create(&th, NULL, cb_sample, &smp) == 0;
	*peak_ok = cb_reset_peak();
	sqlite3_memory_highwater(1);
	getrusage(RUSAGE_SELF, &r0);
	double w0 = cb_now(CLOCK_MONOTONIC), c0 = cb_now(CLOCK_PROCESS_CPUTIME_ID);
	detector_view_t *v = detector_capacity_once(conf, cause);
	p->wall_s = cb_now(CLOCK_MONOTONIC) - w0;
	p->cpu_s = cb_now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	getrusage(RUSAGE_SELF, &r1);
	p->majflt = r1.ru_majflt - r0.ru_majflt;
	p->hwm_kib = cb_status_kib("VmHWM");
	p->sqlite_hw = sqlite3_memory_highwater(0);
	atomic_store(&smp.done, true);
	if (sampling)
		pthread_join(th, NULL);
	p->anon_peak_kib = smp.peak_kib;
	return v;
}

static int cb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* What the pass found: routers, streams, how many of each kind, and the median over the
 * streams of the week's p95 demand (to set beside PromQL's), as JSON members. */
static void cb_counts(const detector_view_t *v)
{
	size_t n, routers = 0, pinned = 0, projected = 0, unknown = 0, dated = 0, nd = 0;
	const struct capacity *c = detector_view_capacity(v, &n);
	double *demand = xcalloc(n + 1, sizeof(*demand));
	for (size_t i = 0; i < n; i++) {
		routers += i == 0 || strcmp(c[i].router, c[i - 1].router) != 0;
		pinned += c[i].method == CAPACITY_PINNED;
		projected += c[i].method == CAPACITY_PROJECTED;
		unknown += c[i].method == CAPACITY_UNKNOWN;
		dated += c[i].exhausted_ms != CAPACITY_NEVER;
		if (isfinite(c[i].p95_week))
			demand[nd++] = c[i].p95_week;
	}
	if (nd > 0)
		qsort(demand, nd, sizeof(*demand), cb_cmp);
	printf("\"routers\": %zu, \"streams\": %zu, \"pinned\": %zu, \"projected\": %zu, \"unknown\": %zu,"
	       " \"dated\": %zu, \"p95_week_median_bps\": %.0f",
		routers, n, pinned, projected, unknown, dated,
		nd == 0          ? 0
			: nd % 2 ? demand[nd / 2]
				 : (demand[nd / 2 - 1] + demand[nd / 2]) / 2);
	free(demand);
}

static void cb_print(
	const struct cb_pass *p, int n, const detector_view_t *v, const conf_t *conf, bool peak_ok)
{
	printf("{\"database\": \"%s\", \"before_s\": %" PRId64 ", \"peak_reset\": %s, ", conf->database,
		conf->before_ms / 1000, peak_ok ? "true" : "false");
	cb_counts(v);
	printf(", \"passes\": [");
	for (int i = 0; i < n; i++)
		printf("%s{\"wall_s\": %.3f, \"cpu_s\": %.3f, \"rss_kib\": %ld, \"hwm_kib\": %ld,"
		       " \"anon_kib\": %ld, \"anon_peak_kib\": %ld, \"majflt\": %ld, \"sqlite_hw_bytes\": %" PRId64
		       "}",
			i ? ", " : "", p[i].wall_s, p[i].cpu_s, p[i].rss_kib, p[i].hwm_kib, p[i].anon_kib,
			p[i].anon_peak_kib, p[i].majflt, p[i].sqlite_hw);
	printf("]}\n");
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int n = 2, c;
	while ((c = getopt(argc, argv, "c:n:")) != -1)
		if (c == 'c')
			path = optarg;
		else if (c == 'n' && atoi(optarg) >= 1 && atoi(optarg) <= 10)
			n = atoi(optarg);
		else
			path = NULL, optind = argc + 1;
	if (path == NULL || optind != argc) {
		fputs("usage: capacity_bench -c wgwatch.conf [-n passes, 1..10, default 2]\n", stderr);
		return 2;
	}
	log_set_level(LOG_LVL_WARN);
	conf_t *conf = NULL;
	char *cause = NULL;
	if (conf_load(path, &conf, &cause) != 0) {
		fprintf(stderr, "capacity_bench: %s\n", cause ? cause : path);
		return 1;
	}
	struct cb_pass p[10];
	detector_view_t *v = NULL;
	bool peak_ok = false;
	for (int i = 0; i < n; i++) {
		detector_view_free(v);
		if ((v = cb_pass(conf, &p[i], &peak_ok, &cause)) == NULL) {
			fprintf(stderr, "capacity_bench: %s\n", cause);
			return 1;
		}
	}
	cb_print(p, n, v, conf, peak_ok);
	detector_view_free(v);
	conf_free(conf);
	return 0;
}
