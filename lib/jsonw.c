/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw: JSON values written into a buf (lib/jsonw.h). Escapes as jansson's json_dumps does
 * without flags: \" \\ \b \f \n \r \t, other control characters as \u00XX, everything else
 * (/, DEL, non-ASCII) as is; reals as its jsonp_dtostr. Never allocates but through buf. */
#include "config.h"
#include "lib/jsonw.h"
#include "lib/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* What must be escaped in a JSON string, but NUL, which ends it. */
static const char jsonw_special[] = "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e"
				    "\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f";

static void jsonw_escape(buf_t *b, unsigned char c)
{
	char e[8] = { '\\' };
	switch (c) {
	case '"':
	case '\\': e[1] = (char)c; break;
	case '\b': e[1] = 'b'; break;
	case '\f': e[1] = 'f'; break;
	case '\n': e[1] = 'n'; break;
	case '\r': e[1] = 'r'; break;
	case '\t': e[1] = 't'; break;
	default:
		snprintf(e, sizeof(e), "\\u%04X", c);
		buf_add(b, e, 6);
		return;
	}
	buf_add(b, e, 2);
}

int jsonw_str(buf_t *b, const char *s)
{
	if (!text_is_utf8(s))
		return -1;
	buf_putc(b, '"');
	for (;;) {
		size_t n = strcspn(s, jsonw_special);
		buf_add(b, s, n);
		s += n;
		if (*s == '\0')
			break;
		jsonw_escape(b, (unsigned char)*s++);
	}
	buf_putc(b, '"');
	return 0;
}

/* The comma before a value unless it is the first of its container or follows its key. */
static void jsonw_sep(buf_t *b)
{
	char last = b->len > 0 ? b->data[b->len - 1] : '[';
	if (last != '[' && last != '{' && last != ':')
		buf_putc(b, ',');
}

/* s, made valid UTF-8 when it is not, as a JSON string. */
static void jsonw_fixed(buf_t *b, const char *s)
{
	if (jsonw_str(b, s) == 0)
		return;
	buf_t t;
	buf_init(&t);
	text_put_utf8(&t, s);
	jsonw_str(b, t.data ? t.data : "");
	buf_free(&t);
}

void jsonw_key(buf_t *b, const char *key)
{
	jsonw_sep(b);
	if (key != NULL) {
		jsonw_fixed(b, key);
		buf_putc(b, ':');
	}
}

int jsonw_add(buf_t *b, const char *key, const char *val)
{
	if ((key != NULL && !text_is_utf8(key)) || !text_is_utf8(val))
		return -1;
	jsonw_key(b, key);
	jsonw_str(b, val);
	return 0;
}

void jsonw_text(buf_t *b, const char *key, const char *s)
{
	jsonw_key(b, key);
	if (s != NULL)
		jsonw_fixed(b, s);
	else
		buf_add(b, "null", 4);
}

void jsonw_object(buf_t *b, const char *key)
{
	jsonw_key(b, key);
	buf_putc(b, '{');
}

void jsonw_end_object(buf_t *b)
{
	buf_putc(b, '}');
}

void jsonw_array(buf_t *b, const char *key)
{
	jsonw_key(b, key);
	buf_putc(b, '[');
}

void jsonw_end_array(buf_t *b)
{
	buf_putc(b, ']');
}

void jsonw_int(buf_t *b, const char *key, int64_t v)
{
	jsonw_key(b, key);
	buf_printf(b, "%" PRId64, v);
}

/* jansson's jsonp_dtostr: "%.*g" in the C locale's form, ".0" after an integral value (so it
 * reads back as a real), the exponent without '+' and leading zeros ("1e+05" -> "1e5"). */
static void jsonw_dtostr(buf_t *b, double v, int prec)
{
	char t[64];
	int n = snprintf(t, sizeof(t), "%.*g", prec, v);
	char *comma = strchr(t, ','); /* a locale's decimal comma */
	if (comma != NULL)
		*comma = '.';
	if (strchr(t, '.') == NULL && strchr(t, 'e') == NULL) {
		memcpy(t + n, ".0", 3);
		n += 2;
	}
	char *e = strchr(t, 'e');
	if (e != NULL) {
		char *start = e + 1 + (e[1] == '-'), *end = e + 2;
		while (*end == '0')
			end++;
		memmove(start, end, strlen(end) + 1);
		n = (int)strlen(t);
	}
	buf_add(b, t, (size_t)n);
}

void jsonw_real(buf_t *b, const char *key, double v, int prec)
{
	jsonw_key(b, key);
	if (!isfinite(v))
		buf_add(b, "null", 4);
	else
		jsonw_dtostr(b, v, prec < 1 || prec > JSONW_PREC_MAX ? JSONW_PREC_MAX : prec);
}

void jsonw_bool(buf_t *b, const char *key, bool v)
{
	jsonw_key(b, key);
	buf_puts(b, v ? "true" : "false");
}

void jsonw_null(buf_t *b, const char *key)
{
	jsonw_key(b, key);
	buf_add(b, "null", 4);
}

static void jsonw_newline(buf_t *out, int spaces)
{
	buf_putc(out, '\n');
	for (int i = 0; i < spaces; i++)
		buf_putc(out, ' ');
}

void jsonw_indent(buf_t *out, const char *s, int n)
{
	int depth = 0;
	bool str = false;
	for (const char *p = s; *p != '\0'; p++) {
		if (str) { /* inside a string: as it is, an escaped character with its backslash */
			buf_putc(out, *p);
			if (*p == '\\' && p[1] != '\0')
				buf_putc(out, *++p);
			else if (*p == '"')
				str = false;
			continue;
		}
		switch (*p) {
		case '"':
			str = true;
			buf_putc(out, *p);
			break;
		case '{':
		case '[':
			buf_putc(out, *p);
			if (p[1] == (*p == '{' ? '}' : ']'))
				buf_putc(out, *++p); /* empty */
			else
				jsonw_newline(out, ++depth * n);
			break;
		case '}':
		case ']':
			jsonw_newline(out, --depth * n);
			buf_putc(out, *p);
			break;
		case ',':
			buf_putc(out, ',');
			jsonw_newline(out, depth * n);
			break;
		case ':': buf_puts(out, ": "); break;
		default: buf_putc(out, *p);
		}
	}
}

void jsonw_copy(buf_t *b, const char *key, const jsonr_node_t *v, int prec)
{
	int64_t i;
	double x;
	bool t;
	if (jsonr_is_string(v))
		jsonw_add(b, key, jsonr_str(v));
	else if (jsonr_int(v, &i))
		jsonw_int(b, key, i);
	else if (jsonr_num(v, &x))
		jsonw_real(b, key, x, prec);
	else if (jsonr_bool(v, &t))
		jsonw_bool(b, key, t);
	else if (jsonr_is_array(v) || jsonr_is_object(v)) {
		jsonr_is_array(v) ? jsonw_array(b, key) : jsonw_object(b, key);
		for (size_t k = 0; k < jsonr_size(v); k++)
			jsonw_copy(b, jsonr_key(v, k), jsonr_at(v, k), prec);
		jsonr_is_array(v) ? jsonw_end_array(b) : jsonw_end_object(b);
	} else
		jsonw_null(b, key);
}
