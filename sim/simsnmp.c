/* SPDX-License-Identifier: Apache-2.0 */
/* simsnmp: the SNMP v1/v2c agent of every simulated router, the wire side: one UDP socket
 * each, all in one epoll, served by a thread of its own; simmib.c finds the values. It never
 * blocks, never answers a wrong community or a router that refuses or hangs. */
#include "config.h"
#include "sim/simsnmp.h"
#include "sim/simsnmp_int.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/library/snmp_impl.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PKT_MAX 65536
#define BURST   32 /* requests read from one socket before the next */

struct agent {
	int fd;
	simrouter_t *r;
};

struct simsnmp {
	int ep, stopfd;
	struct agent *agents;
	size_t n;
	char *community;
	size_t community_len;
	double time_scale;
	double t0; /* simulated time at start */
	struct timespec start;
	struct simmib mib;
	netsnmp_session sess; /* only what snmp_build needs: version, community */
	u_char *out;
	size_t out_size;
	unsigned char *in;
	pthread_t thread;
	bool threaded;
	unsigned long answered;
};

static double simsnmp_sim_time(const simsnmp_t *s)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	double real = (double)(ts.tv_sec - s->start.tv_sec) + (double)(ts.tv_nsec - s->start.tv_nsec) / 1e9;
	return s->t0 + real * s->time_scale;
}

/* ---- the wire ---- */

static void simsnmp_send_reply(
	simsnmp_t *s, const struct agent *a, netsnmp_pdu *pdu, const struct sockaddr_in *to)
{
	size_t off = 0;
	free(pdu->community);
	pdu->community = (u_char *)xstrdup(s->community);
	pdu->community_len = s->community_len;
	s->sess.version = pdu->version;
	if (snmp_build(&s->out, &s->out_size, &off, &s->sess, pdu) != SNMPERR_SUCCESS)
		return;
	if (sendto(a->fd, s->out + s->out_size - off, off, 0, (const struct sockaddr *)to, sizeof(*to)) ==
		(ssize_t)off)
		s->answered++;
}

static void simsnmp_handle(simsnmp_t *s, const struct agent *a, size_t len, const struct sockaddr_in *from)
{
	u_char comm[256];
	size_t clen = sizeof(comm), left = len;
	long ver = -1;
	u_char *d = snmp_comstr_parse(s->in, &left, comm, &clen, &ver);
	if (!d || (ver != SNMP_VERSION_1 && ver != SNMP_VERSION_2c) || clen != s->community_len ||
		memcmp(comm, s->community, clen) != 0)
		return;
	double t = simsnmp_sim_time(s);
	enum sc_fault f = simrouter_fault(a->r, t);
	if (f == SC_FAULT_REFUSE || f == SC_FAULT_HANG)
		return; /* booting or hung: silence, like an agent that is not there */
	netsnmp_pdu *pdu = snmp_pdu_create(SNMP_MSG_GET);
	if (snmp_pdu_parse(pdu, d, &left) == 0) {
		pdu->version = ver;
		if (simmib_respond(&s->mib, a->r, pdu, t) == 0)
			simsnmp_send_reply(s, a, pdu, from);
	}
	snmp_free_pdu(pdu);
}

static void simsnmp_agent_drain(simsnmp_t *s, const struct agent *a)
{
	for (int i = 0; i < BURST; i++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(a->fd, s->in, PKT_MAX, 0, (struct sockaddr *)&from, &fl);
		if (n <= 0)
			return;
		if (fl == sizeof(from) && from.sin_family == AF_INET)
			simsnmp_handle(s, a, (size_t)n, &from);
	}
}

/* Serve the ready sockets among ev; true when the stop fd fired. */
static bool simsnmp_serve_events(simsnmp_t *s, const struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		if (ev[i].data.ptr == &s->stopfd)
			return true;
		simsnmp_agent_drain(s, ev[i].data.ptr);
	}
	return false;
}

int simsnmp_fd(const simsnmp_t *s)
{
	return s->ep;
}
unsigned long simsnmp_answered(const simsnmp_t *s)
{
	return s->answered;
}

void simsnmp_serve(simsnmp_t *s)
{
	struct epoll_event ev[64];
	int n = epoll_wait(s->ep, ev, 64, 0);
	if (n > 0)
		simsnmp_serve_events(s, ev, n);
}

static void *simsnmp_thread(void *arg)
{
	simsnmp_t *s = arg;
	struct epoll_event ev[64];
	for (;;) {
		int n = epoll_wait(s->ep, ev, 64, -1);
		if (n < 0 && errno != EINTR) {
			log_error("snmp: epoll_wait: %s", strerror(errno));
			break;
		}
		if (n > 0 && simsnmp_serve_events(s, ev, n))
			break;
	}
	return NULL;
}

int simsnmp_start(simsnmp_t *s, char **cause)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = &s->stopfd };
	s->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->stopfd < 0 || epoll_ctl(s->ep, EPOLL_CTL_ADD, s->stopfd, &e) < 0) {
		*cause = xasprintf("snmp: eventfd: %s", strerror(errno));
		return -1;
	}
	int rc = pthread_create(&s->thread, NULL, simsnmp_thread, s);
	if (rc != 0) {
		*cause = xasprintf("snmp: pthread_create: %s", strerror(rc));
		return -1;
	}
	s->threaded = true;
	return 0;
}

/* ---- life cycle ---- */

static int simsnmp_agent_open(simsnmp_t *s, struct agent *a, uint32_t addr, uint16_t port, char **cause)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(addr)
	};
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = a };
	char ip[16];
	a->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (a->fd < 0 || bind(a->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		epoll_ctl(s->ep, EPOLL_CTL_ADD, a->fd, &e) < 0) {
		struct in_addr in = { .s_addr = htonl(addr) };
		*cause = xasprintf("snmp: udp %s:%u: %s", inet_ntop(AF_INET, &in, ip, sizeof(ip)),
			(unsigned)port, strerror(errno));
		return -1;
	}
	return 0;
}

simsnmp_t *simsnmp_create(simrouter_t *const *routers, const uint32_t *addrs, size_t n, uint16_t port,
	const char *community, double time_scale, double t0, char **cause)
{
	simsnmp_t *s = xcalloc(1, sizeof(*s));
	simmib_init(&s->mib);
	s->stopfd = -1;
	s->time_scale = time_scale;
	s->t0 = t0;
	clock_gettime(CLOCK_MONOTONIC, &s->start);
	s->community = xstrdup(community);
	s->community_len = strlen(community);
	s->out_size = 4096;
	s->out = xmalloc(s->out_size);
	s->in = xmalloc(PKT_MAX);
	snmp_sess_init(&s->sess);
	s->agents = xcalloc(n ? n : 1, sizeof(*s->agents));
	s->ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->ep < 0) {
		*cause = xasprintf("snmp: epoll_create1: %s", strerror(errno));
		simsnmp_destroy(s);
		return NULL;
	}
	for (; s->n < n; s->n++) {
		s->agents[s->n].r = routers[s->n];
		if (simsnmp_agent_open(s, &s->agents[s->n], addrs[s->n], port, cause) < 0) {
			s->n++;
			simsnmp_destroy(s);
			return NULL;
		}
	}
	return s;
}

void simsnmp_destroy(simsnmp_t *s)
{
	if (!s)
		return;
	if (s->threaded) {
		uint64_t one = 1;
		if (write(s->stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
			log_error("snmp: cannot stop the agent thread: %s", strerror(errno));
		pthread_join(s->thread, NULL);
	}
	for (size_t i = 0; i < s->n; i++)
		if (s->agents[i].fd >= 0)
			close(s->agents[i].fd);
	if (s->stopfd >= 0)
		close(s->stopfd);
	if (s->ep >= 0)
		close(s->ep);
	free(s->agents);
	simmib_fini(&s->mib);
	free(s->out);
	free(s->in);
	free(s->community);
	free(s);
}
