/* SPDX-License-Identifier: Apache-2.0 */
/* frame: one router's polls around a version change as the detector's maths reads them, rates
 * per stream and loads per core, with the windows' plain statistics. Pure: it never touches
 * SQLite, a clock or a lock, and calls nothing above it (judge, matched and profcore call it). */
#include "config.h"
#include "detector/frame.h"
#include "detector/stats.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdlib.h>

size_t frame_nstreams(const struct frame *f)
{
	return 2 * f->nifs;
}

double frame_rate(const struct frame *f, size_t k, size_t s)
{
	return f->rate[k * frame_nstreams(f) + s];
}

double frame_load(const struct frame *f, size_t k, size_t c)
{
	return f->load[k * f->ncores + c];
}

size_t frame_wn(const struct frame_w *w)
{
	return w->to - w->from;
}

double frame_mean(
	const struct frame *f, const struct frame_w *w, size_t s, const bool *keep, double *sd, size_t *count)
{
	double sum = 0, sq = 0;
	size_t n = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double x = frame_rate(f, k, s);
		if (!isfinite(x) || (keep && !keep[k - w->from]))
			continue;
		sum += x;
		sq += x * x;
		n++;
	}
	double m = n ? sum / (double)n : NAN;
	if (sd)
		*sd = n > 1 ? sqrt(fmax(sq / (double)n - m * m, 0) * (double)n / (double)(n - 1)) : NAN;
	if (count)
		*count = n;
	return m;
}

double frame_rate_q(const struct frame *f, const struct frame_w *w, size_t s, const bool *keep, double q)
{
	double *v = xcalloc(frame_wn(w) + 1, sizeof(*v));
	size_t n = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double x = frame_rate(f, k, s);
		if (isfinite(x) && (!keep || keep[k - w->from]))
			v[n++] = x;
	}
	double r = stats_quantile(v, n, q);
	free(v);
	return r;
}

bool frame_core_pinned(const struct frame *f, const struct frame_w *w, size_t c, const struct frame_params *p)
{
	size_t sat = 0;
	for (size_t k = w->from; k < w->to; k++)
		sat += frame_load(f, k, c) >= p->saturated;
	return frame_wn(w) > 0 && (double)sat >= FRAME_PIN_SHARE * (double)frame_wn(w);
}

bool frame_flat(const struct frame *f, const struct frame_w *w, size_t s)
{
	double sd, mean = frame_mean(f, w, s, NULL, &sd, NULL);
	return mean > 0 && sd / mean <= FRAME_PIN_CV;
}
