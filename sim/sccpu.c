/* SPDX-License-Identifier: Apache-2.0 */
/* sccpu: the values of the CPU model's scenario keys (demand, cost, follow, work, noise,
 * shared_noise, work_noise, burst; docs/sim.md "CPU model") into a struct sc_cpu. Interface
 * names are resolved against the group's final wg list, so scenario.c calls this at the end of
 * the group. Never logs: a bad value is -1 and a message that scenario.c prefixes with
 * FILE:LINE. */
#include "config.h"
#include "sim/scenario.h"
#include "sim/scenario_int.h"
#include "lib/xmem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next word of *s (space-separated), cut in place; NULL at the end. */
static char *sccpu_word(char **s)
{
	char *t = *s;
	while (*t == ' ' || *t == '\t')
		t++;
	if (!*t)
		return NULL;
	char *e = t + strcspn(t, " \t");
	if (*e)
		*e++ = '\0';
	*s = e;
	return t;
}

static int sccpu_num(const char *w, double max, double *out)
{
	char *end;
	errno = 0;
	double d = w ? strtod(w, &end) : 0;
	if (!w || end == w || *end || errno || !(d >= 0 && d <= max))
		return -1;
	*out = d;
	return 0;
}

static int sccpu_iface(const struct sc_group *g, const char *name)
{
	for (size_t i = 0; i < g->nwg; i++)
		if (strcmp(g->wg[i].name, name) == 0)
			return i < SC_CPU_MAX_WG ? (int)i : -1;
	return -1;
}

/* "3" or "1+2" into core[], each below g->cores. 0 or -1 with why. */
static int sccpu_cores(const struct sc_group *g, char *w, unsigned char *core, int *n, char *why, size_t wl)
{
	char *rest = w, *t;
	*n = 0;
	while (w && (t = scenario_split_next(&rest, '+')) != NULL) {
		char *end;
		long c = strtol(t, &end, 10);
		if (end == t || *end || c < 0 || *n == SC_CPU_SPREAD) {
			snprintf(why, wl, "bad core list \"%s\" (want N or N+M..., at most %d)", w,
				SC_CPU_SPREAD);
			return -1;
		}
		if (c >= g->cores) {
			snprintf(why, wl, "core %ld is beyond the last core (cores = %d, numbered from 0)", c,
				g->cores);
			return -1;
		}
		core[(*n)++] = (unsigned char)c;
	}
	if (*n == 0)
		snprintf(why, wl, "expected a core number after core");
	return *n ? 0 : -1;
}

/* The list a demand, cost or follow line fills: a value per interface and direction, and for
 * cost and follow the cores it is spread over (core NULL for demand). */
struct sccpu_list {
	const char *key;
	double (*val)[2];
	double max;
	int (*ncores)[2];
	unsigned char (*core)[2][SC_CPU_SPREAD];
};

static struct sccpu_list sccpu_list_of(struct sc_cpu *c, const char *key)
{
	if (strcmp(key, "cost") == 0)
		return (struct sccpu_list){ key, c->cost, 100, c->ncores, c->core };
	if (strcmp(key, "follow") == 0)
		return (struct sccpu_list){ key, c->follow, 100, c->nfcores, c->fcore };
	return (struct sccpu_list){ key, c->demand, 400000, NULL, NULL };
}

/* "core A[+B]" of a cost or follow: for the directions named since the last core (both if
 * none). */
static int sccpu_item_core(const struct sc_group *g, char **item, const struct sccpu_list *l, int f,
	unsigned *pending, char *why, size_t wl)
{
	unsigned char core[SC_CPU_SPREAD];
	int n = 0;
	if (sccpu_cores(g, sccpu_word(item), core, &n, why, wl) < 0)
		return -1;
	for (int d = 0; d < 2; d++)
		if (*pending == 0 || (*pending & (1u << d))) {
			memcpy(l->core[f][d], core, sizeof(core));
			l->ncores[f][d] = n;
		}
	*pending = 0;
	return 0;
}

/* "wg0 tx 380 rx 220" (demand), "wg0 tx 0.2 rx 0.1 core 3" or "wg0 tx 0.2 core 3 rx 0.1 core 5"
 * (cost, follow; a core list is for the directions named before it): one interface. */
static int sccpu_iface_item(
	const struct sc_group *g, char *item, const struct sccpu_list *l, char *why, size_t wl)
{
	char *name = sccpu_word(&item), *w;
	int f = name ? sccpu_iface(g, name) : -1;
	if (f < 0) {
		snprintf(why, wl, "unknown wg interface \"%s\"", name ? name : "");
		return -1;
	}
	unsigned seen = 0, pending = 0;
	while ((w = sccpu_word(&item)) != NULL) {
		int d = strcmp(w, "rx") == 0 ? 0 : strcmp(w, "tx") == 0 ? 1 : -1;
		if (d >= 0) {
			char *n = sccpu_word(&item);
			if (sccpu_num(n, l->max, &l->val[f][d]) < 0) {
				snprintf(why, wl, "%s: bad %s value \"%s\" (want 0..%g)", name, w, n ? n : "",
					l->max);
				return -1;
			}
			seen |= 1u << d;
			pending |= 1u << d;
		} else if (l->core && strcmp(w, "core") == 0) {
			if (sccpu_item_core(g, &item, l, f, &pending, why, wl) < 0)
				return -1;
		} else {
			snprintf(why, wl, "%s: unexpected \"%s\" (want tx N, rx N%s)", name, w,
				l->core ? ", core N[+M]" : "");
			return -1;
		}
	}
	for (int d = 0; d < 2 && l->core; d++)
		if ((seen & (1u << d)) && l->ncores[f][d] == 0)
			snprintf(why, wl, "%s: a %s needs core N", name, l->key);
	if (!seen)
		snprintf(why, wl, "%s: expected tx N and/or rx N", name);
	return why[0] ? -1 : 0;
}

/* demand, cost or follow: a comma-separated list of interfaces; the whole table is replaced. */
static int sccpu_iface_list(
	const struct sc_group *g, const char *v, const struct sccpu_list *l, char *why, size_t wl)
{
	char *copy = xstrdup(v), *rest = copy, *t;
	int rc = 0;
	memset(l->val, 0, sizeof(double[SC_CPU_MAX_WG][2]));
	if (l->core)
		memset(l->ncores, 0, sizeof(int[SC_CPU_MAX_WG][2]));
	while (rc == 0 && (t = scenario_split_next(&rest, ',')) != NULL)
		rc = sccpu_iface_item(g, t, l, why, wl);
	free(copy);
	return rc;
}

/* "50 core 3, 30 core 1+2" (each listed core gets N) or "5" (every core). */
static int sccpu_work(const struct sc_group *g, const char *v, struct sc_cpu *c, char *why, size_t wl)
{
	char *copy = xstrdup(v), *rest = copy, *t;
	int rc = 0;
	memset(c->work, 0, sizeof(c->work));
	while (rc == 0 && (t = scenario_split_next(&rest, ',')) != NULL) {
		double n;
		unsigned char core[SC_CPU_SPREAD];
		int ncores = 0;
		char *w = sccpu_word(&t), *kw = sccpu_word(&t);
		rc = sccpu_num(w, 100, &n);
		if (rc == 0 && kw && strcmp(kw, "core") == 0)
			rc = sccpu_cores(g, sccpu_word(&t), core, &ncores, why, wl);
		if (rc < 0 || (kw && strcmp(kw, "core") != 0) || sccpu_word(&t)) {
			if (!why[0])
				snprintf(why, wl, "expected N [core A[+B...]], N a percent 0..100");
			rc = -1;
			break;
		}
		for (int i = 0; i < (kw ? ncores : g->cores); i++) {
			int k = kw ? core[i] : i;
			c->work[k] += n;
			if (c->work[k] > 100) {
				snprintf(why, wl, "adds up to more than 100%% on core %d", k);
				rc = -1;
			}
		}
	}
	free(copy);
	return rc;
}

/* "0.3 x 6", "0.3x6" or "none". */
static int sccpu_burst(const char *v, struct sc_cpu *c, char *why, size_t wl)
{
	double s, m;
	int n = 0;
	if (strcmp(v, "none") == 0) {
		c->burst_share = 0, c->burst_mult = 1;
		return 0;
	}
	if (sscanf(v, "%lf x %lf%n", &s, &m, &n) != 2 || v[n] || !(s >= 0 && s <= 1) ||
		!(m >= 1 && m <= 1000)) {
		snprintf(why, wl, "expected SHARE x MULT (0 <= SHARE <= 1, 1 <= MULT <= 1000) or none");
		return -1;
	}
	c->burst_share = s, c->burst_mult = m;
	return 0;
}

bool sccpu_is_key(const char *k)
{
	static const char *const keys[] = { "demand", "cost", "follow", "work", "noise", "work_noise",
		"shared_noise", "burst" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (strcmp(k, keys[i]) == 0)
			return true;
	return false;
}

int sccpu_set(const struct sc_group *g, struct sc_cpu *c, const char *k, const char *v, char *why, size_t wl)
{
	int rc;
	why[0] = '\0';
	if (!sccpu_is_key(k))
		return 0;
	c->used = true;
	if (strcmp(k, "demand") == 0 || strcmp(k, "cost") == 0 || strcmp(k, "follow") == 0) {
		struct sccpu_list l = sccpu_list_of(c, k);
		rc = sccpu_iface_list(g, v, &l, why, wl);
		if (k[0] != 'f')
			*(k[0] == 'c' ? &c->has_cost : &c->has_demand) = true;
	} else if (strcmp(k, "work") == 0)
		rc = sccpu_work(g, v, c, why, wl);
	else if (strcmp(k, "burst") == 0)
		rc = sccpu_burst(v, c, why, wl);
	else {
		double *dst = k[0] == 'n' ? &c->noise : k[0] == 's' ? &c->shared_noise : &c->work_noise, pct;
		rc = sccpu_num(v, 100, &pct);
		if (rc == 0)
			*dst = pct / 100;
		else
			snprintf(why, wl, "expected a percent 0..100, not \"%s\"", v);
	}
	return rc < 0 ? -1 : 1;
}
