/* SPDX-License-Identifier: Apache-2.0 */
/* diag_test: the /tool/profile decoder on both documented reply shapes and the guessed
 * variants (docs/diagnostics.md), and the profile scheduler with a runner that records its
 * calls: saturation runs, profile_every, upgrades, refusals, diag = no, and the fit between
 * polls under the poll's user; probes, and [daemon] max_probes across routers and over a
 * reload; the POST bodies. Includes daemon/diag.c to reach a router's clock marks. */
#include "config.h"
#include "collectors/restdiag.h"
#include "detector/profdiff.h"
#include "daemon/diag.c"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static double usage(const profile_t *p, int cpu, const char *name)
{
	const struct profile_row *r = profile_find(p, cpu, name);
	return r ? r->usage : -1;
}

/* The manual's shape, as composed in the research notes: frames told by .section, the first
 * two holding only a total row, per-core summary rows named cpuN without a cpu key. */
static const char shape_sections[] =
	"[{\".section\":\"0\",\"name\":\"total\",\"usage\":\"0\"},"
	"{\".section\":\"1\",\"name\":\"total\",\"usage\":\"0\"},"
	"{\".section\":\"2\",\"name\":\"networking\",\"cpu\":\"0\",\"usage\":\"12.5\"},"
	"{\".section\":\"2\",\"name\":\"wireguard\",\"cpu\":\"0\",\"usage\":\"6\"},"
	"{\".section\":\"2\",\"name\":\"cpu0\",\"usage\":\"100\"},"
	"{\".section\":\"2\",\"name\":\"networking\",\"cpu\":\"1\",\"usage\":\"3\"},"
	"{\".section\":\"2\",\"name\":\"cpu1\",\"usage\":\"9.5\"},"
	"{\".section\":\"3\",\"name\":\"networking\",\"cpu\":\"0\",\"usage\":\"13.5\"},"
	"{\".section\":\"3\",\"name\":\"cpu0\",\"usage\":\"98\"},"
	"{\".section\":\"3\",\"name\":\"cpu1\",\"usage\":\"10.5\"}]";

/* The other variants: usage with '%', cpu as "cpuN", idle rows, a whole-router total, no
 * .section (frames told by a repeated core and classifier). */
static const char shape_percent[] = "[{\"name\":\"total\",\"usage\":\"3%\"},"
				    "{\"name\":\"total\",\"cpu\":\"\",\"usage\":\"3%\"},"
				    "{\"name\":\"total\",\"usage\":\"50%\"},"
				    "{\"name\":\"networking\",\"cpu\":\"cpu4\",\"usage\":\"90%\"},"
				    "{\"name\":\"idle\",\"cpu\":\"cpu4\",\"usage\":\"10%\"},"
				    "{\"name\":\"encrypting\",\"cpu\":\"cpu2\",\"usage\":\"9%\"},"
				    "{\"name\":\"idle\",\"cpu\":\"cpu2\",\"usage\":\"91%\"},"
				    "{\"name\":\"total\",\"usage\":\"52%\"},"
				    "{\"name\":\"networking\",\"cpu\":\"cpu4\",\"usage\":\"92 %\"},"
				    "{\"name\":\"idle\",\"cpu\":\"cpu4\",\"usage\":\"8%\"},"
				    "{\"name\":\"encrypting\",\"cpu\":\"cpu2\",\"usage\":\"11%\"},"
				    "{\"name\":\"idle\",\"cpu\":\"cpu2\",\"usage\":\"89%\"}]";

static void test_decode_sections(void)
{
	profile_t *p = profile_new("r", 1);
	char *cause = NULL;
	CHECK_INT(restdiag_decode_profile(shape_sections, strlen(shape_sections), p, &cause), 0);
	CHECK(cause == NULL);
	CHECK(NEAR(usage(p, 0, "networking"), 13.0)); /* (12.5 + 13.5) / 2 frames */
	CHECK(NEAR(usage(p, 0, "wireguard"), 3.0));   /* absent from frame 3: 0 there */
	CHECK(NEAR(usage(p, 0, "total"), 99.0));      /* cpu0 summary rows */
	CHECK(NEAR(usage(p, 1, "total"), 10.0));
	CHECK(usage(p, -1, "total") < 0); /* the two leading frames are dropped */
	CHECK_INT(profile_busiest(p), 0);
	profile_free(p);
}

static void test_decode_percent(void)
{
	profile_t *p = profile_new("r", 1);
	char *cause = NULL;
	CHECK_INT(restdiag_decode_profile(shape_percent, strlen(shape_percent), p, &cause), 0);
	/* a repeated whole-router total starts frames 2, 3 and 4: 3 and 4 are kept */
	CHECK(NEAR(usage(p, 4, "networking"), 91.0));
	CHECK(NEAR(usage(p, 2, "encrypting"), 10.0));
	CHECK(NEAR(usage(p, -1, "total"), 51.0));
	CHECK_INT(profile_busiest(p), 4); /* no summary rows: the sum of classifiers but idle */
	profile_free(p);
	/* numbers as JSON numbers, cpu as a number, two frames only: both kept */
	const char *nums = "[{\"name\":\"networking\",\"cpu\":1,\"usage\":40},"
			   "{\"name\":\"networking\",\"cpu\":1,\"usage\":60}]";
	p = profile_new("r", 1);
	CHECK_INT(restdiag_decode_profile(nums, strlen(nums), p, &cause), 0);
	CHECK(NEAR(usage(p, 1, "networking"), 50.0));
	profile_free(p);
}

static void test_decode_bad(void)
{
	static const char *const bad[] = {
		"not json",
		"{\"error\":400,\"message\":\"Bad Request\"}",
		"[]",
		"[{\"name\":\"x\",\"usage\":\"lots\"},{\"usage\":\"3\"}]",
		/* more than a whole core: no router says so (issue 39, item 7) */
		"[{\"cpu\":\"0\",\"name\":\"firewall\",\"usage\":\"500%\"}]",
		"[{\"cpu\":\"0\",\"name\":\"firewall\",\"usage\":\"1e308\"},"
		"{\"cpu\":\"0\",\"name\":\"dns\",\"usage\":\"1e308\"}]",
		"[{\"cpu\":\"1\",\"name\":\"idle\",\"usage\":9.2e18}]",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		profile_t *p = profile_new("r", 1);
		char *cause = NULL;
		CHECK_INT(restdiag_decode_profile(bad[i], strlen(bad[i]), p, &cause), -1);
		CHECK(cause != NULL);
		free(cause);
		profile_free(p);
	}
}

/* The vendor's example shape (a record a second, the last "done testing"), transmit and both. */
static const char bt_transmit[] =
	"[{\".section\":\"0\",\"connection-count\":\"1\",\"direction\":\"transmit\",\"status\":\"connecting\"},"
	"{\".section\":\"1\",\"direction\":\"transmit\",\"duration\":\"1s\",\"status\":\"running\","
	"\"tx-current\":\"150000000\",\"tx-total-average\":\"150000000\"},"
	"{\".section\":\"2\",\"direction\":\"transmit\",\"duration\":\"2s\",\"local-cpu-load\":\"45%\","
	"\"remote-cpu-load\":\"4\",\"status\":\"done testing\",\"tx-current\":\"128000000\","
	"\"tx-total-average\":\"139000000\"}]";
static const char bt_both[] =
	"[{\".section\":\"0\",\"status\":\"connecting\"},"
	"{\".section\":\"3\",\"duration\":\"3s\",\"lost-packets\":\"9014\",\"rx-total-average\":\"891979008\","
	"\"status\":\"done testing\",\"tx-total-average\":\"300000000\"}]";

static void test_decode_probe(void)
{
	probe_t *p[2] = { probe_new("r", 1, "transmit"), NULL };
	char *cause = NULL;
	CHECK_INT(restdiag_decode_probe(bt_transmit, strlen(bt_transmit), p, &cause), 0);
	CHECK(p[0]->delivered_bps == 139000000);
	CHECK(NEAR(p[0]->local_cpu_load, 0.45) && NEAR(p[0]->remote_cpu_load, 0.04));
	CHECK_INT(p[0]->lost_packets, -1); /* the client counts no loss of what it sends */
	probe_free(p[0]);
	p[0] = probe_new("r", 1, "transmit");
	p[1] = probe_new("r", 1, "receive");
	CHECK_INT(restdiag_decode_probe(bt_both, strlen(bt_both), p, &cause), 0);
	CHECK(p[0]->delivered_bps == 300000000 && p[1]->delivered_bps == 891979008);
	CHECK_INT(p[0]->lost_packets, -1);
	CHECK_INT(p[1]->lost_packets, 9014);
	probe_free(p[0]);
	probe_free(p[1]);
	static const struct {
		const char *body;
		int rc;
		const char *cause;
	} bad[] = {
		{ "[{\"status\":\"connecting\"},{\"status\":\"can not connect\"}]", -1,
			"bandwidth-test: can not connect" },
		{ "[{\"status\":\"not allowed by device-mode\"}]", 1,
			"bandwidth-test: not allowed by device-mode" },
		{ "[{\"status\":\"done testing\"}]", -1,
			"bandwidth-test: no tx-total-average in the last record" },
		{ "{}", -1, "bandwidth-test: not an array of records with a status" },
		/* figures no 300 Mbit/s test can produce (issue 39, item 7) */
		{ "[{\"status\":\"done testing\",\"tx-total-average\":\"1e308\"}]", -1,
			"bandwidth-test: 1e+308 bit/s delivered of 3e+08 offered" },
		{ "[{\"status\":\"done testing\",\"tx-total-average\":\"300000000\",\"lost-packets\":\"1e30\"}]",
			-1, "bandwidth-test: 1e+30 packets lost in a second of 3e+08 bit/s" },
		{ "[{\"status\":\"done testing\",\"tx-total-average\":\"300000000\",\"local-cpu-load\":\"1e306\"}]",
			-1, "bandwidth-test: a CPU load of 1e+306 %" },
		{ "[{\"status\":\"done testing\",\"tx-total-average\":\"300000000\",\"remote-cpu-load\":\"500%\"}]",
			-1, "bandwidth-test: a CPU load of 500 %" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p[0] = probe_new("r", 1, "transmit");
		p[0]->offered_bps = 300e6;
		p[1] = NULL;
		cause = NULL;
		CHECK_INT(restdiag_decode_probe(bad[i].body, strlen(bad[i].body), p, &cause), bad[i].rc);
		CHECK_STR(cause, bad[i].cause);
		free(cause);
		probe_free(p[0]);
	}
}

/* ---- the scheduler, with a runner that records and answers on demand ---- */

static int runs;
static diag_done_fn pending_done;
static void *pending_arg;
static char pending_router[64];
static profile_t *handed;

static int fake_profile(void *ctx, const conf_router_t *rc, diag_done_fn done, void *arg)
{
	runs++;
	pending_done = done;
	pending_arg = arg;
	snprintf(pending_router, sizeof(pending_router), "%s", rc->name);
	return 0;
}

static void fake_answer(enum diag_status st)
{
	profile_t *p = st == DIAG_OK ? profile_new(pending_router, 1) : NULL;
	if (p)
		profile_add(p, 0, "networking", 50);
	pending_done(pending_router, st, p, "HTTP 400 Bad Request: no such command", pending_arg);
}

static int probes_started;
static diag_probe_fn probe_pending;
static void *probe_arg;
static probe_t *probe_handed;

static int fake_probe(void *ctx, const conf_router_t *rc, diag_probe_fn done, void *arg)
{
	probes_started++;
	probe_pending = done;
	probe_arg = arg;
	return 0;
}

static void on_probe(void *ctx, probe_t *p)
{
	probe_free(probe_handed);
	probe_handed = p;
}

static void on_profile(void *ctx, profile_t *p)
{
	profile_free(handed);
	handed = p;
}

static void poll_of(
	diag_t *d, const char *router, const char *version, double load, int64_t duration_ms, bool ok)
{
	sample_t *s = sample_new(router, 1, "rest");
	s->version = xstrdup(version);
	sample_set_cores(s, 2);
	s->cores[1].load = load;
	s->duration_ms = duration_ms;
	if (!ok)
		sample_fail(s, SAMPLE_ERR_TIMEOUT, "timeout");
	diag_note_poll(d, s);
	sample_free(s);
}

static void poll(diag_t *d, const char *version, double load, int64_t duration_ms, bool ok)
{
	poll_of(d, "r", version, load, duration_ms, ok);
}

static void test_schedule(void)
{
	char name[] = "r", rest[] = "http://x", user[] = "d";
	conf_router_t rc = { .name = name,
		.rest = rest,
		.diag = true,
		.diag_user = user,
		.interval_ms = 1000,
		.profile_every_ms = 3600000,
		.profile_duration_ms = 5000 };
	conf_t conf = { .routers = &rc, .nrouters = 1, .saturated = 0.9 };
	diag_t *d = diag_create(
		&conf, (diag_runner_t){ .profile = fake_profile }, (diag_sink_t){ .profile = on_profile });
	poll(d, "7.21.5", 0.95, 10, true);
	poll(d, "7.21.5", 0.95, 10, true);
	poll(d, "7.21.5", 0.5, 10, true); /* the run is broken */
	poll(d, "7.21.5", 0.95, 10, true);
	poll(d, "7.21.5", 0.95, 10, false); /* a failed poll breaks it too */
	CHECK_INT(runs, 0);
	for (int i = 0; i < 3; i++)
		poll(d, "7.21.5", 0.95, 10, true);
	CHECK_INT(runs, 1);
	poll(d, "7.21.5", 0.95, 10, true); /* busy: not twice at once */
	CHECK_INT(runs, 1);
	fake_answer(DIAG_OK);
	CHECK(handed != NULL && strcmp(handed->router, "r") == 0);
	poll(d, "7.21.5", 0.95, 10, true); /* younger than profile_every */
	CHECK_INT(runs, 1);
	diag_find(d, "r")->last_ok_ms -= rc.profile_every_ms;
	poll(d, "7.21.5", 0.95, 10, true);
	CHECK_INT(runs, 2);
	fake_answer(DIAG_REFUSED);
	diag_find(d, "r")->last_ok_ms -= rc.profile_every_ms;
	poll(d, "7.21.5", 0.95, 10, true); /* refused: not again before profile_every */
	CHECK_INT(runs, 2);
	diag_find(d, "r")->last_bad_ms -= rc.profile_every_ms;
	poll(d, "7.21.5", 0.95, 10, true);
	CHECK_INT(runs, 3);
	fake_answer(DIAG_OK);
	/* an upgrade: a profile after 3 answered polls, whatever the load and profile_every */
	poll(d, "7.22.3", 0.1, 10, true);
	poll(d, "7.22.3", 0.1, 10, true);
	CHECK_INT(runs, 3);
	poll(d, "7.22.3", 0.1, 10, true);
	CHECK_INT(runs, 4);
	fake_answer(DIAG_OK);
	poll(d, "7.22.3", 0.1, 10, true); /* once per upgrade */
	CHECK_INT(runs, 4);
	/* that one saw no saturated core: the first saturated moment after it gets one more,
	 * though profile_every has not passed; then profile_every holds again */
	poll(d, "7.22.3", 0.95, 10, true);
	poll(d, "7.22.3", 0.95, 10, true);
	CHECK_INT(runs, 4);
	poll(d, "7.22.3", 0.95, 10, true);
	CHECK_INT(runs, 5);
	fake_answer(DIAG_OK);
	for (int i = 0; i < 3; i++)
		poll(d, "7.22.3", 0.95, 10, true);
	CHECK_INT(runs, 5);
	/* a restart: the database's newest profile, 10 minutes old, stands for profile_every */
	diag_find(d, "r")->last_ok_ms = 0; /* as a restart leaves it */
	diag_seed(d, "r", clock_wall_ms() - 600000, 0);
	CHECK(diag_find(d, "r")->last_ok_ms != 0); /* negative on a host booted < 10 min ago */
	/* one taken before the host booted is a time still, a second before the boot's */
	int64_t boot_wall = clock_wall_ms() - clock_mono_ms();
	CHECK(diag_mono_of(boot_wall - 1000) < 0 && diag_mono_of(boot_wall - 1000) >= -1002);
	CHECK(diag_mono_of(clock_wall_ms() + 60000) <= clock_mono_ms()); /* never in the future */
	CHECK_INT(diag_mono_of(0), 0);
	poll(d, "7.22.3", 0.95, 10, true);
	poll(d, "7.22.3", 0.95, 10, true);
	poll(d, "7.22.3", 0.95, 10, true);
	CHECK_INT(runs, 5);
	/* diag = no */
	rc.diag = false;
	poll(d, "7.22.4", 0.99, 10, true);
	poll(d, "7.22.4", 0.99, 10, true);
	poll(d, "7.22.4", 0.99, 10, true);
	CHECK_INT(runs, 5);
	/* no diag_user: a 5 s profile does not fit between 1 s polls; it does between 30 s ones */
	rc.diag = true;
	rc.diag_user = NULL;
	diag_find(d, "r")->last_ok_ms -= rc.profile_every_ms;
	for (int i = 0; i < 3; i++)
		poll(d, "7.22.4", 0.99, 10, true);
	CHECK_INT(runs, 5);
	rc.interval_ms = 30000;
	poll(d, "7.22.4", 0.99, 10, true);
	CHECK_INT(runs, 6);
	fake_answer(DIAG_OK);
	diag_destroy(d);
	profile_free(handed);
	handed = NULL;
}

/* The CCR1009's case: networking rose on the pinned core while encrypting held. */
static void test_profdiff(void)
{
	profile_t *b = profile_new("r", 1000), *a = profile_new("r", 3000), *old = profile_new("r", 500);
	profile_add(b, 4, "networking", 38);
	profile_add(b, 4, "encrypting", 9);
	profile_add(b, 4, "idle", 53);
	profile_add(b, 4, "total", 47);
	profile_add(b, 1, "networking", 5);
	profile_add(a, 4, "networking", 91);
	profile_add(a, 4, "encrypting", 10);
	profile_add(a, 4, "total", 100);
	profile_add(a, 1, "networking", 50);
	char *t = profdiff_text(b, a);
	/* across cores (5 of them, 0..4): networking (5 + 38) / 5 -> (50 + 91) / 5, encrypting 9/5 -> 10/5 */
	CHECK_STR(t,
		"networking 38 % \xe2\x86\x92 91 % on cpu4, encrypting 9 % \xe2\x86\x92 10 %; across cores: "
		"networking 9 % \xe2\x86\x92 28 %, encrypting 2 % \xe2\x86\x92 2 %");
	free(t);
	a->duration_ms = 500;           /* started at 2500 */
	profile_t *v[] = { a, b, old }; /* newest first */
	CHECK(profdiff_pick(v, 3, 2000, false) == b);
	CHECK(profdiff_pick(v, 3, 2000, true) == a);
	CHECK(profdiff_pick(v, 3, 400, false) == NULL);
	CHECK(profdiff_pick(v, 3, 400, true) == old);
	CHECK(profdiff_pick(v, 3, 4000, true) == NULL);
	CHECK(profdiff_pick(v, 3, 2700, true) == NULL); /* a spans 2700: neither side */
	CHECK(profdiff_pick(v, 3, 2700, false) == b);
	profile_free(a);
	profile_free(b);
	profile_free(old);
}

/* Probes: after an upgrade once 3 polls answered, never beside a profile of the router, the
 * busiest core of the polls during it, and no more than max_probes at once. */
static void test_schedule_probe(void)
{
	char name[] = "r", rest[] = "http://x", user[] = "d", addr[] = "10.64.0.2", dir[] = "transmit";
	conf_router_t rc = { .name = name,
		.rest = rest,
		.diag = true,
		.diag_user = user,
		.interval_ms = 1000,
		.profile_every_ms = 3600000,
		.profile_duration_ms = 5000,
		.probe = addr,
		.probe_direction = dir,
		.probe_duration_ms = 10000 };
	conf_t conf = { .routers = &rc, .nrouters = 1, .saturated = 0.9, .max_probes = 2 };
	diag_t *d = diag_create(&conf, (diag_runner_t){ .profile = fake_profile, .probe = fake_probe },
		(diag_sink_t){ .profile = on_profile, .probe = on_probe });
	int runs0 = runs;
	for (int i = 0; i < 4; i++)
		poll(d, "7.21.5", 0.5, 10, true);
	CHECK_INT(probes_started, 0); /* no probe_every: after upgrades only */
	poll(d, "7.22.3", 0.5, 10, true);
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 0);
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 1);
	CHECK_INT(runs, runs0); /* the upgrade's profile waits for the probe */
	poll(d, "7.22.3", 0.7, 10, true);
	poll(d, "7.22.3", 0.6, 10, true);
	probe_t *p[2] = { probe_new("r", 1, "transmit"), NULL };
	p[0]->delivered_bps = 1.39e8;
	probe_pending("r", DIAG_OK, p, NULL, probe_arg);
	CHECK(probe_handed != NULL && NEAR(probe_handed->busiest_core_load, 0.7));
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(runs, runs0 + 1);   /* now the profile */
	CHECK_INT(probes_started, 1); /* once per upgrade */
	fake_answer(DIAG_OK);
	/* the fleet-wide cap */
	d->probes = (size_t)conf.max_probes;
	rc.probe_every_ms = 60000;
	diag_find(d, "r")->probe_ok_ms -= 60000;
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 1);
	d->probes = 0;
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 2);
	p[0] = NULL;
	probe_pending("r", DIAG_FAILED, p, "bandwidth-test: can not connect", probe_arg);
	/* on demand: after the next poll, whatever probe_every and the failure just now say */
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 2);
	diag_demand_probe(d, "r");
	diag_demand_probe(d, "nosuch");
	CHECK_INT(probes_started, 2);
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 3);
	probe_pending("r", DIAG_FAILED, p, "bandwidth-test: can not connect", probe_arg);
	poll(d, "7.22.3", 0.5, 10, true);
	CHECK_INT(probes_started, 3); /* once per demand */
	diag_destroy(d);
	probe_free(probe_handed);
	probe_handed = NULL;
	profile_free(handed);
	handed = NULL;
}

/* ---- [daemon] max_probes across routers, with a runner that keeps every probe started ---- */

#define CAP_ROUTERS 4

static char cap_started[CAP_ROUTERS][8]; /* routers whose probe runs, in start order */
static size_t cap_nstarted, cap_total;
static diag_probe_fn cap_done;
static void *cap_arg;

static int cap_probe(void *ctx, const conf_router_t *rc, diag_probe_fn done, void *arg)
{
	snprintf(cap_started[cap_nstarted++], sizeof(cap_started[0]), "%s", rc->name);
	cap_total++;
	cap_done = done;
	cap_arg = arg;
	return 0;
}

/* The oldest probe running ends well. */
static void cap_end_first(void)
{
	char name[8];
	snprintf(name, sizeof(name), "%s", cap_started[0]);
	memmove(cap_started[0], cap_started[1], --cap_nstarted * sizeof(cap_started[0]));
	probe_t *p[2] = { probe_new(name, 1, "transmit"), NULL };
	cap_done(name, DIAG_OK, p, NULL, cap_arg);
}

/* Every router answers a poll, n times over. */
static void cap_polls(diag_t *d, const conf_t *conf, int n)
{
	for (int k = 0; k < n; k++)
		for (size_t i = 0; i < conf->nrouters; i++)
			poll_of(d, conf->routers[i].name, "7.21.5", 0.5, 10, true);
}

/* nrouters routers, every one due (probe_every, 3 polls answered) under max_probes = cap. */
static diag_t *cap_setup(conf_t *conf, conf_router_t *rc, size_t nrouters, int cap)
{
	static char names[CAP_ROUTERS][4] = { "r1", "r2", "r3", "r4" };
	static char rest[] = "http://x", user[] = "d", addr[] = "10.64.0.2", dir[] = "transmit";
	for (size_t i = 0; i < nrouters; i++)
		rc[i] = (conf_router_t){ .name = names[i],
			.rest = rest,
			.diag = true,
			.diag_user = user,
			.interval_ms = 1000,
			.profile_every_ms = 3600000,
			.profile_duration_ms = 5000,
			.probe = addr,
			.probe_direction = dir,
			.probe_duration_ms = 10000,
			.probe_every_ms = 3600000 };
	*conf = (conf_t){ .routers = rc, .nrouters = nrouters, .saturated = 0.9, .max_probes = cap };
	cap_nstarted = cap_total = 0;
	return diag_create(conf, (diag_runner_t){ .profile = fake_profile, .probe = cap_probe },
		(diag_sink_t){ .profile = on_profile, .probe = on_probe });
}

/* max_probes = 1: of two routers due, one probe runs until it ends, then the other's. */
static void test_probe_cap_one(void)
{
	conf_router_t rc[CAP_ROUTERS];
	conf_t conf;
	diag_t *d = cap_setup(&conf, rc, 2, 1);
	cap_polls(d, &conf, 3);
	CHECK_INT(cap_total, 1);
	CHECK_STR(cap_started[0], "r1");
	cap_polls(d, &conf, 5);
	CHECK_INT(cap_total, 1); /* r2 waits */
	cap_end_first();
	cap_polls(d, &conf, 1);
	CHECK_INT(cap_total, 2);
	CHECK_STR(cap_started[0], "r2");
	cap_end_first();
	cap_polls(d, &conf, 3);
	CHECK_INT(cap_total, 2); /* both probed within probe_every */
	diag_destroy(d);
}

/* max_probes = 3: of four routers due, three run; a reload to 1 lets them end before the 4th. */
static void test_probe_cap_three(void)
{
	conf_router_t rc[CAP_ROUTERS];
	conf_t conf;
	diag_t *d = cap_setup(&conf, rc, 4, 3);
	cap_polls(d, &conf, 3);
	CHECK_INT(cap_total, 3);
	cap_polls(d, &conf, 2);
	CHECK_INT(cap_total, 3);
	conf_t one = conf;
	one.max_probes = 1;
	diag_reconfigure(d, &one);
	cap_end_first();
	cap_polls(d, &one, 1);
	CHECK_INT(cap_total, 3); /* two still run: more than 1 */
	cap_end_first();
	cap_polls(d, &one, 1);
	CHECK_INT(cap_total, 3);
	cap_end_first();
	cap_polls(d, &one, 1);
	CHECK_INT(cap_total, 4);
	CHECK_STR(cap_started[0], "r4");
	cap_end_first();
	diag_destroy(d);
	probe_free(probe_handed);
	probe_handed = NULL;
}

/* The POST bodies, written with lib/jsonw: the JSON jansson's compact printer wrote before, odd
 * text escaped, a user or password that is not UTF-8 left out, an address that is not refused. */
static void test_bodies(void)
{
	char *b = restdiag_profile_body(7500);
	CHECK_STR(b, "{\"cpu\":\"all\",\"duration\":\"7s\"}");
	free(b);
	conf_router_t rc = { .name = (char *)"r",
		.probe = (char *)"192.0.2.9",
		.probe_protocol = (char *)"udp",
		.probe_direction = (char *)"both",
		.probe_rate_bps = 300000000,
		.probe_user = (char *)"bt\"u\\",
		.probe_password = (char *)"p\x01\xc3\xa9" };
	/* the bytes jansson's json_dumps(JSON_COMPACT) wrote for the same object */
	b = restdiag_probe_body(&rc, 10000);
	CHECK_STR(b,
		"{\"address\":\"192.0.2.9\",\"protocol\":\"udp\",\"direction\":\"both\",\"duration\":\"10s\","
		"\"connection-count\":\"1\",\"local-tx-speed\":\"300000000\",\"remote-tx-speed\":\"300000000\","
		"\"local-udp-tx-size\":\"1420\",\"remote-udp-tx-size\":\"1420\",\"user\":\"bt\\\"u\\\\\","
		"\"password\":\"p\\u0001\xc3\xa9\"}");
	free(b);
	rc.probe_protocol = (char *)"tcp";
	rc.probe_direction = (char *)"transmit";
	rc.probe_password = (char *)"\xff";
	b = restdiag_probe_body(&rc, 10000);
	CHECK_STR(b,
		"{\"address\":\"192.0.2.9\",\"protocol\":\"tcp\",\"direction\":\"transmit\",\"duration\":\"10s\","
		"\"connection-count\":\"1\",\"local-tx-speed\":\"300000000\",\"user\":\"bt\\\"u\\\\\"}");
	free(b);
	rc.probe = (char *)"\xc0\x80";
	CHECK(restdiag_probe_body(&rc, 10000) == NULL);
}

int main(void)
{
	test_bodies();
	test_decode_probe();
	test_profdiff();
	test_decode_sections();
	test_decode_percent();
	test_decode_bad();
	test_schedule();
	test_schedule_probe();
	test_probe_cap_one();
	test_probe_cap_three();
	return unit_done("diag_test");
}
