/* SPDX-License-Identifier: Apache-2.0 */
/* ros_test: table-driven cases for the RouterOS value parsers, good and bad forms. */
#include "config.h"
#include "daemon/ros.h"
#include "unit.h"

#include <stdbool.h>
#include <stdint.h>

static void test_u64(void)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t want;
	} cases[] = {
		{ "0", 0, 0 },
		{ "7", 0, 7 },
		{ "47538416", 0, 47538416 },
		{ "70563654783", 0, UINT64_C(70563654783) },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "0007", 0, 7 },
		{ "18446744073709551616", -1, 0 },
		{ "99999999999999999999999", -1, 0 },
		{ "", -1, 0 },
		{ "-1", -1, 0 },
		{ "+1", -1, 0 },
		{ " 1", -1, 0 },
		{ "1 ", -1, 0 },
		{ "1.5", -1, 0 },
		{ "0x10", -1, 0 },
		{ "1e3", -1, 0 },
		{ "abc", -1, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		const char *cause = NULL;
		int rc = ros_parse_u64(cases[i].in, &v, &cause);
		CHECK_INT(rc, cases[i].rc);
		if (rc == 0)
			CHECK(v == cases[i].want);
		else
			CHECK(cause != NULL && v == 12345);
	}
	const char *cause = NULL;
	uint64_t v;
	CHECK_INT(ros_parse_u64(NULL, &v, &cause), -1);
}

static void test_percent(void)
{
	static const struct {
		const char *in;
		int rc;
		double want;
	} cases[] = {
		{ "0", 0, 0.0 },
		{ "3", 0, 0.03 },
		{ "12.5", 0, 0.125 },
		{ "100", 0, 1.0 },
		{ "100.0", 0, 1.0 },
		{ "0.1", 0, 0.001 },
		{ "33.3333333", 0, 0.333333 },
		{ "101", -1, 0 },
		{ "100.5", -1, 0 },
		{ "", -1, 0 },
		{ "-1", -1, 0 },
		{ "5%", -1, 0 },
		{ "12.", -1, 0 },
		{ ".5", -1, 0 },
		{ "1e1", -1, 0 },
		{ "nan", -1, 0 },
		{ " 5", -1, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double r = -7;
		const char *cause = NULL;
		int rc = ros_parse_percent(cases[i].in, &r, &cause);
		CHECK_INT(rc, cases[i].rc);
		if (rc == 0)
			CHECK_NEAR(r, cases[i].want, 1e-6);
		else
			CHECK(cause != NULL && r == -7);
	}
}

static void test_bool(void)
{
	static const struct {
		const char *in;
		int rc;
		bool want;
	} cases[] = {
		{ "true", 0, true },
		{ "false", 0, false },
		{ "yes", 0, true },
		{ "no", 0, false },
		{ "", -1, false },
		{ "True", -1, false },
		{ "1", -1, false },
		{ "truex", -1, false },
		{ " true", -1, false },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool b = !cases[i].want;
		const char *cause = NULL;
		int rc = ros_parse_bool(cases[i].in, &b, &cause);
		CHECK_INT(rc, cases[i].rc);
		if (rc == 0)
			CHECK(b == cases[i].want);
		else
			CHECK(cause != NULL);
	}
}

#define S   1000
#define MIN (60 * S)
#define H   (60 * MIN)
#define D   (24 * (int64_t)H)
#define W   (7 * D)

static void test_duration(void)
{
	static const struct {
		const char *in;
		int rc;
		int64_t want;
	} cases[] = {
		{ "12s", 0, 12 * S },
		{ "0s", 0, 0 },
		{ "1m5s", 0, MIN + 5 * S },
		{ "10h4m29s", 0, 10 * H + 4 * MIN + 29 * S },
		{ "2d20h12m20s", 0, 2 * D + 20 * H + 12 * MIN + 20 * S },
		{ "1w4d23h26m9s", 0, W + 4 * D + 23 * H + 26 * MIN + 9 * S },
		{ "40w6d5h1m24s", 0, 40 * W + 6 * D + 5 * H + MIN + 24 * S },
		{ "250ms", 0, 250 },
		{ "1s250ms", 0, 1250 },
		{ "1m250ms", 0, MIN + 250 },
		{ "10us", 0, 0 },
		{ "1999us", 0, 1 },
		{ "1ms999us", 0, 1 },
		{ "3h", 0, 3 * H },
		{ "5d", 0, 5 * D },
		{ "90s", 0, 90 * S },
		{ "00:00:10", 0, 10 * S },
		{ "1d00:00:00", 0, D },
		{ "1w2d03:04:05", 0, W + 2 * D + 3 * H + 4 * MIN + 5 * S },
		{ "2w23:59:59", 0, 2 * W + 23 * H + 59 * MIN + 59 * S },
		{ "", -1, 0 },
		{ "s", -1, 0 },
		{ "12", -1, 0 },
		{ "12x", -1, 0 },
		{ "1y", -1, 0 },
		{ "5s1m", -1, 0 },
		{ "1m1m", -1, 0 },
		{ "1s1s", -1, 0 },
		{ "1ms1s", -1, 0 },
		{ "1us1ms", -1, 0 },
		{ "1d1w", -1, 0 },
		{ "-5s", -1, 0 },
		{ "+5s", -1, 0 },
		{ " 5s", -1, 0 },
		{ "5s ", -1, 0 },
		{ "5 s", -1, 0 },
		{ "1.5s", -1, 0 },
		{ "5S", -1, 0 },
		{ "99999999999999999999w", -1, 0 },
		{ "15250284452w", -1, 0 },
		{ "9223372036854775807s", -1, 0 },
		{ "00:00:1", -1, 0 },
		{ "0:00:10", -1, 0 },
		{ "00:60:00", -1, 0 },
		{ "00:00:60", -1, 0 },
		{ "24:00:00", -1, 0 },
		{ "00:00:10s", -1, 0 },
		{ "1h00:00:00", -1, 0 },
		{ "00:00", -1, 0 },
		{ "1d00:00:00:00", -1, 0 },
		{ "1d00-00-00", -1, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t ms = -7;
		const char *cause = NULL;
		int rc = ros_parse_duration(cases[i].in, &ms, &cause);
		if (rc != cases[i].rc)
			fprintf(stderr, "duration case \"%s\"\n", cases[i].in);
		CHECK_INT(rc, cases[i].rc);
		if (rc == 0)
			CHECK_INT(ms, cases[i].want);
		else
			CHECK(cause != NULL && ms == -7);
	}
	/* Microsecond arithmetic holds 15250284 weeks; one more week factor overflows. */
	int64_t ms;
	const char *cause;
	CHECK_INT(ros_parse_duration("15250284w", &ms, &cause), 0);
	CHECK_INT(ms, 15250284 * W);
	CHECK_INT(ros_parse_duration(NULL, &ms, &cause), -1);
}

static void test_version_parse(void)
{
	static const struct {
		const char *in;
		int rc, major, minor, patch, pre, pre_num;
		const char *text, *channel;
	} cases[] = {
		{ "7.22.3 (stable)", 0, 7, 22, 3, 0, 0, "7.22.3", "stable" },
		{ "7.1beta4 (development)", 0, 7, 1, 0, 1, 4, "7.1beta4", "development" },
		{ "7.14.3 (long-term)", 0, 7, 14, 3, 0, 0, "7.14.3", "long-term" },
		{ "7.8", 0, 7, 8, 0, 0, 0, "7.8", "" },
		{ "7.23rc1", 0, 7, 23, 0, 2, 1, "7.23rc1", "" },
		{ "7.23beta2 (testing)", 0, 7, 23, 0, 1, 2, "7.23beta2", "testing" },
		{ "7.10.1rc2", 0, 7, 10, 1, 2, 2, "7.10.1rc2", "" },
		{ "6.40.5", 0, 6, 40, 5, 0, 0, "6.40.5", "" },
		{ "", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.", -1, 0, 0, 0, 0, 0, "", "" },
		{ "v7.1", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1.", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1.2.3", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1beta", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1alpha1", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1 stable", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1 (stable", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1 (stable) ", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1 ()", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1 (Stable)", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1  (stable)", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1 (averyveryverylongchannel)", -1, 0, 0, 0, 0, 0, "", "" },
		{ "-7.1", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.999999", -1, 0, 0, 0, 0, 0, "", "" },
		{ "7.1.1111111111111111111111111", -1, 0, 0, 0, 0, 0, "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ros_version v;
		const char *cause = NULL;
		int rc = ros_parse_version(cases[i].in, &v, &cause);
		if (rc != cases[i].rc)
			fprintf(stderr, "version case \"%s\"\n", cases[i].in);
		CHECK_INT(rc, cases[i].rc);
		if (rc != 0) {
			CHECK(cause != NULL);
			continue;
		}
		CHECK_INT(v.major, cases[i].major);
		CHECK_INT(v.minor, cases[i].minor);
		CHECK_INT(v.patch, cases[i].patch);
		CHECK_INT(v.pre, cases[i].pre);
		CHECK_INT(v.pre_num, cases[i].pre_num);
		CHECK_STR(v.text, cases[i].text);
		CHECK_STR(v.channel, cases[i].channel);
	}
}

static int cmp_str(const char *a, const char *b)
{
	struct ros_version va, vb;
	const char *cause;
	if (ros_parse_version(a, &va, &cause) < 0 || ros_parse_version(b, &vb, &cause) < 0)
		return 99;
	return ros_version_cmp(&va, &vb);
}

static void test_version_cmp(void)
{
	/* Each strictly older than the next. */
	static const char *const order[] = {
		"6.49.10",
		"7.1beta4",
		"7.1beta5",
		"7.1rc1",
		"7.1rc3",
		"7.1",
		"7.1.1",
		"7.8",
		"7.9beta1",
		"7.9",
		"7.10",
		"7.14.3",
		"7.22.3",
		"7.23beta2",
		"7.23rc1",
		"7.23",
	};
	size_t n = sizeof(order) / sizeof(order[0]);
	for (size_t i = 0; i + 1 < n; i++) {
		CHECK_INT(cmp_str(order[i], order[i + 1]), -1);
		CHECK_INT(cmp_str(order[i + 1], order[i]), 1);
	}
	CHECK_INT(cmp_str("7.8", "7.8.0"), 0);
	CHECK_INT(cmp_str("7.8.0 (stable)", "7.8 (long-term)"), 0);
	CHECK_INT(cmp_str("7.22.3 (stable)", "7.22.3"), 0);
}

/* The store's order over stored version text (ros_version_cmp_text), alpha as beta. */
static void test_version_cmp_text(void)
{
	static const struct {
		const char *a, *b;
		int want;
	} cases[] = {
		{ "7.9", "7.10", -1 },
		{ "7.8", "7.8.0", 0 },
		{ "7.23beta2", "7.23rc1", -1 },
		{ "7.23rc1", "7.23", -1 },
		{ "7.22.3", "7.22.10", -1 },
		{ "8.0", "7.99", 1 },
		{ "7.1beta4", "7.1beta10", -1 },
		{ "7.16", "7.15.3", 1 },
		{ "", "7.1", -1 },
		{ "7.2alpha3", "7.2beta3", 0 },
		{ "garbage", "0.0", 0 },
		{ "7.22.3", "7.22.3", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(ros_version_cmp_text(cases[i].a, cases[i].b), cases[i].want);
		CHECK_INT(ros_version_cmp_text(cases[i].b, cases[i].a), -cases[i].want);
	}
}

int main(void)
{
	test_u64();
	test_percent();
	test_bool();
	test_duration();
	test_version_parse();
	test_version_cmp();
	test_version_cmp_text();
	return unit_done("ros_test");
}
