/* SPDX-License-Identifier: Apache-2.0 */
/* scrape: what Prometheus reads of wgwatchd. GET /metrics, whole or of one router
 * (?router=NAME), streamed through gzip when the client takes it; and the targets to scrape one
 * router at a time, as Prometheus http_sd / file_sd JSON (GET /api/v1/targets,
 * wgwatchd --targets). Only router names and config labels go out, never a secret. */
#ifndef WGWATCH_SCRAPE_H
#define WGWATCH_SCRAPE_H

#include <stdbool.h>

#include "lib/buf.h"
#include "daemon/conf.h"
#include "daemon/fleet.h"
#include "detector/detector.h"
#include "store/store.h"
#include "web/metrics.h"

struct scrape_req {
	fleet_t *fleet;
	store_t *store;
	detector_t *detector;
	const struct metrics_http *http;
	const char *router; /* ?router=NAME; NULL: the whole exposition */
	bool daemon_only;   /* ?routers=no: the daemon's own families alone */
	bool gzip;          /* the client takes gzip */
};

/* 200 with the exposition in body, gzipped (and *gzipped set) when req->gzip; 404 with a line
 * of text when req->router is not a router of the fleet; 400 with one when both req->router and
 * req->daemon_only are set (they exclude each other). */
unsigned scrape_metrics(const struct scrape_req *req, buf_t *body, bool *gzipped);

/* The address Prometheus should scrape, "HOST:PORT": the listen address with port (the bound
 * one), or when it is a wildcard (0.0.0.0, [::]) or NULL the Host header the request came with (host
 * may be NULL or invalid: then this machine's name). Caller frees. */
char *scrape_address(const char *listen, unsigned port, const char *host);

/* The JSON array of targets, one per router of the fleet (scrape_targets_fleet, for
 * /api/v1/targets: it follows reloads) or of the config (scrape_targets_conf, for --targets):
 * {"targets":[address],"labels":{"__metrics_path__":"/metrics","__param_router":NAME,
 * "router":NAME, its config labels..., "__scheme__":"https" when tls}}. */
void scrape_targets_fleet(fleet_t *fleet, const char *address, bool tls, buf_t *out);
void scrape_targets_conf(const conf_t *conf, const char *address, bool tls, buf_t *out);

#endif
