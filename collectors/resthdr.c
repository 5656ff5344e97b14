/* SPDX-License-Identifier: Apache-2.0 */
/* resthdr: a router's request headers, built when its credentials change and shared by the
 * routers with the same ones (resthdr.h). It must never log a header or keep a credential no
 * router uses any more unwiped. */
#include "config.h"
#include "collectors/resthdr.h"
#include "lib/hash.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

#define RESTHDR_USER_AGENT "User-Agent: " PACKAGE_NAME "/" PACKAGE_VERSION
#define RESTHDR_BUCKETS    64 /* of the table of sets; a fleet has few distinct credentials */

/* The lists for one user and password, shared by every router polled with them: a fleet's
 * routers mostly share one monitoring user, and each set costs some 300 bytes. */
struct resthdr_set {
	char *user, *pass;        /* what the lists were built for; user NULL: no Authorization */
	struct curl_slist *get;   /* User-Agent, and Authorization when there is a user */
	struct curl_slist *post;  /* User-Agent, Content-Type, Expect: and Authorization */
	size_t refs;              /* the routers' handles holding it */
	struct resthdr_set *next; /* in its bucket */
};

struct resthdr {
	struct resthdr_set *set; /* NULL before the first resthdr_get */
};

/* Every set some handle holds, by resthdr_bucket; the loop thread's alone, as the REST
 * collector is. */
static struct resthdr_set *resthdr_sets[RESTHDR_BUCKETS];

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

static void resthdr_set_free(struct resthdr_set *x)
{
	resthdr_wipe_str(x->user);
	resthdr_wipe_str(x->pass);
	resthdr_wipe_list(x->get);
	resthdr_wipe_list(x->post);
	free(x);
}

static struct resthdr_set **resthdr_bucket(const char *user, const char *pass)
{
	uint32_t h = hash_str32(user ? user : "") ^ hash_str32(pass ? pass : "") * 31u;
	return &resthdr_sets[h % RESTHDR_BUCKETS];
}

/* Drops h's set, wiped and freed with its last holder. */
static void resthdr_release(resthdr_t *h)
{
	struct resthdr_set *x = h->set;
	h->set = NULL;
	if (x == NULL || --x->refs > 0)
		return;
	for (struct resthdr_set **p = resthdr_bucket(x->user, x->pass); *p != NULL; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	resthdr_set_free(x);
}

void resthdr_destroy(resthdr_t *h)
{
	if (h == NULL)
		return;
	resthdr_release(h);
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

/* A new set's lists for user and pass; NULL when curl has no memory. */
static struct resthdr_set *resthdr_build(const char *user, const char *pass)
{
	struct resthdr_set *x = xcalloc(1, sizeof(*x));
	x->user = xstrdup(user);
	x->pass = xstrdup(pass);
	/* The User-Agent as a header of ours, not CURLOPT_USERAGENT, which libcurl 7.88 formats
	 * anew for every request (3% of a poll's instructions). */
	x->get = curl_slist_append(NULL, RESTHDR_USER_AGENT);
	struct curl_slist *post = x->get ? curl_slist_append(NULL, RESTHDR_USER_AGENT) : NULL;
	if (post != NULL)
		post = curl_slist_append(post, "Content-Type: application/json");
	if (post != NULL) /* no 100-continue round trip before long POST queries */
		post = curl_slist_append(post, "Expect:");
	x->post = post;
	if (post == NULL) {
		resthdr_set_free(x);
		return NULL;
	}
	if (user == NULL)
		return x;
	char *basic = resthdr_basic(user, pass);
	char *line = xasprintf("Authorization: %s", basic);
	resthdr_wipe_str(basic);
	struct curl_slist *g = curl_slist_append(x->get, line);
	struct curl_slist *p = g != NULL ? curl_slist_append(x->post, line) : NULL;
	resthdr_wipe_str(line);
	if (p == NULL) {
		resthdr_set_free(x);
		return NULL;
	}
	return x;
}

/* The set for user and pass, shared when some router holds it already, else new (NULL when
 * curl has no memory); one more reference either way. */
static struct resthdr_set *resthdr_find(const char *user, const char *pass)
{
	struct resthdr_set **b = resthdr_bucket(user, pass);
	for (struct resthdr_set *x = *b; x != NULL; x = x->next)
		if (resthdr_same(x->user, user) && resthdr_same(x->pass, pass)) {
			x->refs++;
			return x;
		}
	struct resthdr_set *x = resthdr_build(user, pass);
	if (x == NULL)
		return NULL;
	x->refs = 1;
	x->next = *b;
	*b = x;
	return x;
}

struct curl_slist *resthdr_get(resthdr_t *h, const char *user, const char *pass, bool post, bool *failed)
{
	if (pass == NULL)
		pass = "";
	if (user == NULL)
		pass = NULL;
	*failed = false;
	struct resthdr_set *x = h->set;
	if (x == NULL || !resthdr_same(x->user, user) || !resthdr_same(x->pass, pass)) {
		resthdr_release(h);
		if ((h->set = resthdr_find(user, pass)) == NULL) {
			*failed = true;
			return NULL;
		}
	}
	return post ? h->set->post : h->set->get;
}
