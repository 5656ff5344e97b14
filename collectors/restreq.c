/* restreq: what each request of a REST poll asks (collectors/restreq.h): the URL with its
 * .proplist, and the POST query when interfaces are named. It must never ask for private or
 * preshared keys, nor put the password in a URL. */
#include "config.h"
#include "collectors/restreq.h"
#include "collectors/restwan.h"
#include "daemon/ros.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <jansson.h>
#include <stdlib.h>

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

/* "name=X" for each of names onto query; how many went on (non-UTF-8 names are skipped). */
static size_t restreq_query_names(json_t *query, char *const *names, size_t nnames)
{
	size_t n = 0;
	for (size_t i = 0; i < nnames; i++) {
		char *w = xasprintf("name=%s", names[i]);
		n += json_array_append_new(query, json_string(w)) == 0;
		free(w);
	}
	return n;
}

/* {".proplist":[...],".query":["type=wg","name=A","name=B","#|","#|"]}: wg or any named in
 * interfaces or wan, or found to be the WAN. */
static char *restreq_iface_query(const conf_router_t *rc, char *const *found, size_t nfound)
{
	json_t *props = json_array(), *query = json_array();
	for (size_t i = 0; i < sizeof(restreq_iface_props) / sizeof(restreq_iface_props[0]); i++)
		json_array_append_new(props, json_string(restreq_iface_props[i]));
	json_array_append_new(query, json_string("type=wg"));
	size_t n = restreq_query_names(query, rc->interfaces, rc->ninterfaces);
	n += restreq_query_names(query, rc->wan, rc->nwan);
	n += restreq_query_names(query, found, nfound);
	while (n-- > 0)
		json_array_append_new(query, json_string("#|"));
	json_t *o = json_pack("{s:o,s:o}", ".proplist", props, ".query", query);
	char *text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

static char *restreq_iface_url(const char *base)
{
	buf_t b;
	buf_init(&b);
	buf_printf(&b, "%s/rest/interface?type=wg&.proplist=", base);
	for (size_t i = 0; i < sizeof(restreq_iface_props) / sizeof(restreq_iface_props[0]); i++)
		buf_printf(&b, "%s%s", i ? "," : "", restreq_iface_props[i]);
	return buf_steal(&b, NULL);
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

char *restreq_route(const conf_router_t *rc, const char *dst, char **post)
{
	*post = restwan_body(dst);
	return xasprintf("%s/rest/ip/route/check", rc->rest);
}

char *restreq_url(enum restdecode_step step, const conf_router_t *rc, char *const *found, size_t nfound,
	const sample_t *s, char **post)
{
	const char *base = rc->rest;
	*post = NULL;
	switch (step) {
	case RESTDECODE_RESOURCE:
		return xasprintf(
			"%s/rest/system/resource?.proplist=uptime,version,board-name,"
			"architecture-name,cpu,cpu-frequency,free-memory,total-memory,free-hdd-space,"
			"total-hdd-space",
			base);
	case RESTDECODE_CPU: return xasprintf("%s/rest/system/resource/cpu?.proplist=.id,cpu,load,irq", base);
	case RESTDECODE_BOARD:
		return xasprintf("%s/rest/system/routerboard?.proplist=routerboard,"
				 "current-firmware,upgrade-firmware",
			base);
	case RESTDECODE_IFACES:
		if (rc->ninterfaces + rc->nwan + nfound == 0)
			return restreq_iface_url(base);
		*post = restreq_iface_query(rc, found, nfound);
		return xasprintf("%s/rest/interface/print", base);
	case RESTDECODE_HEALTH: return xasprintf("%s/rest/system/health", base); /* rows or a record */
	case RESTDECODE_UPDATE: return xasprintf("%s/rest/system/package/update", base);
	default:
		return xasprintf("%s/rest/interface/wireguard/peers?.proplist=.id,interface,%scomment,"
				 "public-key,last-handshake,rx,tx,allowed-address,current-endpoint-address,"
				 "current-endpoint-port,disabled",
			base, restreq_peer_names(s) ? "name," : "");
	}
}
