/* SPDX-License-Identifier: Apache-2.0 */
/* simcpu_test: wgwatch-sim's CPU model (docs/sim.md "CPU model"): the ceiling and throttling,
 * per-core loads, bursts, other work that follows the traffic, one noise curve shared by every
 * stream, steady rates, counters that are pure functions of t from any order or thread, the
 * REST interface bytes against their peers, and the new keys' FILE:LINE errors. */
#include "config.h"
#include "sim/scenario.h"
#include "sim/simcpu.h"
#include "sim/simmenu.h"
#include "sim/simrouter.h"
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define MBIT 125000.0 /* bytes per Mbit */

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/simcpu_test.XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		abort();
	close(fd);
	return path;
}

/* The scenario in text, or NULL with its errors printed. */
static scenario_t *load(const char *text)
{
	char *path = write_tmp(text), *errs = NULL;
	scenario_t *sc = NULL;
	if (scenario_load(path, &sc, &errs) < 0) {
		fprintf(stderr, "%s", errs);
		free(errs);
	}
	unlink(path);
	free(path);
	return sc;
}

/* Mean Mbit/s of pool f, direction d over [a, b]. */
static double rate(const simrouter_t *r, int f, int d, double a, double b)
{
	double x[SC_CPU_MAX_WG][2], y[SC_CPU_MAX_WG][2];
	simrouter_pool_bytes(r, a, x);
	simrouter_pool_bytes(r, b, y);
	return (y[f][d] - x[f][d]) / (b - a) / MBIT;
}

/* Core 1 has 20 % other work, so wg0 (0.5 %/Mbit/s tx) tops out at (100 - 20) / 0.5 = 160. */
static void test_ceiling(void)
{
	scenario_t *sc = load("[group hub]\ncores = 3\nwg = wg0:2\nuptime = 1h\n"
			      "demand = wg0 tx 400\ncost = wg0 tx 0.5 core 1\nwork = 20 core 1\n"
			      "at 100s: demand wg0 tx 100 rx 50\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	CHECK(sc->groups[0].cpu_sim);
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_NEAR(rate(r, 0, 1, 10, 20), 160, 1e-6);
	CHECK_NEAR(rate(r, 0, 0, 10, 20), 0, 1e-9);
	CHECK_INT(simrouter_core_load(r, 15, 1), 100);
	CHECK(simrouter_core_load(r, 15, 0) <= 2 && simrouter_core_load(r, 15, 2) <= 2); /* idle */
	/* below the ceiling: work + cost x rate; rx costs nothing here */
	CHECK_NEAR(rate(r, 0, 1, 110, 120), 100, 1e-6);
	CHECK_NEAR(rate(r, 0, 0, 110, 120), 50, 1e-6);
	CHECK_INT(simrouter_core_load(r, 115, 1), 70);
	/* before t = 0, an hour of uptime at the first phase's (throttled) steady rate */
	CHECK_NEAR(simrouter_total_bytes(r, 0, 1), 160 * MBIT * 3600, 1);
	simrouter_destroy(r);
	scenario_free(sc);
}

/* wg0 saturates core 0, wg1 runs unthrottled on core 1, wg2 is spread over cores 0+2 and takes
 * core 0's factor. */
static void test_two_cores(void)
{
	scenario_t *sc = load(
		"[group hub]\ncores = 4\nwg = wg0:1, wg1:3, wg2:1\n"
		"demand = wg0 tx 300 rx 100, wg1 tx 100 rx 100, wg2 tx 100\n"
		"cost = wg0 tx 0.3 rx 0.2 core 0, wg1 tx 0.2 rx 0.1 core 1, wg2 tx 0.2 core 0+2\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	/* core 0 wants 90 + 20 + 10 = 120: factor 100/120 */
	double fac = 100.0 / 120;
	CHECK_NEAR(rate(r, 0, 1, 5, 6), 300 * fac, 1e-6);
	CHECK_NEAR(rate(r, 0, 0, 5, 6), 100 * fac, 1e-6);
	CHECK_NEAR(rate(r, 1, 1, 5, 6), 100, 1e-6);
	CHECK_NEAR(rate(r, 1, 0, 5, 6), 100, 1e-6);
	CHECK_NEAR(rate(r, 2, 1, 5, 6), 100 * fac, 1e-6);
	CHECK_INT(simrouter_core_load(r, 5, 0), 100);
	CHECK_INT(simrouter_core_load(r, 5, 1), 30);
	CHECK_INT(simrouter_core_load(r, 5, 2), 8); /* 10 x 100/120 */
	CHECK(simrouter_core_load(r, 5, 3) <= 2);
	simrouter_destroy(r);
	scenario_free(sc);
}

static const char noisy[] = "[group hub]\ncores = 2\nwg = wg0:3, wg1:2\nuptime = 2h\nslot = 50ms\n"
			    "demand = wg0 tx 300 rx 100, wg1 tx 30 rx 10\n"
			    "cost = wg0 tx 0.3 rx 0.1 core 0, wg1 tx 0.1 rx 0.1 core 0+1\n"
			    "work = 10 core 0, 5\nnoise = 25\nnoise_every = 500ms\nwork_noise = 20\n"
			    "swing = 30\nwave_period = 2m\nburst = 0.2 x 3\n"
			    "at 200s: reboot\nat 300s: cost wg0 tx 0.9 rx 0.1 core 0\n";

#define NT 40
static double times[NT];

struct job {
	simrouter_t *r;
	int from, step;
	double out[NT][SC_CPU_MAX_WG][2];
};

static void *ask(void *arg)
{
	struct job *j = arg;
	for (int i = j->from; i >= 0 && i < NT; i += j->step)
		simrouter_pool_bytes(j->r, times[i], j->out[i]);
	return NULL;
}

/* The same t gives the same bits: increasing order, decreasing order, two threads at once. */
static void test_pure(void)
{
	scenario_t *sc = load(noisy);
	CHECK(sc != NULL);
	if (!sc)
		return;
	for (int i = 0; i < NT; i++)
		times[i] = i * 17.3 + (i % 3) * 0.013;
	static struct job up, down, a, b;
	up = (struct job){ .r = simrouter_create(sc, &sc->groups[0], 0, 0), .from = 0, .step = 1 };
	down = (struct job){ .r = simrouter_create(sc, &sc->groups[0], 0, 0), .from = NT - 1, .step = -1 };
	simrouter_t *shared = simrouter_create(sc, &sc->groups[0], 0, 0);
	a = (struct job){ .r = shared, .from = NT - 1, .step = -2 };
	b = (struct job){ .r = shared, .from = 0, .step = 2 };
	ask(&up);
	ask(&down);
	pthread_t ta, tb;
	pthread_create(&ta, NULL, ask, &a);
	pthread_create(&tb, NULL, ask, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	int same = 0, moving = 0;
	for (int i = 0; i < NT; i++) {
		const double(*t2)[2] = i % 2 ? a.out[i] : b.out[i];
		same += memcmp(up.out[i], down.out[i], sizeof(up.out[i])) == 0 &&
			memcmp(up.out[i], t2, sizeof(up.out[i])) == 0;
		moving += i > 0 && up.out[i][0][1] != up.out[i - 1][0][1];
	}
	CHECK_INT(same, NT);
	CHECK_INT(moving, NT - 1);
	/* counters only grow between reboots, and the reboot at 200 s zeroes them */
	double x[SC_CPU_MAX_WG][2], y[SC_CPU_MAX_WG][2];
	simrouter_pool_bytes(up.r, 199.99, x);
	simrouter_pool_bytes(up.r, 200.5, y);
	CHECK(y[0][1] < x[0][1] && y[0][1] > 0 && y[0][1] < 300 * 1.5 * 3 * MBIT * 0.5);
	simrouter_destroy(up.r);
	simrouter_destroy(down.r);
	simrouter_destroy(shared);
	scenario_free(sc);
}

static uint64_t field(const struct simmenu_rec *rec, const char *k)
{
	const char *v = simmenu_get(rec, k);
	return v ? strtoull(v, NULL, 10) : UINT64_MAX;
}

/* /interface rx-byte / tx-byte of each wg interface is the sum of its peers' rx / tx. */
static void test_iface_is_sum_of_peers(void)
{
	scenario_t *sc = load(noisy);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	const struct simmenu *ifs = simmenu_find("interface"),
			     *peers = simmenu_find("interface/wireguard/peers");
	struct simmenu_ctx c;
	struct simmenu_rec rec;
	for (double t = 0; t < 400; t += 61.7) {
		simmenu_ctx_init(&c, r, t, 1700000000);
		uint64_t sum[2][2] = { { 0 } }, iface[2][2] = { { 0 } };
		for (int p = 0; p < peers->count(&c); p++) {
			memset(&rec, 0, sizeof(rec));
			peers->fill(&c, p, &rec);
			int w = strcmp(simmenu_get(&rec, "interface"), "wg1") == 0;
			sum[w][0] += field(&rec, "rx"), sum[w][1] += field(&rec, "tx");
		}
		for (int w = 0; w < 2; w++) {
			memset(&rec, 0, sizeof(rec));
			ifs->fill(&c, 4 + w, &rec); /* after ether1, ether2, bridge, lo */
			iface[w][0] = field(&rec, "rx-byte"), iface[w][1] = field(&rec, "tx-byte");
		}
		CHECK(memcmp(sum, iface, sizeof(sum)) == 0);
		CHECK(iface[0][1] > 5 * iface[1][1] || t > 300); /* per interface: wg0 ~10x wg1 */
	}
	simrouter_destroy(r);
	scenario_free(sc);
}

/* Bursts of 0.3 x 6 raise the mean by 0.3 x 5 when nothing saturates. */
static void test_bursts(void)
{
	scenario_t *sc = load("[group hub]\ncores = 2\nwg = wg0:1\nuptime = 0\ndemand = wg0 tx 100 rx 20\n"
			      "cost = wg0 tx 0.01 rx 0.01 core 1\nburst = 0.3 x 6\nnoise = 10\n");
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_NEAR(rate(r, 0, 1, 0, 1000), 250, 8);
	CHECK_NEAR(rate(r, 0, 0, 0, 1000), 50, 2);
	int peaks = 0;
	for (double t = 0.05; t < 100; t += 0.1)
		peaks += simrouter_core_load(r, t, 1) >= 6;
	CHECK(peaks > 200 && peaks < 400); /* 600 x 0.01 = 6 % in about 30 % of the slots */
	simrouter_destroy(r);
	scenario_free(sc);
}

static void want_error(const char *text, const char *msg)
{
	char *path = write_tmp(text), *errs = NULL, *want = NULL;
	scenario_t *sc = NULL;
	CHECK(scenario_load(path, &sc, &errs) == -1);
	if (asprintf(&want, "%s:%s", path, msg) < 0)
		abort();
	CHECK(errs && strstr(errs, want) != NULL);
	if (!errs || !strstr(errs, want))
		fprintf(stderr, "want %s in:\n%s", want, errs ? errs : "(none)\n");
	free(want);
	free(errs);
	scenario_free(sc);
	unlink(path);
	free(path);
}

static void test_errors(void)
{
	const char *head = "[group a]\ncores = 4\nwg = wg0:2, wg1:1\n";
	char *t = NULL;
#define ERR(body, msg)                                    \
	do {                                              \
		if (asprintf(&t, "%s%s", head, body) < 0) \
			abort();                          \
		want_error(t, msg);                       \
		free(t);                                  \
	} while (0)
	ERR("demand = wg7 tx 1\ncost = wg0 tx 1 core 0\n",
		"4: bad value for demand: unknown wg interface \"wg7\"");
	ERR("cost = wg0 tx 0.2 core 4\n", "4: bad value for cost: core 4 is beyond the last core");
	ERR("cost = wg0 tx -1 core 0\n", "4: bad value for cost: wg0: bad tx value \"-1\"");
	ERR("cost = wg0 tx 0.1\n", "4: bad value for cost: wg0: a cost needs core N");
	ERR("cost = wg0 tx 0.1 core 1\nwork = 50 core 1, 60 core 1\n",
		"5: bad value for work: adds up to more than 100% on core 1");
	ERR("cost = wg0 tx 0.1 core 1\nwork = 50 on 1\n",
		"5: bad value for work: expected N [core A[+B...]]");
	ERR("cost = wg0 tx 0.1 core 1\nburst = 0.3 6\n", "5: bad value for burst: expected SHARE x MULT");
	ERR("cost = wg0 tx 0.1 core 1\nnoise = -5\n", "5: bad value for noise: expected a percent");
	ERR("cost = wg0 tx 0.1 core 1\nslot = 0\n", "5: bad value for slot: 0");
	ERR("cost = wg0 tx 0.1 core 1\nload_window = 11s\n", "5: bad value for load_window: 11s");
	ERR("cost = wg0 tx 0.1 core 1\nat 1m: cost wg0 tx 0.3 core 1, wg1 rx 0.1 core 9\n",
		"5: bad value for cost: core 9 is beyond the last core");
	ERR("cost = wg0 tx 0.1 core 1\nat 1m: demand wg0 tx 1 rx\n",
		"5: bad value for demand: wg0: bad rx value \"\"");
	ERR("cost = wg0 tx 0.1 core 1\nfollow = wg0 tx 0.08\n",
		"5: bad value for follow: wg0: a follow needs core N");
	ERR("cost = wg0 tx 0.1 core 1\nfollow = wg0 tx 0.08 core 2, wg1 rx many core 2\n",
		"5: bad value for follow: wg1: bad rx value \"many\" (want 0..100)");
	ERR("cost = wg0 tx 0.1 core 1\nfollow = wg0 tx 0.08 core 2 on 3\n",
		"5: bad value for follow: wg0: unexpected \"on\" (want tx N, rx N, core N[+M])");
	ERR("cost = wg0 tx 0.1 core 1\nat 50s: follow wg0 tx 0.12 core 2, wg0 rx 0.05 core 4\n",
		"5: bad value for follow: core 4 is beyond the last core (cores = 4, numbered from 0)");
	ERR("cost = wg0 tx 0.1 core 1\nshared_noise = 120\n",
		"5: bad value for shared_noise: expected a percent 0..100, not \"120\"");
	ERR("follow = wg0 tx 0.1 core 1\n",
		"1: group a: demand, follow, work, noise, shared_noise, work_noise, burst and growth need a cost");
	ERR("demand = wg0 tx 5\n",
		"1: group a: demand, follow, work, noise, shared_noise, work_noise, burst and growth need a cost");
	ERR("wg_mtu = 100\n", "4: bad value for wg_mtu: 100");
	ERR("cpu_frequency = fast\n", "4: bad value for cpu_frequency: fast");
	ERR("at 1m: wan_queue_drops -3\n", "4: bad value for wan_queue_drops: -3");
#undef ERR
}

/* With load_window, a load is its core's mean over the span before the request, so it covers
 * what the counters of that span carry: core 1 holds only wg0 tx at 0.2 %/Mbit/s, so its load
 * is 0.2 x the rate over [t - 250 ms, t] for any t, on a noise cell's edge or 7 or 107 ms past
 * it (a poll on time, and one 100 ms late). An instant read gives the cell that holds t, which
 * for t 7 ms past an edge is the next poll's, not this one's. */
static void test_load_window(void)
{
	static const char text[] = "[group hub]\ncores = 2\nwg = wg0:2\nslot = 50ms\n"
				   "noise_every = 250ms\nload_window = 250ms\nnoise = 25\n"
				   "demand = wg0 tx 150\ncost = wg0 tx 0.2 core 1\n";
	scenario_t *sc = load(text);
	CHECK(sc != NULL);
	if (!sc)
		return;
	CHECK_NEAR(sc->groups[0].load_window, 0.25, 1e-12);
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	int off[] = { 0, 7, 107, 243 };
	for (int cell = 8; cell < 48; cell++)
		for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
			double t = cell * 0.25 + off[i] / 1000.0;
			double want = 0.2 * rate(r, 0, 1, t - 0.25, t);
			CHECK(fabs(simrouter_core_load(r, t, 1) - want) <= 0.5 + 1e-9);
		}
	simrouter_destroy(r);
	scenario_free(sc);
	/* an instant read at 7 ms past an edge is mostly the next 250 ms's, in some cells */
	sc = load("[group hub]\ncores = 2\nwg = wg0:2\nslot = 50ms\nnoise_every = 250ms\nnoise = 25\n"
		  "demand = wg0 tx 150\ncost = wg0 tx 0.2 core 1\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	r = simrouter_create(sc, &sc->groups[0], 0, 0);
	int off_by_more = 0;
	for (int cell = 8; cell < 48; cell++) {
		double t = cell * 0.25 + 0.007;
		off_by_more += fabs(simrouter_core_load(r, t, 1) - 0.2 * rate(r, 0, 1, t - 0.25, t)) >
			0.5 + 1e-9;
	}
	CHECK(off_by_more > 20);
	simrouter_destroy(r);
	scenario_free(sc);
}

/* A timeline list continues over commas: demand, cost and work lines. */
static void test_timeline_lists(void)
{
	scenario_t *sc = load(
		"[group a]\ncores = 4\nwg = wg0:2, wg1:1\ncost = wg0 tx 0.1 core 0\n"
		"at 1m: cost wg0 tx 0.3 core 1, wg1 rx 0.1 core 2+3, work 20 core 0, 5, noise 5\n");
	if (!sc)
		return;
	const struct sc_cpu *c = &sc->groups[0].phases[1].st.cpu;
	CHECK_NEAR(c->cost[0][1], 0.3, 1e-12);
	CHECK_NEAR(c->cost[1][0], 0.1, 1e-12);
	CHECK_INT(c->ncores[1][0], 2); /* rx (0) of wg1 on cores 2 and 3 */
	CHECK_INT(c->core[1][0][1], 3);
	CHECK_INT(c->ncores[1][1], 0); /* its tx costs nothing */

	CHECK_NEAR(c->work[0], 25, 1e-12);
	CHECK_NEAR(c->work[3], 5, 1e-12);
	CHECK_NEAR(c->noise, 0.05, 1e-12);
	CHECK_NEAR(sc->groups[0].phases[0].st.cpu.cost[0][1], 0.1, 1e-12);
	scenario_free(sc);
	/* each direction on a core of its own: encrypt on 3, decrypt on 1 */
	sc = load("[group a]\ncores = 4\nwg = wg0:2\ncost = wg0 tx 0.3 core 3 rx 0.1 core 1\n"
		  "demand = wg0 tx 1000 rx 100\n");
	if (!sc)
		return;
	c = &sc->groups[0].phases[0].st.cpu;
	CHECK(c->ncores[0][1] == 1 && c->core[0][1][0] == 3);
	CHECK(c->ncores[0][0] == 1 && c->core[0][0][0] == 1);
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_NEAR(rate(r, 0, 1, 10, 20), 100 / 0.3, 1e-6); /* encrypt throttled on its core ... */
	CHECK_NEAR(rate(r, 0, 0, 10, 20), 100, 1e-6);       /* ... decrypt not, on its own */
	CHECK_INT(simrouter_core_load(r, 15, 3), 100);
	CHECK_INT(simrouter_core_load(r, 15, 1), 10);
	simrouter_destroy(r);
	scenario_free(sc);
}

/* The confounder knobs: the clock scales the costs (1400 -> 700 MHz halves the ceiling of
 * (100 - 20) / 0.5 = 160), ether1's tx-queue-drop integrates its rate from the boot, the wg MTU
 * follows the timeline. */
static void test_confounders(void)
{
	scenario_t *sc = load("[group hub]\ncores = 3\nwg = wg0:2\nuptime = 1h\ncpu_frequency = 1400\n"
			      "demand = wg0 tx 400\ncost = wg0 tx 0.5 core 1\nwork = 20 core 1\n"
			      "at 100s: cpu_frequency 700, wan_queue_drops 12, wg_mtu 1280\n"
			      "at 200s: reboot, wan_queue_drops 0\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_NEAR(rate(r, 0, 1, 10, 20), 160, 1e-6);
	CHECK_NEAR(rate(r, 0, 1, 110, 120), 80, 1e-6);
	CHECK_INT(simrouter_core_load(r, 115, 1), 100);
	CHECK_INT(simrouter_wan_drops(r, 99), 0);
	CHECK_INT(simrouter_wan_drops(r, 150), 600);
	CHECK_INT(simrouter_wan_drops(r, 250), 0); /* counters restart at the reboot */
	const struct simmenu *ifs = simmenu_find("interface"), *res = simmenu_find("system/resource");
	struct simmenu_ctx c;
	struct simmenu_rec rec;
	double at[] = { 50, 150 };
	const char *mhz[] = { "1400", "700" }, *mtu[] = { "1420", "1280" };
	uint64_t drops[] = { 0, 600 };
	for (int i = 0; i < 2; i++) {
		simmenu_ctx_init(&c, r, at[i], 1700000000);
		memset(&rec, 0, sizeof(rec));
		res->fill(&c, 0, &rec);
		CHECK_STR(simmenu_get(&rec, "cpu-frequency"), mhz[i]);
		memset(&rec, 0, sizeof(rec));
		ifs->fill(&c, 0, &rec); /* ether1 */
		CHECK(field(&rec, "tx-queue-drop") == drops[i]);
		memset(&rec, 0, sizeof(rec));
		ifs->fill(&c, 4, &rec); /* wg0 */
		CHECK_STR(simmenu_get(&rec, "actual-mtu"), mtu[i]);
	}
	simrouter_destroy(r);
	scenario_free(sc);
}

/* A firewall core that handles wg0's packets: core 2 carries 10 % of work of its own plus
 * 0.3 %/Mbit/s of tx and 0.2 of rx, as other work (not WireGuard's), proportional to what the
 * tunnel carries; when it fills, it throttles the tunnel whose own core 0 has room. */
static void test_follow(void)
{
	scenario_t *sc = load("[group hub]\ncores = 3\nwg = wg0:2\nuptime = 0\n"
			      "demand = wg0 tx 100 rx 50\ncost = wg0 tx 0.2 rx 0.1 core 0\n"
			      "follow = wg0 tx 0.3 core 2, wg0 rx 0.2 core 2\nwork = 10 core 2\n"
			      "at 100s: demand wg0 tx 200 rx 50\n"
			      "at 200s: follow wg0 tx 0.8 core 2\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_NEAR(rate(r, 0, 1, 10, 20), 100, 1e-6);
	CHECK_INT(simrouter_core_load(r, 15, 2), 50); /* 10 + 0.3 x 100 + 0.2 x 50 */
	CHECK_INT(simrouter_core_load(r, 15, 0), 25);
	CHECK(simrouter_core_load(r, 15, 1) <= 2); /* idle */
	double parts[SC_PROF_PARTS];
	simrouter_core_parts(r, 15, 2, parts);
	CHECK_NEAR(parts[SC_PROF_WORK], 50, 1e-9); /* firewall, not WireGuard */
	CHECK_NEAR(parts[SC_PROF_TX] + parts[SC_PROF_RX], 0, 1e-12);
	simrouter_core_parts(r, 15, 0, parts);
	CHECK_NEAR(parts[SC_PROF_TX], 20, 1e-9);
	CHECK_NEAR(parts[SC_PROF_RX], 5, 1e-9);
	CHECK_INT(simrouter_core_load(r, 115, 2), 80); /* twice the tx: 10 + 60 + 10 */
	CHECK_INT(simrouter_core_load(r, 115, 0), 45);
	/* core 2 wants 10 + 0.8 x 200 = 170 > 100: tx carries 200 x 90 / 160 = 112.5, its core 0
	 * reads 0.2 x 112.5 + 0.1 x 50; rx has no follow work now and is not throttled */
	CHECK_NEAR(rate(r, 0, 1, 210, 220), 112.5, 1e-6);
	CHECK_NEAR(rate(r, 0, 0, 210, 220), 50, 1e-6);
	CHECK_INT(simrouter_core_load(r, 215, 2), 100);
	CHECK_INT(simrouter_core_load(r, 215, 0), 28); /* 27.5, rounded */
	/* a clean tunnel's capacity: the first of its cores to fill */
	CHECK_NEAR(simrouter_capacity(r, 15, 0, 1), fmin(100 / 0.2, 90 / 0.3), 1e-9);
	CHECK_NEAR(simrouter_capacity(r, 215, 0, 1), 90 / 0.8, 1e-9);
	CHECK_NEAR(simrouter_capacity(r, 215, 0, 0), 100 / 0.1, 1e-9);
	simrouter_destroy(r);
	scenario_free(sc);
}

/* follow on the timeline: a list that continues over commas and replaces the whole table. */
static void test_follow_timeline(void)
{
	scenario_t *sc = load("[group a]\ncores = 4\nwg = wg0:2, wg1:1\ncost = wg0 tx 0.2 core 0\n"
			      "follow = wg0 tx 0.08 rx 0.03 core 2\n"
			      "at 50s: version 7.22.3, follow wg0 tx 0.12 core 2, wg1 rx 0.05 core 1+3, "
			      "shared_noise 25\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	const struct sc_cpu *c0 = &sc->groups[0].phases[0].st.cpu, *c1 = &sc->groups[0].phases[1].st.cpu;
	CHECK_NEAR(c0->follow[0][1], 0.08, 1e-12);
	CHECK_NEAR(c0->follow[0][0], 0.03, 1e-12);
	CHECK(c0->nfcores[0][0] == 1 && c0->fcore[0][0][0] == 2);
	CHECK_NEAR(c0->shared_noise, 0, 1e-12);
	CHECK_NEAR(c1->follow[0][1], 0.12, 1e-12);
	CHECK_NEAR(c1->follow[0][0], 0, 1e-12); /* replaced: wg0 rx follows nothing now */
	CHECK_INT(c1->nfcores[0][0], 0);
	CHECK(c1->nfcores[1][0] == 2 && c1->fcore[1][0][1] == 3);
	CHECK_NEAR(c1->shared_noise, 0.25, 1e-12);
	CHECK(sc->groups[0].phases[1].reboot);
	scenario_free(sc);
}

/* shared_noise: one factor per noise cell for every interface and direction, on top of each
 * stream's own noise: with no noise of their own, the three streams' demands keep their ratio
 * in every slot while the factor moves from cell to cell within +-25 %. */
static void test_shared_noise(void)
{
	scenario_t *sc = load("[group a]\ncores = 2\nwg = wg0:1, wg1:1\n"
			      "demand = wg0 tx 100 rx 50, wg1 tx 40\n"
			      "cost = wg0 tx 0.01 rx 0.01 core 0, wg1 tx 0.01 core 1\n"
			      "shared_noise = 25\nnoise_every = 250ms\n"
			      "at 100s: noise 2\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simcpu_t *m = simcpu_create(&sc->groups[0], 42, 0);
	struct simcpu_slot s;
	double lo = 2, hi = 0;
	int same = 0, n = 0, close = 0;
	for (double t = 0.01; t < 50; t += 0.13, n++) {
		simcpu_slot_at(m, t, &s);
		double x = s.demand[0][1] / 100;
		same += fabs(s.demand[0][0] / 50 - x) < 1e-12 && fabs(s.demand[1][1] / 40 - x) < 1e-12;
		lo = fmin(lo, x), hi = fmax(hi, x);
	}
	CHECK_INT(same, n);
	CHECK(lo >= 0.75 && lo < 0.8 && hi < 1.25 && hi > 1.2);
	/* with noise 2 of their own they move together, apart by at most the 2 % each */
	for (double t = 100.01; t < 150; t += 0.13) {
		simcpu_slot_at(m, t, &s);
		double r = (s.demand[1][1] / 40) / (s.demand[0][1] / 100);
		close += r > 0.98 / 1.02 && r < 1.02 / 0.98 && fabs(r - 1) > 1e-9;
	}
	CHECK_INT(close, n);
	simcpu_destroy(m);
	scenario_free(sc);
}

/* noise = 0 and no swing: a fixed rate, as a bandwidth test offers. Demand and throughput are
 * the same in every slot, the counters grow by the same bytes each second, and the loads are
 * constant except for work_noise on the work (core 0's WireGuard part holds still). */
static void test_steady(void)
{
	scenario_t *sc = load("[group chr]\ncores = 4\nwg = wg0:4\nslot = 50ms\nnoise_every = 250ms\n"
			      "demand = wg0 tx 300 rx 200\ncost = wg0 tx 0.15 core 0+1 rx 0.15 core 2+3\n"
			      "work = 10\nwork_noise = 50\nnoise = 0\nswing = 0\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	int steady = 0, n = 0, load_moves = 0;
	double parts[SC_PROF_PARTS], tx0 = -1;
	for (double t = 1; t < 60; t += 0.25, n++) {
		steady += fabs(rate(r, 0, 1, t - 0.25, t) - 300) < 1e-6 &&
			fabs(rate(r, 0, 0, t - 0.25, t) - 200) < 1e-6;
		simrouter_core_parts(r, t, 0, parts);
		tx0 = tx0 < 0 ? parts[SC_PROF_TX] : tx0;
		steady -= fabs(parts[SC_PROF_TX] - 22.5) > 1e-9 ||
			parts[SC_PROF_TX] != tx0; /* 0.15 / 2 x 300 */
		load_moves += simrouter_core_load(r, t, 0) != simrouter_core_load(r, t - 0.25, 0);
	}
	CHECK_INT(steady, n);
	CHECK(load_moves > n / 2); /* work_noise 50 on 10 % of work: 5..15 */
	simrouter_destroy(r);
	scenario_free(sc);
}

/* A tunnel that changes core at the upgrade's reboot: its load leaves core 3 for core 5, the
 * counters restart, the rate holds. */
static void test_moved(void)
{
	scenario_t *sc = load("[group a]\ncores = 8\nwg = wg0:2\nversion = 7.21.5\n"
			      "demand = wg0 tx 150\ncost = wg0 tx 0.2 core 3\n"
			      "at 70s: version 7.22.3, cost wg0 tx 0.2 core 5\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_INT(simrouter_core_load(r, 60, 3), 30);
	CHECK(simrouter_core_load(r, 60, 5) <= 2);
	CHECK_INT(simrouter_core_load(r, 80, 5), 30);
	CHECK(simrouter_core_load(r, 80, 3) <= 2);
	CHECK_NEAR(rate(r, 0, 1, 71, 81), 150, 1e-6);
	CHECK_NEAR(simrouter_total_bytes(r, 71, 1), 150 * MBIT, 1e-3); /* a second since the reboot */
	CHECK_STR(simrouter_state(r, 80)->version, "7.22.3");
	simrouter_destroy(r);
	scenario_free(sc);
}

/* growth 2: the demand grows 2 % a week, compound, from simulated second 0: 100 Mbit/s is 102
 * a week on and 100 x 1.02^4 = 108.243 four weeks on. */
static void test_growth(void)
{
	scenario_t *sc = load("[group hub]\ncores = 2\nwg = wg0:1\nuptime = 1h\n"
			      "demand = wg0 tx 100\ncost = wg0 tx 0.1 core 1\ngrowth = 2%\n");
	CHECK(sc != NULL);
	if (!sc)
		return;
	simrouter_t *r = simrouter_create(sc, &sc->groups[0], 0, 0);
	CHECK_NEAR(rate(r, 0, 1, 0, 10), 100, 0.001);
	CHECK_NEAR(rate(r, 0, 1, 604795, 604805), 102, 0.001);
	CHECK_NEAR(rate(r, 0, 1, 4 * 604800 - 5, 4 * 604800 + 5), 108.243216, 0.001);
	simrouter_destroy(r);
	scenario_free(sc);
	want_error("[group a]\nwg = wg0:1\ngrowth = 2\n",
		"1: group a: demand, follow, work, noise, "
		"shared_noise, work_noise, burst and growth need a cost (the CPU model)");
	want_error(
		"[group a]\nwg = wg0:1\ncost = wg0 tx 0.1 core 0\ngrowth = 200\n", "4: bad value for growth");
}

int main(void)
{
	test_growth();
	test_ceiling();
	test_confounders();
	test_two_cores();
	test_pure();
	test_iface_is_sum_of_peers();
	test_bursts();
	test_errors();
	test_timeline_lists();
	test_load_window();
	test_follow();
	test_follow_timeline();
	test_shared_noise();
	test_steady();
	test_moved();
	return unit_done("simcpu");
}
