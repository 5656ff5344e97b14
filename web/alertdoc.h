/* SPDX-License-Identifier: Apache-2.0 */
/* alertdoc: the alerts that web/alert pushes, built as the shipped Prometheus rules build theirs:
 * each alert's labels (the rule's own, then the router's config labels, those /metrics leaves
 * out left out) and its document for Alertmanager's v2 API (labels, annotations with the rule's
 * summary, description and runbook_url, generatorURL), plus its identity, the labels as sorted
 * compact JSON. One builder per rule: WgwatchUpgradeRegression, WgwatchSingleCoreBound,
 * WgwatchCapacityLow, WgwatchCapacityExhaustedSoon. Pure functions of the config and a detector
 * view's record: no state, no network, no clock. */
#ifndef WGWATCH_ALERTDOC_H
#define WGWATCH_ALERTDOC_H

#include <curl/curl.h>
#include <stddef.h>

#include "daemon/conf.h"
#include "detector/capacity.h"
#include "detector/detector.h"

/* One alert as it is pushed, but its times. */
struct alertdoc {
	char *key;  /* its labels as sorted compact JSON: the alert's identity */
	char *json; /* {"labels":..., "annotations":..., "generatorURL":... without its closing '}' */
};

/* Each builder writes the alert into *d and returns 0, or -1 (and *d untouched) when a label of
 * the rule's is absent or not UTF-8 (a verdict without versions), or a text is not UTF-8. curl
 * (any easy handle) escapes the router's name in generatorURL. */
int alertdoc_regression(const conf_t *conf, CURL *curl, const struct detector_verdict *v, struct alertdoc *d);
int alertdoc_bound(const conf_t *conf, CURL *curl, const struct detector_bound *bd, struct alertdoc *d);
/* WgwatchCapacityLow of stream c (its headroom in the description). */
int alertdoc_capacity_low(const conf_t *conf, CURL *curl, const struct capacity *c, struct alertdoc *d);
/* WgwatchCapacityExhaustedSoon of stream c, left_s seconds from now to its date (the rule's value). */
int alertdoc_capacity_soon(
	const conf_t *conf, CURL *curl, const struct capacity *c, double left_s, struct alertdoc *d);
/* The identity (alertdoc's key) of router's WgwatchSingleCoreBound; the caller frees it. */
char *alertdoc_bound_key(const conf_t *conf, const char *router);
void alertdoc_free(struct alertdoc *d);

/* Prometheus's template functions, as the rules' annotations use them: {{ $value |
 * humanizePercentage }} (v x 100 to 4 digits, "%") and {{ $value | humanizeDuration }} of v
 * seconds ("27d 3h 4m 5s"). Write into tmp, return it. */
const char *alertdoc_humanize_pct(char *tmp, size_t size, double v);
const char *alertdoc_humanize_dur(char *tmp, size_t size, double v);

#endif
