/* SPDX-License-Identifier: Apache-2.0 */
/* alert_test: the Alertmanager push's decisions without a network: when a regression is due
 * (final, or held for [detector] hold), that a held one is not wanted and is rechecked when it
 * becomes due, that a firing one survives a restart of reached_ms, and that the pushed labels
 * are the rule's (router labels included, reserved and secret ones out). Includes alert.c. */
#include "config.h"
#include "web/alert.c"

#include "unit.h"

#define T0   1800000000000LL /* a wall clock, ms */
#define HOLD 300000          /* the default 5m */

static struct detector_verdict test_verdict(int64_t reached_ms, bool final)
{
	static char router[] = "ccr1009", iface[] = "wg0", from[] = "7.21.5", to[] = "7.22.3";
	return (struct detector_verdict){ .router = router,
		.interface = iface,
		.direction = "tx",
		.from_version = from,
		.to_version = to,
		.reached_ms = reached_ms,
		.final = final,
		.latest = true,
		.verdict = DETECTOR_REGRESSION,
		.method = DETECTOR_M_SATURATION,
		.ratio = 0.34,
		.before_bps = 380e6,
		.after_bps = 130e6,
		.before_load = 1,
		.after_load = 1,
		.before_n = 25,
		.after_n = 10 };
}

static void test_label(conf_router_t *r, const char *key, const char *value)
{
	r->labels = xreallocarray(r->labels, r->nlabels + 1, sizeof(*r->labels));
	r->labels[r->nlabels].key = xstrdup(key);
	r->labels[r->nlabels++].value = xstrdup(value);
}

/* One router, ccr1009, with labels ours must override or leave out, and a password. */
static conf_t *test_conf(int64_t hold_ms)
{
	conf_t *c = xcalloc(1, sizeof(*c));
	c->listen = xstrdup("127.0.0.1:9477");
	c->hold_ms = hold_ms;
	c->alert_resend_ms = 60000;
	c->routers = xcalloc(1, sizeof(*c->routers));
	c->nrouters = 1;
	conf_router_t *r = &c->routers[0];
	r->name = xstrdup("ccr1009");
	r->password = xstrdup("hunter2-secret");
	test_label(r, "site", "lab");
	test_label(r, "role", "hub");
	test_label(r, "severity", "page");  /* the rule's severity wins */
	test_label(r, "interface", "evil"); /* a family's label: left out, as in /metrics */
	test_label(r, "instance", "evil");  /* Prometheus's: left out too */
	return c;
}

static void test_conf_free(conf_t *c)
{
	conf_router_t *r = &c->routers[0];
	for (size_t k = 0; k < r->nlabels; k++) {
		free(r->labels[k].key);
		free(r->labels[k].value);
	}
	free(r->labels);
	free(r->name);
	free(r->password);
	free(c->routers);
	free(c->listen);
	free(c);
}

static alert_t *test_alert(const conf_t *c)
{
	alert_t *a = xcalloc(1, sizeof(*a));
	a->conf = c;
	a->curl = curl_easy_init();
	return a;
}

/* One round of alert_update for a single verdict. */
static void test_round(alert_t *a, const struct detector_verdict *v, int64_t now)
{
	for (size_t i = 0; i < a->n; i++)
		a->items[i].mark = false;
	a->recheck_ms = 0;
	alert_regression_want(a, v, now);
	for (size_t i = 0; i < a->n; i++)
		if (!a->items[i].mark && a->items[i].ends_ms == 0)
			a->items[i].ends_ms = now;
}

static void test_due(void)
{
	struct detector_verdict v = test_verdict(T0, false);
	CHECK(!alert_due(&v, T0, HOLD));
	CHECK(!alert_due(&v, T0 + HOLD - 1, HOLD));
	CHECK(alert_due(&v, T0 + HOLD, HOLD));
	CHECK(alert_due(&v, T0 + HOLD + 1, HOLD));
	CHECK(alert_due(&v, T0, 0)); /* hold = 0: at once */
	v.final = true;
	CHECK(alert_due(&v, T0, HOLD)); /* final: no more waiting */
	v = test_verdict(0, false);     /* reached unknown: long held */
	CHECK(alert_due(&v, T0, HOLD));
}

/* Held under hold: not wanted, rechecked at reached + hold; then wanted, startsAt = reached. */
static void test_held(void)
{
	conf_t *c = test_conf(HOLD);
	alert_t *a = test_alert(c);
	struct detector_verdict v = test_verdict(T0, false);
	test_round(a, &v, T0 + 1000);
	CHECK_INT(a->n, 0);
	CHECK_INT(a->recheck_ms, T0 + HOLD);
	test_round(a, &v, T0 + HOLD - 1);
	CHECK_INT(a->n, 0);
	test_round(a, &v, T0 + HOLD);
	CHECK_INT(a->n, 1);
	CHECK_INT(a->recheck_ms, 0);
	CHECK_INT(a->n ? a->items[0].starts_ms : 0, T0);
	/* The method changed: reached_ms restarts, but a firing alert stays firing. */
	v.reached_ms = T0 + HOLD + 5000;
	test_round(a, &v, T0 + HOLD + 6000);
	CHECK_INT(a->n, 1);
	CHECK_INT(a->n ? a->items[0].ends_ms : -1, 0);
	/* A final regression on a fresh push alerts at once. */
	alert_free(a);
	a = test_alert(c);
	v = test_verdict(T0, true);
	test_round(a, &v, T0);
	CHECK_INT(a->n, 1);
	alert_free(a);
	test_conf_free(c);
}

/* The labels are the rule's: alertname, the series' labels, the router's own, severity. */
static void test_labels(void)
{
	conf_t *c = test_conf(0);
	alert_t *a = test_alert(c);
	struct detector_verdict v = test_verdict(T0, false);
	test_round(a, &v, T0);
	CHECK_INT(a->n, 1);
	CHECK_STR(a->n ? a->items[0].key : NULL,
		"{\"alertname\":\"WgwatchUpgradeRegression\",\"direction\":\"tx\",\"from_version\":"
		"\"7.21.5\",\"interface\":\"wg0\",\"role\":\"hub\",\"router\":\"ccr1009\",\"severity\":"
		"\"warning\",\"site\":\"lab\",\"to_version\":\"7.22.3\"}");
	char *body = alert_body(a, T0);
	CHECK(body != NULL && strstr(body, "hunter2") == NULL);
	CHECK(body != NULL && strstr(body, "evil") == NULL);
	CHECK(body != NULL && strstr(body, "\"startsAt\":\"2027-01-15T08:00:00.000Z\"") != NULL);
	free(body);
	json_t *b = alert_bound_labels(a, "ccr1009");
	char *key = alert_key_of(b);
	CHECK_STR(key,
		"{\"alertname\":\"WgwatchSingleCoreBound\",\"role\":\"hub\",\"router\":"
		"\"ccr1009\",\"severity\":\"info\",\"site\":\"lab\"}");
	free(key);
	json_decref(b);
	alert_free(a);
	test_conf_free(c);
}

/* A regression with confounders is still a regression; the annotation names them, a clean one
 * has none. */
static void test_confounders(void)
{
	conf_t *c = test_conf(0);
	alert_t *a = test_alert(c);
	char list[] =
		"cpu frequency 1400 → 800 MHz across the upgrade\nether1 tx-queue-drop rose from 0 to 12/s";
	struct detector_verdict v = test_verdict(T0, true);
	v.confounders = list;
	test_round(a, &v, T0);
	CHECK_INT(a->n, 1);
	json_t *ann = a->n ? json_object_get(a->items[0].alert, "annotations") : NULL;
	CHECK_STR(json_string_value(json_object_get(ann, "confounders")),
		"cpu frequency 1400 → 800 MHz across the upgrade; ether1 tx-queue-drop rose from 0 to 12/s");
	CHECK(json_object_get(ann, "summary") != NULL);
	CHECK_STR(json_string_value(json_object_get(ann, "runbook_url")),
		"https://github.com/wgwatch/wgwatch/blob/main/docs/alerts.md#wgwatchupgraderegression");
	v.confounders = list + sizeof(list) - 1; /* "": a clean regression */
	test_round(a, &v, T0 + 1000);
	CHECK_INT(a->n, 1);
	ann = a->n ? json_object_get(a->items[0].alert, "annotations") : NULL;
	CHECK(ann != NULL && json_object_get(ann, "confounders") == NULL);
	alert_free(a);
	test_conf_free(c);
}

int main(void)
{
	test_due();
	test_held();
	test_labels();
	test_confounders();
	return unit_done("alert_test");
}
