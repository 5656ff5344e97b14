/* SPDX-License-Identifier: Apache-2.0 */
/* judge: the maths of a verdict on one version change, on samples already in memory. For each
 * WireGuard stream (interface x direction) it takes from wincap.c the cores that carry it and
 * its capacity in each window (measured where they stayed saturated, else projected from
 * their slopes and headroom) and judges the ratio of the two; groups of streams, far
 * projections and matched rates where that cannot. Also the single-core bound. It must never
 * touch SQLite, a clock or a lock, and never claim what the data cannot tell: unit tests call
 * it on synthetic frames. docs/detector.md explains the model. */
#include "config.h"
#include "detector/judge.h"
#include "detector/wincap.h"
#include "detector/fit.h"
#include "detector/matched.h"
#include "detector/own.h"
#include "detector/profcore.h"
#include "detector/stats.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JUDGE_OWN_YES       3.0  /* a group member's own t on a core: clearly there */
#define JUDGE_OWN_NOT       2.0  /* ... more than chance: carried where both windows reach this */
#define JUDGE_SIGMAS        4.0  /* a change is claimed when it is this many standard errors out */
#define JUDGE_SAME_SIGMAS   1.5  /* ... "unchanged" when this many inside the threshold, both ways */
#define JUDGE_SIZE_ABS      0.10 /* ... and its size stated when known to this, at two (judge_sized) */
#define JUDGE_ALONE         0.90 /* a stream alone: this share of the WireGuard traffic */
#define JUDGE_BOUND_BUSIEST 0.95 /* single-core bound: busiest core at least this ... */
#define JUDGE_BOUND_OTHERS  0.50 /* ... while the other cores average less than this ... */
#define JUDGE_BOUND_SHARE   0.80 /* ... in this share of the recent polls */
#define JUDGE_BOUND_MIN     3    /* polls needed to say anything */

/* ---- the verdict ---- */

/* text into out[size], cut at a character boundary when longer. */
static void judge_text(char *out, size_t size, const char *text)
{
	size_t n = strlen(text);
	if (n >= size)
		for (n = size - 1; n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80; n--)
			;
	memcpy(out, text, n);
	out[n] = '\0';
}

static void judge_why(struct frame_result *r, const char *when, const char *why)
{
	snprintf(r->why, sizeof(r->why), "%s%s", when, why);
}

static void judge_cores_text(const bool *on, size_t nc, char *out, size_t size)
{
	size_t o = 0;
	out[0] = '\0';
	for (size_t c = 0; c < nc && o < size; c++)
		if (on[c])
			o += (size_t)snprintf(out + o, size - o, "%s%zu", o ? "+" : "", c);
}

/* "wg1 tx" for stream s into out. */
static void judge_stream_name(const struct frame *f, size_t s, char *out, size_t size)
{
	const char *dir = s % 2 ? "rx" : "tx";
	if (f->names)
		snprintf(out, size, "%s %s", f->names[s / 2], dir);
	else
		snprintf(out, size, "wg%zu %s", s / 2, dir);
}

/* The stream other than s, on a core of s in either window, whose mean rate moved most the way
 * dir says (+1 rose, -1 fell) past the threshold into *t with its means; false when none did. */
static bool judge_mover(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], int dir, const struct frame_params *p, size_t *t, double *mb, double *ma)
{
	size_t nc = f->ncores;
	double best = 0;
	for (size_t u = 0; u < frame_nstreams(f); u++) {
		bool shares = false;
		for (size_t c = 0; c < nc && u != s; c++)
			for (int i = 0; i < 2; i++)
				shares |= cw[i][s * nc + c] && (cw[0][u * nc + c] || cw[1][u * nc + c]);
		double x = frame_mean(f, b, u, NULL, NULL, NULL), y = frame_mean(f, a, u, NULL, NULL, NULL);
		bool past = dir > 0 ? y > x * (1 + p->threshold) : y < x * (1 - p->threshold);
		if (!shares || !isfinite(x) || !isfinite(y) || !past || dir * (y - x) <= best)
			continue;
		best = dir * (y - x), *t = u, *mb = x, *ma = y;
	}
	return best > 0;
}

/* Both windows saturated throughout: the capacities were measured, and the ratio is the truth of
 * capacity as defined (the other streams as they are). Where another stream on those cores
 * moved the other way past the threshold, the room went to (or came from) its demand on a core
 * that stayed full, at least in part: the verdict stands, and r->moved names that stream, a
 * confounder (docs/detector.md). */
static void judge_saturated(const struct frame *f, const struct frame_w *wb, const struct frame_w *wa,
	size_t s, bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	double lo = 1 - p->threshold, hi = 1 + p->threshold;
	r->method = DETECTOR_M_SATURATION;
	r->verdict = r->ratio < lo ? DETECTOR_REGRESSION
		: r->ratio > hi    ? DETECTOR_IMPROVEMENT
				   : DETECTOR_UNCHANGED;
	int dir = r->verdict == DETECTOR_REGRESSION ? 1 : r->verdict == DETECTOR_IMPROVEMENT ? -1 : 0;
	size_t t = 0;
	double mb = 0, ma = 0;
	char name[48], line[192];
	if (dir == 0 || !judge_mover(f, wb, wa, s, cw, dir, p, &t, &mb, &ma))
		return;
	judge_stream_name(f, t, name, sizeof(name));
	snprintf(line, sizeof(line), "%s %s %.0f \xe2\x86\x92 %.0f Mbit/s on the full core: %s", name,
		dir > 0 ? "rose" : "fell", mb / 1e6, ma / 1e6,
		dir > 0 ? "its demand took the room" : "its demand left room");
	judge_text(r->moved, sizeof(r->moved), line);
}

/* Whether a ratio is known well enough to state: at two standard errors within the threshold
 * of itself, or within JUDGE_SIZE_ABS either way (a fall to 0.4 known to ±0.1) at the top of
 * its interval (a ratio the noise pushed low must not buy a smaller error that way). Short of
 * that a fall is a sign, and matched-rate's bound may say it (docs/detector.md). */
static bool judge_sized(double ratio, double rse, const struct frame_params *p)
{
	return 2 * rse <= p->threshold || 2 * rse * ratio * (1 + 2 * rse) <= JUDGE_SIZE_ABS;
}

/* The four-way decision on a projected ratio and its relative standard error: a change must pass
 * the threshold and stand out of the noise (JUDGE_SIGMAS standard errors), "unchanged" must lie
 * JUDGE_SAME_SIGMAS standard errors inside the threshold (a 0.81 known to ±0.09 is as likely a
 * fall to 0.74 as no change: not an all-clear), and every verdict needs its size known
 * (judge_sized); insufficient-data otherwise. */
static enum detector_outcome judge_decide(double ratio, double rse, const struct frame_params *p)
{
	double lo = 1 - p->threshold, hi = 1 + p->threshold;
	if (!judge_sized(ratio, rse, p))
		return DETECTOR_INSUFFICIENT;
	if (ratio < lo && ratio * (1 + JUDGE_SIGMAS * rse) < 1)
		return DETECTOR_REGRESSION;
	if (ratio > hi && ratio * (1 - JUDGE_SIGMAS * rse) > 1)
		return DETECTOR_IMPROVEMENT;
	if (ratio * (1 - JUDGE_SAME_SIGMAS * rse) >= lo && ratio * (1 + JUDGE_SAME_SIGMAS * rse) <= hi)
		return DETECTOR_UNCHANGED;
	return DETECTOR_INSUFFICIENT;
}

/* At least one window projected: judge_decide on the two windows' ratio and joint error. */
static void judge_projected(const struct wincap_cap *b, const struct wincap_cap *a,
	const struct frame_params *p, struct frame_result *r)
{
	double rse = sqrt(b->rse * b->rse + a->rse * a->rse);
	r->method = DETECTOR_M_COST;
	r->rse = rse;
	r->verdict = judge_decide(r->ratio, rse, p);
	if (r->verdict == DETECTOR_INSUFFICIENT) {
		r->method = DETECTOR_M_NONE;
		r->hint = r->ratio < 1 - p->threshold;
		r->ratio = NAN; /* insufficient-data carries no ratio: no guess */
		judge_why(r, "",
			r->hint ? "a fall, but within the noise of the samples"
				: "the change is within the noise of the samples");
	}
}

/* Samples, traffic: the checks before any method. False with r filled when they fail. */
static bool judge_enough(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct frame_params *p, struct frame_result *r)
{
	size_t nb, na;
	frame_mean(f, b, s, NULL, NULL, &nb);
	frame_mean(f, a, s, NULL, NULL, &na);
	r->before_n = nb;
	r->after_n = na;
	r->before_bps = frame_rate_q(f, b, s, NULL, 0.5);
	r->after_bps = frame_rate_q(f, a, s, NULL, 0.5);
	if (nb < p->min_samples || na < p->min_samples) {
		judge_why(r, "",
			nb < p->min_samples ? "too few samples before the upgrade"
					    : "too few samples after the upgrade yet");
		return false;
	}
	if (!(r->before_bps >= p->min_bps)) {
		judge_why(r, "", "too little traffic before the upgrade");
		return false;
	}
	if (!(r->after_bps >= p->min_bps)) {
		r->hint = true; /* the traffic stopped: not a capacity figure, but worth a look */
		judge_why(r, "", "the traffic stopped after the upgrade");
		return false;
	}
	return true;
}

/* The cores of stream s in either window, "3" or "1+2". */
static void judge_cores_union(const struct frame *f, size_t s, bool *const cw[2], char *out, size_t size)
{
	size_t nc = f->ncores;
	bool *on = xcalloc(nc + 1, sizeof(bool));
	for (size_t c = 0; c < nc; c++)
		on[c] = cw[0][s * nc + c] || cw[1][s * nc + c];
	judge_cores_text(on, nc, out, size);
	free(on);
}

/* Says in r->why where the stream's cores moved between the windows, or which of several fills
 * first, when either is so: the operator should know which core the verdict rests on. */
static void judge_cores_note(const struct frame *f, size_t s, bool *const cw[2], const struct wincap_cap *cb,
	const struct wincap_cap *ca, struct frame_result *r)
{
	size_t nc = f->ncores;
	char tb[32], ta[32], line[160] = "";
	judge_cores_text(cw[0] + s * nc, nc, tb, sizeof(tb));
	judge_cores_text(cw[1] + s * nc, nc, ta, sizeof(ta));
	if (strcmp(tb, ta) != 0)
		snprintf(line, sizeof(line), "its cores were %s before the upgrade, %s after", tb, ta);
	else if (strchr(tb, '+') && cb->core >= 0 && ca->core >= 0)
		snprintf(line, sizeof(line), "core %d of %s fills first before the upgrade, core %d after",
			cb->core, tb, ca->core);
	judge_text(r->why, sizeof(r->why), line);
}

/* The streams fitted in one column with s in either window (s left out) into *others (the
 * names, ", " between them); their number. */
static void judge_group_in(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct frame_params *p, bool *in)
{
	const struct frame_w *w[2] = { b, a };
	for (int i = 0; i < 2; i++) {
		struct wincap_cols c;
		wincap_columns(f, w[i], p, &c);
		int j = wincap_col_of(&c, s);
		for (size_t k = 0; j >= 0 && k < c.n[j]; k++)
			in[c.mem[j][k]] = in[c.mem[j][k]] || c.mem[j][k] != s;
	}
}

static size_t judge_group_of(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	size_t s, const struct frame_params *p, char *others, size_t size)
{
	bool *in = xcalloc(frame_nstreams(f) + 1, sizeof(bool));
	judge_group_in(f, b, a, s, p, in);
	size_t n = 0, o = 0;
	others[0] = '\0';
	for (size_t t = 0; t < frame_nstreams(f); t++) {
		if (!in[t] || o + 2 >= size)
			continue;
		char name[64];
		judge_stream_name(f, t, name, sizeof(name));
		o += (size_t)snprintf(others + o, size - o, "%s%s", n++ ? ", " : "", name);
		o = o < size ? o : size - 1;
	}
	free(in);
	return n;
}

/* What one core of a group did across the change: it held (kept its capacity, or has room far
 * beyond the rates seen after it), fell (lost capacity beyond the threshold and the noise), or
 * neither can be said (it followed the group in one window only, or within the noise). */
enum judge_core_fate { JUDGE_CORE_UNCLEAR, JUDGE_CORE_HELD, JUDGE_CORE_FELL };

/* The index of core in k; -1 when it is not there. */
static int judge_cand_of(const struct wincap_cands *k, size_t core)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->core[i] == core)
			return (int)i;
	return -1;
}

static enum judge_core_fate judge_core_fate(const struct wincap_cap *cb, const struct wincap_cap *ca,
	size_t core, const struct frame_params *p, double *ratio)
{
	int i = judge_cand_of(&cb->cands, core), k = judge_cand_of(&ca->cands, core);
	bool far_b = judge_cand_of(&cb->far, core) >= 0, far_a = judge_cand_of(&ca->far, core) >= 0;
	if ((far_b || i >= 0) && far_a)
		return JUDGE_CORE_HELD; /* room far beyond the rates seen after the change */
	if (i < 0 || k < 0)
		return JUDGE_CORE_UNCLEAR;
	*ratio = ca->capc[k] / cb->capc[i];
	double rse = sqrt(cb->rsec[i] * cb->rsec[i] + ca->rsec[k] * ca->rsec[k]);
	if (*ratio >= 1 - p->threshold)
		return JUDGE_CORE_HELD;
	return *ratio * (1 + JUDGE_SIGMAS * rse) < 1 ? JUDGE_CORE_FELL : JUDGE_CORE_UNCLEAR;
}

/* Of the cores of a group (on either window's list, on0 and on1), the one that fell most
 * (*fell, its ratio *ratio) and one that did not, held or not known (*other); -1 where none. */
static void judge_core_fates(const struct frame *f, const bool *on0, const bool *on1,
	const struct wincap_cap *cb, const struct wincap_cap *ca, const struct frame_params *p, int *fell,
	int *other, double *ratio)
{
	*fell = *other = -1;
	for (size_t core = 0; core < f->ncores; core++) {
		if (!on0[core] && !on1[core])
			continue;
		double r = NAN;
		if (judge_core_fate(cb, ca, core, p, &r) != JUDGE_CORE_FELL)
			*other = *other < 0 ? (int)core : *other;
		else if (*fell < 0 || r < *ratio)
			*fell = (int)core, *ratio = r;
	}
}

/* ---- a group told apart by its members' own ups and downs ---- */

enum judge_mine { JUDGE_MINE_UNKNOWN, JUDGE_MINE_YES, JUDGE_MINE_NO, JUDGE_MINE_LEAN, JUDGE_MINE_NOLEAN };

/* What member s costs a core per bit/s in one window, by its own ups and downs (own_costs),
 * and the standard error of that, the fit's or the jackknife's, the larger (own_costs_jack:
 * other work that drifts makes the fit's too kind); NAN when the fit cannot say. */
struct judge_cost {
	double cost, se;
};

/* The most s can cost the core: its cost two standard errors up, at least nought. */
static double judge_hi(const struct judge_cost *o)
{
	double hi = o->cost + 2 * o->se;
	return isnan(hi) ? NAN : fmax(0, hi); /* fmax(0, NAN) would be 0 */
}

/* What the members' own ups and downs tell of the group's cores for member s (judge_mine),
 * each by core: mine, alone, unk, and solo (judge_split_caps); own, what s costs the core,
 * [core] before the change and [ncores + core] after. */
struct judge_told {
	bool *mine, *alone, *solo, *unk;
	struct judge_cost *own;
};

/* Whether core carries member si of mem[n] in window w: its own ups and downs move the core's
 * load clearly (JUDGE_OWN_YES standard errors: YES), or more than chance would (JUDGE_OWN_NOT:
 * LEAN); or not, while another member's do clearly (NO) or more than chance would (NOLEAN).
 * *near: the other members whose ups and downs move it more than chance would (bit i: t of
 * JUDGE_OWN_NOT at least); all of them when the fit cannot say. *o: what member si costs the
 * core (own_costs, on the polls far says the load is read over: own_reach). */
static enum judge_mine judge_mine_w(const struct frame *f, const struct frame_w *w, const size_t *mem,
	size_t n, size_t si, size_t core, bool far, unsigned *near, struct judge_cost *o)
{
	double t[OWN_MAX], cost[OWN_MAX], se[OWN_MAX];
	*near = ~0u;
	*o = (struct judge_cost){ NAN, NAN };
	if (own_effects(f, w, mem, n, core, t) < 0)
		return JUDGE_MINE_UNKNOWN;
	if (own_costs(f, w, mem, n, core, far, cost, se) == 0)
		*o = (struct judge_cost){ cost[si],
			fmax(se[si], own_costs_jack(f, w, mem, n, core, far, si)) };
	*near = 0;
	for (size_t i = 0; i < n; i++)
		*near |= i != si && t[i] >= JUDGE_OWN_NOT ? 1u << i : 0;
	if (t[si] >= JUDGE_OWN_NOT)
		return t[si] >= JUDGE_OWN_YES ? JUDGE_MINE_YES : JUDGE_MINE_LEAN;
	enum judge_mine m = JUDGE_MINE_UNKNOWN;
	for (size_t i = 0; i < n; i++)
		if (i != si && t[i] >= JUDGE_OWN_NOT && m != JUDGE_MINE_NO)
			m = t[i] >= JUDGE_OWN_YES ? JUDGE_MINE_NO : JUDGE_MINE_NOLEAN;
	return m;
}

/* One window's answer and the other's as one. Carried where both windows lean that way or
 * better: by chance alone (a core that carries it in neither) two t's of JUDGE_OWN_NOT come
 * once in 1,900 (the old rule, one YES and one LEAN: once in 16,000, but it missed carriers
 * whose own ups and downs are small in both windows; docs/detector.md). NO where neither
 * window leans to it, another member's ups and downs move it in both, clearly in one at least:
 * not clearly carried, which judge_mine still bounds (a carrier's own t stays below two in
 * some draws). Else unknown (carried in one window only: it moved across the reboot). */
static enum judge_mine judge_mine_both(enum judge_mine b, enum judge_mine a)
{
	bool yb = b == JUDGE_MINE_YES || b == JUDGE_MINE_LEAN,
	     ya = a == JUDGE_MINE_YES || a == JUDGE_MINE_LEAN;
	bool nb = b == JUDGE_MINE_NO || b == JUDGE_MINE_NOLEAN,
	     na = a == JUDGE_MINE_NO || a == JUDGE_MINE_NOLEAN;
	if (yb && ya)
		return JUDGE_MINE_YES;
	if (nb && na && (b == JUDGE_MINE_NO || a == JUDGE_MINE_NO))
		return JUDGE_MINE_NO;
	return JUDGE_MINE_UNKNOWN;
}

/* mine[core] for the group's cores on[]: which of them carry stream s, the same in both windows;
 * alone[core]: those that carry no other member by the same rule (no other's own t of
 * JUDGE_OWN_NOT in both windows): a core another member rides is shared (judge_shared_above).
 * A core that cannot be told is unk[core], and so is one that s's own ups and downs do not
 * move while another's do (NO: not clearly s's is not clearly not s's, its cost there may be
 * anything up to the bound); own, what s costs it before and after. False when s has no
 * core. */
static bool judge_mine(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const bool *on, const struct frame_params *p, struct judge_told *k)
{
	size_t ns = frame_nstreams(f), nc = f->ncores, mem[OWN_MAX], n = 0, si = 0;
	bool *in = xcalloc(ns + 1, sizeof(bool)), any = false;
	judge_group_in(f, b, a, s, p, in);
	in[s] = true;
	for (size_t t = 0; t < ns; t++)
		if (in[t] && n < OWN_MAX)
			si = t == s ? n : si, mem[n++] = t;
	free(in);
	bool fb = own_reach(f, b, mem, n, on), fa = own_reach(f, a, mem, n, on);
	for (size_t core = 0; core < nc; core++) {
		if (!on[core])
			continue;
		unsigned lb, la;
		enum judge_mine mb = judge_mine_w(f, b, mem, n, si, core, fb, &lb, &k->own[core]);
		enum judge_mine m = judge_mine_both(
			mb, judge_mine_w(f, a, mem, n, si, core, fa, &la, &k->own[nc + core]));
		k->unk[core] = m == JUDGE_MINE_UNKNOWN || m == JUDGE_MINE_NO;
		k->mine[core] = m == JUDGE_MINE_YES;
		k->alone[core] = (lb & la) == 0;
		any = any || k->mine[core];
	}
	return any;
}

/* The mean load of core c over w's polls; NAN when it has none. */
static double judge_core_mean(const struct frame *f, const struct frame_w *w, size_t c)
{
	double sum = 0;
	size_t k = 0;
	for (size_t i = w->from; i < w->to; i++) {
		double l = frame_load(f, i, c);
		if (isfinite(l))
			sum += l, k++;
	}
	return k ? sum / (double)k : NAN;
}

/* The least stream s's capacity on core can be in w, at the most s can cost it (hi): mean(x) +
 * (1 - mean(load)) / hi, whoever else rides it; INFINITY where hi is nought, NAN where it is
 * not known. */
static double judge_own_floor(
	const struct frame *f, const struct frame_w *w, size_t s, size_t core, double hi)
{
	double x = frame_mean(f, w, s, NULL, NULL, NULL), load = judge_core_mean(f, w, core);
	return isnan(hi) ? NAN : hi > 0 ? x + fmax(0, 1 - load) / hi : INFINITY;
}

/* Whether a core fills, for stream s, only beyond the capacity cap (error rse) that s's cores
 * of its own give in w: its floor (judge_own_floor) is above it. Then it is not the first to
 * fill, whether s rides it or not and however dear the others that share it got. */
static bool judge_own_above(const struct frame *f, const struct frame_w *w, size_t s, size_t core, double hi,
	double cap, double rse)
{
	double lo = judge_own_floor(f, w, s, core, hi);
	return !isnan(lo) && isfinite(cap) && lo >= cap * (1 + 2 * rse);
}

/* The smallest judge_own_floor over the cores that cannot be told (k->unk), before (lo[0]) and
 * after (lo[1]): where a core s may ride fills for it at the earliest. False where one of them
 * has none. */
static bool judge_unk_floors(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	size_t s, const struct judge_told *k, double lo[2])
{
	lo[0] = lo[1] = INFINITY;
	for (size_t core = 0; core < f->ncores; core++) {
		double hb = judge_hi(&k->own[core]), ha = judge_hi(&k->own[f->ncores + core]);
		if (!k->unk[core])
			continue;
		if (isnan(hb) || isnan(ha))
			return false;
		lo[0] = fmin(lo[0], judge_own_floor(f, b, s, core, hb));
		lo[1] = fmin(lo[1], judge_own_floor(f, a, s, core, ha));
	}
	return true;
}

/* A verdict o on s's capacities from its own cores (before_bps, after_bps) where cores that
 * cannot be told may fill first, down to the floors lo (judge_unk_floors): s's capacity in each
 * window lies between the smaller of the two and its own cores', and the verdict stands where
 * both ends of the ratio that allows say it (judge_decide, on o's error); a change also needs
 * its size known, the ends within JUDGE_SIZE_ABS of each other (judge_sized's absolute
 * margin), and keeps o's ratio, where the cores not told do not fill first. False otherwise. */
static bool judge_bounded(const struct frame_params *p, const double lo[2], struct frame_result *o)
{
	double b = o->before_bps, a = o->after_bps, bl = fmin(b, lo[0]), al = fmin(a, lo[1]);
	if (bl >= b && al >= a)
		return true;
	double down = al / b, up = a / bl;
	if (judge_decide(down, o->rse, p) != o->verdict || judge_decide(up, o->rse, p) != o->verdict)
		return false;
	return o->verdict == DETECTOR_UNCHANGED || up - down <= JUDGE_SIZE_ABS;
}

/* judge_own_above in both windows, on the bounds judge_hi of k->own (before, after) and s's
 * capacities mb, ma from the cores of its own. */
static bool judge_own_later(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	size_t core, const struct judge_told *k, const struct wincap_cap *mb, const struct wincap_cap *ma)
{
	return judge_own_above(f, b, s, core, judge_hi(&k->own[core]), mb->cap, mb->rse) &&
		judge_own_above(f, a, s, core, judge_hi(&k->own[f->ncores + core]), ma->cap, ma->rse);
}

/* The smallest capacity over the cores of cp on mine[], candidates to fill first or cores with
 * room far beyond the rates seen (*rse its error); NAN when none. */
static double judge_mine_cap(const struct wincap_cap *cp, const bool *mine, double *rse)
{
	double lo = INFINITY;
	for (size_t i = 0; i < cp->cands.n; i++)
		if (mine[cp->cands.core[i]] && cp->capc[i] < lo)
			lo = cp->capc[i], *rse = cp->rsec[i];
	for (size_t i = 0; i < cp->far.n; i++)
		if (mine[cp->far.core[i]] && cp->capf[i] < lo)
			lo = cp->capf[i], *rse = cp->rsef[i];
	return isfinite(lo) ? lo : NAN;
}

/* Core's capacity in cp, a candidate to fill first or one with room far beyond the rates
 * seen, and its relative standard error into *rse; NAN (both) when cp has none for it. */
static double judge_core_cap(const struct wincap_cap *cp, size_t core, double *rse)
{
	int i = judge_cand_of(&cp->cands, core), j = judge_cand_of(&cp->far, core);
	*rse = i >= 0 ? cp->rsec[i] : j >= 0 ? cp->rsef[j] : NAN;
	return i >= 0 ? cp->capc[i] : j >= 0 ? cp->capf[j] : NAN;
}

/* Whether core's capacity for the group in cp, less twice its error, is at least cap: where
 * member s shares the core with others, s's own capacity there is at least its share of the
 * group's (the others' share of the load can only be more than nought), so a shared core that
 * holds the group at least as far as s's own cores hold s does not fill first for s. */
static bool judge_shared_above(const struct wincap_cap *cp, size_t core, double cap)
{
	double rse, c = judge_core_cap(cp, core, &rse);
	return c * (1 - 2 * rse) >= cap;
}

/* Whether every core on mine[] held its capacity for the group across the change. */
static bool judge_all_held(const struct frame *f, const bool *mine, const struct wincap_cap *cb,
	const struct wincap_cap *ca, const struct frame_params *p)
{
	bool held = true;
	for (size_t core = 0; core < f->ncores && held; core++) {
		double ratio;
		held = !mine[core] || judge_core_fate(cb, ca, core, p, &ratio) == JUDGE_CORE_HELD;
	}
	return held;
}

/* Whether all of core's slope in the group's fit of cp (over w) can be member s's own: charged
 * to s, it is (1 - mean(load)) / (cap - mean(x)) per bit/s (the group's fit gives s the
 * headroom over it), which, two of its standard errors down, must not pass the most s's own
 * ups and downs let it cost the core (hi). Where it does, other members carry part of it,
 * whether their own ups and downs showed there or not, and the group's fall on the core is
 * not s's alone. True where it cannot say. */
static bool judge_all_its(const struct frame *f, const struct frame_w *w, size_t s,
	const struct wincap_cap *cp, size_t core, double hi)
{
	double rse, cap = judge_core_cap(cp, core, &rse);
	double room = cap - frame_mean(f, w, s, NULL, NULL, NULL), load = judge_core_mean(f, w, core);
	if (!(room > 0) || !(load < 1) || !isfinite(hi) || !isfinite(rse))
		return true;
	return (1 - load) / (room + 2 * rse * cap) <= hi;
}

/* Member s's capacity in each window (*mb, *ma) from the cores that carry it alone (k->solo:
 * no other member's own ups and downs move them, and s's own explain all of their slope,
 * judge_all_its), where the cores it shares with other members cannot fill first (judge_shared_above, or
 * judge_own_above on the most s can cost them) and every core of its held or fell clearly.
 * Where a shared core may fill first, the group's capacities are only floors of s's: then
 * *floors, and only where every core of s held (nothing fell, so s did not: unchanged is all
 * they can say). Cores that cannot be told are the caller's (judge_unk_floors). False when
 * the data cannot say which of its cores fills first. */
static bool judge_split_caps(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	size_t s, const bool *on, const struct wincap_cap *cb, const struct wincap_cap *ca,
	const struct frame_params *p, struct judge_told *k, struct wincap_cap *mb, struct wincap_cap *ma,
	bool *floors)
{
	size_t nc = f->ncores;
	bool ok = judge_mine(f, b, a, s, on, p, k), exact;
	for (size_t core = 0; core < nc && ok; core++) {
		double ratio;
		k->solo[core] = k->mine[core] && k->alone[core] &&
			judge_all_its(f, b, s, cb, core, judge_hi(&k->own[core])) &&
			judge_all_its(f, a, s, ca, core, judge_hi(&k->own[nc + core]));
		ok = !k->mine[core] || judge_core_fate(cb, ca, core, p, &ratio) != JUDGE_CORE_UNCLEAR;
	}
	*mb = *cb, *ma = *ca;
	mb->cap = judge_mine_cap(cb, k->solo, &mb->rse);
	ma->cap = judge_mine_cap(ca, k->solo, &ma->rse);
	exact = ok && isfinite(mb->cap) && isfinite(ma->cap);
	for (size_t core = 0; core < nc && exact; core++)
		exact = !k->mine[core] || k->solo[core] ||
			(judge_shared_above(cb, core, mb->cap) && judge_shared_above(ca, core, ma->cap)) ||
			judge_own_later(f, b, a, s, core, k, mb, ma);
	*floors = ok && !exact;
	if (*floors) {
		ok = judge_all_held(f, k->mine, cb, ca, p);
		mb->cap = judge_mine_cap(cb, k->mine, &mb->rse);
		ma->cap = judge_mine_cap(ca, k->mine, &ma->rse);
		ok = ok && isfinite(mb->cap) && isfinite(ma->cap);
	}
	return ok;
}

/* Member s's capacity on core over w at what its own ups and downs say it costs there (o):
 * mean(x_s) + (1 - mean(load)) / cost, with the others on the core as they are, into *cap, and
 * its relative standard error from the cost's into *rse. False when the cost is not two
 * standard errors above nought. */
static bool judge_own_cap(const struct frame *f, const struct frame_w *w, size_t s, size_t core,
	const struct judge_cost *o, double *cap, double *rse)
{
	if (!(o->cost >= JUDGE_OWN_NOT * o->se))
		return false;
	double head = fmax(0, 1 - judge_core_mean(f, w, core)) / o->cost;
	*cap = frame_mean(f, w, s, NULL, NULL, NULL) + head;
	*rse = head * (o->se / o->cost) / *cap;
	return isfinite(*cap) && isfinite(*rse);
}

/* The smallest judge_own_cap over s's cores (k->mine) in w, its costs from k->own + off, into
 * *c; false when one of them has none. */
static bool judge_own_min(const struct frame *f, const struct frame_w *w, size_t s,
	const struct judge_told *k, size_t off, struct wincap_cap *c)
{
	*c = (struct wincap_cap){ .cap = INFINITY, .rse = NAN };
	for (size_t core = 0; core < f->ncores; core++) {
		double cap, rse;
		if (!k->mine[core])
			continue;
		if (!judge_own_cap(f, w, s, core, &k->own[off + core], &cap, &rse))
			return false;
		if (cap < c->cap)
			c->cap = cap, c->rse = rse;
	}
	return isfinite(c->cap);
}

/* Where the group's capacities cannot be s's (a core it shares, or one whose group slope is
 * more than its own), s judged on what its own ups and downs say it costs each of its cores,
 * the cores not told bounding it (judge_bounded on lo). True with o filled when that judges. */
static bool judge_own_split(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct frame_params *p, const struct judge_told *k, const double lo[2], struct frame_result *o)
{
	struct wincap_cap mb, ma;
	if (!judge_own_min(f, b, s, k, 0, &mb) || !judge_own_min(f, a, s, k, f->ncores, &ma))
		return false;
	o->verdict = DETECTOR_INSUFFICIENT;
	o->before_bps = mb.cap, o->after_bps = ma.cap, o->ratio = ma.cap / mb.cap;
	judge_projected(&mb, &ma, p, o);
	return o->verdict != DETECTOR_INSUFFICIENT && judge_bounded(p, lo, o);
}

/* A group whose cores disagree (one fell, one did not): judged on stream s's own cores alone,
 * where its own ups and downs tell them (judge_mine); every one of them must have held or
 * fallen clearly. True with r filled. */
static bool judge_split(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const bool *on, const struct wincap_cap *cb, const struct wincap_cap *ca,
	const struct frame_params *p, const char *others, struct frame_result *r)
{
	size_t nc = f->ncores;
	struct judge_told k = { .mine = xcalloc(nc + 1, sizeof(bool)),
		.alone = xcalloc(nc + 1, sizeof(bool)),
		.solo = xcalloc(nc + 1, sizeof(bool)),
		.unk = xcalloc(nc + 1, sizeof(bool)),
		.own = xcalloc(2 * nc + 1, sizeof(struct judge_cost)) };
	struct wincap_cap mb, ma;
	struct frame_result o = *r;
	double lo[2];
	bool floors, ok = judge_split_caps(f, b, a, s, on, cb, ca, p, &k, &mb, &ma, &floors), own = false;
	bool told = judge_unk_floors(f, b, a, s, &k, lo);
	if (ok && told) {
		o.verdict = DETECTOR_INSUFFICIENT; /* judge_projected sets only what it finds */
		o.before_bps = mb.cap, o.after_bps = ma.cap, o.ratio = ma.cap / mb.cap;
		judge_projected(&mb, &ma, p, &o);
		ok = o.verdict != DETECTOR_INSUFFICIENT && (!floors || o.verdict == DETECTOR_UNCHANGED) &&
			judge_bounded(p, lo, &o);
	}
	if (!ok || !told) {
		o = *r;
		ok = own = told && judge_own_split(f, b, a, s, p, &k, lo, &o);
	}
	if (ok) {
		char cores[32], line[256];
		judge_cores_text(k.mine, nc, cores, sizeof(cores));
		snprintf(line, sizeof(line),
			"moves with %s: told apart by its own ups and downs, on core %s%s", others, cores,
			own ? ", at what they say it costs there" : "");
		judge_text(o.why, sizeof(o.why), line);
		*r = o;
	}
	free(k.mine);
	free(k.alone);
	free(k.solo);
	free(k.unk);
	free(k.own);
	return ok;
}

/* A stream fitted with others as one group (they move together): a verdict is the group's,
 * and says so. Which of the streams a core of the group carries no fit of streams that move
 * together can tell: calling every member a regression would be false for one whose own core
 * held, calling every one unchanged false for one whose core fell. So a group's regression
 * stands only when every core of the group fell (as one core's does: it is the truth of a
 * shared core), its unchanged only when none did; else it is a sign, insufficient-data with a
 * hint that names the cores. */
static void judge_group(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], const struct wincap_cap *cb, const struct wincap_cap *ca,
	const struct frame_params *p, struct frame_result *r)
{
	char others[64], line[256];
	if (r->verdict == DETECTOR_INSUFFICIENT || (cb->pinned && ca->pinned) || /* measured, not fitted */
		judge_group_of(f, b, a, s, p, others, sizeof(others)) == 0)
		return;
	int fell, other;
	double ratio = NAN;
	size_t nc = f->ncores;
	judge_core_fates(f, cw[0] + s * nc, cw[1] + s * nc, cb, ca, p, &fell, &other, &ratio);
	if (fell < 0 || other < 0) {
		snprintf(line, sizeof(line), "moves with %s: judged as one group%s%s", others,
			r->why[0] ? "; " : "", r->why);
		judge_text(r->why, sizeof(r->why), line);
		return;
	}
	bool *on = xcalloc(nc + 1, sizeof(bool));
	for (size_t c = 0; c < nc; c++)
		on[c] = cw[0][s * nc + c] || cw[1][s * nc + c];
	bool split = judge_split(f, b, a, s, on, cb, ca, p, others, r);
	free(on);
	if (split)
		return;
	snprintf(line, sizeof(line),
		"moves with %s: core %d fell to %.2f, core %d did not; which one carries it is unknown",
		others, fell, ratio, other);
	r->verdict = DETECTOR_INSUFFICIENT;
	r->method = DETECTOR_M_NONE;
	r->hint = true;
	r->ratio = NAN;
	judge_text(r->why, sizeof(r->why), line);
}

/* One window's projection for judge_far: the fit's where it has one (not pinned), else, where
 * its cores all fill only far beyond the rates seen (a decrypt at a tenth of its core), the
 * smallest of their projections, its error the larger of the fit's and the jackknife's, into
 * *cap and *rse. False when it has neither. */
static bool judge_far_cap(const struct frame *f, const struct frame_w *w, size_t s,
	const struct wincap_cap *cp, const struct frame_params *p, double *cap, double *rse)
{
	if (cp->ok) {
		*cap = cp->cap, *rse = cp->rse;
		return !cp->pinned;
	}
	if (cp->cands.n > 0 || cp->far.n == 0)
		return false;
	struct wincap_cols c;
	wincap_columns(f, w, p, &c);
	int j = wincap_col_of(&c, s);
	if (j < 0)
		return false;
	*cap = INFINITY, *rse = 0;
	for (size_t i = 0; i < cp->far.n; i++)
		if (cp->capf[i] < *cap)
			*cap = cp->capf[i], *rse = cp->rsef[i];
	*rse = fmax(*rse, wincap_jackknife(f, w, s, &c, j, &cp->far, *cap));
	return isfinite(*rse) && *rse <= WINCAP_MAX_RSE;
}

/* A window (or both) whose cores that follow the stream would fill only far beyond the rates
 * seen. The physics is the same line: the capacity is where the first of them fills, mean(x) +
 * (1 - mean(load)) / beta, and the ratio of the two windows' is as good as their slopes are
 * precise, however far off full is. So the same tests as a projection within reach: a change
 * claimed at JUDGE_SIGMAS standard errors, "unchanged" when the noise is small enough to say so.
 * Streams fitted as a group are left to the group's judgement. True with r filled when it
 * judged. */
static bool judge_far(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	const struct wincap_cap *cb, const struct wincap_cap *ca, const struct frame_params *p,
	struct frame_result *r)
{
	double capb, capa, rseb, rsea;
	char others[64];
	if (judge_group_of(f, b, a, s, p, others, sizeof(others)) > 0 ||
		!judge_far_cap(f, b, s, cb, p, &capb, &rseb) || !judge_far_cap(f, a, s, ca, p, &capa, &rsea))
		return false;
	double ratio = capa / capb, rse = sqrt(rseb * rseb + rsea * rsea);
	enum detector_outcome v = judge_decide(ratio, rse, p);
	if (v == DETECTOR_INSUFFICIENT) {
		r->hint = r->hint || ratio < 1 - p->threshold;
		return false;
	}
	r->verdict = v;
	r->hint = false;
	r->method = DETECTOR_M_COST;
	r->ratio = ratio;
	r->rse = rse;
	r->before_bps = capb;
	r->after_bps = capa;
	return true;
}

/* The methods on the stream's cores: saturation-ceiling where both windows are pinned, else
 * cpu-cost; insufficient-data with its why where they cannot judge. */
static void judge_methods(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	if (!wincap_any(cw[0] + s * f->ncores, f->ncores)) {
		judge_why(r, "", "no core's load follows its traffic");
		return;
	}
	struct wincap_cap cb, ca;
	wincap_find(f, b, s, cw[0], p, &cb);
	wincap_find(f, a, s, cw[1], p, &ca);
	r->before_load = cb.load;
	r->after_load = ca.load;
	if (!cb.ok || !ca.ok) {
		r->hint = !ca.ok && cb.ok; /* the after window cannot be compared: worth a look */
		judge_why(r, cb.ok ? "after the upgrade " : "before the upgrade ", cb.ok ? ca.why : cb.why);
		if (judge_far(f, b, a, s, &cb, &ca, p, r)) {
			char line[sizeof(r->why) + 96];
			judge_cores_note(f, s, cw, &cb, &ca, r);
			snprintf(line, sizeof(line), "%s%s%s",
				r->verdict == DETECTOR_UNCHANGED
					? "its cores stay far from full: their cost and room held"
					: "projected from far below full: its cost and room per Mbit/s changed",
				r->why[0] ? "; " : "", r->why);
			judge_text(r->why, sizeof(r->why), line);
		}
		return;
	}
	r->before_bps = cb.cap;
	r->after_bps = ca.cap;
	r->ratio = ca.cap / cb.cap;
	if (cb.pinned && ca.pinned) {
		r->rse = sqrt(cb.rse * cb.rse + ca.rse * ca.rse); /* the ceilings' spread */
		judge_saturated(f, b, a, s, cw, p, r);
	} else
		judge_projected(&cb, &ca, p, r);
	if (r->verdict != DETECTOR_INSUFFICIENT)
		judge_cores_note(f, s, cw, &cb, &ca, r);
	judge_group(f, b, a, s, cw, &cb, &ca, p, r);
}

/* Whether stream s carries nearly all the router's WireGuard traffic in both windows (a
 * fixed-rate test through one tunnel): then a profile's tunnel cores can only be its. */
static bool judge_alone(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s)
{
	const struct frame_w *w[2] = { b, a };
	for (int i = 0; i < 2; i++) {
		double all = 0, own = frame_mean(f, w[i], s, NULL, NULL, NULL);
		for (size_t t = 0; t < frame_nstreams(f); t++) {
			double m = frame_mean(f, w[i], t, NULL, NULL, NULL);
			all += isfinite(m) ? m : 0;
		}
		if (!(own >= JUDGE_ALONE * all))
			return false;
	}
	return true;
}

/* Where the other methods could not judge: the matched-rate method, on the stream's cores as a
 * fit, a pinned core or (for a stream alone) a profile placed them in either window. Its answer
 * replaces theirs when it judges, or when it has a sign worth a look. */
static void judge_try_matched(const struct frame *f, const struct frame_w *b, const struct frame_w *a,
	size_t s, bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	size_t nc = f->ncores;
	bool *on = xcalloc(nc + 1, sizeof(bool));
	char others[64];
	bool grouped = judge_group_of(f, b, a, s, p, others, sizeof(others)) > 0;
	for (size_t c = 0; c < nc && !grouped; c++) /* a group's cores are not known to be s's */
		on[c] = cw[0][s * nc + c] || cw[1][s * nc + c];
	if (judge_alone(f, b, a, s))
		for (int i = 0; i < 2; i++)
			profcore_tunnel_cores(f->prof[i], nc, on);
	struct frame_result m = *r;
	if (matched_judge(f, b, a, s, on, p, &m) &&
		(m.verdict != DETECTOR_INSUFFICIENT || (m.hint && !r->hint)))
		*r = m;
	free(on);
}

static void judge_stream(const struct frame *f, const struct frame_w *b, const struct frame_w *a, size_t s,
	bool *const cw[2], const struct frame_params *p, struct frame_result *r)
{
	*r = (struct frame_result){ .verdict = DETECTOR_INSUFFICIENT,
		.method = DETECTOR_M_NONE,
		.ratio = NAN,
		.before_load = NAN,
		.after_load = NAN,
		.rse = NAN };
	judge_cores_union(f, s, cw, r->cores, sizeof(r->cores));
	if (!judge_enough(f, b, a, s, p, r))
		return;
	judge_methods(f, b, a, s, cw, p, r);
	if (r->verdict == DETECTOR_INSUFFICIENT)
		judge_try_matched(f, b, a, s, cw, p, r);
}

void judge_event(const struct frame *f, const struct frame_params *p, struct frame_result *r)
{
	struct frame_w b = { 0, f->split }, a = { f->split, f->npolls };
	size_t cells = frame_nstreams(f) * f->ncores + 1;
	bool *cw[2] = { xcalloc(cells, sizeof(bool)), xcalloc(cells, sizeof(bool)) };
	wincap_attribute(f, &b, &a, p, cw);
	struct profcore_pick *pick = profcore_attribute(f, &b, &a, p, cw[0]); /* what no fit told */
	wincap_attribute_copy(f, cw);
	for (size_t s = 0; s < frame_nstreams(f); s++) {
		judge_stream(f, &b, &a, s, cw, p, &r[s]);
		profcore_note(&pick[s], &r[s]);
	}
	free(pick);
	free(cw[0]);
	free(cw[1]);
}

/* ---- a capacity now, from one window ---- */

/* Stream s's capacity in w with the cores carry[] gives it, or why it has none. */
static void judge_window_stream(const struct frame *f, const struct frame_w *w, const struct frame_params *p,
	const bool *carry, size_t s, size_t group, struct judge_wcap *r)
{
	const bool *on = carry + s * f->ncores;
	*r = (struct judge_wcap){ .cap = NAN, .rse = NAN };
	if (frame_wn(w) < p->min_samples) {
		r->why = "too few polls yet";
	} else if (!(frame_rate_q(f, w, s, NULL, 0.5) >= p->min_bps)) {
		r->why = "its traffic is too low to measure its capacity";
	} else if (!wincap_any(on, f->ncores)) {
		r->why = frame_flat(f, w, s) ? "its rates held too steady to project its capacity"
					     : "no core's load follows its traffic";
	} else {
		struct wincap_cap c;
		wincap_find(f, w, s, carry, p, &c);
		r->ok = c.ok, r->pinned = c.pinned, r->cap = c.cap, r->rse = c.rse, r->why = c.why;
		judge_cores_text(on, f->ncores, r->cores, sizeof(r->cores));
		if (r->ok && !r->pinned && group > 1) { /* a core of one member follows them all */
			*r = (struct judge_wcap){ .cap = NAN, .rse = NAN };
			r->why = "it moves with other streams: which core fills first for it cannot be told";
		}
	}
}

void judge_window(const struct frame *f, const struct frame_params *p, struct judge_wcap *r)
{
	judge_window_part(f, p, 0, f->npolls, r);
}

void judge_window_part(
	const struct frame *f, const struct frame_params *p, size_t from, size_t to, struct judge_wcap *r)
{
	const struct frame_w w = { from, to };
	size_t ns = frame_nstreams(f), nc = f->ncores;
	bool *carry = xcalloc(ns * nc + 1, sizeof(bool));
	wincap_attribute_w(f, &w, p, carry);
	size_t pin = wincap_pinned_core(f, &w, p), flat = SIZE_MAX, nflat = 0;
	for (size_t s = 0; s < ns; s++)
		if (!wincap_any(carry + s * nc, nc) && frame_flat(f, &w, s) &&
			frame_rate_q(f, &w, s, NULL, 0.5) >= p->min_bps)
			flat = s, nflat++;
	if (pin != SIZE_MAX && nflat == 1)
		carry[flat * nc + pin] = true; /* flat at a full core: no slope, but its ceiling; with two
						 flat streams, which rides it cannot be told */
	struct wincap_cols c;
	wincap_columns(f, &w, p, &c);
	for (size_t s = 0; s < ns; s++) {
		int j = wincap_col_of(&c, s);
		judge_window_stream(f, &w, p, carry, s, j < 0 ? 1 : c.n[j], &r[s]);
	}
	free(carry);
}

/* ---- single-core bound ---- */

void judge_bound(const struct frame_poll *p, size_t n, struct detector_bound *b)
{
	size_t no = 0, pinned = 0, nq = 0;
	double *busy = xcalloc(n + 1, sizeof(double)), *oth = xcalloc(n + 1, sizeof(double));
	double *tx = xcalloc(n + 1, sizeof(double)), *rx = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < n; i++) {
		busy[i] = p[i].busiest;
		if (!isnan(p[i].others))
			oth[no++] = p[i].others;
		bool pin = p[i].busiest >= JUDGE_BOUND_BUSIEST && p[i].others < JUDGE_BOUND_OTHERS;
		pinned += pin;
		if (pin && p[i].nrows > 0) {
			tx[nq] = p[i].tx;
			rx[nq++] = p[i].rx;
		}
	}
	b->n = n;
	b->bound = n >= JUDGE_BOUND_MIN && (double)pinned >= JUDGE_BOUND_SHARE * (double)n;
	b->busiest = stats_median_take(busy, n);
	b->others = stats_median_take(oth, no);
	b->tx_bps = b->bound ? stats_median_take(tx, nq) : (free(tx), NAN);
	b->rx_bps = b->bound ? stats_median_take(rx, nq) : (free(rx), NAN);
}
