/* SPDX-License-Identifier: Apache-2.0 */
/* httpconn: deadlines for request heads and a reserve of free connection slots (see the
 * header). libmicrohttpd's own timeout is one of inactivity, which a byte every few seconds
 * defeats; this one counts from when the connection began to wait. A connection is closed
 * with shutdown(): libmicrohttpd sees the end of it in its own thread and cleans up. The fd
 * stays valid while its entry is listed, since libmicrohttpd notifies the close before it
 * closes the socket, and the list is read and changed under one mutex.
 * A connection with bytes in the kernel that libmicrohttpd has not read yet is not a slow
 * client: the server is behind (both its threads busy), so the guard leaves it alone. A slow
 * client's trickle is read as it comes, leaving nothing unread. */
#include "config.h"
#include "web/httpconn.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "lib/worker.h"
#include "lib/xmem.h"

#define HTTPCONN_SWEEP_MS 500
#define HTTPCONN_YOUNG_MS 1000 /* never closed for the reserve before this: a client asks at once */

struct httpconn_entry {
	int fd;
	unsigned char addr[16]; /* the client's address (4 or 16 bytes), for the per-address count */
	size_t addrlen;         /* 0: unknown, not counted */
	bool first;             /* no request yet: head_ms applies, else idle_ms */
	int64_t since_ms;       /* waiting since (monotonic); meaningful while waiting */
	struct httpconn_entry *prev, *next; /* in the waiting list; both NULL when not in it */
	bool waiting;
};

struct httpconn_peer { /* a client address with connections open or admitted */
	unsigned char addr[16];
	size_t addrlen, n;
	size_t pending; /* admitted by httpconn_admit, not yet started: counted against the limit */
};

struct httpconn {
	int64_t head_ms, idle_ms;
	size_t max_waiting, max_per_ip;
	struct httpconn_peer *peers; /* under mu */
	size_t npeers, cappeers;
	pthread_mutex_t mu;
	struct httpconn_entry *head, *tail; /* waiting, longest first */
	size_t open, waiting;
	uint64_t closed[HTTPCONN_NREASONS];
	worker_t *sweeper;
};

/* The bytes of sa's address into key; their number, 0 when sa is no IP address. */
static size_t httpconn_key(const struct sockaddr *sa, unsigned char key[16])
{
	if (sa != NULL && sa->sa_family == AF_INET) {
		memcpy(key, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
		return 4;
	}
	if (sa != NULL && sa->sa_family == AF_INET6) {
		memcpy(key, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
		return 16;
	}
	return 0;
}

/* Under the mutex: the peer of key, NULL when it has no connection open. */
static struct httpconn_peer *httpconn_peer(httpconn_t *g, const unsigned char *key, size_t len)
{
	for (size_t i = 0; len > 0 && i < g->npeers; i++)
		if (g->peers[i].addrlen == len && memcmp(g->peers[i].addr, key, len) == 0)
			return &g->peers[i];
	return NULL;
}

/* Under the mutex: the peer of key, made when it has none. */
static struct httpconn_peer *httpconn_peer_add(httpconn_t *g, const unsigned char *key, size_t len)
{
	struct httpconn_peer *p = httpconn_peer(g, key, len);
	if (p != NULL)
		return p;
	if (g->npeers == g->cappeers) {
		g->cappeers = g->cappeers ? 2 * g->cappeers : 16;
		g->peers = xreallocarray(g->peers, g->cappeers, sizeof(*g->peers));
	}
	p = &g->peers[g->npeers++];
	*p = (struct httpconn_peer){ .addrlen = len };
	memcpy(p->addr, key, len);
	return p;
}

/* Under the mutex: one connection more (d 1: it started, taking its admission's slot when it
 * had one) or less (d -1) from e's address. */
static void httpconn_count(httpconn_t *g, const struct httpconn_entry *e, int d)
{
	if (e->addrlen == 0)
		return;
	struct httpconn_peer *p = d > 0 ? httpconn_peer_add(g, e->addr, e->addrlen)
					: httpconn_peer(g, e->addr, e->addrlen);
	if (p == NULL)
		return;
	if (d > 0)
		p->pending -= p->pending > 0, p->n++;
	else
		p->n -= p->n > 0;
	if (p->n == 0 && p->pending == 0)
		*p = g->peers[--g->npeers];
}

/* The slot is taken here, not when the connection starts: the two workers of libmicrohttpd
 * admit at once, and a count taken later let both pass at the limit (036 saw a 33rd
 * connection admitted, then the flood wait on it). */
bool httpconn_admit(httpconn_t *g, const struct sockaddr *sa)
{
	unsigned char key[16];
	size_t len = httpconn_key(sa, key);
	if (len == 0)
		return true;
	pthread_mutex_lock(&g->mu);
	struct httpconn_peer *p = httpconn_peer_add(g, key, len);
	bool ok = p->n + p->pending < g->max_per_ip;
	p->pending += ok;
	if (p->n == 0 && p->pending == 0)
		*p = g->peers[--g->npeers];
	pthread_mutex_unlock(&g->mu);
	return ok;
}

static void httpconn_unwait(httpconn_t *g, struct httpconn_entry *e)
{
	if (!e->waiting)
		return;
	if (e->prev)
		e->prev->next = e->next;
	else
		g->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		g->tail = e->prev;
	e->prev = e->next = NULL;
	e->waiting = false;
	g->waiting--;
}

static void httpconn_wait(httpconn_t *g, struct httpconn_entry *e, int64_t now_ms)
{
	httpconn_unwait(g, e);
	e->since_ms = now_ms;
	e->prev = g->tail;
	if (g->tail)
		g->tail->next = e;
	else
		g->head = e;
	g->tail = e;
	e->waiting = true;
	g->waiting++;
}

/* Under the mutex: the entry's fd is still libmicrohttpd's (see the top of the file). */
static void httpconn_close(httpconn_t *g, struct httpconn_entry *e, enum httpconn_reason why)
{
	httpconn_unwait(g, e);
	shutdown(e->fd, SHUT_RDWR);
	g->closed[why]++;
}

/* Whether fd has bytes libmicrohttpd has not read yet (then the wait is the server's doing). */
static bool httpconn_unread(int fd)
{
	int n = 0;
	return ioctl(fd, FIONREAD, &n) == 0 && n > 0;
}

/* Under the mutex: close the longest-waiting connections the client is to blame for, until at
 * most max_waiting wait: those that have waited HTTPCONN_YOUNG_MS at least (a client that
 * just connected has not had the time to ask) with nothing unread. */
static void httpconn_reserve(httpconn_t *g, int64_t now_ms)
{
	for (struct httpconn_entry *e = g->head, *next; e != NULL && g->waiting > g->max_waiting; e = next) {
		next = e->next;
		if (now_ms - e->since_ms < HTTPCONN_YOUNG_MS)
			break; /* the list is in order of waiting: the rest are younger */
		if (!httpconn_unread(e->fd))
			httpconn_close(g, e, HTTPCONN_RESERVE);
	}
}

static void httpconn_started(httpconn_t *g, struct MHD_Connection *conn, void **ctx)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct httpconn_entry *e = xcalloc(1, sizeof(*e));
	e->fd = ci != NULL ? ci->connect_fd : -1;
	e->first = true;
	const union MHD_ConnectionInfo *ca = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	e->addrlen = httpconn_key(ca != NULL ? ca->client_addr : NULL, e->addr);
	*ctx = e;
	pthread_mutex_lock(&g->mu);
	g->open++;
	httpconn_count(g, e, 1);
	int64_t now = clock_mono_ms();
	if (e->fd >= 0)
		httpconn_wait(g, e, now);
	httpconn_reserve(g, now);
	pthread_mutex_unlock(&g->mu);
}

void httpconn_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
	enum MHD_ConnectionNotificationCode code)
{
	httpconn_t *g = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		httpconn_started(g, conn, socket_context);
		return;
	}
	struct httpconn_entry *e = *socket_context;
	if (e == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	httpconn_unwait(g, e);
	httpconn_count(g, e, -1);
	g->open--;
	pthread_mutex_unlock(&g->mu);
	*socket_context = NULL;
	free(e);
}

static struct httpconn_entry *httpconn_entry(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci != NULL ? ci->socket_context : NULL;
}

void httpconn_began(httpconn_t *g, struct MHD_Connection *conn)
{
	struct httpconn_entry *e = httpconn_entry(conn);
	if (g == NULL || e == NULL)
		return;
	pthread_mutex_lock(&g->mu);
	httpconn_unwait(g, e);
	e->first = false;
	pthread_mutex_unlock(&g->mu);
}

void httpconn_completed(
	void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode toe)
{
	(void)req_cls;
	(void)toe;
	httpconn_t *g = cls;
	struct httpconn_entry *e = httpconn_entry(conn);
	if (e == NULL || e->fd < 0)
		return;
	pthread_mutex_lock(&g->mu);
	e->first = false;
	httpconn_wait(g, e, clock_mono_ms());
	pthread_mutex_unlock(&g->mu);
}

size_t httpconn_sweep(httpconn_t *g, int64_t now_ms)
{
	size_t n = 0;
	pthread_mutex_lock(&g->mu);
	for (struct httpconn_entry *e = g->head, *next; e != NULL; e = next) {
		next = e->next;
		if (now_ms - e->since_ms >= (e->first ? g->head_ms : g->idle_ms) && !httpconn_unread(e->fd)) {
			httpconn_close(g, e, HTTPCONN_DEADLINE);
			n++;
		}
	}
	httpconn_reserve(g, now_ms); /* also when libmicrohttpd, at its limit, accepts nothing new */
	pthread_mutex_unlock(&g->mu);
	return n;
}

static void httpconn_tick(void *arg)
{
	size_t n = httpconn_sweep(arg, clock_mono_ms());
	if (n > 0)
		log_debug("http: closed %zu connections that sent no complete request in time", n);
}

httpconn_t *httpconn_create(int64_t head_ms, int64_t idle_ms, size_t max_waiting, size_t max_per_ip)
{
	httpconn_t *g = xcalloc(1, sizeof(*g));
	g->head_ms = head_ms;
	g->idle_ms = idle_ms;
	g->max_waiting = max_waiting;
	g->max_per_ip = max_per_ip;
	pthread_mutex_init(&g->mu, NULL);
	if (worker_start("wg-httpsweep", HTTPCONN_SWEEP_MS, httpconn_tick, g, &g->sweeper) != 0)
		log_warn("http: cannot start the connection sweeper: slow clients are closed only "
			 "when they are idle for the connection timeout");
	return g;
}

void httpconn_destroy(httpconn_t *g)
{
	if (g == NULL)
		return;
	worker_stop(g->sweeper);
	pthread_mutex_destroy(&g->mu);
	free(g->peers);
	free(g);
}

void httpconn_counts(httpconn_t *g, uint64_t closed[HTTPCONN_NREASONS], size_t *open, size_t *waiting)
{
	pthread_mutex_lock(&g->mu);
	for (int i = 0; i < HTTPCONN_NREASONS; i++)
		closed[i] = g->closed[i];
	*open = g->open;
	*waiting = g->waiting;
	pthread_mutex_unlock(&g->mu);
}
