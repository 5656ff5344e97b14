/* SPDX-License-Identifier: Apache-2.0 */
/* text: UTF-8 repair (RFC 3629) and escaping for the outputs. NULL is the empty string.
 * Knows nothing of where the text came from; never allocates but through buf. */
#include "config.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* Length of the valid UTF-8 sequence (RFC 3629) starting at s, 0 when invalid. */
static size_t text_utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t n;
	if (c >= 0xC2 && c <= 0xDF) {
		n = 2;
	} else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		lo = c == 0xE0 ? 0xA0 : 0x80; /* no overlongs */
		hi = c == 0xED ? 0x9F : 0xBF; /* no surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		lo = c == 0xF0 ? 0x90 : 0x80;
		hi = c == 0xF4 ? 0x8F : 0xBF; /* nothing above U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < n; k++) /* stops at the NUL: 0 is not a continuation byte */
		if (s[k] < 0x80 || s[k] > 0xBF)
			return 0;
	return n;
}

/* Append s as valid UTF-8 (U+FFFD for each bad byte), escaping \ " and newline if asked. */
static void text_put(buf_t *out, const char *str, bool escape)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	const unsigned char *run = s;
	while (*s) {
		size_t n = 1;
		if (*s >= 0x80)
			n = text_utf8_len(s);
		else if (escape && (*s == '\\' || *s == '"' || *s == '\n'))
			n = 0;
		if (n > 0) {
			s += n;
			continue;
		}
		buf_add(out, run, (size_t)(s - run));
		if (*s == '\\' || *s == '"')
			buf_add(out, *s == '\\' ? "\\\\" : "\\\"", 2);
		else if (*s == '\n')
			buf_add(out, "\\n", 2);
		else
			buf_add(out, "\xEF\xBF\xBD", 3);
		run = ++s;
	}
	buf_add(out, run, (size_t)(s - run));
}

void text_put_utf8(buf_t *out, const char *s)
{
	text_put(out, s, false);
}

void text_put_label(buf_t *out, const char *s)
{
	text_put(out, s, true);
}

void text_put_html(buf_t *out, const char *s)
{
	if (s == NULL)
		return;
	buf_t clean;
	buf_init(&clean);
	text_put_utf8(&clean, s);
	for (size_t i = 0; i < clean.len; i++) {
		char c = clean.data[i];
		switch (c) {
		case '&': buf_puts(out, "&amp;"); break;
		case '<': buf_puts(out, "&lt;"); break;
		case '>': buf_puts(out, "&gt;"); break;
		case '"': buf_puts(out, "&quot;"); break;
		case '\'': buf_puts(out, "&#39;"); break;
		default: buf_putc(out, c);
		}
	}
	buf_free(&clean);
}

void text_put_url(buf_t *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; p && *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			strchr("-._~", *p) != NULL) {
			buf_putc(out, (char)*p);
		} else {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			buf_add(out, esc, sizeof(esc));
		}
	}
}

char *text_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* The length of the bidirectional control at s (U+061C, U+200E-F, U+202A-E, U+2066-9: text
 * that reads in another order than it is stored, to hide what a line says); 0 if none. */
static size_t text_bidi(const unsigned char *s)
{
	if (s[0] == 0xd8 && s[1] == 0x9c)
		return 2;
	if (s[0] != 0xe2 || s[1] == '\0')
		return 0;
	bool lrm = s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f || (s[2] >= 0xaa && s[2] <= 0xae));
	bool iso = s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9;
	return lrm || iso ? 3 : 0;
}

void text_put_oneline(buf_t *out, const char *str)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)(str ? str : ""), *run = s;
	while (*s) {
		size_t bidi = *s >= 0x80 ? text_bidi(s) : 0;
		if (bidi == 0 && *s >= 0x20 && *s != 0x7f) {
			s++;
			continue;
		}
		buf_add(out, run, (size_t)(s - run));
		if (bidi > 0) { /* \u202e: the code point, decoded from its 2 or 3 bytes */
			unsigned cp = bidi == 2
				? ((s[0] & 0x1fu) << 6) | (s[1] & 0x3fu)
				: ((s[0] & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu);
			char esc[6] = { '\\', 'u', hex[cp >> 12], hex[(cp >> 8) & 15], hex[(cp >> 4) & 15],
				hex[cp & 15] };
			buf_add(out, esc, sizeof(esc));
		} else if (*s == '\n' || *s == '\r' || *s == '\t') {
			buf_add(out, *s == '\n' ? "\\n" : *s == '\r' ? "\\r" : "\\t", 2);
		} else {
			char esc[4] = { '\\', 'x', hex[*s >> 4], hex[*s & 15] };
			buf_add(out, esc, sizeof(esc));
		}
		s += bidi > 0 ? bidi : 1;
		run = s;
	}
	buf_add(out, run, (size_t)(s - run));
}

char *text_cap(const char *s, size_t max)
{
	if (s == NULL)
		return NULL;
	size_t n = strnlen(s, max + 1);
	if (n > max) /* cut at a character's first byte, not inside it */
		for (n = max; n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80; n--)
			;
	return xstrndup(s, n);
}

int text_cmp(const char *a, const char *b)
{
	return a == NULL || b == NULL ? (a != NULL) - (b != NULL) : strcmp(a, b);
}
