/* SPDX-License-Identifier: Apache-2.0 */
/* report: wgwatchd --report's tables (verdicts, cohorts, single-core bound routers, capacity
 * headroom) for a terminal, printed from a view. It only formats: it must never read the
 * database itself. */
#include "config.h"
#include "detector/report.h"
#include "detector/capacity.h"
#include "detector/outcome.h"
#include "lib/xmem.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "380.0M" style bits/s, "-" when unknown. */
static const char *report_fmt_bps(char *tmp, size_t size, double v)
{
	if (!isfinite(v))
		snprintf(tmp, size, "-");
	else if (v >= 1e9)
		snprintf(tmp, size, "%.2fG", v / 1e9);
	else if (v >= 1e6)
		snprintf(tmp, size, "%.1fM", v / 1e6);
	else
		snprintf(tmp, size, "%.0fk", v / 1e3);
	return tmp;
}

static const char *report_fmt_ratio(char *tmp, size_t size, double v)
{
	if (isfinite(v))
		snprintf(tmp, size, "%.2f", v);
	else
		snprintf(tmp, size, "-");
	return tmp;
}

static void report_verdict(FILE *out, const struct detector_verdict *v)
{
	char when[32] = "-", b[16], a[16], r[16];
	time_t t = (time_t)(v->upgraded_ms / 1000);
	struct tm tm;
	if (gmtime_r(&t, &tm) != NULL)
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	char *upg = xasprintf(
		"%s -> %s", v->from_version ? v->from_version : "?", v->to_version ? v->to_version : "?");
	fprintf(out, "%-24s %-10s %-3s %-20s %-16s %8s %8s %5s %-18s %s%s%s%s%s\n", v->router, v->interface,
		v->direction, upg, when, report_fmt_bps(b, sizeof(b), v->before_bps),
		report_fmt_bps(a, sizeof(a), v->after_bps), report_fmt_ratio(r, sizeof(r), v->ratio),
		outcome_method_name(v->method), outcome_name(v->verdict), v->hint ? " (hint)" : "",
		v->final ? "" : " (after window filling)", v->why[0] ? ": " : "", v->why);
	free(upg);
	/* its confounders, one indented line each (docs/detector.md) */
	for (const char *p = v->confounders, *nl; p != NULL && *p != '\0'; p = nl ? nl + 1 : "") {
		nl = strchr(p, '\n');
		fprintf(out, "    also moved: %.*s\n", (int)(nl ? nl - p : (ptrdiff_t)strlen(p)), p);
	}
}

static void report_cohort(FILE *out, const struct detector_cohort *c)
{
	char tx[16], rx[16];
	char *upg = xasprintf(
		"%s -> %s", c->from_version ? c->from_version : "?", c->to_version ? c->to_version : "?");
	fprintf(out, "%-20s %-8s %-20s %7zu %9zu %8zu %8s %8s\n", upg,
		c->architecture ? c->architecture : "?", c->board ? c->board : "?", c->routers, c->regressed,
		c->improved, report_fmt_ratio(tx, sizeof(tx), c->median_ratio_tx),
		report_fmt_ratio(rx, sizeof(rx), c->median_ratio_rx));
	free(upg);
}

static void report_bound(FILE *out, const struct detector_bound *b)
{
	char tx[16], rx[16];
	if (b->bound)
		fprintf(out, "%-24s %7.0f%% %7.0f%% %8s %8s\n", b->router, b->busiest * 100, b->others * 100,
			report_fmt_bps(tx, sizeof(tx), b->tx_bps), report_fmt_bps(rx, sizeof(rx), b->rx_bps));
}

/* A stream's capacity headroom: the date its daily peaks reach the capacity, else why not
 * ("unknown, because ..."), the reason the capacity itself is unknown first. */
static void report_capacity(FILE *out, const struct capacity *c)
{
	char cap[16], dem[16], head[16], when[128];
	const char *method = capacity_method_name(c->method);
	const char *why = method == NULL ? c->why : c->trend_why;
	time_t t = (time_t)(c->exhausted_ms / 1000);
	struct tm tm;
	if (c->exhausted_ms == CAPACITY_NEVER || gmtime_r(&t, &tm) == NULL)
		snprintf(when, sizeof(when), "unknown, because %s", why[0] ? why : "it cannot be told");
	else
		strftime(when, sizeof(when), "%Y-%m-%d", &tm);
	fprintf(out, "%-24s %-10s %-3s %8s %-9s %8s %8s %s\n", c->router, c->interface, c->direction,
		report_fmt_bps(cap, sizeof(cap), c->bps), method ? method : "-",
		report_fmt_bps(dem, sizeof(dem), c->p95_week),
		report_fmt_ratio(head, sizeof(head), c->headroom), when);
}

static void report_capacities(FILE *out, const detector_view_t *v)
{
	size_t n;
	const struct capacity *c = detector_view_capacity(v, &n);
	fprintf(out,
		"\nCapacity headroom (demand = p95 of the week's 5-minute rates, headroom = 1 - demand /"
		" capacity)\n%-24s %-10s %-3s %8s %-9s %8s %8s %s\n",
		"ROUTER", "INTERFACE", "DIR", "CAPACITY", "METHOD", "DEMAND", "HEADROOM", "EXHAUSTED (UTC)");
	for (size_t i = 0; i < n; i++)
		report_capacity(out, &c[i]);
}

void report_print(FILE *out, const detector_view_t *v)
{
	fprintf(out,
		"Upgrade verdicts (ratio = capacity after / before)\n%-24s %-10s %-3s %-20s "
		"%-16s %8s %8s %5s %-18s %s\n",
		"ROUTER", "INTERFACE", "DIR", "UPGRADE", "UPGRADED (UTC)", "BEFORE", "AFTER", "RATIO",
		"METHOD", "VERDICT");
	for (size_t i = 0; i < detector_view_nverdicts(v); i++)
		report_verdict(out, detector_view_verdict(v, i));
	fprintf(out, "\nCohorts\n%-20s %-8s %-20s %7s %9s %8s %8s %8s\n", "UPGRADE", "ARCH", "BOARD",
		"ROUTERS", "REGRESSED", "IMPROVED", "TX RATIO", "RX RATIO");
	for (size_t i = 0; i < detector_view_ncohorts(v); i++)
		report_cohort(out, detector_view_cohort(v, i));
	fprintf(out, "\nSingle-core bound (busiest core >= 95%%, others < 50%%)\n%-24s %8s %8s %8s %8s\n",
		"ROUTER", "BUSIEST", "OTHERS", "TX", "RX");
	size_t nb;
	const struct detector_bound *b = detector_view_bounds(v, &nb);
	for (size_t i = 0; i < nb; i++)
		report_bound(out, &b[i]);
	report_capacities(out, v);
}

void report_rollout(
	FILE *out, const char *router, const struct rollout_query *q, const struct rollout_result *res)
{
	char tx[16], rx[16];
	const char *arch = q->architecture ? q->architecture : "architecture unknown";
	fprintf(out, "rollout %s for %s (%s, %s): %s\n", q->version, router, arch,
		q->board ? q->board : "board unknown", rollout_decision_name(res->decision));
	fprintf(out,
		"cohort %s x %s x %s: %zu routers took it, %zu canaries, %zu judged final, %zu regressed; "
		"median ratio tx %s rx %s\n",
		q->version, q->architecture ? q->architecture : "(any architecture)",
		res->board ? res->board : "(any board)", res->routers, res->canaries, res->judged,
		res->regressed, report_fmt_ratio(tx, sizeof(tx), res->median_ratio_tx),
		report_fmt_ratio(rx, sizeof(rx), res->median_ratio_rx));
	for (size_t i = 0; i < res->nreasons; i++)
		fprintf(out, "  %-12s %s\n", rollout_kind_name(res->reasons[i].kind), res->reasons[i].text);
}
