/* SPDX-License-Identifier: Apache-2.0 */
/* alertdoc: each alert's labels and document (web/alertdoc.h), as the shipped Prometheus rules
 * (web/prometheus/wgwatch-rules.yml) label and annotate theirs. It must never put a secret in a
 * label (the router's password is no label; reserved labels are left out as /metrics leaves them
 * out), and never write a string that is not UTF-8: an alert with such a label of the rule's is
 * not built, a router label or annotation that is not is left out. */
#include "config.h"
#include "web/alertdoc.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detector/outcome.h"
#include "lib/buf.h"
#include "lib/jsonw.h"
#include "lib/text.h"
#include "lib/xmem.h"

#define ALERTDOC_RUNBOOK "https://github.com/wgwatch/wgwatch/blob/main/docs/alerts.md#"

/* An alert's labels in the rule's order: its own, then the router's. Borrowed strings. */
struct alertdoc_label {
	const char *name, *value;
};

struct alertdoc_labels {
	struct alertdoc_label *l; /* l[0] is alertname */
	size_t n;
	bool bad; /* a label of the rule's NULL or not UTF-8: no alert (jansson's json_pack refused) */
};

static char *alertdoc_generator(const conf_t *conf, CURL *curl, const char *router)
{
	char *esc = curl_easy_escape(curl, router, 0);
	char *url = xasprintf(
		"%s://%s/router/%s", conf->web_cert ? "https" : "http", conf->listen, esc ? esc : "");
	curl_free(esc);
	return url;
}

/* The rule's runbook_url: its section of docs/alerts.md, the alertname in lower case. */
static char *alertdoc_runbook(const struct alertdoc_labels *ls)
{
	char *url = xasprintf("%s%s", ALERTDOC_RUNBOOK, ls->l[0].value);
	for (char *p = url + strlen(ALERTDOC_RUNBOOK); *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	return url;
}

static void alertdoc_labels_write(buf_t *b, const char *key, const struct alertdoc_label *l, size_t n)
{
	jsonw_object(b, key);
	for (size_t i = 0; i < n; i++)
		jsonw_add(b, l[i].name, l[i].value);
	jsonw_end_object(b);
}

static int alertdoc_label_cmp(const void *x, const void *y)
{
	return strcmp(((const struct alertdoc_label *)x)->name, ((const struct alertdoc_label *)y)->name);
}

/* The identity of an alert: its labels (alertname included), as sorted compact JSON. */
static char *alertdoc_key_of(const struct alertdoc_labels *ls)
{
	struct alertdoc_label *sorted = xcalloc(ls->n + 1, sizeof(*sorted));
	memcpy(sorted, ls->l, ls->n * sizeof(*sorted));
	qsort(sorted, ls->n, sizeof(*sorted), alertdoc_label_cmp);
	buf_t b;
	buf_init(&b);
	alertdoc_labels_write(&b, NULL, sorted, ls->n);
	free(sorted);
	return buf_steal(&b, NULL);
}

/* A regression that coincides with something else that moved (docs/detector.md, Confounders)
 * is still a regression: the annotation `confounders` names what moved, "; " between them. */
static void alertdoc_confounders(buf_t *out, const char *list)
{
	if (list == NULL || list[0] == '\0')
		return;
	buf_t b;
	buf_init(&b);
	for (const char *p = list; *p != '\0'; p++)
		if (*p == '\n')
			buf_puts(&b, "; ");
		else
			buf_putc(&b, *p);
	jsonw_add(out, "confounders", b.data); /* left out when not UTF-8, as jansson did */
	buf_free(&b);
}

/* The alert of labels into *d: 0, or -1 when a label or text is not one (a verdict without
 * versions). Frees summary, description and the labels' array. */
static int alertdoc_build(const conf_t *conf, CURL *curl, struct alertdoc_labels *ls, const char *router,
	char *summary, char *description, const char *confounders, struct alertdoc *d)
{
	int rc = -1;
	if (!ls->bad && text_is_utf8(summary) && text_is_utf8(description)) {
		char *gen = alertdoc_generator(conf, curl, router), *runbook = alertdoc_runbook(ls);
		buf_t b;
		buf_init(&b);
		jsonw_object(&b, NULL);
		alertdoc_labels_write(&b, "labels", ls->l, ls->n);
		jsonw_object(&b, "annotations");
		jsonw_add(&b, "summary", summary);
		jsonw_add(&b, "description", description);
		jsonw_add(&b, "runbook_url", runbook);
		alertdoc_confounders(&b, confounders);
		jsonw_end_object(&b);
		jsonw_add(&b, "generatorURL", gen);
		*d = (struct alertdoc){ .key = alertdoc_key_of(ls), .json = buf_steal(&b, NULL) };
		free(gen);
		free(runbook);
		rc = 0;
	}
	free(summary);
	free(description);
	free(ls->l);
	return rc;
}

void alertdoc_free(struct alertdoc *d)
{
	free(d->key);
	free(d->json);
}

/* "380.0 Mbit/s", or "-" when unknown. */
static const char *alertdoc_mbps(char *tmp, size_t size, double bps)
{
	if (!isfinite(bps))
		return "-";
	snprintf(tmp, size, "%.1f Mbit/s", bps / 1e6);
	return tmp;
}

static const char *alertdoc_pct(char *tmp, size_t size, double load)
{
	if (!isfinite(load))
		return "-";
	snprintf(tmp, size, "%.0f%%", load * 100);
	return tmp;
}

static bool alertdoc_label_has(const struct alertdoc_labels *ls, const char *name)
{
	for (size_t i = 0; i < ls->n; i++)
		if (strcmp(ls->l[i].name, name) == 0)
			return true;
	return false;
}

/* The rule's labels own[0..n), then the router's own config labels, as its series carry them:
 * those metrics.c leaves out are left out, and the rule's win, as a rule's labels win in
 * Prometheus; one not UTF-8 is left out, as jansson left it. The caller frees ls->l. */
static void alertdoc_labels(const conf_t *conf, struct alertdoc_labels *ls, const char *router,
	const char *const (*own)[2], size_t n)
{
	const conf_router_t *r = conf_router_find(conf, router);
	size_t nr = r != NULL ? r->nlabels : 0;
	*ls = (struct alertdoc_labels){ .l = xcalloc(n + nr + 1, sizeof(*ls->l)) };
	for (size_t i = 0; i < n; i++) {
		ls->bad |= own[i][1] == NULL || !text_is_utf8(own[i][1]);
		ls->l[ls->n++] = (struct alertdoc_label){ own[i][0], own[i][1] };
	}
	for (size_t k = 0; !ls->bad && k < nr; k++) {
		const struct conf_label *l = &r->labels[k];
		if (!conf_label_reserved(l->key) && !alertdoc_label_has(ls, l->key) && text_is_utf8(l->key) &&
			text_is_utf8(l->value))
			ls->l[ls->n++] = (struct alertdoc_label){ l->key, l->value };
	}
}

int alertdoc_regression(const conf_t *conf, CURL *curl, const struct detector_verdict *v, struct alertdoc *d)
{
	const char *const own[][2] = { { "alertname", "WgwatchUpgradeRegression" }, { "router", v->router },
		{ "interface", v->interface }, { "direction", v->direction },
		{ "from_version", v->from_version }, { "to_version", v->to_version },
		{ "severity", "warning" } };
	struct alertdoc_labels ls;
	alertdoc_labels(conf, &ls, v->router, own, sizeof(own) / sizeof(own[0]));
	if (ls.bad) { /* a verdict without versions */
		free(ls.l);
		return -1;
	}
	char b[32], f[32], lb[16], lf[16];
	char *summary = xasprintf("%s %s %s: capacity down after %s -> %s", v->router, v->interface,
		v->direction, v->from_version, v->to_version);
	char *desc = xasprintf(
		"wgwatch judges that the upgrade of %s from %s to %s left %.0f%% of the"
		" %s capacity of %s (tx = encrypt, rx = decrypt): ratio %.2f by %s, %s before and %s"
		" after, busiest core %s -> %s, %zu and %zu samples.",
		v->router, v->from_version, v->to_version, v->ratio * 100, v->direction, v->interface,
		v->ratio, outcome_method_name(v->method), alertdoc_mbps(b, sizeof(b), v->before_bps),
		alertdoc_mbps(f, sizeof(f), v->after_bps), alertdoc_pct(lb, sizeof(lb), v->before_load),
		alertdoc_pct(lf, sizeof(lf), v->after_load), v->before_n, v->after_n);
	return alertdoc_build(conf, curl, &ls, v->router, summary, desc, v->confounders, d);
}

static void alertdoc_bound_labels(const conf_t *conf, const char *router, struct alertdoc_labels *ls)
{
	const char *const own[][2] = { { "alertname", "WgwatchSingleCoreBound" }, { "router", router },
		{ "severity", "info" } };
	alertdoc_labels(conf, ls, router, own, sizeof(own) / sizeof(own[0]));
}

int alertdoc_bound(const conf_t *conf, CURL *curl, const struct detector_bound *bd, struct alertdoc *d)
{
	struct alertdoc_labels ls;
	alertdoc_bound_labels(conf, bd->router, &ls);
	char t[32], r[32], lb[16], lo[16];
	char *summary = xasprintf("%s is bound by one CPU core", bd->router);
	char *desc = xasprintf("The busiest core of %s is at %s while the others average %s: its"
			       " WireGuard throughput (tx %s, rx %s) is at the ceiling of one core.",
		bd->router, alertdoc_pct(lb, sizeof(lb), bd->busiest),
		alertdoc_pct(lo, sizeof(lo), bd->others), alertdoc_mbps(t, sizeof(t), bd->tx_bps),
		alertdoc_mbps(r, sizeof(r), bd->rx_bps));
	return alertdoc_build(conf, curl, &ls, bd->router, summary, desc, NULL, d);
}

char *alertdoc_bound_key(const conf_t *conf, const char *router)
{
	struct alertdoc_labels ls;
	alertdoc_bound_labels(conf, router, &ls);
	char *key = alertdoc_key_of(&ls);
	free(ls.l);
	return key;
}

/* {{ $value | humanizePercentage }}, as Prometheus's template: v x 100 to 4 digits, "%". */
const char *alertdoc_humanize_pct(char *tmp, size_t size, double v)
{
	snprintf(tmp, size, "%.4g%%", v * 100);
	return tmp;
}

/* {{ $value | humanizeDuration }} of v seconds, as Prometheus's template: "27d 3h 4m 5s". */
const char *alertdoc_humanize_dur(char *tmp, size_t size, double v)
{
	static const char *const prefix[] = { "", "m", "u", "n", "p", "f", "a", "z", "y" };
	const char *sign = v < 0 ? "-" : "";
	double u = fabs(v);
	int64_t d = (int64_t)u;
	if (!isfinite(v) || v == 0)
		snprintf(tmp, size, "%.4g%s", v, v == 0 ? "s" : "");
	else if (d >= 86400)
		snprintf(tmp, size, "%s%" PRId64 "d %" PRId64 "h %" PRId64 "m %" PRId64 "s", sign, d / 86400,
			d / 3600 % 24, d / 60 % 60, d % 60);
	else if (d >= 3600)
		snprintf(tmp, size, "%s%" PRId64 "h %" PRId64 "m %" PRId64 "s", sign, d / 3600, d / 60 % 60,
			d % 60);
	else if (d >= 60)
		snprintf(tmp, size, "%s%" PRId64 "m %" PRId64 "s", sign, d / 60, d % 60);
	else if (u >= 1)
		snprintf(tmp, size, "%s%.4gs", sign, u);
	else {
		size_t k = 0;
		for (; k + 1 < sizeof(prefix) / sizeof(*prefix) && fabs(v) < 1; k++)
			v *= 1000;
		snprintf(tmp, size, "%.4g%ss", v, prefix[k]);
	}
	return tmp;
}

static void alertdoc_capacity_labels(
	const conf_t *conf, const char *name, const struct capacity *c, struct alertdoc_labels *ls)
{
	const char *const own[][2] = { { "alertname", name }, { "router", c->router },
		{ "interface", c->interface }, { "direction", c->direction }, { "severity", "warning" } };
	alertdoc_labels(conf, ls, c->router, own, sizeof(own) / sizeof(own[0]));
}

int alertdoc_capacity_low(const conf_t *conf, CURL *curl, const struct capacity *c, struct alertdoc *d)
{
	char h[32];
	struct alertdoc_labels ls;
	alertdoc_capacity_labels(conf, "WgwatchCapacityLow", c, &ls);
	char *summary = xasprintf(
		"%s %s %s: WireGuard capacity nearly used up", c->router, c->interface, c->direction);
	char *desc = xasprintf("The week's busy minutes leave %s of the %s capacity of %s on %s (0: at"
			       " its limit, the core holds the rate at its ceiling). See /api/v1/capacity.",
		alertdoc_humanize_pct(h, sizeof(h), c->headroom), c->direction, c->interface, c->router);
	return alertdoc_build(conf, curl, &ls, c->router, summary, desc, NULL, d);
}

/* left_s: seconds from now to the date, the rule's value. */
int alertdoc_capacity_soon(
	const conf_t *conf, CURL *curl, const struct capacity *c, double left_s, struct alertdoc *d)
{
	char t[64];
	struct alertdoc_labels ls;
	alertdoc_capacity_labels(conf, "WgwatchCapacityExhaustedSoon", c, &ls);
	char *summary = xasprintf("%s %s %s: WireGuard capacity runs out within 30 days", c->router,
		c->interface, c->direction);
	char *desc = xasprintf("At the trend of its daily peaks, the %s demand of %s on %s reaches its"
			       " capacity in %s. See /api/v1/capacity.",
		c->direction, c->interface, c->router, alertdoc_humanize_dur(t, sizeof(t), left_s));
	return alertdoc_build(conf, curl, &ls, c->router, summary, desc, NULL, d);
}
