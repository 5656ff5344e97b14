/* SPDX-License-Identifier: Apache-2.0 */
/* simprof: the frames of /tool/profile as RouterOS's REST server returns them (one JSON array,
 * .section per frame), from the router's CPU model: each core's load split into what decrypts,
 * encrypts and the rest, each part over the classifiers of its share list (profile_rx,
 * profile_tx, profile_work), so the cpuN rows are the loads /system/resource/cpu serves.
 * Pure: no I/O, no clock. */
#include "config.h"
#include "sim/simdiag_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define PROF_SAMPLES 16 /* model evaluations per core and frame at most */
#define PROF_ROWS    (SC_PROF_PARTS * SC_PROF_MAX + 1)
#define TOTAL_FRAMES 2 /* the first frames show only the total row (MAN-PROF) */

/* The classifier rows of one core (or of the whole router) for one frame. */
struct prof_rows {
	int n;
	const char *name[PROF_ROWS];
	double usage[PROF_ROWS];
	double load;
};

static void simprof_add(struct prof_rows *rows, const char *name, double usage)
{
	for (int i = 0; i < rows->n; i++)
		if (strcmp(rows->name[i], name) == 0) {
			rows->usage[i] += usage;
			return;
		}
	rows->name[rows->n] = name;
	rows->usage[rows->n++] = usage;
}

/* Core c's rows over simulated [a, b]: the mean of the model's parts, split by the shares. */
static void simprof_core(const simrouter_t *r, double a, double b, int c, struct prof_rows *rows)
{
	const struct sc_group *g = simrouter_group(r);
	const struct sc_state *st = simrouter_state(r, (a + b) / 2);
	double parts[SC_PROF_PARTS], mean[SC_PROF_PARTS] = { 0 };
	int k = g->cpu_sim ? (int)fmin(PROF_SAMPLES, fmax(1, ceil((b - a) / g->slot))) : 1;
	for (int i = 0; i < k; i++) {
		simrouter_core_parts(r, a + (b - a) * (i + 0.5) / k, c, parts);
		for (int j = 0; j < SC_PROF_PARTS; j++)
			mean[j] += parts[j] / k;
	}
	static const int order[SC_PROF_PARTS] = { SC_PROF_TX, SC_PROF_RX, SC_PROF_WORK };
	rows->n = 0;
	rows->load = 0;
	for (int o = 0; o < SC_PROF_PARTS; o++) {
		const struct sc_prof *p = &st->prof[order[o]];
		double part = mean[order[o]], left = 100;
		for (int i = 0; i < p->n && part > 0; i++) {
			simprof_add(rows, p->name[i], part * p->share[i] / 100);
			left -= p->share[i];
		}
		if (part > 0 && left > 0.001)
			simprof_add(rows, "unclassified", part * left / 100);
		rows->load += part;
	}
	rows->load = fmin(rows->load, 100);
}

static double simprof_round(double v)
{
	return round(v * 2) / 2; /* RouterOS shows halves: 0.5, 95.5 */
}

/* One record: {".section","cpu","name","usage"}; cpu < 0 leaves it out, -2 gives "". */
static void simprof_rec(buf_t *out, unsigned shape, int section, int cpu, const char *name, double usage)
{
	if (out->len > 1)
		buf_putc(out, ',');
	buf_printf(out, "{\".section\":\"%d\"", section);
	if (cpu >= 0)
		buf_printf(out, ",\"cpu\":\"%s%d\"", shape & SC_DIAG_CPU_NAME ? "cpu" : "", cpu);
	else if (cpu == -2)
		buf_puts(out, ",\"cpu\":\"\"");
	buf_printf(out, ",\"name\":\"%s\",\"usage\":\"%g%s\"}", name, simprof_round(usage),
		shape & SC_DIAG_USAGE_PERCENT ? "%" : "");
}

/* The rows of one core (or, cpu < 0, of the router as a whole) and what follows them. */
static void simprof_emit(buf_t *out, unsigned shape, int section, int cpu, const struct prof_rows *rows)
{
	char summary[16];
	for (int i = 0; i < rows->n; i++)
		if (simprof_round(rows->usage[i]) > 0)
			simprof_rec(out, shape, section, cpu, rows->name[i], rows->usage[i]);
	if (!(shape & SC_DIAG_NO_IDLE) && simprof_round(100 - rows->load) > 0)
		simprof_rec(out, shape, section, cpu, "idle", 100 - rows->load);
	if (cpu < 0) {
		simprof_rec(out, shape, section, -1, "total", rows->load);
	} else if (!(shape & SC_DIAG_NO_SUMMARY)) {
		snprintf(summary, sizeof(summary), "cpu%d", cpu);
		simprof_rec(out, shape, section, shape & SC_DIAG_SUMMARY_CPU ? -2 : -1, summary, rows->load);
	}
}

/* The whole router: each classifier's mean over the cores (as cpu-load is). */
static void simprof_total(const simrouter_t *r, double a, double b, struct prof_rows *sum)
{
	int cores = simrouter_group(r)->cores;
	struct prof_rows one;
	sum->n = 0;
	sum->load = 0;
	for (int c = 0; c < cores; c++) {
		simprof_core(r, a, b, c, &one);
		for (int i = 0; i < one.n; i++)
			simprof_add(sum, one.name[i], one.usage[i] / cores);
		sum->load += one.load / cores;
	}
}

static void simprof_frame(
	const simrouter_t *r, double a, double b, const struct simprof_args *args, int section, buf_t *out)
{
	const struct sc_group *g = simrouter_group(r);
	struct prof_rows rows, total = { .n = 0 };
	if (args->cpu == SIMPROF_TOTAL) {
		simprof_total(r, a, b, &rows);
		simprof_emit(out, g->diag_shape, section, -1, &rows);
		return;
	}
	for (int c = 0; c < g->cores; c++) {
		if (args->cpu != SIMPROF_ALL && args->cpu != c)
			continue;
		simprof_core(r, a, b, c, &rows);
		simprof_emit(out, g->diag_shape, section, c, &rows);
		total.load += rows.load / g->cores;
	}
	if (args->cpu == SIMPROF_ALL && (g->diag_shape & SC_DIAG_TOTAL_ROW))
		simprof_rec(out, g->diag_shape, section, -1, "total", total.load);
}

void simprof_reply(const simrouter_t *r, double t, double scale, const struct simprof_args *a, buf_t *out)
{
	int n = (int)fmax(1, floor(a->duration / a->interval + 1e-9));
	int blank = n > TOTAL_FRAMES ? TOTAL_FRAMES : n - 1;
	double span = a->interval * scale;
	buf_putc(out, '[');
	for (int i = 0; i < n; i++) {
		if (i < blank)
			simprof_rec(out, simrouter_group(r)->diag_shape, i, -1, "total", 0);
		else
			simprof_frame(r, t + i * span, t + (i + 1) * span, a, i, out);
	}
	buf_putc(out, ']');
}
