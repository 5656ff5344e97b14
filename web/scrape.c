/* SPDX-License-Identifier: Apache-2.0 */
/* scrape: /metrics as Prometheus reads it (whole, or one router's), gzip-streamed so that the
 * text of a 10,000-router fleet is never held whole, and the per-router targets as http_sd /
 * file_sd JSON (https://prometheus.io/docs/prometheus/latest/http_sd/). It reads through fleet
 * views and config fields; never a secret, never the database. */
#include "config.h"
#include "web/scrape.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/jsonw.h"
#include "lib/text.h"
#include "lib/xmem.h"
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

static void scrape_target(buf_t *b, const conf_router_t *r, const char *address, bool tls)
{
	jsonw_object(b, NULL);
	if (text_is_utf8(address)) { /* else left out, as jansson's json_pack refused it */
		jsonw_array(b, "targets");
		jsonw_add(b, NULL, address);
		jsonw_end_array(b);
	}
	jsonw_object(b, "labels");
	jsonw_add(b, "__metrics_path__", "/metrics");
	jsonw_text(b, "__param_router", r->name);
	if (tls)
		jsonw_add(b, "__scheme__", "https");
	jsonw_text(b, "router", r->name);
	for (size_t k = 0; k < r->nlabels; k++)
		if (!conf_label_reserved(r->labels[k].key))
			jsonw_text(b, r->labels[k].key, r->labels[k].value);
	jsonw_end_object(b);
	jsonw_end_object(b);
}

void scrape_targets_fleet(fleet_t *fleet, const char *address, bool tls, buf_t *out)
{
	fleet_view_t *v = fleet_view(fleet);
	jsonw_array(out, NULL);
	for (size_t i = 0; i < fleet_view_size(v); i++)
		scrape_target(out, fleet_view_at(v, i)->conf, address, tls);
	jsonw_end_array(out);
	fleet_view_free(v);
}

void scrape_targets_conf(const conf_t *conf, const char *address, bool tls, buf_t *out)
{
	jsonw_array(out, NULL);
	for (size_t i = 0; i < conf->nrouters; i++)
		scrape_target(out, &conf->routers[i], address, tls);
	jsonw_end_array(out);
}
