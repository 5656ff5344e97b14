/* SPDX-License-Identifier: Apache-2.0 */
/* snmpdecode: what one SNMP poll asks for and how the answers become a sample: the varbinds of
 * the requests (system scalars, walked columns, counter GETs) and the decoding of the varbinds
 * of replies. No I/O and no logging (a decoder fills a cause); the transport is snmpcoll.c, and
 * tests/fuzz/fuzz_snmp.c feeds it hostile PDUs. */
#ifndef WGWATCH_SNMPDECODE_H
#define WGWATCH_SNMPDECODE_H

#include <stddef.h>

#include "daemon/conf.h"
#include "daemon/sample.h"

struct snmp_pdu;      /* net-snmp's netsnmp_pdu; its headers clash with config.h, so not here */
struct variable_list; /* net-snmp's netsnmp_variable_list */

typedef struct snmpdecode snmpdecode_t;

enum snmpdecode_walk { SNMPDECODE_CPU, SNMPDECODE_NAMES, SNMPDECODE_DESCRS, SNMPDECODE_HEALTH };

snmpdecode_t *snmpdecode_create(void);
void snmpdecode_destroy(snmpdecode_t *d);
/* Starts a poll of rc into s; both are borrowed and must outlive the poll. */
void snmpdecode_begin(snmpdecode_t *d, const conf_router_t *rc, sample_t *s);
/* Ends a poll: forgets its rows, keeps the 32-bit counter state for the next one. */
void snmpdecode_end(snmpdecode_t *d);

/* Add the varbinds (NULL values) of a request to pdu. */
void snmpdecode_ask_scalars(const snmpdecode_t *d, struct snmp_pdu *pdu);
void snmpdecode_ask_walk(const snmpdecode_t *d, struct snmp_pdu *pdu);
void snmpdecode_ask_counters(const snmpdecode_t *d, struct snmp_pdu *pdu);
/* Starts a walk of a column: the next ask_walk asks for its first row. */
void snmpdecode_walk_start(snmpdecode_t *d, enum snmpdecode_walk col);

/* Replies to the matching request. 1: ask again (the next page, the next rows, or the scalars
 * without one an SNMPv1 agent lacks); 0: done; -1: unusable, *cause set (printable ASCII). */
int snmpdecode_scalars(snmpdecode_t *d, const struct snmp_pdu *pdu, char **cause);
int snmpdecode_walk(snmpdecode_t *d, const struct snmp_pdu *pdu, char **cause);
int snmpdecode_counters(snmpdecode_t *d, const struct snmp_pdu *pdu, char **cause);

/* An agent's string: printable ASCII only (others become '?'), at most 255 bytes (malloc'd). */
char *snmpdecode_text(const struct variable_list *v);
size_t snmpdecode_walked(const snmpdecode_t *d); /* rows of the current walk so far */
size_t snmpdecode_nrows(const snmpdecode_t *d);  /* interfaces picked by the name walks */
/* Appends the picked interfaces to the sample, 32-bit counters extended to 64 bits; after a
 * walk of SNMPDECODE_HEALTH also the sensors (health_fresh). */
void snmpdecode_emit(snmpdecode_t *d);

#endif
