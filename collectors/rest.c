/* SPDX-License-Identifier: Apache-2.0 */
/* rest: the RouterOS REST collector. One poll is up to seven sequential requests (routerboard
 * only when its answer may have changed, see restboard.h; health once a minute; with
 * check_updates, /system/package/update at most once an hour; the peers' details only every
 * peer_details_every polls, see restpeers.h; a route check of one peer's endpoint while the
 * WAN is being found, see restwan.h) on the router's keep-alive connection, driven by curl's
 * multi socket API on the daemon loop (restmulti.c); the JSON -> sample decoding is
 * restdecode.c. Routerboard, health, update and the route check are optional: their failure
 * leaves out their data, never the poll (restopt.h). It must never request private or
 * preshared keys, nor put the password in a URL, an error or a log line. The curl multi
 * handles the routers are spread over, and the pool of easy handles lent to the polls in
 * flight, are restcurl.c's. */
#include "config.h"
#include "collectors/rest.h"
#include "collectors/healthkeep.h"
#include "collectors/restboard.h"
#include "collectors/restcurl.h"
#include "collectors/restdecode.h"
#include "collectors/resthdr.h"
#include "collectors/restmulti.h"
#include "collectors/restopt.h"
#include "collectors/restpeers.h"
#include "collectors/restreq.h"
#include "collectors/restupdate.h"
#include "collectors/restwan.h"
#include "lib/clock.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/offload.h"
#include "lib/xmem.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REST_DEFAULT_TIMEOUT_MS 10000
#define REST_OFFLOAD_MIN        (64 * 1024) /* replies this big are decoded off the loop thread */

struct rest_conn {
	rest_t *r;
	restmulti_t *m; /* the multi handle this router's transfers run in; NULL until polled */
	struct rest_conn *next, *prev; /* in r->conns: every handle attached */
	const conf_router_t *rc;       /* valid while busy */
	CURL *easy;                    /* lent from r->idle while busy, else NULL */
	bool own_ca;                   /* easy was given this router's ca_file */
	bool busy, in_multi, too_big;
	bool head_too_big; /* too_big because of headers and trailers alone */
	bool decoding;     /* the offload thread decodes body into s: the loop touches neither */
	bool abandoned;    /* cancelled or detached while decoding: drop it when the decode ends */
	bool detached;     /* ... and free the handle too */
	int dec_rc;        /* the decode's result, and its cause, set on the offload thread */
	char *dec_cause;
	enum restdecode_step step;
	sample_t *s;
	collector_done_fn done;
	void *arg;
	int64_t start_ms, deadline_ms; /* monotonic */
	loop_timer_id defer;           /* 0 ms timer delivering a failure outside poll() */
	buf_t body;
	size_t head_len;       /* bytes of the status line, headers and trailers of this request */
	char *errbuf;          /* easy's error buffer, pooled with it; NULL with it */
	restboard_t *board;    /* the last /system/routerboard answer */
	healthkeep_t *health;  /* the last /system/health answer */
	restpeers_t *peers;    /* the peers' details, kept by .id */
	restupdate_t *update;  /* the last /system/package/update answer (check_updates) */
	restwan_t *wan;        /* the WAN found from the peers' endpoints */
	restopt_t *opt;        /* the optional menus: failing or not, asked again when */
	restreq_url_t *url;    /* the router's URL, kept parsed for curl */
	resthdr_t *hdr;        /* its request headers, Authorization built once */
	bool routing;          /* the request in flight is a route check of route_dst */
	bool nofd;             /* the request found no descriptor for its connection */
	const char *route_dst; /* restwan's, valid until the poll ends */
};

struct rest {
	loop_t *loop;
	size_t max_body;
	restcurl_t *curl; /* the multis and the idle easy handles */
	struct rest_conn *conns;
	char **insecure; /* routers already warned about for tls_verify = no */
	size_t ninsecure;
	offload_t *off; /* decodes big replies; NULL: all are decoded on the loop */
	bool dying;
};

/* ---- transport: requests, curl multi joined to the loop ---- */

static const char *rest_what(const struct rest_conn *c)
{
	size_t nfound;
	if (c->routing)
		return "POST /rest/ip/route/check";
	restwan_names(c->wan, c->rc, &nfound);
	return restreq_what(c->step, c->rc, nfound);
}

/* The reply cap counts everything a router sends: a router that streams headers or trailers
 * forever (libcurl keeps each one) is cut off like one that sends an endless body. */
static bool rest_over_cap(struct rest_conn *c, size_t more)
{
	return c->head_len + c->body.len + more > c->r->max_body;
}

/* The status line, headers and trailers together: RouterOS sends some 300 bytes; libcurl's own
 * limit (300 KiB of headers, none on trailers) would call the excess a receive error. */
#define REST_MAX_HEAD (64 * 1024)

static size_t rest_header(char *data, size_t size, size_t n, void *arg)
{
	struct rest_conn *c = arg;
	size_t len = size * n; /* size is always 1; trailers come here too */
	if (c->head_len + len > REST_MAX_HEAD || rest_over_cap(c, len)) {
		c->too_big = true;
		c->head_too_big = c->head_len + len > REST_MAX_HEAD;
		return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	c->head_len += len;
	return len;
}

static size_t rest_write(char *data, size_t size, size_t n, void *arg)
{
	struct rest_conn *c = arg;
	size_t len = size * n; /* size is always 1 */
	if (rest_over_cap(c, len)) {
		c->too_big = true;
		return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	buf_append(&c->body, data, len);
	return len;
}

static void rest_easy_give(struct rest_conn *c);

static void rest_finish(struct rest_conn *c)
{
	sample_t *s = c->s;
	rest_easy_give(c);
	if (c->defer)
		loop_cancel(c->r->loop, c->defer);
	c->busy = false;
	c->defer = 0;
	c->s = NULL;
	buf_free(&c->body); /* between polls a router holds no reply: RSS follows polls in flight */
	restopt_report(c->opt, s);
	s->duration_ms = clock_mono_ms() - c->start_ms;
	c->done(s, c->arg);
}

static void rest_on_defer(void *arg)
{
	struct rest_conn *c = arg;
	c->defer = 0;
	rest_finish(c);
}

/* Ends the poll from a 0 ms timer, never from the caller's stack. */
static void rest_finish_later(struct rest_conn *c)
{
	if (c->defer == 0)
		c->defer = loop_after(c->r->loop, 0, rest_on_defer, c);
}

/* The request of c's step, or its route check, failed: why (printable, no secret). A required
 * step fails the poll's sample; an optional one, the route check too, leaves out only its own
 * data and is noted (restopt.h). True when the poll may go on. */
static bool rest_note_failure(struct rest_conn *c, enum sample_err err, const char *why)
{
	int64_t now = clock_mono_ms();
	int m = c->routing ? RESTOPT_ROUTE : restopt_of(c->step);
	if (c->routing)
		restwan_done(c->wan, c->rc->name, NULL, now);
	if (m < 0) {
		sample_fail(c->s, err, "%s: %s", rest_what(c), why);
		return false;
	}
	restopt_failed(c->opt, (enum restopt_menu)m, c->rc->name, why, c->s, now);
	return !c->routing;
}

/* The request could not even start: noted as any failure, and the poll ends. */
static void rest_fail_later(struct rest_conn *c, enum sample_err err, const char *why)
{
	rest_note_failure(c, err, why);
	rest_finish_later(c);
}

/* The request of c's step (or route check), its URL and headers kept by c (restreq.h,
 * resthdr.h). */
static int rest_set_request(struct rest_conn *c, int64_t left)
{
	size_t nfound;
	char *const *found = restwan_names(c->wan, c->rc, &nfound);
	struct restreq q;
	if (c->routing)
		restreq_route(c->route_dst, &q);
	else
		restreq_get(c->step, c->rc, found, nfound, c->s, &q);
	if (!c->routing && c->step == RESTDECODE_PEERS && !restpeers_full(c->peers))
		restreq_peer_counters(&q);
	CURL *e = c->easy;
	CURLU *url = restreq_url_point(c->url, c->rc->rest, &q);
	bool nomem;
	struct curl_slist *hdr = resthdr_get(c->hdr, c->rc->user, c->rc->password, q.post != NULL, &nomem);
	int bad = url == NULL || nomem;
	bad |= restcurl_request(e, c->rc->rest, url, (long)left, hdr, q.post) < 0;
	free(q.post);
	return bad ? -1 : 0;
}

static void rest_start_step(struct rest_conn *c)
{
	int64_t left = c->deadline_ms - clock_mono_ms();
	if (left <= 0) {
		rest_fail_later(c, SAMPLE_ERR_TIMEOUT, "poll timeout reached before the request");
		return;
	}
	buf_reset(&c->body);
	c->head_len = 0;
	c->too_big = c->head_too_big = false;
	c->errbuf[0] = '\0'; /* c->easy is held: so is its buffer */
	c->nofd = false;
	/* Rates divide counter deltas by the time between samples: stamp the sample when the
	 * counters are asked for, not when the poll started three requests earlier. */
	if (c->step == RESTDECODE_IFACES)
		sample_stamp(c->s);
	if (rest_set_request(c, left) < 0) {
		rest_fail_later(c, SAMPLE_ERR_INTERNAL, "cannot set up the request");
		return;
	}
	if (curl_multi_add_handle(restmulti_curl(c->m), c->easy) != CURLM_OK) {
		rest_fail_later(c, SAMPLE_ERR_INTERNAL, "cannot start the request");
		return;
	}
	c->in_multi = true;
}

/* Why a transfer failed in curl (malloc'd), and its kind. */
static char *rest_curl_reason(const struct rest_conn *c, CURLcode res, enum sample_err *err)
{
	*err = SAMPLE_ERR_SIZE;
	if (c->head_too_big)
		return xasprintf("headers and trailers larger than %d bytes", REST_MAX_HEAD);
	if (c->too_big)
		return xasprintf("reply larger than %zu bytes", c->r->max_body);
	*err = SAMPLE_ERR_INTERNAL; /* resource exhaustion, not the router's doing */
	if (c->nofd && res == CURLE_COULDNT_CONNECT)
		return restcurl_nofd_reason();
	*err = restcurl_kind(res);
	return restdecode_clean(c->errbuf && c->errbuf[0] ? c->errbuf : curl_easy_strerror(res), 160);
}

/* Why a reply's status is not 2xx (malloc'd), and its kind. */
static char *rest_http_reason(const struct rest_conn *c, long code, enum sample_err *err)
{
	*err = code == 401 || code == 403 ? SAMPLE_ERR_AUTH : SAMPLE_ERR_HTTP;
	return restdecode_http_reason(code, c->body.data ? c->body.data : "", c->body.len);
}

/* Step c->step answered well: the kept answers keep it (restboard.h, healthkeep.h,
 * restupdate.h), and an optional menu that was failing is good again. */
static void rest_step_good(struct rest_conn *c)
{
	if (c->step == RESTDECODE_BOARD)
		restboard_keep(c->board, c->s, c->rc->rest);
	if (c->step == RESTDECODE_HEALTH)
		healthkeep_save(c->health, c->s, c->rc->rest);
	if (c->step == RESTDECODE_UPDATE)
		restupdate_keep(c->update, c->s);
	int m = restopt_of(c->step);
	if (m >= 0)
		restopt_good(c->opt, (enum restopt_menu)m, c->rc->name);
}

/* Whether this poll goes without step c->step: its kept answer stands (copied into the
 * sample), it is not due, or it failed and waits (restopt.h). */
static bool rest_step_skipped(struct rest_conn *c)
{
	int64_t now = clock_mono_ms();
	switch (c->step) {
	case RESTDECODE_BOARD:
		if (!restboard_fresh(c->board, c->s, c->rc->rest))
			return restopt_waiting(c->opt, RESTOPT_BOARD, now);
		restboard_use(c->board, c->s);
		return true;
	case RESTDECODE_HEALTH: /* the kept answer stands (healthkeep.h) */
		return healthkeep_use(c->health, c->s, c->rc->rest) ||
			restopt_waiting(c->opt, RESTOPT_HEALTH, now);
	case RESTDECODE_UPDATE:
		return restopt_waiting(c->opt, RESTOPT_UPDATE, now) ||
			restupdate_use(c->update, c->rc, c->s, now);
	default: return false;
	}
}

/* On to the next request that this poll makes. */
static void rest_next_step(struct rest_conn *c)
{
	while (++c->step < RESTDECODE_NSTEPS && rest_step_skipped(c))
		;
	if (c->step == RESTDECODE_PEERS)
		restpeers_plan(c->peers, c->rc, c->s);
}

/* After the poll's last step: a route check of one peer's endpoint, when one is due and time
 * is left (restwan.h). False when none was started. */
static bool rest_route_start(struct rest_conn *c)
{
	const char *dst = restwan_due(c->wan, c->rc, c->s, clock_mono_ms());
	if (dst == NULL || c->deadline_ms - clock_mono_ms() <= 0)
		return false;
	c->routing = true;
	c->route_dst = dst;
	rest_start_step(c);
	return true;
}

/* The route check ended; whatever it said, the poll is done and its sample stands. */
static void rest_route_done(struct rest_conn *c, CURLcode res, long code)
{
	char *iface = NULL, *why = NULL;
	const char *body = c->body.data ? c->body.data : "";
	enum sample_err err = SAMPLE_ERR_PARSE;
	if (res != CURLE_OK)
		why = rest_curl_reason(c, res, &err);
	else if (code < 200 || code > 299)
		why = rest_http_reason(c, code, &err);
	else
		restdecode_route(body, c->body.len, &iface, &why);
	if (iface != NULL) {
		restwan_done(c->wan, c->rc->name, iface, clock_mono_ms());
		restopt_good(c->opt, RESTOPT_ROUTE, c->rc->name);
	} else {
		rest_note_failure(c, err, why);
	}
	free(iface);
	free(why);
	rest_finish(c);
}

/* Whether every step after c->step is optional: a poll out of time may end whole there. */
static bool rest_only_optional_left(const struct rest_conn *c)
{
	for (int k = (int)c->step + 1; k < RESTDECODE_NSTEPS; k++)
		if (restopt_of((enum restdecode_step)k) < 0)
			return false;
	return true;
}

/* Step c->step is over (answered, or failed and optional): on to the next request, the route
 * check or the end. Out of time, only a required step is still tried (and fails the poll); the
 * optional ones are left for the next poll, neither failed nor noted as asked. */
static void rest_continue(struct rest_conn *c)
{
	if (clock_mono_ms() >= c->deadline_ms && rest_only_optional_left(c)) {
		rest_finish(c);
		return;
	}
	rest_next_step(c);
	if (c->step < RESTDECODE_NSTEPS)
		rest_start_step(c);
	else if (!rest_route_start(c))
		rest_finish(c);
}

/* Step c->step failed, why (taken): the poll goes on when the step is optional, else ends. */
static void rest_step_failed(struct rest_conn *c, enum sample_err err, char *why)
{
	bool go_on = rest_note_failure(c, err, why);
	free(why);
	if (go_on)
		rest_continue(c);
	else
		rest_finish(c);
}

/* Step c->step's reply was decoded (rc 0) or refused (-1, cause): on to the next request, or
 * the same again (RESTPEERS_AGAIN: the peers' counters did not match the kept details). */
static void rest_decoded(struct rest_conn *c, int rc, char *cause)
{
	if (rc == RESTPEERS_AGAIN) {
		rest_start_step(c);
		return;
	}
	if (rc < 0) {
		rest_step_failed(c, SAMPLE_ERR_PARSE, cause);
		return;
	}
	rest_step_good(c);
	rest_continue(c);
}

static void rest_conn_abandon(struct rest_conn *c);

/* A detached handle's last owned parts, and the handle. */
static void rest_conn_free(struct rest_conn *c)
{
	restboard_destroy(c->board);
	healthkeep_destroy(c->health);
	restpeers_destroy(c->peers);
	restupdate_destroy(c->update);
	restwan_destroy(c->wan);
	restopt_destroy(c->opt);
	restreq_url_destroy(c->url);
	resthdr_destroy(c->hdr);
	free(c);
}

/* c's reply into c->s (restdecode_reply; the peers' through restpeers.h). */
static int rest_decode_body(struct rest_conn *c, char **cause)
{
	const char *body = c->body.data ? c->body.data : "";
	if (c->step == RESTDECODE_PEERS)
		return restpeers_decode(c->peers, body, c->body.len, c->s, cause);
	return restdecode_reply(c->step, body, c->body.len, c->s, cause);
}

/* Offload thread: only body, s and peers, which the loop leaves alone while decoding. */
static void rest_decode_work(void *arg)
{
	struct rest_conn *c = arg;
	c->dec_cause = NULL;
	c->dec_rc = rest_decode_body(c, &c->dec_cause);
}

/* Loop thread: the decode ended; go on, or drop a poll that was abandoned meanwhile. */
static void rest_decode_done(void *arg)
{
	struct rest_conn *c = arg;
	c->decoding = false;
	if (!c->abandoned) {
		rest_decoded(c, c->dec_rc, c->dec_cause);
		return;
	}
	free(c->dec_cause);
	c->abandoned = false;
	rest_conn_abandon(c);
	if (c->detached)
		rest_conn_free(c);
}

static void rest_transfer_done(struct rest_conn *c, CURLcode res)
{
	long code = 0;
	char *cause = NULL, *why = NULL;
	enum sample_err err = SAMPLE_OK;
	curl_multi_remove_handle(restmulti_curl(c->m), c->easy);
	c->in_multi = false;
	curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
	if (c->routing) {
		rest_route_done(c, res, code);
		return;
	}
	if (res != CURLE_OK)
		why = rest_curl_reason(c, res, &err);
	else if (code < 200 || code > 299)
		why = rest_http_reason(c, code, &err);
	if (why != NULL) {
		rest_step_failed(c, err, why);
	} else if (c->r->off != NULL && c->body.len >= REST_OFFLOAD_MIN) {
		c->decoding = true; /* a big reply must not hold up the other routers' polls */
		offload_run(c->r->off, rest_decode_work, rest_decode_done, c);
	} else {
		int rc = rest_decode_body(c, &cause);
		rest_decoded(c, rc, cause);
	}
}

/* A transfer of one of r's multis ended (restmulti_done_fn). */
static void rest_on_transfer(CURL *easy, CURLcode res)
{
	struct rest_conn *c = NULL;
	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&c);
	if (c != NULL && c->busy && c->in_multi)
		rest_transfer_done(c, res);
}

/* ---- per-router handles and the collector interface ---- */

/* Take c's handle out of its multi (its connection stays in the multi's cache) and pool it. */
static void rest_easy_give(struct rest_conn *c)
{
	if (c->easy == NULL)
		return;
	if (c->in_multi)
		curl_multi_remove_handle(restmulti_curl(c->m), c->easy);
	c->in_multi = false;
	restcurl_give(c->r->curl, c->easy, c->errbuf, c->own_ca);
	c->easy = NULL;
	c->errbuf = NULL;
	c->own_ca = false;
}

/* A router's handle, attached by the poller; it joins a multi at its first poll. */
static void *rest_attach(void *ctx, const conf_router_t *rc)
{
	rest_t *r = ctx;
	struct rest_conn *c = xcalloc(1, sizeof(*c));
	c->r = r;
	buf_init(&c->body);
	c->health = healthkeep_create();
	c->peers = restpeers_create();
	c->board = restboard_create();
	c->update = restupdate_create();
	c->wan = restwan_create();
	c->opt = restopt_create();
	c->url = restreq_url_create();
	c->hdr = resthdr_create();
	c->next = r->conns;
	if (r->conns != NULL)
		r->conns->prev = c;
	r->conns = c;
	return c;
}

/* Puts c in the multi with the fewest routers. -1 when curl cannot make a multi. */
static int rest_conn_place(struct rest_conn *c)
{
	restmulti_t *rm = restcurl_multi(c->r->curl);
	if (rm == NULL)
		return -1;
	c->m = rm;
	restmulti_join(rm); /* room in curl's cache for its idle connection, or keep-alive is lost */
	return 0;
}

/* Abandons a poll in flight, without done. One being decoded is dropped when the decode ends. */
static void rest_conn_abandon(struct rest_conn *c)
{
	if (c->decoding) {
		c->abandoned = true;
		return;
	}
	rest_easy_give(c);
	if (c->defer)
		loop_cancel(c->r->loop, c->defer);
	sample_free(c->s);
	c->s = NULL;
	c->defer = 0;
	c->busy = false;
	buf_free(&c->body);
}

static void rest_detach(void *ctx, void *handle)
{
	rest_t *r = ctx;
	struct rest_conn *c = handle;
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		r->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	if (c->m != NULL)
		restmulti_leave(c->m);
	rest_conn_abandon(c);
	if (c->decoding) { /* freed when its decode ends (rest_decode_done) */
		c->detached = true;
		return;
	}
	rest_conn_free(c);
}

static bool rest_handles(void *ctx, const conf_router_t *rc)
{
	return rc->rest != NULL && rc->rest[0] != '\0';
}

/* Resets c for a new poll of rc. */
static void rest_conn_begin(struct rest_conn *c, const conf_router_t *rc, collector_done_fn done, void *arg)
{
	c->rc = rc;
	c->busy = true;
	c->routing = false;
	c->step = RESTDECODE_RESOURCE;
	c->done = done;
	c->arg = arg;
	c->s = sample_new(rc->name, 0, "rest");
	sample_stamp(c->s);
	c->start_ms = clock_mono_ms();
	c->deadline_ms = c->start_ms + (rc->timeout_ms > 0 ? rc->timeout_ms : REST_DEFAULT_TIMEOUT_MS);
}

/* tls_verify = no earns one warning per router for the daemon's life, not one a poll. */
static void rest_warn_insecure(rest_t *r, const conf_router_t *rc)
{
	for (size_t i = 0; i < r->ninsecure; i++)
		if (strcmp(r->insecure[i], rc->name) == 0)
			return;
	r->insecure = xreallocarray(r->insecure, r->ninsecure + 1, sizeof(*r->insecure));
	r->insecure[r->ninsecure++] = xstrdup(rc->name);
	log_warn("rest: router %s: tls_verify = no: the router's TLS certificate is not verified", rc->name);
}

static int rest_poll(void *ctx, void *handle, const conf_router_t *rc, collector_done_fn done, void *arg)
{
	rest_t *r = ctx;
	struct rest_conn *c = handle;
	if (r->dying || !rest_handles(ctx, rc))
		return -1;
	if (c->m == NULL) {
		if (rest_conn_place(c) < 0)
			return -1;
		if (!rc->tls_verify)
			rest_warn_insecure(r, rc); /* checked once per connection, not per poll */
	}
	if (c->busy)
		return -1;
	rest_conn_begin(c, rc, done, arg);
	if (restcurl_take(r->curl, c, &c->nofd, &c->easy, &c->errbuf) < 0 ||
		restcurl_configure(c->easy, rc, &c->own_ca) < 0) {
		sample_fail(c->s, SAMPLE_ERR_INTERNAL, "cannot configure the HTTP client");
		rest_finish_later(c);
	} else {
		rest_start_step(c);
	}
	return 0;
}

static void rest_cancel(void *ctx, void *handle)
{
	rest_conn_abandon(handle);
}

rest_t *rest_create(loop_t *loop, size_t max_body_bytes)
{
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	rest_t *r = xcalloc(1, sizeof(*r));
	r->loop = loop;
	r->max_body = max_body_bytes;
	r->curl = restcurl_create(loop, &r->dying, rest_on_transfer, rest_write, rest_header);
	r->off = offload_create(loop);
	if (r->off == NULL)
		log_warn("rest: no thread to decode big replies on (%s): they are decoded on the loop",
			strerror(errno));
	return r;
}

void rest_destroy(rest_t *r)
{
	if (r == NULL)
		return;
	r->dying = true;
	while (r->conns != NULL)
		rest_detach(r, r->conns);
	offload_destroy(r->off); /* ends the decodes in progress, which free their handles */
	restcurl_destroy(r->curl);
	for (size_t i = 0; i < r->ninsecure; i++)
		free(r->insecure[i]);
	free(r->insecure);
	free(r);
	curl_global_cleanup();
}

collector_t rest_collector(rest_t *r)
{
	return (collector_t){
		.name = "rest",
		.ctx = r,
		.handles = rest_handles,
		.attach = rest_attach,
		.detach = rest_detach,
		.poll = rest_poll,
		.cancel = rest_cancel,
	};
}
