/* SPDX-License-Identifier: Apache-2.0 */
/* scfault: the scenario key menu_fault (docs/sim.md): which REST menus of a router answer badly,
 * and how, while the rest of it is fine. Never logs: a bad value is a return code scenario.c
 * reports. */
#include "config.h"
#include "sim/scenario.h"
#include "sim/scenario_int.h"
#include "lib/xmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scfault_kinds[SC_MENU_KINDS] = {
	[SC_MENU_500] = "500",
	[SC_MENU_ERROR200] = "error200",
	[SC_MENU_EMPTY] = "empty",
	[SC_MENU_NULL] = "null",
	[SC_MENU_HANG] = "hang",
};

static int scfault_kind(const char *v, enum sc_menu_fault_kind *k)
{
	for (int i = 1; i < SC_MENU_KINDS; i++)
		if (strcmp(v, scfault_kinds[i]) == 0) {
			*k = (enum sc_menu_fault_kind)i;
			return 0;
		}
	return -1;
}

/* The next word of *s (between spaces, tabs and commas), cut in place; NULL at the end. */
static char *scfault_word(char **s)
{
	char *t = *s + strspn(*s, " \t,");
	if (!*t)
		return NULL;
	char *e = t + strcspn(t, " \t,");
	if (*e)
		*e++ = '\0';
	*s = e;
	return t;
}

/* "/system/health 500, /system/package/update empty" (the commas optional), or "none". */
static int scfault_parse(const char *v, struct sc_state *st)
{
	struct sc_state t = { .nmenu_faults = 0 };
	char *copy = xstrdup(v), *rest = copy, *path;
	int rc = strcmp(v, "none") == 0 ? 1 : 0; /* 1: done, no fault */
	while (rc == 0 && (path = scfault_word(&rest)) != NULL) {
		char *kind = scfault_word(&rest);
		struct sc_menu_fault *f = &t.menu_faults[t.nmenu_faults];
		if (kind == NULL || path[0] != '/' || strlen(path) >= sizeof(f->path) ||
			t.nmenu_faults == SC_MENU_FAULTS || scfault_kind(kind, &f->kind) < 0)
			rc = -1;
		else
			snprintf(f->path, sizeof(f->path), "%s", path), t.nmenu_faults++;
	}
	free(copy);
	if (rc < 0 || (rc == 0 && t.nmenu_faults == 0))
		return -1;
	memcpy(st->menu_faults, t.menu_faults, sizeof(t.menu_faults));
	st->nmenu_faults = t.nmenu_faults;
	return 0;
}

int scfault_state_set(struct sc_state *st, const char *k, const char *v)
{
	if (strcmp(k, "menu_fault") != 0)
		return 0;
	return scfault_parse(v, st) == 0 ? 1 : -1;
}
