/* SPDX-License-Identifier: Apache-2.0 */
/* fleet_test: fleet_reconfigure keeps kept routers' state, drops removed ones, starts new ones
 * empty, and releases the old conf only once the last view taken before the swap is freed. */
#include "config.h"
#include "daemon/fleet.h"
#include "unit.h"

#include <stdlib.h>

static int released;

static void release(void *arg)
{
	released += *(int *)arg;
}

static void poll(fleet_t *f, const char *name, int64_t t)
{
	sample_t *s = sample_new(name, t, "rest");
	sample_set_cores(s, 2);
	fleet_update(f, s);
	sample_free(s);
}

static const fleet_router_t *find(const fleet_view_t *v, const char *name)
{
	for (size_t i = 0; i < fleet_view_size(v); i++)
		if (strcmp(fleet_view_at(v, i)->conf->name, name) == 0)
			return fleet_view_at(v, i);
	return NULL;
}

int main(void)
{
	char a[] = "a", b[] = "b", c[] = "c", d[] = "d";
	conf_router_t r1[] = { { .name = a }, { .name = b }, { .name = c } };
	conf_router_t r2[] = { { .name = d }, { .name = b }, { .name = a } };
	conf_t c1 = { .routers = r1, .nrouters = 3 }, c2 = { .routers = r2, .nrouters = 3 };
	fleet_t *f = fleet_create(&c1);
	poll(f, "a", 1000);
	poll(f, "a", 2000);
	poll(f, "c", 1000);
	fleet_view_t *before = fleet_view(f);

	int weight = 1;
	fleet_reconfigure(f, &c2, release, &weight);
	CHECK_INT(released, 0); /* `before` still points into c1 */
	CHECK_INT(fleet_view_size(before), 3);
	CHECK_STR(fleet_view_at(before, 2)->conf->name, "c");
	CHECK_INT(find(before, "a")->polls, 2);

	fleet_view_t *after = fleet_view(f);
	CHECK_INT(fleet_view_size(after), 3);
	CHECK_STR(fleet_view_at(after, 0)->conf->name, "d"); /* the new config's order */
	CHECK(fleet_view_at(after, 2)->conf == &r2[2]);
	CHECK_INT(find(after, "a")->polls, 2); /* kept: state and sample carried */
	CHECK(find(after, "a")->last != NULL && find(after, "a")->last->time_ms == 2000);
	CHECK(find(after, "a")->up);
	CHECK_INT(find(after, "d")->polls, 0); /* new: empty */
	CHECK(find(after, "d")->last == NULL);
	CHECK(find(after, "c") == NULL); /* removed */
	poll(f, "c", 3000);              /* a late sample of a removed router: ignored */
	poll(f, "d", 3000);
	fleet_view_free(before);
	CHECK_INT(released, 1); /* the last view of c1 is gone */

	fleet_view_t *later = fleet_view(f);
	CHECK_INT(find(later, "d")->polls, 1);
	CHECK(find(later, "c") == NULL);
	fleet_reconfigure(f, &c1, NULL, NULL); /* no release: nothing called */
	fleet_view_free(after);
	fleet_view_free(later);
	CHECK_INT(released, 1);
	fleet_view_t *last = fleet_view(f);
	CHECK_INT(fleet_view_size(last), 3);
	CHECK_STR(fleet_view_at(last, 2)->conf->name, "c");
	CHECK_INT(find(last, "a")->polls, 2);
	fleet_view_free(last);
	fleet_destroy(f);
	return unit_done("fleet_test");
}
