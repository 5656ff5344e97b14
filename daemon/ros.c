/* SPDX-License-Identifier: Apache-2.0 */
/* ros: strict parsers of RouterOS value strings (routeros.md §5). Every input comes from a
 * router and is untrusted: parse it whole or reject it. Never logs, never allocates, never
 * accepts a half-parsed value (no sign, no spaces, no trailing bytes, no overflow). */
#include "config.h"
#include "daemon/ros.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static bool ros_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

/* Reads one run of decimal digits at *p into *out; advances *p. -1 on none or overflow. */
static int ros_digits(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	if (!ros_isdigit(*s))
		return -1;
	for (; ros_isdigit(*s); s++) {
		unsigned d = (unsigned)(*s - '0');
		if (v >= UINT64_MAX / 10 && (v > UINT64_MAX / 10 || d > UINT64_MAX % 10))
			return -1; /* one comparison a digit below the last decade */
		v = v * 10 + d;
	}
	*p = s;
	*out = v;
	return 0;
}

int ros_parse_u64(const char *s, uint64_t *out, const char **cause)
{
	const char *p = s;
	uint64_t v;
	if (s == NULL || *s == '\0') {
		*cause = "empty number";
		return -1;
	}
	if (!ros_isdigit(*s)) {
		*cause = "not a decimal number";
		return -1;
	}
	if (ros_digits(&p, &v) < 0) {
		*cause = "number too large";
		return -1;
	}
	if (*p != '\0') {
		*cause = "trailing bytes after number";
		return -1;
	}
	*out = v;
	return 0;
}

/* "0".."100" with an optional fraction of up to 6 digits ("12.5"). */
int ros_parse_percent(const char *s, double *ratio, const char **cause)
{
	const char *p = s;
	uint64_t whole, frac = 0, scale = 1;
	if (s == NULL || ros_digits(&p, &whole) < 0 || whole > 100) {
		*cause = "not a percentage 0..100";
		return -1;
	}
	if (*p == '.') {
		p++;
		if (!ros_isdigit(*p)) {
			*cause = "bad fraction in percentage";
			return -1;
		}
		for (; ros_isdigit(*p) && scale < 1000000; p++, scale *= 10)
			frac = frac * 10 + (uint64_t)(*p - '0');
		while (ros_isdigit(*p))
			p++; /* beyond a millionth: ignored */
	}
	if (*p != '\0' || (whole == 100 && frac != 0)) {
		*cause = "not a percentage 0..100";
		return -1;
	}
	*ratio = ((double)whole + (double)frac / (double)scale) / 100.0;
	return 0;
}

int ros_parse_bool(const char *s, bool *out, const char **cause)
{
	if (s != NULL && (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0)) {
		*out = true;
		return 0;
	}
	if (s != NULL && (strcmp(s, "false") == 0 || strcmp(s, "no") == 0)) {
		*out = false;
		return 0;
	}
	*cause = "not a boolean (true/false)";
	return -1;
}

/* Duration units, largest first; a unit's index is its rank. "ms" precedes "m" so that the
 * longer name is matched first. Values in microseconds. */
static const struct ros_unit {
	const char *name;
	size_t len; /* of name: this runs for every duration of every poll */
	int rank;
	int64_t us;
} ros_units[] = {
	{ "w", 1, 0, 7 * 86400 * INT64_C(1000000) },
	{ "d", 1, 1, 86400 * INT64_C(1000000) },
	{ "h", 1, 2, 3600 * INT64_C(1000000) },
	{ "ms", 2, 5, 1000 },
	{ "m", 1, 3, 60 * INT64_C(1000000) },
	{ "s", 1, 4, 1000000 },
	{ "us", 2, 6, 1 },
};

static const struct ros_unit *ros_unit_at(const char **p)
{
	for (size_t i = 0; i < sizeof(ros_units) / sizeof(ros_units[0]); i++) {
		const struct ros_unit *u = &ros_units[i];
		if ((*p)[0] == u->name[0] && (u->len == 1 || (*p)[1] == u->name[1])) {
			*p += u->len;
			return u;
		}
	}
	return NULL;
}

/* total += n * unit_us, refusing overflow of int64. */
static int ros_add_scaled(int64_t *total, uint64_t n, int64_t unit_us)
{
	if (n > (uint64_t)(INT64_MAX / unit_us))
		return -1;
	int64_t add = (int64_t)n * unit_us;
	if (*total > INT64_MAX - add)
		return -1;
	*total += add;
	return 0;
}

/* Colon tail "HH:MM:SS" at p, added to *us. */
static int ros_parse_clock(const char *p, int64_t *us, const char **cause)
{
	int f[3];
	for (int i = 0; i < 3; i++) {
		if (!ros_isdigit(p[0]) || !ros_isdigit(p[1]) || p[2] != (i < 2 ? ':' : '\0')) {
			*cause = "bad HH:MM:SS in duration";
			return -1;
		}
		f[i] = (p[0] - '0') * 10 + (p[1] - '0');
		p += 3;
	}
	if (f[0] > 23 || f[1] > 59 || f[2] > 59) {
		*cause = "HH:MM:SS out of range in duration";
		return -1;
	}
	if (ros_add_scaled(us, (uint64_t)(f[0] * 3600 + f[1] * 60 + f[2]), 1000000) < 0) {
		*cause = "duration too large";
		return -1;
	}
	return 0;
}

/* True when p begins "DD:" (the colon form's clock). */
static bool ros_clock_ahead(const char *p)
{
	return ros_isdigit(p[0]) && ros_isdigit(p[1]) && p[2] == ':';
}

int ros_parse_duration(const char *s, int64_t *ms, const char **cause)
{
	const char *p = s;
	int64_t us = 0;
	int last = -1;
	if (s == NULL || *s == '\0') {
		*cause = "empty duration";
		return -1;
	}
	while (*p != '\0') {
		if (last <= 1 && ros_clock_ahead(p)) {
			if (ros_parse_clock(p, &us, cause) < 0)
				return -1;
			*ms = us / 1000;
			return 0;
		}
		uint64_t n;
		if (ros_digits(&p, &n) < 0) {
			*cause = ros_isdigit(*p) ? "duration too large" : "bad duration";
			return -1;
		}
		const struct ros_unit *u = ros_unit_at(&p);
		if (u == NULL) {
			*cause = "unknown or missing unit in duration";
			return -1;
		}
		if (u->rank <= last) {
			*cause = "repeated or out-of-order unit in duration";
			return -1;
		}
		last = u->rank;
		if (ros_add_scaled(&us, n, u->us) < 0) {
			*cause = "duration too large";
			return -1;
		}
	}
	*ms = us / 1000;
	return 0;
}

/* Reads a small decimal field (0..99999) for a version. */
static int ros_version_num(const char **p, int *out)
{
	uint64_t v;
	if (ros_digits(p, &v) < 0 || v > 99999)
		return -1;
	*out = (int)v;
	return 0;
}

/* "MAJOR.MINOR[.PATCH][(beta|rc)N]" at *p; stops at the first byte after it. */
static int ros_version_core(const char **p, struct ros_version *v)
{
	if (ros_version_num(p, &v->major) < 0 || **p != '.')
		return -1;
	(*p)++;
	if (ros_version_num(p, &v->minor) < 0)
		return -1;
	if (**p == '.') {
		(*p)++;
		if (ros_version_num(p, &v->patch) < 0)
			return -1;
	}
	if (strncmp(*p, "beta", 4) == 0) {
		v->pre = 1;
		*p += 4;
	} else if (strncmp(*p, "rc", 2) == 0) {
		v->pre = 2;
		*p += 2;
	}
	if (v->pre != 0 && ros_version_num(p, &v->pre_num) < 0)
		return -1;
	return 0;
}

/* " (channel)" at p, then the end: a lowercase word with dashes. */
static int ros_version_channel(const char *p, struct ros_version *v)
{
	if (*p == '\0')
		return 0;
	if (p[0] != ' ' || p[1] != '(')
		return -1;
	p += 2;
	size_t n = 0;
	while ((p[n] >= 'a' && p[n] <= 'z') || (n > 0 && p[n] == '-'))
		n++;
	if (n == 0 || n >= sizeof(v->channel) || p[n] != ')' || p[n + 1] != '\0')
		return -1;
	memcpy(v->channel, p, n);
	v->channel[n] = '\0';
	return 0;
}

int ros_parse_version(const char *s, struct ros_version *v, const char **cause)
{
	const char *p = s;
	memset(v, 0, sizeof(*v));
	if (s == NULL || ros_version_core(&p, v) < 0) {
		*cause = "bad version (want MAJOR.MINOR[.PATCH][betaN|rcN])";
		return -1;
	}
	size_t n = (size_t)(p - s);
	if (n >= sizeof(v->text) || ros_version_channel(p, v) < 0) {
		memset(v, 0, sizeof(*v));
		*cause = "bad version channel (want \" (stable)\" or none)";
		return -1;
	}
	memcpy(v->text, s, n);
	v->text[n] = '\0';
	return 0;
}

/* Release rank: beta < rc < release. */
static int ros_version_rank(const struct ros_version *v)
{
	return v->pre == 0 ? 3 : v->pre;
}

static int ros_cmp_int(int a, int b)
{
	return (a > b) - (a < b);
}

int ros_version_cmp(const struct ros_version *a, const struct ros_version *b)
{
	int c = ros_cmp_int(a->major, b->major);
	if (c == 0)
		c = ros_cmp_int(a->minor, b->minor);
	if (c == 0)
		c = ros_cmp_int(a->patch, b->patch);
	if (c == 0)
		c = ros_cmp_int(ros_version_rank(a), ros_version_rank(b));
	if (c == 0)
		c = ros_cmp_int(a->pre_num, b->pre_num);
	return c;
}

/* The lenient reading of a stored version (any text): numbers up to three parts, then beta or
 * alpha (ranked alike), rc or a release; what cannot be read counts as 0. */
static void ros_version_lenient(const char *s, struct ros_version *v)
{
	memset(v, 0, sizeof(*v));
	int *part[3] = { &v->major, &v->minor, &v->patch };
	for (int i = 0; i < 3 && isdigit((unsigned char)*s); i++) {
		char *end;
		long n = strtol(s, &end, 10);
		*part[i] = n > INT_MAX ? INT_MAX : (int)n;
		s = *end == '.' ? end + 1 : end;
	}
	if (strncmp(s, "beta", 4) == 0 || strncmp(s, "alpha", 5) == 0)
		v->pre = 1;
	else if (strncmp(s, "rc", 2) == 0)
		v->pre = 2;
	while (*s != '\0' && !isdigit((unsigned char)*s))
		s++;
	if (v->pre != 0) {
		long n = strtol(s, NULL, 10);
		v->pre_num = n > INT_MAX ? INT_MAX : (int)n;
	}
}

int ros_version_cmp_text(const char *a, const char *b)
{
	struct ros_version x, y;
	ros_version_lenient(a, &x);
	ros_version_lenient(b, &y);
	return ros_version_cmp(&x, &y);
}
