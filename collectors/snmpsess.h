/* SPDX-License-Identifier: Apache-2.0 */
/* snmpsess: net-snmp for collectors/snmpcoll.c: the library's set-up, a router's session opened
 * from its config with its socket tied to the agent, the PDUs with request IDs of a session's
 * own, and the v3 user net-snmp keeps per engine. Knows nothing of polls nor of the loop. */
#ifndef WGWATCH_SNMPSESS_H
#define WGWATCH_SNMPSESS_H

#include <stdint.h>

#include "daemon/conf.h"

struct snmp_pdu;     /* net-snmp's netsnmp_pdu; its headers clash with config.h, so not here */
struct snmp_session; /* net-snmp's netsnmp_session */

#define SNMPSESS_DEFAULT_TIMEOUT_MS 10000 /* a poll's, when the router sets none */

/* net-snmp's netsnmp_callback: a session's answers, timeouts and errors. */
typedef int (*snmpsess_callback)(
	int op, struct snmp_session *sp, int reqid, struct snmp_pdu *pdu, void *magic);

/* Once per process, before the first session: net-snmp reads no config nor MIB, logs nothing. */
void snmpsess_lib_init(void);
/* Resends of a request after its try timed out (snmp_retries =, 0..10). */
int snmpsess_retries(const conf_router_t *rc);
/* A single session to rc's agent (udp, or udp6 for "[addr]"), answers to cb with magic, its
 * socket connect()ed to the agent. NULL with *cause (caller frees; never a secret in it). */
void *snmpsess_open(const conf_router_t *rc, snmpsess_callback cb, void *magic, char **cause);
/* A request of command (SNMP_MSG_GET...; GETBULK with our max-repetitions), its request and
 * message IDs drawn from *idstate (seeded at random by the caller). NULL without memory. */
struct snmp_pdu *snmpsess_pdu(uint64_t *idstate, int command);
/* The v3 engine ID probe: an unauthenticated GET with an empty user (RFC 3414 discovery). */
struct snmp_pdu *snmpsess_probe(uint64_t *idstate);
/* After the probe's report set ss's engine ID: net-snmp's USM user for it, with keys from ss's
 * configuration, replacing one kept from before. 0, or -1 when net-snmp cannot make it. */
int snmpsess_user(struct snmp_session *ss);

#endif
