/* SPDX-License-Identifier: Apache-2.0 */
/* httpargs: a request target's query arguments, taken from libmicrohttpd before it parses them
 * (see the header for why), decoded as it would (x-www-form-urlencoded: '+' and %XX). */
#include "config.h"
#include "web/httpargs.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "lib/xmem.h"

struct httpargs_kv {
	const char *key, *value; /* into buf; value NULL when the argument has no '=' */
	size_t klen, vlen;
};

struct httpargs {
	char *buf; /* the query, decoded in place */
	size_t n;
	struct httpargs_kv *kv;
};

/* s decoded in place ('+' is a blank, then %XX); its new length. */
static size_t httpargs_decode(char *s)
{
	for (char *p = s; *p != '\0'; p++)
		if (*p == '+')
			*p = ' ';
	return MHD_http_unescape(s);
}

/* One "key[=value]" piece (NUL-terminated, in a's buffer) as argument n. */
static void httpargs_add(httpargs_t *a, char *piece)
{
	struct httpargs_kv *kv = &a->kv[a->n++];
	char *eq = strchr(piece, '=');
	if (eq != NULL)
		*eq = '\0';
	kv->key = piece;
	kv->klen = httpargs_decode(piece);
	kv->value = eq != NULL ? eq + 1 : NULL;
	kv->vlen = eq != NULL ? httpargs_decode(eq + 1) : 0;
}

httpargs_t *httpargs_take(const char *uri)
{
	/* uri is libmicrohttpd's own buffer, which it decodes in place next: writable */
	char *q = uri != NULL ? strchr(uri, '?') : NULL;
	if (q == NULL)
		return NULL;
	httpargs_t *a = xcalloc(1, sizeof(*a));
	a->buf = xstrdup(q + 1);
	q[1] = '\0'; /* libmicrohttpd ends the path at the '?' and parses from the byte after */
	size_t max = 1;
	for (const char *p = a->buf; *p != '\0'; p++)
		max += *p == '&';
	a->kv = xcalloc(max, sizeof(*a->kv));
	for (char *p = a->buf, *next; p != NULL; p = next) {
		next = strchr(p, '&');
		if (next != NULL)
			*next++ = '\0';
		if (*p != '\0') /* "a&&b", a trailing '&': no argument between */
			httpargs_add(a, p);
	}
	return a;
}

size_t httpargs_count(const httpargs_t *a)
{
	return a != NULL ? a->n : 0;
}

const char *httpargs_key(const httpargs_t *a, size_t i, size_t *len)
{
	*len = a->kv[i].klen;
	return a->kv[i].key;
}

const char *httpargs_value(const httpargs_t *a, size_t i, size_t *len)
{
	*len = a->kv[i].vlen;
	return a->kv[i].value;
}

int httpargs_give(const httpargs_t *a, struct MHD_Connection *conn)
{
	if (httpargs_count(a) > HTTPARGS_MAX)
		return -1;
	for (size_t i = 0; i < httpargs_count(a); i++) {
		const struct httpargs_kv *kv = &a->kv[i];
		if (MHD_set_connection_value_n(
			    conn, MHD_GET_ARGUMENT_KIND, kv->key, kv->klen, kv->value, kv->vlen) != MHD_YES)
			return -1;
	}
	return 0;
}

void httpargs_free(httpargs_t *a)
{
	if (a == NULL)
		return;
	free(a->kv);
	free(a->buf);
	free(a);
}

/* Refuses conn's request outside libmicrohttpd: a 400 written to its socket unless over TLS
 * (libmicrohttpd frames that), then a shutdown, which libmicrohttpd sees at once and closes.
 * From its own thread, with nothing of this request sent yet: the reply goes out whole or in
 * part, and a part is what a close mid-reply gives anyway. */
static void httpargs_refuse(struct MHD_Connection *conn)
{
	static const char refusal[] = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
				      "Content-Type: text/plain\r\nContent-Length: 12\r\n\r\n"
				      "bad request\n";
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci == NULL)
		return;
	if (MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION) == NULL) {
		ssize_t sent = send(
			ci->connect_fd, refusal, sizeof(refusal) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
		(void)sent;
	}
	shutdown(ci->connect_fd, SHUT_RDWR);
}

size_t httpargs_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	(void)cls;
	/* libmicrohttpd stops parsing arguments at the first that does not fit: after one has not
	 * fit this runs once more, on the path. Before the URI callback nothing is queued, and the
	 * daemon has no digest auth (which would call this from the access handler). */
	if (conn != NULL && MHD_get_connection_info(conn, MHD_CONNECTION_INFO_HTTP_STATUS) != NULL)
		httpargs_refuse(conn);
	return MHD_http_unescape(s);
}
