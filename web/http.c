/* SPDX-License-Identifier: Apache-2.0 */
/* http: the HTTP listener (libmicrohttpd, its own small thread pool): the guard, then the route
 * of httproute.c's table, run here (INLINE) or on httppage.c's pool (POOL). Handlers only
 * read: the fleet under its lock, store stats, two heartbeats; they never touch the loop's
 * data and never block on the database, but for the one write, a rollout override
 * (POST/DELETE /api/v1/rollout/allow, a short transaction). Every reply carries the security
 * headers. Before any route: GET/HEAD only but where a route takes more (that write and a
 * probe on demand, only with basic auth on; the write's JSON body at most 4 KiB), no other
 * body, bounded URL and query, no traversal, basic auth when [web] user is set, TLS when [web]
 * cert and key are. It never logs a password or key material, and never a line per refused
 * connection: those are counted, and their warnings throttled. */
#include "config.h"
#include "web/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "web/auth.h"
#include "web/httpargs.h"
#include "web/httpconn.h"
#include "web/httpguard.h"
#include "web/httpgzip.h"
#include "web/httppem.h"
#include "web/httproute.h"
#include "web/metrics.h"
#include "lib/clock.h"
#include "lib/listen.h"
#include "lib/buf.h"
#include "lib/complain.h"
#include "lib/log.h"
#include "web/httppage.h"
#include "lib/xmem.h"

#define HTTP_THREADS         2
#define HTTP_PAGE_THREADS    2     /* render pages (httppage.c), so that they never hold the above */
#define HTTP_PAGE_LATE_MS    20000 /* a page not rendered by then is a 503 (under HTTP_TIMEOUT_S) */
#define HTTP_MAX_CONNECTIONS 256
#define HTTP_MAX_PER_IP      32          /* connections from one client address */
#define HTTP_TIMEOUT_S       30          /* a connection idle this long is closed */
#define HTTP_HEAD_MS         10000       /* a new connection must send its request head by then */
#define HTTP_MAX_WAITING     192         /* waiting for a head at once: the rest is a reserve */
#define HTTP_CONN_MEMORY     (16 * 1024) /* request headers and URL must fit */
#define HTTP_TLS_PRIORITIES  "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
#define HTTP_STALE_MIN_MS    3000
#define HTTP_REFUSED_EVERY   100               /* after the first refusal, log one in this many */
#define HTTP_REFUSED_QUIET   60000             /* ms without a refusal: the next one is a first again */
#define HTTP_COMPLAINT_OTHER METRICS_REFUSED_N /* libmicrohttpd's other complaints: not counted */
#define HTTP_COMPLAINTS      (METRICS_REFUSED_N + 1)

#define HTTP_TEXT "text/plain; charset=utf-8"

struct http {
	struct MHD_Daemon *mhd;
	struct http_deps deps;
	unsigned port;
	int64_t stale_ms;  /* a heartbeat older than this makes /healthz fail */
	auth_t *auth;      /* NULL: no [web] user, everyone may read */
	httpconn_t *conns; /* request-head deadlines and the reserve of free slots */
	httppage_t *pages; /* the pool that renders pages for suspended connections */
	bool starting;     /* libmicrohttpd's messages go to start_msg, for the caller's cause */
	char *start_msg;
	pthread_mutex_t refused_mu; /* the pool's threads all refuse: counters and complaints */
	struct metrics_http counters;
	complain_t refused_c[HTTP_COMPLAINTS];
	int64_t refused_last_ms[HTTP_COMPLAINTS];
};

/* A request's own state, made by the URI callback (http_uri) and freed when the request
 * completes (http_completed); *req_cls points to it. */
struct http_req {
	const void *mark;              /* httpguard_uri_check's verdict on the raw target */
	httpargs_t *args;              /* the target's query arguments (libmicrohttpd points into them) */
	const struct httproute *route; /* NULL: none (a 404 once the guard let it pass) */
	const char *rest;              /* the route's rest (httproute.h), in libmicrohttpd's URL */
	size_t rest_len;
	bool checked; /* the guard let it pass; the next calls route it */
	bool write;   /* a HTTPROUTE_WRITE route: it has a body */
	buf_t body;   /* that body, gathered over the handler's calls */
	bool too_big;
	httppage_job_t *job; /* a page rendered on httppage.c's pool (then no body) */
};

/* ---- listen address ---- */

/* A bound, listening socket for ss; -1 with *cause. Fills the bound port. */
static int http_socket(
	const char *spec, const struct sockaddr_storage *ss, socklen_t len, unsigned *port, char **cause)
{
	int one = 1;
	int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
		bind(fd, (const struct sockaddr *)ss, len) < 0 || listen(fd, 64) < 0) {
		*cause = xasprintf("cannot listen on %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	getsockname(fd, (struct sockaddr *)&bound, &blen);
	*port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
						  : ((struct sockaddr_in *)&bound)->sin_port);
	return fd;
}

/* ---- replies ---- */

static bool http_gzip_ok(struct MHD_Connection *conn)
{
	return httpgzip_accepted(
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
}

/* body as the reply, compressed here when the client takes gzip, unless gz (already is). */
static enum MHD_Result http_reply_gz(struct MHD_Connection *conn, const char *url, unsigned status,
	const char *ctype, buf_t *body, bool gz)
{
	if (!gz && status == MHD_HTTP_OK && body->len >= HTTPGZIP_MIN && http_gzip_ok(conn)) {
		buf_t z;
		buf_init(&z);
		gz = httpgzip_compress(body->data, body->len, &z) == 0;
		if (gz) {
			buf_free(body);
			*body = z;
		} else {
			buf_free(&z);
		}
	}
	size_t len;
	char *data = buf_steal(body, &len);
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(data);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Content-Security-Policy",
		"default-src 'none'; style-src 'self'; frame-ancestors 'none'");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_VARY, "Accept-Encoding");
	if (gz)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, httproute_allow(url));
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(
			resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Basic realm=\"wgwatch\", charset=\"UTF-8\"");
	if (status == MHD_HTTP_TOO_MANY_REQUESTS)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	enum MHD_Result ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result http_reply(
	struct MHD_Connection *conn, const char *url, unsigned status, const char *ctype, buf_t *body)
{
	return http_reply_gz(conn, url, status, ctype, body, false);
}

/* Gather a write's body (POST, DELETE) until libmicrohttpd's last call; MHD_YES meanwhile. */
static bool http_upload_more(struct http_req *up, const char *data, size_t *size)
{
	if (*size == 0)
		return false;
	if (up->body.len + *size > HTTPGUARD_BODY_MAX)
		up->too_big = true;
	else
		buf_append(&up->body, data, *size);
	*size = 0;
	return true;
}

/* A page's reply, once rendered (the pool resumed its connection, or it rendered inline). */
static enum MHD_Result http_page_reply(struct MHD_Connection *conn, const char *url, httppage_job_t *j)
{
	buf_t body;
	const char *ctype;
	unsigned status = httppage_reply(j, &body, &ctype);
	return http_reply(conn, url, status, ctype, &body);
}

/* The listener's counters as they are now, for /metrics. */
static void http_counters(http_t *h, struct metrics_http *out)
{
	size_t open, waiting;
	pthread_mutex_lock(&h->refused_mu);
	*out = h->counters;
	pthread_mutex_unlock(&h->refused_mu);
	httpconn_counts(h->conns, out->slow_closed, &open, &waiting);
	out->pages_late = httppage_late_count(h->pages);
}

/* An INLINE route, run here on libmicrohttpd's thread. */
static enum MHD_Result http_inline(
	http_t *h, struct MHD_Connection *conn, const char *url, const char *method, struct http_req *rq)
{
	struct metrics_http counters;
	http_counters(h, &counters);
	struct httproute_req r = { .deps = &h->deps,
		.method = method,
		.rest = rq->rest,
		.rest_len = rq->rest_len,
		.conn = conn,
		.port = h->port,
		.stale_ms = h->stale_ms,
		.user = h->auth != NULL ? h->deps.conf->web_user : NULL,
		.body = rq->write ? rq->body.data : NULL,
		.body_len = rq->write ? rq->body.len : 0,
		.counters = &counters };
	struct httproute_reply out = { .ctype = HTTP_TEXT };
	buf_init(&out.body);
	unsigned status = rq->route->fn(&r, &out);
	return http_reply_gz(conn, url, status, out.ctype, &out.body, out.gzipped);
}

/* A POOL route: queued on the page pool, its connection suspended meanwhile (the job is kept
 * in rq, freed by http_completed). */
static enum MHD_Result http_pool(http_t *h, struct MHD_Connection *conn, const char *url, struct http_req *rq)
{
	bool suspended;
	rq->job = httppage_begin(h->pages, conn, rq->route, rq->rest, rq->rest_len, &suspended);
	return suspended ? MHD_YES : http_page_reply(conn, url, rq->job);
}

/* Once the request passed the guard (and its body, if any, was gathered): its route. */
static enum MHD_Result http_route(
	http_t *h, struct MHD_Connection *conn, const char *url, const char *method, struct http_req *rq)
{
	buf_t body;
	buf_init(&body);
	if (rq->write && rq->too_big) {
		buf_puts(&body, httpguard_refusal(MHD_HTTP_CONTENT_TOO_LARGE));
		return http_reply(conn, url, MHD_HTTP_CONTENT_TOO_LARGE, HTTP_TEXT, &body);
	}
	if (rq->route != NULL && rq->route->run == HTTPROUTE_POOL)
		return http_pool(h, conn, url, rq);
	if (rq->route != NULL)
		return http_inline(h, conn, url, method, rq);
	buf_puts(&body, "not found\n");
	return http_reply(conn, url, MHD_HTTP_NOT_FOUND, HTTP_TEXT, &body);
}

/* libmicrohttpd's URI log callback, on the raw target before it parses it: the request's state
 * with the guard's verdict, and the query arguments taken off the target (web/httpargs.h). */
static void *http_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
	(void)cls;
	(void)conn;
	struct http_req *rq = xcalloc(1, sizeof(*rq));
	buf_init(&rq->body);
	rq->mark = httpguard_uri_check(uri);
	rq->args = httpargs_take(uri);
	return rq;
}

/* The first call, once the head is complete: the guard's refusal goes out at once
 * (libmicrohttpd then closes the connection, unread body and all); a request that passes is
 * answered on the next call, which keeps the connection. Its arguments are handed to
 * libmicrohttpd here; when they do not fit in the connection's memory the target is too long. */
static enum MHD_Result http_check(
	http_t *h, struct MHD_Connection *conn, const char *url, const char *method, struct http_req *rq)
{
	httpconn_began(h->conns, conn);
	if (rq->mark == NULL && httpargs_give(rq->args, conn) < 0)
		rq->mark = httpguard_too_long();
	rq->route = httproute_find(method, url, &rq->rest, &rq->rest_len);
	const char *why;
	unsigned refused = httpguard_check(h->auth, conn, url, method, rq->route, rq->mark, &why);
	if (refused != 0) {
		buf_t body;
		buf_init(&body);
		buf_puts(&body, why);
		return http_reply(conn, url, refused, HTTP_TEXT, &body);
	}
	rq->checked = true;
	rq->write = rq->route != NULL && rq->route->access == HTTPROUTE_WRITE;
	return MHD_YES;
}

static enum MHD_Result http_handler(void *cls, struct MHD_Connection *conn, const char *url,
	const char *method, const char *version, const char *upload_data, size_t *upload_data_size,
	void **req_cls)
{
	http_t *h = cls;
	if (*req_cls == NULL) /* the URI callback makes it; never without */
		*req_cls = http_uri(h, NULL, conn);
	struct http_req *rq = *req_cls;
	if (rq->job != NULL) /* called again after the pool resumed it */
		return http_page_reply(conn, url, rq->job);
	if (!rq->checked)
		return http_check(h, conn, url, method, rq);
	/* a write's body comes over the calls between */
	if (rq->write && http_upload_more(rq, upload_data, upload_data_size))
		return MHD_YES;
	return http_route(h, conn, url, method, rq);
}

/* Frees the request's state, then tells the slowloris guard the connection waits again. */
static void http_completed(
	void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode toe)
{
	http_t *h = cls;
	struct http_req *rq = *req_cls;
	if (rq != NULL) {
		httppage_job_free(rq->job);
		buf_free(&rq->body);
		httpargs_free(rq->args);
		free(rq);
	}
	*req_cls = NULL;
	httpconn_completed(h->conns, conn, req_cls, toe);
}

/* Which refusal libmicrohttpd's message reports, or HTTP_COMPLAINT_OTHER. Its words for both
 * connection limits (per address and in all) are the same. */
static int http_refusal_kind(const char *msg)
{
	if (strstr(msg, "reached connection limit") != NULL)
		return METRICS_REFUSED_LIMIT;
	if (strncmp(msg, "Error accepting connection", 26) == 0 || strstr(msg, "resource limit") != NULL)
		return METRICS_REFUSED_ACCEPT;
	return HTTP_COMPLAINT_OTHER;
}

/* Count a refusal (or, for HTTP_COMPLAINT_OTHER, another complaint of libmicrohttpd about a
 * client: a malformed request it answered itself), and log it when it is the first after a
 * quiet spell or the next in HTTP_REFUSED_EVERY, with the number not logged since: anyone can
 * cause them. */
static void http_refused(http_t *h, int kind, const char *msg)
{
	uint64_t held = 0;
	int64_t now = clock_mono_ms();
	pthread_mutex_lock(&h->refused_mu);
	if (kind < METRICS_REFUSED_N)
		h->counters.refused[kind]++;
	if (now - h->refused_last_ms[kind] >= HTTP_REFUSED_QUIET)
		complain_release(&h->refused_c[kind]);
	h->refused_last_ms[kind] = now;
	bool report = complain_note(&h->refused_c[kind], &held);
	pthread_mutex_unlock(&h->refused_mu);
	if (report && held > 0)
		log_warn("http: %s (%" PRIu64 " more refused since)", msg, held);
	else if (report)
		log_warn("http: %s", msg);
}

/* MHD_OPTION_ACCEPT_POLICY: one address holds at most HTTP_MAX_PER_IP connections (httpconn.h
 * says why the count is not libmicrohttpd's); a refusal counted and logged as its own were. */
static enum MHD_Result http_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	http_t *h = cls;
	(void)addrlen;
	if (httpconn_admit(h->conns, addr))
		return MHD_YES;
	http_refused(
		h, METRICS_REFUSED_LIMIT, "Server reached connection limit. Closing inbound connection.");
	return MHD_NO;
}

static void http_log(void *cls, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

static void http_log(void *cls, const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap);
	size_t n = strlen(msg);
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	http_t *h = cls;
	if (h != NULL && h->starting) { /* all of them: the last alone is too vague */
		char *all = h->start_msg ? xasprintf("%s; %s", h->start_msg, msg) : NULL;
		free(h->start_msg);
		h->start_msg = all ? all : msg;
		if (all != NULL)
			free(msg);
		return;
	}
	if (h != NULL) /* once serving, what libmicrohttpd says is of what a client sent */
		http_refused(h, http_refusal_kind(msg), msg);
	else
		log_warn("http: %s", msg);
	free(msg);
}

/* ---- lifecycle ---- */

/* Both heartbeats tick at least once per poll interval, the loop's every second. */
static int64_t http_stale_ms(const conf_t *conf)
{
	int64_t iv = conf ? conf->interval_ms : 0;
	for (size_t i = 0; conf && i < conf->nrouters; i++)
		if (conf->routers[i].interval_ms > iv)
			iv = conf->routers[i].interval_ms;
	return 3 * iv > HTTP_STALE_MIN_MS ? 3 * iv : HTTP_STALE_MIN_MS;
}

/* The libmicrohttpd daemon on fd, over TLS when cert and key (PEM text) are given. */
static struct MHD_Daemon *http_mhd_start(http_t *h, int fd, const char *cert, const char *key)
{
	struct MHD_OptionItem tls[] = {
		{ .option = MHD_OPTION_HTTPS_MEM_CERT, .ptr_value = (void *)cert },
		{ .option = MHD_OPTION_HTTPS_MEM_KEY, .ptr_value = (void *)key },
		{ .option = MHD_OPTION_HTTPS_PRIORITIES, .ptr_value = (void *)HTTP_TLS_PRIORITIES },
		{ .option = MHD_OPTION_END },
	};
	if (cert == NULL)
		tls[0].option = MHD_OPTION_END;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
		MHD_ALLOW_SUSPEND_RESUME | (cert != NULL ? MHD_USE_TLS : 0);
	h->starting = true;
	struct MHD_Daemon *mhd = MHD_start_daemon(flags, 0, http_accept, h, http_handler, h,
		MHD_OPTION_EXTERNAL_LOGGER, http_log, h, MHD_OPTION_URI_LOG_CALLBACK, http_uri, h,
		MHD_OPTION_UNESCAPE_CALLBACK, httpargs_unescape, NULL, MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned)HTTP_THREADS, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)HTTP_MAX_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONN_MEMORY, MHD_OPTION_NOTIFY_CONNECTION,
		httpconn_notify, h->conns, MHD_OPTION_NOTIFY_COMPLETED, http_completed, h, MHD_OPTION_ARRAY,
		tls, MHD_OPTION_END);
	h->starting = false;
	return mhd;
}

/* Starts the daemon with the TLS files of conf, if any; the PEM text is wiped at once after. */
static int http_serve(http_t *h, const char *spec, int fd, const conf_t *conf, char **cause)
{
	const char *cf = conf ? conf->web_cert : NULL, *kf = conf ? conf->web_key : NULL;
	size_t clen = 0, klen = 0;
	char *cert = NULL, *key = NULL;
	if (cf != NULL && kf != NULL && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		*cause = xstrdup("[web] cert and key are set but this libmicrohttpd has no TLS");
		return -1;
	}
	if (cf != NULL && kf != NULL &&
		((cert = httppem_load("cert", cf, &clen, cause)) == NULL ||
			(key = httppem_load("key", kf, &klen, cause)) == NULL)) {
		httppem_free(cert, clen);
		return -1;
	}
	h->mhd = http_mhd_start(h, fd, cert, key);
	httppem_free(cert, clen);
	httppem_free(key, klen);
	if (h->mhd == NULL && cert != NULL)
		*cause = xasprintf("cannot start HTTPS on %s with [web] cert %s and key %s: %s", spec, cf, kf,
			h->start_msg ? h->start_msg : "refused by GnuTLS");
	else if (h->mhd == NULL)
		*cause = xasprintf("cannot start the HTTP server on %s%s%s", spec, h->start_msg ? ": " : "",
			h->start_msg ? h->start_msg : "");
	else if (h->start_msg != NULL)
		log_warn("http: %s", h->start_msg);
	free(h->start_msg);
	h->start_msg = NULL;
	return h->mhd != NULL ? 0 : -1;
}

int http_start(const char *spec, const struct http_deps *deps, http_t **out, char **cause)
{
	struct sockaddr_storage ss;
	socklen_t len;
	unsigned port;
	if (spec == NULL || listen_parse(spec, &ss, &len) < 0) {
		*cause = xasprintf(
			"listen \"%s\": want A.B.C.D:PORT or [IPV6]:PORT, port 0-65535", spec ? spec : "");
		return -1;
	}
	int fd = http_socket(spec, &ss, len, &port, cause);
	if (fd < 0)
		return -1;
	http_t *h = xcalloc(1, sizeof(*h));
	h->deps = *deps;
	h->port = port;
	h->stale_ms = http_stale_ms(deps->conf);
	pthread_mutex_init(&h->refused_mu, NULL);
	for (size_t i = 0; i < HTTP_COMPLAINTS; i++) {
		complain_init(&h->refused_c[i], HTTP_REFUSED_EVERY);
		h->refused_last_ms[i] = INT64_MIN / 2; /* long ago */
	}
	const conf_t *c = deps->conf;
	if (c != NULL && c->web_user != NULL && c->web_password != NULL)
		h->auth = auth_create(c->web_user, c->web_password);
	h->conns = httpconn_create(HTTP_HEAD_MS, HTTP_TIMEOUT_S * 1000, HTTP_MAX_WAITING, HTTP_MAX_PER_IP);
	h->pages = httppage_create(deps, HTTP_PAGE_THREADS, HTTP_PAGE_LATE_MS);
	if (http_serve(h, spec, fd, c, cause) < 0) {
		/* fd is left open: MHD may have closed it already, and this error ends startup */
		httppage_destroy(h->pages);
		httpconn_destroy(h->conns);
		auth_destroy(h->auth);
		pthread_mutex_destroy(&h->refused_mu);
		free(h);
		return -1;
	}
	*out = h;
	return 0;
}

void http_stop(http_t *h)
{
	if (h == NULL)
		return;
	httppage_stop(h->pages); /* resumes every suspended connection; later pages inline */
	MHD_stop_daemon(h->mhd); /* closes the listening socket */
	httppage_destroy(h->pages);
	httpconn_destroy(h->conns); /* after: libmicrohttpd's callbacks use it */
	auth_destroy(h->auth);
	pthread_mutex_destroy(&h->refused_mu);
	free(h);
}

unsigned http_port(const http_t *h)
{
	return h->port;
}
