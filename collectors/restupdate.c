/* SPDX-License-Identifier: Apache-2.0 */
/* restupdate: the kept /system/package/update answer (restupdate.h). It never asks anything
 * itself and never starts a check with MikroTik's servers: it only says when to read. */
#include "config.h"
#include "collectors/restupdate.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

struct restupdate {
	char *offered, *status, *url;
	int64_t asked_ms; /* monotonic; 0 never */
};

restupdate_t *restupdate_create(void)
{
	return xcalloc(1, sizeof(restupdate_t));
}

static void restupdate_clear(restupdate_t *u)
{
	free(u->offered), free(u->status), free(u->url);
	*u = (restupdate_t){ 0 };
}

void restupdate_destroy(restupdate_t *u)
{
	if (u == NULL)
		return;
	restupdate_clear(u);
	free(u);
}

bool restupdate_use(restupdate_t *u, const conf_router_t *rc, sample_t *s, int64_t now_ms)
{
	if (!rc->check_updates)
		return true;
	bool same = u->url != NULL && rc->rest != NULL && strcmp(u->url, rc->rest) == 0;
	if (u->asked_ms == 0 || !same || now_ms - u->asked_ms >= RESTUPDATE_EVERY_MS) {
		restupdate_clear(u);
		u->asked_ms = now_ms;
		u->url = xstrdup(rc->rest);
		return false;
	}
	s->offered_version = xstrdup(u->offered);
	s->update_status = xstrdup(u->status);
	return true;
}

void restupdate_keep(restupdate_t *u, const sample_t *s)
{
	free(u->offered), free(u->status);
	u->offered = xstrdup(s->offered_version);
	u->status = xstrdup(s->update_status);
}
