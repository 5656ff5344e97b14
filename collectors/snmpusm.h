/* SPDX-License-Identifier: Apache-2.0 */
/* snmpusm: SNMPv3 USM settings for collectors/snmpcoll.c's sessions (no I/O, no logging). */
#ifndef WGWATCH_SNMPUSM_H
#define WGWATCH_SNMPUSM_H

#include "daemon/conf.h"

struct snmp_session; /* net-snmp's netsnmp_session */

/* Sets ss (from snmp_sess_init) to version 3 with rc's user, level, protocols and passphrase
 * keys (Ku, localised after the engine probe). 0, or -1 with *cause (caller frees). */
int snmpusm_setup(struct snmp_session *ss, const conf_router_t *rc, char **cause);

#endif
