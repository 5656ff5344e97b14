/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_evidence: the /metrics families of other fleets' evidence ([evidence] files,
 * detector/evidimport.h), one series per imported cohort (and direction), apart from the fleet's
 * own upgrade families. It must never label a series with a fleet id, nor mix the imported
 * figures into the fleet's own families. */
#include "config.h"
#include "web/metrics_int.h"

#include <math.h>

#include "detector/detector.h"
#include "detector/evidimport.h"
#include "detector/rollout.h"
#include "lib/text.h"

static void metrics_evidence_labels(buf_t *out, const char *name, const struct evidimport_cohort *k)
{
	metrics_puts(out, name);
	metrics_puts(out, "{from_version=\"");
	text_put_label(out, k->from_version);
	metrics_putc(out, '"');
	metrics_label(out, "to_version", k->to_version);
	metrics_label(out, "architecture", k->architecture ? k->architecture : "");
	metrics_label(out, "board", k->board ? k->board : "");
}

/* fam->off: 0 fleets (per cohort), 1 routers judged, 2 routers regressed, 3 median ratio
 * (per cohort and direction). */
void metrics_evidence_cohort(struct metrics_ctx *c, const struct metrics_family *fam)
{
	evidimport_set_t *s = rollout_evidence(detector_view_rollout(c->det));
	for (size_t i = 0; i < evidimport_ncohorts(s); i++) {
		const struct evidimport_cohort *k = evidimport_cohort(s, i);
		if (fam->off == 0) {
			metrics_evidence_labels(c->out, fam->name, k);
			metrics_puts(c->out, "} ");
			metrics_put_u64(c->out, k->fleets);
			metrics_putc(c->out, '\n');
			continue;
		}
		for (int d = 0; d < 2; d++) {
			const struct evidimport_dir *x = d == 0 ? &k->tx : &k->rx;
			double v = fam->off == 1 ? (double)x->judged
				: fam->off == 2  ? (double)x->regressed
						 : x->median;
			if (!isfinite(v))
				continue;
			metrics_evidence_labels(c->out, fam->name, k);
			metrics_label(c->out, "direction", d == 0 ? "tx" : "rx");
			metrics_puts(c->out, "} ");
			metrics_put_double(c->out, v);
			metrics_putc(c->out, '\n');
		}
	}
	evidimport_unref(s);
}
