/* SPDX-License-Identifier: Apache-2.0 */
/* complain_test: lib/complain.c. Each case is a run of occurrences ('x') and recoveries ('.')
 * with the reports it must give: 'r' an occurrence reported, '-' one held back, 'R' a recovery
 * reported, '_' a recovery with nothing to say; and the held counts of the reports in order. */
#include "config.h"
#include "lib/complain.h"
#include "unit.h"

struct complain_case {
	uint64_t every;
	const char *events;
	const char *want;
	uint64_t held[8];  /* *held of each report, in order */
	uint64_t freed[4]; /* complain_release's result of each 'R', in order */
};

static const struct complain_case complain_cases[] = {
	{ 0, "xxx", "rrr", { 0, 0, 0 }, { 0 } },
	{ 1, "xx.x", "rrRr", { 0, 0, 0 }, { 2 } },
	{ 3, "xxxxxxxx", "r--r--r-", { 0, 2, 2 }, { 0 } },
	{ 3, "xx.xxxx.", "r-Rr--rR", { 0, 0, 2 }, { 2, 4 } },
	{ 10, "..x.", "__rR", { 0 }, { 1 } },
	{ 2, "xxxxx..x", "r-r-rR_r", { 0, 1, 1, 0 }, { 5 } },
};

static void complain_run(const struct complain_case *t)
{
	complain_t c;
	char got[32] = { 0 };
	size_t nheld = 0, nfreed = 0;
	complain_init(&c, t->every);
	for (size_t i = 0; t->events[i] != '\0' && i < sizeof(got) - 1; i++) {
		uint64_t held = 99, n;
		if (t->events[i] == 'x') {
			bool report = complain_note(&c, &held);
			got[i] = report ? 'r' : '-';
			if (report && nheld < 8)
				CHECK_INT(held, t->held[nheld++]);
		} else {
			n = complain_release(&c);
			got[i] = n > 0 ? 'R' : '_';
			if (n > 0 && nfreed < 4)
				CHECK_INT(n, t->freed[nfreed++]);
		}
	}
	CHECK_STR(got, t->want);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(complain_cases) / sizeof(complain_cases[0]); i++)
		complain_run(&complain_cases[i]);
	return unit_done("complain_test");
}
