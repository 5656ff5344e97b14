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

/* c's routers' files, sorted: each file's routers are a run. */
static const char **reloadlog_sorted_files(const conf_t *c)
{
	const char **v = xcalloc(c->nrouters + 1, sizeof(*v));
	for (size_t i = 0; i < c->nrouters; i++)
		v[i] = c->routers[i].file;
	qsort(v, c->nrouters, sizeof(*v), reloadlog_cmp_name);
	return v;
}

/* The length of the run of file at v[*i] (n entries), *i moved past it. */
static size_t reloadlog_run(const char **v, size_t n, size_t *i, const char *file)
{
	size_t start = *i;
	while (*i < n && strcmp(v[*i], file) == 0)
		(*i)++;
	return *i - start;
}

#define RELOADLOG_MAX_FILES 10 /* files named in a refusal; the rest are counted */

/* Each file of cur's routers that has fewer in next: a file cut short while being written. */
static void reloadlog_shrunk_files(const conf_t *cur, const conf_t *next)
{
	const char **a = reloadlog_sorted_files(cur), **b = reloadlog_sorted_files(next);
	size_t i = 0, k = 0, named = 0, more = 0;
	while (i < cur->nrouters) {
		const char *file = a[i];
		while (k < next->nrouters && strcmp(b[k], file) < 0)
			k++;
		size_t was = reloadlog_run(a, cur->nrouters, &i, file);
		size_t now = reloadlog_run(b, next->nrouters, &k, file);
		if (now < was && named++ < RELOADLOG_MAX_FILES)
			log_error("reload: %s: %zu routers, %zu before", file, now, was);
		else if (now < was)
			more++;
	}
	if (more > 0)
		log_error("reload: and %zu more files with fewer routers", more);
	free(a);
	free(b);
}

int reloadlog_guard(const conf_t *cur, const conf_t *next, size_t removed)
{
	if (removed * 100 <= (size_t)next->reload_max_removed * cur->nrouters)
		return 0;
	log_error("reload refused: %s would remove %zu of the %zu routers, more than [daemon] "
		  "reload_max_removed = %d%%; still polling the %zu of the running configuration",
		next->path, removed, cur->nrouters, next->reload_max_removed, cur->nrouters);
	reloadlog_shrunk_files(cur, next);
	log_error("reload: a file read while it was being rewritten looks cut short: write "
		  "configuration files by rename (a new file, then mv over the old); to remove that "
		  "many routers on purpose, set [daemon] reload_max_removed = 100 in the new "
		  "configuration");
	return -1;
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
		reloadlog_str_same(a->rollout_evidence, b->rollout_evidence) &&
		a->rollout_evidence_fleets == b->rollout_evidence_fleets &&
		a->rollout_evidence_routers == b->rollout_evidence_routers &&
		a->nrollout_allow == b->nrollout_allow && a->nrollout_shards == b->nrollout_shards;
	for (size_t i = 0; same && i < a->nrollout_allow; i++)
		same = strcmp(a->rollout_allow[i], b->rollout_allow[i]) == 0;
	for (size_t i = 0; same && i < a->nrollout_shards; i++)
		same = strcmp(a->rollout_shards[i], b->rollout_shards[i]) == 0;
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
		boot->rollup_retention_ms != next->rollup_retention_ms ||
		boot->rollup_hourly_retention_ms != next->rollup_hourly_retention_ms)
		key = "retention";
	if (key != NULL)
		log_warn("reload: [daemon] %s changed: it takes effect at the next restart (as do [web] "
			 "settings)",
			key);
	if (reloadlog_rollout_changed(boot, next))
		log_warn("reload: [rollout] changed: the rollout guard takes it at the next restart "
			 "(an override can be stored at once: POST /api/v1/rollout/allow)");
}
