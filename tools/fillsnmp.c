/* SPDX-License-Identifier: Apache-2.0 */
/* fillsnmp: an SNMP-only router's past for wgwatch-fill. The steps, requests and decoding are
 * the SNMP collector's (collectors/snmpstep.c); only the transport is replaced by a call to the
 * simulated agent's MIB at the poll's simulated second. A router the agent would not answer
 * (booting, hung; an SNMPv3 user, which wgwatch-sim does not serve) times out as over UDP. It
 * never opens a socket, and never makes up a value the agent did not answer. */
#include "config.h"
#include "collectors/netsnmp.h"

#include "tools/fillsnmp.h"
#include "collectors/healthkeep.h"
#include "collectors/snmpdecode.h"
#include "collectors/snmpsess.h"
#include "collectors/snmpstep.h"
#include "lib/xmem.h"
#include "sim/simsnmp_int.h"

#include <stdlib.h>

struct fillsnmp {
	struct simmib mib; /* the agent's state of the request in hand: one per thread */
};

struct fillsnmp_router {
	snmpdecode_t *dec;    /* its 32-bit counter state and last uptime, between polls */
	healthkeep_t *health; /* the last mtxrHealth walk */
	uint64_t idstate;
};

void fillsnmp_lib_init(void)
{
	snmpsess_lib_init();
}

fillsnmp_t *fillsnmp_create(void)
{
	fillsnmp_t *f = xcalloc(1, sizeof(*f));
	simmib_init(&f->mib);
	return f;
}

void fillsnmp_destroy(fillsnmp_t *f)
{
	if (f == NULL)
		return;
	simmib_fini(&f->mib);
	free(f);
}

fillsnmp_router_t *fillsnmp_router_create(void)
{
	fillsnmp_router_t *fr = xcalloc(1, sizeof(*fr));
	fr->dec = snmpdecode_create();
	fr->health = healthkeep_create();
	fr->idstate = 1;
	return fr;
}

void fillsnmp_router_destroy(fillsnmp_router_t *fr)
{
	if (fr == NULL)
		return;
	snmpdecode_destroy(fr->dec);
	healthkeep_destroy(fr->health);
	free(fr);
}

/* One poll in hand: the thread's agent, the router's kept state, its simulated second. */
struct fillsnmp_call {
	fillsnmp_t *f;
	fillsnmp_router_t *fr;
	const simrouter_t *r;
	double t;
	struct snmpstep_poll p;
};

/* The agent's answer to step's request, in place of a UDP exchange; NULL: none came. */
static netsnmp_pdu *fillsnmp_exchange(struct fillsnmp_call *c, enum snmpstep step)
{
	enum sc_fault fault = simrouter_fault(c->r, c->t);
	if (step == SNMPSTEP_PROBE || fault == SC_FAULT_REFUSE || fault == SC_FAULT_HANG)
		return NULL; /* wgwatch-sim's agent: v1/v2c only, silent while booting or hung */
	netsnmp_pdu *pdu = snmpstep_request(&c->p, step, &c->fr->idstate);
	if (pdu == NULL)
		return NULL;
	pdu->version = c->p.rc->snmp_version == 1 ? SNMP_VERSION_1 : SNMP_VERSION_2c;
	if (simmib_respond(&c->f->mib, c->r, pdu, c->t) < 0) {
		snmp_free_pdu(pdu);
		return NULL;
	}
	return pdu;
}

/* One step asked until done: 0, or -1 with the sample failed as snmpcoll fails it. */
static int fillsnmp_step(struct fillsnmp_call *c, enum snmpstep step)
{
	for (int more = 1; more > 0;) {
		netsnmp_pdu *pdu = fillsnmp_exchange(c, step);
		char *cause = NULL;
		if (pdu == NULL) {
			sample_fail(c->p.s, SAMPLE_ERR_TIMEOUT, "%s: no answer after %d tries",
				snmpstep_name(step), snmpsess_retries(c->p.rc) + 1);
			return -1;
		}
		more = snmpstep_reply(&c->p, step, pdu, &cause);
		snmp_free_pdu(pdu);
		if (more < 0) {
			sample_fail(c->p.s, SAMPLE_ERR_SNMP, "%s: %s", snmpstep_name(step), cause);
			free(cause);
			return -1;
		}
	}
	return 0;
}

sample_t *fillsnmp_poll(fillsnmp_t *f, fillsnmp_router_t *fr, const simrouter_t *r, const conf_router_t *rc,
	int64_t ms, double t)
{
	struct fillsnmp_call c = {
		.f = f, .fr = fr, .r = r, .t = t, .p = { .rc = rc, .dec = fr->dec, .health = fr->health }
	};
	c.p.s = snmpstep_begin(fr->dec, rc, ms);
	c.p.s->mono_ms = ms; /* the past's one clock: its health is kept a minute of it */
	c.p.s->duration_ms = 20;
	enum snmpstep step = snmpstep_first(&c.p);
	for (; step < SNMPSTEP_N; step = snmpstep_next(&c.p, step))
		if (fillsnmp_step(&c, step) < 0)
			break;
	if (step == SNMPSTEP_N)
		snmpstep_end(&c.p);
	snmpdecode_end(fr->dec);
	return c.p.s;
}
