/* SPDX-License-Identifier: Apache-2.0 */
/* scrape: /metrics as Prometheus reads it (whole, or one router's), gzip-streamed so that the
 * text of a 10,000-router fleet is never held whole, and the per-router targets as http_sd /
 * file_sd JSON (https://prometheus.io/docs/prometheus/latest/http_sd/). It reads through fleet
 * views and config fields; never a secret, never the database. */
#include "config.h"
#include "web/scrape.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/text.h"
#include "lib/xmem.h"
#include "web/api.h"
#include "web/httpgzip.h"

/* ---- /metrics ---- */

static void scrape_flush(void *arg, buf_t *out)
{
	httpgzip_feed(arg, out->data, out->len);
	buf_reset(out);
}

/* The render fed to a gzip stream piece by piece: the text stays a few hundred KiB. */
static int scrape_gzip(const struct metrics_req *mr, buf_t *body)
{
	buf_t text;
	buf_init(&text);
	httpgzip_t *z = httpgzip_begin(body);
	struct metrics_req req = *mr;
	req.flush = scrape_flush;
	req.flush_arg = z;
	int rc = metrics_write(&req, &text);
	httpgzip_feed(z, text.data, text.len);
	buf_free(&text);
	return httpgzip_finish(z) == 0 ? rc : -2;
}

unsigned scrape_metrics(const struct scrape_req *req, buf_t *body, bool *gzipped)
{
	if (req->router != NULL && req->daemon_only) { /* disjoint: an empty 200 would look up */
		buf_puts(body,
			"?router=NAME and ?routers=no exclude each other: one router's series "
			"(?router=NAME) or the daemon's own (?routers=no), not both\n");
		*gzipped = false;
		return 400;
	}
	struct metrics_req mr = { .fleet = req->fleet,
		.store = req->store,
		.detector = req->detector,
		.http = req->http,
		.router = req->router,
		.daemon_only = req->daemon_only };
	int rc = -2;
	*gzipped = false;
	if (req->gzip) {
		rc = scrape_gzip(&mr, body);
		*gzipped = rc == 0;
		if (rc != 0)
			buf_reset(body);
	}
	if (rc == -2) /* no gzip asked, or zlib failed: plain text */
		rc = metrics_write(&mr, body);
	if (rc == 0)
		return 200;
	buf_puts(body, "no router of that name in the configuration (?router=NAME)\n");
	return 404;
}

/* ---- targets ---- */

/* A Host header worth repeating: host[:port] characters only, [IPv6] bracketed. */
static bool scrape_host_ok(const char *host)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]";
	size_t n = host != NULL ? strlen(host) : 0;
	return n > 0 && n < 256 && strspn(host, ok) == n;
}

char *scrape_address(const char *listen, unsigned port, const char *host)
{
	if (listen == NULL) /* no address configured to repeat: as a wildcard one */
		listen = "";
	const char *colon = strrchr(listen, ':');
	size_t n = colon ? (size_t)(colon - listen) : strlen(listen);
	bool wild = n == 0 || (n == 7 && strncmp(listen, "0.0.0.0", 7) == 0) ||
		(n == 4 && strncmp(listen, "[::]", 4) == 0);
	if (!wild)
		return xasprintf("%.*s:%u", (int)n, listen, port);
	if (scrape_host_ok(host)) { /* the name the client reached us by */
		bool has_port = host[0] == '[' ? strstr(host, "]:") != NULL : strchr(host, ':') != NULL;
		return has_port ? xstrdup(host) : xasprintf("%s:%u", host, port);
	}
	char name[256] = "localhost";
	gethostname(name, sizeof(name) - 1);
	return xasprintf("%s:%u", name, port);
}

static json_t *scrape_target(const conf_router_t *r, const char *address, bool tls)
{
	json_t *labels = json_object();
	json_object_set_new(labels, "__metrics_path__", json_string("/metrics"));
	json_object_set_new(labels, "__param_router", api_str(r->name));
	if (tls)
		json_object_set_new(labels, "__scheme__", json_string("https"));
	json_object_set_new(labels, "router", api_str(r->name));
	for (size_t k = 0; k < r->nlabels; k++)
		if (!conf_label_reserved(r->labels[k].key))
			json_object_set_new(labels, r->labels[k].key, api_str(r->labels[k].value));
	json_t *t = json_object();
	json_object_set_new(t, "targets", json_pack("[s]", address));
	json_object_set_new(t, "labels", labels);
	return t;
}

static int scrape_dump_cb(const char *buffer, size_t size, void *data)
{
	buf_append(data, buffer, size);
	return 0;
}

static void scrape_dump(json_t *arr, buf_t *out)
{
	json_dump_callback(arr, scrape_dump_cb, out, JSON_COMPACT);
	json_decref(arr);
}

void scrape_targets_fleet(fleet_t *fleet, const char *address, bool tls, buf_t *out)
{
	fleet_view_t *v = fleet_view(fleet);
	json_t *arr = json_array();
	for (size_t i = 0; i < fleet_view_size(v); i++)
		json_array_append_new(arr, scrape_target(fleet_view_at(v, i)->conf, address, tls));
	fleet_view_free(v);
	scrape_dump(arr, out);
}

void scrape_targets_conf(const conf_t *conf, const char *address, bool tls, buf_t *out)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < conf->nrouters; i++)
		json_array_append_new(arr, scrape_target(&conf->routers[i], address, tls));
	scrape_dump(arr, out);
}
