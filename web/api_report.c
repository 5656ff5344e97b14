/* SPDX-License-Identifier: Apache-2.0 */
/* api_report: one upgrade's report, gathered once (store history, detector view) and written
 * as JSON or as Markdown from the same data. Probes and profiles are paired around the upgrade:
 * the newest that ended before it, the first that started after it. Router text is escaped
 * (JSON strings made valid UTF-8; Markdown table cells lose their pipes and newlines). */
#include "config.h"
#include "web/api_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detector/profdiff.h"
#include "lib/jsonw.h"
#include "lib/log.h"
#include "lib/text.h"
#include "lib/xmem.h"
#include "store/history.h"
#include "web/api.h"

#define REPORT_MAX       200 /* profiles and probes read per router */
#define REPORT_MAX_CORES 256 /* cores listed in the Markdown's per-core table */

struct report {
	struct history_upgrade u;
	profile_t **profiles;
	size_t nprofiles;
	probe_t **probes;
	size_t nprobes;
	const profile_t *before, *after;
	const probe_t *sel[4]; /* before/after x transmit/receive that exist */
	const char *side[4];
	size_t nsel;
	detector_view_t *view;
	const struct detector_verdict **v; /* this upgrade's verdicts */
	size_t nv;
	const struct detector_cohort *cohort, *chr; /* this board's, x86_64 CHRs' on the same upgrade */
	/* every board of this architecture on the same upgrade, this one's included */
	size_t arch_boards, arch_routers, arch_regressed, arch_improved;
};

static const probe_t *api_report_probe_pick(const struct report *r, const char *dir, bool after)
{
	const probe_t *best = NULL;
	for (size_t i = 0; i < r->nprobes; i++) {
		const probe_t *p = r->probes[i]; /* newest first */
		if (strcmp(p->direction, dir) != 0)
			continue;
		if (!after && p->time_ms < r->u.time_ms)
			return p;
		if (after && p->time_ms - p->duration_ms >= r->u.time_ms)
			best = p;
	}
	return best;
}

static void api_report_pair_probes(struct report *r)
{
	static const char *const dirs[] = { "transmit", "receive" };
	for (int side = 0; side < 2; side++)
		for (int d = 0; d < 2; d++) {
			const probe_t *p = api_report_probe_pick(r, dirs[d], side == 1);
			if (p != NULL) {
				r->sel[r->nsel] = p;
				r->side[r->nsel++] = side ? "after" : "before";
			}
		}
}

static bool api_report_same(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

static void api_report_detector(struct report *r, detector_t *detector)
{
	r->view = detector_view(detector);
	size_t n = r->view ? detector_view_nverdicts(r->view) : 0;
	r->v = xcalloc(n + 1, sizeof(*r->v));
	for (size_t i = 0; i < n; i++)
		if (detector_view_verdict(r->view, i)->upgrade_id == r->u.id)
			r->v[r->nv++] = detector_view_verdict(r->view, i);
	for (size_t i = 0; r->view && i < detector_view_ncohorts(r->view); i++) {
		const struct detector_cohort *c = detector_view_cohort(r->view, i);
		if (!api_report_same(c->from_version, r->u.from_version) ||
			!api_report_same(c->to_version, r->u.to_version))
			continue;
		if (api_report_same(c->architecture, r->u.architecture)) {
			r->arch_boards++;
			r->arch_routers += c->routers;
			r->arch_regressed += c->regressed;
			r->arch_improved += c->improved;
		}
		if (api_report_same(c->architecture, r->u.architecture) &&
			api_report_same(c->board, r->u.board))
			r->cohort = c;
		else if (api_report_same(c->architecture, "x86_64") && r->chr == NULL)
			r->chr = c;
	}
}

static void api_report_free(struct report *r)
{
	history_upgrade_clear(&r->u);
	history_profiles_free(r->profiles, r->nprofiles);
	history_probes_free(r->probes, r->nprobes);
	free(r->v);
	detector_view_free(r->view);
}

/* 0, 1 (no such upgrade) or -1 (logged). */
static int api_report_load(const struct api_report_req *req, int64_t id, struct report *r)
{
	char *cause = NULL;
	const char *db = req->conf->database;
	int rc = history_upgrade(db, id, &r->u, &cause);
	if (rc == 0 &&
		(history_profiles(db, r->u.router, REPORT_MAX, &r->profiles, &r->nprofiles, &cause) < 0 ||
			history_probes(db, r->u.router, REPORT_MAX, &r->probes, &r->nprobes, &cause) < 0))
		rc = -1;
	if (rc < 0) {
		log_warn("web: report API: %s", cause);
		free(cause);
		return -1;
	}
	if (rc == 1)
		return 1;
	r->before = profdiff_pick(r->profiles, r->nprofiles, r->u.time_ms, false);
	r->after = profdiff_pick(r->profiles, r->nprofiles, r->u.time_ms, true);
	api_report_pair_probes(r);
	api_report_detector(r, req->detector);
	return 0;
}

/* ---- JSON ---- */

static void api_report_json_probe(buf_t *b, const probe_t *p, const char *side)
{
	jsonw_object(b, NULL);
	jsonw_add(b, "side", side);
	api_put_probe_members(b, p);
	if (p->busiest_core_load >= 0)
		jsonw_real(b, "busiest_core_load", p->busiest_core_load, API_REAL_PREC);
	else
		jsonw_null(b, "busiest_core_load");
	jsonw_end_object(b);
}

static void api_report_json_cohort(buf_t *b, const char *key, const struct detector_cohort *c)
{
	if (c == NULL) {
		jsonw_null(b, key);
		return;
	}
	jsonw_object(b, key);
	jsonw_text(b, "architecture", c->architecture);
	jsonw_text(b, "board", c->board);
	jsonw_int(b, "routers", (int64_t)c->routers);
	jsonw_int(b, "regressed", (int64_t)c->regressed);
	jsonw_int(b, "improved", (int64_t)c->improved);
	jsonw_real(b, "median_ratio_tx", c->median_ratio_tx, API_REAL_PREC);
	jsonw_real(b, "median_ratio_rx", c->median_ratio_rx, API_REAL_PREC);
	jsonw_end_object(b);
}

/* Every board of the router's architecture on the same upgrade: whether the version hurts the
 * architecture or this board alone. */
static void api_report_json_arch(buf_t *b, const struct report *r)
{
	if (r->arch_boards == 0) {
		jsonw_null(b, "architecture_cohort");
		return;
	}
	jsonw_object(b, "architecture_cohort");
	jsonw_text(b, "architecture", r->u.architecture);
	jsonw_int(b, "boards", (int64_t)r->arch_boards);
	jsonw_int(b, "routers", (int64_t)r->arch_routers);
	jsonw_int(b, "regressed", (int64_t)r->arch_regressed);
	jsonw_int(b, "improved", (int64_t)r->arch_improved);
	jsonw_end_object(b);
}

/* The verdicts, probes and profiles of the upgrade. */
static void api_report_json_data(buf_t *b, const struct report *r)
{
	jsonw_array(b, "verdicts");
	for (size_t i = 0; i < r->nv; i++)
		api_put_verdict(b, r->v[i]);
	jsonw_end_array(b);
	jsonw_array(b, "probes");
	for (size_t i = 0; i < r->nsel; i++)
		api_report_json_probe(b, r->sel[i], r->side[i]);
	jsonw_end_array(b);
	jsonw_object(b, "profile");
	api_put_profile_rows(b, "before", r->before);
	api_put_profile_rows(b, "after", r->after);
	jsonw_end_object(b);
	char *diff = r->before && r->after ? profdiff_text(r->before, r->after) : NULL;
	jsonw_text(b, "profile_diff", diff);
	free(diff);
}

static void api_report_json(buf_t *b, const struct report *r)
{
	jsonw_object(b, NULL);
	jsonw_int(b, "upgrade_id", r->u.id);
	jsonw_text(b, "router", r->u.router);
	jsonw_text(b, "board", r->u.board);
	jsonw_text(b, "architecture", r->u.architecture);
	jsonw_text(b, "firmware", r->u.firmware);
	jsonw_text(b, "from_version", r->u.from_version);
	jsonw_text(b, "to_version", r->u.to_version);
	api_put_time(b, "upgraded_at", r->u.time_ms);
	api_report_json_data(b, r);
	api_report_json_cohort(b, "cohort", r->cohort);
	api_report_json_cohort(b, "chr_cohort", r->chr);
	api_report_json_arch(b, r);
	jsonw_end_object(b);
}

/* ---- Markdown ---- */

/* Router text in a Markdown line or table cell: valid UTF-8, no pipe, no line break. */
static void api_report_md_text(buf_t *out, const char *s)
{
	buf_t b;
	buf_init(&b);
	text_put_utf8(&b, s ? s : "?");
	for (size_t i = 0; i < b.len; i++)
		buf_putc(out,
			b.data[i] == '|'                                 ? '/'
				: b.data[i] == '\n' || b.data[i] == '\r' ? ' '
									 : b.data[i]);
	buf_free(&b);
}

static void api_report_md_time(buf_t *out, int64_t ms)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char tmp[32];
	if (ms > 0 && gmtime_r(&t, &tm) && strftime(tmp, sizeof(tmp), "%Y-%m-%d %H:%M:%S UTC", &tm))
		buf_puts(out, tmp);
	else
		buf_puts(out, "?");
}

static void api_report_md_mbps(buf_t *out, double bps)
{
	if (isfinite(bps) && bps >= 0)
		buf_printf(out, "%.1f Mbit/s", bps / 1e6);
	else
		buf_puts(out, "-");
}

static void api_report_md_pct(buf_t *out, double v)
{
	if (isfinite(v) && v >= 0)
		buf_printf(out, "%.0f %%", v * 100);
	else
		buf_puts(out, "-");
}

static void api_report_md_head(buf_t *out, const struct report *r)
{
	buf_puts(out, "# WireGuard throughput after an upgrade: ");
	api_report_md_text(out, r->u.router);
	buf_puts(out, ", RouterOS ");
	api_report_md_text(out, r->u.from_version);
	buf_puts(out, " \xe2\x86\x92 ");
	api_report_md_text(out, r->u.to_version);
	buf_puts(out, "\n\n- Router: ");
	api_report_md_text(out, r->u.router);
	buf_puts(out, "\n- Board: ");
	api_report_md_text(out, r->u.board);
	buf_puts(out, ", architecture ");
	api_report_md_text(out, r->u.architecture);
	buf_puts(out, ", RouterBOOT firmware ");
	api_report_md_text(out, r->u.firmware);
	buf_puts(out, "\n- Upgraded: ");
	api_report_md_time(out, r->u.time_ms);
	buf_puts(out, "\n\n");
}

static void api_report_md_verdicts(buf_t *out, const struct report *r)
{
	buf_puts(out, "## Verdicts\n\n");
	if (r->nv == 0) {
		buf_puts(out, "No verdict yet.\n\n");
		return;
	}
	buf_puts(out,
		"| Interface | Direction | Verdict | Method | Before | After | Ratio | Busiest core before | after |\n"
		"|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nv; i++) {
		const struct detector_verdict *v = r->v[i];
		buf_puts(out, "| ");
		api_report_md_text(out, v->interface);
		buf_printf(out, " | %s | %s | %s | ", v->direction, outcome_name(v->verdict),
			outcome_method_name(v->method));
		api_report_md_mbps(out, v->before_bps);
		buf_puts(out, " | ");
		api_report_md_mbps(out, v->after_bps);
		buf_puts(out, " | ");
		if (isfinite(v->ratio))
			buf_printf(out, "%.2f", v->ratio);
		else
			buf_puts(out, "-");
		buf_puts(out, " | ");
		api_report_md_pct(out, v->before_load);
		buf_puts(out, " | ");
		api_report_md_pct(out, v->after_load);
		buf_puts(out, " |\n");
	}
	buf_puts(out, "\n");
}

static void api_report_md_probes(buf_t *out, const struct report *r)
{
	buf_puts(out, "## Fixed-rate probe (bandwidth-test through the tunnel)\n\n");
	if (r->nsel == 0) {
		buf_puts(out, "No probe on either side of the upgrade.\n\n");
		return;
	}
	buf_puts(out,
		"| Side | Time | Direction | Measured | Offered | Delivered | Lost packets (last second) | Busiest core |\n"
		"|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < r->nsel; i++) {
		const probe_t *p = r->sel[i];
		buf_printf(out, "| %s | ", r->side[i]);
		api_report_md_time(out, p->time_ms);
		buf_printf(out, " | %s | %s | ", p->configured, p->direction);
		api_report_md_mbps(out, p->offered_bps);
		buf_puts(out, " | ");
		api_report_md_mbps(out, p->delivered_bps);
		if (p->lost_packets >= 0)
			buf_printf(out, " | %lld | ", (long long)p->lost_packets);
		else
			buf_puts(out, " | - | ");
		api_report_md_pct(out, p->busiest_core_load);
		buf_puts(out, " |\n");
	}
	buf_puts(out, "\n");
}

/* A core's load in p (0..1) from its summary row; -1 when p or the row is missing. */
static double api_report_core_load(const profile_t *p, int cpu)
{
	const struct profile_row *t = p != NULL ? profile_find(p, cpu, "total") : NULL;
	return t != NULL ? t->usage / 100 : -1;
}

/* Each core's load during the profile before and the one after. */
static void api_report_md_cores(buf_t *out, const struct report *r)
{
	int max = -1;
	for (int s = 0; s < 2; s++) {
		const profile_t *p = s ? r->after : r->before;
		for (size_t i = 0; p != NULL && i < p->nrows; i++)
			if (p->rows[i].cpu > max && p->rows[i].cpu < REPORT_MAX_CORES)
				max = p->rows[i].cpu;
	}
	if (max < 0)
		return;
	buf_puts(out, "Load of each core during the profiles:\n\n| Core | Before | After |\n|---|---|---|\n");
	for (int k = 0; k <= max; k++) {
		buf_printf(out, "| cpu%d | ", k);
		api_report_md_pct(out, api_report_core_load(r->before, k));
		buf_puts(out, " | ");
		api_report_md_pct(out, api_report_core_load(r->after, k));
		buf_puts(out, " |\n");
	}
	buf_puts(out, "\n");
}

static void api_report_md_profile(buf_t *out, const struct report *r)
{
	buf_puts(out, "## CPU profile (/tool/profile cpu=all)\n\n");
	char *diff = r->before && r->after ? profdiff_text(r->before, r->after) : NULL;
	if (diff == NULL) {
		buf_printf(out, "No profile %s the upgrade.\n\n",
			r->before          ? "after"
				: r->after ? "before"
					   : "on either side of");
	} else {
		buf_puts(out, "Share of the busiest core, before \xe2\x86\x92 after: ");
		api_report_md_text(out, diff);
		buf_puts(out, ".\n\n");
		free(diff);
	}
	api_report_md_cores(out, r);
}

static void api_report_md_cohort(buf_t *out, const struct report *r)
{
	buf_puts(out, "## Cohort\n\n");
	if (r->cohort == NULL) {
		buf_puts(out, "No other verdict on this board and upgrade yet.\n");
	} else {
		buf_printf(out,
			"%zu router%s of this board and architecture took the same upgrade; %zu regressed, %zu improved.\n",
			r->cohort->routers, r->cohort->routers == 1 ? "" : "s", r->cohort->regressed,
			r->cohort->improved);
	}
	if (r->arch_boards > 1)
		buf_printf(out,
			"All %s routers on the same upgrade, %zu boards: %zu, %zu regressed, %zu improved.\n",
			r->u.architecture, r->arch_boards, r->arch_routers, r->arch_regressed,
			r->arch_improved);
	if (r->chr != NULL)
		buf_printf(out, "x86_64 CHRs on the same upgrade: %zu, %zu regressed%s.\n", r->chr->routers,
			r->chr->regressed, r->chr->regressed == 0 ? " (they held)" : "");
	else
		buf_puts(out, "No x86_64 CHR on the same upgrade to compare with.\n");
}

static void api_report_md(buf_t *out, const struct report *r)
{
	api_report_md_head(out, r);
	api_report_md_verdicts(out, r);
	api_report_md_probes(out, r);
	api_report_md_profile(out, r);
	api_report_md_cohort(out, r);
}

unsigned api_report(const struct api_report_req *req, buf_t *out, bool *markdown)
{
	char *end = NULL;
	long long id = strtoll(req->rest, &end, 10);
	*markdown = end != req->rest && strcmp(end, "/report.md") == 0;
	if (end == req->rest || id <= 0 || (!*markdown && strcmp(end, "/report") != 0) || req->conf == NULL ||
		req->conf->database == NULL) {
		buf_puts(out, "{\"error\":\"not found\"}\n");
		*markdown = false;
		return 404;
	}
	struct report r = { .nsel = 0 };
	int rc = api_report_load(req, id, &r);
	if (rc != 0) {
		buf_puts(out,
			rc > 0 ? "{\"error\":\"no such upgrade\"}\n"
			       : "{\"error\":\"the database cannot be read now; see the daemon log\"}\n");
		api_report_free(&r);
		*markdown = false;
		return rc > 0 ? 404 : 500;
	}
	if (*markdown) {
		api_report_md(out, &r);
	} else {
		api_report_json(out, &r);
		buf_putc(out, '\n');
	}
	api_report_free(&r);
	return 200;
}
