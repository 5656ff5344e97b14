/* SPDX-License-Identifier: Apache-2.0 */
/* snmpdecode: the OIDs an SNMP poll asks for and the decoding of the varbinds that come back
 * (scalars, walk rows, counters) into a sample. Agents are untrusted: every value is checked
 * for type and range, every OID against what was asked. It must never do I/O or log; a bad
 * answer is a cause for the caller. */
#include "config.h"
#include "collectors/netsnmp.h"

#include "collectors/snmpdecode.h"
#include "collectors/snmphealth.h"
#include "lib/buf.h"
#include "daemon/ros.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SNMPDECODE_MAX_ROWS     4096 /* per walked column: a runaway agent stops here */
#define SNMPDECODE_ROWS_PER_GET 4    /* interfaces whose counters one GET asks for */
#define SNMPDECODE_MAX_TEXT     255  /* longest string kept from an agent */

struct snmpdecode_oid {
	oid o[16];
	size_t len;
};
#define SNMPDECODE_OID(...)                                                               \
	{                                                                                 \
		.o = { __VA_ARGS__ }, .len = sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid) \
	}

/* In the order of the GET, which decoding relies on: the later ones refine the earlier. */
enum {
	SC_DESCR,
	SC_UPTIME,
	SC_VERSION,
	SC_FIRMWARE,
	SC_UPGRADE,
	SC_BOARD,
	SC_HRUPTIME,
	SC_ENTDESCR,
	SC_MHZ,
	SC_N
};
static const struct snmpdecode_oid snmpdecode_scalar_oids[SC_N] = {
	[SC_DESCR] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 1, 1, 0),                 /* sysDescr */
	[SC_UPTIME] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 1, 3, 0),                /* sysUpTime */
	[SC_VERSION] = SNMPDECODE_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 4, 4, 0),  /* mtxrLicVersion */
	[SC_FIRMWARE] = SNMPDECODE_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 4, 0), /* mtxrFirmwareVersion */
	[SC_UPGRADE] = SNMPDECODE_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 7, 0),  /* ...UpgradeVersion */
	[SC_BOARD] = SNMPDECODE_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 9, 0),    /* mtxrBoardName */
	[SC_HRUPTIME] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 25, 1, 1, 0),          /* hrSystemUptime */
	/* entPhysicalDescr of RouterOS's chassis entity, "RouterOS 6.40.5 (stable) on RB952Ui-5ac2nD" */
	[SC_ENTDESCR] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 47, 1, 1, 1, 1, 2, 65536),
	[SC_MHZ] = SNMPDECODE_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 3, 14, 0), /* mtxrHlProcessorFrequency */
};
static const struct snmpdecode_oid snmpdecode_walk_cols[] = {
	[SNMPDECODE_CPU] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 25, 3, 3, 1, 2),    /* hrProcessorLoad */
	[SNMPDECODE_NAMES] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 1),  /* ifName */
	[SNMPDECODE_DESCRS] = SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 2),     /* ifDescr */
	[SNMPDECODE_HEALTH] = SNMPDECODE_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 3), /* mtxrHealth */
};

/* Counter slots of an interface row; SLOT_OPER is ifOperStatus. */
enum {
	SLOT_RX_BYTES,
	SLOT_TX_BYTES,
	SLOT_RX_PKTS,
	SLOT_TX_PKTS,
	SLOT_RX_DROPS,
	SLOT_TX_DROPS,
	SLOT_OPER,
	SLOT_N
};
struct snmpdecode_col {
	struct snmpdecode_oid col;
	int slot;
	bool hc; /* 64-bit ifXTable column: not asked over SNMPv1 */
};
static const struct snmpdecode_col snmpdecode_counter_cols[] = {
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6), SLOT_RX_BYTES, true },  /* ifHCInOctets */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 10), SLOT_TX_BYTES, true }, /* ifHCOutOctets */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 7), SLOT_RX_PKTS, true },   /* ifHCInUcastPkts */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 11), SLOT_TX_PKTS, true },  /* ifHCOutUcastPkts */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 10), SLOT_RX_BYTES, false },    /* ifInOctets */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 16), SLOT_TX_BYTES, false },    /* ifOutOctets */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 11), SLOT_RX_PKTS, false },     /* ifInUcastPkts */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 17), SLOT_TX_PKTS, false },     /* ifOutUcastPkts */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 13), SLOT_RX_DROPS, false },    /* ifInDiscards */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 19), SLOT_TX_DROPS, false },    /* ifOutDiscards */
	{ SNMPDECODE_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 8), SLOT_OPER, false },         /* ifOperStatus */
};
#define SNMPDECODE_NCOLS (sizeof(snmpdecode_counter_cols) / sizeof(snmpdecode_counter_cols[0]))

/* One picked interface while a poll runs. */
struct snmpdecode_row {
	oid index;
	char *name;
	bool have[SLOT_N], hc[SLOT_N];
	uint64_t val[SLOT_N];
};

/* 32-bit counters made monotonic 64-bit between polls (wraps added, resets followed). */
struct snmpdecode_ext {
	char *name;
	bool seen[SLOT_OPER];
	uint32_t last[SLOT_OPER];
	uint64_t acc[SLOT_OPER];
};

struct snmpdecode {
	const conf_router_t *rc; /* borrowed for one poll */
	sample_t *s;
	unsigned skip; /* SNMPv1: scalars the agent said it lacks (bit per SC_*) */
	enum snmpdecode_walk walk;
	oid cursor[MAX_OID_LEN]; /* walk: the last OID seen */
	size_t cursor_len, walked;
	struct snmpdecode_row *rows;
	size_t nrows, next_row;
	struct snmpdecode_ext *ext;
	size_t next_ext;
	int64_t last_uptime_ms;
	bool health_walked;   /* this poll walks mtxrHealth */
	snmphealth_t *health; /* what the walk brought */
};

/* ---- values ---- */

static bool snmpdecode_is_exception(const netsnmp_variable_list *v)
{
	return v->type == SNMP_NOSUCHOBJECT || v->type == SNMP_NOSUCHINSTANCE || v->type == SNMP_ENDOFMIBVIEW;
}

char *snmpdecode_text(const netsnmp_variable_list *v)
{
	size_t n = v->val_len > SNMPDECODE_MAX_TEXT ? SNMPDECODE_MAX_TEXT : v->val_len;
	char *d = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		u_char ch = v->val.string[i];
		d[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	d[n] = '\0';
	return d;
}

static int snmpdecode_var_text(const netsnmp_variable_list *v, char **out, char **cause)
{
	if (v->type != ASN_OCTET_STR) {
		*cause = xasprintf("type 0x%02x where a string belongs", (unsigned)v->type);
		return -1;
	}
	free(*out);
	*out = snmpdecode_text(v);
	return 0;
}

/* What the router says of itself (board, firmware), cut as restdecode cuts it. */
static int snmpdecode_var_ident(const netsnmp_variable_list *v, char **out, char **cause)
{
	if (snmpdecode_var_text(v, out, cause) < 0)
		return -1;
	char *cut = text_cap(*out, TEXT_IDENTITY_MAX);
	free(*out);
	*out = cut;
	return 0;
}

/* Counter32/64, Gauge32, TimeTicks or a non-negative INTEGER as an unsigned number. */
static int snmpdecode_var_u64(const netsnmp_variable_list *v, uint64_t *out, char **cause)
{
	switch (v->type) {
	case ASN_COUNTER64:
		*out = ((uint64_t)v->val.counter64->high << 32) | (uint32_t)v->val.counter64->low;
		return 0;
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS: *out = (uint32_t)*v->val.integer; return 0;
	case ASN_INTEGER:
		if (*v->val.integer >= 0) {
			*out = (uint64_t)*v->val.integer;
			return 0;
		}
		*cause = xasprintf("negative value %ld where a count belongs", *v->val.integer);
		return -1;
	default: *cause = xasprintf("type 0x%02x where a number belongs", (unsigned)v->type); return -1;
	}
}

/* Dotted numeric, without net-snmp's MIB tree (none is loaded). */
static char *snmpdecode_oid_text(const oid *o, size_t len)
{
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < len && i < MAX_OID_LEN; i++)
		buf_printf(&b, ".%lu", (unsigned long)o[i]);
	if (len > MAX_OID_LEN)
		buf_puts(&b, "...");
	return buf_steal(&b, NULL);
}

/* ---- scalars ---- */

/* The CPU clock in MHz (a confounder, docs/detector.md); a value that is no clock is ignored. */
static void snmpdecode_mhz(const netsnmp_variable_list *v, sample_t *s)
{
	uint64_t mhz;
	char *cause = NULL;
	if (snmpdecode_var_u64(v, &mhz, &cause) == 0 && mhz <= 1000000)
		s->cpu_freq_mhz = (uint32_t)mhz;
	free(cause);
}

/* What RouterOS says of itself in sysDescr (v7: "RouterOS <board>"; v6: "router") and in
 * entPhysicalDescr.65536 ("RouterOS <version> (<channel>) on <board>"): fills the board, the
 * version and the channel that are still unknown (docs/snmp.md, docs/routeros.md §3). */
static void snmpdecode_ros_descr(const char *text, sample_t *s)
{
	if (strncmp(text, "RouterOS ", 9) != 0 || text[9] == '\0')
		return;
	const char *rest = text + 9, *on = strstr(rest, " on ");
	if (on == NULL) {
		if (s->board == NULL)
			s->board = text_cap(rest, TEXT_IDENTITY_MAX);
		return;
	}
	if (s->board == NULL && on[4] != '\0')
		s->board = text_cap(on + 4, TEXT_IDENTITY_MAX);
	size_t vlen = strcspn(rest, " ");
	if (s->version == NULL && vlen > 0 && vlen <= TEXT_IDENTITY_MAX && rest + vlen <= on)
		s->version = xstrndup(rest, vlen);
	const char *lp = rest + vlen, *rp = strchr(lp, ')');
	bool same = s->version != NULL && strlen(s->version) == vlen && strncmp(rest, s->version, vlen) == 0;
	if (s->channel == NULL && same && strncmp(lp, " (", 2) == 0 && rp != NULL && rp < on && rp > lp + 2)
		s->channel = xstrndup(lp + 2, (size_t)(rp - lp - 2));
}

/* sysUpTime or hrSystemUptime (TimeTicks, 32 bits) into ms. */
static int snmpdecode_ticks(const netsnmp_variable_list *v, const char *what, int64_t *ms, char **cause)
{
	uint64_t ticks;
	if (snmpdecode_var_u64(v, &ticks, cause) < 0)
		return -1;
	if (ticks > UINT32_MAX) { /* fuzz_snmp: a Counter64 of 2^63 */
		*cause = xasprintf("%s of %llu ticks", what, (unsigned long long)ticks);
		return -1;
	}
	*ms = (int64_t)ticks * 10;
	return 0;
}

/* sysUpTime is required, the rest optional (absent on non-MikroTik agents). The uptime is the
 * router's (hrSystemUptime, since boot) over the agent's (sysUpTime, since the SNMP service
 * started, so a restarted service would look like a reboot). */
static int snmpdecode_decode_scalar(int which, const netsnmp_variable_list *v, sample_t *s, char **cause)
{
	char *text = NULL;
	if (snmpdecode_is_exception(v) || v->type == ASN_NULL)
		return 0;
	switch (which) {
	case SC_UPTIME: return snmpdecode_ticks(v, "sysUpTime", &s->uptime_ms, cause);
	case SC_HRUPTIME: return snmpdecode_ticks(v, "hrSystemUptime", &s->uptime_ms, cause);
	case SC_VERSION: return snmpdecode_var_text(v, &s->version, cause);
	case SC_FIRMWARE: return snmpdecode_var_ident(v, &s->firmware, cause);
	case SC_UPGRADE: return snmpdecode_var_ident(v, &s->upgrade_firmware, cause);
	case SC_BOARD: /* mtxrBoardName: over what sysDescr said */
		free(s->board);
		s->board = NULL;
		return snmpdecode_var_ident(v, &s->board, cause);
	case SC_MHZ: snmpdecode_mhz(v, s); return 0;
	default: /* sysDescr, entPhysicalDescr */
		if (snmpdecode_var_text(v, &text, cause) < 0)
			return -1;
		snmpdecode_ros_descr(text, s);
		free(text);
		return 0;
	}
}

/* Keeps the version as RouterOS writes it ("7.19.2"); a malformed one is dropped, not fatal. */
static void snmpdecode_check_version(sample_t *s)
{
	struct ros_version v;
	const char *why;
	if (s->version == NULL)
		return;
	if (ros_parse_version(s->version, &v, &why) == 0 && v.channel[0] == '\0') {
		free(s->version);
		s->version = xstrdup(v.text);
	} else {
		free(s->version);
		s->version = NULL;
	}
}

static size_t snmpdecode_asked_scalars(const snmpdecode_t *d, int which[SC_N])
{
	size_t n = 0;
	for (int i = 0; i < SC_N; i++)
		if (!(d->skip & (1u << i)))
			which[n++] = i;
	return n;
}

static void snmpdecode_ext_clear(snmpdecode_t *d);

/* Over SNMPv1 a missing object fails the whole PDU with noSuchName: that object is left out
 * and the GET sent again. */
int snmpdecode_scalars(snmpdecode_t *d, const struct snmp_pdu *pdu, char **cause)
{
	int which[SC_N];
	size_t n = snmpdecode_asked_scalars(d, which), i = 0;
	if (pdu->errstat == SNMP_ERR_NOSUCHNAME && pdu->errindex >= 1 && (size_t)pdu->errindex <= n &&
		which[pdu->errindex - 1] != SC_UPTIME) {
		d->skip |= 1u << which[pdu->errindex - 1];
		return 1;
	}
	for (netsnmp_variable_list *v = pdu->variables; v != NULL && i < n; v = v->next_variable, i++) {
		const struct snmpdecode_oid *o = &snmpdecode_scalar_oids[which[i]];
		if (snmp_oid_compare(v->name, v->name_length, o->o, o->len) != 0) {
			*cause = xstrdup("answer names other objects than asked");
			return -1;
		}
		if (snmpdecode_decode_scalar(which[i], v, d->s, cause) < 0)
			return -1;
	}
	if (d->s->uptime_ms < 0) {
		*cause = xstrdup("no sysUpTime");
		return -1;
	}
	snmpdecode_check_version(d->s);
	if (d->s->uptime_ms < d->last_uptime_ms)
		snmpdecode_ext_clear(d); /* rebooted: 32-bit counters restarted */
	d->last_uptime_ms = d->s->uptime_ms;
	return 0;
}

/* ---- walks ---- */

/* Is v still a row of column col, and after the cursor? 1 row, 0 end of column, -1 bad. */
static int snmpdecode_walk_row(const netsnmp_variable_list *v, const struct snmpdecode_oid *col,
	const oid *cursor, size_t cursor_len, char **cause)
{
	if (v->type == SNMP_ENDOFMIBVIEW || v->name_length <= col->len ||
		snmp_oid_compare(v->name, col->len, col->o, col->len) != 0)
		return 0;
	if (v->name_length > MAX_OID_LEN) {
		*cause = xstrdup("OID longer than 128 sub-identifiers");
		return -1;
	}
	if (snmp_oid_compare(v->name, v->name_length, cursor, cursor_len) <= 0) {
		char *o = snmpdecode_oid_text(v->name, v->name_length);
		*cause = xasprintf("walk went backwards at %s", o);
		free(o);
		return -1;
	}
	if (snmpdecode_is_exception(v)) {
		*cause = xstrdup("exception inside a walked column");
		return -1;
	}
	return 1;
}

/* hrProcessorLoad: cores are numbered by walk order, whatever their index. */
static int snmpdecode_add_core(sample_t *s, const netsnmp_variable_list *v, char **cause)
{
	uint64_t pct;
	if (v->type != ASN_INTEGER || snmpdecode_var_u64(v, &pct, cause) < 0 || pct > 100) {
		if (*cause == NULL)
			*cause = xstrdup("hrProcessorLoad not an INTEGER 0..100");
		return -1;
	}
	s->cores = xreallocarray(s->cores, s->ncores + 1, sizeof(*s->cores));
	s->cores[s->ncores].load = (double)pct / 100.0;
	s->cores[s->ncores].irq = NAN;
	s->ncores++;
	return 0;
}

/* Whether name is a WireGuard interface: RouterOS reports them as ifType 1 (other), so their
 * names tell, matched against `wg_names` (default wg*, wireguard*; docs/snmp.md). */
static bool snmpdecode_is_wg(const conf_router_t *rc, const char *name)
{
	for (size_t i = 0; i < rc->nwg_names; i++)
		if (fnmatch(rc->wg_names[i], name, 0) == 0)
			return true;
	return false;
}

/* Which interfaces are read: WireGuard's and those named in `interfaces =`. */
static bool snmpdecode_pick(const conf_router_t *rc, const char *name)
{
	for (size_t i = 0; i < rc->ninterfaces; i++)
		if (strcmp(rc->interfaces[i], name) == 0)
			return true;
	return snmpdecode_is_wg(rc, name);
}

static void snmpdecode_row_add(snmpdecode_t *d, oid index, const char *name)
{
	for (size_t i = 0; i < d->nrows; i++)
		if (strcmp(d->rows[i].name, name) == 0)
			return; /* the first row of a duplicated name wins */
	d->rows = xreallocarray(d->rows, d->nrows + 1, sizeof(*d->rows));
	struct snmpdecode_row *r = &d->rows[d->nrows++];
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->name = xstrdup(name);
}

static int snmpdecode_walk_take(snmpdecode_t *d, const netsnmp_variable_list *v, char **cause)
{
	char *name = NULL;
	oid index = v->name[v->name_length - 1];
	if (d->walk == SNMPDECODE_CPU)
		return snmpdecode_add_core(d->s, v, cause);
	if (d->walk == SNMPDECODE_HEALTH)
		return snmphealth_take(d->health, v, snmpdecode_walk_cols[SNMPDECODE_HEALTH].len, cause);
	if (snmpdecode_var_text(v, &name, cause) < 0)
		return -1;
	if (v->name_length == snmpdecode_walk_cols[d->walk].len + 1 && snmpdecode_pick(d->rc, name))
		snmpdecode_row_add(d, index, name);
	free(name);
	return 0;
}

/* A GETBULK/GETNEXT page of a walk. */
int snmpdecode_walk(snmpdecode_t *d, const struct snmp_pdu *pdu, char **cause)
{
	const struct snmpdecode_oid *col = &snmpdecode_walk_cols[d->walk];
	if (pdu->errstat == SNMP_ERR_NOSUCHNAME && d->rc->snmp_version == 1)
		return 0; /* SNMPv1's end of the MIB view */
	if (pdu->variables == NULL) {
		*cause = xstrdup("empty answer");
		return -1;
	}
	for (netsnmp_variable_list *v = pdu->variables; v != NULL; v = v->next_variable) {
		int r = snmpdecode_walk_row(v, col, d->cursor, d->cursor_len, cause);
		if (r <= 0)
			return r;
		if (++d->walked > SNMPDECODE_MAX_ROWS) {
			*cause = xasprintf("more than %d rows", SNMPDECODE_MAX_ROWS);
			return -1;
		}
		if (snmpdecode_walk_take(d, v, cause) < 0)
			return -1;
		memcpy(d->cursor, v->name, v->name_length * sizeof(oid));
		d->cursor_len = v->name_length;
	}
	return 1;
}

void snmpdecode_walk_start(snmpdecode_t *d, enum snmpdecode_walk col)
{
	d->walk = col;
	memcpy(d->cursor, snmpdecode_walk_cols[col].o, snmpdecode_walk_cols[col].len * sizeof(oid));
	d->cursor_len = snmpdecode_walk_cols[col].len;
	d->walked = 0;
	d->health_walked |= col == SNMPDECODE_HEALTH;
}

/* ---- counters ---- */

static bool snmpdecode_col_asked(const snmpdecode_t *d, const struct snmpdecode_col *col)
{
	return !(col->hc && d->rc->snmp_version == 1);
}

static int snmpdecode_take_counter(struct snmpdecode_row *r, const struct snmpdecode_col *col,
	const netsnmp_variable_list *v, char **cause)
{
	uint64_t x;
	if (snmpdecode_is_exception(v) || v->type == ASN_NULL)
		return 0; /* no ifHC columns (or no such counter): the 32-bit one serves */
	if (snmpdecode_var_u64(v, &x, cause) < 0)
		return -1;
	if (col->hc) {
		r->hc[col->slot] = true;
		r->val[col->slot] = x;
	} else if (!r->hc[col->slot]) {
		r->val[col->slot] = x;
	}
	r->have[col->slot] = true;
	return 0;
}

static bool snmpdecode_is_cell(const netsnmp_variable_list *v, const struct snmpdecode_col *col, oid index)
{
	return v != NULL && v->name_length == col->col.len + 1 && v->name[col->col.len] == index &&
		snmp_oid_compare(v->name, col->col.len, col->col.o, col->col.len) == 0;
}

int snmpdecode_counters(snmpdecode_t *d, const struct snmp_pdu *pdu, char **cause)
{
	netsnmp_variable_list *v = pdu->variables;
	size_t end = d->next_row + SNMPDECODE_ROWS_PER_GET;
	if (pdu->errstat != SNMP_ERR_NOERROR) {
		*cause = xasprintf("error-status %s", snmp_errstring(pdu->errstat));
		return -1;
	}
	for (; d->next_row < end && d->next_row < d->nrows; d->next_row++) {
		struct snmpdecode_row *r = &d->rows[d->next_row];
		for (size_t k = 0; k < SNMPDECODE_NCOLS; k++) {
			const struct snmpdecode_col *col = &snmpdecode_counter_cols[k];
			if (!snmpdecode_col_asked(d, col))
				continue;
			if (!snmpdecode_is_cell(v, col, r->index)) {
				*cause = xstrdup("answer names other objects than asked");
				return -1;
			}
			if (snmpdecode_take_counter(r, col, v, cause) < 0)
				return -1;
			v = v->next_variable;
		}
	}
	return d->next_row < d->nrows;
}

/* ---- requests ---- */

void snmpdecode_ask_scalars(const snmpdecode_t *d, struct snmp_pdu *pdu)
{
	int which[SC_N];
	size_t n = snmpdecode_asked_scalars(d, which);
	for (size_t i = 0; i < n; i++)
		snmp_add_null_var(
			pdu, snmpdecode_scalar_oids[which[i]].o, snmpdecode_scalar_oids[which[i]].len);
}

void snmpdecode_ask_walk(const snmpdecode_t *d, struct snmp_pdu *pdu)
{
	snmp_add_null_var(pdu, d->cursor, d->cursor_len);
}

void snmpdecode_ask_counters(const snmpdecode_t *d, struct snmp_pdu *pdu)
{
	size_t end = d->next_row + SNMPDECODE_ROWS_PER_GET;
	for (size_t i = d->next_row; i < end && i < d->nrows; i++) {
		for (size_t k = 0; k < SNMPDECODE_NCOLS; k++) {
			const struct snmpdecode_col *col = &snmpdecode_counter_cols[k];
			oid o[MAX_OID_LEN];
			if (!snmpdecode_col_asked(d, col))
				continue;
			memcpy(o, col->col.o, col->col.len * sizeof(oid));
			o[col->col.len] = d->rows[i].index;
			snmp_add_null_var(pdu, o, col->col.len + 1);
		}
	}
}

/* ---- 32-bit extension and emitting ---- */

/* A 32-bit counter read now as raw: adds the wrap, or follows a reset (a drop of over 2^31). */
static uint64_t snmpdecode_extend(struct snmpdecode_ext *e, int slot, uint32_t raw)
{
	uint32_t delta = raw - e->last[slot];
	if (!e->seen[slot] || delta > 0x80000000u)
		e->acc[slot] = raw;
	else
		e->acc[slot] += delta;
	e->seen[slot] = true;
	e->last[slot] = raw;
	return e->acc[slot];
}

static struct snmpdecode_ext *snmpdecode_ext_find(snmpdecode_t *d, const char *name)
{
	for (size_t i = 0; i < d->next_ext; i++)
		if (strcmp(d->ext[i].name, name) == 0)
			return &d->ext[i];
	d->ext = xreallocarray(d->ext, d->next_ext + 1, sizeof(*d->ext));
	struct snmpdecode_ext *e = &d->ext[d->next_ext++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	return e;
}

static void snmpdecode_ext_clear(snmpdecode_t *d)
{
	for (size_t i = 0; i < d->next_ext; i++)
		free(d->ext[i].name);
	free(d->ext);
	d->ext = NULL;
	d->next_ext = 0;
}

static void snmpdecode_rows_clear(snmpdecode_t *d)
{
	for (size_t i = 0; i < d->nrows; i++)
		free(d->rows[i].name);
	free(d->rows);
	d->rows = NULL;
	d->nrows = d->next_row = 0;
}

void snmpdecode_emit(snmpdecode_t *d)
{
	for (size_t i = 0; i < d->nrows; i++) {
		struct snmpdecode_row *r = &d->rows[i];
		struct snmpdecode_ext *e = snmpdecode_ext_find(d, r->name);
		uint64_t v[SLOT_OPER];
		for (int k = 0; k < SLOT_OPER; k++)
			v[k] = r->hc[k] ? r->val[k] : snmpdecode_extend(e, k, (uint32_t)r->val[k]);
		struct sample_iface *f = sample_add_iface(d->s);
		f->name = xstrdup(r->name);
		f->type = xstrdup(snmpdecode_is_wg(d->rc, r->name) ? "wg" : "");
		f->running = r->have[SLOT_OPER] && r->val[SLOT_OPER] == 1;
		f->rx_bytes = v[SLOT_RX_BYTES];
		f->tx_bytes = v[SLOT_TX_BYTES];
		f->rx_packets = v[SLOT_RX_PKTS];
		f->tx_packets = v[SLOT_TX_PKTS];
		f->rx_drops = v[SLOT_RX_DROPS];
		f->tx_drops = v[SLOT_TX_DROPS];
	}
	if (d->health_walked)
		snmphealth_emit(d->health, d->s);
}

/* ---- lifecycle ---- */

snmpdecode_t *snmpdecode_create(void)
{
	snmpdecode_t *d = xcalloc(1, sizeof(snmpdecode_t));
	d->health = snmphealth_create();
	return d;
}

void snmpdecode_destroy(snmpdecode_t *d)
{
	if (d == NULL)
		return;
	snmpdecode_rows_clear(d);
	snmpdecode_ext_clear(d);
	snmphealth_destroy(d->health);
	free(d);
}

void snmpdecode_begin(snmpdecode_t *d, const conf_router_t *rc, sample_t *s)
{
	snmpdecode_rows_clear(d);
	snmphealth_clear(d->health);
	d->health_walked = false;
	d->rc = rc;
	d->s = s;
	d->skip = 0;
	d->walked = 0;
}

void snmpdecode_end(snmpdecode_t *d)
{
	snmpdecode_rows_clear(d);
	snmphealth_clear(d->health);
	d->rc = NULL;
	d->s = NULL;
}

size_t snmpdecode_walked(const snmpdecode_t *d)
{
	return d->walked;
}

size_t snmpdecode_nrows(const snmpdecode_t *d)
{
	return d->nrows;
}
