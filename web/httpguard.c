/* SPDX-License-Identifier: Apache-2.0 */
/* httpguard: the checks made before any route (httpguard.h). Pure functions of the request
 * but for the login throttle (auth.c); it must never log nor keep a password. */
#include "config.h"
#include "web/httpguard.h"
#include "lib/clock.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define HTTPGUARD_MAX_URI 4096 /* longer request targets get 414 */

/* The marks httpguard_uri_check gives (NULL: nothing wrong). */
static const char httpguard_long, httpguard_bad;

/* The raw request target, before libmicrohttpd decodes it: too long, or holding an encoded
 * NUL (which decoding would turn into an early end of the path) or an encoded slash. */
const void *httpguard_uri_check(const char *uri)
{
	if (uri == NULL)
		return NULL;
	size_t n = strlen(uri), path = strcspn(uri, "?");
	if (n > HTTPGUARD_MAX_URI)
		return &httpguard_long;
	for (size_t i = 0; i + 2 < n; i++) {
		if (uri[i] != '%')
			continue;
		bool nul = uri[i + 1] == '0' && uri[i + 2] == '0';
		bool slash = (uri[i + 1] == '2' && (uri[i + 2] | 0x20) == 'f') ||
			(uri[i + 1] == '5' && (uri[i + 2] | 0x20) == 'c');
		if (nul || (slash && i < path))
			return &httpguard_bad;
	}
	return NULL;
}

/* A decoded path with a "." or ".." segment, or a backslash. */
static bool httpguard_dot_segment(const char *url)
{
	for (const char *p = url; p != NULL; p = strchr(p + 1, '/')) {
		size_t n = strcspn(p + 1, "/");
		if ((n == 1 && p[1] == '.') || (n == 2 && p[1] == '.' && p[2] == '.'))
			return true;
	}
	return strchr(url, '\\') != NULL;
}

static bool httpguard_has_body(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	return (cl != NULL && strcmp(cl, "0") != 0) ||
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
}

/* A declared body longer than HTTPGUARD_BODY_MAX (a chunked one is counted as it comes). */
static bool httpguard_body_too_big(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	return cl != NULL && (strlen(cl) > 9 || strtoul(cl, NULL, 10) > HTTPGUARD_BODY_MAX);
}

/* Content-Type application/json: what no HTML form can send across sites (no CSRF). */
static bool httpguard_is_json(struct MHD_Connection *conn)
{
	const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	return ct != NULL && strncasecmp(ct, "application/json", 16) == 0 &&
		(ct[16] == '\0' || ct[16] == ';' || ct[16] == ' ');
}

/* A write a page of another site made the browser send: its Origin (browsers send one with
 * every POST and DELETE, scripts and forms alike) names another host than the request's Host,
 * an opaque one ("null": a sandboxed frame, a data: page), or the browser says so in
 * Sec-Fetch-Site. A client that is no browser (curl, a script) sends neither and passes. */
static bool httpguard_foreign(struct MHD_Connection *conn)
{
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	const char *site = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-Fetch-Site");
	if (site != NULL && strcasecmp(site, "cross-site") == 0)
		return true;
	if (origin == NULL)
		return false;
	const char *scheme = strstr(origin, "://");
	return scheme == NULL || host == NULL || strcasecmp(scheme + 3, host) != 0;
}

/* 0 when the client gave the right user and password, else 401, or 429 while its address has
 * used up its failed attempts (then the password is not even looked at). */
static unsigned httpguard_auth(auth_t *auth, struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;
	int64_t now = clock_mono_ms();
	if (auth_throttled(auth, sa, now))
		return MHD_HTTP_TOO_MANY_REQUESTS;
	char *password = NULL;
	char *user = MHD_basic_auth_get_username_password(conn, &password);
	bool ok = auth_check(auth, user, password);
	if (password != NULL) {
		explicit_bzero(password, strlen(password));
		MHD_free(password);
	}
	if (user != NULL)
		MHD_free(user);
	if (ok)
		return 0;
	auth_failed(auth, sa, now);
	return MHD_HTTP_UNAUTHORIZED;
}

/* 0 when the request may go to its route, else the status to refuse it with. /healthz is
 * open to probes without credentials; it tells only whether the daemon is alive. */
/* What a refusal of status says, for this request. */
static const char *httpguard_why(unsigned status, bool probe, bool foreign)
{
	if (status == MHD_HTTP_FORBIDDEN && foreign)
		return "a write from a page of another site is refused (Origin)\n";
	if (status == MHD_HTTP_FORBIDDEN && probe)
		return "probes on demand need web authentication: set [web] user and password_file\n";
	return httpguard_refusal(status);
}

static unsigned httpguard_status(auth_t *auth, struct MHD_Connection *conn, const char *url,
	const char *method, const struct httproute *route, const void *mark, bool *foreign)
{
	bool write = route && route->access == HTTPROUTE_WRITE;
	bool probe = route && route->access == HTTPROUTE_ACTION;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 && route == NULL)
		return MHD_HTTP_METHOD_NOT_ALLOWED;
	if (probe && auth == NULL) /* a probe is real traffic: only with authentication on */
		return MHD_HTTP_FORBIDDEN;
	if (mark == &httpguard_long)
		return MHD_HTTP_URI_TOO_LONG;
	if (mark == &httpguard_bad || httpguard_dot_segment(url))
		return MHD_HTTP_NOT_FOUND;
	if (write ? httpguard_body_too_big(conn) : httpguard_has_body(conn))
		return MHD_HTTP_CONTENT_TOO_LARGE;
	if (write && auth == NULL)
		return MHD_HTTP_FORBIDDEN;
	unsigned denied = auth != NULL && strcmp(url, "/healthz") != 0 ? httpguard_auth(auth, conn) : 0;
	if (denied != 0 || !(write || probe)) /* what follows comes after the password: no hint before it */
		return denied;
	if ((*foreign = httpguard_foreign(conn)))
		return MHD_HTTP_FORBIDDEN; /* the browser's cached login came along: not the operator's will */
	if (strcmp(method, "POST") == 0 && !httpguard_is_json(conn))
		return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE; /* what no HTML form can send */
	return 0;
}

unsigned httpguard_check(auth_t *auth, struct MHD_Connection *conn, const char *url, const char *method,
	const struct httproute *route, const void *mark, const char **why)
{
	bool foreign = false;
	unsigned status = httpguard_status(auth, conn, url, method, route, mark, &foreign);
	bool probe = route && route->access == HTTPROUTE_ACTION;
	*why = status ? httpguard_why(status, probe, foreign) : NULL;
	return status;
}

const char *httpguard_refusal(unsigned status)
{
	switch (status) {
	case MHD_HTTP_METHOD_NOT_ALLOWED: return "method not allowed\n";
	case MHD_HTTP_URI_TOO_LONG: return "request target too long\n";
	case MHD_HTTP_CONTENT_TOO_LARGE: return "a request body is not accepted\n";
	case MHD_HTTP_TOO_MANY_REQUESTS: return "too many failed logins: try again in a second\n";
	case MHD_HTTP_UNAUTHORIZED: return "authentication required\n";
	case MHD_HTTP_FORBIDDEN:
		return "storing rollout overrides needs web authentication: set [web] user and password_file "
		       "(wgwatch.conf(5)), or use [rollout] allow in the configuration\n";
	case MHD_HTTP_UNSUPPORTED_MEDIA_TYPE: return "want Content-Type: application/json\n";
	default: return "not found\n";
	}
}

const void *httpguard_too_long(void)
{
	return &httpguard_long;
}
