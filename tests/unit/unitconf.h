/* SPDX-License-Identifier: Apache-2.0 */
/* unitconf: the config tests' shared fixture: a config text loaded from a file of the run's
 * temp directory (tests/unit/unitfs.h). Header-only, for tests; it must never be linked into
 * wgwatchd. */
#ifndef WGWATCH_TESTS_UNITCONF_H
#define WGWATCH_TESTS_UNITCONF_H

#include "daemon/conf.h"
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

#endif
