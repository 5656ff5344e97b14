/* SPDX-License-Identifier: Apache-2.0 */
/* simsnmp_int: the MIB side of the SNMP agent (simmib.c) as simsnmp.c, the wire side, uses
 * it; for those two files only. */
#ifndef WGWATCH_SIMSNMP_INT_H
#define WGWATCH_SIMSNMP_INT_H

#include "sim/simrouter.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>

/* What answering needs across requests: the menus and the records of the request in hand. */
struct simmib {
	const struct simmenu *m_if, *m_rb, *m_health;
	struct simmenu_rec *recs; /* the interface records of the request being answered */
	oid *ifindex;
	int nrecs;
	struct simmenu_rec *health; /* the /system/health records of the request */
};

/* Find the menus and check (assert) that the object table is in OID order. */
void simmib_init(struct simmib *m);
void simmib_fini(struct simmib *m);
/* Turn the request pdu of r at simulated time t into its response. -1: no answer at all. */
int simmib_respond(struct simmib *m, const simrouter_t *r, netsnmp_pdu *pdu, double t);

#endif
