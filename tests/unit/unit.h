/* SPDX-License-Identifier: Apache-2.0 */
/* unit.h: the smallest test harness. CHECK records a failure and goes on; unit_done() prints a
 * summary and returns the exit status automake expects (0 pass, 1 fail). */
#ifndef WGWATCH_UNIT_H
#define WGWATCH_UNIT_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int unit_checks, unit_failures;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		unit_checks++;                                                                   \
		if (!(cond)) {                                                                   \
			unit_failures++;                                                         \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                                \
	} while (0)

#define CHECK_STR(a, b)                                                                               \
	do {                                                                                          \
		const char *unit_a_ = (a), *unit_b_ = (b);                                            \
		unit_checks++;                                                                        \
		if (unit_a_ == NULL || unit_b_ == NULL ? unit_a_ != unit_b_                           \
						       : strcmp(unit_a_, unit_b_) != 0) {             \
			unit_failures++;                                                              \
			fprintf(stderr, "%s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, #a, \
				unit_a_ ? unit_a_ : "(null)", unit_b_ ? unit_b_ : "(null)");          \
		}                                                                                     \
	} while (0)

#define CHECK_INT(a, b)                                                                                    \
	do {                                                                                               \
		long long unit_a_ = (long long)(a), unit_b_ = (long long)(b);                              \
		unit_checks++;                                                                             \
		if (unit_a_ != unit_b_) {                                                                  \
			unit_failures++;                                                                   \
			fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #a, unit_a_, \
				unit_b_);                                                                  \
		}                                                                                          \
	} while (0)

#define CHECK_NEAR(a, b, eps)                                                                                \
	do {                                                                                                 \
		double unit_a_ = (a), unit_b_ = (b);                                                         \
		unit_checks++;                                                                               \
		if (!(fabs(unit_a_ - unit_b_) <= (eps))) {                                                   \
			unit_failures++;                                                                     \
			fprintf(stderr, "%s:%d: %s is %.17g, want %.17g\n", __FILE__, __LINE__, #a, unit_a_, \
				unit_b_);                                                                    \
		}                                                                                            \
	} while (0)

/* Whether text holds line as a whole line ending in '\n'. */
static inline int unit_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; p != NULL && (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return 1;
	return 0;
}

/* The lines of s ('\n's), 0 for NULL. */
static inline int unit_count_lines(const char *s)
{
	int n = 0;
	for (; s != NULL && *s; s++)
		n += *s == '\n';
	return n;
}

/* CHECK_LINE(text, fmt, ...): text holds the formatted line (at most 4095 characters) whole. */
#define CHECK_LINE(text, ...)                                                \
	do {                                                                 \
		char unit_want_[4096];                                       \
		snprintf(unit_want_, sizeof(unit_want_), __VA_ARGS__);       \
		CHECK(unit_has_line(text, unit_want_));                      \
		if (!unit_has_line(text, unit_want_))                        \
			fprintf(stderr, "  missing line: %s\n", unit_want_); \
	} while (0)

static inline int unit_done(const char *name)
{
	printf("%s: %d checks, %d failed\n", name, unit_checks, unit_failures);
	return unit_failures ? 1 : 0;
}

#endif
