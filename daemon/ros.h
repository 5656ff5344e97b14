/* SPDX-License-Identifier: Apache-2.0 */
/* ros: strict parsers for RouterOS value strings (every REST value is a JSON string):
 * numbers, booleans, durations ("40w6d5h1m24s", "1m5s", "250ms", "1w2d03:04:05"), versions
 * ("7.22.3 (stable)", "7.1beta4 (development)"). Input is untrusted; parsers never log and
 * return -1 with a reason in *cause (static string) on any malformed input. */
#ifndef WGWATCH_ROS_H
#define WGWATCH_ROS_H

#include <stdbool.h>
#include <stdint.h>

int ros_parse_u64(const char *s, uint64_t *out, const char **cause); /* "0".."18446744073709551615" */
int ros_parse_percent(
	const char *s, double *ratio, const char **cause);              /* "0".."100" (also "12.5") -> 0..1 */
int ros_parse_bool(const char *s, bool *out, const char **cause);       /* "true"/"false" (also yes/no) */
int ros_parse_duration(const char *s, int64_t *ms, const char **cause); /* -> milliseconds */

struct ros_version {
	int major, minor, patch; /* "7.8" -> patch 0 */
	int pre;                 /* 0 stable release; 1 beta; 2 rc */
	int pre_num;             /* N of betaN / rcN */
	char text[32];           /* normalised, channel stripped: "7.22.3", "7.1beta4" */
	char channel[16];        /* "stable", "long-term", "testing", "development" or "" */
};
/* Accepts "7.22.3", "7.22.3 (stable)", "7.1beta4 (development)". */
int ros_parse_version(const char *s, struct ros_version *v, const char **cause);
int ros_version_cmp(const struct ros_version *a, const struct ros_version *b); /* <0, 0, >0 */
/* The same order over any stored version text, read leniently: 7.9 < 7.10, 7.8 == 7.8.0,
 * 7.23beta2 < 7.23rc1 < 7.23; what is not a version sorts as 0.0.0. */
int ros_version_cmp_text(const char *a, const char *b);

#endif
