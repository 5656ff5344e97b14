/* simhttp: a small HTTP/1.1 server (keep-alive, Content-Length bodies, Expect: 100-continue)
 * over one epoll for thousands of per-router listeners, plus the network faults. It must never
 * block: every socket is non-blocking and slow replies are dripped from timers. */
#include "config.h"
#include "simhttp.h"
#include "simrest.h"
#include "buf.h"
#include "log.h"
#include "xmem.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define IN_MAX 8192            /* request head and body */
#define DRIP_BYTES 16
#define DRIP_EVERY 0.25        /* real seconds between drips: 64 bytes/s */
#define IDLE_CLOSE 300.0       /* real seconds without traffic */

enum kind { K_HOST, K_CONN, K_SIGNAL };
enum cstate { C_READ, C_WRITE, C_DRIP, C_HANG };

struct conn;

struct host {
	enum kind kind;
	int fd;                 /* -1 while not listening */
	bool paused;            /* out of fds: re-armed on the next tick */
	bool dynamic;           /* its fault may switch to or from refuse */
	simrouter_t *r;
	uint32_t addr;
	struct conn *conns;
};

struct conn {
	enum kind kind;
	int fd;
	struct host *host;
	struct conn *prev, *next;       /* in host->conns */
	enum cstate st;
	char in[IN_MAX + 1];
	size_t inlen;
	bool sent_continue;
	buf_t out;                      /* head (and body unless ext) */
	const char *ext;                /* a shared body after out */
	size_t extlen;
	size_t sent, limit;             /* bytes sent; stop (and close) at limit */
	bool close_after;
	double next_drip, last_io;      /* real seconds */
};

struct simhttp {
	int ep;
	int sigfd;
	enum kind sigkind;
	struct host *hosts;
	size_t nhosts;
	uint16_t port;
	double time_scale;
	struct timespec start;
	size_t nconns, ndrip;
};

static double real_now(const simhttp_t *h)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)(ts.tv_sec - h->start.tv_sec) + (double)(ts.tv_nsec - h->start.tv_nsec) / 1e9;
}

double simhttp_sim_time(const simhttp_t *h) { return real_now(h) * h->time_scale; }

static const char *addr_str(uint32_t a, char out[16])
{
	struct in_addr in = { .s_addr = htonl(a) };
	return inet_ntop(AF_INET, &in, out, 16);
}

static void set_events(simhttp_t *h, struct conn *c, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = c };
	epoll_ctl(h->ep, EPOLL_CTL_MOD, c->fd, &e);
}

/* ---- listeners ---- */

static int host_listen(simhttp_t *h, struct host *ho, char **cause)
{
	char a[16];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(h->port),
				  .sin_addr.s_addr = htonl(ho->addr) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 511) < 0) {
		*cause = xasprintf("listen on %s:%u: %s", addr_str(ho->addr, a), h->port, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = ho };
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &e) < 0) {
		*cause = xasprintf("epoll_ctl: %s", strerror(errno));
		close(fd);
		return -1;
	}
	ho->fd = fd;
	return 0;
}

static void conn_close(simhttp_t *h, struct conn *c);

/* Stop listening (refuse) and drop the router's connections, as a reboot would. */
static void host_unlisten(simhttp_t *h, struct host *ho)
{
	while (ho->conns)
		conn_close(h, ho->conns);
	if (ho->fd >= 0)
		close(ho->fd);
	ho->fd = -1;
	ho->paused = false;
}

/* ---- connections ---- */

static void conn_close(simhttp_t *h, struct conn *c)
{
	if (c->st == C_DRIP)
		h->ndrip--;
	if (c->prev)
		c->prev->next = c->next;
	else
		c->host->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	close(c->fd);
	buf_free(&c->out);
	h->nconns--;
	free(c);
}

static void host_accept(simhttp_t *h, struct host *ho)
{
	for (int i = 0; i < 64; i++) {
		int fd = accept4(ho->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				log_warn("out of file descriptors: not accepting on %s for a second",
					 simrouter_name(ho->r));
				epoll_ctl(h->ep, EPOLL_CTL_DEL, ho->fd, NULL);
				ho->paused = true;
			}
			return;
		}
		struct conn *c = xcalloc(1, sizeof(*c));
		*c = (struct conn){ .kind = K_CONN, .fd = fd, .host = ho, .next = ho->conns,
				    .last_io = real_now(h) };
		buf_init(&c->out);
		if (ho->conns)
			ho->conns->prev = c;
		ho->conns = c;
		h->nconns++;
		struct epoll_event e = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };
		epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &e);
	}
}

/* Send what may be sent now: everything, or one drip. -1: the connection is gone. */
static int conn_flush(simhttp_t *h, struct conn *c)
{
	size_t total = c->out.len + c->extlen;
	while (c->sent < c->limit) {
		bool head = c->sent < c->out.len;
		const char *p = head ? c->out.data + c->sent : c->ext + (c->sent - c->out.len);
		size_t n = (head ? c->out.len : total) - c->sent;
		if (n > c->limit - c->sent)
			n = c->limit - c->sent;
		if (c->st == C_DRIP && n > DRIP_BYTES)
			n = DRIP_BYTES;
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (w <= 0) {
			conn_close(h, c);
			return -1;
		}
		c->sent += (size_t)w;
		c->last_io = real_now(h);
		if (c->st == C_DRIP) {
			c->next_drip = c->last_io + DRIP_EVERY;
			break;
		}
	}
	return 0;
}

static void conn_process(simhttp_t *h, struct conn *c);

/* After a flush: finished replies close or go back to reading. */
static void conn_after_write(simhttp_t *h, struct conn *c)
{
	if (c->sent < c->limit) {
		if (c->st == C_WRITE)
			set_events(h, c, EPOLLOUT | EPOLLRDHUP);
		return;
	}
	if (c->close_after) {
		conn_close(h, c);
		return;
	}
	if (c->st == C_DRIP)
		h->ndrip--;
	c->st = C_READ;
	buf_reset(&c->out);
	c->ext = NULL;
	c->extlen = c->sent = c->limit = 0;
	set_events(h, c, EPOLLIN | EPOLLRDHUP);
	conn_process(h, c);
}

static const char *reason(int status)
{
	switch (status) {
	case 100: return "Continue";
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 413: return "Payload Too Large";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	default: return "Not Implemented";
	}
}

/* Queue a reply; fault decides how it leaves (all at once, dripped, or cut short). */
static void conn_reply(simhttp_t *h, struct conn *c, struct simresp *rs, enum sc_fault f)
{
	size_t blen = rs->shared ? rs->shared_len : rs->body.len;
	buf_reset(&c->out);
	buf_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
		   rs->status, reason(rs->status), rs->content_type, blen, rs->extra_headers,
		   c->close_after ? "Connection: close\r\n" : "");
	if (rs->shared) {
		c->ext = rs->shared;
		c->extlen = rs->shared_len;
	} else {
		buf_append(&c->out, rs->body.data ? rs->body.data : "", rs->body.len);
	}
	c->sent = 0;
	c->limit = c->out.len + c->extlen;
	c->st = C_WRITE;
	if (f == SC_FAULT_TRUNCATE) {
		c->limit -= blen - blen / 2;
		c->close_after = true;
	} else if (f == SC_FAULT_SLOW) {
		c->st = C_DRIP;
		h->ndrip++;
		set_events(h, c, EPOLLRDHUP);
	}
	if (conn_flush(h, c) == 0)
		conn_after_write(h, c);
}

static void simple_reply(simhttp_t *h, struct conn *c, int status)
{
	struct simresp rs = { .status = status, .content_type = "application/json", .extra_headers = "" };
	buf_init(&rs.body);
	buf_printf(&rs.body, "{\"error\":%d,\"message\":\"%s\"}", status, reason(status));
	c->close_after = true;
	conn_reply(h, c, &rs, SC_FAULT_NONE);
	buf_free(&rs.body);
}

/* ---- request parsing ---- */

struct head {
	size_t head_len, body_len;
	char *method, *target, *auth;
	bool close, expect, chunked;
};

/* Find header name (case-insensitive) in the head; its trimmed value's start and length. */
static const char *header(const char *head, size_t len, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	const char *p = memchr(head, '\n', len), *end = head + len;
	while (p && p + 1 < end) {
		p++;
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			break;
		if ((size_t)(eol - p) > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *v = p + nl + 1;
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			const char *ve = eol;
			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
				ve--;
			*vlen = (size_t)(ve - v);
			return v;
		}
		p = eol;
	}
	return NULL;
}

static bool header_is(const char *head, size_t len, const char *name, const char *want)
{
	size_t vl;
	const char *v = header(head, len, name, &vl);
	return v && vl == strlen(want) && strncasecmp(v, want, vl) == 0;
}

/* 1: a whole request is in; 0: need more; else an HTTP status to fail with. */
static int parse_head(struct conn *c, struct head *hd)
{
	const char *e = memmem(c->in, c->inlen, "\r\n\r\n", 4);
	if (!e)
		return c->inlen >= IN_MAX ? 431 : 0;
	hd->head_len = (size_t)(e - c->in) + 4;
	size_t vl;
	const char *cl = header(c->in, hd->head_len, "Content-Length", &vl);
	hd->body_len = cl ? strtoul(cl, NULL, 10) : 0;
	if (hd->head_len + hd->body_len > IN_MAX)
		return 413;
	hd->expect = header_is(c->in, hd->head_len, "Expect", "100-continue");
	hd->chunked = header(c->in, hd->head_len, "Transfer-Encoding", &vl) != NULL;
	if (hd->chunked)
		return 501;     /* RouterOS clients send Content-Length */
	hd->close = header_is(c->in, hd->head_len, "Connection", "close");
	return c->inlen >= hd->head_len + hd->body_len ? 1 : 0;
}

/* Cut req (a copy of the complete request) in place into NUL-terminated method, target and
 * Authorization value. */
static int split_head(char *req, struct head *hd)
{
	size_t vl;
	char *auth = (char *)header(req, hd->head_len, "Authorization", &vl);
	char *sp1 = memchr(req, ' ', hd->head_len), *sp2 = NULL, *eol = memchr(req, '\r', hd->head_len);
	if (sp1 && eol && eol > sp1)
		sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2)
		return -1;
	if (strncmp(sp2 + 1, "HTTP/1.1", 8) != 0)
		hd->close = true;           /* HTTP/1.0: one request per connection */
	*sp1 = *sp2 = '\0';
	hd->method = req;
	hd->target = sp1 + 1;
	hd->auth = auth;
	if (auth)
		auth[vl] = '\0';
	return 0;
}

/* Answer one request; c may be closed on return. */
static void serve(simhttp_t *h, struct conn *c, const char *req, struct head *hd, enum sc_fault f)
{
	char *q = strchr(hd->target, '?');
	if (q)
		*q++ = '\0';
	struct simreq rq = { .method = hd->method, .path = hd->target, .query = q ? q : "",
			     .auth = hd->auth, .body = req + hd->head_len, .body_len = hd->body_len };
	struct simresp rs;
	const char *name = simrouter_name(c->host->r);
	buf_init(&rs.body);
	simrest_handle(c->host->r, simhttp_sim_time(h), &rq, &rs);
	log_debug("router %s: %s %s%s%s -> %d", name, rq.method, rq.path, q ? "?" : "", rq.query,
		  rs.status);
	if (rs.served_private_key)
		log_info("router %s: served private-key/preshared-key (%s %s with no .proplist)", name,
			 rq.method, rq.path);
	c->close_after = hd->close || f == SC_FAULT_TRUNCATE;
	conn_reply(h, c, &rs, f);
	buf_free(&rs.body);
}

/* Parse and answer the complete request at the head of the input, if there is one. */
static void conn_process(simhttp_t *h, struct conn *c)
{
	struct head hd = { 0 };
	int rc = parse_head(c, &hd);
	if (rc == 0) {
		if (hd.expect && !c->sent_continue) {
			send(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
			c->sent_continue = true;
		}
		return;
	}
	if (rc > 1) {
		simple_reply(h, c, rc);
		return;
	}
	size_t used = hd.head_len + hd.body_len;
	char *req = xmalloc(used + 1);
	memcpy(req, c->in, used);
	req[used] = '\0';
	memmove(c->in, c->in + used, c->inlen - used);
	c->inlen -= used;
	c->sent_continue = false;
	enum sc_fault f = simrouter_fault(c->host->r, simhttp_sim_time(h));
	if (split_head(req, &hd) < 0)
		simple_reply(h, c, 400);
	else if (f == SC_FAULT_HANG)
		c->st = C_HANG, c->inlen = 0;
	else if (f == SC_FAULT_REFUSE)
		conn_close(h, c);
	else
		serve(h, c, req, &hd, f);
	free(req);
}

static void conn_event(simhttp_t *h, struct conn *c, uint32_t ev)
{
	if (ev & EPOLLOUT) {
		if (conn_flush(h, c) == 0)
			conn_after_write(h, c);
		return;
	}
	if (c->st == C_DRIP || c->st == C_WRITE) {
		if (ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			conn_close(h, c);
		return;
	}
	ssize_t n = recv(c->fd, c->in + c->inlen, IN_MAX - c->inlen, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(h, c);
		return;
	}
	c->last_io = real_now(h);
	if (c->st == C_HANG)
		return;        /* read and forget */
	c->inlen += (size_t)n;
	conn_process(h, c);
}

/* ---- timers: drips, refuse on/off, idle connections, paused listeners ---- */

static double host_tick(simhttp_t *h, struct host *ho, double now, double t)
{
	if (ho->paused && ho->fd >= 0) {
		struct epoll_event e = { .events = EPOLLIN, .data.ptr = ho };
		epoll_ctl(h->ep, EPOLL_CTL_ADD, ho->fd, &e);
		ho->paused = false;
	}
	if (!ho->dynamic)
		return INFINITY;
	bool want = simrouter_fault(ho->r, t) != SC_FAULT_REFUSE;
	char *cause = NULL;
	if (want && ho->fd < 0) {
		if (host_listen(h, ho, &cause) < 0) {
			log_error("router %s: %s", simrouter_name(ho->r), cause);
			free(cause);
			return now + 1;
		}
		log_info("router %s: listening again", simrouter_name(ho->r));
	} else if (!want && ho->fd >= 0) {
		host_unlisten(h, ho);
		log_info("router %s: refusing connections", simrouter_name(ho->r));
	}
	double next = simrouter_next_change(ho->r, t);
	return isinf(next) ? INFINITY : now + (next - t) / h->time_scale;
}

static double conns_tick(simhttp_t *h, struct host *ho, double now)
{
	double wake = INFINITY;
	for (struct conn *c = ho->conns, *next; c; c = next) {
		next = c->next;
		if (now - c->last_io > IDLE_CLOSE) {
			conn_close(h, c);
		} else if (c->st == C_DRIP && c->next_drip <= now) {
			if (conn_flush(h, c) == 0) {
				conn_after_write(h, c);
				wake = fmin(wake, now + DRIP_EVERY);
			}
		} else if (c->st == C_DRIP) {
			wake = fmin(wake, c->next_drip);
		}
	}
	return wake;
}

/* Run timers; the epoll timeout in ms until the next one (at most a second). */
static int tick(simhttp_t *h)
{
	double now = real_now(h), t = now * h->time_scale, wake = now + 1;
	for (size_t i = 0; i < h->nhosts; i++) {
		struct host *ho = &h->hosts[i];
		wake = fmin(wake, host_tick(h, ho, now, t));
		if (ho->conns)
			wake = fmin(wake, conns_tick(h, ho, now));
	}
	double ms = (wake - real_now(h)) * 1000;
	return ms < 1 ? 1 : (int)ceil(ms);
}

static void dispatch(simhttp_t *h, struct epoll_event *e, bool *quit)
{
	enum kind *k = e->data.ptr;
	if (*k == K_HOST) {
		host_accept(h, e->data.ptr);
	} else if (*k == K_CONN) {
		conn_event(h, e->data.ptr, e->events);
	} else {
		struct signalfd_siginfo si;
		if (read(h->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			log_info("signal %u: stopping", si.ssi_signo);
			*quit = true;
		}
	}
}

int simhttp_run(simhttp_t *h)
{
	struct epoll_event ev[256];
	bool quit = false;
	int timeout = 0;
	double next_tick = 0;
	while (!quit) {
		int n = epoll_wait(h->ep, ev, 256, timeout);
		if (n < 0 && errno != EINTR) {
			log_error("epoll_wait: %s", strerror(errno));
			return -1;
		}
		for (int i = 0; i < n && !quit; i++)
			dispatch(h, &ev[i], &quit);
		double now = real_now(h);
		if (now >= next_tick || n == 0) {
			timeout = tick(h);
			next_tick = now + timeout / 1000.0;
		} else {
			timeout = (int)ceil((next_tick - now) * 1000);
		}
	}
	return 0;
}

/* ---- life cycle ---- */

static int signals_open(simhttp_t *h, char **cause)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	h->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	h->sigkind = K_SIGNAL;
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = &h->sigkind };
	if (h->sigfd < 0 || epoll_ctl(h->ep, EPOLL_CTL_ADD, h->sigfd, &e) < 0) {
		*cause = xasprintf("signalfd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static bool host_is_dynamic(const simrouter_t *r)
{
	return !isinf(simrouter_next_change(r, -INFINITY)) || simrouter_fault(r, 0) == SC_FAULT_REFUSE;
}

simhttp_t *simhttp_create(simrouter_t *const *routers, const uint32_t *addrs, size_t n,
			  uint16_t port, double time_scale, char **cause)
{
	simhttp_t *h = xcalloc(1, sizeof(*h));
	h->port = port;
	h->time_scale = time_scale;
	h->sigfd = -1;
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	h->hosts = xcalloc(n, sizeof(*h->hosts));
	clock_gettime(CLOCK_MONOTONIC, &h->start);
	if (h->ep < 0 || signals_open(h, cause) < 0) {
		if (!*cause)
			*cause = xasprintf("epoll_create1: %s", strerror(errno));
		simhttp_destroy(h);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		struct host *ho = &h->hosts[h->nhosts++];
		*ho = (struct host){ .kind = K_HOST, .fd = -1, .r = routers[i], .addr = addrs[i],
				     .dynamic = host_is_dynamic(routers[i]) };
		if (simrouter_fault(routers[i], 0) != SC_FAULT_REFUSE && host_listen(h, ho, cause) < 0) {
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
		host_unlisten(h, &h->hosts[i]);
	free(h->hosts);
	if (h->sigfd >= 0)
		close(h->sigfd);
	if (h->ep >= 0)
		close(h->ep);
	free(h);
}
