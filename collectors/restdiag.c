/* SPDX-License-Identifier: Apache-2.0 */
/* restdiag: profiles over REST. Each request has an easy handle of its own in a multi of its
 * own, with a fresh connection that is closed after it: a profile blocks its connection for
 * its whole duration, and must never be the connection a poll waits for. Decoding takes the
 * reply's frames apart (.section, or a repeated core and classifier) and averages those past
 * the first two. It must never log: the scheduler (daemon/diag.c) logs once per router. */
#include "config.h"
#include "collectors/restdiag.h"
#include "collectors/restcurl.h"
#include "collectors/restdecode.h"
#include "lib/jsonr.h"
#include "collectors/restmulti.h"
#include "lib/buf.h"
#include "lib/clock.h"
#include "lib/jsonw.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <curl/curl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RESTDIAG_MAX_BODY (4 << 20)
#define RESTDIAG_MAX_ROWS 4096  /* rows of one reply; more is not a router's answer */
#define RESTDIAG_MAX_CORE 4096  /* a core number this or above is none */
#define RESTDIAG_SLACK_MS 15000 /* beyond the profile's duration, for the answer to come */
#define RESTDIAG_REST_CUT 60000 /* the REST server ends every request after this */
#define RESTDIAG_MAX_PCT  100.5 /* a share of a core (or a CPU load) past 100 %, rounding kept */
#define RESTDIAG_OVERRUN  1.05  /* a test delivers at most its offered rate, framing kept */
#define RESTDIAG_MIN_PKT  512.0 /* bits in the smallest packet a test sends (64 bytes) */

struct rdreq {
	restdiag_t *rd;
	struct rdreq *next, *prev;
	CURL *easy;
	char *router;
	char *post;               /* a probe's holds the test server's password: wiped when freed */
	const char *what;         /* "POST /rest/tool/profile" or "POST /rest/tool/bandwidth-test" */
	diag_done_fn done;        /* a profile's, or */
	diag_probe_fn probe_done; /* a probe's */
	void *arg;
	char *direction; /* a probe's: transmit, receive or both */
	double rate;     /* a probe's offered bits/s */
	int64_t duration_ms;
	buf_t body;
	bool too_big;
	loop_timer_id defer; /* a failure to start, delivered from a timer */
	char errbuf[CURL_ERROR_SIZE];
};

struct restdiag {
	loop_t *loop;
	restmulti_t *m;
	struct curl_slist *hdr;
	struct rdreq *reqs;
	bool dying;
};

/* ---- decoding ---- */

/* "12.5" or "12.5%" (or a JSON number); -1 when it is neither. */
static double restdiag_usage(const jsonr_node_t *v)
{
	double x;
	if (jsonr_num(v, &x))
		return x;
	const char *s = jsonr_str(v);
	if (s == NULL || !(isdigit((unsigned char)*s) || *s == '.'))
		return -1;
	char *end;
	x = strtod(s, &end);
	while (*end == ' ')
		end++;
	if (*end == '%')
		end++;
	return *end == '\0' && isfinite(x) && x >= 0 ? x : -1;
}

/* "3" or "cpu3" into 3; empty, absent, "all", "total" or anything else: -1 (whole router). */
static int restdiag_core(const char *s)
{
	if (s == NULL)
		return -1;
	if (strncmp(s, "cpu", 3) == 0)
		s += 3;
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	long n = strtol(s, &end, 10);
	return *end == '\0' && n >= 0 && n < RESTDIAG_MAX_CORE ? (int)n : -1;
}

/* One record: its core and classifier, with a cpuN summary row as N's "total". */
static bool restdiag_row(const jsonr_node_t *o, int *cpu, const char **name, double *usage)
{
	*name = jsonr_str(jsonr_get(o, "name"));
	*usage = restdiag_usage(jsonr_get(o, "usage"));
	if (*name == NULL || **name == '\0' || *usage < 0)
		return false;
	const jsonr_node_t *c = jsonr_get(o, "cpu");
	double x;
	if (jsonr_is_integer(c) && jsonr_num(c, &x)) /* as restdiag_core reads "3" */
		*cpu = x >= 0 && x < RESTDIAG_MAX_CORE ? (int)x : -1;
	else
		*cpu = restdiag_core(jsonr_str(c));
	if (*cpu < 0 && strncmp(*name, "cpu", 3) == 0 && restdiag_core(*name) >= 0) {
		*cpu = restdiag_core(*name);
		*name = "total";
	}
	return true;
}

struct restdiag_frames {
	profile_t **f;
	size_t n;
	char *section; /* the .section of the newest frame; NULL when rows carry none */
};

/* The frame a row goes to: a new one when .section changes, or (without .section) when the
 * newest frame has this core and classifier already. */
static profile_t *restdiag_frame(struct restdiag_frames *fr, const jsonr_node_t *o, int cpu, const char *name)
{
	const char *sec = jsonr_str(jsonr_get(o, ".section"));
	bool fresh = fr->n == 0 ||
		(sec != NULL ? fr->section == NULL || strcmp(sec, fr->section) != 0
			     : profile_find(fr->f[fr->n - 1], cpu, name) != NULL);
	if (fresh) {
		fr->f = xreallocarray(fr->f, fr->n + 1, sizeof(*fr->f));
		fr->f[fr->n++] = profile_new("", 0);
		free(fr->section);
		fr->section = sec ? xstrdup(sec) : NULL;
	}
	return fr->f[fr->n - 1];
}

/* The frames past the first two (all when there are no more than two), averaged into p. */
static void restdiag_average(struct restdiag_frames *fr, profile_t *p)
{
	size_t from = fr->n > 2 ? 2 : 0;
	for (size_t i = from; i < fr->n; i++)
		for (size_t k = 0; k < fr->f[i]->nrows; k++)
			profile_add(
				p, fr->f[i]->rows[k].cpu, fr->f[i]->rows[k].name, fr->f[i]->rows[k].usage);
	for (size_t k = 0; k < p->nrows; k++)
		p->rows[k].usage /= (double)(fr->n - from);
	profile_sort(p);
}

/* A row no router can report: a classifier taking more than a whole core (500 %, 1e308 %). */
static bool restdiag_impossible(const struct restdiag_frames *fr, char **cause)
{
	for (size_t i = 0; i < fr->n; i++)
		for (size_t k = 0; k < fr->f[i]->nrows; k++) {
			const struct profile_row *r = &fr->f[i]->rows[k];
			if (r->usage <= RESTDIAG_MAX_PCT)
				continue;
			char *name = restdecode_clean(r->name, 40);
			*cause = xasprintf(
				"profile row %s of cpu %d: usage %.3g %% is more than a whole core", name,
				r->cpu, r->usage);
			free(name);
			return true;
		}
	return false;
}

static int restdiag_walk(const jsonr_node_t *arr, profile_t *p, char **cause)
{
	struct restdiag_frames fr = { 0 };
	size_t rows = 0;
	for (size_t i = 0; i < jsonr_size(arr); i++) {
		const jsonr_node_t *o = jsonr_at(arr, i);
		int cpu;
		const char *name;
		double usage;
		if (!jsonr_is_object(o) || !restdiag_row(o, &cpu, &name, &usage))
			continue;
		if (++rows > RESTDIAG_MAX_ROWS)
			break;
		profile_add(restdiag_frame(&fr, o, cpu, name), cpu, name, usage);
	}
	int rc = 0;
	if (rows > RESTDIAG_MAX_ROWS) {
		*cause = xasprintf("more than %d profile rows", RESTDIAG_MAX_ROWS);
		rc = -1;
	} else if (restdiag_impossible(&fr, cause)) {
		rc = -1;
	} else if (rows == 0) {
		*cause = xstrdup("no profile rows (records with name and usage)");
		rc = -1;
	} else {
		restdiag_average(&fr, p);
	}
	for (size_t k = 0; k < fr.n; k++)
		profile_free(fr.f[k]);
	free(fr.f);
	free(fr.section);
	return rc;
}

int restdiag_decode_profile(const char *body, size_t len, profile_t *p, char **cause)
{
	const jsonr_node_t *root = restdecode_json(body, len, cause);
	if (root == NULL)
		return -1;
	if (!jsonr_is_array(root)) {
		*cause = xstrdup("not a JSON array of records");
		return -1;
	}
	return restdiag_walk(root, p, cause);
}

/* ---- decoding a bandwidth-test ---- */

/* A RouterOS number in a string ("854372352", "45%"), or -1 when absent or not a number. */
static double restdiag_num(const jsonr_node_t *o, const char *key)
{
	return restdiag_usage(jsonr_get(o, key));
}

/* The verdict record: the last "done testing", else the last record; NULL when none. */
static const jsonr_node_t *restdiag_verdict(const jsonr_node_t *arr)
{
	const jsonr_node_t *last = NULL;
	for (size_t i = 0; i < jsonr_size(arr); i++) {
		const jsonr_node_t *o = jsonr_at(arr, i);
		const char *st = jsonr_str(jsonr_get(o, "status"));
		if (!jsonr_is_object(o) || st == NULL)
			continue;
		if (last == NULL || strcmp(jsonr_str(jsonr_get(last, "status")), "done testing") != 0 ||
			strcmp(st, "done testing") == 0)
			last = o;
	}
	return last;
}

/* A figure no test can produce: more delivered than offered (1e308 bit/s of a 300 Mbit/s
 * test), more packets lost in a second than the offered rate can carry, a CPU above 100 %. */
static bool restdiag_probe_impossible(const probe_t *p, double lost, double l, double r, char **cause)
{
	double offered = p->offered_bps > 0 ? p->offered_bps : INFINITY;
	if (p->delivered_bps > offered * RESTDIAG_OVERRUN)
		*cause = xasprintf(
			"bandwidth-test: %.3g bit/s delivered of %.3g offered", p->delivered_bps, offered);
	else if (lost > fmax(offered, 1e6) / RESTDIAG_MIN_PKT * 2)
		*cause = xasprintf(
			"bandwidth-test: %.3g packets lost in a second of %.3g bit/s", lost, offered);
	else if (l > RESTDIAG_MAX_PCT || r > RESTDIAG_MAX_PCT)
		*cause = xasprintf("bandwidth-test: a CPU load of %.3g %%", fmax(l, r));
	else
		return false;
	return true;
}

/* p's figures from the verdict record: its direction's total average, loss, CPU loads. */
static int restdiag_probe_fill(const jsonr_node_t *o, probe_t *p, bool only, char **cause)
{
	bool tx = strcmp(p->direction, "transmit") == 0;
	const char *key = tx ? "tx-total-average" : "rx-total-average";
	p->delivered_bps = restdiag_num(o, key);
	if (p->delivered_bps < 0) {
		*cause = xasprintf("bandwidth-test: no %s in the last record", key);
		return -1;
	}
	/* RouterOS counts loss of what the client receives; a transmit-only test may still say */
	double lost = !tx || only ? restdiag_num(o, "lost-packets") : -1;
	double l = restdiag_num(o, "local-cpu-load"), r = restdiag_num(o, "remote-cpu-load");
	if (restdiag_probe_impossible(p, lost, l, r, cause))
		return -1;
	p->lost_packets = lost >= 0 ? (int64_t)lost : -1; /* bounded above: no overflow */
	p->local_cpu_load = l >= 0 ? l / 100 : -1;
	p->remote_cpu_load = r >= 0 ? r / 100 : -1;
	return 0;
}

int restdiag_decode_probe(const char *body, size_t len, probe_t *p[2], char **cause)
{
	char *notjson = NULL;
	const jsonr_node_t *root = restdecode_json(body, len, &notjson);
	free(notjson); /* named below, as no array of records */
	const jsonr_node_t *v = jsonr_is_array(root) ? restdiag_verdict(root) : NULL;
	int rc = -1;
	const char *st = v ? jsonr_str(jsonr_get(v, "status")) : NULL;
	if (v == NULL) {
		*cause = xstrdup("bandwidth-test: not an array of records with a status");
	} else if (strcmp(st, "done testing") != 0) {
		char *why = restdecode_clean(st, 120);
		*cause = xasprintf("bandwidth-test: %s", why);
		free(why);
		rc = strstr(st, "device-mode") != NULL ? 1 : -1;
	} else if (restdiag_probe_fill(v, p[0], p[1] == NULL, cause) == 0 &&
		(p[1] == NULL || restdiag_probe_fill(v, p[1], false, cause) == 0)) {
		rc = 0;
	}
	return rc;
}

/* ---- transport ---- */

static size_t restdiag_write(char *data, size_t size, size_t n, void *arg)
{
	struct rdreq *q = arg;
	if (q->body.len + size * n > RESTDIAG_MAX_BODY) {
		q->too_big = true;
		return 0;
	}
	buf_append(&q->body, data, size * n);
	return size * n;
}

static void restdiag_req_free(struct rdreq *q)
{
	restdiag_t *rd = q->rd;
	if (q->prev != NULL)
		q->prev->next = q->next;
	else
		rd->reqs = q->next;
	if (q->next != NULL)
		q->next->prev = q->prev;
	if (q->easy != NULL) {
		curl_multi_remove_handle(restmulti_curl(rd->m), q->easy);
		curl_easy_cleanup(q->easy); /* the password set on it goes with it */
	}
	if (q->defer)
		loop_cancel(rd->loop, q->defer);
	buf_free(&q->body);
	free(q->router);
	if (q->post != NULL)
		explicit_bzero(q->post, strlen(q->post));
	free(q->post);
	free(q->direction);
	free(q);
}

/* Ends q: calls its done once with what came of it (p a profile's, pr a probe's), then frees q. */
static void restdiag_end(struct rdreq *q, enum diag_status st, profile_t *p, probe_t **pr, const char *why)
{
	diag_done_fn done = q->done;
	diag_probe_fn probe_done = q->probe_done;
	probe_t *none[2] = { NULL, NULL };
	void *arg = q->arg;
	char *router = q->router;
	char *what = xasprintf("%s: %s", q->what, why ? why : "");
	q->router = NULL;
	restdiag_req_free(q);
	if (done != NULL)
		done(router, st, p, why ? what : NULL, arg);
	else
		probe_done(router, st, pr ? pr : none, why ? what : NULL, arg);
	free(what);
	free(router);
}

void restdiag_probe_pair(probe_t *pr[2], const char *router, int64_t end_ms, const char *direction,
	double rate_bps, int64_t duration_ms)
{
	bool both = strcmp(direction, "both") == 0;
	pr[0] = probe_new(
		router, end_ms, both || strcmp(direction, "transmit") == 0 ? "transmit" : "receive");
	pr[1] = both ? probe_new(router, end_ms, "receive") : NULL;
	for (int i = 0; i < 2 && pr[i]; i++) {
		pr[i]->configured = both ? "both" : pr[i]->direction;
		pr[i]->offered_bps = rate_bps;
		pr[i]->duration_ms = duration_ms;
	}
}

static void restdiag_decode_probe_req(struct rdreq *q)
{
	probe_t *pr[2];
	restdiag_probe_pair(pr, q->router, clock_wall_ms(), q->direction, q->rate, q->duration_ms);
	char *cause = NULL;
	int rc = restdiag_decode_probe(q->body.data ? q->body.data : "", q->body.len, pr, &cause);
	if (rc != 0) {
		probe_free(pr[0]);
		probe_free(pr[1]);
	}
	restdiag_end(q,
		rc == 0          ? DIAG_OK
			: rc > 0 ? DIAG_REFUSED
				 : DIAG_FAILED,
		NULL, rc == 0 ? pr : NULL, cause);
	free(cause);
}

/* 401 and 403 (no policy, REST off), 400 and 404 (no such command: an old RouterOS, or a
 * console refusal such as device-mode), 500 (not enough permissions): the router says no. */
static bool restdiag_refusal(long code)
{
	return code == 400 || code == 401 || code == 403 || code == 404 || code == 500;
}

static void restdiag_decode(struct rdreq *q)
{
	if (q->probe_done != NULL) {
		restdiag_decode_probe_req(q);
		return;
	}
	profile_t *p = profile_new(q->router, clock_wall_ms());
	p->duration_ms = q->duration_ms;
	char *cause = NULL;
	if (restdiag_decode_profile(q->body.data ? q->body.data : "", q->body.len, p, &cause) == 0) {
		restdiag_end(q, DIAG_OK, p, NULL, NULL);
		return;
	}
	profile_free(p);
	restdiag_end(q, DIAG_FAILED, NULL, NULL, cause);
	free(cause);
}

/* A transfer of the multi ended (restmulti_done_fn). */
static void restdiag_on_transfer(CURL *easy, CURLcode res)
{
	struct rdreq *q = NULL;
	long code = 0;
	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&q);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
	if (q == NULL)
		return;
	char *why = NULL;
	enum diag_status st = DIAG_FAILED;
	if (res != CURLE_OK) {
		why = restdecode_clean(q->too_big ? "reply too large"
				: q->errbuf[0]    ? q->errbuf
						  : curl_easy_strerror(res),
			160);
	} else if (code < 200 || code > 299) {
		why = restdecode_http_reason(code, q->body.data ? q->body.data : "", q->body.len);
		st = restdiag_refusal(code) ? DIAG_REFUSED : DIAG_FAILED;
	} else {
		restdiag_decode(q);
		return;
	}
	restdiag_end(q, st, NULL, NULL, why);
	free(why);
}

static void restdiag_on_defer(void *arg)
{
	struct rdreq *q = arg;
	q->defer = 0;
	restdiag_end(q, DIAG_FAILED, NULL, NULL, "cannot set up the request");
}

/* Every setting of q's handle for rc; -1 when curl refuses one. */
static int restdiag_setup(struct rdreq *q, const conf_router_t *rc)
{
	CURL *e = q->easy;
	const char *user = rc->diag_user ? rc->diag_user : rc->user;
	const char *pass = rc->diag_user ? rc->diag_password : rc->password;
	long verify = rc->tls_verify ? 1L : 0L;
	char *url = xasprintf("%s/rest/tool/%s", rc->rest, q->probe_done ? "bandwidth-test" : "profile");
	int64_t timeout = q->duration_ms + RESTDIAG_SLACK_MS;
	int bad = curl_easy_setopt(e, CURLOPT_URL, url) != CURLE_OK;
	free(url);
	bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, restcurl_open) != CURLE_OK; /* the reserve */
	bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)q) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, restdiag_write) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, q) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, q->errbuf) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_POSTFIELDS, q->post) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, q->rd->hdr) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_FRESH_CONNECT, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_FORBID_REUSE, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_USERNAME, user) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_PASSWORD, user ? (pass ? pass : "") : NULL) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, verify) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L) != CURLE_OK;
	if (rc->ca_file != NULL)
		bad |= curl_easy_setopt(e, CURLOPT_CAINFO, rc->ca_file) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
		       (long)(timeout < RESTDIAG_REST_CUT ? timeout : RESTDIAG_REST_CUT)) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION) != CURLE_OK;
#if LIBCURL_VERSION_NUM >= 0x075500
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
#else
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) != CURLE_OK;
#endif
	return bad ? -1 : 0;
}

/* Starts q (its post set) for rc; a failure to start is delivered from a timer. */
static void restdiag_start(restdiag_t *rd, struct rdreq *q, const conf_router_t *rc)
{
	buf_init(&q->body);
	q->next = rd->reqs;
	if (rd->reqs != NULL)
		rd->reqs->prev = q;
	rd->reqs = q;
	q->easy = curl_easy_init();
	if (q->easy == NULL || restdiag_setup(q, rc) < 0 ||
		curl_multi_add_handle(restmulti_curl(rd->m), q->easy) != CURLM_OK) {
		if (q->easy != NULL)
			curl_easy_cleanup(q->easy);
		q->easy = NULL;
		q->defer = loop_after(rd->loop, 0, restdiag_on_defer, q);
	}
}

static int restdiag_profile(void *ctx, const conf_router_t *rc, diag_done_fn done, void *arg)
{
	restdiag_t *rd = ctx;
	if (rd->dying || rc->rest == NULL)
		return -1;
	struct rdreq *q = xcalloc(1, sizeof(*q));
	*q = (struct rdreq){ .rd = rd, .router = xstrdup(rc->name), .done = done, .arg = arg };
	q->what = "POST /rest/tool/profile";
	q->duration_ms = rc->profile_duration_ms > 0 ? rc->profile_duration_ms : 5000;
	q->post = restdiag_profile_body(q->duration_ms);
	restdiag_start(rd, q, rc);
	return 0;
}

char *restdiag_profile_body(int64_t duration_ms)
{
	char dur[32];
	snprintf(dur, sizeof(dur), "%llds", (long long)(duration_ms / 1000));
	buf_t b;
	buf_init(&b);
	buf_putc(&b, '{');
	jsonw_add(&b, "cpu", "all");
	jsonw_add(&b, "duration", dur);
	buf_putc(&b, '}');
	return buf_steal(&b, NULL);
}

/* Room for the whole probe body at once (every byte of the free text escaped as \u00XX), so
 * that the password is never left behind in a buffer given up as it grew. */
static size_t restdiag_probe_room(const conf_router_t *rc)
{
	size_t n = strlen(rc->probe);
	n += rc->probe_user != NULL ? strlen(rc->probe_user) : 0;
	n += rc->probe_password != NULL ? strlen(rc->probe_password) : 0;
	return 6 * n + 512;
}

/* {"address","protocol","direction","duration","connection-count":"1", the rate as
 * local-tx-speed (transmit) and remote-tx-speed (receive), UDP packets that fit WireGuard's
 * default MTU, and the test server's user and password}. NULL when the address is not UTF-8;
 * a user or password that is not is left out. */
char *restdiag_probe_body(const conf_router_t *rc, int64_t duration_ms)
{
	char dur[32], rate[32];
	bool tx = strcmp(rc->probe_direction, "receive") != 0,
	     rx = strcmp(rc->probe_direction, "transmit") != 0;
	bool udp = strcmp(rc->probe_protocol, "udp") == 0;
	snprintf(dur, sizeof(dur), "%llds", (long long)(duration_ms / 1000));
	snprintf(rate, sizeof(rate), "%lld", (long long)rc->probe_rate_bps);
	buf_t b;
	buf_init(&b);
	buf_reserve(&b, restdiag_probe_room(rc));
	buf_putc(&b, '{');
	if (jsonw_add(&b, "address", rc->probe) < 0 || jsonw_add(&b, "protocol", rc->probe_protocol) < 0 ||
		jsonw_add(&b, "direction", rc->probe_direction) < 0) {
		buf_free(&b);
		return NULL;
	}
	jsonw_add(&b, "duration", dur);
	jsonw_add(&b, "connection-count", "1");
	if (tx)
		jsonw_add(&b, "local-tx-speed", rate);
	if (rx)
		jsonw_add(&b, "remote-tx-speed", rate);
	if (udp && tx)
		jsonw_add(&b, "local-udp-tx-size", "1420");
	if (udp && rx)
		jsonw_add(&b, "remote-udp-tx-size", "1420");
	if (rc->probe_user != NULL)
		jsonw_add(&b, "user", rc->probe_user);
	if (rc->probe_password != NULL)
		jsonw_add(&b, "password", rc->probe_password);
	buf_putc(&b, '}');
	return buf_steal(&b, NULL);
}

static int restdiag_probe(void *ctx, const conf_router_t *rc, diag_probe_fn done, void *arg)
{
	restdiag_t *rd = ctx;
	if (rd->dying || rc->rest == NULL || rc->probe == NULL)
		return -1;
	int64_t duration = rc->probe_duration_ms > 0 ? rc->probe_duration_ms : 10000;
	char *post = restdiag_probe_body(rc, duration);
	if (post == NULL)
		return -1;
	struct rdreq *q = xcalloc(1, sizeof(*q));
	*q = (struct rdreq){ .rd = rd, .router = xstrdup(rc->name), .probe_done = done, .arg = arg };
	q->what = "POST /rest/tool/bandwidth-test";
	q->duration_ms = duration;
	q->post = post;
	q->direction = xstrdup(rc->probe_direction);
	q->rate = (double)rc->probe_rate_bps;
	restdiag_start(rd, q, rc);
	return 0;
}

restdiag_t *restdiag_create(loop_t *loop)
{
	restdiag_t *rd = xcalloc(1, sizeof(*rd));
	rd->loop = loop;
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	rd->hdr = h ? curl_slist_append(h, "Expect:") : NULL;
	rd->m = rd->hdr ? restmulti_create(loop, &rd->dying, restdiag_on_transfer) : NULL;
	if (rd->m == NULL) {
		curl_slist_free_all(h);
		free(rd);
		return NULL;
	}
	return rd;
}

void restdiag_destroy(restdiag_t *rd)
{
	if (rd == NULL)
		return;
	rd->dying = true;
	while (rd->reqs != NULL)
		restdiag_req_free(rd->reqs);
	restmulti_destroy(rd->m);
	curl_slist_free_all(rd->hdr);
	free(rd);
}

diag_runner_t restdiag_runner(restdiag_t *rd)
{
	return (diag_runner_t){ .ctx = rd, .profile = restdiag_profile, .probe = restdiag_probe };
}
