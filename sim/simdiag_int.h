/* SPDX-License-Identifier: Apache-2.0 */
/* simdiag_int: what simdiag.c (the commands' arguments, refusals and limits), simprof.c
 * (/tool/profile frames) and simbtest.c (/tool/bandwidth-test records) share; for those only. */
#ifndef WGWATCH_SIMDIAG_INT_H
#define WGWATCH_SIMDIAG_INT_H

#include "lib/buf.h"
#include "sim/simrouter.h"

#include <stdbool.h>

#define SIMPROF_ALL   (-1) /* cpu=all */
#define SIMPROF_TOTAL (-2) /* cpu=total */

struct simprof_args {
	int cpu;         /* a core, SIMPROF_ALL or SIMPROF_TOTAL */
	double duration; /* real seconds */
	double interval; /* freeze-frame-interval, real seconds */
};

enum simbtest_dir { SIMBTEST_RECEIVE = 1, SIMBTEST_TRANSMIT = 2, SIMBTEST_BOTH = 3 };

struct simbtest_args {
	char address[64];
	bool tcp;
	enum simbtest_dir dir;
	double local_bps, remote_bps; /* 0: unlimited */
	double duration;              /* real seconds */
	int udp_size[2];              /* [0] remote (rx), [1] local (tx) UDP packet size */
	int connections;
	bool random_data;
	const char *user, *password; /* into the request's JSON, not owned */
};

/* The frames of a profile of r that starts at simulated time t, scale simulated seconds a real
 * one, as a JSON array into out. */
void simprof_reply(const simrouter_t *r, double t, double scale, const struct simprof_args *a, buf_t *out);
/* The records of a bandwidth test as a JSON array into out; *hold: the real seconds it takes. */
void simbtest_reply(const simrouter_t *r, double t, double scale, const struct simbtest_args *a, buf_t *out,
	double *hold);

#endif
