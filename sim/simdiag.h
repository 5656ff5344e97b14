/* SPDX-License-Identifier: Apache-2.0 */
/* simdiag: the diagnostic commands of a simulated router, POST /rest/tool/profile and
 * POST /rest/tool/bandwidth-test (docs/sim.md "Diagnostics"): their arguments, refusals and
 * the 60 s cut, and how long the reply is held. Pure: the caller holds the reply. */
#ifndef WGWATCH_SIMDIAG_H
#define WGWATCH_SIMDIAG_H

#include "sim/simrest.h"
#include "sim/simrouter.h"

#include <stdbool.h>

/* Whether path (after "/rest/") is one of the commands. */
bool simdiag_is_command(const char *path);
/* Run command q->path for r at simulated time t (scale simulated seconds a real one): the whole
 * reply into out, and out->hold the real seconds to hold it, as RouterOS answers at the end. */
void simdiag_handle(
	const simrouter_t *r, double t, double scale, const struct simreq *q, struct simresp *out);

#endif
