/* SPDX-License-Identifier: Apache-2.0 */
/* snmpcoll: the SNMP collector (v1, v2c, v3 USM) on net-snmp's single-session async API, joined to
 * the daemon's loop: one UDP session per router; a GET of the scalars (sysDescr, sysUpTime,
 * MIKROTIK-MIB version, firmware, board), GETBULK walks of hrProcessorLoad and ifName, GETs of the
 * counters of the interfaces picked by name (docs/snmp.md). Never puts a community, a passphrase
 * or a key in a log line, an error string or a sample. */
#ifndef WGWATCH_SNMPCOLL_H
#define WGWATCH_SNMPCOLL_H

#include "daemon/collector.h"
#include "lib/loop.h"

typedef struct snmpcoll snmpcoll_t;

snmpcoll_t *snmpcoll_create(loop_t *loop); /* initialises net-snmp once (no config/MIB files read) */
void snmpcoll_destroy(snmpcoll_t *m); /* detaches the handles left: sessions close, polls end without done */
collector_t snmpcoll_collector(snmpcoll_t *m); /* the collector interface for the poller */

#endif
