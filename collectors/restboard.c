/* SPDX-License-Identifier: Apache-2.0 */
/* restboard: the kept routerboard answer of one router (collectors/restboard.h): firmware, and
 * what resource said when it was asked. No I/O; the monotonic clock is lib/clock.h's. */
#include "config.h"
#include "collectors/restboard.h"
#include "lib/clock.h"
#include "lib/xmem.h"

#include <stdlib.h>
#include <string.h>

struct restboard {
	bool valid;
	char *firmware, *upgrade_firmware;
	char *version, *board, *url;
	int64_t uptime_ms, mono_ms;
};

restboard_t *restboard_create(void)
{
	return xcalloc(1, sizeof(restboard_t));
}

static void restboard_clear(restboard_t *b)
{
	free(b->firmware), free(b->upgrade_firmware);
	free(b->version), free(b->board), free(b->url);
	*b = (restboard_t){ .valid = false };
}

void restboard_destroy(restboard_t *b)
{
	if (b == NULL)
		return;
	restboard_clear(b);
	free(b);
}

static bool restboard_same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* The kept answer stands unless this poll's resource shows a restart (an uptime more than 10 s
 * plus 1% short of the kept one plus the time since), another version or board, the config
 * points at another URL, or it is RESTBOARD_EVERY_MS old. */
bool restboard_fresh(const restboard_t *b, const sample_t *s, const char *url)
{
	if (!b->valid || !restboard_same(b->version, s->version) || !restboard_same(b->board, s->board) ||
		!restboard_same(b->url, url))
		return false;
	int64_t since = clock_mono_ms() - b->mono_ms;
	return since < RESTBOARD_EVERY_MS && s->uptime_ms >= 0 &&
		s->uptime_ms + 10000 + since / 100 >= b->uptime_ms + since;
}

void restboard_keep(restboard_t *b, const sample_t *s, const char *url)
{
	restboard_clear(b);
	*b = (restboard_t){ .valid = true,
		.firmware = xstrdup(s->firmware),
		.upgrade_firmware = xstrdup(s->upgrade_firmware),
		.version = xstrdup(s->version),
		.board = xstrdup(s->board),
		.url = xstrdup(url),
		.uptime_ms = s->uptime_ms,
		.mono_ms = clock_mono_ms() };
}

void restboard_use(const restboard_t *b, sample_t *s)
{
	free(s->firmware);
	free(s->upgrade_firmware);
	s->firmware = xstrdup(b->firmware);
	s->upgrade_firmware = xstrdup(b->upgrade_firmware);
}
