/* SPDX-License-Identifier: Apache-2.0 */
/* auth_test: the web listener's credential check (right, wrong, missing, prefixes) and its
 * failed-attempt throttle (burst, refill, IPv4 and IPv4-mapped alike, IPv6 by /64, other
 * addresses untouched). Includes auth.c to reach auth_equal. */
#include "web/auth.c"

#include <arpa/inet.h>

#include "unit.h"

static void test_equal(void)
{
	CHECK(auth_equal("s3cret", "s3cret", 6));
	CHECK(!auth_equal("s3cre", "s3cret", 6));
	CHECK(!auth_equal("s3cret!", "s3cret", 6));
	CHECK(!auth_equal("", "s3cret", 6));
	CHECK(!auth_equal("S3cret", "s3cret", 6));
	CHECK(!auth_equal("s3cret\x80", "s3cret", 6));
	auth_t *a = auth_create("admin", "pw");
	CHECK(auth_check(a, "admin", "pw"));
	CHECK(!auth_check(a, "admin", "pW"));
	CHECK(!auth_check(a, "admin2", "pw"));
	CHECK(!auth_check(a, NULL, "pw"));
	CHECK(!auth_check(a, "admin", NULL));
	CHECK(!auth_check(a, "", ""));
	auth_destroy(a);
	auth_destroy(NULL);
}

static struct sockaddr_storage addr(const char *s)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
	if (inet_pton(AF_INET, s, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	return ss;
}

#define SA(ss) ((const struct sockaddr *)&(ss))

static void test_throttle(void)
{
	auth_t *a = auth_create("admin", "pw");
	struct sockaddr_storage v4 = addr("192.0.2.7"), mapped = addr("::ffff:192.0.2.7");
	int64_t t = 1000000;
	int n = 0;
	while (!auth_throttled(a, SA(v4), t) && n < 100) {
		auth_failed(a, SA(v4), t);
		n++;
	}
	CHECK_INT(n, AUTH_BURST + 1);
	CHECK(auth_throttled(a, SA(mapped), t));
	CHECK(auth_throttled(a, SA(v4), t + AUTH_REFILL_MS - 1));
	CHECK(!auth_throttled(a, SA(v4), t + AUTH_REFILL_MS));
	auth_failed(a, SA(v4), t + AUTH_REFILL_MS);
	CHECK(auth_throttled(a, SA(v4), t + AUTH_REFILL_MS));
	CHECK(!auth_throttled(a, SA(v4), t + 13 * AUTH_REFILL_MS));
	/* one IPv6 /64 is one client; others are not touched */
	struct sockaddr_storage p1 = addr("2001:db8:1:2::1"), p2 = addr("2001:db8:1:2:ffff::9");
	for (int i = 0; i <= AUTH_BURST; i++)
		auth_failed(a, SA(p1), t);
	CHECK(auth_throttled(a, SA(p2), t));
	CHECK_INT(auth_key(SA(p1)) == auth_key(SA(p2)), 1);
	CHECK_INT(auth_key(SA(v4)) == auth_key(SA(mapped)), 1);
	struct sockaddr_storage other = addr("2001:db8:1:3::1");
	CHECK_INT(auth_key(SA(p1)) == auth_key(SA(other)), 0);
	CHECK(!auth_throttled(a, SA(other), t));
	auth_destroy(a);
}

/* Issue 21 item 11: 8,192 addresses using up their failed attempts must not lock out an
 * address that never failed (the old table shared 1,024 slots between all addresses), and
 * an attacker is still throttled while fewer addresses than the table holds fail beside it. */
static void test_throttle_flood(void)
{
	auth_t *a = auth_create("admin", "pw");
	int64_t t = 5000000;
	struct sockaddr_storage first = addr("198.51.100.1");
	for (int i = 0; i <= AUTH_BURST; i++)
		auth_failed(a, SA(first), t);
	char ip[64];
	for (int n = 0; n < 1000; n++) {
		snprintf(ip, sizeof(ip), "10.1.%d.%d", n / 250, n % 250 + 1);
		struct sockaddr_storage s = addr(ip);
		for (int i = 0; i <= AUTH_BURST; i++)
			auth_failed(a, SA(s), t);
		CHECK(auth_throttled(a, SA(s), t));
	}
	CHECK(auth_throttled(a, SA(first), t));
	for (int n = 0; n < 8192; n++) {
		snprintf(ip, sizeof(ip), "10.2.%d.%d", n / 250, n % 250 + 1);
		struct sockaddr_storage s = addr(ip);
		for (int i = 0; i <= AUTH_BURST; i++)
			auth_failed(a, SA(s), t);
	}
	int locked_out = 0;
	for (int n = 0; n < 5000; n++) {
		snprintf(ip, sizeof(ip), "172.16.%d.%d", n / 250, n % 250 + 1);
		struct sockaddr_storage s = addr(ip);
		locked_out += auth_throttled(a, SA(s), t);
	}
	CHECK_INT(locked_out, 0);
	auth_destroy(a);
}

int main(void)
{
	test_equal();
	test_throttle();
	test_throttle_flood();
	return unit_done("auth_test");
}
