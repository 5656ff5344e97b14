/* SPDX-License-Identifier: Apache-2.0 */
/* resthdr: a router's request headers, built when its credentials change (resthdr.h). It must
 * never log a header or keep a credential it no longer uses unwiped. */
#include "config.h"
#include "collectors/resthdr.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define RESTHDR_USER_AGENT "User-Agent: " PACKAGE_NAME "/" PACKAGE_VERSION

struct resthdr {
	char *user, *pass;       /* what the lists were built for; user NULL: no Authorization */
	struct curl_slist *get;  /* User-Agent, and Authorization when there is a user */
	struct curl_slist *post; /* User-Agent, Content-Type, Expect: and Authorization */
	bool built;
};

resthdr_t *resthdr_create(void)
{
	return xcalloc(1, sizeof(resthdr_t));
}

static void resthdr_wipe_str(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static void resthdr_wipe_list(struct curl_slist *l)
{
	for (struct curl_slist *p = l; p != NULL; p = p->next)
		explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(l);
}

static void resthdr_clear(resthdr_t *h)
{
	resthdr_wipe_str(h->user);
	resthdr_wipe_str(h->pass);
	resthdr_wipe_list(h->get);
	resthdr_wipe_list(h->post);
	h->user = h->pass = NULL;
	h->get = h->post = NULL;
	h->built = false;
}

void resthdr_destroy(resthdr_t *h)
{
	if (h == NULL)
		return;
	resthdr_clear(h);
	free(h);
}

char *resthdr_basic(const char *user, const char *pass)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	user = user != NULL ? user : "";
	pass = pass != NULL ? pass : "";
	size_t nu = strlen(user), np = strlen(pass), n = nu + 1 + np, o = 6;
	char *plain = xmalloc(n + 1);
	memcpy(plain, user, nu);
	plain[nu] = ':';
	memcpy(plain + nu + 1, pass, np + 1);
	char *out = xmalloc(6 + (n + 2) / 3 * 4 + 1);
	memcpy(out, "Basic ", 6);
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)(unsigned char)plain[i] << 16;
		v |= i + 1 < n ? (unsigned)(unsigned char)plain[i + 1] << 8 : 0;
		v |= i + 2 < n ? (unsigned char)plain[i + 2] : 0;
		out[o++] = b64[v >> 18 & 63];
		out[o++] = b64[v >> 12 & 63];
		out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[o++] = i + 2 < n ? b64[v & 63] : '=';
	}
	out[o] = '\0';
	explicit_bzero(plain, n);
	free(plain);
	return out;
}

static bool resthdr_same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* Builds both lists for user and pass. -1 when curl has no memory (h then holds none). */
static int resthdr_build(resthdr_t *h, const char *user, const char *pass)
{
	resthdr_clear(h);
	h->built = true;
	h->user = xstrdup(user);
	h->pass = xstrdup(pass);
	/* The User-Agent as a header of ours, not CURLOPT_USERAGENT, which libcurl 7.88 formats
	 * anew for every request (3% of a poll's instructions). */
	h->get = curl_slist_append(NULL, RESTHDR_USER_AGENT);
	struct curl_slist *post = h->get ? curl_slist_append(NULL, RESTHDR_USER_AGENT) : NULL;
	if (post != NULL)
		post = curl_slist_append(post, "Content-Type: application/json");
	if (post != NULL) /* no 100-continue round trip before long POST queries */
		post = curl_slist_append(post, "Expect:");
	if (post == NULL)
		return -1;
	h->post = post;
	if (user == NULL)
		return 0;
	char *basic = resthdr_basic(user, pass);
	char *line = xasprintf("Authorization: %s", basic);
	resthdr_wipe_str(basic);
	struct curl_slist *g = curl_slist_append(h->get, line);
	struct curl_slist *p = g != NULL ? curl_slist_append(h->post, line) : NULL;
	resthdr_wipe_str(line);
	if (p == NULL)
		return -1;
	return 0;
}

struct curl_slist *resthdr_get(resthdr_t *h, const char *user, const char *pass, bool post, bool *failed)
{
	if (pass == NULL)
		pass = "";
	*failed = false;
	if (!h->built || !resthdr_same(h->user, user) || !resthdr_same(h->pass, user ? pass : NULL)) {
		if (resthdr_build(h, user, user ? pass : NULL) < 0) {
			resthdr_clear(h);
			*failed = true;
			return NULL;
		}
	}
	return post ? h->post : h->get;
}
