/* SPDX-License-Identifier: Apache-2.0 */
/* snmpstep: one SNMP poll as a chain of steps, apart from the transport, so that the daemon's
 * collector and wgwatch-fill's past ask the same requests in the same order and decode the
 * same answers. It must never do I/O or log; a bad answer is a cause for the caller. */
#include "config.h"
#include "collectors/netsnmp.h"

#include "collectors/snmpstep.h"
#include "collectors/snmpsess.h"
#include "lib/xmem.h"

sample_t *snmpstep_begin(snmpdecode_t *dec, const conf_router_t *rc, int64_t time_ms)
{
	sample_t *s = sample_new(rc->name, time_ms, "snmp");
	s->have_peers = false;  /* SNMP has no WireGuard peer objects */
	sample_set_cores(s, 0); /* an empty array, not NULL, until hrProcessorLoad rows come */
	snmpdecode_begin(dec, rc, s);
	return s;
}

/* Sensors change slowly: within HEALTHKEEP_EVERY_MS of the last walk the poll carries its
 * sensors (health_fresh false) and the walk is not made. Else the walk cursor is set up. */
static bool snmpstep_health_kept(struct snmpstep_poll *p)
{
	if (p->rc->rest != NULL && p->rc->rest[0] != '\0')
		return true; /* REST + SNMP: the REST half reads /system/health, the merge keeps it */
	if (healthkeep_use(p->health, p->s, p->rc->snmp))
		return true;
	snmpdecode_walk_start(p->dec, SNMPDECODE_HEALTH);
	return false;
}

/* Whether step has something to ask. Sets up the walk cursor for walks. */
static bool snmpstep_wanted(struct snmpstep_poll *p, enum snmpstep step)
{
	switch (step) {
	case SNMPSTEP_PROBE: return p->rc->snmp_version == 3 && !p->engine_known;
	case SNMPSTEP_DESCRS:
		if (snmpdecode_walked(p->dec) > 0)
			return false; /* ifName answered */
		snmpdecode_walk_start(p->dec, SNMPDECODE_DESCRS);
		return true;
	case SNMPSTEP_CPU: snmpdecode_walk_start(p->dec, SNMPDECODE_CPU); return true;
	case SNMPSTEP_NAMES: snmpdecode_walk_start(p->dec, SNMPDECODE_NAMES); return true;
	case SNMPSTEP_COUNTERS: return snmpdecode_nrows(p->dec) > 0;
	case SNMPSTEP_HEALTH: return !snmpstep_health_kept(p);
	default: return true;
	}
}

enum snmpstep snmpstep_first(struct snmpstep_poll *p)
{
	return snmpstep_wanted(p, SNMPSTEP_PROBE) ? SNMPSTEP_PROBE : snmpstep_next(p, SNMPSTEP_PROBE);
}

enum snmpstep snmpstep_next(struct snmpstep_poll *p, enum snmpstep step)
{
	step++;
	while (step < SNMPSTEP_N && !snmpstep_wanted(p, step))
		step++;
	return step;
}

/* A GET of the scalars or counters, a GETBULK (GETNEXT over SNMPv1) page of a walk. */
netsnmp_pdu *snmpstep_request(const struct snmpstep_poll *p, enum snmpstep step, uint64_t *idstate)
{
	bool walk = step == SNMPSTEP_CPU || step == SNMPSTEP_NAMES || step == SNMPSTEP_DESCRS ||
		step == SNMPSTEP_HEALTH;
	int cmd = !walk ? SNMP_MSG_GET : p->rc->snmp_version == 1 ? SNMP_MSG_GETNEXT : SNMP_MSG_GETBULK;
	netsnmp_pdu *pdu = snmpsess_pdu(idstate, cmd);
	if (pdu == NULL)
		return NULL;
	if (step == SNMPSTEP_SCALARS)
		snmpdecode_ask_scalars(p->dec, pdu);
	else if (step == SNMPSTEP_COUNTERS)
		snmpdecode_ask_counters(p->dec, pdu);
	else
		snmpdecode_ask_walk(p->dec, pdu);
	return pdu;
}

int snmpstep_reply(struct snmpstep_poll *p, enum snmpstep step, const netsnmp_pdu *pdu, char **cause)
{
	if (pdu->errstat != SNMP_ERR_NOERROR &&
		!(pdu->errstat == SNMP_ERR_NOSUCHNAME && p->rc->snmp_version == 1)) {
		*cause = xasprintf(
			"error-status %s (index %ld)", snmp_errstring(pdu->errstat), pdu->errindex);
		return -1;
	}
	switch (step) {
	case SNMPSTEP_SCALARS: return snmpdecode_scalars(p->dec, pdu, cause);
	case SNMPSTEP_CPU:
	case SNMPSTEP_NAMES:
	case SNMPSTEP_DESCRS:
	case SNMPSTEP_HEALTH: return snmpdecode_walk(p->dec, pdu, cause);
	case SNMPSTEP_COUNTERS: return snmpdecode_counters(p->dec, pdu, cause);
	default: *cause = xstrdup("unexpected answer"); return -1;
	}
}

void snmpstep_end(struct snmpstep_poll *p)
{
	snmpdecode_emit(p->dec);
	healthkeep_save(p->health, p->s, p->rc->snmp);
}

const char *snmpstep_name(enum snmpstep step)
{
	static const char *const names[SNMPSTEP_N] = {
		[SNMPSTEP_PROBE] = "engine ID probe",
		[SNMPSTEP_SCALARS] = "GET system scalars",
		[SNMPSTEP_CPU] = "walk hrProcessorLoad",
		[SNMPSTEP_NAMES] = "walk ifName",
		[SNMPSTEP_DESCRS] = "walk ifDescr",
		[SNMPSTEP_COUNTERS] = "GET interface counters",
		[SNMPSTEP_HEALTH] = "walk mtxrHealth",
	};
	return step < SNMPSTEP_N ? names[step] : "poll";
}
