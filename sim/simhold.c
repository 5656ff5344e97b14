/* SPDX-License-Identifier: Apache-2.0 */
/* simhold: the requests a simulated router holds or makes wait: RouterOS's REST server runs one
 * user's requests one at a time, in the order they arrive (simq keeps the order), and answers a
 * command with a duration when it is over. Parks and resumes through simhttp; never blocks,
 * never logs. */
#include "config.h"
#include "sim/simhttp_int.h"
#include "sim/simq.h"
#include "sim/simrest.h"

#include <microhttpd.h>
#include <stdbool.h>

void simhold_release(struct req *r)
{
	struct host *ho = r->ho;
	if (!r->entered)
		return;
	r->entered = false;
	if (!simq_running(ho->q, r->user, r)) {
		simq_drop(ho->q, r);
		return;
	}
	struct req *next = simq_done(ho->q, r->user);
	if (next && !ho->stopping)
		simhttp_wake(ho->h, next, false);
}

bool simhold_take_turn(struct req *r)
{
	struct host *ho = r->ho;
	if (r->entered)
		return true; /* resumed: its turn came */
	int user = simrest_user(simrouter_scenario(ho->r),
		MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Authorization"));
	if (user < 0)
		return true; /* no user: the 401 does not wait */
	if (!ho->q)
		ho->q = simq_create();
	r->entered = true;
	r->user = user;
	if (simq_enter(ho->q, user, r))
		return true;
	simhttp_park(ho->h, r, P_QUEUE);
	return false;
}

void simhold_keep(struct req *r, struct simresp *rs, double now)
{
	r->held = *rs; /* the body is r's now */
	r->ready = true;
	r->due = now + rs->hold;
	simhttp_hold_sleep(r->ho->h, r);
}
