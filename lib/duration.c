/* SPDX-License-Identifier: Apache-2.0 */
/* duration: the one duration grammar (duration.h). A number is digits, with flags a fraction
 * after one '.'; no sign, no space, no exponent, no hexadecimal (strtod would take "0x10" and
 * "1e3"). It must never overflow: a total beyond INT64_MAX milliseconds is refused. */
#include "config.h"
#include "lib/duration.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define DURATION_NEEDS_UNIT "needs a unit: ms, s, m, h, d or w (e.g. 30s, 1h30m)"
#define DURATION_NOT_ONE \
	"is not a duration: use a number with a unit, e.g. 250ms, 30s, 5m, 2h, 7d, 1w or 1h30m"

static const struct {
	const char *unit;
	int64_t ms;
} duration_units[] = { { "w", 604800000 }, { "d", 86400000 }, { "h", 3600000 }, { "m", 60000 }, { "s", 1000 },
	{ "ms", 1 } };

#define DURATION_NUNITS (sizeof(duration_units) / sizeof(duration_units[0]))

static int64_t duration_unit(const char *u, size_t n)
{
	for (size_t i = 0; i < DURATION_NUNITS; i++)
		if (strlen(duration_units[i].unit) == n && memcmp(duration_units[i].unit, u, n) == 0)
			return duration_units[i].ms;
	return 0;
}

/* The number at *s (digits, and with fractions a '.' and digits) into *v; *s moved past it.
 * False when there is none. */
static bool duration_number(const char **s, bool fractions, double *v)
{
	const char *p = *s;
	double x = 0;
	if (!isdigit((unsigned char)*p))
		return false;
	for (; isdigit((unsigned char)*p); p++)
		x = x * 10 + (*p - '0');
	if (fractions && *p == '.' && isdigit((unsigned char)p[1]))
		for (double f = 0.1; isdigit((unsigned char)*++p); f /= 10)
			x += f * (*p - '0');
	*v = x;
	*s = p;
	return true;
}

int duration_parse(const char *s, unsigned flags, int64_t *ms, const char **cause)
{
	double total = 0;
	bool first = true;
	if (strcmp(s, "0") == 0) { /* zero needs no unit: "hold = 0" */
		*ms = 0;
		return 0;
	}
	do {
		double v;
		if (!duration_number(&s, flags & DURATION_FRACTIONS, &v)) {
			*cause = DURATION_NOT_ONE;
			return -1;
		}
		size_t ulen = strspn(s, "abcdefghijklmnopqrstuvwxyz");
		int64_t unit = duration_unit(s, ulen);
		if (ulen == 0 && *s == '\0' && first && (flags & DURATION_BARE_SECONDS))
			unit = 1000;
		if (unit == 0) {
			*cause = ulen == 0 && *s == '\0' ? DURATION_NEEDS_UNIT : DURATION_NOT_ONE;
			return -1;
		}
		total += v * (double)unit;
		if (!(total < 9.2e18)) { /* below INT64_MAX, with room for the rounding */
			*cause = "is too large";
			return -1;
		}
		s += ulen;
		first = false;
	} while (*s != '\0');
	*ms = (int64_t)llround(total);
	return 0;
}

void duration_fmt(buf_t *b, int64_t ms)
{
	if (ms == 0) {
		buf_puts(b, "0s");
		return;
	}
	for (size_t i = 1; i < DURATION_NUNITS; i++) { /* from days: weeks are said as days */
		if (ms >= duration_units[i].ms) {
			buf_printf(
				b, "%lld%s", (long long)(ms / duration_units[i].ms), duration_units[i].unit);
			ms %= duration_units[i].ms;
		}
	}
}
