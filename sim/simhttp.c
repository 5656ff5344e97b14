/* SPDX-License-Identifier: Apache-2.0 */
/* simhttp: the HTTP side of wgwatch-sim on libmicrohttpd: one MHD daemon per router (its own
 * loopback address, no thread of its own), all driven from one thread by a master epoll over
 * the daemons' epoll fds, plus the network faults (their replies: simfault.c). It must never
 * block and never start a thread: slow replies are dripped from timers, hung ones parked. */
#include "config.h"
#include "sim/simhttp.h"
#include "sim/simhttp_int.h"
#include "sim/simrest.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BODY_MAX    8192  /* request body bytes */
#define CONN_MEMORY 10240 /* MHD's per-connection pool: heads over ~9.5 KiB get 431 */
#define IDLE_CLOSE  300   /* real seconds without traffic */
#define NO_HEAP     SIZE_MAX

struct simhttp {
	int ep, sigfd;
	struct host *hosts;
	size_t nhosts;
	struct host **heap; /* min-heap on due: daemons with an MHD timeout pending */
	size_t nheap;
	struct host **dyn; /* hosts whose listener comes and goes */
	size_t ndyn;
	struct req *parked[P_PARKS]; /* suspended requests, by why (enum park) */
	double next_tick, drip_wake, hold_wake;
	unsigned long pass;
	uint16_t port;
	double time_scale;
	double t0; /* simulated time at simhttp_create */
	struct timespec start;
	char mhd_err[256];        /* MHD's last message, for simhttp_create's cause */
	char *tls_cert, *tls_key; /* PEM text, when some router serves HTTPS */
};

double simhttp_real_now(const simhttp_t *h)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - h->start.tv_sec) + (double)(ts.tv_nsec - h->start.tv_nsec) / 1e9;
}

double simhttp_sim_time(const simhttp_t *h)
{
	return h->t0 + simhttp_real_now(h) * h->time_scale;
}

static const char *simhttp_addr_str(uint32_t a, char out[16])
{
	struct in_addr in = { .s_addr = htonl(a) };
	return inet_ntop(AF_INET, &in, out, 16);
}

/* ---- the timeout heap ---- */

static void simhttp_heap_place(simhttp_t *h, size_t i, struct host *ho)
{
	h->heap[i] = ho;
	ho->hidx = i;
}

static void simhttp_heap_up(simhttp_t *h, size_t i)
{
	struct host *ho = h->heap[i];
	while (i > 0 && h->heap[(i - 1) / 2]->due > ho->due) {
		simhttp_heap_place(h, i, h->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	simhttp_heap_place(h, i, ho);
}

static void simhttp_heap_down(simhttp_t *h, size_t i)
{
	struct host *ho = h->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->nheap)
			break;
		if (c + 1 < h->nheap && h->heap[c + 1]->due < h->heap[c]->due)
			c++;
		if (h->heap[c]->due >= ho->due)
			break;
		simhttp_heap_place(h, i, h->heap[c]);
		i = c;
	}
	simhttp_heap_place(h, i, ho);
}

/* When MHD next wants ho run without a socket event; INFINITY: never. */
static void simhttp_heap_set(simhttp_t *h, struct host *ho, double due)
{
	ho->due = due;
	if (ho->hidx == NO_HEAP && !isinf(due)) {
		h->heap[h->nheap] = ho;
		simhttp_heap_up(h, h->nheap++);
	} else if (ho->hidx != NO_HEAP && isinf(due)) {
		size_t i = ho->hidx;
		struct host *last = h->heap[--h->nheap];
		ho->hidx = NO_HEAP;
		if (last != ho) {
			simhttp_heap_place(h, i, last);
			simhttp_heap_up(h, i);
			simhttp_heap_down(h, last->hidx);
		}
	} else if (ho->hidx != NO_HEAP) {
		simhttp_heap_up(h, ho->hidx);
		simhttp_heap_down(h, ho->hidx);
	}
}

/* Let MHD do what is ready on ho, then note when it next needs a run. */
static void simhttp_host_run(simhttp_t *h, struct host *ho)
{
	MHD_UNSIGNED_LONG_LONG ms;
	if (!ho->d)
		return;
	MHD_run(ho->d);
	ho->ran = h->pass;
	if (MHD_get_timeout(ho->d, &ms) == MHD_YES)
		simhttp_heap_set(h, ho, simhttp_real_now(h) + (double)ms / 1000);
	else
		simhttp_heap_set(h, ho, INFINITY);
}

/* ---- parked (suspended) requests ---- */

void simhttp_park(simhttp_t *h, struct req *r, enum park p)
{
	struct req **head = &h->parked[p];
	r->park = p;
	r->prev = NULL;
	r->next = *head;
	if (*head)
		(*head)->prev = r;
	*head = r;
	MHD_suspend_connection(r->c);
}

void simhttp_hold_sleep(simhttp_t *h, struct req *r)
{
	simhttp_park(h, r, P_HOLD);
	h->hold_wake = fmin(h->hold_wake, r->due);
}

void simhttp_drip_sleep(simhttp_t *h, struct req *r)
{
	simhttp_park(h, r, P_DRIP);
	h->drip_wake = fmin(h->drip_wake, r->next_drip);
}

static void simhttp_unpark(simhttp_t *h, struct req *r)
{
	if (r->park == P_NONE)
		return;
	if (r->prev)
		r->prev->next = r->next;
	else
		h->parked[r->park] = r->next;
	if (r->next)
		r->next->prev = r->prev;
	r->park = P_NONE;
	r->prev = r->next = NULL;
}

/* Resume r. Without an internal thread MHD has no resume channel to wake the epoll: its
 * daemon is made due now, so the loop runs it. */
void simhttp_wake(simhttp_t *h, struct req *r, bool dead)
{
	simhttp_unpark(h, r);
	r->dead = dead;
	MHD_resume_connection(r->c);
	simhttp_heap_set(h, r->ho, simhttp_real_now(h));
}

/* ---- replies ---- */

static enum MHD_Result simhttp_queue(struct MHD_Connection *c, int status, struct MHD_Response *resp)
{
	if (!resp)
		return MHD_NO;
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, resp);
	MHD_destroy_response(resp);
	return ok;
}

static enum MHD_Result simhttp_simple_reply(struct MHD_Connection *c, int status, const char *message)
{
	char body[96];
	int n = snprintf(body, sizeof(body), "{\"error\":%d,\"message\":\"%s\"}", status, message);
	struct MHD_Response *resp = MHD_create_response_from_buffer((size_t)n, body, MHD_RESPMEM_MUST_COPY);
	if (resp) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	}
	return simhttp_queue(c, status, resp);
}

/* Send r's reply (held in rs, or r->held when its time has come) and end r's turn. */
static enum MHD_Result simhttp_send(struct req *r, struct simresp *rs, enum sc_fault f)
{
	enum MHD_Result ok = simhttp_queue(r->c, rs->status, simfault_response(r, rs, f));
	simhold_release(r);
	return ok;
}

/* Answer the complete request r through simrest. */
static enum MHD_Result simhttp_serve(struct req *r, const char *method, enum sc_fault f)
{
	simhttp_t *h = r->ho->h;
	char *q = strchr(r->target, '?');
	if (q)
		*q++ = '\0';
	struct simreq rq = { .method = method,
		.path = r->target,
		.query = q ? q : "",
		.auth = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Authorization"),
		.body = r->in.data ? r->in.data : "",
		.body_len = r->in.len,
		.content_type = MHD_lookup_connection_value(
			r->c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE),
		.time_scale = h->time_scale };
	struct simresp rs;
	const char *name = simrouter_name(r->ho->r);
	buf_init(&rs.body);
	simrest_handle(r->ho->r, simhttp_sim_time(h), &rq, &rs);
	log_debug("router %s: %s %s%s%s -> %d%s", name, method, rq.path, q ? "?" : "", rq.query, rs.status,
		rs.hold > 0 ? " (held)" : "");
	if (rs.served_private_key)
		log_info("router %s: served private-key/preshared-key (%s %s with no .proplist)", name,
			method, rq.path);
	if (rs.hold > 0) {
		simhold_keep(r, &rs, simhttp_real_now(h));
		return MHD_YES;
	}
	enum MHD_Result ok = simhttp_send(r, &rs, f);
	buf_free(&rs.body);
	return ok;
}

/* The request's last call: every byte of it is in. */
static enum MHD_Result simhttp_answer(struct req *r, const char *method)
{
	simhttp_t *h = r->ho->h;
	enum sc_fault f = simrouter_fault(r->ho->r, simhttp_sim_time(h));
	if (r->dead || f == SC_FAULT_REFUSE)
		return MHD_NO; /* MHD closes the connection */
	if (r->ready) {
		r->ready = false;
		enum MHD_Result ok = simhttp_send(r, &r->held, f);
		buf_free(&r->held.body);
		return ok;
	}
	if (f == SC_FAULT_HANG || simrest_hangs(r->ho->r, simhttp_sim_time(h), r->target)) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
			r->c, MHD_CONNECTION_INFO_CONNECTION_FD);
		r->fd = ci ? ci->connect_fd : -1;
		simhttp_park(h, r, P_HANG);
		return MHD_YES;
	}
	if (!simhold_take_turn(r))
		return MHD_YES;
	return simhttp_serve(r, method, f);
}

/* The first call: only the head is in. Too big a body is refused before it is read. */
static enum MHD_Result simhttp_begin(struct req *r)
{
	const char *cl = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	r->seen = true;
	if (cl && strtoull(cl, NULL, 10) > BODY_MAX)
		return simhttp_simple_reply(r->c, 413, "Payload Too Large");
	return MHD_YES;
}

static enum MHD_Result simhttp_on_request(void *cls, struct MHD_Connection *c, const char *url,
	const char *method, const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct req *r = *con_cls;
	(void)cls, (void)url, (void)version;
	if (!r)
		return MHD_NO;
	r->c = c;
	if (!r->seen)
		return simhttp_begin(r);
	if (*upload_size) {
		if (r->in.len + *upload_size > BODY_MAX)
			return MHD_NO; /* a chunked body past the limit */
		buf_append(&r->in, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	return simhttp_answer(r, method);
}

static void *simhttp_on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct req *r = xcalloc(1, sizeof(*r));
	r->ho = cls;
	r->c = c;
	r->fd = -1;
	r->target = xstrdup(uri);
	buf_init(&r->in);
	buf_init(&r->out);
	return r;
}

static void simhttp_on_completed(
	void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct host *ho = cls;
	struct req *r = *con_cls;
	(void)c, (void)toe;
	if (!r)
		return;
	simhttp_unpark(ho->h, r);
	simhold_release(r);
	if (r->ready)
		buf_free(&r->held.body);
	free(r->target);
	buf_free(&r->in);
	buf_free(&r->out);
	free(r);
	*con_cls = NULL;
}

__attribute__((format(printf, 2, 0))) static void simhttp_on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	simhttp_t *h = cls;
	vsnprintf(h->mhd_err, sizeof(h->mhd_err), fmt, ap);
	h->mhd_err[strcspn(h->mhd_err, "\r\n")] = '\0';
	log_debug("libmicrohttpd: %s", h->mhd_err);
}

/* ---- daemons ---- */

/* MHD sets SO_REUSEADDR by default (restarts bind through TIME_WAIT); never SO_REUSEPORT, so a
 * taken address still fails. */
static struct MHD_Daemon *simhttp_daemon_start(simhttp_t *h, struct host *ho)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET, .sin_port = htons(h->port), .sin_addr.s_addr = htonl(ho->addr)
	};
	/* every router may hold a command's reply or make a request wait for its user's turn */
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	struct MHD_OptionItem tls[] = {
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, h->tls_key },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, h->tls_cert },
		{ MHD_OPTION_END, 0, NULL },
	};
	if (ho->tls)
		flags |= MHD_USE_TLS;
	return MHD_start_daemon(flags, h->port, NULL, NULL, simhttp_on_request, ho, MHD_OPTION_ARRAY,
		ho->tls ? tls : &tls[2], MHD_OPTION_EXTERNAL_LOGGER, simhttp_on_mhd_log, h,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_LISTEN_BACKLOG_SIZE, 511U,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_CLOSE, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)CONN_MEMORY, MHD_OPTION_URI_LOG_CALLBACK, simhttp_on_uri, ho,
		MHD_OPTION_NOTIFY_COMPLETED, simhttp_on_completed, ho, MHD_OPTION_END);
}

/* Start ho's daemon (listen) and put its epoll fd in the master epoll. */
static int simhttp_host_listen(simhttp_t *h, struct host *ho, char **cause)
{
	char a[16];
	h->mhd_err[0] = '\0';
	ho->d = simhttp_daemon_start(h, ho);
	if (!ho->d) {
		*cause = xasprintf("listen on %s:%u: %s", simhttp_addr_str(ho->addr, a), h->port,
			h->mhd_err[0] ? h->mhd_err : "libmicrohttpd cannot start");
		return -1;
	}
	const union MHD_DaemonInfo *di = MHD_get_daemon_info(ho->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = ho };
	if (!di || epoll_ctl(h->ep, EPOLL_CTL_ADD, di->epoll_fd, &e) < 0) {
		*cause = xasprintf("epoll_ctl: %s", strerror(errno));
		MHD_stop_daemon(ho->d);
		ho->d = NULL;
		return -1;
	}
	return 0;
}

static void simhttp_wake_host(simhttp_t *h, struct req **head, struct host *ho)
{
	for (struct req *r = *head, *next; r; r = next) {
		next = r->next;
		if (r->ho == ho)
			simhttp_wake(h, r, true);
	}
}

/* Stop listening (refuse) and drop the router's connections, as a reboot would. MHD wants
 * every suspended connection resumed first. */
static void simhttp_host_unlisten(simhttp_t *h, struct host *ho)
{
	if (!ho->d)
		return;
	ho->stopping = true;
	for (int p = P_HANG; p < P_PARKS; p++)
		simhttp_wake_host(h, &h->parked[p], ho);
	MHD_stop_daemon(ho->d); /* closes its epoll fd: out of the master epoll */
	ho->d = NULL;
	simq_destroy(ho->q); /* every request of it is gone */
	ho->q = NULL;
	ho->stopping = false;
	simhttp_heap_set(h, ho, INFINITY);
}

/* ---- timers: drips, refuse on/off, hung requests whose client left ---- */

static void simhttp_drips_due(simhttp_t *h, double now)
{
	h->drip_wake = INFINITY;
	for (struct req *r = h->parked[P_DRIP], *next; r; r = next) {
		next = r->next;
		if (r->next_drip <= now)
			simhttp_wake(h, r, false);
		else
			h->drip_wake = fmin(h->drip_wake, r->next_drip);
	}
}

/* Held replies whose time has come. */
static void simhttp_holds_due(simhttp_t *h, double now)
{
	h->hold_wake = INFINITY;
	for (struct req *r = h->parked[P_HOLD], *next; r; r = next) {
		next = r->next;
		if (r->due <= now)
			simhttp_wake(h, r, false);
		else
			h->hold_wake = fmin(h->hold_wake, r->due);
	}
}

/* Close hung requests whose client has gone (a suspended connection is not watched by MHD). */
static void simhttp_hung_sweep(simhttp_t *h)
{
	size_t n = 0, i = 0;
	for (struct req *r = h->parked[P_HANG]; r; r = r->next)
		n++;
	struct pollfd *p = xcalloc(n, sizeof(*p));
	for (struct req *r = h->parked[P_HANG]; r; r = r->next, i++)
		p[i] = (struct pollfd){ .fd = r->fd, .events = POLLRDHUP };
	if (poll(p, n, 0) > 0) {
		i = 0;
		for (struct req *r = h->parked[P_HANG], *next; r; r = next, i++) {
			next = r->next;
			if (p[i].revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
				simhttp_wake(h, r, true);
		}
	}
	free(p);
}

static double simhttp_host_tick(simhttp_t *h, struct host *ho, double now, double t)
{
	bool want = simrouter_fault(ho->r, t) != SC_FAULT_REFUSE;
	char *cause = NULL;
	if (want && !ho->d) {
		if (simhttp_host_listen(h, ho, &cause) < 0) {
			log_error("router %s: %s", simrouter_name(ho->r), cause);
			free(cause);
			return now + 1;
		}
		log_info("router %s: listening again", simrouter_name(ho->r));
	} else if (!want && ho->d) {
		simhttp_host_unlisten(h, ho);
		log_info("router %s: refusing connections", simrouter_name(ho->r));
	}
	double next = simrouter_next_change(ho->r, t);
	return isinf(next) ? INFINITY : now + (next - t) / h->time_scale;
}

static void simhttp_tick(simhttp_t *h, double now)
{
	double t = h->t0 + now * h->time_scale, wake_at = now + 1;
	for (size_t i = 0; i < h->ndyn; i++)
		wake_at = fmin(wake_at, simhttp_host_tick(h, h->dyn[i], now, t));
	if (h->parked[P_HANG])
		simhttp_hung_sweep(h);
	h->next_tick = wake_at;
}

/* Daemons whose MHD timeout is due (each at most once a pass), drips, the tick. */
static void simhttp_run_timers(simhttp_t *h)
{
	double now = simhttp_real_now(h);
	while (h->nheap && h->heap[0]->due <= now && h->heap[0]->ran != h->pass)
		simhttp_host_run(h, h->heap[0]);
	if (h->drip_wake <= now)
		simhttp_drips_due(h, now);
	if (h->hold_wake <= now)
		simhttp_holds_due(h, now);
	if (h->next_tick <= now)
		simhttp_tick(h, now);
}

static int simhttp_next_timeout(const simhttp_t *h)
{
	double wake_at = fmin(fmin(h->next_tick, h->drip_wake), h->hold_wake);
	if (h->nheap)
		wake_at = fmin(wake_at, h->heap[0]->due);
	double ms = ceil((wake_at - simhttp_real_now(h)) * 1000);
	return ms <= 0 ? 0 : ms > 1000 ? 1000 : (int)ms;
}

static bool simhttp_signalled(simhttp_t *h)
{
	struct signalfd_siginfo si;
	if (read(h->sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return false;
	log_info("signal %u: stopping", si.ssi_signo);
	return true;
}

int simhttp_run(simhttp_t *h)
{
	struct epoll_event ev[256];
	bool quit = false;
	while (!quit) {
		int n = epoll_wait(h->ep, ev, 256, simhttp_next_timeout(h));
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			return -1;
		}
		h->pass++;
		for (int i = 0; i < n && !quit; i++) {
			if (ev[i].data.ptr == &h->sigfd)
				quit = simhttp_signalled(h);
			else
				simhttp_host_run(h, ev[i].data.ptr);
		}
		simhttp_run_timers(h);
	}
	return 0;
}

/* ---- life cycle ---- */

static int simhttp_signals_open(simhttp_t *h, char **cause)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	h->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = &h->sigfd };
	if (h->sigfd < 0 || epoll_ctl(h->ep, EPOLL_CTL_ADD, h->sigfd, &e) < 0) {
		*cause = xasprintf("signalfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static bool simhttp_host_is_dynamic(const simrouter_t *r)
{
	return !isinf(simrouter_next_change(r, -INFINITY)) || simrouter_fault(r, 0) == SC_FAULT_REFUSE;
}

static void simhttp_host_init(simhttp_t *h, struct host *ho, simrouter_t *r, uint32_t addr)
{
	*ho = (struct host){ .h = h,
		.r = r,
		.addr = addr,
		.dynamic = simhttp_host_is_dynamic(r),
		.tls = simrouter_group(r)->tls,
		.hidx = NO_HEAP,
		.due = INFINITY };
	if (ho->dynamic)
		h->dyn[h->ndyn++] = ho;
}

/* The whole of a (small) PEM file; NULL and *cause on failure. */
static char *simhttp_read_pem(const char *path, char **cause)
{
	FILE *f = fopen(path, "r");
	char chunk[4096];
	size_t n;
	buf_t b;
	if (!f) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	buf_init(&b);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 && b.len < 1024 * 1024)
		buf_append(&b, chunk, n);
	fclose(f);
	buf_putc(&b, '\0');
	return buf_steal(&b, NULL);
}

/* Key and certificate of the routers that serve HTTPS (one pair for the whole scenario). */
static int simhttp_tls_load(simhttp_t *h, simrouter_t *const *routers, size_t n, char **cause)
{
	bool any = false;
	for (size_t i = 0; i < n; i++)
		any = any || simrouter_group(routers[i])->tls;
	if (!any)
		return 0;
	if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		*cause = xstrdup("tls = yes, but libmicrohttpd was built without TLS");
		return -1;
	}
	const scenario_t *sc = simrouter_scenario(routers[0]);
	if (!(h->tls_cert = simhttp_read_pem(sc->tls_cert, cause)) ||
		!(h->tls_key = simhttp_read_pem(sc->tls_key, cause)))
		return -1;
	return 0;
}

simhttp_t *simhttp_create(simrouter_t *const *routers, const uint32_t *addrs, size_t n, uint16_t port,
	double time_scale, double t0, char **cause)
{
	simhttp_t *h = xcalloc(1, sizeof(*h));
	h->port = port;
	h->time_scale = time_scale;
	h->t0 = t0;
	h->sigfd = -1;
	h->drip_wake = INFINITY;
	h->hold_wake = INFINITY;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	h->hosts = xcalloc(n, sizeof(*h->hosts));
	h->heap = xcalloc(n ? n : 1, sizeof(*h->heap));
	h->dyn = xcalloc(n ? n : 1, sizeof(*h->dyn));
	clock_gettime(CLOCK_MONOTONIC, &h->start);
	if (h->ep < 0 || simhttp_signals_open(h, cause) < 0 || simhttp_tls_load(h, routers, n, cause) < 0) {
		if (!*cause)
			*cause = xasprintf("epoll_create1: %s", strerror(errno));
		simhttp_destroy(h);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct host *ho = &h->hosts[h->nhosts++];
		simhttp_host_init(h, ho, routers[i], addrs[i]);
		if (simrouter_fault(routers[i], t0) != SC_FAULT_REFUSE &&
			simhttp_host_listen(h, ho, cause) < 0) {
			simhttp_destroy(h);
			return NULL;
		}
	}
	return h;
}

void simhttp_destroy(simhttp_t *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->nhosts; i++)
		simhttp_host_unlisten(h, &h->hosts[i]);
	free(h->hosts);
	free(h->heap);
	free(h->dyn);
	free(h->tls_cert);
	free(h->tls_key);
	if (h->sigfd >= 0)
		close(h->sigfd);
	if (h->ep >= 0)
		close(h->ep);
	free(h);
}
