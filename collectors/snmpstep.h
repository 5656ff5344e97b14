/* SPDX-License-Identifier: Apache-2.0 */
/* snmpstep: the order of an SNMP poll's requests, whatever carries them: which step comes next
 * (v3 engine probe, scalars, the walks, the counter GETs, the health walk once a minute), each
 * step's request PDU and its reply decoded, and the sample made at the end. snmpcoll.c drives it
 * over the wire, wgwatch-fill over the simulated agent in memory. No I/O, no logging. */
#ifndef WGWATCH_SNMPSTEP_H
#define WGWATCH_SNMPSTEP_H

#include <stdbool.h>
#include <stdint.h>

#include "collectors/healthkeep.h"
#include "collectors/snmpdecode.h"
#include "daemon/conf.h"
#include "daemon/sample.h"

struct snmp_pdu; /* net-snmp's netsnmp_pdu; its headers clash with config.h, so not here */

enum snmpstep {
	SNMPSTEP_PROBE,
	SNMPSTEP_SCALARS,
	SNMPSTEP_CPU,
	SNMPSTEP_NAMES,
	SNMPSTEP_DESCRS,
	SNMPSTEP_COUNTERS,
	SNMPSTEP_HEALTH,
	SNMPSTEP_N /* the poll is done */
};

/* One poll's state as the steps need it; every pointer borrowed. */
struct snmpstep_poll {
	const conf_router_t *rc;
	snmpdecode_t *dec;
	healthkeep_t *health;
	sample_t *s;
	bool engine_known; /* SNMPv3: the agent's engine ID is known, no probe */
};

/* A fresh sample of an SNMP poll of rc at time_ms (no peers, no cores yet), and the decoder
 * begun on it. */
sample_t *snmpstep_begin(snmpdecode_t *dec, const conf_router_t *rc, int64_t time_ms);
/* The poll's first step: the engine probe over SNMPv3 until the engine is known, else the
 * scalars; never SNMPSTEP_N. */
enum snmpstep snmpstep_first(struct snmpstep_poll *p);
/* The step after step with something to ask (its walk cursor set up); SNMPSTEP_N when none. */
enum snmpstep snmpstep_next(struct snmpstep_poll *p, enum snmpstep step);
/* The request of step (not the probe), its IDs drawn from *idstate. NULL without memory. */
struct snmp_pdu *snmpstep_request(const struct snmpstep_poll *p, enum snmpstep step, uint64_t *idstate);
/* A Response to step's request: 1 ask the step again, 0 step done, -1 *cause (caller frees). */
int snmpstep_reply(struct snmpstep_poll *p, enum snmpstep step, const struct snmp_pdu *pdu, char **cause);
/* After the last step: the interfaces and sensors into the sample, the sensors kept. */
void snmpstep_end(struct snmpstep_poll *p);
/* The step as error messages name it ("walk ifName"). */
const char *snmpstep_name(enum snmpstep step);

#endif
