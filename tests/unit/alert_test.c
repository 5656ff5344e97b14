/* SPDX-License-Identifier: Apache-2.0 */
/* alert_test: the Alertmanager push's decisions without a network: when a regression is due
 * (final, or held for [detector] hold), that a held one is not wanted and is rechecked when it
 * becomes due, that a firing one survives a restart of reached_ms, and that the pushed labels
 * are the rule's (router labels included, reserved and secret ones out); the capacity alerts'
 * conditions, their `for` by the push's clock and their resolution, and Prometheus's humanize
 * templates. Includes alert.c. */
#include "config.h"
#include "web/alert.c"

#include "lib/jsonr.h"

#include "unit.h"
#include "unitconf.h"

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

/* One router, ccr1009, with labels ours must override or leave out, and a password. */
static conf_t *test_conf(int64_t hold_ms)
{
	conf_t *c = xcalloc(1, sizeof(*c));
	c->listen = xstrdup("127.0.0.1:9477");
	c->hold_ms = hold_ms;
	c->alert_resend_ms = 60000;
	conf_router_t *r = unitconf_router(c, "ccr1009");
	r->password = xstrdup("hunter2-secret");
	unitconf_label(r, "site", "lab");
	unitconf_label(r, "role", "hub");
	unitconf_label(r, "severity", "page");  /* the rule's severity wins */
	unitconf_label(r, "interface", "evil"); /* a family's label: left out, as in /metrics */
	unitconf_label(r, "instance", "evil");  /* Prometheus's: left out too */
	return c;
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
	conf_free(c);
}

/* Annotation name of the i-th alert, read back from its JSON with lib/jsonr (NULL: none); valid
 * until the next call; a NULL: frees what the last call read. */
static const char *test_ann(const alert_t *a, size_t i, const char *name)
{
	static jsonr_t *last;
	jsonr_destroy(last);
	last = NULL;
	if (a == NULL || i >= a->n)
		return NULL;
	char *text = xasprintf("%s}", a->items[i].json);
	last = jsonr_create();
	const jsonr_node_t *j = jsonr_parse(last, text, strlen(text));
	free(text); /* the tree keeps copies of its strings */
	return jsonr_str(jsonr_get(jsonr_get(j, "annotations"), name));
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
	char *key = alertdoc_bound_key(c, "ccr1009");
	CHECK_STR(key,
		"{\"alertname\":\"WgwatchSingleCoreBound\",\"role\":\"hub\",\"router\":"
		"\"ccr1009\",\"severity\":\"info\",\"site\":\"lab\"}");
	free(key);
	alert_free(a);
	conf_free(c);
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
	CHECK_STR(test_ann(a, 0, "confounders"),
		"cpu frequency 1400 → 800 MHz across the upgrade; ether1 tx-queue-drop rose from 0 to 12/s");
	CHECK(test_ann(a, 0, "summary") != NULL);
	CHECK_STR(test_ann(a, 0, "runbook_url"),
		"https://github.com/wgwatch/wgwatch/blob/main/docs/alerts.md#wgwatchupgraderegression");
	v.confounders = list + sizeof(list) - 1; /* "": a clean regression */
	test_round(a, &v, T0 + 1000);
	CHECK_INT(a->n, 1);
	CHECK(test_ann(a, 0, "summary") != NULL && test_ann(a, 0, "confounders") == NULL);
	alert_free(a);
	conf_free(c);
}

#define HOUR 3600000LL
#define DAY  (24 * HOUR)

static struct capacity test_cap(const char *router, double headroom, int64_t exhausted_ms)
{
	static char iface[] = "wg0";
	return (struct capacity){ .router = (char *)router,
		.interface = iface,
		.direction = "tx",
		.method = isfinite(headroom) ? CAPACITY_PINNED : CAPACITY_UNKNOWN,
		.headroom = headroom,
		.exhausted_ms = exhausted_ms };
}

/* One round of alert_update for the capacities c[0..n). */
static void test_cap_round(alert_t *a, const struct capacity *c, size_t n, int64_t now)
{
	for (size_t i = 0; i < a->n; i++)
		a->items[i].mark = false;
	a->recheck_ms = 0;
	alert_capacities(a, c, n, now);
	alert_pending_sweep(a);
	for (size_t i = 0; i < a->n; i++)
		if (!a->items[i].mark && a->items[i].ends_ms == 0)
			a->items[i].ends_ms = now;
}

/* WgwatchCapacityLow: pending for capacity_for, then firing since it began to hold, with the
 * rule's labels and annotations; resolved when it clears; a break starts the hold afresh. */
static void test_capacity_low(void)
{
	conf_t *conf = test_conf(0);
	conf->alert_capacity_for_ms = HOUR;
	alert_t *a = test_alert(conf);
	struct capacity c[2] = { test_cap("ccr1009", 0, CAPACITY_NEVER),
		test_cap("gone-router", 0, CAPACITY_NEVER) }; /* not configured: as /metrics, none */
	test_cap_round(a, c, 2, T0);
	CHECK_INT(a->n, 0);
	CHECK_INT(a->recheck_ms, T0 + HOUR);
	test_cap_round(a, c, 2, T0 + HOUR - 1);
	CHECK_INT(a->n, 0);
	test_cap_round(a, c, 2, T0 + HOUR);
	CHECK_INT(a->n, 1);
	CHECK_INT(a->recheck_ms, 0);
	CHECK_INT(a->n ? a->items[0].starts_ms : 0, T0);
	CHECK_STR(a->n ? a->items[0].key : NULL,
		"{\"alertname\":\"WgwatchCapacityLow\",\"direction\":\"tx\",\"interface\":\"wg0\","
		"\"role\":\"hub\",\"router\":\"ccr1009\",\"severity\":\"warning\",\"site\":\"lab\"}");
	CHECK_STR(test_ann(a, 0, "summary"), "ccr1009 wg0 tx: WireGuard capacity nearly used up");
	CHECK_STR(test_ann(a, 0, "description"),
		"The week's busy minutes leave 0% of the tx capacity of wg0 on ccr1009 (0: at its limit,"
		" the core holds the rate at its ceiling). See /api/v1/capacity.");
	CHECK_STR(test_ann(a, 0, "runbook_url"),
		"https://github.com/wgwatch/wgwatch/blob/main/docs/alerts.md#wgwatchcapacitylow");
	c[0].headroom = 0.0523; /* still low: the same alert, its figure moved */
	test_cap_round(a, c, 1, T0 + 2 * HOUR);
	CHECK_INT(a->n, 1);
	CHECK(strstr(test_ann(a, 0, "description") ? test_ann(a, 0, "description") : "", "leave 5.23% of") !=
		NULL);
	c[0].headroom = 0.10; /* the rule's < 0.10 no longer holds: resolved at once */
	test_cap_round(a, c, 1, T0 + 3 * HOUR);
	CHECK_INT(a->n ? a->items[0].ends_ms : 0, T0 + 3 * HOUR);
	CHECK_INT(a->npend, 0);
	c[0].headroom = 0.02; /* low again: a new hold */
	test_cap_round(a, c, 1, T0 + 4 * HOUR);
	CHECK_INT(a->recheck_ms, T0 + 5 * HOUR);
	c[0] = test_cap("ccr1009", NAN, CAPACITY_NEVER); /* unknown: absent, as the series */
	test_cap_round(a, c, 1, T0 + 4 * HOUR + 1000);
	CHECK_INT(a->npend, 0);
	c[0] = test_cap("ccr1009", 0.02, CAPACITY_NEVER);
	test_cap_round(a, c, 1, T0 + 5 * HOUR);
	CHECK_INT(a->recheck_ms, T0 + 6 * HOUR); /* the break restarted the hold */
	alert_free(a);
	conf_free(conf);
}

/* WgwatchCapacityExhaustedSoon: a date within 30 days, held like the other; none further out,
 * none without a date; its value in the description as humanizeDuration writes it. */
static void test_capacity_soon(void)
{
	conf_t *conf = test_conf(0);
	conf->alert_capacity_for_ms = 0; /* at once */
	alert_t *a = test_alert(conf);
	struct capacity c[3] = { test_cap("ccr1009", 0.5, T0 + 20 * DAY),
		test_cap("ccr1009", 0.5, T0 + 31 * DAY), test_cap("ccr1009", 0.5, CAPACITY_NEVER) };
	c[1].direction = "rx";
	static char wg1[] = "wg1";
	c[2].interface = wg1;
	test_cap_round(a, c, 3, T0);
	CHECK_INT(a->n, 1);
	CHECK_INT(a->n ? a->items[0].starts_ms : 0, T0);
	CHECK(a->n && strstr(a->items[0].key, "\"alertname\":\"WgwatchCapacityExhaustedSoon\"") != NULL);
	CHECK(a->n && strstr(a->items[0].key, "\"direction\":\"tx\"") != NULL);
	CHECK_STR(test_ann(a, 0, "summary"), "ccr1009 wg0 tx: WireGuard capacity runs out within 30 days");
	CHECK_STR(test_ann(a, 0, "description"),
		"At the trend of its daily peaks, the tx demand of wg0 on ccr1009 reaches its capacity in"
		" 20d 0h 0m 0s. See /api/v1/capacity.");
	CHECK_STR(test_ann(a, 0, "runbook_url"),
		"https://github.com/wgwatch/wgwatch/blob/main/docs/alerts.md#wgwatchcapacityexhaustedsoon");
	c[0].exhausted_ms = CAPACITY_NEVER; /* the trend flattened */
	test_cap_round(a, c, 3, T0 + 1000);
	CHECK_INT(a->n ? a->items[0].ends_ms : 0, T0 + 1000);
	alert_free(a);
	conf_free(conf);
}

/* Prometheus's humanizePercentage and humanizeDuration (template.go), which the rules use. */
static void test_humanize(void)
{
	char b[64];
	CHECK_STR(alertdoc_humanize_pct(b, sizeof(b), 0), "0%");
	CHECK_STR(alertdoc_humanize_pct(b, sizeof(b), 0.0523), "5.23%");
	CHECK_STR(alertdoc_humanize_pct(b, sizeof(b), 0.123456), "12.35%");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), 0), "0s");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), 59.5), "59.5s");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), 61), "1m 1s");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), 3661.7), "1h 1m 1s");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), 2385421.9), "27d 14h 37m 1s");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), -90061), "-1d 1h 1m 1s");
	CHECK_STR(alertdoc_humanize_dur(b, sizeof(b), 0.25), "250ms");
}

int main(void)
{
	test_due();
	test_held();
	test_labels();
	test_confounders();
	test_capacity_low();
	test_capacity_soon();
	test_humanize();
	test_ann(NULL, 0, NULL);
	return unit_done("alert_test");
}
