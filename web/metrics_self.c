/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_self: the families about wgwatchd itself that a Prometheus user expects of any
 * daemon: build info, the process_* families of the client libraries (CPU, memory, fds, start
 * time, read from /proc/self), the outcome of the last configuration reload, and per router
 * the time of its last successful poll and that poll's duration. It must never block on
 * anything but /proc, nor show a path or a secret. */
#include "config.h"
#include "web/metrics_int.h"

#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static atomic_int metrics_self_ok = 1;
static _Atomic int64_t metrics_self_reload_ms;

void metrics_note_reload(bool ok, int64_t wall_ms)
{
	atomic_store(&metrics_self_ok, ok ? 1 : 0);
	if (ok)
		atomic_store(&metrics_self_reload_ms, wall_ms);
}

void metrics_self_build_info(struct metrics_ctx *c, const struct metrics_family *fam)
{
	buf_printf(c->out, "%s{version=\"%s\"", fam->name, PACKAGE_VERSION);
	metrics_label(c->out, "revision", WG_REVISION);
	buf_puts(c->out, "} 1\n");
}

void metrics_self_reload_ok(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_value(c->out, fam, atomic_load(&metrics_self_ok));
}

void metrics_self_reload_time(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_value(c->out, fam, (double)atomic_load(&metrics_self_reload_ms) / 1000.0);
}

/* Fields of /proc/self/stat (proc(5)): utime 14, stime 15, starttime 22, vsize 23, rss 24. */
struct metrics_self_stat {
	double cpu_s, start_s, vsize, rss;
};

/* Unix time of the boot, from the clocks: /proc/stat says it too, but the unit's ProcSubset=pid
 * hides that file (088 checks what the daemon opens). */
static double metrics_self_boot_s(void)
{
	struct timespec rt, bt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	return (double)(rt.tv_sec - bt.tv_sec) + (double)(rt.tv_nsec - bt.tv_nsec) / 1e9;
}

static int metrics_self_stat(struct metrics_self_stat *st)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f != NULL)
		fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
	unsigned long long ut, stm, start, vsize, rss;
	if (p == NULL ||
		sscanf(p + 2,
			"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d "
			"%*d %*d %*d %*d %llu %llu %llu",
			&ut, &stm, &start, &vsize, &rss) != 5)
		return -1;
	double hz = (double)sysconf(_SC_CLK_TCK);
	st->cpu_s = (double)(ut + stm) / hz;
	st->start_s = metrics_self_boot_s() + (double)start / hz;
	st->vsize = (double)vsize;
	st->rss = (double)rss * (double)sysconf(_SC_PAGESIZE);
	return 0;
}

/* One of process_cpu_seconds_total, _start_time_seconds, _virtual_memory_bytes,
 * _resident_memory_bytes, by fam->off (0 to 3); left out when /proc cannot tell. */
void metrics_self_process(struct metrics_ctx *c, const struct metrics_family *fam)
{
	struct metrics_self_stat st;
	if (metrics_self_stat(&st) < 0)
		return;
	const double v[] = { st.cpu_s, st.start_s, st.vsize, st.rss };
	metrics_daemon_value(c->out, fam, v[fam->off]);
}

void metrics_self_open_fds(struct metrics_ctx *c, const struct metrics_family *fam)
{
	DIR *d = opendir("/proc/self/fd");
	if (d == NULL)
		return;
	long n = -1; /* the directory's own fd */
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	metrics_daemon_value(c->out, fam, (double)(n - 2)); /* . and .. */
}

void metrics_self_max_fds(struct metrics_ctx *c, const struct metrics_family *fam)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		metrics_daemon_value(c->out, fam, rl.rlim_cur == RLIM_INFINITY ? 0 : (double)rl.rlim_cur);
}

/* Per router, from its newest successful poll (kept while it is down): when it asked, or how
 * long it took (fam->off 0 or 1). Absent before the first success. */
void metrics_self_router_success(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r)
{
	if (r->last == NULL)
		return;
	metrics_begin(c, fam, i);
	metrics_end_double(c, i, (double)(fam->off == 0 ? r->last->time_ms : r->last->duration_ms) / 1000.0);
}
