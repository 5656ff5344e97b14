/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw: JSON strings and members written into a buf (lib/jsonw.h). Escapes as jansson's
 * json_dumps does without flags: \" \\ \b \f \n \r \t, other control characters as \u00XX,
 * everything else (/, DEL, non-ASCII) as is. Never allocates but through buf. */
#include "config.h"
#include "lib/jsonw.h"
#include "lib/text.h"

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

int jsonw_add(buf_t *b, const char *key, const char *val)
{
	if ((key != NULL && !text_is_utf8(key)) || !text_is_utf8(val))
		return -1;
	char last = b->len > 0 ? b->data[b->len - 1] : '\0';
	if (last != '[' && last != '{')
		buf_putc(b, ',');
	if (key != NULL) {
		jsonw_str(b, key);
		buf_putc(b, ':');
	}
	jsonw_str(b, val);
	return 0;
}
