/* SPDX-License-Identifier: Apache-2.0 */
/* restcurl: the libcurl handles of collectors/rest.c (collectors/restcurl.h). Routers are
 * spread over several curl multi handles of at most RESTCURL_PER_MULTI each: libcurl (7.88)
 * walks a multi's whole DNS cache and connection cache at the end of every transfer, so one
 * multi for 10,000 routers would make every request cost O(routers). A router's keep-alive
 * connection lives in its multi's connection cache, not in an easy handle: easy handles (5.6 KB
 * each) are pooled and lent to the polls in flight. It must never give a pooled handle a
 * router's credentials or CA file, which would stay for the next router. */
#include "config.h"
#include "collectors/restcurl.h"
#include "lib/fdreserve.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#define RESTCURL_PER_MULTI 64 /* routers per curl multi handle (see the top) */

struct restcurl_idle {
	CURL *e;
	char *errbuf; /* its CURLOPT_ERRORBUFFER, CURL_ERROR_SIZE bytes */
};

struct restcurl {
	loop_t *loop;
	const bool *dying; /* for restmulti_create */
	restmulti_done_fn done;
	curl_write_callback write, header;
	restmulti_t **multis; /* at most RESTCURL_PER_MULTI routers each */
	size_t nmultis;
	bool no_proxy_env;          /* no proxy variable in the environment: curl need not read it */
	struct restcurl_idle *idle; /* easy handles no poll holds */
	size_t nidle, capidle;
};

/* Whether libcurl 7.88 would find no proxy in the environment: it reads <scheme>_proxy,
 * HTTPS_PROXY (never HTTP_PROXY) and all_proxy or ALL_PROXY, on every request, and takes an
 * empty one as none. A daemon's environment does not change while it runs. */
static bool restcurl_no_proxy_env(void)
{
	static const char *const vars[] = { "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy",
		"ALL_PROXY" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		if (v != NULL && v[0] != '\0')
			return false;
	}
	return true;
}

restcurl_t *restcurl_create(loop_t *loop, const bool *dying, restmulti_done_fn done,
	curl_write_callback write, curl_write_callback header)
{
	restcurl_t *rc = xcalloc(1, sizeof(*rc));
	rc->loop = loop;
	rc->dying = dying;
	rc->done = done;
	rc->write = write;
	rc->header = header;
	rc->no_proxy_env = restcurl_no_proxy_env();
	return rc;
}

void restcurl_destroy(restcurl_t *rc)
{
	if (rc == NULL)
		return;
	for (size_t i = 0; i < rc->nidle; i++) {
		curl_easy_cleanup(rc->idle[i].e);
		free(rc->idle[i].errbuf);
	}
	free(rc->idle);
	for (size_t i = 0; i < rc->nmultis; i++)
		restmulti_destroy(rc->multis[i]);
	free(rc->multis);
	free(rc);
}

restmulti_t *restcurl_multi(restcurl_t *rc)
{
	restmulti_t *best = NULL;
	for (size_t i = 0; i < rc->nmultis; i++)
		if (best == NULL || restmulti_routers(rc->multis[i]) < restmulti_routers(best))
			best = rc->multis[i];
	if (best != NULL && restmulti_routers(best) < RESTCURL_PER_MULTI)
		return best;
	restmulti_t *rm = restmulti_create(rc->loop, rc->dying, rc->done);
	if (rm == NULL)
		return NULL;
	rc->multis = xreallocarray(rc->multis, rc->nmultis + 1, sizeof(*rc->multis));
	rc->multis[rc->nmultis++] = rm;
	return rm;
}

/* Settings every handle gets once, whatever router it serves. The credentials go in the
 * headers (resthdr.h), never in curl's USERNAME and PASSWORD, which a pooled handle would keep
 * for the next router. */
static int restcurl_setup(CURL *e, const restcurl_t *rc)
{
	loop_t *loop = rc->loop;
	int bad = curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CLOSESOCKETFUNCTION, restmulti_close) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CLOSESOCKETDATA, loop) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, restcurl_open) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, rc->write) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, rc->header) != CURLE_OK;
#if LIBCURL_VERSION_NUM >= 0x075500
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
#else
	bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS)) != CURLE_OK;
#endif
	bad |= curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L) != CURLE_OK;
	if (rc->no_proxy_env) /* the same as no variable, without reading five per request */
		bad |= curl_easy_setopt(e, CURLOPT_NOPROXY, "*") != CURLE_OK;
	return bad ? -1 : 0;
}

/* A pooled handle keeps the settings of restcurl_setup; restcurl_configure sets every
 * per-router one, and a handle that was given a router's own CA file is never pooled (see
 * restcurl_give). */
int restcurl_take(restcurl_t *rc, void *owner, bool *nofd, CURL **easy, char **errbuf)
{
	if (rc->nidle > 0) {
		rc->nidle--;
		*easy = rc->idle[rc->nidle].e;
		*errbuf = rc->idle[rc->nidle].errbuf;
	} else if ((*easy = curl_easy_init()) == NULL || restcurl_setup(*easy, rc) < 0) {
		curl_easy_cleanup(*easy);
		*easy = NULL;
		*errbuf = NULL;
		return -1;
	} else {
		*errbuf = xmalloc(CURL_ERROR_SIZE);
	}
	CURL *e = *easy;
	(*errbuf)[0] = '\0';
	int bad = curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)owner) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, owner) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HEADERDATA, owner) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, *errbuf) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, nofd) != CURLE_OK;
	return bad ? -1 : 0;
}

void restcurl_give(restcurl_t *rc, CURL *e, char *errbuf, bool own_ca)
{
	if (own_ca) { /* curl has no way back to its default CA file: not for others */
		curl_easy_cleanup(e);
		free(errbuf);
		return;
	}
	/* the header list is the router's, freed with it: a pooled handle must not point at it */
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
	if (rc->nidle == rc->capidle) {
		rc->capidle = rc->capidle ? 2 * rc->capidle : 16;
		rc->idle = xreallocarray(rc->idle, rc->capidle, sizeof(*rc->idle));
	}
	rc->idle[rc->nidle++] = (struct restcurl_idle){ .e = e, .errbuf = errbuf };
}

/* Per-poll settings: the router's config may have been reloaded since the last poll. */
int restcurl_configure(CURL *e, const conf_router_t *r, bool *own_ca)
{
	long verify = r->tls_verify ? 1L : 0L;
	int bad = curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, verify) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, verify ? 2L : 0L) != CURLE_OK;
	if (r->ca_file != NULL) {
		*own_ca = true;
		bad |= curl_easy_setopt(e, CURLOPT_CAINFO, r->ca_file) != CURLE_OK;
	}
	return bad ? -1 : 0;
}

/* The URL goes to curl parsed (CURLOPT_CURLU, restreq.h); CURLOPT_URL, which that overrides,
 * names the router's base for curl's own messages. */
int restcurl_request(
	CURL *e, const char *base, CURLU *url, long left_ms, struct curl_slist *hdr, const char *post)
{
	int bad = curl_easy_setopt(e, CURLOPT_URL, base) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CURLU, url) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, left_ms) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, left_ms) != CURLE_OK;
	bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdr) != CURLE_OK;
	if (post != NULL)
		bad |= curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, post) != CURLE_OK;
	else
		bad |= curl_easy_setopt(e, CURLOPT_HTTPGET, 1L) != CURLE_OK;
	return bad ? -1 : 0;
}

enum sample_err restcurl_kind(CURLcode res)
{
	switch (res) {
	case CURLE_OPERATION_TIMEDOUT: return SAMPLE_ERR_TIMEOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY: return SAMPLE_ERR_DNS;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_ENGINE_INITFAILED:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_USE_SSL_FAILED: return SAMPLE_ERR_TLS;
	case CURLE_OUT_OF_MEMORY:
	case CURLE_WRITE_ERROR:
	case CURLE_URL_MALFORMAT:
	case CURLE_UNSUPPORTED_PROTOCOL: return SAMPLE_ERR_INTERNAL;
	default: return SAMPLE_ERR_CONNECT; /* refused, reset, empty reply, unreachable */
	}
}

/* The first refusal is logged here, once for the process: each router that cannot connect says
 * so once more, when it goes down (the poller). Refused on the loop thread only. */
static bool restcurl_nofd_logged;

curl_socket_t restcurl_open(void *nofd, curlsocktype purpose, struct curl_sockaddr *addr)
{
	int fd = fdreserve_check(socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol));
	if (fd >= 0 || !fdreserve_exhausted(errno))
		return fd >= 0 ? fd : CURL_SOCKET_BAD;
	if (nofd != NULL)
		*(bool *)nofd = true;
	if (!restcurl_nofd_logged) {
		restcurl_nofd_logged = true;
		char *why = restcurl_nofd_reason();
		log_warn("rest: %s: routers that cannot connect are down until descriptors are free", why);
		free(why);
	}
	return CURL_SOCKET_BAD;
}

char *restcurl_nofd_reason(void)
{
	return xasprintf("out of file descriptors (open-files limit %llu, the last %u kept for the "
			 "HTTP listener and the database); raise LimitNOFILE",
		(unsigned long long)fdreserve_limit(), fdreserve_kept());
}
