/* SPDX-License-Identifier: Apache-2.0 */
/* restopt: the state of a router's optional REST menus (restopt.h): good or failing since when
 * and why, when each may be asked again, and their log lines. It decides nothing about the
 * required menus and must never fail a poll; the reasons it keeps and logs are the callers',
 * already printable and free of secrets. */
#include "config.h"
#include "collectors/restopt.h"
#include "collectors/healthkeep.h"
#include "collectors/restupdate.h"
#include "collectors/restwan.h"
#include "lib/clock.h"
#include "lib/complain.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define RESTOPT_BOARD_RETRY_MS 60000

/* Each menu: its path (the metric's label and the page's line), how a log line names it, what
 * its failure costs, how long a failing one waits before it is asked again (its usual period,
 * and a minute for routerboard, asked each poll while unanswered), and every how many failures
 * a failing one is logged again (about daily for those asked hourly, hourly for the others). */
static const struct restopt_def {
	const char *path, *what, *lost, *again;
	int64_t retry_ms;
	uint64_t every;
} restopt_defs[RESTOPT_NMENUS] = {
	[RESTOPT_BOARD] = { "/system/routerboard", "/system/routerboard", "the firmware is not known",
		"a minute", RESTOPT_BOARD_RETRY_MS, 60 },
	[RESTOPT_HEALTH] = { "/system/health", "/system/health", "no health readings", "a minute",
		HEALTHKEEP_EVERY_MS, 60 },
	[RESTOPT_UPDATE] = { "/system/package/update", "/system/package/update", "no version offered",
		"an hour", RESTUPDATE_EVERY_MS, 24 },
	[RESTOPT_ROUTE] = { "/ip/route/check", "/ip/route/check of a peer's endpoint",
		"its WAN is not found from the peers' endpoints (`wan =` names it)", "an hour",
		RESTWAN_EVERY_MS, 24 },
};

struct restopt_state {
	bool asked;
	char *why;         /* NULL while good */
	int64_t since_ms;  /* wall clock of the first failure in a row */
	int64_t failed_ms; /* monotonic, of the newest failure */
	complain_t complain;
};

struct restopt {
	struct restopt_state m[RESTOPT_NMENUS];
};

restopt_t *restopt_create(void)
{
	restopt_t *o = xcalloc(1, sizeof(*o));
	for (int m = 0; m < RESTOPT_NMENUS; m++)
		complain_init(&o->m[m].complain, restopt_defs[m].every);
	return o;
}

void restopt_destroy(restopt_t *o)
{
	if (o == NULL)
		return;
	for (int m = 0; m < RESTOPT_NMENUS; m++)
		free(o->m[m].why);
	free(o);
}

int restopt_of(enum restdecode_step step)
{
	switch (step) {
	case RESTDECODE_BOARD: return RESTOPT_BOARD;
	case RESTDECODE_HEALTH: return RESTOPT_HEALTH;
	case RESTDECODE_UPDATE: return RESTOPT_UPDATE;
	default: return -1;
	}
}

bool restopt_waiting(const restopt_t *o, enum restopt_menu m, int64_t now_ms)
{
	const struct restopt_state *st = &o->m[m];
	return st->why != NULL && now_ms - st->failed_ms < restopt_defs[m].retry_ms;
}

void restopt_good(restopt_t *o, enum restopt_menu m, const char *router)
{
	struct restopt_state *st = &o->m[m];
	st->asked = true;
	if (st->why == NULL)
		return;
	free(st->why);
	st->why = NULL;
	st->since_ms = 0;
	uint64_t n = complain_release(&st->complain);
	if (n > 0)
		log_info("rest: router %s: %s answers again, after %" PRIu64 " failed request%s", router,
			restopt_defs[m].what, n, n == 1 ? "" : "s");
}

/* What s holds of m goes: absent, not zero, where the menu did not answer. */
static void restopt_drop(enum restopt_menu m, sample_t *s)
{
	if (s == NULL)
		return;
	if (m == RESTOPT_BOARD) {
		free(s->firmware), free(s->upgrade_firmware);
		s->firmware = s->upgrade_firmware = NULL;
	} else if (m == RESTOPT_HEALTH) {
		sample_copy_sensors(s, &(sample_t){ 0 });
		s->health_fresh = false;
	} else if (m == RESTOPT_UPDATE) {
		free(s->offered_version), free(s->update_status);
		s->offered_version = s->update_status = NULL;
	}
}

void restopt_failed(
	restopt_t *o, enum restopt_menu m, const char *router, const char *why, sample_t *s, int64_t now_ms)
{
	struct restopt_state *st = &o->m[m];
	const struct restopt_def *d = &restopt_defs[m];
	restopt_drop(m, s);
	if (st->why == NULL)
		st->since_ms = clock_wall_ms();
	free(st->why);
	st->why = xstrdup(why);
	st->asked = true;
	st->failed_ms = now_ms;
	uint64_t held;
	if (!complain_note(&st->complain, &held))
		return;
	char more[64] = "";
	if (held > 0)
		snprintf(more, sizeof(more), " (%" PRIu64 " more failures not logged)", held);
	log_warn("rest: router %s: %s failed (%s): %s; the router stays up, the menu is asked again in %s%s",
		router, d->what, why, d->lost, d->again, more);
}

void restopt_report(const restopt_t *o, sample_t *s)
{
	for (int m = 0; m < RESTOPT_NMENUS; m++)
		if (o->m[m].asked)
			sample_add_menu(s, restopt_defs[m].path, o->m[m].why, o->m[m].since_ms);
}
