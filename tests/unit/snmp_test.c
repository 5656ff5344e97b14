/* SPDX-License-Identifier: Apache-2.0 */
/* snmp_test: the SNMP varbind decoding (collectors/snmpdecode.c: scalars, walks, counters,
 * 32-bit wraps, picking by name) on hand-built PDUs, the order of a poll's steps
 * (collectors/snmpstep.c), and polls of a silent UDP agent that must
 * end in one timeout through the loop after snmp_retries + 1 tries, also with the session's
 * socket above FD_SETSIZE. Real agents: tests/system/060 and 061. */
#include "collectors/snmpcoll.c"
/* snmpdecode.c reads config.h again, whose PACKAGE_* net-snmp's header has redefined. */
/* snmpdecode.c includes config.h again, after net-snmp defined PACKAGE_* its way. */
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include "collectors/snmpdecode.c"
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static const oid o_uptime[] = { 1, 3, 6, 1, 2, 1, 1, 3, 0 };

static netsnmp_variable_list *var(
	netsnmp_pdu *pdu, const oid *o, size_t len, u_char type, const void *val, size_t vlen)
{
	return snmp_pdu_add_variable(pdu, o, len, type, val, vlen);
}

static netsnmp_variable_list *var_str(netsnmp_pdu *pdu, const struct snmpdecode_oid *o, const char *s)
{
	return var(pdu, o->o, o->len, ASN_OCTET_STR, s, strlen(s));
}

static void test_scalars(void)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	sample_t *s = sample_new("r", 0, "snmp");
	char *cause = NULL;
	u_long ticks = 123456;
	var_str(pdu, &snmpdecode_scalar_oids[SC_DESCR], "RouterOS RB750Gr3");
	var(pdu, o_uptime, 9, ASN_TIMETICKS, &ticks, sizeof(ticks));
	var_str(pdu, &snmpdecode_scalar_oids[SC_VERSION], "7.20beta2");
	var(pdu, snmpdecode_scalar_oids[SC_FIRMWARE].o, snmpdecode_scalar_oids[SC_FIRMWARE].len,
		SNMP_NOSUCHOBJECT, NULL, 0);
	var_str(pdu, &snmpdecode_scalar_oids[SC_UPGRADE], "7.20\x01");
	int which = 0;
	for (netsnmp_variable_list *v = pdu->variables; v; v = v->next_variable, which++)
		CHECK_INT(snmpdecode_decode_scalar(which == 0 ? SC_DESCR
					  : which == 1        ? SC_UPTIME
					  : which == 2        ? SC_VERSION
					  : which == 3        ? SC_FIRMWARE
							      : SC_UPGRADE,
				  v, s, &cause),
			0);
	snmpdecode_check_version(s);
	CHECK_INT(s->uptime_ms, 1234560);
	CHECK_STR(s->version, "7.20beta2");
	CHECK_STR(s->board, "RB750Gr3");         /* from sysDescr: no mtxrBoardName */
	CHECK(s->firmware == NULL);              /* noSuchObject: unknown, not an error */
	CHECK_STR(s->upgrade_firmware, "7.20?"); /* control bytes never pass */
	/* A number where a string belongs fails with a reason. */
	long n = 5;
	netsnmp_pdu *bad = snmp_pdu_create(SNMP_MSG_RESPONSE);
	var(bad, snmpdecode_scalar_oids[SC_BOARD].o, snmpdecode_scalar_oids[SC_BOARD].len, ASN_INTEGER, &n,
		sizeof(n));
	CHECK_INT(snmpdecode_decode_scalar(SC_BOARD, bad->variables, s, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "string") != NULL);
	free(cause);
	cause = NULL;
	snmp_free_pdu(bad);
	/* mtxrHlProcessorFrequency: MHz; a string or a negative number is no clock, never fatal */
	const struct snmpdecode_oid *mhz = &snmpdecode_scalar_oids[SC_MHZ];
	long f[] = { 880, -5 };
	bad = snmp_pdu_create(SNMP_MSG_RESPONSE);
	var(bad, mhz->o, mhz->len, ASN_INTEGER, &f[0], sizeof(f[0]));
	var(bad, mhz->o, mhz->len, ASN_INTEGER, &f[1], sizeof(f[1]));
	var_str(bad, mhz, "880");
	for (netsnmp_variable_list *v = bad->variables; v; v = v->next_variable)
		CHECK_INT(snmpdecode_decode_scalar(SC_MHZ, v, s, &cause), 0);
	CHECK_INT(s->cpu_freq_mhz, 880);
	CHECK(cause == NULL);
	snmp_free_pdu(bad);
	snmp_free_pdu(pdu);
	sample_free(s);
}

static void test_numbers(void)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	struct counter64 c64 = { .high = 3, .low = 5 };
	long neg = -1;
	u_long c32 = 4294967295ul;
	uint64_t out = 0;
	char *cause = NULL;
	var(pdu, o_uptime, 9, ASN_COUNTER64, &c64, sizeof(c64));
	var(pdu, o_uptime, 9, ASN_COUNTER, &c32, sizeof(c32));
	var(pdu, o_uptime, 9, ASN_INTEGER, &neg, sizeof(neg));
	netsnmp_variable_list *v = pdu->variables;
	CHECK_INT(snmpdecode_var_u64(v, &out, &cause), 0);
	CHECK(out == (3ull << 32 | 5));
	CHECK_INT(snmpdecode_var_u64(v->next_variable, &out, &cause), 0);
	CHECK(out == 4294967295ull);
	CHECK_INT(snmpdecode_var_u64(v->next_variable->next_variable, &out, &cause), -1);
	free(cause);
	snmp_free_pdu(pdu);
}

/* Found by fuzz_snmp: a sysUpTime sent as a Counter64 of 2^63 overflowed the tick to ms
 * conversion; and a walked OID longer than MAX_OID_LEN must not reach the cursor. */
static void test_fuzz_finds(void)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	sample_t *s = sample_new("r", 0, "snmp");
	struct counter64 huge = { .high = 0x80000000ul, .low = 0 };
	const struct snmpdecode_oid *col = &snmpdecode_walk_cols[SNMPDECODE_NAMES];
	oid longer[MAX_OID_LEN + 10] = { 0 };
	char *cause = NULL;
	var(pdu, o_uptime, 9, ASN_COUNTER64, &huge, sizeof(huge));
	CHECK_INT(snmpdecode_decode_scalar(SC_UPTIME, pdu->variables, s, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "sysUpTime") != NULL);
	CHECK_INT(s->uptime_ms, -1);
	free(cause);
	cause = NULL;
	memcpy(longer, col->o, col->len * sizeof(oid));
	var(pdu, longer, MAX_OID_LEN + 10, ASN_OCTET_STR, "wg0", 3);
	CHECK_INT(snmpdecode_walk_row(pdu->variables->next_variable, col, col->o, col->len, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "longer") != NULL);
	free(cause);
	snmp_free_pdu(pdu);
	sample_free(s);
}

static void test_walk(void)
{
	const struct snmpdecode_oid *col = &snmpdecode_walk_cols[SNMPDECODE_CPU];
	oid a[16], b[16], other[] = { 1, 3, 6, 1, 2, 1, 25, 3, 3, 1, 3, 1 };
	long load = 42;
	char *cause = NULL;
	memcpy(a, col->o, col->len * sizeof(oid));
	memcpy(b, col->o, col->len * sizeof(oid));
	a[col->len] = 196608;
	b[col->len] = 196609;
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	var(pdu, a, col->len + 1, ASN_INTEGER, &load, sizeof(load));
	var(pdu, other, 12, ASN_INTEGER, &load, sizeof(load));
	netsnmp_variable_list *va = pdu->variables, *vo = va->next_variable;
	CHECK_INT(snmpdecode_walk_row(va, col, col->o, col->len, &cause), 1);
	CHECK_INT(snmpdecode_walk_row(vo, col, a, col->len + 1, &cause), 0);  /* next column: end */
	CHECK_INT(snmpdecode_walk_row(va, col, b, col->len + 1, &cause), -1); /* backwards */
	CHECK(cause != NULL && strstr(cause, "backwards") != NULL);
	free(cause);
	cause = NULL;
	va->type = SNMP_ENDOFMIBVIEW;
	CHECK_INT(snmpdecode_walk_row(va, col, col->o, col->len, &cause), 0);
	snmp_free_pdu(pdu);
}

static void test_cores(void)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	sample_t *s = sample_new("r", 0, "snmp");
	long l1 = 12, l2 = 100, l3 = 101;
	u_long g = 5;
	char *cause = NULL;
	var(pdu, o_uptime, 9, ASN_INTEGER, &l1, sizeof(l1));
	var(pdu, o_uptime, 9, ASN_INTEGER, &l2, sizeof(l2));
	var(pdu, o_uptime, 9, ASN_INTEGER, &l3, sizeof(l3));
	var(pdu, o_uptime, 9, ASN_GAUGE, &g, sizeof(g));
	netsnmp_variable_list *v = pdu->variables;
	CHECK_INT(snmpdecode_add_core(s, v, &cause), 0);
	CHECK_INT(snmpdecode_add_core(s, v->next_variable, &cause), 0);
	CHECK_INT(s->ncores, 2);
	CHECK_NEAR(s->cores[0].load, 0.12, 1e-9);
	CHECK_NEAR(s->cores[1].load, 1.0, 1e-9);
	CHECK(isnan(s->cores[0].irq));
	CHECK_INT(snmpdecode_add_core(s, v->next_variable->next_variable, &cause), -1);
	free(cause);
	cause = NULL;
	CHECK_INT(snmpdecode_add_core(s, v->next_variable->next_variable->next_variable, &cause), -1);
	free(cause);
	snmp_free_pdu(pdu);
	sample_free(s);
}

/* A varbind under mtxrHealth (1.3.6.1.4.1.14988.1.1.3): suffix of up to 4 sub-ids. */
static void var_health(netsnmp_pdu *pdu, const oid *suffix, size_t n, u_char type, long num, const char *str)
{
	const struct snmpdecode_oid *col = &snmpdecode_walk_cols[SNMPDECODE_HEALTH];
	oid o[20];
	memcpy(o, col->o, col->len * sizeof(oid));
	memcpy(o + col->len, suffix, n * sizeof(oid));
	if (type == ASN_OCTET_STR)
		var(pdu, o, col->len + n, type, str, strlen(str));
	else
		var(pdu, o, col->len + n, type, &num, sizeof(num));
}

/* Walks one PDU of the health subtree into a fresh sample. */
static sample_t *health_walk(netsnmp_pdu *pdu)
{
	conf_router_t rc = { .name = (char *)"r", .snmp_version = 2 };
	snmpdecode_t *d = snmpdecode_create();
	sample_t *s = sample_new("r", 0, "snmp");
	char *cause = NULL;
	snmpdecode_begin(d, &rc, s);
	snmpdecode_walk_start(d, SNMPDECODE_HEALTH);
	CHECK_INT(snmpdecode_walk(d, pdu, &cause), pdu->variables ? 1 : -1);
	free(cause);
	snmpdecode_emit(d);
	snmpdecode_end(d);
	snmpdecode_destroy(d);
	snmp_free_pdu(pdu);
	return s;
}

static double sensor(const sample_t *s, const char *name, enum sample_unit unit)
{
	for (size_t i = 0; i < s->nsensors; i++)
		if (strcmp(s->sensors[i].name, name) == 0 && s->sensors[i].unit == unit)
			return s->sensors[i].value;
	return -999;
}

/* mtxrGaugeTable as RouterOS 7 sends it (routeros.md: names, values, units column by column;
 * INTEGER or Gauge32 values), the legacy scalars beside it ignored; then a 6.x agent with the
 * scalars only (tenths, mA, PSU 1 = ok); then an agent with neither. */
static void test_health(void)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	var_health(pdu, (oid[]){ 8, 0 }, 2, ASN_INTEGER, 243, NULL);
	var_health(pdu, (oid[]){ 9, 0 }, 2, ASN_OCTET_STR, 0, "main");
	static const struct {
		oid index;
		const char *name;
		long value, unit;
	} rows[] = {
		{ 13, "voltage", 243, 3 },
		{ 17, "cpu-temperature", 36, 1 },
		{ 7001, "fan1-speed", 4500, 2 },
		{ 7401, "psu1-state", 0, 6 },
		{ 7402, "psu2-state", 1, 6 },
		{ 7501, "psu1-current", 15, 4 },
		{ 7601, "power-consumption", 362, 5 },
		{ 7701, "mystery", 5, 9 },
	};
	size_t n = sizeof(rows) / sizeof(rows[0]);
	for (size_t i = 0; i < n; i++)
		var_health(pdu, (oid[]){ 100, 1, 2, rows[i].index }, 4, ASN_OCTET_STR, 0, rows[i].name);
	for (size_t i = 0; i < n; i++)
		var_health(pdu, (oid[]){ 100, 1, 3, rows[i].index }, 4, i % 2 ? ASN_GAUGE : ASN_INTEGER,
			rows[i].value, NULL);
	for (size_t i = 0; i < n; i++)
		var_health(pdu, (oid[]){ 100, 1, 4, rows[i].index }, 4, ASN_INTEGER, rows[i].unit, NULL);
	sample_t *s = health_walk(pdu);
	CHECK(s->health_fresh);
	CHECK_INT(s->nsensors, 7); /* unit 9 is none we know; the scalar voltage is not doubled */
	CHECK_NEAR(sensor(s, "voltage", SAMPLE_UNIT_VOLTS), 24.3, 1e-9);
	CHECK_NEAR(sensor(s, "cpu-temperature", SAMPLE_UNIT_CELSIUS), 36, 1e-9);
	CHECK_NEAR(sensor(s, "fan1-speed", SAMPLE_UNIT_RPM), 4500, 1e-9);
	CHECK_NEAR(sensor(s, "psu1-state", SAMPLE_UNIT_STATE), 1, 1e-9);
	CHECK_NEAR(sensor(s, "psu2-state", SAMPLE_UNIT_STATE), 0, 1e-9);
	CHECK_NEAR(sensor(s, "psu1-current", SAMPLE_UNIT_AMPERES), 1.5, 1e-9);
	CHECK_NEAR(sensor(s, "power-consumption", SAMPLE_UNIT_WATTS), 36.2, 1e-9);
	sample_free(s);

	pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	var_health(pdu, (oid[]){ 8, 0 }, 2, ASN_INTEGER, 243, NULL);
	var_health(pdu, (oid[]){ 10, 0 }, 2, ASN_GAUGE, 330, NULL);
	var_health(pdu, (oid[]){ 11, 0 }, 2, ASN_INTEGER, -55, NULL);
	var_health(pdu, (oid[]){ 13, 0 }, 2, ASN_INTEGER, 1500, NULL);
	var_health(pdu, (oid[]){ 15, 0 }, 2, ASN_INTEGER, 1, NULL);
	var_health(pdu, (oid[]){ 16, 0 }, 2, ASN_INTEGER, 0, NULL);
	s = health_walk(pdu);
	CHECK_INT(s->nsensors, 6);
	CHECK_NEAR(sensor(s, "voltage", SAMPLE_UNIT_VOLTS), 24.3, 1e-9);
	CHECK_NEAR(sensor(s, "temperature", SAMPLE_UNIT_CELSIUS), 33, 1e-9);
	CHECK_NEAR(sensor(s, "processor-temperature", SAMPLE_UNIT_CELSIUS), -5.5, 1e-9);
	CHECK_NEAR(sensor(s, "current", SAMPLE_UNIT_AMPERES), 1.5, 1e-9);
	CHECK_NEAR(sensor(s, "psu1-state", SAMPLE_UNIT_STATE), 1, 1e-9);
	CHECK_NEAR(sensor(s, "psu2-state", SAMPLE_UNIT_STATE), 0, 1e-9);
	sample_free(s);

	pdu = snmp_pdu_create(SNMP_MSG_RESPONSE); /* the next column after the subtree: none */
	var(pdu, (oid[]){ 1, 3, 6, 1, 4, 1, 14988, 1, 1, 4, 4, 0 }, 12, ASN_OCTET_STR, "7.1", 3);
	conf_router_t rc = { .name = (char *)"r", .snmp_version = 2 };
	snmpdecode_t *d = snmpdecode_create();
	s = sample_new("r", 0, "snmp");
	char *cause = NULL;
	snmpdecode_begin(d, &rc, s);
	snmpdecode_walk_start(d, SNMPDECODE_HEALTH);
	CHECK_INT(snmpdecode_walk(d, pdu, &cause), 0);
	snmpdecode_emit(d);
	CHECK(s->health_fresh && s->nsensors == 0);
	snmpdecode_end(d);
	snmpdecode_destroy(d);
	snmp_free_pdu(pdu);
	sample_free(s);
}

static void test_extend_and_pick(void)
{
	struct snmpdecode_ext e = { 0 };
	CHECK(snmpdecode_extend(&e, 0, 4294967000u) == 4294967000ull);
	CHECK(snmpdecode_extend(&e, 0, 100u) == 4294967000ull + 396); /* wrapped */
	CHECK(snmpdecode_extend(&e, 0, 5000u) == 4294967000ull + 396 + 4900);
	CHECK(snmpdecode_extend(&e, 0, 10u) == 10); /* reset, not a wrap */
	char *names[] = { (char *)"lo", (char *)"ether1" };
	char *wg[] = { (char *)"wg*", (char *)"wireguard*" }; /* the default of wg_names */
	conf_router_t rc = { .interfaces = names, .ninterfaces = 2, .wg_names = wg, .nwg_names = 2 };
	static const struct {
		const char *name;
		bool pick, wg;
	} cases[] = {
		{ "lo", true, false },
		{ "ether1", true, false },
		{ "wg0", true, true },
		{ "wg: Hub (NMS)", true, true },
		{ "wireguard1", true, true }, /* the name RouterOS gives a new WireGuard interface */
		{ "ether2", false, false },
		{ "Wg0", false, false },
		{ "my-wg0", false, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(snmpdecode_pick(&rc, cases[i].name) == cases[i].pick);
		CHECK(snmpdecode_is_wg(&rc, cases[i].name) == cases[i].wg);
	}
	char *hub[] = { (char *)"tunnel-*" }; /* wg_names replaces the default */
	rc.wg_names = hub, rc.nwg_names = 1;
	CHECK(snmpdecode_is_wg(&rc, "tunnel-hq") && snmpdecode_pick(&rc, "tunnel-hq"));
	CHECK(!snmpdecode_is_wg(&rc, "wg0") && !snmpdecode_pick(&rc, "wg0"));
}

/* The walk of ifName answered with one row named ifname (none: an empty view), from the CPU
 * step on; the step that comes after it. */
static enum snmpstep steps_after_names(struct snmpstep_poll *p, const char *ifname)
{
	const struct snmpdecode_oid *col = &snmpdecode_walk_cols[SNMPDECODE_NAMES];
	oid o[16];
	char *cause = NULL;
	CHECK_INT(snmpstep_next(p, SNMPSTEP_CPU), SNMPSTEP_NAMES);
	if (ifname != NULL) {
		netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
		pdu->errstat = SNMP_ERR_NOERROR; /* as parsed; created, it is SNMP_DEFAULT_ERRSTAT */
		memcpy(o, col->o, col->len * sizeof(oid));
		o[col->len] = 7;
		var(pdu, o, col->len + 1, ASN_OCTET_STR, ifname, strlen(ifname));
		CHECK_INT(snmpstep_reply(p, SNMPSTEP_NAMES, pdu, &cause), 1);
		snmp_free_pdu(pdu);
	}
	return snmpstep_next(p, SNMPSTEP_NAMES);
}

/* A new poll of p's router at the samples' clock ms. */
static void steps_poll(struct snmpstep_poll *p, int64_t ms)
{
	snmpdecode_end(p->dec);
	sample_free(p->s);
	p->s = snmpstep_begin(p->dec, p->rc, ms);
	p->s->mono_ms = ms;
}

/* The order of a poll's steps (snmpstep.c), which the collector and wgwatch-fill share: the
 * probe over v3 only until the engine is known, ifDescr only when ifName gave nothing, counters
 * only for picked rows, mtxrHealth once a minute of the samples' clock and never beside REST;
 * an error-status fails a step except SNMPv1's noSuchName. */
static void test_steps(void)
{
	char *wg[] = { (char *)"wg*" };
	conf_router_t rc = { .name = (char *)"r",
		.snmp = (char *)"192.0.2.1",
		.snmp_version = 2,
		.wg_names = wg,
		.nwg_names = 1 };
	struct snmpstep_poll p = { .rc = &rc, .dec = snmpdecode_create(), .health = healthkeep_create() };
	steps_poll(&p, 1000);
	CHECK(p.s->cores != NULL && p.s->ncores == 0 && !p.s->have_peers && p.s->time_ms == 1000);
	CHECK_INT(snmpstep_first(&p), SNMPSTEP_SCALARS);
	rc.snmp_version = 3;
	CHECK_INT(snmpstep_first(&p), SNMPSTEP_PROBE);
	p.engine_known = true;
	CHECK_INT(snmpstep_first(&p), SNMPSTEP_SCALARS);
	CHECK_INT(snmpstep_next(&p, SNMPSTEP_SCALARS), SNMPSTEP_CPU);
	CHECK_INT(steps_after_names(&p, NULL), SNMPSTEP_DESCRS);     /* ifName empty: ifDescr */
	CHECK_INT(steps_after_names(&p, "ether9"), SNMPSTEP_HEALTH); /* nothing picked: no GET */
	CHECK_INT(steps_after_names(&p, "wg0"), SNMPSTEP_COUNTERS);
	CHECK_INT(snmpstep_next(&p, SNMPSTEP_COUNTERS), SNMPSTEP_HEALTH);
	snmpstep_end(&p); /* the walk's sensors kept at 1000 */
	CHECK(p.s->nifaces == 1 && p.s->health_fresh);
	steps_poll(&p, 1000 + HEALTHKEEP_EVERY_MS - 1);
	CHECK_INT(snmpstep_next(&p, SNMPSTEP_COUNTERS), SNMPSTEP_N);
	steps_poll(&p, 1000 + HEALTHKEEP_EVERY_MS);
	CHECK_INT(snmpstep_next(&p, SNMPSTEP_COUNTERS), SNMPSTEP_HEALTH);
	rc.rest = (char *)"https://192.0.2.1"; /* the REST half reads /system/health */
	CHECK_INT(snmpstep_next(&p, SNMPSTEP_COUNTERS), SNMPSTEP_N);
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	char *cause = NULL;
	pdu->errstat = SNMP_ERR_NOSUCHNAME;
	CHECK_INT(snmpstep_reply(&p, SNMPSTEP_CPU, pdu, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "error-status") != NULL);
	free(cause);
	rc.snmp_version = 1; /* v1's end of the MIB view */
	CHECK_INT(snmpstep_reply(&p, SNMPSTEP_CPU, pdu, &cause), 0);
	snmp_free_pdu(pdu);
	snmpdecode_end(p.dec);
	sample_free(p.s);
	snmpdecode_destroy(p.dec);
	healthkeep_destroy(p.health);
}

/* A GET of counters: HC where the agent has them, 32-bit otherwise; row order checked. */
static void test_counters(void)
{
	snmpdecode_t *d = snmpdecode_create();
	conf_router_t rc = { .snmp_version = 2 };
	char *cause = NULL;
	sample_t *s = sample_new("r", 0, "snmp");
	snmpdecode_begin(d, &rc, s);
	snmpdecode_row_add(d, 7, "wg0");
	snmpdecode_row_add(d, 7, "wg0"); /* duplicate names: first wins */
	CHECK_INT(snmpdecode_nrows(d), 1);
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	pdu->errstat = SNMP_ERR_NOERROR;
	for (size_t k = 0; k < SNMPDECODE_NCOLS; k++) {
		const struct snmpdecode_col *col = &snmpdecode_counter_cols[k];
		oid o[MAX_OID_LEN];
		struct counter64 v64 = { .high = 1, .low = (u_long)k };
		u_long v32 = 1000 + k;
		memcpy(o, col->col.o, col->col.len * sizeof(oid));
		o[col->col.len] = 7;
		if (col->hc && col->slot == SLOT_TX_PKTS) /* this agent lacks one HC column */
			var(pdu, o, col->col.len + 1, SNMP_NOSUCHINSTANCE, NULL, 0);
		else if (col->hc)
			var(pdu, o, col->col.len + 1, ASN_COUNTER64, &v64, sizeof(v64));
		else
			var(pdu, o, col->col.len + 1, col->slot == SLOT_OPER ? ASN_INTEGER : ASN_COUNTER,
				col->slot == SLOT_OPER ? (void *)&(long){ 1 } : (void *)&v32, sizeof(long));
	}
	CHECK_INT(snmpdecode_counters(d, pdu, &cause), 0);
	snmpdecode_emit(d);
	CHECK_INT(s->nifaces, 1);
	CHECK_STR(s->ifaces[0].name, "wg0");
	CHECK(s->ifaces[0].rx_bytes == (1ull << 32 | 0));
	CHECK(s->ifaces[0].tx_bytes == (1ull << 32 | 1));
	CHECK(s->ifaces[0].tx_packets == 1007); /* ifOutUcastPkts */
	CHECK(s->ifaces[0].rx_drops == 1008);
	CHECK(s->ifaces[0].running);
	/* An answer for another row is refused. */
	d->next_row = 0;
	pdu->variables->name[pdu->variables->name_length - 1] = 8;
	CHECK_INT(snmpdecode_counters(d, pdu, &cause), -1);
	free(cause);
	snmp_free_pdu(pdu);
	snmpdecode_end(d);
	snmpdecode_destroy(d);
	sample_free(s);
}

/* One agent's answer to the scalar GET: descr, sysUpTime and hrSystemUptime in ticks (0: the
 * agent lacks it), then the MIKROTIK-MIB strings and entPhysicalDescr.65536 (NULL: lacks it). */
struct agent_shape {
	const char *descr;
	u_long sys, hr;
	const char *version, *firmware, *upgrade, *board, *ent;
};

static netsnmp_pdu *shape_pdu(const struct agent_shape *a)
{
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_RESPONSE);
	const char *text[SC_N] = { [SC_DESCR] = a->descr,
		[SC_VERSION] = a->version,
		[SC_FIRMWARE] = a->firmware,
		[SC_UPGRADE] = a->upgrade,
		[SC_BOARD] = a->board,
		[SC_ENTDESCR] = a->ent };
	for (int i = 0; i < SC_N; i++) {
		const struct snmpdecode_oid *o = &snmpdecode_scalar_oids[i];
		u_long t = i == SC_UPTIME ? a->sys : a->hr;
		if (i == SC_UPTIME || i == SC_HRUPTIME)
			var(pdu, o->o, o->len, t ? ASN_TIMETICKS : SNMP_NOSUCHOBJECT, &t, t ? sizeof(t) : 0);
		else if (text[i] != NULL)
			var_str(pdu, o, text[i]);
		else
			var(pdu, o->o, o->len, SNMP_NOSUCHOBJECT, NULL, 0);
	}
	return pdu;
}

/* The system scalars of real agents' shapes (routeros.md §4.2: LibreNMS captures): RouterOS 7's
 * "RouterOS <board>", RouterOS 6's "router" with the board (and the version when MIKROTIK-MIB
 * lacks it) in entPhysicalDescr.65536, and the uptime from hrSystemUptime, not the agent's. */
static void test_agent_shapes(void)
{
	static const struct {
		struct agent_shape a;
		const char *board, *version, *channel;
		int64_t uptime_ms;
	} cases[] = {
		{ { "RouterOS CCR1009-7G-1C-1S+", 100, 0, "7.21.5", "7.21.5", "7.21.5", NULL, NULL },
			"CCR1009-7G-1C-1S+", "7.21.5", NULL, 1000 },
		{ { "RouterOS RB750Gr3", 430400, 430500, "7.20beta2", NULL, NULL, "RB750Gr3", NULL },
			"RB750Gr3", "7.20beta2", NULL, 4305000 },
		/* librenms tests/snmpsim/routeros.snmprec: RouterOS 6.40.5 on an RB952Ui-5ac2nD */
		{ { "router", 2020400, 2020500, "6.40.5", NULL, NULL, NULL,
			  "RouterOS 6.40.5 (stable) on RB952Ui-5ac2nD" },
			"RB952Ui-5ac2nD", "6.40.5", "stable", 20205000 },
		/* no mtxrLicVersion: the version from entPhysicalDescr */
		{ { "router", 500, 0, NULL, NULL, NULL, NULL, "RouterOS 6.49.10 (long-term) on RB3011UiAS" },
			"RB3011UiAS", "6.49.10", "long-term", 5000 },
		/* mtxrBoardName wins over what sysDescr says */
		{ { "RouterOS something", 1, 2, "7.22.3", NULL, NULL, "CCR2004-16G-2S+",
			  "RouterOS 7.22.3 on X" },
			"CCR2004-16G-2S+", "7.22.3", NULL, 20 },
		/* not RouterOS at all */
		{ { "Linux gw 6.1.0", 7, 0, NULL, NULL, NULL, NULL, NULL }, NULL, NULL, NULL, 70 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snmpdecode_t *d = snmpdecode_create();
		conf_router_t rc = { .snmp_version = 2 };
		sample_t *s = sample_new("r", 0, "snmp");
		char *cause = NULL;
		snmpdecode_begin(d, &rc, s);
		netsnmp_pdu *pdu = shape_pdu(&cases[i].a);
		CHECK_INT(snmpdecode_scalars(d, pdu, &cause), 0);
		CHECK(cause == NULL);
		if (cases[i].board)
			CHECK_STR(s->board, cases[i].board);
		else
			CHECK(s->board == NULL);
		if (cases[i].version)
			CHECK_STR(s->version, cases[i].version);
		else
			CHECK(s->version == NULL);
		if (cases[i].channel)
			CHECK_STR(s->channel, cases[i].channel);
		else
			CHECK(s->channel == NULL);
		CHECK(s->uptime_ms == cases[i].uptime_ms);
		free(cause);
		snmp_free_pdu(pdu);
		snmpdecode_end(d);
		snmpdecode_destroy(d);
		sample_free(s);
	}
}

/* The SNMP service restarted (sysUpTime back to 0.5 s) while the router ran on: the uptime
 * (hrSystemUptime) grows, and the 32-bit counter extension keeps its past. */
static void test_agent_restart(void)
{
	snmpdecode_t *d = snmpdecode_create();
	conf_router_t rc = { .snmp_version = 2 };
	struct agent_shape a = { "RouterOS CCR1009-7G-1C-1S+", 900000, 1000000, "7.21.5", NULL, NULL, NULL,
		NULL };
	char *cause = NULL;
	for (int poll = 0; poll < 2; poll++) {
		sample_t *s = sample_new("r", 0, "snmp");
		snmpdecode_begin(d, &rc, s);
		if (poll == 0) {
			snmpdecode_ext_find(d, "ether1")->acc[0] = 5ull << 32; /* a past of wraps */
		} else {
			a.sys = 50;
			a.hr += 3000;
		}
		netsnmp_pdu *pdu = shape_pdu(&a);
		CHECK_INT(snmpdecode_scalars(d, pdu, &cause), 0);
		CHECK(s->uptime_ms == (poll == 0 ? 10000000 : 10030000));
		CHECK_INT(d->next_ext, 1); /* not taken for a reboot */
		snmp_free_pdu(pdu);
		snmpdecode_end(d);
		sample_free(s);
	}
	free(cause);
	snmpdecode_destroy(d);
}

static loop_t *test_loop;

static void test_done_stop(sample_t *s, void *arg)
{
	sample_t **out = arg;
	CHECK(*out == NULL); /* done exactly once */
	*out = s;
	loop_stop(test_loop);
}

static void test_watchdog(void *arg)
{
	loop_stop(arg);
}

/* A UDP socket on 127.0.0.1 standing in for an agent; *peer is "127.0.0.1:PORT". */
static int silent_agent(char **peer)
{
	int agent = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	CHECK(bind(agent, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	getsockname(agent, (struct sockaddr *)&sa, &len);
	*peer = xasprintf("127.0.0.1:%d", ntohs(sa.sin_port));
	return agent;
}

static int datagrams(int agent)
{
	char buf[2048];
	int n = 0;
	while (recv(agent, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

/* One poll of an agent that never answers, driven by the loop: it must end as one timeout,
 * outside poll(), after retries + 1 tries of the first request. Returns the datagrams sent. */
static int silent_poll(int retries, bool high_fd)
{
	char *peer;
	int agent = silent_agent(&peer);
	conf_router_t rc = { .name = (char *)"silent",
		.snmp = peer,
		.snmp_version = 2,
		.snmp_community = (char *)"secret-community",
		.timeout_ms = 600,
		.snmp_retries = retries };
	test_loop = loop_create();
	snmpcoll_t *m = snmpcoll_create(test_loop);
	collector_t col = snmpcoll_collector(m);
	sample_t *got = NULL;
	CHECK(col.handles(col.ctx, &rc));
	struct snmpcoll_conn *c = col.attach(col.ctx, &rc);
	CHECK_INT(col.poll(col.ctx, c, &rc, test_done_stop, &got), 0);
	CHECK(got == NULL); /* never from inside poll() */
	CHECK(c != NULL && (c->fd >= FD_SETSIZE) == high_fd);
	loop_after(test_loop, 5000, test_watchdog, test_loop);
	int64_t t0 = clock_mono_ms();
	loop_run(test_loop);
	CHECK(got != NULL);
	if (got != NULL) {
		CHECK_INT(got->err, SAMPLE_ERR_TIMEOUT);
		CHECK(clock_mono_ms() - t0 >= 550);
		CHECK(strstr(got->error, "secret-community") == NULL);
		CHECK(strstr(got->error, "GET system scalars") != NULL);
	}
	sample_free(got);
	snmpcoll_destroy(m);
	loop_destroy(test_loop);
	int n = datagrams(agent);
	close(agent);
	free(peer);
	return n;
}

/* With net-snmp's socket above FD_SETSIZE: the loop, not select(), watches it. */
static void test_timeout_high_fd(void)
{
	struct rlimit rl;
	int fillers[1100], nfill = 0;
	getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < 2048 && rl.rlim_max >= 2048) {
		rl.rlim_cur = 2048;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	while (nfill < 1100 && (fillers[nfill] = dup(0)) >= 0 && fillers[nfill] < FD_SETSIZE + 10)
		nfill++;
	CHECK_INT(silent_poll(2, true), 3); /* the first try and its 2 resends */
	while (nfill > 0)
		close(fillers[--nfill]);
}

/* snmp_retries = 0 sends each request once; 1 (the default) twice. */
static void test_retries(void)
{
	CHECK_INT(silent_poll(0, false), 1);
	CHECK_INT(silent_poll(1, false), 2);
}

/* Handles as the poller keeps them: any detached in any order, the rest freed by destroy. */
static void test_handles(void)
{
	snmpcoll_t *m = snmpcoll_create(NULL);
	collector_t col = snmpcoll_collector(m);
	conf_router_t rc = { .name = (char *)"r" };
	void *h[1000];
	for (int i = 0; i < 1000; i++)
		h[i] = col.attach(m, &rc);
	CHECK_INT(m->nconns, 1000);
	for (int i = 0; i < 1000; i += 3)
		col.detach(m, h[i]);
	CHECK_INT(m->nconns, 1000 - 334);
	size_t n = 0;
	for (struct snmpcoll_conn *c = m->conns; c != NULL; c = c->next)
		n += c->next == NULL || c->next->prev == c;
	CHECK_INT(n, 1000 - 334);
	col.detach(m, h[1]);
	col.cancel(m, h[2]); /* nothing in flight: a no-op */
	snmpcoll_destroy(m);
}

int main(void)
{
	test_health();
	snmpcoll_t *m = snmpcoll_create(NULL); /* initialises net-snmp for the decoding tests */
	test_scalars();
	test_numbers();
	test_fuzz_finds();
	test_walk();
	test_cores();
	test_extend_and_pick();
	test_counters();
	test_steps();
	test_agent_shapes();
	test_agent_restart();
	snmpcoll_destroy(m);
	test_timeout_high_fd();
	test_retries();
	test_handles();
	return unit_done("snmp");
}
