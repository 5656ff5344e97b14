/* SPDX-License-Identifier: Apache-2.0 */
/* matched: the matched-rate method (docs/detector.md, "Matched rates"). Where the rates hold
 * steady, a slope cannot be fitted, but the load of each core at the same rates before and after
 * still says whether the work per bit changed. It must never name a core the stream's that no
 * fit, pinned core or profile placed, and never give a ratio more alarming than the least
 * alarming reading of the loads. Pure: no SQLite, no clock, no lock. */
#include "config.h"
#include "detector/matched.h"
#include "detector/frame.h"
#include "detector/profcore.h"
#include "detector/stats.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATCHED_Q_LO     0.10 /* a stream's rates overlap between these quantiles of each window */
#define MATCHED_Q_HI     0.90
#define MATCHED_SLACK    0.02 /* ... widened by this share of its median (a steady rate's jitter) */
#define MATCHED_RATE     0.05 /* the matched polls' mean rates may differ by this share at most */
#define MATCHED_BLOCK    5    /* consecutive matched polls averaged into one for the noise */
#define MATCHED_BLOCKS   20   /* blocks a window needs at least: 100 polls, as a fit */
#define MATCHED_FLOOR    0.03 /* a core's load changed: by this much of a core at least (whole %) ... */
#define MATCHED_SIGMAS   4.0  /* ... and this many standard errors */
#define MATCHED_STEADY   2.0  /* "unchanged" holds within this many standard errors */
#define MATCHED_TOTAL    0.05 /* the busy cores in total changed: by this much of a core at least */
#define MATCHED_PROF_ABS 0.05 /* a profile's load on a core agrees with the matched polls' within */
#define MATCHED_PROF_REL 0.20 /* ... this much of a core, or this share of the load */
#define MATCHED_TUNNEL   20.0 /* a profile puts a core on the tunnel's path: this % of its load */

struct matched_core { /* a core's load on the matched polls */
	double before, after, delta, se;
};

struct matched_set { /* the polls compared and what they show */
	bool *keep;  /* [poll] of the frame: a matched poll */
	size_t nb, na;
	double xb, xa;             /* the stream's mean rate on them */
	struct matched_core *core; /* [ncores + 1]: the last is the cores in total */
};

/* Mark the polls of b and a where every stream with traffic is within the rates both windows
 * share. False when a stream's rates do not overlap. */
static bool matched_polls(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	const struct frame_params *p, bool *keep)
{
	for (size_t k = 0; k < f->npolls; k++)
		keep[k] = k >= b->from && k < a->to;
	for (size_t s = 0; s < 2 * f->nifs; s++) {
		double mb = frame_rate_q(f, b, s, NULL, 0.5), ma = frame_rate_q(f, a, s, NULL, 0.5);
		if (!(mb >= p->min_bps) && !(ma >= p->min_bps))
			continue; /* no traffic to speak of on either side: it loads no core */
		double slack = MATCHED_SLACK * fmax(mb, ma);
		double lo = fmax(frame_rate_q(f, b, s, NULL, MATCHED_Q_LO),
				    frame_rate_q(f, a, s, NULL, MATCHED_Q_LO)) -
			slack;
		double hi = fmin(frame_rate_q(f, b, s, NULL, MATCHED_Q_HI),
				    frame_rate_q(f, a, s, NULL, MATCHED_Q_HI)) +
			slack;
		if (!(lo <= hi))
			return false;
		for (size_t k = 0; k < f->npolls; k++) {
			double x = frame_rate(f, k, s);
			keep[k] = keep[k] && x >= lo && x <= hi;
		}
	}
	return true;
}

/* The mean of v over w's kept polls into *mean and its standard error by blocks of consecutive
 * kept polls (loads of neighbouring polls are not independent). Returns the kept polls. */
static size_t matched_mean(
	const struct frame *f, const struct frame_w *w, const bool *keep, size_t c, double *mean, double *se)
{
	double sum = 0, bsum = 0, bsq = 0, acc = 0;
	size_t n = 0, in = 0, nbl = 0;
	for (size_t k = w->from; k < w->to; k++) {
		double l = 0;
		if (c < f->ncores)
			l = frame_load(f, k, c);
		else
			for (size_t i = 0; i < f->ncores; i++)
				l += frame_load(f, k, i);
		if (!keep[k] || !isfinite(l))
			continue;
		sum += l, n++, acc += l;
		if (++in == MATCHED_BLOCK) {
			bsum += acc / MATCHED_BLOCK, bsq += acc * acc / (MATCHED_BLOCK * MATCHED_BLOCK);
			nbl++, in = 0, acc = 0;
		}
	}
	*mean = n ? sum / (double)n : NAN;
	double bm = nbl ? bsum / (double)nbl : NAN;
	*se = nbl > 1 ? sqrt(fmax(bsq / (double)nbl - bm * bm, 0) / (double)(nbl - 1)) : NAN;
	return nbl;
}

static double matched_mean_rate(const struct frame *f, const struct frame_w *w, const bool *keep, size_t s)
{
	double sum = 0;
	size_t n = 0;
	for (size_t k = w->from; k < w->to; k++)
		if (keep[k] && isfinite(frame_rate(f, k, s)))
			sum += frame_rate(f, k, s), n++;
	return n ? sum / (double)n : NAN;
}

/* Every stream with traffic holds the same mean rate on the matched polls of both windows. */
static bool matched_same_rates(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	const bool *keep, const struct frame_params *p)
{
	for (size_t s = 0; s < 2 * f->nifs; s++) {
		double xb = matched_mean_rate(f, b, keep, s), xa = matched_mean_rate(f, a, keep, s);
		if (!(xb >= p->min_bps) && !(xa >= p->min_bps))
			continue;
		if (!(fabs(xa - xb) <= MATCHED_RATE * fmax(xa, xb)))
			return false;
	}
	return true;
}

static void matched_free(struct matched_set *m)
{
	if (m == NULL)
		return;
	free(m->keep);
	free(m->core);
	free(m);
}

/* The matched polls of the frame and every core's load on them. NULL with *why when the rates
 * do not overlap, or too few polls do. */
static struct matched_set *matched_build(const struct frame *f, const struct frame_w *b,
	const struct frame_w *a, size_t s, const struct frame_params *p, const char **why)
{
	struct matched_set *m = xcalloc(1, sizeof(*m));
	m->keep = xcalloc(f->npolls + 1, sizeof(bool));
	m->core = xcalloc(f->ncores + 2, sizeof(*m->core));
	*why = "its rates before and after the upgrade do not overlap";
	if (!matched_polls(f, b, a, p, m->keep))
		goto fail;
	*why = "too few polls at the same rates before and after the upgrade";
	for (size_t c = 0; c <= f->ncores; c++) {
		struct matched_core *mc = &m->core[c];
		double seb, sea;
		m->nb = matched_mean(f, b, m->keep, c, &mc->before, &seb);
		m->na = matched_mean(f, a, m->keep, c, &mc->after, &sea);
		if (m->nb < MATCHED_BLOCKS || m->na < MATCHED_BLOCKS ||
			m->nb * MATCHED_BLOCK < p->min_samples || m->na * MATCHED_BLOCK < p->min_samples)
			goto fail;
		mc->delta = mc->after - mc->before;
		mc->se = sqrt(seb * seb + sea * sea);
	}
	*why = "the rates it was compared at differ too much";
	if (!matched_same_rates(f, b, a, m->keep, p))
		goto fail;
	m->xb = matched_mean_rate(f, b, m->keep, s);
	m->xa = matched_mean_rate(f, a, m->keep, s);
	return m;
fail:
	matched_free(m);
	return NULL;
}

/* The cores judged: those of the stream (on), else every core. */
static bool matched_counts(const bool *on, bool known, size_t c)
{
	return !known || on[c];
}

/* r->why, as printf would say it, cut to fit. */
__attribute__((format(printf, 2, 3))) static void matched_say(struct frame_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

static void matched_fill(
	const struct matched_set *m, size_t c, enum detector_outcome v, double ratio, struct frame_result *r)
{
	r->verdict = v;
	r->method = v == DETECTOR_INSUFFICIENT ? DETECTOR_M_NONE : DETECTOR_M_MATCHED;
	r->ratio = v == DETECTOR_INSUFFICIENT ? NAN : ratio;
	r->before_bps = m->xb;
	r->after_bps = m->xa;
	r->before_load = m->core[c].before;
	r->after_load = m->core[c].after;
	r->rse = NAN;
	r->why[0] = '\0';
	if (v != DETECTOR_INSUFFICIENT)
		snprintf(r->cores, sizeof(r->cores), "%zu", c);
}

/* Whether core c's load rose at the same rates by more than the noise. */
static bool matched_up(const struct matched_set *m, size_t c)
{
	return m->core[c].delta > fmax(MATCHED_FLOOR, MATCHED_SIGMAS * m->core[c].se);
}

/* The core of the stream (or of all, when its cores are not known) that is busier at the same
 * rates by more than the noise, the most of them; SIZE_MAX when none. */
static size_t matched_busier(const struct frame *f, const struct matched_set *m, const bool *on, bool known)
{
	size_t up = SIZE_MAX;
	for (size_t c = 0; c < f->ncores; c++) {
		const struct matched_core *mc = &m->core[c];
		if (matched_counts(on, known, c) && matched_up(m, c) &&
			(up == SIZE_MAX || mc->delta > m->core[up].delta))
			up = c;
	}
	return up;
}

/* Whether no core judged (nor, when they are not known, the cores in total) moved beyond the
 * noise; *busiest the busiest of them before. */
static bool matched_steady(
	const struct frame *f, const struct matched_set *m, const bool *on, bool known, size_t *busiest)
{
	bool steady = true;
	*busiest = SIZE_MAX;
	for (size_t c = 0; c < f->ncores; c++) {
		const struct matched_core *mc = &m->core[c];
		if (!matched_counts(on, known, c))
			continue;
		steady = steady && fabs(mc->delta) <= fmax(MATCHED_FLOOR, MATCHED_STEADY * mc->se);
		if (*busiest == SIZE_MAX || mc->before > m->core[*busiest].before)
			*busiest = c;
	}
	const struct matched_core *t = &m->core[f->ncores];
	return steady && (known || fabs(t->delta) <= fmax(MATCHED_TOTAL, MATCHED_STEADY * t->se));
}

/* Unchanged needs the busiest core's load, at its noise's upper bound after, to leave the
 * capacity within the threshold even when all of that load is the stream's. */
static bool matched_tight(const struct frame *f, const struct matched_set *m, const bool *on, bool known,
	const struct frame_params *p)
{
	double lb = 0, la = 0;
	for (size_t c = 0; c < f->ncores; c++)
		if (matched_counts(on, known, c)) {
			lb = fmax(lb, m->core[c].before);
			la = fmax(la, m->core[c].after + MATCHED_STEADY * m->core[c].se);
		}
	return la > 0 && lb / la >= 1 - p->threshold;
}

/* Other work a on core c in window side (0 before, 1 after) by that window's profile, the rest
 * of the core's load l the stream's. Unclassified work is read as the stream's before and as
 * other work after, the reading that alarms least. False when the profile does not split the
 * core so, or saw another load on it than the matched polls (it was taken at another operating
 * point: its split is not this one's). */
static bool matched_split(const struct frame *f, const struct matched_set *m, size_t c, int side, double *a)
{
	double l = side ? m->core[c].after : m->core[c].before;
	return profcore_other(f->prof[side], (int)c, side == 1, a) && l - *a >= MATCHED_FLOOR &&
		fabs(profile_core_load(f->prof[side], (int)c) / 100 - l) <=
		fmax(MATCHED_PROF_ABS, MATCHED_PROF_REL * l);
}

/* The capacity of the stream's cores in window side where that window's profile splits each of
 * them (matched_split): the smallest x (1 - a) / (L - a), the rate at which the first fills.
 * NAN when a core is not split so. */
static double matched_profile_cap(
	const struct frame *f, const struct matched_set *m, const bool *on, int side)
{
	double cap = INFINITY, a;
	for (size_t c = 0; c < f->ncores; c++) {
		if (!on[c])
			continue;
		if (!matched_split(f, m, c, side, &a))
			return NAN;
		double l = side ? m->core[c].after : m->core[c].before;
		cap = fmin(cap, (side ? m->xa : m->xb) * (1 - a) / (l - a));
	}
	return isfinite(cap) ? cap : NAN;
}

/* The capacity ratio of a stream every core of which rose by at least least_d at the same
 * rates: the profiles' split where both windows have one for each core, else 1 - least_d,
 * the least alarming reading of the loads (docs/detector.md); never above that. */
static double matched_ratio(
	const struct frame *f, const struct matched_set *m, const bool *on, double least_d)
{
	double bound = 1 - least_d;
	double cb = matched_profile_cap(f, m, on, 0), ca = matched_profile_cap(f, m, on, 1);
	return isfinite(cb) && isfinite(ca) && cb > 0 ? fmin(ca / cb, bound) : bound;
}

/* The most alarming ratio the loads allow for a stream on one core c whose before window's
 * profile splits it (a its other work) while the after window has none: all of the extra load
 * the stream's and the other work gone, (L_b - a) / ((1 - a) L_a). NAN otherwise: without the
 * split before, the stream's share could be as small as one likes and the loss as large. */
static double matched_floor(const struct frame *f, const struct matched_set *m, const bool *on, size_t c)
{
	double a, unused;
	size_t n = 0;
	for (size_t k = 0; k < f->ncores; k++)
		n += on[k];
	if (n != 1 || !on[c] || !matched_split(f, m, c, 0, &a) || matched_split(f, m, c, 1, &unused))
		return NAN;
	return (m->core[c].before - a) / ((1 - a) * m->core[c].after);
}

/* A core of the stream rose at the same rates (up). Its capacity is the smallest over its
 * cores, so the least alarming reading is that the core that rose least fills first: only
 * when every one of its cores rose is there a loss, 1 - the smallest rise, or less where the
 * profiles of both windows split the cores' load (matched_ratio; docs/detector.md).
 * A core not known to be the stream's, or one of several of which another held, is a sign. */
static void matched_rose(const struct frame *f, const struct matched_set *m, const bool *on, bool known,
	size_t up, const struct frame_params *p, struct frame_result *r)
{
	size_t least = up, held = SIZE_MAX;
	for (size_t c = 0; known && c < f->ncores; c++) {
		if (!on[c])
			continue;
		if (!matched_up(m, c))
			held = c;
		else if (m->core[c].delta < m->core[least].delta)
			least = c;
	}
	double ratio = known && held == SIZE_MAX ? matched_ratio(f, m, on, m->core[least].delta) : NAN;
	matched_fill(m, up, DETECTOR_INSUFFICIENT, NAN, r);
	r->hint = true;
	if (!known)
		matched_say(r, "core %zu is %.0f points busier at the same rates; not known to be its core",
			up, 100 * m->core[up].delta);
	else if (held != SIZE_MAX)
		matched_say(r,
			"core %zu is %.0f points busier at the same rates, core %zu held: which fills first is unknown",
			up, 100 * m->core[up].delta, held);
	else if (ratio < 1 - p->threshold) {
		double lo = matched_floor(f, m, on, least);
		matched_fill(m, least, DETECTOR_REGRESSION, ratio, r);
		if (lo < ratio)
			matched_say(r,
				"capacity between %.2f and %.2f of before: the profile before splits core %zu, none after",
				lo, ratio, least);
	} else
		matched_say(r, "core %zu is %.0f points busier at the same rates: too little to tell", least,
			100 * m->core[least].delta);
}

static void matched_decide(const struct frame *f, const struct matched_set *m, const bool *on,
	const struct frame_params *p, struct frame_result *r)
{
	bool known = false;
	for (size_t c = 0; c < f->ncores; c++)
		known = known || on[c];
	size_t up = matched_busier(f, m, on, known), busiest;
	if (up != SIZE_MAX) {
		matched_rose(f, m, on, known, up, p, r);
		return;
	}
	if (matched_steady(f, m, on, known, &busiest) && matched_tight(f, m, on, known, p)) {
		matched_fill(
			m, busiest, DETECTOR_UNCHANGED, m->core[busiest].before / m->core[busiest].after, r);
		r->rse = m->core[busiest].se / m->core[busiest].after; /* the ratio's noise: no change, 1 */
		return;
	}
	matched_fill(m, busiest, DETECTOR_INSUFFICIENT, NAN, r);
	matched_say(r, "its cores' load at the same rates moved within the noise");
}

bool matched_judge(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const bool *on, const struct frame_params *p, struct frame_result *r)
{
	const char *why; /* when no polls match: the other methods' reason stands */
	struct matched_set *m = matched_build(f, b, a, s, p, &why);
	if (m == NULL)
		return false;
	matched_decide(f, m, on, p, r);
	matched_free(m);
	return true;
}
