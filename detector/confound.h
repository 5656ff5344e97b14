/* SPDX-License-Identifier: Apache-2.0 */
/* confound: what moved across a version change besides the version (docs/detector.md,
 * "Confounders"). Pure: rows in, lines out; it calls nothing of the detector. */
#ifndef WGWATCH_CONFOUND_H
#define WGWATCH_CONFOUND_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct confound_row { /* one interface at one poll */
	int64_t t;
	bool reset, running;
	int64_t mtu; /* 0 unknown */
	uint64_t rx_err, tx_err, txq;
	uint64_t rx_pkts, tx_pkts; /* what the errors and drops are a share of */
};

struct confound_iface {
	char *name;
	bool wg;                   /* a WireGuard interface: counts for its own verdicts only */
	struct confound_row *rows; /* ascending time */
	size_t n, cap;
};

struct confound_cpu {
	int64_t t, mhz;
};

struct confound_set { /* one router's rows over the event's windows */
	struct confound_iface *ifs;
	size_t nifs, capifs;
	struct confound_cpu *cpu; /* polls that told their CPU clock */
	size_t ncpu, capcpu;
};

/* The confounders of interface ifc's verdicts across the version change at t (rows before t
 * against rows after it): the CPU clock, every interface that is not WireGuard's, and ifc
 * itself. One line each, joined by '\n'; "" when none. Caller frees. */
char *confound_list(const struct confound_set *x, int64_t t, const char *ifc);
void confound_set_free(struct confound_set *x);

#endif
