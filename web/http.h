/* SPDX-License-Identifier: Apache-2.0 */
/* http: wgwatchd's HTTP listener (libmicrohttpd, its own threads): /metrics, /api/v1/...,
 * /healthz. Handlers read the fleet under its lock and never touch the loop's data otherwise.
 * [web] user/password_file turn on basic auth, cert/key HTTPS (read once, at start; httppem.c). */
#ifndef WGWATCH_HTTP_H
#define WGWATCH_HTTP_H

#include "daemon/conf.h"
#include "daemon/fleet.h"
#include "daemon/diag.h"
#include "detector/detector.h"
#include "lib/loop.h"
#include "store/store.h"

typedef struct http http_t;

struct http_deps {
	const conf_t *conf;
	fleet_t *fleet;
	store_t *store;
	loop_t *loop; /* only for loop_heartbeat_ms */
	/* the running detector, whose views the handlers read; NULL: none runs */
	detector_t *detector;
	diag_t *diag; /* on-demand probes (POST /api/v1/routers/NAME/probe); NULL: none */
};

/* Listen on "HOST:PORT" ("127.0.0.1:9477", "[::1]:9477") with deps->conf's [web] settings.
 * -1 with *cause (caller frees), which names the TLS file at fault. */
int http_start(const char *listen, const struct http_deps *deps, http_t **out, char **cause);
void http_stop(http_t *h);
unsigned http_port(const http_t *h); /* the bound port (useful with port 0) */

#endif
