/* SPDX-License-Identifier: Apache-2.0 */
/* snmpcoll: the SNMP collector. One net-snmp single session per router, kept between polls, its UDP
 * socket watched by the daemon loop and its retries driven by a loop timer; a poll is a short
 * chain of requests (v3 engine probe, scalars, two walks, counter GETs, and once a minute a walk
 * of MIKROTIK-MIB's health). What is asked and how
 * the varbinds decode is snmpdecode.c; this is the transport, and net-snmp's sessions and PDUs
 * are snmpsess.c's. It must never put a community or passphrase in an error or a log. */
#include "config.h"
#include "collectors/netsnmp.h"
#include <net-snmp/library/large_fd_set.h>

#include "collectors/snmpcoll.h"
#include "collectors/healthkeep.h"
#include "collectors/snmpdecode.h"
#include "collectors/snmpsess.h"
#include "collectors/snmpstep.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

struct snmpcoll_conn {
	snmpcoll_t *m;
	struct snmpcoll_conn *next, *prev; /* in m->conns: every handle attached */
	const conf_router_t *rc;           /* valid while busy */
	const conf_router_t *opened;       /* the config the session was opened with */
	void *sess;                        /* net-snmp single session, NULL when closed */
	int fd;
	netsnmp_large_fd_set fds;
	bool busy, engine_known;
	enum snmpstep step;
	long reqid;       /* the request we wait for; 0: none */
	uint64_t idstate; /* request IDs of this session: random, not net-snmp's global counter */
	sample_t *s;
	collector_done_fn done;
	void *arg;
	int64_t start_ms;
	loop_timer_id retry_timer, deadline_timer, defer;
	snmpdecode_t *dec;    /* what to ask, the answers so far; lives with the conn */
	healthkeep_t *health; /* the sensors of the last mtxrHealth walk */
};

struct snmpcoll {
	loop_t *loop;
	struct snmpcoll_conn *conns;
	size_t nconns;
};

static int snmpcoll_inits; /* snmpcoll_t alive: net-snmp is set up while > 0 */

/* ---- finishing a poll ---- */

static void snmpcoll_close_session(struct snmpcoll_conn *c)
{
	if (c->sess == NULL)
		return;
	void *sess = c->sess;
	loop_unwatch_fd(c->m->loop, c->fd);
	netsnmp_large_fd_set_cleanup(&c->fds);
	c->sess = NULL;
	c->reqid = 0;
	c->engine_known = false;
	snmp_sess_close(sess); /* calls back for requests in flight: ignored, reqid is 0 */
}

static void snmpcoll_cancel_timers(struct snmpcoll_conn *c)
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
static void snmpcoll_finish(struct snmpcoll_conn *c)
{
	sample_t *s = c->s;
	snmpcoll_cancel_timers(c);
	if (s->err != SAMPLE_OK)
		snmpcoll_close_session(c); /* a fresh session (and v3 engine probe) next time */
	c->busy = false;
	c->reqid = 0;
	c->s = NULL;
	snmpdecode_end(c->dec);
	s->duration_ms = clock_mono_ms() - c->start_ms;
	c->done(s, c->arg);
}

static void snmpcoll_on_defer_finish(void *arg)
{
	struct snmpcoll_conn *c = arg;
	c->defer = 0;
	snmpcoll_finish(c);
}

static void snmpcoll_finish_later(struct snmpcoll_conn *c)
{
	c->reqid = 0;
	if (c->defer)
		loop_cancel(c->m->loop, c->defer);
	c->defer = loop_after(c->m->loop, 0, snmpcoll_on_defer_finish, c);
}

/* Fails the poll (the first reason is kept) and finishes it from a 0 ms timer. */
static void snmpcoll_fail(struct snmpcoll_conn *c, enum sample_err err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void snmpcoll_fail(struct snmpcoll_conn *c, enum sample_err err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	sample_fail(c->s, err, "%s: %s", snmpstep_name(c->step), msg);
	free(msg);
	snmpcoll_finish_later(c);
}

/* ---- requests ---- */

static void snmpcoll_arm(struct snmpcoll_conn *c);
static void snmpcoll_next_step(struct snmpcoll_conn *c);

static void snmpcoll_xmit(struct snmpcoll_conn *c, netsnmp_pdu *pdu)
{
	if (pdu == NULL) {
		snmpcoll_fail(c, SAMPLE_ERR_INTERNAL, "cannot build the request");
		return;
	}
	c->reqid = pdu->reqid;
	if (snmp_sess_async_send(c->sess, pdu, NULL, c) == 0) {
		snmp_free_pdu(pdu);
		if (c->busy && c->defer == 0) /* the callback may already have failed it */
			snmpcoll_fail(c, SAMPLE_ERR_INTERNAL, "cannot send: %s",
				snmp_api_errstring(snmp_sess_session(c->sess)->s_snmp_errno));
		return;
	}
	snmpcoll_arm(c);
}

/* The poll as snmpstep sees it. */
static struct snmpstep_poll snmpcoll_steps(const struct snmpcoll_conn *c)
{
	return (struct snmpstep_poll){
		.rc = c->rc, .dec = c->dec, .health = c->health, .s = c->s, .engine_known = c->engine_known
	};
}

/* ---- replies ---- */

/* A report instead of an answer (SNMPv3): the agent refused the request. */
static void snmpcoll_on_report(struct snmpcoll_conn *c, netsnmp_pdu *pdu)
{
	int type = snmpv3_get_report_type(pdu);
	switch (type) {
	case SNMPERR_UNKNOWN_USER_NAME:
	case SNMPERR_AUTHENTICATION_FAILURE:
	case SNMPERR_UNSUPPORTED_SEC_LEVEL:
	case SNMPERR_DECRYPTION_ERR:
		snmpcoll_fail(c, SAMPLE_ERR_AUTH, "agent reports: %s", snmp_api_errstring(type));
		break;
	default: snmpcoll_fail(c, SAMPLE_ERR_SNMP, "agent reports: %s", snmp_api_errstring(type)); break;
	}
}

/* After the probe's report: net-snmp stored the engine ID once our callback returned. */
static void snmpcoll_on_defer_probe(void *arg)
{
	struct snmpcoll_conn *c = arg;
	netsnmp_session *ss = snmp_sess_session(c->sess);
	c->defer = 0;
	if (ss->securityEngineIDLen == 0) {
		snmpcoll_fail(c, SAMPLE_ERR_SNMP, "the agent's report carries no engine ID");
		return;
	}
	if (snmpsess_user(ss) < 0) { /* the keys come from this session's configuration */
		snmpcoll_fail(c, SAMPLE_ERR_INTERNAL, "cannot set up the USM user");
		return;
	}
	c->engine_known = true;
	snmpcoll_next_step(c);
}

static void snmpcoll_send_step(struct snmpcoll_conn *c);

static void snmpcoll_on_reply(struct snmpcoll_conn *c, netsnmp_pdu *pdu)
{
	char *cause = NULL;
	if (pdu->command == SNMP_MSG_REPORT && c->step == SNMPSTEP_PROBE) {
		c->defer = loop_after(c->m->loop, 0, snmpcoll_on_defer_probe, c);
		return;
	}
	if (pdu->command == SNMP_MSG_REPORT) {
		snmpcoll_on_report(c, pdu);
		return;
	}
	struct snmpstep_poll p = snmpcoll_steps(c);
	int r = snmpstep_reply(&p, c->step, pdu, &cause);
	if (r < 0) {
		snmpcoll_fail(c, SAMPLE_ERR_SNMP, "%s", cause);
		free(cause);
	} else if (r > 0) {
		snmpcoll_send_step(c);
	} else {
		snmpcoll_next_step(c);
	}
}

/* Whether a message received during a poll is one an agent may send us: a Response, or over
 * SNMPv3 a Report. net-snmp hands any other PDU (a GET, a trap) to the callback as well. */
static bool snmpcoll_is_answer(const struct snmpcoll_conn *c, const netsnmp_pdu *pdu)
{
	return pdu != NULL &&
		(pdu->command == SNMP_MSG_RESPONSE ||
			(pdu->command == SNMP_MSG_REPORT && pdu->version == SNMP_VERSION_3 && c->rc != NULL &&
				c->rc->snmp_version == 3));
}

static int snmpcoll_on_pdu(int op, netsnmp_session *sp, int reqid, netsnmp_pdu *pdu, void *magic)
{
	struct snmpcoll_conn *c = magic;
	bool report = pdu != NULL && pdu->command == SNMP_MSG_REPORT;
	if (!c->busy || c->reqid == 0)
		return 1; /* late answer of an earlier poll, or our own close; c->rc may be gone */
	/* Not an answer: ignored, and 0 keeps net-snmp waiting for the real one (and resending). */
	if (op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE && !snmpcoll_is_answer(c, pdu))
		return 0;
	/* net-snmp matched the message to our one request in flight; a report of a message the
	 * agent could not authenticate carries no request ID of ours. */
	if (reqid != c->reqid && !report)
		return 1;
	if (op == NETSNMP_CALLBACK_OP_RESEND)
		return 1;
	if (report && snmpv3_get_report_type(pdu) == SNMPERR_NOT_IN_TIME_WINDOW && c->step != SNMPSTEP_PROBE)
		return 1; /* net-snmp learnt the engine's time and sends the request again */
	c->reqid = 0;
	/* A report comes as SEC_ERROR, RECEIVED_MESSAGE or both, in either order (versions differ). */
	if (report && (op == NETSNMP_CALLBACK_OP_SEC_ERROR || op == NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE))
		op = NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE;
	switch (op) {
	case NETSNMP_CALLBACK_OP_RECEIVED_MESSAGE: snmpcoll_on_reply(c, pdu); break;
	case NETSNMP_CALLBACK_OP_TIMED_OUT:
		snmpcoll_fail(c, SAMPLE_ERR_TIMEOUT, "no answer after %d tries", snmpsess_retries(c->rc) + 1);
		break;
	case NETSNMP_CALLBACK_OP_SEC_ERROR:
		snmpcoll_fail(c, SAMPLE_ERR_AUTH, "security error: %s",
			snmp_api_errstring(sp->s_snmp_errno ? sp->s_snmp_errno : SNMPERR_GENERR));
		break;
	default: snmpcoll_fail(c, SAMPLE_ERR_CONNECT, "send failed"); break;
	}
	return 1;
}

/* ---- the step driver ---- */

static void snmpcoll_send_step(struct snmpcoll_conn *c)
{
	/* Rates divide counter deltas by the time between samples: stamp the sample when the
	 * counters are asked for, not when the poll started some requests earlier. */
	struct snmpstep_poll p = snmpcoll_steps(c);
	if (c->step == SNMPSTEP_COUNTERS)
		sample_stamp(c->s);
	if (c->step == SNMPSTEP_PROBE)
		snmpcoll_xmit(c, snmpsess_probe(&c->idstate));
	else
		snmpcoll_xmit(c, snmpstep_request(&p, c->step, &c->idstate));
}

static void snmpcoll_next_step(struct snmpcoll_conn *c)
{
	struct snmpstep_poll p = snmpcoll_steps(c);
	enum snmpstep step = snmpstep_next(&p, c->step);
	if (step == SNMPSTEP_N) {
		snmpstep_end(&p);
		snmpcoll_finish_later(c);
		return;
	}
	c->step = step;
	snmpcoll_send_step(c);
}

/* ---- the loop: socket, net-snmp's retry timer, the poll deadline ---- */

static void snmpcoll_on_retry_timer(void *arg)
{
	struct snmpcoll_conn *c = arg;
	c->retry_timer = 0;
	if (c->sess == NULL)
		return;
	snmp_sess_timeout(c->sess); /* resends, or calls back with TIMED_OUT */
	snmpcoll_arm(c);
}

/* Sets the retry timer to net-snmp's earliest request expiry in this session, if any. */
static void snmpcoll_arm(struct snmpcoll_conn *c)
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
		c->retry_timer = loop_after(c->m->loop, ms, snmpcoll_on_retry_timer, c);
	}
}

static void snmpcoll_on_fd(int fd, int events, void *arg)
{
	struct snmpcoll_conn *c = arg;
	if (c->sess == NULL)
		return;
	NETSNMP_LARGE_FD_ZERO(&c->fds);
	NETSNMP_LARGE_FD_SET(fd, &c->fds);
	snmp_sess_read2(c->sess, &c->fds);
	snmpcoll_arm(c);
}

static void snmpcoll_on_deadline(void *arg)
{
	struct snmpcoll_conn *c = arg;
	c->deadline_timer = 0;
	if (c->busy && c->defer == 0)
		snmpcoll_fail(c, SAMPLE_ERR_TIMEOUT, "poll timeout of %lld ms reached",
			(long long)(c->rc->timeout_ms > 0 ? c->rc->timeout_ms : SNMPSESS_DEFAULT_TIMEOUT_MS));
}

/* ---- sessions ---- */

/* Opens the router's session (snmpsess_open, which may block on a host name) and watches its
 * socket. */
static int snmpcoll_connect(struct snmpcoll_conn *c, const conf_router_t *rc, char **cause)
{
	c->sess = snmpsess_open(rc, snmpcoll_on_pdu, c, cause);
	if (c->sess == NULL)
		return -1;
	c->opened = rc;
	c->engine_known = false;
	c->fd = snmp_sess_transport(c->sess)->sock;
	netsnmp_large_fd_set_init(&c->fds, c->fd + 1);
	if (rc->snmp_version == 3) /* net-snmp clears it after opening: keep it from blocking */
		snmp_sess_session(c->sess)->flags |= SNMP_FLAGS_DONT_PROBE;
	if (loop_watch_fd(c->m->loop, c->fd, LOOP_READ, snmpcoll_on_fd, c) < 0) {
		snmpcoll_close_session(c);
		*cause = xstrdup("cannot watch the session's socket");
		return -1;
	}
	return 0;
}

/* ---- per-router connections and the collector interface ---- */

/* SNMPv1 has only the 32-bit octet counters, which wrap every 2^35 bits: at interval_ms, rates
 * above 2^35 bits / interval wrap more than once between polls and cannot be told from a lower
 * one. Said once a router, where that is below 1 Gbit/s (polls more than 34 s apart). */
static void snmpcoll_warn_wrap(const conf_router_t *rc)
{
	double bits = 34359738368.0, most = bits / ((double)rc->interval_ms / 1000);
	if (rc->snmp_version != 1 || rc->interval_ms <= 0 || most >= 1e9)
		return;
	log_warn("snmp: router %s: SNMPv1 counts octets in 32 bits, which wrap every %.0f s at 1 Gbit/s: "
		 "polled every %.0f s, a rate above %.1f Mbit/s reads as a lower one; poll it over "
		 "snmp_version = 2c (64-bit counters) or every 30 s",
		rc->name, bits / 1e9, (double)rc->interval_ms / 1000, most / 1e6);
}

/* A router's handle, attached by the poller; its session opens at its first poll. */
static void *snmpcoll_attach(void *ctx, const conf_router_t *rc)
{
	snmpcoll_t *m = ctx;
	struct snmpcoll_conn *c = xcalloc(1, sizeof(*c));
	c->m = m;
	c->fd = -1;
	c->dec = snmpdecode_create();
	c->health = healthkeep_create();
	if (getrandom(&c->idstate, sizeof(c->idstate), GRND_NONBLOCK) != sizeof(c->idstate))
		c->idstate = (uint64_t)clock_mono_ms() ^ (uint64_t)(uintptr_t)c; /* no entropy yet */
	c->next = m->conns;
	if (m->conns != NULL)
		m->conns->prev = c;
	m->conns = c;
	m->nconns++;
	snmpcoll_warn_wrap(rc);
	return c;
}

/* Abandons a poll in flight without calling done, and closes the session. */
static void snmpcoll_conn_abandon(struct snmpcoll_conn *c)
{
	snmpcoll_cancel_timers(c);
	c->busy = false;
	snmpcoll_close_session(c);
	sample_free(c->s);
	c->s = NULL;
	snmpdecode_end(c->dec);
}

static void snmpcoll_detach(void *ctx, void *handle)
{
	snmpcoll_t *m = ctx;
	struct snmpcoll_conn *c = handle;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		m->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	m->nconns--;
	snmpcoll_conn_abandon(c);
	snmpdecode_destroy(c->dec);
	healthkeep_destroy(c->health);
	free(c);
}

static bool snmpcoll_handles(void *ctx, const conf_router_t *rc)
{
	return rc->snmp != NULL && rc->snmp[0] != '\0';
}

static void snmpcoll_conn_begin(
	struct snmpcoll_conn *c, const conf_router_t *rc, collector_done_fn done, void *arg)
{
	int64_t timeout = rc->timeout_ms > 0 ? rc->timeout_ms : SNMPSESS_DEFAULT_TIMEOUT_MS;
	c->rc = rc;
	c->busy = true;
	c->done = done;
	c->arg = arg;
	c->step = SNMPSTEP_PROBE;
	c->s = snmpstep_begin(c->dec, rc, 0);
	sample_stamp(c->s);
	c->start_ms = clock_mono_ms();
	c->deadline_timer = loop_after(c->m->loop, timeout, snmpcoll_on_deadline, c);
}

static int snmpcoll_poll(void *ctx, void *handle, const conf_router_t *rc, collector_done_fn done, void *arg)
{
	struct snmpcoll_conn *c = handle;
	char *cause = NULL;
	if (!snmpcoll_handles(ctx, rc))
		return -1;
	if (c->busy)
		return -1;
	snmpcoll_conn_begin(c, rc, done, arg);
	if (c->sess != NULL && c->opened != rc)
		snmpcoll_close_session(c); /* the configuration changed */
	if (c->sess == NULL && snmpcoll_connect(c, rc, &cause) < 0) {
		snmpcoll_fail(c, SAMPLE_ERR_INTERNAL, "%s", cause);
		free(cause);
	} else {
		struct snmpstep_poll p = snmpcoll_steps(c);
		c->step = snmpstep_first(&p);
		snmpcoll_send_step(c);
	}
	return 0;
}

/* The session closes with the poll, as on a failure: the next poll opens a new one. */
static void snmpcoll_cancel(void *ctx, void *handle)
{
	snmpcoll_conn_abandon(handle);
}

snmpcoll_t *snmpcoll_create(loop_t *loop)
{
	if (snmpcoll_inits++ == 0)
		snmpsess_lib_init();
	snmpcoll_t *m = xcalloc(1, sizeof(*m));
	m->loop = loop;
	return m;
}

void snmpcoll_destroy(snmpcoll_t *m)
{
	if (m == NULL)
		return;
	while (m->conns != NULL)
		snmpcoll_detach(m, m->conns);
	free(m);
	snmpcoll_inits--;
}

collector_t snmpcoll_collector(snmpcoll_t *m)
{
	return (collector_t){
		.name = "snmp",
		.ctx = m,
		.handles = snmpcoll_handles,
		.attach = snmpcoll_attach,
		.detach = snmpcoll_detach,
		.poll = snmpcoll_poll,
		.cancel = snmpcoll_cancel,
	};
}