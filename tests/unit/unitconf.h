/* SPDX-License-Identifier: Apache-2.0 */
/* unitconf: the tests' configs: a config text loaded from a file of the run's temp directory
 * (tests/unit/unitfs.h), or a config built in code, router by router, freed by conf_free as a
 * loaded one is. Header-only, for tests; it must never be linked into wgwatchd. */
#ifndef WGWATCH_TESTS_UNITCONF_H
#define WGWATCH_TESTS_UNITCONF_H

#include "daemon/conf.h"
#include "lib/xmem.h"
#include "unitfs.h"

#include <stdlib.h>

/* Load text as dir/name; returns conf_load's result, *c and *e set (caller frees). */
static inline int unitconf_load(const char *dir, const char *name, const char *text, conf_t **c, char **e)
{
	char *p = unitfs_put(dir, name, 0644, text);
	*c = NULL;
	*e = NULL;
	int rc = conf_load(p, c, e);
	free(p);
	return rc;
}

/* A router named name appended to c's (pointers into c->routers before it go stale), all else
 * zero: the test sets what it needs, its strings on the heap for conf_free. */
static inline conf_router_t *unitconf_router(conf_t *c, const char *name)
{
	c->routers = xreallocarray(c->routers, c->nrouters + 1, sizeof(*c->routers));
	conf_router_t *r = &c->routers[c->nrouters++];
	*r = (conf_router_t){ .name = xstrdup(name) };
	return r;
}

/* key=value appended to r's labels. */
static inline void unitconf_label(conf_router_t *r, const char *key, const char *value)
{
	r->labels = xreallocarray(r->labels, r->nlabels + 1, sizeof(*r->labels));
	r->labels[r->nlabels].key = xstrdup(key);
	r->labels[r->nlabels++].value = xstrdup(value);
}

#endif
