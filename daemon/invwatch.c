/* SPDX-License-Identifier: Apache-2.0 */
/* invwatch: the target files watched for changes (daemon/invwatch.h). It lists and stats files
 * only: it must never open one, and never stat on the loop thread. */
#include "config.h"
#include "daemon/invwatch.h"
#include "lib/hash.h"
#include "lib/offload.h"
#include "lib/xmem.h"

#include <glob.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct invwatch {
	loop_t *loop;
	offload_t *off;
	loop_timer_id timer;
	void (*changed)(void *);
	void *arg;
	char *pattern; /* the loop's; look_pattern is the thread's copy while a look runs */
	char *look_pattern;
	uint64_t sig, look_sig;
	bool looking, stopping;
};

uint64_t invwatch_sig(const char *pattern)
{
	glob_t g = { 0 };
	uint64_t h = 0;
	if (pattern == NULL || glob(pattern, 0, NULL, &g) != 0) {
		globfree(&g);
		return 0;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		uint64_t v[4] = { 0 };
		if (stat(g.gl_pathv[i], &st) == 0) {
			v[0] = (uint64_t)st.st_size, v[1] = (uint64_t)st.st_mtim.tv_sec;
			v[2] = (uint64_t)st.st_mtim.tv_nsec, v[3] = (uint64_t)st.st_ino;
		}
		h = hash_mix64(h ^ hash_str64(g.gl_pathv[i]));
		for (int k = 0; k < 4; k++)
			h = hash_mix64(h ^ v[k]);
	}
	globfree(&g);
	return h ? h : 1;
}

static void invwatch_look(void *arg) /* offload thread */
{
	invwatch_t *w = arg;
	w->look_sig = invwatch_sig(w->look_pattern);
}

static void invwatch_tick(void *arg);

static void invwatch_looked(void *arg) /* loop thread */
{
	invwatch_t *w = arg;
	w->looking = false;
	bool same_pattern = strcmp(w->look_pattern, w->pattern) == 0;
	free(w->look_pattern);
	w->look_pattern = NULL;
	if (w->stopping)
		return;
	if (same_pattern && w->look_sig != w->sig) {
		w->sig = w->look_sig;
		w->changed(w->arg);
	}
	w->timer = loop_after(w->loop, INVWATCH_EVERY_MS, invwatch_tick, w);
}

static void invwatch_tick(void *arg)
{
	invwatch_t *w = arg;
	w->timer = 0;
	w->looking = true;
	w->look_pattern = xstrdup(w->pattern);
	offload_run(w->off, invwatch_look, invwatch_looked, w);
}

invwatch_t *invwatch_start(loop_t *l, const char *pattern, void (*changed)(void *), void *arg)
{
	invwatch_t *w = xcalloc(1, sizeof(*w));
	w->off = offload_create(l);
	if (w->off == NULL) {
		free(w);
		return NULL;
	}
	w->loop = l, w->changed = changed, w->arg = arg;
	w->pattern = xstrdup(pattern);
	w->sig = invwatch_sig(pattern); /* the files the start's load read */
	w->timer = loop_after(l, INVWATCH_EVERY_MS, invwatch_tick, w);
	return w;
}

void invwatch_set(invwatch_t *w, const char *pattern)
{
	if (w == NULL || pattern == NULL)
		return;
	if (strcmp(pattern, w->pattern) == 0)
		return;
	free(w->pattern);
	w->pattern = xstrdup(pattern); /* its first look differs: one reload more, harmless */
}

void invwatch_stop(invwatch_t *w)
{
	if (w == NULL)
		return;
	w->stopping = true;
	if (w->timer != 0)
		loop_cancel(w->loop, w->timer);
	offload_destroy(w->off); /* runs a look in progress to its end, and its done */
	free(w->look_pattern);
	free(w->pattern);
	free(w);
}
