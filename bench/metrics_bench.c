/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_bench: CPU time of one /metrics render, alone (bench/README.md). A fleet shaped like
 * bench/fleet.scenario (R routers, 9 cores, 4 wg interfaces, 20 peers, two config labels) is
 * fed into fleet_update once; then a thread renders the exposition K times, each into a fresh
 * buffer as the daemon does, timing each by its CPU clock.
 * Prints figures only; no HTTP, no detector, no store. */
#include "config.h"

#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/buf.h"
#include "daemon/conf.h"
#include "daemon/fleet.h"
#include "web/metrics.h"
#include "web/httpgzip.h"
#include "web/scrape.h"
#include "daemon/sample.h"
#include "lib/xmem.h"

static double mb_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static conf_t *mb_conf(size_t n)
{
	conf_t *c = xcalloc(1, sizeof(*c));
	c->routers = xcalloc(n, sizeof(*c->routers));
	c->nrouters = n;
	for (size_t i = 0; i < n; i++) {
		conf_router_t *r = &c->routers[i];
		r->name = xasprintf("hub-%04zu", i + 1);
		r->labels = xcalloc(2, sizeof(*r->labels));
		r->labels[0].key = xstrdup("site"), r->labels[0].value = xstrdup("bench");
		r->labels[1].key = xstrdup("role"), r->labels[1].value = xstrdup("hub");
		r->nlabels = 2;
		r->peer_metrics = true;
	}
	return c;
}

/* One poll of router i, as the sim's bench fleet answers it (one idle peer per interface). */
static sample_t *mb_sample(const conf_router_t *r, size_t i)
{
	sample_t *s = sample_new(r->name, 1780000000000, "rest");
	s->version = xstrdup("7.22.3"), s->firmware = xstrdup("7.22.3");
	s->upgrade_firmware = xstrdup("7.22.3"), s->board = xstrdup("CCR1009-7G-1C-1S+");
	s->architecture = xstrdup("tile");
	s->uptime_ms = 3600000 + (int64_t)i * 1000;
	sample_set_cores(s, 9);
	for (size_t k = 0; k < 9; k++)
		s->cores[k].load = k == 4 ? 0.6 : 0.12, s->cores[k].irq = 0.01 * (double)k;
	for (int k = 0; k < 4; k++) {
		struct sample_iface *f = sample_add_iface(s);
		f->name = xasprintf("wg%d", k), f->type = xstrdup("wg"), f->running = true;
		f->rx_bytes = 4000000000000u + i * 77, f->tx_bytes = 2000000000000u + i * 31;
		f->rx_packets = f->rx_bytes / 900, f->tx_packets = f->tx_bytes / 800;
	}
	s->have_peers = true;
	for (int k = 0; k < 20; k++) {
		struct sample_peer *p = sample_add_peer(s);
		p->interface = xasprintf("wg%d", k / 5), p->peer = xasprintf("peer%d", k + 1);
		p->public_key = xasprintf("%043zu=", i * 100 + (size_t)k);
		p->rx_bytes = 3990662652698u + i, p->tx_bytes = 1990662652698u + i;
		p->last_handshake_ms = k % 5 == 4 ? -1 : 1000 * k + 500;
	}
	return s;
}

static int mb_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct mb_run {
	fleet_t *fleet;
	size_t runs;
	double *ms;
	long faults;
	buf_t out;
};

static void *mb_renders(void *arg)
{
	struct mb_run *run = arg;
	struct rusage ru0, ru1;
	getrusage(RUSAGE_THREAD, &ru0);
	for (size_t k = 0; k < run->runs; k++) {
		double t0 = mb_cpu_ms();
		buf_free(&run->out); /* the daemon renders every scrape into a new buffer */
		metrics_render(run->fleet, NULL, NULL, NULL, &run->out);
		run->ms[k] = mb_cpu_ms() - t0;
	}
	getrusage(RUSAGE_THREAD, &ru1);
	run->faults = ru1.ru_minflt - ru0.ru_minflt;
	return NULL;
}

/* What Accept-Encoding: gzip adds to a scrape: the CPU to compress the render, and the bytes. */
static void mb_gzip(const buf_t *out, size_t runs)
{
	double *ms = xcalloc(runs, sizeof(*ms));
	buf_t z;
	buf_init(&z);
	for (size_t k = 0; k < runs; k++) {
		buf_reset(&z);
		double t0 = mb_cpu_ms();
		if (httpgzip_compress(out->data, out->len, &z) != 0)
			exit(1);
		ms[k] = mb_cpu_ms() - t0;
	}
	qsort(ms, runs, sizeof(*ms), mb_cmp);
	printf("gzip of the whole text at once: bytes %zu (%.1f %% of %zu)  CPU ms: median %.2f\n", z.len,
		100.0 * (double)z.len / (double)out->len, out->len, ms[runs / 2]);
	buf_free(&z);
	free(ms);
}

static void mb_discard(void *arg, buf_t *out)
{
	*(size_t *)arg += out->len;
	buf_reset(out);
}

/* The render alone, streamed in pieces that are dropped (no page faults of a big buffer);
 * then a scrape as Prometheus makes it: streamed through gzip (web/scrape.c). */
static void mb_streamed(fleet_t *f, size_t runs)
{
	double *ms = xcalloc(runs, sizeof(*ms)), *gz = xcalloc(runs, sizeof(*gz));
	size_t bytes = 0, zbytes = 0;
	for (size_t k = 0; k < runs; k++) {
		buf_t text, z;
		buf_init(&text);
		buf_init(&z);
		bytes = 0;
		struct metrics_req req = { .fleet = f, .flush = mb_discard, .flush_arg = &bytes };
		double t0 = mb_cpu_ms();
		metrics_write(&req, &text);
		ms[k] = mb_cpu_ms() - t0;
		bytes += text.len;
		bool gzipped;
		t0 = mb_cpu_ms();
		scrape_metrics(&(struct scrape_req){ .fleet = f, .gzip = true }, &z, &gzipped);
		gz[k] = mb_cpu_ms() - t0;
		zbytes = z.len;
		buf_free(&text);
		buf_free(&z);
	}
	qsort(ms, runs, sizeof(*ms), mb_cmp);
	qsort(gz, runs, sizeof(*gz), mb_cmp);
	printf("render streamed (pieces dropped): bytes %zu  CPU ms: min %.2f  median %.2f\n", bytes, ms[0],
		ms[runs / 2]);
	printf("scrape with gzip (render streamed into gzip): bytes %zu  CPU ms: min %.2f  median %.2f\n",
		zbytes, gz[0], gz[runs / 2]);
	free(ms);
	free(gz);
}

/* Every router's own scrape (/metrics?router=NAME) once, as Prometheus does over an interval. */
static void mb_per_router(fleet_t *f, const conf_t *c)
{
	buf_t out;
	buf_init(&out);
	size_t bytes = 0;
	double t0 = mb_cpu_ms();
	for (size_t i = 0; i < c->nrouters; i++) {
		buf_reset(&out);
		struct metrics_req req = { .fleet = f, .router = c->routers[i].name };
		if (metrics_write(&req, &out) != 0)
			exit(1);
		bytes += out.len;
	}
	double ms = mb_cpu_ms() - t0;
	printf("per-router scrapes: %zu routers  CPU ms in all %.1f  µs per router %.1f  bytes per router %zu\n",
		c->nrouters, ms, ms * 1e3 / (double)c->nrouters, bytes / c->nrouters);
	buf_free(&out);
}

int main(int argc, char **argv)
{
	size_t routers = 1000, runs = 30;
	int ch;
	while ((ch = getopt(argc, argv, "r:k:")) != -1) {
		if (ch == 'r')
			routers = strtoul(optarg, NULL, 10);
		else if (ch == 'k')
			runs = strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: metrics_bench [-r ROUTERS] [-k RUNS]\n");
			return 2;
		}
	}
	if (routers == 0 || runs == 0)
		return 2;
	conf_t *c = mb_conf(routers);
	fleet_t *f = fleet_create(c);
	for (size_t i = 0; i < routers; i++) {
		sample_t *s = mb_sample(&c->routers[i], i);
		fleet_update(f, s);
		sample_free(s);
	}
	struct mb_run run = { .fleet = f, .runs = runs };
	run.ms = xcalloc(runs, sizeof(*run.ms));
	buf_init(&run.out);
	pthread_t t; /* renders on a thread of its own, as the daemon's HTTP workers do */
	if (pthread_create(&t, NULL, mb_renders, &run) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	double *ms = run.ms;
	buf_t out = run.out;
	size_t lines = 0;
	for (size_t i = 0; i < out.len; i++)
		lines += out.data[i] == '\n';
	qsort(ms, runs, sizeof(*ms), mb_cmp);
	printf("routers %zu  runs %zu  bytes %zu  lines %zu  CPU ms per render: min %.2f  median %.2f"
	       "  max %.2f  (%.0f MB/s at the median)  page faults per render %.0f\n",
		routers, runs, out.len, lines, ms[0], ms[runs / 2], ms[runs - 1],
		(double)out.len / 1e3 / ms[runs / 2], (double)run.faults / (double)runs);
	mb_gzip(&out, runs < 5 ? runs : 5);
	mb_streamed(f, runs < 10 ? runs : 10);
	mb_per_router(f, c);
	free(ms);
	buf_free(&out);
	fleet_destroy(f);
	return 0;
}
