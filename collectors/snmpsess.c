/* SPDX-License-Identifier: Apache-2.0 */
/* snmpsess: the net-snmp side of collectors/snmpcoll.c's sessions (collectors/snmpsess.h). It
 * must never put a community or passphrase in a cause, and wipes the session settings that held
 * key material once the session is open. */
#include "config.h"
#include "collectors/netsnmp.h"

#include "collectors/snmpsess.h"
#include "collectors/snmpusm.h"
#include "lib/fdreserve.h"
#include "lib/xmem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define SNMPSESS_BULK_REPS 24 /* GETBULK max-repetitions */

/* The tries share the poll timeout. */
int snmpsess_retries(const conf_router_t *rc)
{
	return rc->snmp_retries < 0 ? 0 : rc->snmp_retries > 10 ? 10 : rc->snmp_retries;
}

/* The next request ID of a session, 1..2^31-1 (splitmix64 over a random seed): net-snmp's own
 * IDs come from one counter across all sessions, so an agent we poll could predict those of
 * the others and answer their requests first. */
static long snmpsess_next_id(uint64_t *idstate)
{
	uint64_t z;
	do {
		z = (*idstate += 0x9e3779b97f4a7c15ULL);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		z = (z ^ (z >> 31)) & 0x7fffffff;
	} while (z == 0);
	return (long)z;
}

netsnmp_pdu *snmpsess_pdu(uint64_t *idstate, int command)
{
	netsnmp_pdu *pdu = snmp_pdu_create(command);
	if (pdu == NULL)
		return NULL;
	pdu->reqid = snmpsess_next_id(idstate);
	pdu->msgid = snmpsess_next_id(idstate); /* SNMPv3 matches replies by it */
	if (command == SNMP_MSG_GETBULK) {
		pdu->non_repeaters = 0;
		pdu->max_repetitions = SNMPSESS_BULK_REPS;
	}
	return pdu;
}

/* The agent answers with a report that carries its engine ID (RFC 3414 discovery), done
 * asynchronously rather than by net-snmp's blocking probe. */
netsnmp_pdu *snmpsess_probe(uint64_t *idstate)
{
	netsnmp_pdu *pdu = snmpsess_pdu(idstate, SNMP_MSG_GET);
	if (pdu == NULL)
		return NULL;
	pdu->version = SNMP_VERSION_3;
	pdu->securityName = strdup("");
	pdu->securityNameLen = 0;
	pdu->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	pdu->securityModel = SNMP_SEC_MODEL_USM;
	return pdu;
}

int snmpsess_user(netsnmp_session *ss)
{
	/* net-snmp keeps one USM entry per (engine ID, user) for the whole process and would reuse
	 * an existing entry's keys: a passphrase changed by a reload would never take effect. Drop
	 * the old entry so the keys always come from this session's configuration. */
	struct usmUser *old = usm_get_user(ss->securityEngineID, ss->securityEngineIDLen, ss->securityName);
	if (old != NULL) {
		usm_remove_user(old);         /* returns the list's head, not old */
		old->next = old->prev = NULL; /* else usm_free_user relinks the neighbours */
		usm_free_user(old);
	}
	/* Localises the keys for the engine and adds the user to net-snmp's USM table. */
	return usm_create_user_from_session(ss) != SNMPERR_SUCCESS ? -1 : 0;
}

static int snmpsess_setup(
	netsnmp_session *ss, const conf_router_t *rc, snmpsess_callback cb, void *magic, char **cause)
{
	int64_t timeout = rc->timeout_ms > 0 ? rc->timeout_ms : SNMPSESS_DEFAULT_TIMEOUT_MS;
	snmp_sess_init(ss);
	ss->timeout = (long)(timeout * 1000 / (snmpsess_retries(rc) + 1)); /* per try, microseconds */
	ss->retries = snmpsess_retries(rc);
	ss->callback = cb;
	ss->callback_magic = magic;
	if (rc->snmp_version == 3)
		return snmpusm_setup(ss, rc, cause);
	ss->version = rc->snmp_version == 1 ? SNMP_VERSION_1 : SNMP_VERSION_2c;
	ss->community = (u_char *)(rc->snmp_community ? rc->snmp_community : "public");
	ss->community_len = strlen((const char *)ss->community);
	return 0;
}

/* Ties the session's socket to the agent's address and port (connect()), so that the kernel
 * drops datagrams from anyone else: net-snmp itself accepts a reply from any source. */
static int snmpsess_tie(void *sess, char **cause)
{
	netsnmp_transport *t = snmp_sess_transport(sess);
	const struct sockaddr *sa = t != NULL ? (const struct sockaddr *)t->remote : NULL;
	bool known = sa != NULL &&
		((sa->sa_family == AF_INET && t->remote_length == sizeof(struct sockaddr_in)) ||
			(sa->sa_family == AF_INET6 && t->remote_length == sizeof(struct sockaddr_in6)));
	if (known && connect(t->sock, sa, (socklen_t)t->remote_length) == 0)
		return 0;
	*cause = xasprintf("cannot tie the socket to the agent: %s",
		known ? strerror(errno) : "net-snmp gave no IPv4 or IPv6 address");
	return -1;
}

/* The peer must be an address: a host name is resolved here, blocking (docs/snmp.md). */
void *snmpsess_open(const conf_router_t *rc, snmpsess_callback cb, void *magic, char **cause)
{
	netsnmp_session ss;
	char *peer = xasprintf("%s:%s", rc->snmp[0] == '[' ? "udp6" : "udp", rc->snmp);
	int rc_setup = snmpsess_setup(&ss, rc, cb, magic, cause);
	ss.peername = peer;
	errno = 0;
	void *sess = rc_setup < 0 ? NULL : snmp_sess_open(&ss);
	bool nofd = sess == NULL && fdreserve_exhausted(errno);
	if (sess != NULL && !fdreserve_allows(snmp_sess_transport(sess)->sock)) {
		nofd = true; /* the session's socket lies in the reserve */
		snmp_sess_close(sess);
		sess = NULL;
	}
	if (nofd)
		*cause = xasprintf("cannot open a session to %s: out of file descriptors (open-files "
				   "limit %llu, the last %u kept for the HTTP listener and the database); "
				   "raise LimitNOFILE",
			rc->snmp, (unsigned long long)fdreserve_limit(), fdreserve_kept());
	else if (rc_setup == 0 && sess == NULL)
		*cause = xasprintf(
			"cannot open a session to %s: %s", rc->snmp, snmp_api_errstring(ss.s_snmp_errno));
	explicit_bzero(&ss, sizeof(ss)); /* held key material */
	free(peer);
	if (sess != NULL && snmpsess_tie(sess, cause) < 0) {
		snmp_sess_close(sess);
		sess = NULL;
	}
	return sess;
}

/* net-snmp reads no snmp.conf, loads no MIB, keeps no persistent state, logs nothing. */
void snmpsess_lib_init(void)
{
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_ALARM_DONT_USE_SIG, 1);
	netsnmp_set_mib_directory("");
	netsnmp_register_loghandler(NETSNMP_LOGHANDLER_NONE, LOG_DEBUG);
	init_snmp("wgwatchd");
	/* The empty USM user that engine ID probes are sent as. */
	if (usm_get_user(NULL, 0, "") == NULL) {
		struct usmUser *u = usm_create_user();
		u->name = strdup("");
		u->secName = strdup("");
		u->authProtocolLen = sizeof(usmNoAuthProtocol) / sizeof(oid);
		u->authProtocol = snmp_duplicate_objid(usmNoAuthProtocol, u->authProtocolLen);
		u->privProtocolLen = sizeof(usmNoPrivProtocol) / sizeof(oid);
		u->privProtocol = snmp_duplicate_objid(usmNoPrivProtocol, u->privProtocolLen);
		usm_add_user(u);
	}
}
