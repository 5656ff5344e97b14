/* SPDX-License-Identifier: Apache-2.0 */
/* buf: a growable byte buffer for rendering replies (/metrics, JSON, HTML). Aborts on OOM. */
#ifndef WGWATCH_BUF_H
#define WGWATCH_BUF_H

#include <stddef.h>
#include <string.h>

typedef struct buf {
	char *data; /* always NUL-terminated when non-NULL */
	size_t len;
	size_t cap;
} buf_t;

void buf_init(buf_t *b);
void buf_free(buf_t *b);
void buf_reset(buf_t *b);             /* len = 0, keeps memory */
void buf_reserve(buf_t *b, size_t n); /* room for n bytes in all, in one step */
void buf_append(buf_t *b, const void *p, size_t n);
void buf_puts(buf_t *b, const char *s);
void buf_putc(buf_t *b, char c);
void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *buf_steal(buf_t *b, size_t *len); /* caller frees; b is reset */

/* buf_append with its fast path inlined, for renderers that make millions of small appends. */
static inline void buf_add(buf_t *b, const void *p, size_t n)
{
	if (b->len + n < b->cap) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
		b->data[b->len] = '\0';
		return;
	}
	buf_append(b, p, n);
}

#endif
