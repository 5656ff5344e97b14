/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_snmp: libFuzzer harness for the SNMP varbind decoders (collectors/snmpdecode.c). The
 * input drives one whole poll: an SNMP version, then for each step (scalars, the hrProcessorLoad,
 * ifName and ifDescr walks, the counter GETs) the reply PDUs, built with snmp_pdu_add_variable
 * from fuzzed error status, OIDs (those asked, with fuzzed suffixes, or other known columns),
 * types and values. A cause must be printable, a sample within its ranges. Never opens a socket. */
#undef NDEBUG
#include "config.h"
#include "collectors/netsnmp.h"

#include "collectors/snmpdecode.h"

#include <assert.h>
#include <fnmatch.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	const uint8_t *p, *end;
};

static unsigned fz_byte(struct fz *f)
{
	return f->p < f->end ? *f->p++ : 0;
}

static uint64_t fz_bytes(struct fz *f, size_t n)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++)
		x = x << 8 | fz_byte(f);
	return x;
}

static const oid fz_known[][14] = {
	{ 1, 3, 6, 1, 2, 1, 1, 3, 0 },                   /* sysUpTime.0 */
	{ 1, 3, 6, 1, 2, 1, 25, 3, 3, 1, 2 },            /* hrProcessorLoad */
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 1 },            /* ifName */
	{ 1, 3, 6, 1, 2, 1, 2, 2, 1, 2 },                /* ifDescr */
	{ 1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6 },            /* ifHCInOctets */
	{ 1, 3, 6, 1, 2, 1, 2, 2, 1, 8 },                /* ifOperStatus */
	{ 1, 3, 6, 1, 4, 1, 14988, 1, 1, 3 },            /* mtxrHealth */
	{ 1, 3, 6, 1, 4, 1, 14988, 1, 1, 3, 100, 1, 2 }, /* mtxrGaugeName */
	{ 1, 3, 6, 1, 4, 1, 14988, 1, 1, 3, 100, 1, 3 }, /* mtxrGaugeValue */
};
static const size_t fz_known_len[] = { 9, 11, 11, 10, 11, 10, 10, 13, 13 };

static const u_char fz_types[] = {
	ASN_INTEGER,
	ASN_OCTET_STR,
	ASN_COUNTER,
	ASN_GAUGE,
	ASN_TIMETICKS,
	ASN_COUNTER64,
	ASN_NULL,
	ASN_OBJECT_ID,
	ASN_IPADDRESS,
	ASN_OPAQUE,
	SNMP_NOSUCHOBJECT,
	SNMP_NOSUCHINSTANCE,
	SNMP_ENDOFMIBVIEW,
};

/* The OID of one reply varbind: an asked one or a known column, plus fuzzed arcs. */
static size_t fz_name(struct fz *f, const netsnmp_pdu *req, oid *name, size_t cap)
{
	unsigned sel = fz_byte(f), k = fz_byte(f);
	size_t len = 0, nreq = 0;
	const netsnmp_variable_list *rv = req->variables;
	for (const netsnmp_variable_list *v = rv; v != NULL; v = v->next_variable)
		nreq++;
	if (sel < 0xc0 && nreq > 0) {
		for (size_t i = sel % nreq; i > 0; i--)
			rv = rv->next_variable;
		len = rv->name_length;
		memcpy(name, rv->name, len * sizeof(oid));
	} else {
		sel %= sizeof(fz_known_len) / sizeof(fz_known_len[0]);
		len = fz_known_len[sel];
		memcpy(name, fz_known[sel], len * sizeof(oid));
	}
	for (unsigned i = 0; i < (k & 7) && len < cap; i++)
		name[len++] = (oid)(k & 8 ? fz_bytes(f, 4) : fz_byte(f));
	for (unsigned i = 0; (k & 0x80) && i < 130 && len < cap; i++) /* over MAX_OID_LEN */
		name[len++] = i;
	return len;
}

static void fz_var(struct fz *f, const netsnmp_pdu *req, netsnmp_pdu *pdu)
{
	oid name[MAX_OID_LEN + 140], objid[32];
	size_t len = fz_name(f, req, name, sizeof(name) / sizeof(name[0]));
	u_char type = fz_types[fz_byte(f) % sizeof(fz_types)];
	uint8_t raw[256];
	size_t n = fz_byte(f);
	for (size_t i = 0; i < n; i++)
		raw[i] = (uint8_t)fz_byte(f);
	long l = (long)fz_bytes(&(struct fz){ raw, raw + (n < 8 ? n : 8) }, 8);
	struct counter64 c64 = { .high = (u_long)(l >> 32) & 0xffffffff, .low = (u_long)l & 0xffffffff };
	switch (type) {
	case ASN_INTEGER:
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS: snmp_pdu_add_variable(pdu, name, len, type, &l, sizeof(l)); break;
	case ASN_COUNTER64: snmp_pdu_add_variable(pdu, name, len, type, &c64, sizeof(c64)); break;
	case ASN_OBJECT_ID:
		for (size_t i = 0; i < n && i < 32; i++)
			objid[i] = raw[i];
		snmp_pdu_add_variable(pdu, name, len, type, objid, (n < 32 ? n : 32) * sizeof(oid));
		break;
	case ASN_IPADDRESS: snmp_pdu_add_variable(pdu, name, len, type, raw, 4); break;
	case ASN_OCTET_STR:
	case ASN_OPAQUE: snmp_pdu_add_variable(pdu, name, len, type, raw, n); break;
	default: snmp_pdu_add_variable(pdu, name, len, type, NULL, 0); break;
	}
}

static netsnmp_pdu *fz_reply(struct fz *f, const netsnmp_pdu *req)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	unsigned h = fz_byte(f);
	pdu->errstat = pdu->errindex = 0; /* snmp_pdu_create's defaults are -1, no reply's */
	if (h & 0x40) {
		pdu->errstat = fz_byte(f) % 19;
		pdu->errindex = fz_byte(f) % 12;
	}
	for (unsigned i = 0; i < (h & 0x3f) && f->p < f->end; i++)
		fz_var(f, req, pdu);
	return pdu;
}

static void fz_printable(const char *s)
{
	for (; *s; s++)
		assert(*s >= 0x20 && *s < 0x7f);
}

static void fz_check(const sample_t *s)
{
	for (size_t i = 0; i < s->ncores; i++)
		assert(s->cores[i].load >= 0.0 && s->cores[i].load <= 1.0);
	assert(s->ncores <= 4096);
	const char *strs[] = { s->version, s->firmware, s->upgrade_firmware, s->board };
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (strs[i] != NULL)
			fz_printable(strs[i]);
	for (size_t i = 0; i < s->nsensors; i++) {
		fz_printable(s->sensors[i].name);
		assert((unsigned)s->sensors[i].unit < SAMPLE_UNIT_COUNT && isfinite(s->sensors[i].value));
		assert(s->sensors[i].unit != SAMPLE_UNIT_STATE || s->sensors[i].value == 0 ||
			s->sensors[i].value == 1);
	}
	for (size_t i = 0; i < s->nifaces; i++) {
		fz_printable(s->ifaces[i].name);
		/* type wg exactly for the names wg_names (wg*, wireguard*) covers, else none */
		bool wg = fnmatch("wg*", s->ifaces[i].name, 0) == 0 ||
			fnmatch("wireguard*", s->ifaces[i].name, 0) == 0;
		assert(strcmp(s->ifaces[i].type, wg ? "wg" : "") == 0);
	}
}

enum fz_step { FZ_SCALARS, FZ_CPU, FZ_NAMES, FZ_DESCRS, FZ_COUNTERS, FZ_HEALTH, FZ_DONE };

/* One request/reply round of a step: the decoder's answer (1 again, 0 next step, -1 failed). */
static int fz_round(struct fz *f, snmpdecode_t *d, enum fz_step step)
{
	netsnmp_pdu *req = snmp_pdu_create(SNMP_MSG_GET);
	char *cause = NULL;
	int r;
	if (step == FZ_SCALARS)
		snmpdecode_ask_scalars(d, req);
	else if (step == FZ_COUNTERS)
		snmpdecode_ask_counters(d, req);
	else
		snmpdecode_ask_walk(d, req);
	netsnmp_pdu *pdu = fz_reply(f, req);
	if (step == FZ_SCALARS)
		r = snmpdecode_scalars(d, pdu, &cause);
	else if (step == FZ_COUNTERS)
		r = snmpdecode_counters(d, pdu, &cause);
	else
		r = snmpdecode_walk(d, pdu, &cause);
	assert(r >= -1 && r <= 1);
	assert((r < 0) == (cause != NULL));
	if (cause != NULL)
		fz_printable(cause);
	free(cause);
	snmp_free_pdu(req);
	snmp_free_pdu(pdu);
	return r;
}

/* Whether the poll would run step, as snmpcoll.c decides; starts the walks. */
static bool fz_wanted(snmpdecode_t *d, enum fz_step step)
{
	switch (step) {
	case FZ_CPU: snmpdecode_walk_start(d, SNMPDECODE_CPU); return true;
	case FZ_NAMES: snmpdecode_walk_start(d, SNMPDECODE_NAMES); return true;
	case FZ_DESCRS:
		if (snmpdecode_walked(d) > 0)
			return false;
		snmpdecode_walk_start(d, SNMPDECODE_DESCRS);
		return true;
	case FZ_COUNTERS: return snmpdecode_nrows(d) > 0;
	case FZ_HEALTH: snmpdecode_walk_start(d, SNMPDECODE_HEALTH); return true;
	default: return true;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, data + size };
	char *ifs[] = { (char *)"ether1", (char *)"lo" };
	char *wg[] = { (char *)"wg*", (char *)"wireguard*" };
	unsigned flags = fz_byte(&f);
	conf_router_t rc = { .name = (char *)"fuzz",
		.snmp_version = (int)(flags % 3) + 1,
		.interfaces = ifs,
		.ninterfaces = flags & 4 ? 2 : 0,
		.wg_names = wg,
		.nwg_names = 2 };
	snmpdecode_t *d = snmpdecode_create();
	/* Two polls, so the 32-bit extension and the reboot check see a previous one. */
	for (int poll = 0; poll < 2 && f.p < f.end; poll++) {
		sample_t *s = sample_new("fuzz", 0, "snmp");
		snmpdecode_begin(d, &rc, s);
		int r = 0;
		for (enum fz_step step = FZ_SCALARS; step < FZ_DONE && r >= 0 && f.p < f.end; step++) {
			if (!fz_wanted(d, step))
				continue;
			while ((r = fz_round(&f, d, step)) == 1 && f.p < f.end)
				;
		}
		if (r >= 0)
			snmpdecode_emit(d);
		fz_check(s);
		snmpdecode_end(d);
		sample_free(s);
	}
	snmpdecode_destroy(d);
	return 0;
}
