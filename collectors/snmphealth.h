/* SPDX-License-Identifier: Apache-2.0 */
/* snmphealth: MIKROTIK-MIB's health subtree (mtxrHealth, 1.3.6.1.4.1.14988.1.1.3) as walked by an
 * SNMP poll: the rows of mtxrGaugeTable, else the legacy mtxrHl* scalars, made sensors of a
 * sample. No I/O, no logging; snmpdecode.c feeds it the walk's varbinds. */
#ifndef WGWATCH_SNMPHEALTH_H
#define WGWATCH_SNMPHEALTH_H

#include <stddef.h>

#include "daemon/sample.h"

struct variable_list; /* net-snmp's netsnmp_variable_list */

typedef struct snmphealth snmphealth_t;

snmphealth_t *snmphealth_create(void);
void snmphealth_destroy(snmphealth_t *h);
void snmphealth_clear(snmphealth_t *h); /* forgets a poll's rows */
/* One varbind of the walk; base_len is the length of mtxrHealth's OID. Cells of no interest
 * or of a type they cannot have are passed over; 0, or -1 with *cause. */
int snmphealth_take(snmphealth_t *h, const struct variable_list *v, size_t base_len, char **cause);
/* Adds the sensors to s (the gauge table's, else the scalars') and sets s->health_fresh. */
void snmphealth_emit(const snmphealth_t *h, sample_t *s);

#endif
