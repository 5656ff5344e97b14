/* SPDX-License-Identifier: Apache-2.0 */
/* http: the HTTP listener (libmicrohttpd, its own small thread pool) and the route table.
 * Handlers only read: the fleet under its lock, store stats, two heartbeats; they never touch
 * the loop's data and never block on the database, but for the one write, a rollout override
 * (POST/DELETE /api/v1/rollout/allow, a short transaction). Every reply carries the security
 * headers. Before any route: GET/HEAD only (and that write, only with basic auth on, JSON, at
 * most 4 KiB), no other body, bounded URL and query, no traversal, basic auth when [web] user
 * is set, TLS when [web] cert and key are. It never logs a password or key material, and
 * never a line per refused connection: those are counted, and their warnings throttled. */
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

#include "web/api.h"
#include "web/auth.h"
#include "web/httpargs.h"
#include "web/httpconn.h"
#include "web/httpguard.h"
#include "web/httpgzip.h"
#include "web/httppem.h"
#include "lib/clock.h"
#include "lib/listen.h"
#include "lib/buf.h"
#include "lib/complain.h"
#include "lib/log.h"
#include "web/metrics.h"
#include "web/httppage.h"
#include "web/page.h"
#include "web/page_router.h"
#include "web/page_upgrades.h"
#include "web/scrape.h"
#include "web/api_rollout.h"
#include "web/api_report.h"
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

typedef unsigned (*http_route_fn)(http_t *h, buf_t *body, const char **ctype);

/* A request's own state, made by the URI callback (http_uri) and freed when the request
 * completes (http_completed); *req_cls points to it. */
struct http_req {
	const void *mark; /* httpguard_uri_check's verdict on the raw target */
	httpargs_t *args; /* the target's query arguments (libmicrohttpd points into them) */
	bool checked;     /* the guard let it pass; the next calls route it */
	bool write;       /* a POST or DELETE to HTTPGUARD_ALLOW_PATH: it has a body */
	buf_t body;       /* that body, gathered over the handler's calls */
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

/* ---- routes ---- */

static unsigned http_css(http_t *h, buf_t *body, const char **ctype)
{
	page_css(body);
	*ctype = "text/css; charset=utf-8";
	return 200;
}

static unsigned http_api_routers(http_t *h, buf_t *body, const char **ctype)
{
	api_routers(h->deps.fleet, body);
	*ctype = "application/json";
	return 200;
}

static unsigned http_api_regressions(http_t *h, buf_t *body, const char **ctype)
{
	api_regressions(h->deps.detector, body);
	*ctype = "application/json";
	return 200;
}

static unsigned http_api_cohorts(http_t *h, buf_t *body, const char **ctype)
{
	api_cohorts(h->deps.detector, body);
	*ctype = "application/json";
	return 200;
}

static unsigned http_api_capacity(http_t *h, buf_t *body, const char **ctype)
{
	api_capacity(h->deps.detector, body);
	*ctype = "application/json";
	return 200;
}

/* 200 "ok" when both heartbeat ages (ms) are within bound, else 503 naming the stale ones. */
static unsigned http_health_text(buf_t *body, int64_t loop_age, int64_t store_age, int64_t bound)
{
	if (loop_age <= bound && store_age <= bound) {
		buf_puts(body, "ok\n");
		return 200;
	}
	if (loop_age > bound)
		buf_printf(body, "stale: event loop silent for %lld ms (limit %lld ms)\n",
			(long long)loop_age, (long long)bound);
	if (store_age > bound)
		buf_printf(body, "stale: store writer silent for %lld ms (limit %lld ms)\n",
			(long long)store_age, (long long)bound);
	return 503;
}

static unsigned http_healthz(http_t *h, buf_t *body, const char **ctype)
{
	int64_t now = clock_mono_ms();
	int64_t loop_age = h->deps.loop ? now - loop_heartbeat_ms(h->deps.loop) : 0;
	int64_t store_age = h->deps.store ? now - store_heartbeat_ms(h->deps.store) : 0;
	*ctype = HTTP_TEXT;
	struct store_stats st = { 0 };
	if (h->deps.store != NULL)
		store_get_stats(h->deps.store, &st);
	if (st.files_gone) { /* the writer stopped for good: someone must look */
		buf_printf(body, "failed: store: %s\n", st.last_error);
		return 503;
	}
	return http_health_text(body, loop_age, store_age, h->stale_ms);
}

static const struct http_route {
	const char *path;
	http_route_fn fn;
} http_routes[] = {
	{ "/static/wgwatch.css", http_css },
	{ "/api/v1/routers", http_api_routers },
	{ "/api/v1/regressions", http_api_regressions },
	{ "/api/v1/cohorts", http_api_cohorts },
	{ "/api/v1/capacity", http_api_capacity },
	{ "/healthz", http_healthz },
};

/* ---- routes that read the request (query string, the rest of a prefix) but not the database;
 * those that read it are httppage.c's ---- */

typedef unsigned (*http_page_fn)(
	http_t *h, struct MHD_Connection *conn, const char *rest, buf_t *body, const char **ctype);

/* A query argument, already percent-decoded by libmicrohttpd; NULL when absent. */
static const char *http_arg(struct MHD_Connection *conn, const char *key)
{
	return MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, key);
}

/* POST /api/v1/routers/NAME/probe (web/api.c says what it answers). */
static unsigned http_probe_demand(http_t *h, const char *url, buf_t *body)
{
	char *name = xstrndup(url + 16, strlen(url) - 16 - 6);
	unsigned code = api_probe_demand(h->deps.fleet, h->deps.diag, name, body);
	free(name);
	return code;
}

/* /api/v1/targets: one Prometheus http_sd target per router, each scraped on this listener. */
static unsigned http_api_targets(
	http_t *h, struct MHD_Connection *conn, const char *rest, buf_t *body, const char **ctype)
{
	char *addr = scrape_address(h->deps.conf ? h->deps.conf->listen : "127.0.0.1:0", h->port,
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST));
	bool tls = h->deps.conf && h->deps.conf->web_cert && h->deps.conf->web_key;
	scrape_targets_fleet(h->deps.fleet, addr, tls, body);
	free(addr);
	*ctype = "application/json";
	return 200;
}

/* /api/v1/evidence: the fleet's evidence, anonymous (docs/evidence.md). */
static unsigned http_api_evidence(
	http_t *h, struct MHD_Connection *conn, const char *rest, buf_t *body, const char **ctype)
{
	(void)rest;
	*ctype = "application/json";
	return api_evidence(
		h->deps.detector, http_arg(conn, "since"), http_arg(conn, "rollout"), clock_wall_ms(), body);
}

/* /api/v1/rollout/allow: the overrides; POST and DELETE come with the request's body (up). */
static unsigned http_api_allow(
	http_t *h, struct MHD_Connection *conn, const char *method, const struct http_req *up, buf_t *body)
{
	struct api_allow_req req = { .detector = h->deps.detector,
		.database = h->deps.conf ? h->deps.conf->database : NULL,
		.user = h->auth != NULL ? h->deps.conf->web_user : NULL,
		.method = method,
		.body = up ? up->body.data : NULL,
		.body_len = up ? up->body.len : 0,
		.version = http_arg(conn, "version"),
		.cohort = http_arg(conn, "cohort"),
		.now_ms = clock_wall_ms() };
	return api_rollout_allow(&req, body);
}

/* A path ending in '/' matches as a prefix; any other path exactly. */
static const struct http_page {
	const char *path;
	http_page_fn fn;
} http_pages[] = {
	{ "/api/v1/targets", http_api_targets },
	{ "/api/v1/evidence", http_api_evidence },
};

/* The page for url and where its rest begins; NULL when none. */
static const struct http_page *http_page_find(const char *url, const char **rest)
{
	for (size_t i = 0; i < sizeof(http_pages) / sizeof(http_pages[0]); i++) {
		const char *p = http_pages[i].path;
		size_t n = strlen(p);
		bool prefix = n > 1 && p[n - 1] == '/';
		if (prefix ? strncmp(url, p, n) == 0 : strcmp(url, p) == 0) {
			*rest = url + (prefix ? n : strlen(url));
			return &http_pages[i];
		}
	}
	return NULL;
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
	const char *allow = strcmp(url, HTTPGUARD_ALLOW_PATH) == 0 ? "GET, HEAD, POST, DELETE" : "GET, HEAD";
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
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
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

/* /metrics[?router=NAME|?routers=no]: rendered straight into a gzip stream when the client takes it. */
static enum MHD_Result http_metrics(http_t *h, struct MHD_Connection *conn, const char *url, buf_t *body)
{
	pthread_mutex_lock(&h->refused_mu);
	struct metrics_http counters = h->counters;
	pthread_mutex_unlock(&h->refused_mu);
	size_t open, waiting;
	httpconn_counts(h->conns, counters.slow_closed, &open, &waiting);
	counters.pages_late = httppage_late_count(h->pages);
	struct scrape_req req = { .fleet = h->deps.fleet,
		.store = h->deps.store,
		.detector = h->deps.detector,
		.http = &counters,
		.router = http_arg(conn, "router"),
		.daemon_only = http_arg(conn, "routers") && strcmp(http_arg(conn, "routers"), "no") == 0,
		.gzip = http_gzip_ok(conn) };
	bool gz;
	unsigned status = scrape_metrics(&req, body, &gz);
	return http_reply_gz(conn, url, status,
		status == 200 ? "text/plain; version=0.0.4; charset=utf-8" : HTTP_TEXT, body, gz);
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

/* A page that reads the database: queued on the pool, its connection suspended meanwhile (the
 * job is kept in rq, freed by http_completed). False when url is none. */
static bool http_page(
	http_t *h, struct MHD_Connection *conn, const char *url, struct http_req *rq, enum MHD_Result *ret)
{
	bool suspended;
	rq->job = httppage_begin(h->pages, conn, url, &suspended);
	if (rq->job == NULL)
		return false;
	*ret = suspended ? MHD_YES : http_page_reply(conn, url, rq->job);
	return true;
}

/* The routes, once the request passed the guard (and its body, if any, is in up). */
static enum MHD_Result http_route(
	http_t *h, struct MHD_Connection *conn, const char *url, const char *method, struct http_req *rq)
{
	const struct http_req *up = rq->write ? rq : NULL;
	buf_t body;
	buf_init(&body);
	const char *ctype = HTTP_TEXT;
	if (up != NULL && up->too_big) {
		buf_puts(&body, httpguard_refusal(MHD_HTTP_CONTENT_TOO_LARGE));
		return http_reply(conn, url, MHD_HTTP_CONTENT_TOO_LARGE, ctype, &body);
	}
	if (strcmp(url, HTTPGUARD_ALLOW_PATH) == 0) {
		unsigned status = http_api_allow(h, conn, method, up, &body);
		return http_reply(conn, url, status, "application/json", &body);
	}
	if (httpguard_probe_post(url, method))
		return http_reply(conn, url, http_probe_demand(h, url, &body), "application/json", &body);
	if (strcmp(url, "/metrics") == 0)
		return http_metrics(h, conn, url, &body);
	for (size_t i = 0; i < sizeof(http_routes) / sizeof(http_routes[0]); i++) {
		if (strcmp(url, http_routes[i].path) != 0)
			continue;
		unsigned status = http_routes[i].fn(h, &body, &ctype);
		return http_reply(conn, url, status, ctype, &body);
	}
	const char *rest;
	const struct http_page *page = http_page_find(url, &rest);
	if (page != NULL) {
		unsigned status = page->fn(h, conn, rest, &body, &ctype);
		return http_reply(conn, url, status, ctype, &body);
	}
	enum MHD_Result ret;
	if (up == NULL && http_page(h, conn, url, rq, &ret)) {
		buf_free(&body);
		return ret;
	}
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
	const char *why;
	unsigned refused = httpguard_check(h->auth, conn, url, method, rq->mark, &why);
	if (refused != 0) {
		buf_t body;
		buf_init(&body);
		buf_puts(&body, why);
		return http_reply(conn, url, refused, HTTP_TEXT, &body);
	}
	rq->checked = true;
	rq->write = httpguard_is_write(url, method);
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
