/* SPDX-License-Identifier: Apache-2.0 */
/* confound_test: detector/confound.c, what else moved across a version change (CPU clock,
 * MTU, queue drops, errors, links down, resets) on hand-made polls (moved out of detector_test:
 * one test file per module). */
#include "config.h"
#include "detector/confound.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* ---- confounders: what else moved across the change ---- */

struct conf_case {
	const char *name;
	int mhz1, mhz2;     /* CPU clock before, after; 0 untold */
	const char *ifname; /* one more interface besides wg0 */
	bool wg;            /* ifname is WireGuard's */
	int mtu1, mtu2;     /* of ifname */
	double txq1, txq2;  /* ifname tx-queue-drop per second */
	double txe1, txe2;  /* ifname tx-error per second */
	double down2;       /* share of the after polls ifname is not running */
	bool reset;         /* ifname's counters restart half way through the after window */
	const char *want;   /* the list for wg0's verdicts */
	double pkt1, pkt2;  /* ifname's rx and tx packets per second; 0: none counted */
};

/* 100 polls a second apart on each side of the change at t = 100 s. */
static void conf_case_set(const struct conf_case *c, struct confound_set *x)
{
	memset(x, 0, sizeof(*x));
	x->ifs = xcalloc(2, sizeof(*x->ifs));
	x->nifs = 2;
	x->ifs[0] = (struct confound_iface){ .name = xstrdup(c->ifname), .wg = c->wg };
	x->ifs[1] = (struct confound_iface){ .name = xstrdup("wg0"), .wg = true };
	x->cpu = xcalloc(201, sizeof(*x->cpu));
	for (int i = 0; i < 2; i++)
		x->ifs[i].rows = xcalloc(201, sizeof(struct confound_row));
	double txq = 0, txe = 0, pkt = 0;
	for (int k = 0; k <= 200; k++) {
		bool after = k > 100;
		int64_t t = k * 1000LL;
		x->cpu[x->ncpu++] = (struct confound_cpu){ t, after ? c->mhz2 : c->mhz1 };
		if (c->reset && k == 150)
			txq = txe = 0;
		txq += after ? c->txq2 : c->txq1;
		txe += after ? c->txe2 : c->txe1;
		pkt += after ? c->pkt2 : c->pkt1;
		bool down = after && (k - 100) <= (int)(c->down2 * 100);
		x->ifs[0].rows[x->ifs[0].n++] = (struct confound_row){ .t = t,
			.reset = c->reset && k == 150,
			.running = !down,
			.mtu = after ? c->mtu2 : c->mtu1,
			.txq = (uint64_t)txq,
			.tx_err = (uint64_t)txe,
			.rx_pkts = (uint64_t)pkt,
			.tx_pkts = (uint64_t)pkt };
		x->ifs[1].rows[x->ifs[1].n++] = (struct confound_row){ .t = t, .running = true, .mtu = 1420 };
	}
}

static void test_confounders(void)
{
	static const struct conf_case cases[] = {
		{ "clean", 1400, 1400, "ether1", false, 1500, 1500, 0, 0, 0, 0, 0, false, "", 0, 0 },
		{ "cpu drop", 1400, 800, "ether1", false, 1500, 1500, 0, 0, 0, 0, 0, false,
			"cpu frequency 1400 → 800 MHz across the upgrade", 0, 0 },
		{ "cpu within 5%", 1400, 1350, "ether1", false, 1500, 1500, 0, 0, 0, 0, 0, false, "", 0, 0 },
		{ "cpu untold after", 1400, 0, "ether1", false, 1500, 1500, 0, 0, 0, 0, 0, false, "", 0, 0 },
		{ "wan drops", 1400, 1400, "ether1", false, 1500, 1500, 0, 12, 0, 0, 0, false,
			"ether1 tx-queue-drop rose from 0 to 12/s", 0, 0 },
		{ "wan drops fell", 1400, 1400, "ether1", false, 1500, 1500, 40, 2, 0, 0, 0, false,
			"ether1 tx-queue-drop fell from 40 to 2/s", 0, 0 },
		{ "drops under 1/s", 1400, 1400, "ether1", false, 1500, 1500, 0.2, 0.9, 0, 0, 0, false, "", 0,
			0 },
		{ "drops under 2x", 1400, 1400, "ether1", false, 1500, 1500, 10, 15, 0, 0, 0, false, "", 0,
			0 },
		{ "wan mtu", 1400, 1400, "ether1", false, 1500, 1480, 0, 0, 0, 0, 0, false,
			"ether1 MTU 1500 → 1480", 0, 0 },
		{ "wan down", 1400, 1400, "ether1", false, 1500, 1500, 0, 0, 0, 0, 0.5, false,
			"ether1 not running in 50% of the polls after, 0% before", 0, 0 },
		{ "another wg", 1400, 1400, "wg1", true, 1420, 1280, 0, 0, 0, 40, 0, false, "", 0, 0 },
		{ "reset", 1400, 1400, "ether1", false, 1500, 1500, 0, 0.5, 0, 0, 0, true, "", 0, 0 },
		{ "both", 1400, 800, "ether1", false, 1500, 1500, 0, 0, 0, 40, 0, false,
			"cpu frequency 1400 → 800 MHz across the upgrade\nether1 tx-error rose from 0 to 40/s",
			0, 0 },
		/* errors that fall with the packets (the upgrade cut the traffic): no confounder */
		{ "errors follow traffic", 1400, 1400, "ether1", false, 1500, 1500, 0, 0, 9, 3, 0, false, "",
			3000, 1000 },
		{ "errors per packet rose", 1400, 1400, "ether1", false, 1500, 1500, 0, 0, 1, 40, 0, false,
			"ether1 tx-error rose from 1 to 40/s", 1000, 1000 },
		{ "drops rose, packets too", 1400, 1400, "ether1", false, 1500, 1500, 2, 12, 0, 0, 0, false,
			"ether1 tx-queue-drop rose from 2 to 12/s", 1000, 1500 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct confound_set x;
		conf_case_set(&cases[i], &x);
		char *got = confound_list(&x, 100000, "wg0");
		if (strcmp(got, cases[i].want) != 0)
			printf("confounders %s: got \"%s\"\n", cases[i].name, got);
		CHECK_STR(got, cases[i].want);
		free(got);
		confound_set_free(&x);
	}
	/* wg1's own MTU and errors count for wg1's verdicts */
	struct confound_set x;
	conf_case_set(&cases[10], &x);
	char *got = confound_list(&x, 100000, "wg1");
	CHECK_STR(got, "wg1 MTU 1420 → 1280\nwg1 tx-error rose from 0 to 40/s");
	free(got);
	confound_set_free(&x);
}

int main(void)
{
	log_set_level(LOG_LVL_WARN);
	test_confounders();
	return unit_done("confound_test");
}
