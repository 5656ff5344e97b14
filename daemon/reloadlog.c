/* SPDX-License-Identifier: Apache-2.0 */
/* reloadlog: the log lines of a reload (daemon/reloadlog.h), for daemon/main.c. It compares
 * and logs only: it must never change a configuration, nor log a value of one (only key names
 * and counts). */
#include "config.h"
#include "daemon/reloadlog.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

void reloadlog_errors(const char *text)
{
	while (*text) {
		size_t len = strcspn(text, "\n");
		if (len > 0)
			log_error("reload: %.*s", (int)len, text);
		text += len + (text[len] == '\n');
	}
}

static int reloadlog_cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **reloadlog_sorted_names(const conf_t *c)
{
	char **v = xcalloc(c->nrouters + 1, sizeof(*v));
	for (size_t i = 0; i < c->nrouters; i++)
		v[i] = c->routers[i].name;
	qsort(v, c->nrouters, sizeof(*v), reloadlog_cmp_name);
	return v;
}

void reloadlog_diff(const conf_t *cur, const conf_t *next, size_t *added, size_t *removed)
{
	char **a = reloadlog_sorted_names(cur), **b = reloadlog_sorted_names(next);
	size_t i = 0, k = 0, same = 0;
	while (i < cur->nrouters && k < next->nrouters) {
		int c = strcmp(a[i], b[k]);
		same += c == 0;
		i += c <= 0;
		k += c >= 0;
	}
	*added = next->nrouters - same;
	*removed = cur->nrouters - same;
	free(a);
	free(b);
}

static bool reloadlog_str_same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* [rollout], which the detector reads once at start (detector/rollout.h). */
static bool reloadlog_rollout_changed(const conf_t *a, const conf_t *b)
{
	bool same = reloadlog_str_same(a->rollout_canary, b->rollout_canary) &&
		a->rollout_hold_regressed == b->rollout_hold_regressed &&
		a->rollout_hold_ratio == b->rollout_hold_ratio && a->rollout_go_min == b->rollout_go_min &&
		a->nrollout_allow == b->nrollout_allow;
	for (size_t i = 0; same && i < a->nrollout_allow; i++)
		same = strcmp(a->rollout_allow[i], b->rollout_allow[i]) == 0;
	return !same;
}

/* Settings read once at start, by the listener and the store: a reload cannot change them. */
void reloadlog_warn(const conf_t *boot, const conf_t *next)
{
	const char *key = NULL;
	if (strcmp(boot->listen, next->listen) != 0)
		key = "listen";
	else if (strcmp(boot->database, next->database) != 0)
		key = "database";
	else if (boot->max_body_bytes != next->max_body_bytes)
		key = "max_body";
	else if (boot->retention_ms != next->retention_ms ||
		boot->rollup_retention_ms != next->rollup_retention_ms)
		key = "retention";
	if (key != NULL)
		log_warn("reload: [daemon] %s changed: it takes effect at the next restart (as do [web] "
			 "settings)",
			key);
	if (reloadlog_rollout_changed(boot, next))
		log_warn("reload: [rollout] changed: the rollout guard takes it at the next restart "
			 "(an override can be stored at once: POST /api/v1/rollout/allow)");
}
