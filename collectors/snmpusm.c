/* SPDX-License-Identifier: Apache-2.0 */
/* snmpusm: the SNMPv3 USM settings of a router's session, from its config: user, security
 * level, protocols and the keys derived from the passphrases. It must never log, nor put a
 * passphrase or key in a cause; the caller wipes the session after opening it. */
#include "config.h"
#include "collectors/netsnmp.h"

#include "collectors/snmpusm.h"
#include "lib/xmem.h"

#include <string.h>

static const oid *snmpusm_auth_proto(const char *name, size_t *len)
{
	static const struct {
		const char *name;
		const oid *o;
	} t[] = {
		{ "MD5", usmHMACMD5AuthProtocol },
		{ "SHA", usmHMACSHA1AuthProtocol },
		{ "SHA-224", usmHMAC128SHA224AuthProtocol },
		{ "SHA-256", usmHMAC192SHA256AuthProtocol },
		{ "SHA-384", usmHMAC256SHA384AuthProtocol },
		{ "SHA-512", usmHMAC384SHA512AuthProtocol },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (name != NULL && strcmp(name, t[i].name) == 0) {
			*len = USM_AUTH_PROTO_SHA_LEN; /* every auth protocol OID has 10 arcs */
			return t[i].o;
		}
	}
	*len = USM_AUTH_PROTO_SHA_LEN;
	return usmHMACSHA1AuthProtocol;
}

static const oid *snmpusm_priv_proto(const char *name, size_t *len)
{
	if (name != NULL && strcmp(name, "DES") == 0) {
		*len = USM_PRIV_PROTO_DES_LEN;
		return usmDESPrivProtocol;
	}
	if (name != NULL && strcmp(name, "AES-192") == 0) {
		*len = sizeof(usmAES192PrivProtocol) / sizeof(oid);
		return usmAES192PrivProtocol;
	}
	if (name != NULL && strcmp(name, "AES-256") == 0) {
		*len = sizeof(usmAES256PrivProtocol) / sizeof(oid);
		return usmAES256PrivProtocol;
	}
	*len = USM_PRIV_PROTO_AES_LEN;
	return usmAESPrivProtocol;
}

static int snmpusm_level(const char *level)
{
	if (level != NULL && strcmp(level, "authPriv") == 0)
		return SNMP_SEC_LEVEL_AUTHPRIV;
	if (level != NULL && strcmp(level, "authNoPriv") == 0)
		return SNMP_SEC_LEVEL_AUTHNOPRIV;
	return SNMP_SEC_LEVEL_NOAUTH;
}

/* USM settings: keys derived from the passphrases here (Ku), localised after the probe. */
int snmpusm_setup(netsnmp_session *ss, const conf_router_t *rc, char **cause)
{
	size_t alen, plen;
	const oid *auth = snmpusm_auth_proto(rc->snmp_auth_protocol, &alen);
	const char *ap = rc->snmp_auth_password ? rc->snmp_auth_password : "";
	const char *pp = rc->snmp_priv_password ? rc->snmp_priv_password : "";
	ss->version = SNMP_VERSION_3;
	ss->securityModel = SNMP_SEC_MODEL_USM;
	ss->securityName = rc->snmp_user ? rc->snmp_user : (char *)"";
	ss->securityNameLen = strlen(ss->securityName);
	ss->securityLevel = snmpusm_level(rc->snmp_security_level);
	ss->flags |= SNMP_FLAGS_DONT_PROBE;
	if (ss->securityLevel == SNMP_SEC_LEVEL_NOAUTH)
		return 0;
	ss->securityAuthProto = (oid *)auth;
	ss->securityAuthProtoLen = alen;
	ss->securityAuthKeyLen = USM_AUTH_KU_LEN;
	if (strlen(ap) < 8 ||
		generate_Ku(auth, (u_int)alen, (const u_char *)ap, strlen(ap), ss->securityAuthKey,
			&ss->securityAuthKeyLen) != SNMPERR_SUCCESS) {
		*cause = xstrdup("cannot derive the SNMPv3 auth key (passphrase under 8 characters?)");
		return -1;
	}
	if (ss->securityLevel != SNMP_SEC_LEVEL_AUTHPRIV)
		return 0;
	ss->securityPrivProto = (oid *)snmpusm_priv_proto(rc->snmp_priv_protocol, &plen);
	ss->securityPrivProtoLen = plen;
	ss->securityPrivKeyLen = USM_PRIV_KU_LEN;
	if (strlen(pp) < 8 ||
		generate_Ku(auth, (u_int)alen, (const u_char *)pp, strlen(pp), ss->securityPrivKey,
			&ss->securityPrivKeyLen) != SNMPERR_SUCCESS) {
		*cause = xstrdup("cannot derive the SNMPv3 privacy key (passphrase under 8 characters?)");
		return -1;
	}
	return 0;
}
