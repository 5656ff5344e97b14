/* SPDX-License-Identifier: Apache-2.0 */
/* complain: counts the occurrences of a repeating condition and says which to report, so that a
 * condition that lasts writes a few lines, not one per occurrence. It never logs by itself. */
#include "config.h"
#include "lib/complain.h"

void complain_init(complain_t *c, uint64_t every)
{
	*c = (complain_t){ .every = every };
}

bool complain_note(complain_t *c, uint64_t *held)
{
	c->count++;
	if (c->count == 1 || c->every <= 1 || c->held + 1 >= c->every) {
		*held = c->held;
		c->held = 0;
		return true;
	}
	c->held++;
	return false;
}

uint64_t complain_release(complain_t *c)
{
	uint64_t n = c->count;
	c->count = c->held = 0;
	return n;
}
