/* SPDX-License-Identifier: Apache-2.0 */
/* profcore: what a router's CPU profile says that its load alone cannot (docs/detector.md, "CPU
 * profiles"): which pinned core runs the tunnel when two cores sit at 100 % and no fit can tell,
 * and how much of the tunnel's own cores is other work before and after a change. Pure: no
 * SQLite, no clock. It never overrides the cores a fit found and decides nothing ambiguous. */
#include "config.h"
#include "detector/profcore.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROFCORE_TUNNEL_SHARE 50.0 /* a core runs the tunnel: this % of its load on the tunnel's path */
#define PROFCORE_TUNNEL_MIN   5.0  /* ... and this % of the core at least (idle cores do some networking) */
#define PROFCORE_OTHER_MOVE   10.0 /* other work on a tunnel core moved by this many points of a core */
#define PROFCORE_NAME_MAX     32   /* of a classifier's name in a confounder */

/* What a classifier's share of a core tells. The tunnel's packet path is WireGuard's own rows
 * and the per-packet work around them (networking, ethernet: on the CCR1009 networking rose
 * 38 % -> 91 % on the pinned core while encrypting held); unclassified is neither, as it holds
 * whatever has no classifier, the tunnel's crypto on some builds; idle, total and cpuN say how
 * full the core is, not what fills it; everything else is other work. */
enum profcore_kind { PROFCORE_TUNNEL, PROFCORE_OTHER, PROFCORE_NEUTRAL, PROFCORE_SUMMARY };

static enum profcore_kind profcore_kind(const char *name)
{
	static const char *const tunnel[] = { "wireguard", "encrypting", "networking", "ethernet" };
	for (size_t i = 0; i < sizeof(tunnel) / sizeof(tunnel[0]); i++)
		if (strcmp(name, tunnel[i]) == 0)
			return PROFCORE_TUNNEL;
	if (strcmp(name, "unclassified") == 0)
		return PROFCORE_NEUTRAL;
	bool cpun = strncmp(name, "cpu", 3) == 0 && name[3] != '\0' &&
		strspn(name + 3, "0123456789") == strlen(name + 3);
	if (cpun || strcmp(name, "idle") == 0 || strcmp(name, "total") == 0)
		return PROFCORE_SUMMARY;
	return PROFCORE_OTHER;
}

/* The share of core c (percent) that p's classifiers of kind k take. */
static double profcore_sum(const profile_t *p, int c, enum profcore_kind k)
{
	double sum = 0;
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].cpu == c && profcore_kind(p->rows[i].name) == k)
			sum += p->rows[i].usage;
	return sum;
}

/* The part of core c's load (percent) on the tunnel's path in p; -1 when p tells no load there. */
static double profcore_tunnel_share(const profile_t *p, int c)
{
	double load = profile_core_load(p, c);
	return load > 0 ? fmin(100, 100 * profcore_sum(p, c, PROFCORE_TUNNEL) / load) : -1;
}

bool profcore_other(const profile_t *p, int c, bool unclear_is_other, double *other)
{
	if (p == NULL || !(profile_core_load(p, c) > 0))
		return false;
	double o = profcore_sum(p, c, PROFCORE_OTHER);
	if (unclear_is_other)
		o += profcore_sum(p, c, PROFCORE_NEUTRAL);
	*other = fmin(o, profile_core_load(p, c)) / 100;
	return true;
}

void profcore_tunnel_cores(const profile_t *p, size_t ncores, bool *on)
{
	for (size_t c = 0; p != NULL && c < ncores; c++)
		on[c] = on[c] ||
			(profcore_tunnel_share(p, (int)c) >= PROFCORE_TUNNEL_SHARE &&
				profcore_sum(p, (int)c, PROFCORE_TUNNEL) >= PROFCORE_TUNNEL_MIN);
}

/* The one pinned core of w that prof shows mostly on the tunnel's path; -1 when none, or when
 * several are (then the profile cannot say which carries which stream, or whether one runs on
 * both). */
static int profcore_core(const struct frame *f, const struct frame_w *w, const profile_t *prof,
	const struct frame_params *p, double *share)
{
	int found = -1;
	for (size_t c = 0; prof != NULL && c < f->ncores; c++) {
		double sh = profcore_tunnel_share(prof, (int)c);
		if (sh < PROFCORE_TUNNEL_SHARE || !frame_core_pinned(f, w, c, p))
			continue;
		if (found >= 0)
			return -1;
		found = (int)c;
		*share = sh;
	}
	return found;
}

static bool profcore_placed(const bool *on, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (on[i])
			return true;
	return false;
}

/* The one stream of w the profile's core can be for: it has traffic there, no core yet, and is
 * as flat as a ceiling holds it (a stream that moves while the core stays at 100 % runs
 * elsewhere, as for the single pinned core). SIZE_MAX when none, or when two or more are: then
 * which of them rides the core is a guess. */
static size_t profcore_stream(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, const bool *carry)
{
	size_t found = SIZE_MAX, nc = f->ncores;
	for (size_t s = 0; s < 2 * f->nifs; s++) {
		if (profcore_placed(carry + s * nc, nc) ||
			!(frame_mean(f, w, s, NULL, NULL, NULL) >= p->min_bps) || !frame_flat(f, w, s))
			continue;
		if (found != SIZE_MAX)
			return SIZE_MAX;
		found = s;
	}
	return found;
}

/* Where prof shows tunnel work (PROFCORE_TUNNEL_MIN) on two or more cores of w and every one of
 * them is pinned, those cores into on[]: whichever of them a stream rides, it rides a full one.
 * Their number; 0 when one of them is not pinned (a stream may ride it), or fewer than two. */
static size_t profcore_all_pinned(const struct frame *f, const struct frame_w *w, const profile_t *prof,
	const struct frame_params *p, bool *on)
{
	size_t n = 0;
	for (size_t c = 0; prof != NULL && c < f->ncores; c++) {
		on[c] = profcore_sum(prof, (int)c, PROFCORE_TUNNEL) >= PROFCORE_TUNNEL_MIN;
		if (on[c] && !frame_core_pinned(f, w, c, p))
			return 0;
		n += on[c];
	}
	return n >= 2 ? n : 0;
}

/* Whether every stream of w with traffic is as flat as a ceiling holds it and has no core yet
 * (a stream that moves while all the tunnel's cores stay full runs elsewhere), and there is
 * one at least. */
static bool profcore_all_flat(
	const struct frame *f, const struct frame_w *w, const struct frame_params *p, const bool *carry)
{
	size_t n = 0;
	for (size_t s = 0; s < 2 * f->nifs; s++) {
		if (!(frame_mean(f, w, s, NULL, NULL, NULL) >= p->min_bps))
			continue;
		if (profcore_placed(carry + s * f->ncores, f->ncores) || !frame_flat(f, w, s))
			return false;
		n++;
	}
	return n > 0;
}

/* Every tunnel core of the window pinned: each stream with traffic gets them all, its rate held
 * at the ceiling of whichever it rides (saturation-ceiling then compares its own rates). */
static void profcore_attribute_all(const struct frame *f, const struct frame_w *w, int side,
	const struct frame_params *p, bool *carry, struct profcore_pick *pick)
{
	size_t nc = f->ncores;
	bool *on = xcalloc(nc + 1, sizeof(bool));
	if (profcore_all_pinned(f, w, f->prof[side], p, on) > 0 && profcore_all_flat(f, w, p, carry))
		for (size_t s = 0; s < 2 * f->nifs; s++) {
			if (!(frame_mean(f, w, s, NULL, NULL, NULL) >= p->min_bps))
				continue;
			for (size_t c = 0; c < nc; c++)
				carry[s * nc + c] = carry[s * nc + c] || on[c];
			pick[s] = (struct profcore_pick){ .side = side + 1, .core = -1 };
		}
	free(on);
}

/* The before window's profile first, then the after window's, as judge_attribute takes its
 * windows. */
struct profcore_pick *profcore_attribute(const struct frame *f, const struct frame_w *b,
	const struct frame_w *a, const struct frame_params *p, bool *carry)
{
	struct profcore_pick *pick = xcalloc(2 * f->nifs + 1, sizeof(*pick));
	const struct frame_w *w[2] = { b, a };
	for (int side = 0; side < 2; side++) {
		double share = 0;
		int c = profcore_core(f, w[side], f->prof[side], p, &share);
		if (c < 0) {
			profcore_attribute_all(f, w[side], side, p, carry, pick);
			continue;
		}
		size_t s = profcore_stream(f, w[side], p, carry);
		if (s == SIZE_MAX)
			continue;
		carry[s * f->ncores + (size_t)c] = true;
		pick[s] = (struct profcore_pick){ .side = side + 1, .core = c, .share = share };
	}
	return pick;
}

void profcore_note(const struct profcore_pick *pick, struct frame_result *r)
{
	if (pick->side == 0)
		return;
	size_t n = strlen(r->why);
	if (pick->core < 0)
		snprintf(r->why + n, sizeof(r->why) - n,
			"%severy core of the tunnel's path full in the CPU profile %s the upgrade: its rate is its ceiling",
			n ? "; " : "", pick->side == 1 ? "before" : "after");
	else if (n == 0)
		snprintf(r->why, sizeof(r->why),
			"core %d from the CPU profile %s the upgrade (tunnel path %.0f %%)", pick->core,
			pick->side == 1 ? "before" : "after", pick->share);
	else
		snprintf(r->why + n, sizeof(r->why) - n, "; core %d from the CPU profile", pick->core);
}

/* ---- other work on the tunnel's cores ---- */

/* The usage of (c, name) in p; 0 when p has no such row. */
static double profcore_usage(const profile_t *p, int c, const char *name)
{
	const struct profile_row *r = profile_find(p, c, name);
	return r != NULL ? r->usage : 0;
}

/* Router text in a confounder line: no control characters (a line each), at most so long. */
static void profcore_name(char *out, size_t size, const char *name)
{
	size_t i = 0;
	for (; name[i] != '\0' && i + 1 < size; i++)
		out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
	out[i] = '\0';
}

/* One line when core c's other work moved by PROFCORE_OTHER_MOVE or more between b and a,
 * naming the classifier of it that moved most. */
static void profcore_line(buf_t *out, const profile_t *b, const profile_t *a, int c)
{
	if (profile_core_load(b, c) < 0 || profile_core_load(a, c) < 0)
		return; /* the core is missing from one of them: nothing to compare */
	double x = profcore_sum(b, c, PROFCORE_OTHER), y = profcore_sum(a, c, PROFCORE_OTHER);
	if (fabs(y - x) < PROFCORE_OTHER_MOVE)
		return;
	const char *top = NULL;
	double tb = 0, ta = 0;
	const profile_t *v[2] = { b, a };
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < v[k]->nrows; i++) {
			const struct profile_row *r = &v[k]->rows[i];
			if (r->cpu != c || profcore_kind(r->name) != PROFCORE_OTHER)
				continue;
			double rb = profcore_usage(b, c, r->name), ra = profcore_usage(a, c, r->name);
			if (top == NULL || fabs(ra - rb) > fabs(ta - tb))
				top = r->name, tb = rb, ta = ra;
		}
	char name[PROFCORE_NAME_MAX + 1];
	profcore_name(name, sizeof(name), top ? top : "?");
	buf_printf(out,
		"%scpu%d other work %.0f %% \xe2\x86\x92 %.0f %% (%s %.0f %% \xe2\x86\x92 %.0f %%), from the profiles",
		out->len ? "\n" : "", c, x, y, name, tb, ta);
}

char *profcore_confounders(char *list, const profile_t *before, const profile_t *after, const char *cores)
{
	buf_t b;
	buf_init(&b);
	buf_puts(&b, list != NULL ? list : "");
	free(list);
	for (const char *s = cores; before != NULL && after != NULL && s != NULL && *s != '\0';) {
		char *end;
		long c = strtol(s, &end, 10);
		if (end == s || c < 0 || c > INT32_MAX)
			break;
		profcore_line(&b, before, after, (int)c);
		s = *end == '+' ? end + 1 : "";
	}
	return buf_steal(&b, NULL);
}
