/* SPDX-License-Identifier: Apache-2.0 */
/* store_bench: ingest, size and roll-up figures of the SQLite store alone (bench/README.md).
 * A fake fleet of R routers (C cores, I wg interfaces, P peers each) polled every 30 s (or -I)
 * for H hours is pushed through store_submit as fast as the writer takes it; then the roll-ups of
 * all of it are forced. With -u it is instead a fleet upgraded midway, shaped so the detector
 * reaches verdicts (bench/run's detector section); with -C a fleet whose streams each load a
 * core of their own, shaped for the capacity pass (bench/capacitybench.py). Prints figures only; writes nothing but
 * the database it is given. Includes store_int.h to reach the clock seam. */
#include "config.h"
#include "store/store_int.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static int64_t bench_now;
static int64_t bench_clock(void)
{
	return bench_now;
}

static double bench_secs(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

#define BENCH_MAX_IFACES 64

struct bench_opt {
	int routers, cores, ifaces, peers;
	int sensors; /* health sensors; read (stored) every other poll, as REST reads them */
	double hours;
	int step_s;        /* seconds between a router's polls (-I), 30 by default */
	double upgrade_at; /* hours; < 0: no upgrade (the ingest benchmark's fleet) */
	bool rollup;       /* force and time the roll-ups after ingesting */
	bool capacity;     /* -C: the capacity fleet */
	const char *path;
};

/* P peers of poll k of router r, counters growing at a few kB/s. */
static void bench_peers(const struct bench_opt *o, sample_t *s, int r, int64_t k)
{
	uint64_t h = (uint64_t)(r * 7919 + k * 104729);
	for (int i = 0; i < o->peers; i++) {
		struct sample_peer *p = sample_add_peer(s);
		p->interface = xasprintf("wg%d", o->ifaces ? i % o->ifaces : 0);
		p->peer = xasprintf("site-%d", i);
		p->public_key = xasprintf("%043dab=", r * 1000 + i);
		p->rx_bytes = 1000000000ULL + (uint64_t)k * (5000 + h % 3000) * (uint64_t)o->step_s;
		p->tx_bytes = p->rx_bytes / 2;
		p->last_handshake_ms = (k * o->step_s * 1000 + i * 1000) % 120000;
	}
}

/* S sensors of poll k of router r (temperatures, a voltage, fans, PSU states), and memory and
 * disk; health_fresh on every other poll, as wgwatchd reads health once a minute. */
static void bench_health(const struct bench_opt *o, sample_t *s, int r, int64_t k)
{
	static const struct {
		const char *name;
		enum sample_unit unit;
		double base, swing;
	} kinds[] = {
		{ "cpu-temperature", SAMPLE_UNIT_CELSIUS, 55, 8 },
		{ "voltage", SAMPLE_UNIT_VOLTS, 24.1, 0.3 },
		{ "fan1-speed", SAMPLE_UNIT_RPM, 5600, 300 },
		{ "psu1-state", SAMPLE_UNIT_STATE, 1, 0 },
		{ "temperature", SAMPLE_UNIT_CELSIUS, 40, 5 },
		{ "power-consumption", SAMPLE_UNIT_WATTS, 50, 6 },
	};
	s->health_fresh = k % 2 == 0;
	s->mem_total = 4227858432;
	s->mem_free = 3950641152 - (int64_t)((r * 31 + k) % 4096) * 4096;
	s->disk_total = 135266304;
	s->disk_free = 106233856;
	for (int i = 0; i < o->sensors; i++) {
		double u = (double)(((uint64_t)(r * 7919 + k * 104729 + i * 31)) % 1000) / 1000;
		double v = kinds[i % 6].base + kinds[i % 6].swing * u;
		v = kinds[i % 6].unit == SAMPLE_UNIT_CELSIUS || kinds[i % 6].unit == SAMPLE_UNIT_RPM
			? round(v)
			: round(v * 10) / 10;
		char name[32];
		snprintf(name, sizeof(name), "%s%s", kinds[i % 6].name, i >= 6 ? "-b" : "");
		sample_add_sensor(s, name, kinds[i % 6].unit, v);
	}
}

/* ---- the upgraded fleet (-u): every router goes 7.21.5 -> 7.22.3, rebooting ---- */

/* What the upgrade does to a router, by r % 10: the detector should find the same. */
enum bench_class { BC_SAME, BC_COSTLIER, BC_SATURATED, BC_CHEAPER };

static enum bench_class bench_class_of(int r)
{
	int m = r % 10;
	return m < 6 ? BC_SAME : m < 8 ? BC_COSTLIER : m == 8 ? BC_SATURATED : BC_CHEAPER;
}

/* A number in [0, 1) from (r, k, salt): splitmix64, so runs repeat. */
static double bench_unit(int r, int64_t k, uint64_t salt)
{
	uint64_t z = ((uint64_t)r << 40) ^ (uint64_t)k ^ (salt << 58);
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

/* Mbit/s of each interface (tx[i], rx[i]) at poll k, and the busiest core's load. Demand
 * swings 0.7-1.3x poll to poll; the busiest core costs 10% idle plus a cost per Mbit/s that
 * the upgrade changes (BC_COSTLIER 1.6x, BC_CHEAPER 0.6x), or is saturated with a tx capacity
 * that halves (BC_SATURATED). Interface 3 of every fifth router is idle (insufficient-data). */
static double bench_traffic(const struct bench_opt *o, int r, int64_t k, bool after, double *tx, double *rx)
{
	enum bench_class c = bench_class_of(r);
	double scale = 1 + (r % 7) * 0.1, d = 0.7 + 0.6 * bench_unit(r, k, 1), total = 0;
	if (c == BC_SATURATED)
		d = 0.95 + 0.1 * bench_unit(r, k, 1);
	for (int i = 0; i < o->ifaces; i++) {
		double txmax = c == BC_SATURATED ? (after ? 25 : 50) : 40;
		tx[i] = txmax * scale * d;
		rx[i] = 25 * scale * d;
		if (i == 3 && r % 5 == 0)
			tx[i] = rx[i] = 0.2;
		total += tx[i] + rx[i];
	}
	if (c == BC_SATURATED)
		return 0.95 + 0.05 * bench_unit(r, k, 2);
	double cost = 0.4 / (o->ifaces * 65 * 1.3 * scale); /* 50% load at the peak demand */
	if (after && c != BC_SAME)
		cost *= c == BC_COSTLIER ? 1.6 : 0.6;
	return fmin(0.1 + cost * total + 0.02 * bench_unit(r, k, 3), 0.89);
}

static void bench_identity(sample_t *s, int r, bool after)
{
	s->version = xstrdup(after ? "7.22.3" : "7.21.5");
	s->board = xstrdup(r % 2 ? "CCR2116-12G-4S+" : "CCR1009-7G-1C-1S+");
	s->architecture = xstrdup(r % 2 ? "arm64" : "tile");
	s->cpu_model = xstrdup(r % 2 ? "ARM64" : "tilegx");
}

/* Poll k of router r of the upgraded fleet; ctr holds the router's byte counters (rx, tx per
 * interface), which restart at the upgrade's reboot like the uptime. */
static sample_t *bench_upgraded(const struct bench_opt *o, uint64_t *ctr, int r, int64_t k, int64_t t0)
{
	char name[32];
	snprintf(name, sizeof(name), "r%05d", r);
	int64_t step = o->step_s * 1000LL;
	sample_t *s = sample_new(name, t0 + k * step, "rest");
	int64_t ku = (int64_t)(o->upgrade_at * 3600 / o->step_s);
	bool after = k >= ku;
	double tx[BENCH_MAX_IFACES], rx[BENCH_MAX_IFACES];
	double busiest = bench_traffic(o, r, k, after, tx, rx);
	s->duration_ms = 40;
	s->uptime_ms = after ? 60000 + (k - ku) * step : 86400000 + k * step;
	bench_identity(s, r, after);
	sample_set_cores(s, (size_t)o->cores);
	for (int i = 0; i < o->cores; i++)
		s->cores[i].load = i == 0 ? busiest : 0.05 + 0.1 * bench_unit(r, k, 4 + (uint64_t)i % 8);
	for (int i = 0; i < o->ifaces; i++) {
		struct sample_iface *f = sample_add_iface(s);
		uint64_t *c = &ctr[2 * i];
		if (k == ku)
			c[0] = c[1] = 0;
		c[0] += (uint64_t)(rx[i] * 1e6 / 8 * o->step_s);
		c[1] += (uint64_t)(tx[i] * 1e6 / 8 * o->step_s);
		f->name = xasprintf("wg%d", i);
		f->type = xstrdup("wg");
		f->running = true;
		f->rx_bytes = c[0];
		f->tx_bytes = c[1];
		f->rx_packets = c[0] / 900;
		f->tx_packets = c[1] / 900;
	}
	bench_peers(o, s, r, k);
	return s;
}

/* ---- the capacity fleet (-C): each stream on a core of its own, with its own ups and downs ---- */

/* Mbit/s stream s (interface s / 2, tx when odd) of router r offers at poll k, t s after the
 * start and end_s before the last poll's time: a daily swing of +-20 %, its own +-25 % each
 * poll, and a growth of 0 to 4 % a week that ends at half its capacity cap at the daily peak;
 * every tenth router's wg0 tx is offered 1.3 x its capacity all along (its core pinned). */
static double bench_cap_offer(int r, int s, int64_t k, double t, double end_s, double cap)
{
	double grow = pow(1 + (r % 5) * 0.01, (t - end_s) / (7 * 86400.0));
	double swing = 1 + 0.2 * sin(2 * M_PI * t / 86400);
	double noise = 0.75 + 0.5 * bench_unit(r, k, 10 + (uint64_t)s);
	if (s == 1 && r % 10 == 0)
		return 1.3 * cap * noise;
	return 0.5 / 1.2 * cap * grow * swing * noise;
}

/* Poll k of router r of the capacity fleet: stream s costs core 1 + s % (cores - 1), whose load
 * is 5 % plus 95 % x throughput / capacity; a stream offered more than its capacity carries it. */
static sample_t *bench_capacity(
	const struct bench_opt *o, uint64_t *ctr, int r, int64_t k, int64_t t0, int64_t rounds)
{
	char name[32];
	snprintf(name, sizeof(name), "r%05d", r);
	sample_t *s = sample_new(name, t0 + k * o->step_s * 1000LL, "rest");
	s->duration_ms = 40;
	s->uptime_ms = 86400000 + k * o->step_s * 1000LL;
	bench_identity(s, r, true);
	sample_set_cores(s, (size_t)o->cores);
	for (int i = 0; i < o->cores; i++)
		s->cores[i].load = 0.05;
	for (int i = 0; i < o->ifaces; i++) {
		struct sample_iface *f = sample_add_iface(s);
		for (int d = 0; d < 2; d++) { /* rx, then tx */
			int st = 2 * i + d;
			double cap = 100 + 20 * ((r + st) % 5); /* Mbit/s */
			double t = (double)k * o->step_s, end_s = (double)(rounds - 1) * o->step_s;
			double got = fmin(bench_cap_offer(r, st, k, t, end_s, cap), cap);
			ctr[st] += (uint64_t)(got * 1e6 / 8 * o->step_s);
			if (o->cores > 1)
				s->cores[1 + st % (o->cores - 1)].load += 0.95 * got / cap;
		}
		f->name = xasprintf("wg%d", i);
		f->type = xstrdup("wg");
		f->running = true;
		f->rx_bytes = ctr[2 * i];
		f->tx_bytes = ctr[2 * i + 1];
		f->rx_packets = f->rx_bytes / 900;
		f->tx_packets = f->tx_bytes / 900;
	}
	for (int i = 0; i < o->cores; i++)
		s->cores[i].load = fmin(s->cores[i].load, 1);
	return s;
}

/* Poll k of router r: loads that move, counters that grow at a few Mbit/s. */
static sample_t *bench_sample(const struct bench_opt *o, int r, int64_t k, int64_t t0)
{
	char name[32];
	snprintf(name, sizeof(name), "r%05d", r);
	sample_t *s = sample_new(name, t0 + k * o->step_s * 1000LL, "rest");
	s->duration_ms = 40;
	s->version = xstrdup("7.16.2");
	s->uptime_ms = 86400000 + k * o->step_s * 1000LL;
	sample_set_cores(s, (size_t)o->cores);
	uint64_t h = (uint64_t)(r * 7919 + k * 104729);
	for (int i = 0; i < o->cores; i++)
		s->cores[i].load = (double)((h >> (i % 8)) % 1000) / 1000;
	for (int i = 0; i < o->ifaces; i++) {
		struct sample_iface *f = sample_add_iface(s);
		uint64_t rate = 100000 + (uint64_t)((r + i) % 50) * 20000 + h % 50000;
		f->name = xasprintf("wg%d", i);
		f->type = xstrdup("wg");
		f->rx_bytes = 40000000000ULL + (uint64_t)k * rate * (uint64_t)o->step_s;
		f->tx_bytes = f->rx_bytes / 3;
		f->rx_packets = f->rx_bytes / 900;
		f->tx_packets = f->tx_bytes / 800;
		f->rx_drops = (uint64_t)k / 1000;
	}
	bench_peers(o, s, r, k);
	if (o->sensors > 0)
		bench_health(o, s, r, k);
	return s;
}

/* CPU seconds the store's writer thread has used. */
static double bench_writer_cpu(store_t *st)
{
	clockid_t id;
	struct timespec ts;
	if (pthread_getcpuclockid(st->thread, &id) != 0 || clock_gettime(id, &ts) != 0)
		return NAN;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int64_t bench_q(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *q = NULL;
	int64_t v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK && sqlite3_step(q) == SQLITE_ROW)
		v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	return v;
}

static void bench_sizes(const struct bench_opt *o, int64_t polls, int64_t values)
{
	sqlite3 *db = NULL;
	sqlite3_open_v2(o->path, &db, SQLITE_OPEN_READONLY, NULL);
	int64_t raw = bench_q(db,
		"SELECT sum(pgsize) FROM dbstat WHERE name IN ('polls', 'polls_key', 'chunks', 'chunks_key',"
		" 'cpu_samples', 'iface_samples', 'peer_samples')");
	/* the roll-up tables, and rollup_chunks (schema 16) with the rows it holds for them */
	int64_t rolled = bench_q(db, "SELECT sum(pgsize) FROM dbstat WHERE name LIKE '%rollup%'");
	int64_t nroll = bench_q(db,
		"SELECT (SELECT count(*) FROM cpu_rollup) + 6 *"
		" (SELECT count(*) FROM iface_rollup) + 6 * (SELECT count(*) FROM peer_rollup) +"
		" (SELECT coalesce(sum(nrows * CASE kind WHEN 0 THEN 1 ELSE 6 END), 0) FROM rollup_chunks)");
	int64_t file = bench_q(db,
		"SELECT page_count * page_size FROM pragma_page_count,"
		" pragma_page_size");
	int64_t entries = polls * (o->cores + o->ifaces + o->peers);
	printf("raw tables: %.1f MiB = %.1f bytes/value, %.1f bytes/entry (core, interface or"
	       " peer), %.0f bytes/poll\n",
		raw / 1048576.0, (double)raw / (double)values, (double)raw / (double)entries,
		(double)raw / (double)polls);
	printf("roll-ups: %.1f MiB = %.1f bytes/rolled-up value (%" PRId64 " values)\n", rolled / 1048576.0,
		nroll > 0 ? (double)rolled / (double)nroll : 0.0, nroll);
	printf("database file: %.1f MiB\n", file / 1048576.0);
	sqlite3_close(db);
}

/* Forces the writer's maintenance (the roll-ups of everything ingested) and times it. */
static void bench_rollup(store_t *st, const struct bench_opt *o)
{
	double start = bench_secs();
	store_maintain(st);
	printf("roll-up of %.1f h: %.1f s\n", o->hours, bench_secs() - start);
}

static void bench_run(const struct bench_opt *o)
{
	int64_t rounds = (int64_t)(o->hours * 3600 / o->step_s), t0 = 1700000000000LL;
	bench_now = t0;
	clock_set_wall(bench_clock);
	store_t *st = NULL;
	char *cause = NULL;
	conf_t conf = { .retention_ms = 400 * STORE_DAY_MS, .rollup_retention_ms = 800 * STORE_DAY_MS };
	if (store_open(o->path, &conf, &st, &cause) < 0) {
		fprintf(stderr, "store_bench: %s\n", cause);
		exit(1);
	}
	st->next_maint_ms = INT64_MAX; /* no roll-up while ingesting */
	int64_t per_poll = o->cores + 6 * o->ifaces + 3 * o->peers;
	uint64_t *ctr = xcalloc((size_t)o->routers * (size_t)o->ifaces * 2 + 1, sizeof(*ctr));
	int64_t per_flush = 50000 / o->routers > 0 ? 50000 / o->routers : 1; /* rounds */
	double start = bench_secs(), last = start;
	for (int64_t k = 0; k < rounds; k++) {
		for (int r = 0; r < o->routers; r++) {
			uint64_t *c = &ctr[(size_t)r * (size_t)o->ifaces * 2];
			store_submit(st,
				o->capacity                 ? bench_capacity(o, c, r, k, t0, rounds)
					: o->upgrade_at < 0 ? bench_sample(o, r, k, t0)
							    : bench_upgraded(o, c, r, k, t0));
		}
		if ((k + 1) % per_flush == 0 || k + 1 == rounds)
			store_flush(st); /* keep the queue under its bound */
		if (bench_secs() - last >= 10 || k + 1 == rounds) {
			last = bench_secs();
			printf("  %6.1f h of polls: %.0f values/s so far\n",
				(double)(k + 1) * o->step_s / 3600,
				(double)(k + 1) * o->routers * per_poll / (last - start));
			fflush(stdout);
		}
	}
	double took = bench_secs() - start;
	free(ctr);
	int64_t polls = rounds * o->routers, values = polls * per_poll;
	struct store_stats ss;
	store_get_stats(st, &ss);
	double cpu = bench_writer_cpu(st);
	printf("ingest: %" PRId64 " polls, %" PRId64 " values in %.1f s: %.0f values/s, %.0f"
	       " polls/s (dropped %" PRIu64 ")\n",
		polls, values, took, values / took, polls / took, ss.dropped);
	printf("writer thread: %.1f CPU s = %.0f values per writer CPU second\n", cpu, values / cpu);
	bench_now = t0 + rounds * o->step_s * 1000LL + 600000;
	if (o->rollup)
		bench_rollup(st, o);
	store_close(st);
	bench_sizes(o, polls, values);
}

static void bench_usage(void)
{
	fprintf(stderr,
		"usage: store_bench [-r routers] [-c cores] [-i ifaces] [-p peers] [-s sensors]"
		" [-H hours] [-I|--interval seconds]\n"
		"                   [-u|--upgrade-at hours | -C|--capacity] [-n|--no-rollup] [-o new.db]\n");
}

static int bench_args(int argc, char **argv, struct bench_opt *o)
{
	static const struct option lo[] = { { "upgrade-at", required_argument, NULL, 'u' },
		{ "no-rollup", no_argument, NULL, 'n' }, { "interval", required_argument, NULL, 'I' },
		{ "capacity", no_argument, NULL, 'C' }, { NULL, 0, NULL, 0 } };
	int c;
	while ((c = getopt_long(argc, argv, "r:c:i:p:s:H:I:u:Cno:", lo, NULL)) != -1) {
		switch (c) {
		case 'r': o->routers = atoi(optarg); break;
		case 'c': o->cores = atoi(optarg); break;
		case 'i': o->ifaces = atoi(optarg); break;
		case 'p': o->peers = atoi(optarg); break;
		case 's': o->sensors = atoi(optarg); break;
		case 'H': o->hours = atof(optarg); break;
		case 'I': o->step_s = atoi(optarg); break;
		case 'u': o->upgrade_at = atof(optarg); break;
		case 'n': o->rollup = false; break;
		case 'C': o->capacity = true; break;
		case 'o': o->path = optarg; break;
		default: bench_usage(); return -1;
		}
	}
	if (optind != argc || o->routers < 1 || o->cores < 1 || o->ifaces < 0 ||
		o->ifaces > BENCH_MAX_IFACES || o->peers < 0 || !(o->hours > 0) || o->step_s < 1 ||
		(o->upgrade_at >= 0 && (o->upgrade_at >= o->hours || o->capacity))) {
		bench_usage();
		fprintf(stderr,
			"  (1 <= cores, 0 <= ifaces <= %d, hours > 0, interval >= 1, upgrade-at < hours,"
			" not with -C)\n",
			BENCH_MAX_IFACES);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_opt o = { .routers = 1000,
		.cores = 9,
		.ifaces = 4,
		.hours = 24,
		.step_s = 30,
		.upgrade_at = -1,
		.rollup = true,
		.path = "store_bench.db" };
	if (bench_args(argc, argv, &o) < 0)
		return 2;
	log_set_level(LOG_LVL_WARN);
	printf("store_bench: %d routers x (%d cores, %d interfaces, %d peers, %d sensors), %.1f h of %d s"
	       " polls, into %s (SQLite %s)\n",
		o.routers, o.cores, o.ifaces, o.peers, o.sensors, o.hours, o.step_s, o.path,
		sqlite3_libversion());
	if (o.upgrade_at >= 0)
		printf("upgraded fleet: 7.21.5 -> 7.22.3 at %.2f h; by router %% 10: 0-5 same cost,"
		       " 6-7 cost x1.6, 8 saturated with tx capacity halved, 9 cost x0.6; even"
		       " routers tile CCR1009, odd arm64 CCR2116\n",
			o.upgrade_at);
	bench_run(&o);
	return 0;
}
