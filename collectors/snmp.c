/* snmp: the SNMP collector. One net-snmp single session per router, kept between polls, its UDP
 * socket watched by the daemon loop and its retries driven by a loop timer; a poll is a short
 * chain of requests (v3 engine probe, scalars, two walks, counter GETs). Varbind decoding is kept
 * apart from the transport. It must never put a community or passphrase in an error or a log. */
#include "config.h"
/* net-snmp's config header defines PACKAGE_* too: this file does not use ours. */
#undef PACKAGE_BUGREPORT
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_URL
#undef PACKAGE_VERSION
#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/large_fd_set.h>

#include "snmp.h"
#include "ros.h"
#include "xmem.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define SNMP_RETRIES 2                /* resends of each request; the poll timeout caps all */
#define SNMP_DEFAULT_TIMEOUT_MS 10000
#define SNMP_BULK_REPS 24             /* GETBULK max-repetitions */
#define SNMP_MAX_ROWS 4096            /* per walked column: a runaway agent stops here */
#define SNMP_ROWS_PER_GET 4           /* interfaces whose counters one GET asks for */
#define SNMP_MAX_TEXT 255             /* longest string kept from an agent */

enum snmp_step { SNMP_PROBE, SNMP_SCALARS, SNMP_CPU, SNMP_NAMES, SNMP_DESCRS, SNMP_COUNTERS,
		 SNMP_NSTEPS };

struct snmp_oid {
	oid o[16];
	size_t len;
};
#define SNMP_OID(...) { .o = { __VA_ARGS__ }, .len = sizeof((oid[]){ __VA_ARGS__ }) / sizeof(oid) }

enum { SC_DESCR, SC_UPTIME, SC_VERSION, SC_FIRMWARE, SC_UPGRADE, SC_BOARD, SC_N };
static const struct snmp_oid snmp_scalar_oids[SC_N] = {
	[SC_DESCR] = SNMP_OID(1, 3, 6, 1, 2, 1, 1, 1, 0),                       /* sysDescr */
	[SC_UPTIME] = SNMP_OID(1, 3, 6, 1, 2, 1, 1, 3, 0),                      /* sysUpTime */
	[SC_VERSION] = SNMP_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 4, 4, 0),        /* mtxrLicVersion */
	[SC_FIRMWARE] = SNMP_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 4, 0),       /* mtxrFirmwareVersion */
	[SC_UPGRADE] = SNMP_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 7, 0),        /* ...UpgradeVersion */
	[SC_BOARD] = SNMP_OID(1, 3, 6, 1, 4, 1, 14988, 1, 1, 7, 9, 0),          /* mtxrBoardName */
};
static const struct snmp_oid snmp_col_cpu = SNMP_OID(1, 3, 6, 1, 2, 1, 25, 3, 3, 1, 2);
static const struct snmp_oid snmp_col_name = SNMP_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 1);
static const struct snmp_oid snmp_col_descr = SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 2);

/* Counter slots of an interface row; SLOT_OPER is ifOperStatus. */
enum { SLOT_RX_BYTES, SLOT_TX_BYTES, SLOT_RX_PKTS, SLOT_TX_PKTS, SLOT_RX_DROPS, SLOT_TX_DROPS,
       SLOT_OPER, SLOT_N };
struct snmp_col {
	struct snmp_oid col;
	int slot;
	bool hc;          /* 64-bit ifXTable column: not asked over SNMPv1 */
};
static const struct snmp_col snmp_counter_cols[] = {
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 6), SLOT_RX_BYTES, true },    /* ifHCInOctets */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 10), SLOT_TX_BYTES, true },   /* ifHCOutOctets */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 7), SLOT_RX_PKTS, true },     /* ifHCInUcastPkts */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 31, 1, 1, 1, 11), SLOT_TX_PKTS, true },    /* ifHCOutUcastPkts */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 10), SLOT_RX_BYTES, false },      /* ifInOctets */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 16), SLOT_TX_BYTES, false },      /* ifOutOctets */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 11), SLOT_RX_PKTS, false },       /* ifInUcastPkts */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 17), SLOT_TX_PKTS, false },       /* ifOutUcastPkts */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 13), SLOT_RX_DROPS, false },      /* ifInDiscards */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 19), SLOT_TX_DROPS, false },      /* ifOutDiscards */
	{ SNMP_OID(1, 3, 6, 1, 2, 1, 2, 2, 1, 8), SLOT_OPER, false },           /* ifOperStatus */
};
#define SNMP_NCOLS (sizeof(snmp_counter_cols) / sizeof(snmp_counter_cols[0]))

/* One picked interface while a poll runs. */
struct snmp_row {
	oid index;
	char *name;
	bool have[SLOT_N], hc[SLOT_N];
	uint64_t val[SLOT_N];
};

/* 32-bit counters made monotonic 64-bit between polls (wraps added, resets followed). */
struct snmp_ext {
	char *name;
	bool seen[SLOT_OPER];
	uint32_t last[SLOT_OPER];
	uint64_t acc[SLOT_OPER];
};

struct snmp_conn {
	snmp_t *m;
	struct snmp_conn *next;
	char *name;                   /* router config name: the key between polls */
	const conf_router_t *rc;      /* valid while busy */
	const conf_router_t *opened;  /* the config the session was opened with */
	void *sess;                   /* net-snmp single session, NULL when closed */
	int fd;
	netsnmp_large_fd_set fds;
	bool busy, engine_known;
	enum snmp_step step;
	long reqid;                   /* the request we wait for; 0: none */
	sample_t *s;
	collector_done_fn done;
	void *arg;
	int64_t start_ms;
	loop_timer_id retry_timer, deadline_timer, defer;
	unsigned skip;                /* SNMPv1: scalars the agent said it lacks (bit per SC_*) */
	oid cursor[MAX_OID_LEN];      /* walk: the last OID seen */
	size_t cursor_len, walked;
	struct snmp_row *rows;
	size_t nrows, next_row;
	struct snmp_ext *ext;
	size_t next_ext;
	int64_t last_uptime_ms;
};

struct snmp {
	loop_t *loop;
	struct snmp_conn *conns;
};

static int snmp_inits;             /* snmp_t alive: net-snmp is set up while > 0 */

/* ---- decoding: varbinds -> values (no I/O) ---- */

static bool snmp_is_exception(const netsnmp_variable_list *v)
{
	return v->type == SNMP_NOSUCHOBJECT || v->type == SNMP_NOSUCHINSTANCE ||
	       v->type == SNMP_ENDOFMIBVIEW;
}

/* An agent's string, printable ASCII only (others become '?'), at most SNMP_MAX_TEXT bytes. */
static char *snmp_text(const netsnmp_variable_list *v)
{
	size_t n = v->val_len > SNMP_MAX_TEXT ? SNMP_MAX_TEXT : v->val_len;
	char *d = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++) {
		u_char ch = v->val.string[i];
		d[i] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
	}
	d[n] = '\0';
	return d;
}

static int snmp_var_text(const netsnmp_variable_list *v, char **out, char **cause)
{
	if (v->type != ASN_OCTET_STR) {
		*cause = xasprintf("type 0x%02x where a string belongs", (unsigned)v->type);
		return -1;
	}
	free(*out);
	*out = snmp_text(v);
	return 0;
}

/* Counter32/64, Gauge32, TimeTicks or a non-negative INTEGER as an unsigned number. */
static int snmp_var_u64(const netsnmp_variable_list *v, uint64_t *out, char **cause)
{
	switch (v->type) {
	case ASN_COUNTER64:
		*out = ((uint64_t)v->val.counter64->high << 32) | (uint32_t)v->val.counter64->low;
		return 0;
	case ASN_COUNTER:
	case ASN_GAUGE:
	case ASN_TIMETICKS:
		*out = (uint32_t)*v->val.integer;
		return 0;
	case ASN_INTEGER:
		if (*v->val.integer >= 0) {
			*out = (uint64_t)*v->val.integer;
			return 0;
		}
		*cause = xasprintf("negative value %ld where a count belongs", *v->val.integer);
		return -1;
	default:
		*cause = xasprintf("type 0x%02x where a number belongs", (unsigned)v->type);
		return -1;
	}
}

static char *snmp_oid_text(const oid *o, size_t len)
{
	char buf[256];
	snprint_objid(buf, sizeof(buf), o, len);
	return xstrdup(buf);
}

static bool snmp_oid_eq(const netsnmp_variable_list *v, const oid *o, size_t len)
{
	return snmp_oid_compare(v->name, v->name_length, o, len) == 0;
}

/* The scalar GET reply: sysUpTime is required, the rest optional (absent on non-MikroTik). */
static int snmp_decode_scalar(int which, const netsnmp_variable_list *v, sample_t *s, char **cause)
{
	uint64_t ticks;
	char *text = NULL;
	if (snmp_is_exception(v) || v->type == ASN_NULL)
		return 0;
	switch (which) {
	case SC_UPTIME:
		if (snmp_var_u64(v, &ticks, cause) < 0)
			return -1;
		s->uptime_ms = (int64_t)ticks * 10;
		return 0;
	case SC_VERSION: return snmp_var_text(v, &s->version, cause);
	case SC_FIRMWARE: return snmp_var_text(v, &s->firmware, cause);
	case SC_UPGRADE: return snmp_var_text(v, &s->upgrade_firmware, cause);
	case SC_BOARD: return snmp_var_text(v, &s->board, cause);
	default:
		if (snmp_var_text(v, &text, cause) < 0)
			return -1;
		/* RouterOS says "RouterOS <board>": the board when mtxrBoardName is absent. */
		if (s->board == NULL && strncmp(text, "RouterOS ", 9) == 0 && text[9] != '\0')
			s->board = xstrdup(text + 9);
		free(text);
		return 0;
	}
}

/* Keeps the version as RouterOS writes it ("7.19.2"); a malformed one is dropped, not fatal. */
static void snmp_check_version(sample_t *s)
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

/* Walks: is v still a row of column col, and after the cursor? 1 row, 0 end of column, -1 bad. */
static int snmp_walk_row(const netsnmp_variable_list *v, const struct snmp_oid *col,
			 const oid *cursor, size_t cursor_len, char **cause)
{
	if (v->type == SNMP_ENDOFMIBVIEW || v->name_length <= col->len ||
	    snmp_oid_compare(v->name, col->len, col->o, col->len) != 0)
		return 0;
	if (snmp_oid_compare(v->name, v->name_length, cursor, cursor_len) <= 0) {
		char *o = snmp_oid_text(v->name, v->name_length);
		*cause = xasprintf("walk went backwards at %s", o);
		free(o);
		return -1;
	}
	if (snmp_is_exception(v)) {
		*cause = xstrdup("exception inside a walked column");
		return -1;
	}
	return 1;
}

/* hrProcessorLoad: cores are numbered by walk order, whatever their index. */
static int snmp_add_core(sample_t *s, const netsnmp_variable_list *v, char **cause)
{
	uint64_t pct;
	if (v->type != ASN_INTEGER || snmp_var_u64(v, &pct, cause) < 0 || pct > 100) {
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

/* Which interfaces are read: those named in `interfaces =` and those named wg* (docs/snmp.md). */
static bool snmp_pick(const conf_router_t *rc, const char *name)
{
	for (size_t i = 0; i < rc->ninterfaces; i++)
		if (strcmp(rc->interfaces[i], name) == 0)
			return true;
	return strncmp(name, "wg", 2) == 0;
}

/* A 32-bit counter read now as raw: adds the wrap, or follows a reset (a drop of over 2^31). */
static uint64_t snmp_extend(struct snmp_ext *e, int slot, uint32_t raw)
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

/* ---- per-router connection state ---- */

static struct snmp_ext *snmp_ext_find(struct snmp_conn *c, const char *name)
{
	for (size_t i = 0; i < c->next_ext; i++)
		if (strcmp(c->ext[i].name, name) == 0)
			return &c->ext[i];
	c->ext = xreallocarray(c->ext, c->next_ext + 1, sizeof(*c->ext));
	struct snmp_ext *e = &c->ext[c->next_ext++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	return e;
}

static void snmp_ext_clear(struct snmp_conn *c)
{
	for (size_t i = 0; i < c->next_ext; i++)
		free(c->ext[i].name);
	free(c->ext);
	c->ext = NULL;
	c->next_ext = 0;
}

static void snmp_rows_clear(struct snmp_conn *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		free(c->rows[i].name);
	free(c->rows);
	c->rows = NULL;
	c->nrows = c->next_row = 0;
}

static void snmp_row_add(struct snmp_conn *c, oid index, const char *name)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (strcmp(c->rows[i].name, name) == 0)
			return;   /* the first row of a duplicated name wins */
	c->rows = xreallocarray(c->rows, c->nrows + 1, sizeof(*c->rows));
	struct snmp_row *r = &c->rows[c->nrows++];
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->name = xstrdup(name);
}

/* The picked rows become the sample's interfaces. */
static void snmp_emit_ifaces(struct snmp_conn *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		struct snmp_row *r = &c->rows[i];
		struct snmp_ext *e = snmp_ext_find(c, r->name);
		uint64_t v[SLOT_OPER];
		for (int k = 0; k < SLOT_OPER; k++)
			v[k] = r->hc[k] ? r->val[k] : snmp_extend(e, k, (uint32_t)r->val[k]);
		struct sample_iface *f = sample_add_iface(c->s);
		f->name = xstrdup(r->name);
		f->type = xstrdup("");
		f->running = r->have[SLOT_OPER] && r->val[SLOT_OPER] == 1;
		f->rx_bytes = v[SLOT_RX_BYTES];
		f->tx_bytes = v[SLOT_TX_BYTES];
		f->rx_packets = v[SLOT_RX_PKTS];
		f->tx_packets = v[SLOT_TX_PKTS];
		f->rx_drops = v[SLOT_RX_DROPS];
		f->tx_drops = v[SLOT_TX_DROPS];
	}
}

/* ---- finishing a poll ---- */

static void snmp_close_session(struct snmp_conn *c)
{
	if (c->sess == NULL)
		return;
	void *sess = c->sess;
	loop_unwatch_fd(c->m->loop, c->fd);
	netsnmp_large_fd_set_cleanup(&c->fds);
	c->sess = NULL;
	c->reqid = 0;
	c->engine_known = false;
	snmp_sess_close(sess);   /* calls back for requests in flight: ignored, reqid is 0 */
}

static void snmp_cancel_timers(struct snmp_conn *c)
{
	loop_t *l = c->m->loop;
	if (c->retry_timer)
		loop_cancel(l, c->retry_timer);
	if (c->deadline_timer)
		loop_cancel(l, c->deadline_timer);
	if (c->defer)
		loop_cancel(l, c->defer);
	c->retry_timer = c->deadline_timer = c->defer = 0;
}

/* Ends the poll and hands the sample over. Never runs inside a net-snmp callback. */
static void snmp_finish(struct snmp_conn *c)
{
	sample_t *s = c->s;
	snmp_cancel_timers(c);
	if (s->err != SAMPLE_OK)
		snmp_close_session(c);   /* a fresh session (and v3 engine probe) next time */
	c->busy = false;
	c->reqid = 0;
	c->s = NULL;
	snmp_rows_clear(c);
	s->duration_ms = loop_mono_ms() - c->start_ms;
	c->done(s, c->arg);
}

static void snmp_on_defer_finish(void *arg)
{
	struct snmp_conn *c = arg;
	c->defer = 0;
	snmp_finish(c);
}

static void snmp_finish_later(struct snmp_conn *c)
{
	c->reqid = 0;
	if (c->defer)
		loop_cancel(c->m->loop, c->defer);
	c->defer = loop_after(c->m->loop, 0, snmp_on_defer_finish, c);
}

static const char *snmp_step_name(enum snmp_step step)
{
	static const char *const names[SNMP_NSTEPS] = {
		[SNMP_PROBE] = "engine ID probe", [SNMP_SCALARS] = "GET system scalars",
		[SNMP_CPU] = "walk hrProcessorLoad", [SNMP_NAMES] = "walk ifName",
		[SNMP_DESCRS] = "walk ifDescr", [SNMP_COUNTERS] = "GET interface counters",
	};
	return names[step];
}

/* Fails the poll (the first reason is kept) and finishes it from a 0 ms timer. */
static void snmp_fail(struct snmp_conn *c, enum sample_err err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void snmp_fail(struct snmp_conn *c, enum sample_err err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	sample_fail(c->s, err, "%s: %s", snmp_step_name(c->step), msg);
	free(msg);
	snmp_finish_later(c);
}

/* ---- requests ---- */

static void snmp_arm(struct snmp_conn *c);
static void snmp_next_step(struct snmp_conn *c);

static netsnmp_pdu *snmp_pdu(struct snmp_conn *c, int command)
{
	netsnmp_pdu *pdu = snmp_pdu_create(command);
	if (pdu != NULL && command == SNMP_MSG_GETBULK) {
		pdu->non_repeaters = 0;
		pdu->max_repetitions = SNMP_BULK_REPS;
	}
	return pdu;
}

static void snmp_xmit(struct snmp_conn *c, netsnmp_pdu *pdu)
{
	if (pdu == NULL) {
		snmp_fail(c, SAMPLE_ERR_INTERNAL, "cannot build the request");
		return;
	}
	c->reqid = pdu->reqid;
	if (snmp_sess_async_send(c->sess, pdu, NULL, c) == 0) {
		snmp_free_pdu(pdu);
		if (c->busy && c->defer == 0)   /* the callback may already have failed it */
			snmp_fail(c, SAMPLE_ERR_INTERNAL, "cannot send: %s",
				  snmp_api_errstring(snmp_sess_session(c->sess)->s_snmp_errno));
		return;
	}
	snmp_arm(c);
}

/* An unauthenticated GET with an empty user: the agent answers with a report that carries its
 * engine ID (RFC 3414 discovery), done asynchronously rather than by net-snmp's blocking probe. */
static netsnmp_pdu *snmp_req_probe(struct snmp_conn *c)
{
	netsnmp_pdu *pdu = snmp_pdu(c, SNMP_MSG_GET);
	if (pdu == NULL)
		return NULL;
	pdu->version = SNMP_VERSION_3;
	pdu->securityName = strdup("");
	pdu->securityNameLen = 0;
	pdu->securityLevel = SNMP_SEC_LEVEL_NOAUTH;
	pdu->securityModel = SNMP_SEC_MODEL_USM;
	return pdu;
}

static netsnmp_pdu *snmp_req_scalars(struct snmp_conn *c)
{
	netsnmp_pdu *pdu = snmp_pdu(c, SNMP_MSG_GET);
	for (int i = 0; pdu != NULL && i < SC_N; i++)
		if (!(c->skip & (1u << i)))
			snmp_add_null_var(pdu, snmp_scalar_oids[i].o, snmp_scalar_oids[i].len);
	return pdu;
}

static const struct snmp_oid *snmp_walk_col(enum snmp_step step)
{
	return step == SNMP_CPU ? &snmp_col_cpu : step == SNMP_NAMES ? &snmp_col_name : &snmp_col_descr;
}

static netsnmp_pdu *snmp_req_walk(struct snmp_conn *c)
{
	bool v1 = c->rc->snmp_version == 1;
	netsnmp_pdu *pdu = snmp_pdu(c, v1 ? SNMP_MSG_GETNEXT : SNMP_MSG_GETBULK);
	if (pdu != NULL)
		snmp_add_null_var(pdu, c->cursor, c->cursor_len);
	return pdu;
}

static netsnmp_pdu *snmp_req_counters(struct snmp_conn *c)
{
	netsnmp_pdu *pdu = snmp_pdu(c, SNMP_MSG_GET);
	size_t end = c->next_row + SNMP_ROWS_PER_GET;
	for (size_t i = c->next_row; pdu != NULL && i < end && i < c->nrows; i++) {
		for (size_t k = 0; k < SNMP_NCOLS; k++) {
			const struct snmp_col *col = &snmp_counter_cols[k];
			oid o[MAX_OID_LEN];
			if (col->hc && c->rc->snmp_version == 1)
				continue;
			memcpy(o, col->col.o, col->col.len * sizeof(oid));
			o[col->col.len] = c->rows[i].index;
			snmp_add_null_var(pdu, o, col->col.len + 1);
		}
	}
	return pdu;
}

/* ---- replies ---- */

/* The scalar GET. Over SNMPv1 a missing object fails the whole PDU with noSuchName: that
 * object is left out and the GET sent again. */
static int snmp_on_scalars(struct snmp_conn *c, netsnmp_pdu *pdu, char **cause)
{
	int which[SC_N], n = 0;
	for (int i = 0; i < SC_N; i++)
		if (!(c->skip & (1u << i)))
			which[n++] = i;
	if (pdu->errstat == SNMP_ERR_NOSUCHNAME && pdu->errindex >= 1 && pdu->errindex <= n &&
	    which[pdu->errindex - 1] != SC_UPTIME) {
		c->skip |= 1u << which[pdu->errindex - 1];
		return 1;
	}
	int i = 0;
	for (netsnmp_variable_list *v = pdu->variables; v != NULL && i < n; v = v->next_variable, i++) {
		const struct snmp_oid *o = &snmp_scalar_oids[which[i]];
		if (!snmp_oid_eq(v, o->o, o->len)) {
			*cause = xstrdup("answer names other objects than asked");
			return -1;
		}
		if (snmp_decode_scalar(which[i], v, c->s, cause) < 0)
			return -1;
	}
	if (c->s->uptime_ms < 0) {
		*cause = xstrdup("no sysUpTime");
		return -1;
	}
	snmp_check_version(c->s);
	if (c->s->uptime_ms < c->last_uptime_ms)
		snmp_ext_clear(c);    /* rebooted: 32-bit counters restarted */
	c->last_uptime_ms = c->s->uptime_ms;
	return 0;
}

static int snmp_walk_take(struct snmp_conn *c, const netsnmp_variable_list *v, char **cause)
{
	char *name = NULL;
	oid index = v->name[v->name_length - 1];
	if (c->step == SNMP_CPU)
		return snmp_add_core(c->s, v, cause);
	if (snmp_var_text(v, &name, cause) < 0)
		return -1;
	if (v->name_length == snmp_walk_col(c->step)->len + 1 && snmp_pick(c->rc, name))
		snmp_row_add(c, index, name);
	free(name);
	return 0;
}

/* A GETBULK/GETNEXT page of a walk: 1 more to read, 0 column done, -1 bad. */
static int snmp_on_walk(struct snmp_conn *c, netsnmp_pdu *pdu, char **cause)
{
	const struct snmp_oid *col = snmp_walk_col(c->step);
	if (pdu->errstat == SNMP_ERR_NOSUCHNAME && c->rc->snmp_version == 1)
		return 0;    /* SNMPv1's end of the MIB view */
	if (pdu->variables == NULL) {
		*cause = xstrdup("empty answer");
		return -1;
	}
	for (netsnmp_variable_list *v = pdu->variables; v != NULL; v = v->next_variable) {
		int r = snmp_walk_row(v, col, c->cursor, c->cursor_len, cause);
		if (r <= 0)
			return r;
		if (++c->walked > SNMP_MAX_ROWS) {
			*cause = xasprintf("more than %d rows", SNMP_MAX_ROWS);
			return -1;
		}
		if (snmp_walk_take(c, v, cause) < 0)
			return -1;
		memcpy(c->cursor, v->name, v->name_length * sizeof(oid));
		c->cursor_len = v->name_length;
	}
	return 1;
}

static int snmp_take_counter(struct snmp_row *r, const struct snmp_col *col,
			     const netsnmp_variable_list *v, char **cause)
{
	uint64_t x;
	if (snmp_is_exception(v) || v->type == ASN_NULL)
		return 0;    /* no ifHC columns (or no such counter): the 32-bit one serves */
	if (snmp_var_u64(v, &x, cause) < 0)
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

static int snmp_on_counters(struct snmp_conn *c, netsnmp_pdu *pdu, char **cause)
{
	netsnmp_variable_list *v = pdu->variables;
	size_t end = c->next_row + SNMP_ROWS_PER_GET;
	if (pdu->errstat != SNMP_ERR_NOERROR) {
		*cause = xasprintf("error-status %s", snmp_errstring(pdu->errstat));
		return -1;
	}
	for (; c->next_row < end && c->next_row < c->nrows; c->next_row++) {
		struct snmp_row *r = &c->rows[c->next_row];
		for (size_t k = 0; k < SNMP_NCOLS; k++) {
			const struct snmp_col *col = &snmp_counter_cols[k];
			if (col->hc && c->rc->snmp_version == 1)
				continue;
			if (v == NULL || v->name_length != col->col.len + 1 ||
			    v->name[col->col.len] != r->index ||
			    snmp_oid_compare(v->name, col->col.len, col->col.o, col->col.len) != 0) {
				*cause = xstrdup("answer names other objects than asked");
				return -1;
			}
			if (snmp_take_counter(r, col, v, cause) < 0)
				return -1;
			v = v->next_variable;
		}
	}
	return c->next_row < c->nrows;
}

/* A report instead of an answer (SNMPv3): the agent refused the request. */
static void snmp_on_report(struct snmp_conn *c, netsnmp_pdu *pdu)
{
	int type = snmpv3_get_report_type(pdu);
	switch (type) {
	case SNMPERR_UNKNOWN_USER_NAME:
	case SNMPERR_AUTHENTICATION_FAILURE:
	case SNMPERR_UNSUPPORTED_SEC_LEVEL:
	case SNMPERR_DECRYPTION_ERR:
		snmp_fail(c, SAMPLE_ERR_AUTH, "agent reports: %s", snmp_api_errstring(type));
		break;
	default:
		snmp_fail(c, SAMPLE_ERR_SNMP, "agent reports: %s", snmp_api_errstring(type));
		break;
	}
}

/* After the probe's report: net-snmp stored the engine ID once our callback returned. */
static void snmp_on_defer_probe(void *arg)
{
	struct snmp_conn *c = arg;
	netsnmp_session *ss = snmp_sess_session(c->sess);
	c->defer = 0;
	if (ss->securityEngineIDLen == 0) {
		snmp_fail(c, SAMPLE_ERR_SNMP, "the agent's report carries no engine ID");
		return;
	}
	/* Localises the keys for the engine and adds the user to net-snmp's USM table. */
	if (usm_create_user_from_session(ss) != SNMPERR_SUCCESS) {
		snmp_fail(c, SAMPLE_ERR_INTERNAL, "cannot set up the USM user");
		return;
	}
	c->engine_known = true;
	snmp_next_step(c);
}

/* Step replies: 1 send the same step again, 0 step done, -1 failed (*cause). */
static int snmp_on_step_reply(struct snmp_conn *c, netsnmp_pdu *pdu, char **cause)
{
	switch (c->step) {
	case SNMP_SCALARS: return snmp_on_scalars(c, pdu, cause);
	case SNMP_CPU:
	case SNMP_NAMES:
	case SNMP_DESCRS: return snmp_on_walk(c, pdu, cause);
	case SNMP_COUNTERS: return snmp_on_counters(c, pdu, cause);
	default:
		*cause = xstrdup("unexpected answer");
		return -1;
	}
}

static void snmp_send_step(struct snmp_conn *c);

static void snmp_on_reply(struct snmp_conn *c, netsnmp_pdu *pdu)
{
	char *cause = NULL;
	if (pdu->command == SNMP_MSG_REPORT && c->step == SNMP_PROBE) {
		c->defer = loop_after(c->m->loop, 0, snmp_on_defer_probe, c);
		return;
	}
	if (pdu->command == SNMP_MSG_REPORT) {
		snmp_on_report(c, pdu);
		return;
	}
	if (pdu->errstat != SNMP_ERR_NOERROR && !(pdu->errstat == SNMP_ERR_NOSUCHNAME &&
						    c->rc->snmp_version == 1)) {
		snmp_fail(c, SAMPLE_ERR_SNMP, "error-status %s (index %ld)",
			  snmp_errstring(pdu->errstat), pdu->errindex);
		return;
	}
	int r = snmp_on_step_reply(c, pdu, &cause);
	if (r < 0) {
		snmp_fail(c, SAMPLE_ERR_SNMP, "%s", cause);
		free(cause);
	} else if (r > 0) {
		snmp_send_step(c);
	} else {
		snmp_next_step(c);
	}
}

static int snmp_on_pdu(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu, void *magic)
{
	struct snmp_conn *c = magic;
	bool report = pdu != NULL && pdu->command == SNMP_MSG_REPORT;
	/* net-snmp matched the message to our one request in flight; a report of a message the
	 * agent could not authenticate carries no request ID of ours. */
	if (!c->busy || c->reqid == 0 || (reqid != c->reqid && !report))
		return 1;     /* late answer of an earlier poll, or our own close */
	if (op == NETSNMP_CALLBACK_OP_RESEND)
		return 1;
	if (report && snmpv3_get_report_type(pdu) == SNMPERR_NOT_IN_TIME_WINDOW &&
	    c->step != SNMP_PROBE)
		return 1;     /* net-snmp learnt the engine's time and sends the request again */
	c->reqid = 0;
	/* A report comes as SEC_ERROR, RECEIVED_MESSAGE or both, in either order (versions differ). */
	if (report && (op == NETSNMP_CALLBACK_OP_SEC_ERROR ||
		       op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE))
		op = NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE;
	switch (op) {
	case NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE:
		snmp_on_reply(c, pdu);
		break;
	case NETSNMP_CALLBACK_OP_TIMED_OUT:
		snmp_fail(c, SAMPLE_ERR_TIMEOUT, "no answer after %d tries", SNMP_RETRIES + 1);
		break;
	case NETSNMP_CALLBACK_OP_SEC_ERROR:
		snmp_fail(c, SAMPLE_ERR_AUTH, "security error: %s",
			  snmp_api_errstring(sp->s_snmp_errno ? sp->s_snmp_errno : SNMPERR_GENERR));
		break;
	default:
		snmp_fail(c, SAMPLE_ERR_CONNECT, "send failed");
		break;
	}
	return 1;
}

/* ---- the step driver ---- */

static void snmp_send_step(struct snmp_conn *c)
{
	switch (c->step) {
	case SNMP_PROBE: snmp_xmit(c, snmp_req_probe(c)); break;
	case SNMP_SCALARS: snmp_xmit(c, snmp_req_scalars(c)); break;
	case SNMP_COUNTERS: snmp_xmit(c, snmp_req_counters(c)); break;
	default: snmp_xmit(c, snmp_req_walk(c)); break;
	}
}

/* Whether step has something to ask. Sets up the walk cursor for walks. */
static bool snmp_step_wanted(struct snmp_conn *c, enum snmp_step step)
{
	switch (step) {
	case SNMP_PROBE: return c->rc->snmp_version == 3 && !c->engine_known;
	case SNMP_DESCRS: if (c->walked > 0) return false;   /* ifName answered */
		/* fall through */
	case SNMP_CPU:
	case SNMP_NAMES:
		memcpy(c->cursor, snmp_walk_col(step)->o, snmp_walk_col(step)->len * sizeof(oid));
		c->cursor_len = snmp_walk_col(step)->len;
		c->walked = 0;
		return true;
	case SNMP_COUNTERS: return c->nrows > 0;
	default: return true;
	}
}

static void snmp_next_step(struct snmp_conn *c)
{
	enum snmp_step step = c->step + 1;
	while (step < SNMP_NSTEPS && !snmp_step_wanted(c, step))
		step++;
	if (step == SNMP_NSTEPS) {
		snmp_emit_ifaces(c);
		snmp_finish_later(c);
		return;
	}
	c->step = step;
	snmp_send_step(c);
}

/* ---- the loop: socket, net-snmp's retry timer, the poll deadline ---- */

static void snmp_on_retry_timer(void *arg)
{
	struct snmp_conn *c = arg;
	c->retry_timer = 0;
	if (c->sess == NULL)
		return;
	snmp_sess_timeout(c->sess);   /* resends, or calls back with TIMED_OUT */
	snmp_arm(c);
}

/* Sets the retry timer to net-snmp's earliest request expiry in this session, if any. */
static void snmp_arm(struct snmp_conn *c)
{
	struct timeval tv = { 0, 0 };
	int block = 1, nfds = 0;
	if (c->retry_timer)
		loop_cancel(c->m->loop, c->retry_timer);
	c->retry_timer = 0;
	if (c->sess == NULL || c->reqid == 0 || snmp_sess_transport(c->sess)->sock < 0)
		return;
	snmp_sess_select_info2_flags(c->sess, &nfds, &c->fds, &tv, &block, NETSNMP_SELECT_NOALARMS);
	if (!block) {
		int64_t ms = (int64_t)tv.tv_sec * 1000 + (tv.tv_usec + 999) / 1000;
		c->retry_timer = loop_after(c->m->loop, ms, snmp_on_retry_timer, c);
	}
}

static void snmp_on_fd(int fd, int events, void *arg)
{
	struct snmp_conn *c = arg;
	if (c->sess == NULL)
		return;
	NETSNMP_LARGE_FD_ZERO(&c->fds);
	NETSNMP_LARGE_FD_SET(fd, &c->fds);
	snmp_sess_read2(c->sess, &c->fds);
	snmp_arm(c);
}

static void snmp_on_deadline(void *arg)
{
	struct snmp_conn *c = arg;
	c->deadline_timer = 0;
	if (c->busy && c->defer == 0)
		snmp_fail(c, SAMPLE_ERR_TIMEOUT, "poll timeout of %lld ms reached",
			  (long long)(c->rc->timeout_ms > 0 ? c->rc->timeout_ms : SNMP_DEFAULT_TIMEOUT_MS));
}

/* ---- sessions ---- */

static const oid *snmp_auth_proto(const char *name, size_t *len)
{
	static const struct { const char *name; const oid *o; } t[] = {
		{ "MD5", usmHMACMD5AuthProtocol }, { "SHA", usmHMACSHA1AuthProtocol },
		{ "SHA-224", usmHMAC128SHA224AuthProtocol }, { "SHA-256", usmHMAC192SHA256AuthProtocol },
		{ "SHA-384", usmHMAC256SHA384AuthProtocol }, { "SHA-512", usmHMAC384SHA512AuthProtocol },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (name != NULL && strcmp(name, t[i].name) == 0) {
			*len = USM_AUTH_PROTO_SHA_LEN;   /* every auth protocol OID has 10 arcs */
			return t[i].o;
		}
	}
	*len = USM_AUTH_PROTO_SHA_LEN;
	return usmHMACSHA1AuthProtocol;
}

static const oid *snmp_priv_proto(const char *name, size_t *len)
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

static int snmp_level(const char *level)
{
	if (level != NULL && strcmp(level, "authPriv") == 0)
		return SNMP_SEC_LEVEL_AUTHPRIV;
	if (level != NULL && strcmp(level, "authNoPriv") == 0)
		return SNMP_SEC_LEVEL_AUTHNOPRIV;
	return SNMP_SEC_LEVEL_NOAUTH;
}

/* USM settings: keys derived from the passphrases here (Ku), localised after the probe. */
static int snmp_setup_v3(netsnmp_session *ss, const conf_router_t *rc, char **cause)
{
	size_t alen, plen;
	const oid *auth = snmp_auth_proto(rc->snmp_auth_protocol, &alen);
	const char *ap = rc->snmp_auth_password ? rc->snmp_auth_password : "";
	const char *pp = rc->snmp_priv_password ? rc->snmp_priv_password : "";
	ss->version = SNMP_VERSION_3;
	ss->securityModel = SNMP_SEC_MODEL_USM;
	ss->securityName = rc->snmp_user ? rc->snmp_user : (char *)"";
	ss->securityNameLen = strlen(ss->securityName);
	ss->securityLevel = snmp_level(rc->snmp_security_level);
	ss->flags |= SNMP_FLAGS_DONT_PROBE;
	if (ss->securityLevel == SNMP_SEC_LEVEL_NOAUTH)
		return 0;
	ss->securityAuthProto = (oid *)auth;
	ss->securityAuthProtoLen = alen;
	ss->securityAuthKeyLen = USM_AUTH_KU_LEN;
	if (strlen(ap) < 8 || generate_Ku(auth, (u_int)alen, (const u_char *)ap, strlen(ap),
					  ss->securityAuthKey, &ss->securityAuthKeyLen) != SNMPERR_SUCCESS) {
		*cause = xstrdup("cannot derive the SNMPv3 auth key (passphrase under 8 characters?)");
		return -1;
	}
	if (ss->securityLevel != SNMP_SEC_LEVEL_AUTHPRIV)
		return 0;
	ss->securityPrivProto = (oid *)snmp_priv_proto(rc->snmp_priv_protocol, &plen);
	ss->securityPrivProtoLen = plen;
	ss->securityPrivKeyLen = USM_PRIV_KU_LEN;
	if (strlen(pp) < 8 || generate_Ku(auth, (u_int)alen, (const u_char *)pp, strlen(pp),
					  ss->securityPrivKey, &ss->securityPrivKeyLen) != SNMPERR_SUCCESS) {
		*cause = xstrdup("cannot derive the SNMPv3 privacy key (passphrase under 8 characters?)");
		return -1;
	}
	return 0;
}

static int snmp_setup(netsnmp_session *ss, struct snmp_conn *c, const conf_router_t *rc,
		      char **cause)
{
	int64_t timeout = rc->timeout_ms > 0 ? rc->timeout_ms : SNMP_DEFAULT_TIMEOUT_MS;
	snmp_sess_init(ss);
	ss->timeout = (long)(timeout * 1000 / (SNMP_RETRIES + 1));   /* per try, microseconds */
	ss->retries = SNMP_RETRIES;
	ss->callback = snmp_on_pdu;
	ss->callback_magic = c;
	if (rc->snmp_version == 3)
		return snmp_setup_v3(ss, rc, cause);
	ss->version = rc->snmp_version == 1 ? SNMP_VERSION_1 : SNMP_VERSION_2c;
	ss->community = (u_char *)(rc->snmp_community ? rc->snmp_community : "public");
	ss->community_len = strlen((const char *)ss->community);
	return 0;
}

/* Opens the router's session and watches its socket. The peer must be an address: a host
 * name is resolved here, blocking (docs/snmp.md). */
static int snmp_connect(struct snmp_conn *c, const conf_router_t *rc, char **cause)
{
	netsnmp_session ss;
	char *peer = xasprintf("%s:%s", rc->snmp[0] == '[' ? "udp6" : "udp", rc->snmp);
	int rc_setup = snmp_setup(&ss, c, rc, cause);
	ss.peername = peer;
	c->sess = rc_setup < 0 ? NULL : snmp_sess_open(&ss);
	if (rc_setup == 0 && c->sess == NULL)
		*cause = xasprintf("cannot open a session to %s: %s", rc->snmp,
				   snmp_api_errstring(ss.s_snmp_errno));
	explicit_bzero(&ss, sizeof(ss));   /* held key material */
	free(peer);
	if (c->sess == NULL)
		return -1;
	c->opened = rc;
	c->engine_known = false;
	c->fd = snmp_sess_transport(c->sess)->sock;
	netsnmp_large_fd_set_init(&c->fds, c->fd + 1);
	if (rc->snmp_version == 3)   /* net-snmp clears it after opening: keep it from blocking */
		snmp_sess_session(c->sess)->flags |= SNMP_FLAGS_DONT_PROBE;
	if (loop_watch_fd(c->m->loop, c->fd, LOOP_READ, snmp_on_fd, c) < 0) {
		snmp_close_session(c);
		*cause = xstrdup("cannot watch the session's socket");
		return -1;
	}
	return 0;
}

/* ---- per-router connections and the collector interface ---- */

static struct snmp_conn *snmp_conn_find(snmp_t *m, const char *name)
{
	for (struct snmp_conn *c = m->conns; c != NULL; c = c->next)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

static struct snmp_conn *snmp_conn_new(snmp_t *m, const char *name)
{
	struct snmp_conn *c = xcalloc(1, sizeof(*c));
	c->m = m;
	c->name = xstrdup(name);
	c->fd = -1;
	c->next = m->conns;
	m->conns = c;
	return c;
}

/* Abandons a poll in flight without calling done, and closes the session. */
static void snmp_conn_abandon(struct snmp_conn *c)
{
	snmp_cancel_timers(c);
	c->busy = false;
	snmp_close_session(c);
	sample_free(c->s);
	c->s = NULL;
	snmp_rows_clear(c);
}

static void snmp_conn_free(snmp_t *m, struct snmp_conn *c)
{
	for (struct snmp_conn **pp = &m->conns; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	snmp_conn_abandon(c);
	snmp_ext_clear(c);
	free(c->name);
	free(c);
}

static bool snmp_handles(void *ctx, const conf_router_t *rc)
{
	return rc->snmp != NULL && rc->snmp[0] != '\0';
}

static void snmp_conn_begin(struct snmp_conn *c, const conf_router_t *rc, collector_done_fn done,
			    void *arg)
{
	int64_t timeout = rc->timeout_ms > 0 ? rc->timeout_ms : SNMP_DEFAULT_TIMEOUT_MS;
	c->rc = rc;
	c->busy = true;
	c->done = done;
	c->arg = arg;
	c->skip = 0;
	c->step = SNMP_PROBE;
	c->s = sample_new(rc->name, loop_wall_ms(), "snmp");
	c->s->have_peers = false;    /* SNMP has no WireGuard peer objects */
	sample_set_cores(c->s, 0);   /* an empty array, not NULL, until hrProcessorLoad rows come */
	c->start_ms = loop_mono_ms();
	c->deadline_timer = loop_after(c->m->loop, timeout, snmp_on_deadline, c);
}

static int snmp_poll(void *ctx, const conf_router_t *rc, collector_done_fn done, void *arg)
{
	snmp_t *m = ctx;
	char *cause = NULL;
	if (!snmp_handles(ctx, rc))
		return -1;
	struct snmp_conn *c = snmp_conn_find(m, rc->name);
	if (c == NULL)
		c = snmp_conn_new(m, rc->name);
	if (c->busy)
		return -1;
	snmp_conn_begin(c, rc, done, arg);
	if (c->sess != NULL && c->opened != rc)
		snmp_close_session(c);    /* the configuration changed */
	if (c->sess == NULL && snmp_connect(c, rc, &cause) < 0) {
		snmp_fail(c, SAMPLE_ERR_INTERNAL, "%s", cause);
		free(cause);
	} else if (snmp_step_wanted(c, SNMP_PROBE)) {
		snmp_send_step(c);
	} else {
		snmp_next_step(c);
	}
	return 0;
}

static void snmp_cancel(void *ctx, const conf_router_t *rc)
{
	snmp_t *m = ctx;
	struct snmp_conn *c = snmp_conn_find(m, rc->name);
	if (c != NULL)
		snmp_conn_free(m, c);
}

/* net-snmp reads no snmp.conf, loads no MIB, keeps no persistent state, logs nothing. */
static void snmp_lib_init(void)
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

snmp_t *snmp_create(loop_t *loop)
{
	if (snmp_inits++ == 0)
		snmp_lib_init();
	snmp_t *m = xcalloc(1, sizeof(*m));
	m->loop = loop;
	return m;
}

void snmp_destroy(snmp_t *m)
{
	if (m == NULL)
		return;
	while (m->conns != NULL)
		snmp_conn_free(m, m->conns);
	free(m);
	snmp_inits--;
}

collector_t snmp_collector(snmp_t *m)
{
	return (collector_t){
		.name = "snmp",
		.ctx = m,
		.handles = snmp_handles,
		.poll = snmp_poll,
		.cancel = snmp_cancel,
	};
}
