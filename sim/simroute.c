/* SPDX-License-Identifier: Apache-2.0 */
/* simroute: longest-prefix match over a scenario's `routes`, for wgwatch-sim's answer to
 * `POST /rest/ip/route/check`. It must never allocate per entry nor keep state: the table is
 * parsed from the scenario's string at each check (a handful of entries). */
#include "config.h"
#include "sim/simroute.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIMROUTE_NAME 64

struct simroute_entry {
	uint32_t net;
	int len;
	char iface[SIMROUTE_NAME];
};

static bool simroute_addr(const char *s, size_t n, uint32_t *out)
{
	char buf[INET_ADDRSTRLEN];
	struct in_addr a;
	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET, buf, &a) != 1)
		return false;
	*out = ntohl(a.s_addr);
	return true;
}

/* One entry "PREFIX/LEN IFACE" of n bytes (surrounding spaces allowed): true when sound. */
static bool simroute_entry(const char *s, size_t n, struct simroute_entry *e)
{
	while (n > 0 && *s == ' ')
		s++, n--;
	while (n > 0 && s[n - 1] == ' ')
		n--;
	const char *slash = memchr(s, '/', n), *sp = memchr(s, ' ', n);
	if (slash == NULL || sp == NULL || slash > sp || !simroute_addr(s, (size_t)(slash - s), &e->net))
		return false;
	char *end;
	long len = strtol(slash + 1, &end, 10);
	if (end != sp || len < 0 || len > 32)
		return false;
	e->len = (int)len;
	while (*sp == ' ')
		sp++;
	size_t name = n - (size_t)(sp - s);
	if (name == 0 || name >= sizeof(e->iface))
		return false;
	memcpy(e->iface, sp, name);
	e->iface[name] = '\0';
	return true;
}

static uint32_t simroute_mask(int len)
{
	return len == 0 ? 0 : 0xffffffffu << (32 - len);
}

/* Walks routes calling each entry into *best when it matches dst longer; -1 on a bad entry. */
static int simroute_walk(const char *routes, uint32_t dst, struct simroute_entry *best, int *best_no)
{
	int no = 1; /* 0 is the implicit default */
	for (const char *s = routes; s != NULL && *s != '\0'; no++) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		struct simroute_entry e;
		if (!simroute_entry(s, n, &e))
			return -1;
		if ((dst & simroute_mask(e.len)) == (e.net & simroute_mask(e.len)) && e.len >= best->len) {
			*best = e;
			*best_no = no;
		}
		s = comma ? comma + 1 : NULL;
	}
	return 0;
}

int simroute_valid(const char *routes)
{
	struct simroute_entry best = { .len = -1 };
	int no = 0;
	return simroute_walk(routes, 0, &best, &no);
}

int simroute_check(
	const char *routes, const char *dst, char *iface, size_t isize, char *nexthop, size_t nsize)
{
	uint32_t a;
	if (!simroute_addr(dst, strlen(dst), &a))
		return -1;
	struct simroute_entry best = { .net = 0, .len = 0, .iface = "ether1" };
	int no = 0;
	if (simroute_walk(routes, a, &best, &no) < 0)
		return -1;
	snprintf(iface, isize, "%s", best.iface);
	snprintf(nexthop, nsize, "192.0.2.%d", no + 1); /* a gateway per route (TEST-NET-1) */
	return 0;
}
