/* SPDX-License-Identifier: Apache-2.0 */
/* simmib: the objects every simulated router's SNMP agent serves (HOST-RESOURCES, IF-MIB,
 * ENTITY-MIB, MIKROTIK-MIB of routeros.md §4), found in simmenu's records (the REST values)
 * through a sorted table, and GET, GETNEXT, GETBULK and SET answered from it. It only finds
 * values: it never touches a socket, never does BER (net-snmp does) and never accepts a SET. */
#include "config.h"
#include "sim/simsnmp_int.h"
#include "sim/simmenu.h"
#include "lib/xmem.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARBINDS 256 /* per reply: caps GETBULK, keeps a reply far below 64 KiB */
#define OID_MAX      16

enum kind { K_SCALAR, K_IF, K_CPU, K_ENT, K_GAUGE };

enum what {
	S_DESCR,
	S_OBJID,
	S_UPTIME,
	S_NAME,
	S_IFNUMBER,
	S_VERSION,
	S_SERIAL,
	S_FIRMWARE,
	S_UPGRADE,
	S_BOARD,
	S_HRUP,
	E_DESCR,
	S_MHZ,
	C_INDEX,
	C_STR,
	C_INT,
	C_TYPE,
	C_ADMIN,
	C_OPER,
	C_C32,
	C_C64,
	C_EMPTY,
	P_LOAD,
	H_LEGACY, /* an mtxrHl* scalar: the flat health record's key, in tenths unless noted */
	G_NAME,   /* mtxrGaugeTable columns */
	G_VALUE,
	G_UNIT,
};

struct obj {
	oid o[OID_MAX];
	size_t len;
	enum kind kind;
	enum what what;
	const char *key; /* simmenu field of the interface (or flat health) record */
	int scale;       /* H_LEGACY: the factor of the value (10: tenths) */
};

#define O(...)      .o = { __VA_ARGS__ }, .len = sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid)
#define IFT(col)    O(1, 3, 6, 1, 2, 1, 2, 2, 1, col), .kind = K_IF
#define IFX(col)    O(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, col), .kind = K_IF
#define MTX(a, b)   O(1, 3, 6, 1, 4, 1, 14988, 1, 1, a, b), .kind = K_SCALAR
#define ENT(col)    O(1, 3, 6, 1, 2, 1, 47, 1, 1, 1, 1, col), .kind = K_ENT
#define GAUGE(c)    O(1, 3, 6, 1, 4, 1, 14988, 1, 1, 3, 100, 1, c), .kind = K_GAUGE
#define HL(b, k, f) MTX(3, b), .what = H_LEGACY, .key = k, .scale = f

/* In lexicographic order of OID (checked at create): GETNEXT walks it front to back. */
static const struct obj objs[] = {
	{ O(1, 3, 6, 1, 2, 1, 1, 1), .kind = K_SCALAR, .what = S_DESCR },       /* sysDescr */
	{ O(1, 3, 6, 1, 2, 1, 1, 2), .kind = K_SCALAR, .what = S_OBJID },       /* sysObjectID */
	{ O(1, 3, 6, 1, 2, 1, 1, 3), .kind = K_SCALAR, .what = S_UPTIME },      /* sysUpTime */
	{ O(1, 3, 6, 1, 2, 1, 1, 5), .kind = K_SCALAR, .what = S_NAME },        /* sysName */
	{ O(1, 3, 6, 1, 2, 1, 2, 1), .kind = K_SCALAR, .what = S_IFNUMBER },    /* ifNumber */
	{ IFT(1), .what = C_INDEX },                                            /* ifIndex */
	{ IFT(2), .what = C_STR, .key = "name" },                               /* ifDescr */
	{ IFT(3), .what = C_TYPE, .key = "type" },                              /* ifType */
	{ IFT(4), .what = C_INT, .key = "mtu" },                                /* ifMtu */
	{ IFT(7), .what = C_ADMIN, .key = "disabled" },                         /* ifAdminStatus */
	{ IFT(8), .what = C_OPER, .key = "running" },                           /* ifOperStatus */
	{ IFT(10), .what = C_C32, .key = "rx-byte" },                           /* ifInOctets */
	{ IFT(11), .what = C_C32, .key = "rx-packet" },                         /* ifInUcastPkts */
	{ IFT(13), .what = C_C32, .key = "rx-drop" },                           /* ifInDiscards */
	{ IFT(14), .what = C_C32, .key = "rx-error" },                          /* ifInErrors */
	{ IFT(16), .what = C_C32, .key = "tx-byte" },                           /* ifOutOctets */
	{ IFT(17), .what = C_C32, .key = "tx-packet" },                         /* ifOutUcastPkts */
	{ IFT(19), .what = C_C32, .key = "tx-drop" },                           /* ifOutDiscards */
	{ IFT(20), .what = C_C32, .key = "tx-error" },                          /* ifOutErrors */
	{ O(1, 3, 6, 1, 2, 1, 25, 1, 1), .kind = K_SCALAR, .what = S_HRUP },    /* hrSystemUptime */
	{ O(1, 3, 6, 1, 2, 1, 25, 3, 3, 1, 2), .kind = K_CPU, .what = P_LOAD }, /* hrProcessorLoad */
	{ IFX(1), .what = C_STR, .key = "name" },                               /* ifName */
	{ IFX(6), .what = C_C64, .key = "rx-byte" },                            /* ifHCInOctets */
	{ IFX(7), .what = C_C64, .key = "rx-packet" },                          /* ifHCInUcastPkts */
	{ IFX(10), .what = C_C64, .key = "tx-byte" },                           /* ifHCOutOctets */
	{ IFX(11), .what = C_C64, .key = "tx-packet" },                         /* ifHCOutUcastPkts */
	{ IFX(18), .what = C_EMPTY },                                           /* ifAlias */
	{ ENT(2), .what = E_DESCR },                                            /* entPhysicalDescr */
	{ HL(6, "cpu-temperature", 10) },                                       /* mtxrHlCpuTemperature */
	{ HL(8, "voltage", 10) },                                               /* mtxrHlVoltage */
	{ HL(10, "temperature", 10) },                                          /* mtxrHlTemperature */
	{ HL(12, "power-consumption", 10) },                                    /* mtxrHlPower */
	{ MTX(3, 14), .what = S_MHZ },                                          /* mtxrHlProcessorFrequency */
	{ HL(15, "psu1-state", 1) },                                            /* ...PowerSupplyState */
	{ HL(16, "psu2-state", 1) },       /* ...BackupPowerSupplyState */
	{ HL(17, "fan1-speed", 1) },       /* mtxrHlFanSpeed1 */
	{ HL(18, "fan2-speed", 1) },       /* mtxrHlFanSpeed2 */
	{ GAUGE(2), .what = G_NAME },      /* mtxrGaugeName */
	{ GAUGE(3), .what = G_VALUE },     /* mtxrGaugeValue */
	{ GAUGE(4), .what = G_UNIT },      /* mtxrGaugeUnit */
	{ MTX(4, 4), .what = S_VERSION },  /* mtxrLicVersion */
	{ MTX(7, 3), .what = S_SERIAL },   /* mtxrSerialNumber */
	{ MTX(7, 4), .what = S_FIRMWARE }, /* mtxrFirmwareVersion */
	{ MTX(7, 7), .what = S_UPGRADE },  /* ...UpgradeVersion */
	{ MTX(7, 9), .what = S_BOARD },    /* mtxrBoardName */
};
#define NOBJS (sizeof(objs) / sizeof(objs[0]))

/* One router at one time, its records filled on first use. */
struct view {
	struct simmib *m;
	const simrouter_t *r;
	long version;
	struct simmenu_ctx c;
	int nif; /* -1 until the interface records are filled */
	bool rb_done;
	struct simmenu_rec rb;
	int nhealth; /* -1 until filled: rows of /system/health (v7), 1 flat record (v6), or 0 */
	bool health_flat;
	struct simmenu_rec *health; /* m->health */
};
#define SIMMIB_MAX_HEALTH 12

/* A value ready for snmp_varlist_add_variable (which copies it). */
struct val {
	u_char type;
	long i;
	u_long u;
	struct counter64 c64;
	const void *p;
	size_t len;
	char buf[SIMMENU_VLEN];
};

void simmib_init(struct simmib *m)
{
	*m = (struct simmib){ .m_if = simmenu_find("interface"),
		.m_rb = simmenu_find("system/routerboard"),
		.m_health = simmenu_find("system/health"),
		.health = xcalloc(SIMMIB_MAX_HEALTH, sizeof(*m->health)) };
	for (size_t i = 1; i < NOBJS; i++)
		assert(snmp_oid_compare(objs[i - 1].o, objs[i - 1].len, objs[i].o, objs[i].len) < 0);
}

void simmib_fini(struct simmib *m)
{
	free(m->recs);
	free(m->ifindex);
	free(m->health);
}

/* ---- the router's records ---- */

static void simmib_view_ifs(struct view *v)
{
	struct simmib *m = v->m;
	if (v->nif >= 0)
		return;
	v->nif = m->m_if->count(&v->c);
	if (v->nif > m->nrecs) {
		m->recs = xreallocarray(m->recs, (size_t)v->nif, sizeof(*m->recs));
		m->ifindex = xreallocarray(m->ifindex, (size_t)v->nif, sizeof(*m->ifindex));
		m->nrecs = v->nif;
	}
	for (int i = 0; i < v->nif; i++) {
		m->recs[i].n = 0;
		m->m_if->fill(&v->c, i, &m->recs[i]);
		/* ifIndex as RouterOS numbers it: 1.. in order of creation, a gap where an
		 * interface was removed (one in five here), nothing to do with the REST .id */
		uint64_t h = simrouter_hash(v->r, 8, (uint64_t)i);
		m->ifindex[i] = (i ? m->ifindex[i - 1] : 0) + 1 +
			(i > 1 && h % 5 == 0 ? 1 + (h >> 8) % 3 : 0);
	}
}

static const char *simmib_view_rb(struct view *v, const char *key)
{
	if (!v->rb_done) {
		v->rb.n = 0;
		v->m->m_rb->fill(&v->c, 0, &v->rb);
		v->rb_done = true;
	}
	return simmenu_get(&v->rb, key);
}

/* /system/health as REST serves it: the rows feed mtxrGaugeTable, a flat record (health = v6)
 * the mtxrHl* scalars; a router with neither has no health objects. */
static void simmib_view_health(struct view *v)
{
	const struct simmenu *m = v->m->m_health;
	if (v->nhealth >= 0)
		return;
	v->health_flat = simmenu_flat(m, &v->c);
	v->health = v->m->health;
	v->nhealth = v->health_flat ? 1 : m->count(&v->c);
	if (v->nhealth > SIMMIB_MAX_HEALTH)
		v->nhealth = SIMMIB_MAX_HEALTH;
	for (int i = 0; i < v->nhealth; i++) {
		v->health[i].n = 0;
		m->fill(&v->c, i, &v->health[i]);
	}
}

static bool simmib_ros6(const struct view *v)
{
	return simrouter_group(v->r)->shape & SC_SHAPE_SNMP_ROS6;
}

static int simmib_obj_rows(struct view *v, const struct obj *o)
{
	if (o->kind == K_GAUGE) {
		simmib_view_health(v);
		return v->health_flat ? 0 : v->nhealth;
	}
	if (o->kind == K_SCALAR)
		return 1;
	if (o->kind == K_ENT) /* the chassis entity: served by the RouterOS 6 agent */
		return simmib_ros6(v) ? 1 : 0;
	if (o->kind == K_CPU)
		return simrouter_group(v->r)->cores;
	simmib_view_ifs(v);
	return v->nif;
}

static oid simmib_obj_index(const struct view *v, const struct obj *o, int k)
{
	if (o->kind == K_GAUGE) { /* mtxrGaugeIndex from the .id, as ifIndex (ascending) */
		const char *id = simmenu_get(&v->health[k], ".id");
		return id && id[0] == '*' ? strtoul(id + 1, NULL, 16) : (oid)k + 1;
	}
	return o->kind == K_SCALAR ? 0
		: o->kind == K_CPU ? (oid)k + 1
		: o->kind == K_ENT ? 65536
				   : v->m->ifindex[k];
}

/* ---- values ---- */

static void simmib_val_str(struct val *out, const char *s)
{
	out->type = ASN_OCTET_STR;
	out->p = s;
	out->len = strlen(s);
}

static void simmib_val_int(struct val *out, u_char type, long i)
{
	out->type = type;
	out->i = i;
	out->u = (u_long)i;
	out->p = type == ASN_INTEGER ? (const void *)&out->i : (const void *)&out->u;
	out->len = sizeof(long);
}

/* The IANA ifType of a RouterOS interface type; lo_24: the loopback as softwareLoopback (24). */
static int simmib_if_type(const char *t, bool lo_24)
{
	static const struct {
		const char *ros;
		int iana;
	} map[] = {
		{ "ether", 6 },
		{ "bridge", 209 },
		{ "vlan", 135 },
		{ "eoip", 131 },
		{ "wlan", 71 },
		{ "pppoe-out", 23 },
	};
	for (size_t i = 0; t && i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(t, map[i].ros) == 0)
			return map[i].iana;
	if (lo_24 && t && strcmp(t, "loopback") == 0)
		return 24; /* as IANA and most agents have it; RouterOS 7.20 says 1 (routeros.md §3) */
	return 1;          /* other: wg and lo alike, as RouterOS reports them (routeros.md §4.4) */
}

/* An interface column of row k. */
static int simmib_if_value(struct view *v, const struct obj *o, int k, struct val *out)
{
	const struct simmenu_rec *rec = &v->m->recs[k];
	const char *f = o->key ? simmenu_get(rec, o->key) : "";
	uint64_t u = f ? strtoull(f, NULL, 10) : 0;
	if (!f)
		return -1;
	switch (o->what) {
	case C_INDEX: simmib_val_int(out, ASN_INTEGER, (long)v->m->ifindex[k]); break;
	case C_STR:
	case C_EMPTY: simmib_val_str(out, f); break;
	case C_INT: simmib_val_int(out, ASN_INTEGER, (long)u); break;
	case C_TYPE:
		simmib_val_int(out, ASN_INTEGER,
			simmib_if_type(f, simrouter_group(v->r)->shape & SC_SHAPE_LO_TYPE_24));
		break;
	case C_ADMIN: simmib_val_int(out, ASN_INTEGER, strcmp(f, "true") == 0 ? 2 : 1); break;
	case C_OPER: simmib_val_int(out, ASN_INTEGER, strcmp(f, "true") == 0 ? 1 : 2); break;
	case C_C32: simmib_val_int(out, ASN_COUNTER, (long)(u & 0xffffffffu)); break;
	case C_C64:
		out->type = ASN_COUNTER64;
		out->c64.high = (u_long)(u >> 32);
		out->c64.low = (u_long)(u & 0xffffffffu);
		out->p = &out->c64;
		out->len = sizeof(out->c64);
		break;
	default: return -1;
	}
	return 0;
}

static int simmib_rb_value(struct view *v, const char *key, struct val *out)
{
	const char *s = simmib_view_rb(v, key);
	if (!s)
		return -1; /* CHR: no RouterBOARD objects (routeros.md §4.5) */
	simmib_val_str(out, s);
	return 0;
}

/* TimeTicks of seconds, modulo 2^32 as the agent sends them. */
static void simmib_val_ticks(struct val *out, double sec)
{
	simmib_val_int(out, ASN_TIMETICKS, (long)((uint64_t)(sec * 100) & 0xffffffffu));
}

/* sysUpTime is the agent's: it started a few seconds after boot, and again every
 * snmp_restart_every (the router's uptime is hrSystemUptime). */
static double simmib_agent_uptime(const struct view *v)
{
	const struct sc_group *g = simrouter_group(v->r);
	double up = v->c.uptime - (double)(2 + simrouter_hash(v->r, 9, 0) % 20);
	if (up < 0)
		return 0;
	return g->snmp_restart_every > 0 ? fmod(up, g->snmp_restart_every) : up;
}

static int simmib_scalar_value(struct view *v, const struct obj *o, struct val *out)
{
	static const oid mikrotik[] = { 1, 3, 6, 1, 4, 1, 14988, 1 };
	const struct sc_group *g = simrouter_group(v->r);
	switch (o->what) {
	case S_DESCR: /* RouterOS 6: "router" (docs/routeros.md §3) */
		snprintf(out->buf, sizeof(out->buf), simmib_ros6(v) ? "router" : "RouterOS %s", g->board);
		simmib_val_str(out, out->buf);
		return 0;
	case S_OBJID:
		out->type = ASN_OBJECT_ID;
		out->p = mikrotik;
		out->len = sizeof(mikrotik);
		return 0;
	case S_UPTIME: simmib_val_ticks(out, simmib_agent_uptime(v)); return 0;
	case S_HRUP: simmib_val_ticks(out, v->c.uptime); return 0;
	case S_NAME: simmib_val_str(out, simrouter_name(v->r)); return 0;
	case S_IFNUMBER:
		simmib_val_int(out, ASN_INTEGER, simmib_obj_rows(v, &(struct obj){ .kind = K_IF }));
		return 0;
	case S_VERSION: simmib_val_str(out, v->c.st->version); return 0;
	case S_SERIAL: return simmib_rb_value(v, "serial-number", out);
	case S_FIRMWARE: return simmib_rb_value(v, "current-firmware", out);
	case S_UPGRADE: return simmib_rb_value(v, "upgrade-firmware", out);
	case S_BOARD:
		if (simmib_ros6(v))
			return -1; /* no mtxrBoardName on the RouterOS 6 agent */
		simmib_val_str(out, g->board);
		return 0;
	case S_MHZ:
		if (v->c.st->cpu_mhz <= 0)
			return -1; /* like a board without cpu-frequency */
		simmib_val_int(out, ASN_INTEGER, v->c.st->cpu_mhz);
		return 0;
	default: return -1;
	}
}

/* A health value as the MIB carries it: scale x the decimal ("24.3" x 10 = 243); a state is
 * 1 for ok in the legacy scalars, 0 for ok in the gauge table. */
static long simmib_health_num(const char *value, int scale, bool legacy)
{
	if (strcmp(value, "ok") == 0 || strcmp(value, "fail") == 0)
		return (strcmp(value, "ok") == 0) == legacy;
	return lround(strtod(value, NULL) * scale);
}

static int simmib_gauge_unit(const char *type)
{
	static const char *const units[] = { "C", "RPM", "V", "A", "W" };
	for (int i = 0; type != NULL && i < 5; i++)
		if (strcmp(type, units[i]) == 0)
			return i + 1;
	return 6; /* "": a state */
}

static int simmib_health_value(struct view *v, const struct obj *o, int k, struct val *out)
{
	simmib_view_health(v);
	if (o->what == H_LEGACY) {
		const char *f = v->health_flat ? simmenu_get(&v->health[0], o->key) : NULL;
		if (f == NULL)
			return -1;
		simmib_val_int(out, ASN_INTEGER, simmib_health_num(f, o->scale, true));
		return 0;
	}
	const char *name = simmenu_get(&v->health[k], "name"), *value = simmenu_get(&v->health[k], "value");
	int unit = simmib_gauge_unit(simmenu_get(&v->health[k], "type"));
	if (name == NULL || value == NULL)
		return -1;
	if (o->what == G_NAME)
		simmib_val_str(out, name);
	else if (o->what == G_UNIT)
		simmib_val_int(out, ASN_INTEGER, unit);
	else /* Gauge32 as the MIB declares; deci-units for V, A, W */
		simmib_val_int(
			out, ASN_GAUGE, simmib_health_num(value, unit >= 3 && unit <= 5 ? 10 : 1, false));
	return 0;
}

/* The value of instance k of o; -1 when the router has no such object (or v1 cannot carry it). */
static int simmib_obj_value(struct view *v, const struct obj *o, int k, struct val *out)
{
	if (o->kind == K_GAUGE || o->what == H_LEGACY)
		return simmib_health_value(v, o, k, out);
	if (o->kind == K_SCALAR)
		return simmib_scalar_value(v, o, out);
	if (o->kind == K_CPU) {
		simmib_val_int(out, ASN_INTEGER, simrouter_core_load(v->r, v->c.t, k));
		return 0;
	}
	if (o->kind == K_ENT) {
		snprintf(out->buf, sizeof(out->buf), "RouterOS %s (%s) on %s", v->c.st->version,
			v->c.st->channel, simrouter_group(v->r)->board);
		simmib_val_str(out, out->buf);
		return 0;
	}
	if (o->what == C_C64 && v->version == SNMP_VERSION_1)
		return -1;
	return simmib_if_value(v, o, k, out);
}

/* ---- GET, GETNEXT ---- */

static void simmib_add_var(netsnmp_variable_list **list, const oid *name, size_t len, const struct val *val)
{
	snmp_varlist_add_variable(list, name, len, val->type, val->p, val->len);
}

static void simmib_add_exception(netsnmp_variable_list **list, const oid *name, size_t len, u_char type)
{
	snmp_varlist_add_variable(list, name, len, type, NULL, 0);
}

/* GET of one name: 0 and a value; else the exception (noSuchObject or noSuchInstance). */
static int simmib_get_one(struct view *v, const oid *name, size_t len, struct val *out)
{
	for (size_t i = 0; i < NOBJS; i++) {
		const struct obj *o = &objs[i];
		if (len < o->len || snmp_oid_ncompare(name, len, o->o, o->len, o->len) != 0)
			continue;
		if (len != o->len + 1)
			return SNMP_NOSUCHINSTANCE;
		int rows = simmib_obj_rows(v, o);
		for (int k = 0; k < rows; k++)
			if (simmib_obj_index(v, o, k) == name[o->len])
				return simmib_obj_value(v, o, k, out) == 0 ? 0 : SNMP_NOSUCHOBJECT;
		return SNMP_NOSUCHINSTANCE;
	}
	return SNMP_NOSUCHOBJECT;
}

/* The first row of o whose instance is greater than name, or -1. */
static int simmib_first_row_after(struct view *v, const struct obj *o, const oid *name, size_t len)
{
	size_t common = len < o->len ? len : o->len;
	int cmp = snmp_oid_compare(name, common, o->o, common);
	if (cmp > 0)
		return -1;
	int rows = simmib_obj_rows(v, o);
	if (cmp < 0 || len <= o->len)
		return rows > 0 ? 0 : -1;
	for (int k = 0; k < rows; k++)
		if (simmib_obj_index(v, o, k) > name[o->len])
			return k;
	return -1;
}

/* GETNEXT of one name: fills next[] (OID_MAX + 1 long) and out; false at the end of the MIB. */
static bool simmib_next_one(
	struct view *v, const oid *name, size_t len, oid *next, size_t *next_len, struct val *out)
{
	for (size_t i = 0; i < NOBJS; i++) {
		const struct obj *o = &objs[i];
		int k = simmib_first_row_after(v, o, name, len);
		if (k < 0)
			continue;
		for (int rows = simmib_obj_rows(v, o); k < rows; k++) {
			if (simmib_obj_value(v, o, k, out) < 0)
				continue;
			memcpy(next, o->o, o->len * sizeof(oid));
			next[o->len] = simmib_obj_index(v, o, k);
			*next_len = o->len + 1;
			return true;
		}
	}
	return false;
}

/* GET or GETNEXT of every varbind. 0, or a v1 error status with *errindex (the reply then
 * carries the request's varbinds). */
static long simmib_get_next(
	struct view *v, int cmd, const netsnmp_variable_list *q, netsnmp_variable_list **list, long *errindex)
{
	oid next[OID_MAX + 1];
	size_t next_len;
	struct val val;
	for (long i = 1; q; q = q->next_variable, i++) {
		int ex = 0;
		if (cmd == SNMP_MSG_GET) {
			ex = simmib_get_one(v, q->name, q->name_length, &val);
			if (ex == 0)
				simmib_add_var(list, q->name, q->name_length, &val);
		} else if (simmib_next_one(v, q->name, q->name_length, next, &next_len, &val)) {
			simmib_add_var(list, next, next_len, &val);
		} else {
			ex = SNMP_ENDOFMIBVIEW;
		}
		if (ex != 0 && v->version == SNMP_VERSION_1) {
			*errindex = i;
			return SNMP_ERR_NOSUCHNAME;
		}
		if (ex != 0)
			simmib_add_exception(list, q->name, q->name_length, (u_char)ex);
	}
	return 0;
}

/* One GETBULK repetition of every repeater; false once all of them reached the end. */
static bool simmib_bulk_round(
	struct view *v, oid *cur, size_t *cur_len, int nrep, netsnmp_variable_list **list)
{
	struct val val;
	bool any = false;
	for (int r = 0; r < nrep; r++) {
		oid *c = cur + (size_t)r * MAX_OID_LEN;
		if (cur_len[r] && simmib_next_one(v, c, cur_len[r], c, &cur_len[r], &val)) {
			simmib_add_var(list, c, cur_len[r], &val);
			any = true;
		} else {
			simmib_add_exception(list, c, cur_len[r] ? cur_len[r] : 0, SNMP_ENDOFMIBVIEW);
		}
	}
	return any;
}

static void simmib_get_bulk(struct view *v, long nonrep, long maxrep, const netsnmp_variable_list *q,
	netsnmp_variable_list **list)
{
	oid next[OID_MAX + 1];
	size_t next_len;
	struct val val;
	int n = 0;
	for (const netsnmp_variable_list *p = q; p; p = p->next_variable)
		n++;
	nonrep = nonrep < 0 ? 0 : nonrep > n ? n : nonrep;
	for (long i = 0; i < nonrep; i++, q = q->next_variable) {
		if (simmib_next_one(v, q->name, q->name_length, next, &next_len, &val))
			simmib_add_var(list, next, next_len, &val);
		else
			simmib_add_exception(list, q->name, q->name_length, SNMP_ENDOFMIBVIEW);
	}
	int nrep = n - (int)nonrep;
	if (nrep == 0 || maxrep <= 0)
		return;
	if (maxrep > (MAX_VARBINDS - nonrep) / nrep)
		maxrep = (MAX_VARBINDS - nonrep) / nrep > 0 ? (MAX_VARBINDS - nonrep) / nrep : 1;
	oid *cur = xcalloc((size_t)nrep * MAX_OID_LEN, sizeof(oid));
	size_t *cur_len = xcalloc((size_t)nrep, sizeof(size_t));
	for (int r = 0; r < nrep; r++, q = q->next_variable) {
		cur_len[r] = q->name_length <= MAX_OID_LEN ? q->name_length : MAX_OID_LEN;
		memcpy(cur + (size_t)r * MAX_OID_LEN, q->name, cur_len[r] * sizeof(oid));
	}
	for (long m = 0; m < maxrep && simmib_bulk_round(v, cur, cur_len, nrep, list); m++)
		;
	free(cur);
	free(cur_len);
}

/* Turn the request pdu into its response. -1: no answer at all. */
int simmib_respond(struct simmib *m, const simrouter_t *r, netsnmp_pdu *pdu, double t)
{
	struct view v = { .m = m, .r = r, .version = pdu->version, .nif = -1, .nhealth = -1 };
	netsnmp_variable_list *list = NULL;
	long errstat = 0, errindex = 0;
	simmenu_ctx_init(&v.c, r, t, 0);
	switch (pdu->command) {
	case SNMP_MSG_GET:
	case SNMP_MSG_GETNEXT:
		errstat = simmib_get_next(&v, pdu->command, pdu->variables, &list, &errindex);
		break;
	case SNMP_MSG_GETBULK:
		if (pdu->version == SNMP_VERSION_1)
			return -1;
		simmib_get_bulk(&v, pdu->non_repeaters, pdu->max_repetitions, pdu->variables, &list);
		break;
	case SNMP_MSG_SET:
		errstat = pdu->version == SNMP_VERSION_1 ? SNMP_ERR_NOSUCHNAME : SNMP_ERR_NOTWRITABLE;
		errindex = 1;
		break;
	default: return -1;
	}
	if (errstat == 0) {
		snmp_free_varbind(pdu->variables);
		pdu->variables = list;
	} else {
		snmp_free_varbind(list);
	}
	pdu->command = SNMP_MSG_RESPONSE;
	pdu->errstat = errstat;
	pdu->errindex = errindex;
	return 0;
}
