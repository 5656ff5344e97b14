/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_ros: libFuzzer harness for the RouterOS value parsers (collectors/ros.c). The input is
 * one value string as a router would send it; every parser must accept it whole or reject it
 * with a cause, and what it accepts must satisfy the documented ranges. Never touches files. */
#include "config.h"
#include "daemon/ros.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_u64(const char *s)
{
	uint64_t v;
	const char *cause = NULL;
	if (ros_parse_u64(s, &v, &cause) < 0) {
		assert(cause != NULL);
		return;
	}
	/* Without leading zeros the text is exactly the decimal of the value. */
	char back[24];
	snprintf(back, sizeof(back), "%" PRIu64, v);
	assert(s[0] == '0' || strcmp(back, s) == 0);
}

static void fuzz_percent(const char *s)
{
	double r;
	const char *cause = NULL;
	if (ros_parse_percent(s, &r, &cause) < 0)
		assert(cause != NULL);
	else
		assert(r >= 0.0 && r <= 1.0);
}

static void fuzz_bool(const char *s)
{
	bool b;
	const char *cause = NULL;
	if (ros_parse_bool(s, &b, &cause) < 0)
		assert(cause != NULL);
}

static void fuzz_duration(const char *s)
{
	int64_t ms = -1;
	const char *cause = NULL;
	if (ros_parse_duration(s, &ms, &cause) < 0)
		assert(cause != NULL);
	else
		assert(ms >= 0);
}

/* An accepted version must be normalised: its text parses again to the same version. */
static void fuzz_version(const char *s)
{
	struct ros_version v, w;
	const char *cause = NULL;
	if (ros_parse_version(s, &v, &cause) < 0) {
		assert(cause != NULL);
		return;
	}
	assert(memchr(v.text, '\0', sizeof(v.text)) != NULL);
	assert(memchr(v.channel, '\0', sizeof(v.channel)) != NULL);
	assert(v.pre >= 0 && v.pre <= 2);
	assert(ros_parse_version(v.text, &w, &cause) == 0);
	assert(ros_version_cmp(&v, &w) == 0 && ros_version_cmp(&w, &v) == 0);
	assert(strcmp(v.text, w.text) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	fuzz_u64(s);
	fuzz_percent(s);
	fuzz_bool(s);
	fuzz_duration(s);
	fuzz_version(s);
	free(s);
	return 0;
}
