/* SPDX-License-Identifier: Apache-2.0 */
/* restreq: what each request of a REST poll asks (collectors/restreq.h): the URL with its
 * .proplist, and the POST query when interfaces are named. It must never ask for private or
 * preshared keys, nor put the password in a URL. */
#include "config.h"
#include "collectors/restreq.h"
#include "collectors/restwan.h"
#include "daemon/ros.h"
#include "lib/buf.h"
#include "lib/jsonw.h"
#include "lib/xmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const restreq_iface_props[] = {
	".id",
	"name",
	"type",
	"running",
	"disabled",
	"rx-byte",
	"tx-byte",
	"rx-packet",
	"tx-packet",
	"rx-drop",
	"tx-drop",
	"tx-queue-drop",
	"rx-error",
	"tx-error",
	"mtu",
	"actual-mtu",
	"link-downs",
};

const char *restreq_what(enum restdecode_step step, const conf_router_t *rc, size_t nfound)
{
	static const char *const what[RESTDECODE_NSTEPS] = {
		[RESTDECODE_RESOURCE] = "GET /rest/system/resource",
		[RESTDECODE_CPU] = "GET /rest/system/resource/cpu",
		[RESTDECODE_BOARD] = "GET /rest/system/routerboard",
		[RESTDECODE_IFACES] = "GET /rest/interface",
		[RESTDECODE_PEERS] = "GET /rest/interface/wireguard/peers",
		[RESTDECODE_HEALTH] = "GET /rest/system/health",
		[RESTDECODE_UPDATE] = "GET /rest/system/package/update",
	};
	if (step == RESTDECODE_IFACES && rc->ninterfaces + rc->nwan + nfound > 0)
		return "POST /rest/interface/print";
	return what[step];
}

/* "name=X" for each of names onto the array being written to b, as JSON; how many went on. A
 * name that is not UTF-8 is skipped. */
static size_t restreq_query_names(buf_t *b, char *const *names, size_t nnames)
{
	size_t n = 0;
	for (size_t i = 0; i < nnames; i++) {
		char *w = xasprintf("name=%s", names[i]);
		n += jsonw_add(b, NULL, w) == 0;
		free(w);
	}
	return n;
}

/* {".proplist":[...],".query":["type=wg","name=A","name=B","#|","#|"]}: wg or any named in
 * interfaces or wan, or found to be the WAN. */
static char *restreq_iface_query(const conf_router_t *rc, char *const *found, size_t nfound)
{
	buf_t b;
	buf_init(&b);
	buf_puts(&b, "{\".proplist\":[");
	for (size_t i = 0; i < sizeof(restreq_iface_props) / sizeof(restreq_iface_props[0]); i++)
		jsonw_add(&b, NULL, restreq_iface_props[i]);
	buf_puts(&b, "],\".query\":[");
	jsonw_add(&b, NULL, "type=wg");
	size_t n = restreq_query_names(&b, rc->interfaces, rc->ninterfaces);
	n += restreq_query_names(&b, rc->wan, rc->nwan);
	n += restreq_query_names(&b, found, nfound);
	while (n-- > 0)
		jsonw_add(&b, NULL, "#|");
	buf_puts(&b, "]}");
	return buf_steal(&b, NULL);
}

/* "type=wg&.proplist=.id,name,...": built once from restreq_iface_props, kept for the
 * daemon's life. Once, under pthread_once: pollers (and wgwatch-fill's threads) ask at the
 * same time, and two that each built it raced and leaked one (ASan, 123-sql). */
static char *restreq_iface_query_text;

static void restreq_iface_query_build(void)
{
	buf_t b;
	buf_init(&b);
	buf_printf(&b, "type=wg&.proplist=");
	for (size_t i = 0; i < sizeof(restreq_iface_props) / sizeof(restreq_iface_props[0]); i++)
		buf_printf(&b, "%s%s", i ? "," : "", restreq_iface_props[i]);
	restreq_iface_query_text = buf_steal(&b, NULL);
}

static const char *restreq_iface_query_get(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, restreq_iface_query_build);
	return restreq_iface_query_text;
}

/* Peer names arrived in 7.15; do not ask older routers for a key they lack. */
static bool restreq_peer_names(const sample_t *s)
{
	struct ros_version v;
	const char *why;
	if (s->version == NULL || ros_parse_version(s->version, &v, &why) < 0)
		return true;
	return v.major > 7 || (v.major == 7 && v.minor >= 15);
}

void restreq_peer_counters(struct restreq *q)
{
	q->query = ".proplist=.id,rx,tx,last-handshake";
}

void restreq_route(const char *dst, struct restreq *q)
{
	q->path = "/rest/ip/route/check";
	q->query = NULL;
	q->post = restwan_body(dst);
}

#define RESTREQ_PEER_PROPS_A ".proplist=.id,interface,"
#define RESTREQ_PEER_PROPS_B                                                                \
	"comment,public-key,last-handshake,rx,tx,allowed-address,current-endpoint-address," \
	"current-endpoint-port,disabled"

void restreq_get(enum restdecode_step step, const conf_router_t *rc, char *const *found, size_t nfound,
	const sample_t *s, struct restreq *q)
{
	static const char *const path[RESTDECODE_NSTEPS] = {
		[RESTDECODE_RESOURCE] = "/rest/system/resource",
		[RESTDECODE_CPU] = "/rest/system/resource/cpu",
		[RESTDECODE_BOARD] = "/rest/system/routerboard",
		[RESTDECODE_IFACES] = "/rest/interface",
		[RESTDECODE_PEERS] = "/rest/interface/wireguard/peers",
		[RESTDECODE_HEALTH] = "/rest/system/health", /* rows or a record */
		[RESTDECODE_UPDATE] = "/rest/system/package/update",
	};
	static const char *const query[RESTDECODE_NSTEPS] = {
		[RESTDECODE_RESOURCE] =
			".proplist=uptime,version,board-name,architecture-name,cpu,"
			"cpu-frequency,free-memory,total-memory,free-hdd-space,total-hdd-space",
		[RESTDECODE_CPU] = ".proplist=.id,cpu,load,irq",
		[RESTDECODE_BOARD] = ".proplist=routerboard,current-firmware,upgrade-firmware",
		[RESTDECODE_PEERS] = RESTREQ_PEER_PROPS_A RESTREQ_PEER_PROPS_B,
	};
	q->path = path[step < RESTDECODE_NSTEPS ? step : RESTDECODE_PEERS];
	q->query = query[step < RESTDECODE_NSTEPS ? step : RESTDECODE_PEERS];
	q->post = NULL;
	if (step == RESTDECODE_PEERS && restreq_peer_names(s))
		q->query = RESTREQ_PEER_PROPS_A "name," RESTREQ_PEER_PROPS_B;
	if (step != RESTDECODE_IFACES)
		return;
	if (rc->ninterfaces + rc->nwan + nfound == 0) {
		q->query = restreq_iface_query_get();
		return;
	}
	q->path = "/rest/interface/print";
	q->post = restreq_iface_query(rc, found, nfound);
}

struct restreq_url {
	CURLU *h;     /* base's scheme, host and port, and the last request's path and query */
	char *base;   /* what h was parsed from */
	char *prefix; /* base's own path without its trailing '/', often "" */
};

restreq_url_t *restreq_url_create(void)
{
	return xcalloc(1, sizeof(restreq_url_t));
}

void restreq_url_destroy(restreq_url_t *u)
{
	if (u == NULL)
		return;
	curl_url_cleanup(u->h);
	free(u->base);
	free(u->prefix);
	free(u);
}

/* Parses base into u->h (once per base: the config may be reloaded). -1 when curl refuses it. */
static int restreq_url_base(restreq_url_t *u, const char *base)
{
	if (u->base != NULL && strcmp(u->base, base) == 0)
		return 0;
	curl_url_cleanup(u->h);
	free(u->base);
	free(u->prefix);
	u->base = u->prefix = NULL;
	char *path = NULL;
	u->h = curl_url();
	if (u->h == NULL || curl_url_set(u->h, CURLUPART_URL, base, 0) != CURLUE_OK ||
		curl_url_get(u->h, CURLUPART_PATH, &path, 0) != CURLUE_OK) {
		curl_url_cleanup(u->h);
		u->h = NULL;
		return -1;
	}
	size_t n = strlen(path);
	while (n > 0 && path[n - 1] == '/')
		n--;
	u->prefix = xstrndup(path, n);
	u->base = xstrdup(base);
	curl_free(path);
	return 0;
}

/* The query goes into the path, as the request target curl sends: given a query part of its
 * own, libcurl 7.88 prints path and query together twice a request with its slow aprintf (for
 * the auth code, and for the request line); given none, it copies the path as it is. */
CURLU *restreq_url_point(restreq_url_t *u, const char *base, const struct restreq *q)
{
	if (restreq_url_base(u, base) < 0)
		return NULL;
	const char *part[] = { u->prefix, q->path, q->query != NULL ? "?" : "",
		q->query != NULL ? q->query : "" };
	size_t len[4], n = 0;
	for (size_t i = 0; i < 4; i++)
		n += len[i] = strlen(part[i]);
	char stack[512], *target = n < sizeof(stack) ? stack : xmalloc(n + 1), *p = target;
	for (size_t i = 0; i < 4; i++) {
		memcpy(p, part[i], len[i]);
		p += len[i];
	}
	*p = '\0';
	CURLUcode rc = curl_url_set(u->h, CURLUPART_PATH, target, 0); /* curl keeps a copy */
	if (target != stack)
		free(target);
	if (rc == CURLUE_OK)
		rc = curl_url_set(u->h, CURLUPART_QUERY, NULL, 0);
	return rc == CURLUE_OK ? u->h : NULL;
}
