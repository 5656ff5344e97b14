/* SPDX-License-Identifier: Apache-2.0 */
/* scdiag: the scenario keys of the diagnostic commands (/tool/profile, /tool/bandwidth-test;
 * docs/sim.md "Diagnostics"): classifier shares, refusals, reply shape variants, the test
 * servers' credentials. Never logs: a bad value is a return code scenario.c reports. */
#include "config.h"
#include "sim/scenario.h"
#include "sim/scenario_int.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The next space-separated word of *s, cut in place; NULL at the end. */
static char *scdiag_word(char **s)
{
	char *t = *s + strspn(*s, " \t");
	if (!*t)
		return NULL;
	char *e = t + strcspn(t, " \t");
	if (*e)
		*e++ = '\0';
	*s = e;
	return t;
}

/* "networking 38 encrypting 9 wireguard 41": NAME PERCENT pairs adding up to at most 100. */
static int scdiag_parse_prof(const char *v, struct sc_prof *out)
{
	struct sc_prof p = { .n = 0 };
	char *copy = xstrdup(v), *rest = copy, *name, *num;
	double sum = 0;
	int rc = 0;
	while ((name = scdiag_word(&rest)) != NULL) {
		num = scdiag_word(&rest);
		char *end = NULL;
		errno = 0;
		double d = num ? strtod(num, &end) : -1;
		bool ok_name = strlen(name) < SC_PROF_NAME && isalpha((unsigned char)name[0]);
		for (const char *c = name; *c; c++)
			ok_name = ok_name &&
				(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.');
		if (!ok_name || !num || end == num || *end || errno || !(d >= 0 && d <= 100) ||
			p.n == SC_PROF_MAX) {
			rc = -1;
			break;
		}
		snprintf(p.name[p.n], SC_PROF_NAME, "%s", name);
		p.share[p.n++] = d;
		sum += d;
	}
	free(copy);
	if (rc < 0 || p.n == 0 || sum > 100.0001)
		return -1;
	*out = p;
	return 0;
}

static int scdiag_parse_refuse(const char *v, enum sc_refuse *out)
{
	static const char *const names[] = { "none", "policy", "old", "device-mode" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(v, names[i]) == 0) {
			*out = (enum sc_refuse)i;
			return 0;
		}
	return -1;
}

void scdiag_defaults(struct sc_state *st)
{
	scdiag_parse_prof("networking 45 wireguard 30 encrypting 10 ethernet 15", &st->prof[SC_PROF_RX]);
	scdiag_parse_prof("networking 40 wireguard 35 encrypting 10 ethernet 15", &st->prof[SC_PROF_TX]);
	scdiag_parse_prof("firewall 50 networking 30 management 20", &st->prof[SC_PROF_WORK]);
}

int scdiag_state_set(struct sc_state *st, const char *k, const char *v)
{
	static const char *const prof[] = { "profile_rx", "profile_tx", "profile_work" };
	for (int i = 0; i < SC_PROF_PARTS; i++)
		if (strcmp(k, prof[i]) == 0)
			return scdiag_parse_prof(v, &st->prof[i]) == 0 ? 1 : -1;
	if (strcmp(k, "diag_refuse") == 0)
		return scdiag_parse_refuse(v, &st->refuse) == 0 ? 1 : -1;
	return 0;
}

/* "usage-percent, cpu-name" into enum sc_diag_shape bits; "none" clears. */
static int scdiag_parse_shape(const char *v, unsigned *out)
{
	static const struct {
		const char *word;
		unsigned bit;
	} words[] = {
		{ "usage-percent", SC_DIAG_USAGE_PERCENT },
		{ "cpu-name", SC_DIAG_CPU_NAME },
		{ "no-summary", SC_DIAG_NO_SUMMARY },
		{ "summary-cpu", SC_DIAG_SUMMARY_CPU },
		{ "total-row", SC_DIAG_TOTAL_ROW },
		{ "no-idle", SC_DIAG_NO_IDLE },
		{ "tx-loss", SC_DIAG_TX_LOSS },
	};
	char *copy = xstrdup(v), *rest = strcmp(v, "none") == 0 ? NULL : copy, *t;
	unsigned bits = 0;
	int rc = 0;
	while (rc == 0 && (t = scenario_split_next(&rest, ',')) != NULL) {
		size_t i = 0;
		while (*t == ' ' || *t == '\t')
			t++;
		t[strcspn(t, " \t")] = '\0';
		while (i < sizeof(words) / sizeof(words[0]) && strcmp(t, words[i].word) != 0)
			i++;
		if (i == sizeof(words) / sizeof(words[0]))
			rc = -1;
		else
			bits |= words[i].bit;
	}
	free(copy);
	if (rc == 0)
		*out = bits;
	return rc;
}

int scdiag_group_set(struct sc_group *g, const char *k, const char *v)
{
	if (strcmp(k, "diag_shape") == 0)
		return scdiag_parse_shape(v, &g->diag_shape);
	if (strcmp(k, "btest_user") == 0)
		return scgroup_set_str(&g->btest_user, v);
	if (strcmp(k, "btest_password") == 0)
		return scgroup_set_str(&g->btest_password, v);
	return -2;
}
