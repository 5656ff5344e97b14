/* SPDX-License-Identifier: Apache-2.0 */
/* jsonpos: the place a JSON text goes wrong (jsonpos.h). Recursive descent over the bytes,
 * each function advancing *i past what it read or leaving *i at the byte that broke it. */
#include "config.h"
#include "lib/jsonpos.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct jsonpos {
	const char *s;
	size_t n, i;
};

static bool jsonpos_value(struct jsonpos *p, int depth);

static void jsonpos_ws(struct jsonpos *p)
{
	while (p->i < p->n && strchr(" \t\n\r", p->s[p->i]) != NULL && p->s[p->i] != '\0')
		p->i++;
}

static bool jsonpos_is(const struct jsonpos *p, char c)
{
	return p->i < p->n && p->s[p->i] == c;
}

static bool jsonpos_digits(struct jsonpos *p)
{
	size_t from = p->i;
	while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
		p->i++;
	return p->i > from;
}

static bool jsonpos_hex4(struct jsonpos *p)
{
	for (int k = 0; k < 4; k++, p->i++)
		if (p->i >= p->n || strchr("0123456789abcdefABCDEF", p->s[p->i]) == NULL ||
			p->s[p->i] == '\0')
			return false;
	return true;
}

static bool jsonpos_string(struct jsonpos *p)
{
	if (!jsonpos_is(p, '"'))
		return false;
	for (p->i++; p->i < p->n; p->i++) {
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			p->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (++p->i >= p->n)
			return false;
		if (p->s[p->i] == 'u') {
			p->i++;
			if (!jsonpos_hex4(p))
				return false;
			p->i--;
		} else if (strchr("\"\\/bfnrt", p->s[p->i]) == NULL || p->s[p->i] == '\0')
			return false;
	}
	return false;
}

static bool jsonpos_number(struct jsonpos *p)
{
	if (jsonpos_is(p, '-'))
		p->i++;
	if (jsonpos_is(p, '0'))
		p->i++;
	else if (!jsonpos_digits(p))
		return false;
	if (jsonpos_is(p, '.')) {
		p->i++;
		if (!jsonpos_digits(p))
			return false;
	}
	if (jsonpos_is(p, 'e') || jsonpos_is(p, 'E')) {
		p->i++;
		if (jsonpos_is(p, '+') || jsonpos_is(p, '-'))
			p->i++;
		if (!jsonpos_digits(p))
			return false;
	}
	return true;
}

static bool jsonpos_word(struct jsonpos *p, const char *w)
{
	for (; *w != '\0'; w++, p->i++)
		if (!jsonpos_is(p, *w))
			return false;
	return true;
}

/* The members or elements of an object (close '}') or an array (close ']'), after its opener. */
static bool jsonpos_items(struct jsonpos *p, char close, int depth)
{
	p->i++;
	jsonpos_ws(p);
	if (jsonpos_is(p, close)) {
		p->i++;
		return true;
	}
	for (;;) {
		if (close == '}') {
			if (!jsonpos_string(p))
				return false;
			jsonpos_ws(p);
			if (!jsonpos_is(p, ':'))
				return false;
			p->i++;
		}
		if (!jsonpos_value(p, depth + 1))
			return false;
		jsonpos_ws(p);
		if (jsonpos_is(p, close)) {
			p->i++;
			return true;
		}
		if (!jsonpos_is(p, ','))
			return false;
		p->i++;
		jsonpos_ws(p);
	}
}

static bool jsonpos_value(struct jsonpos *p, int depth)
{
	jsonpos_ws(p);
	if (p->i >= p->n)
		return false;
	switch (p->s[p->i]) {
	case '{':
	case '[':
		if (depth >= JSONPOS_MAX_DEPTH)
			return false;
		return jsonpos_items(p, p->s[p->i] == '{' ? '}' : ']', depth);
	case '"': return jsonpos_string(p);
	case 't': return jsonpos_word(p, "true");
	case 'f': return jsonpos_word(p, "false");
	case 'n': return jsonpos_word(p, "null");
	default: return jsonpos_number(p);
	}
}

size_t jsonpos_stop(const char *s, size_t len)
{
	struct jsonpos p = { s, len, 0 };
	if (!jsonpos_value(&p, 0))
		return p.i;
	jsonpos_ws(&p);
	return p.i < len ? p.i : SIZE_MAX;
}

void jsonpos_place(const char *s, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t k = 0; k < off; k++)
		if (s[k] == '\n')
			(*line)++, *col = 1;
		else if (((unsigned char)s[k] & 0xc0) != 0x80)
			(*col)++;
}
