/* SPDX-License-Identifier: Apache-2.0 */
/* buf: growable buffer, doubling capacity. */
#include "config.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void buf_init(buf_t *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_free(buf_t *b)
{
	free(b->data);
	buf_init(b);
}

void buf_reset(buf_t *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

/* Buffers from this size on (a /metrics render of thousands of routers: 12 MB for 1,000) ask
 * the kernel for transparent huge pages. A render fills fresh memory, and at 4 KiB a page that
 * is tens of thousands of page faults; on a VM each costs microseconds (bench/metrics_bench:
 * 10,000 routers, 34,600 faults and 925 ms per render, 6,500 and 228 ms with huge pages). */
#define BUF_HUGE_FROM ((size_t)4 << 20)
#define BUF_HUGE_PAGE ((uintptr_t)2 << 20)

static void buf_advise(const buf_t *b)
{
#ifdef MADV_HUGEPAGE
	uintptr_t lo = ((uintptr_t)b->data + BUF_HUGE_PAGE - 1) & ~(BUF_HUGE_PAGE - 1);
	uintptr_t hi = ((uintptr_t)b->data + b->cap) & ~(BUF_HUGE_PAGE - 1);
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice: failing changes nothing */
#else
	(void)b;
#endif
}

static void buf_grow(buf_t *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	b->data = xreallocarray(b->data, cap, 1);
	b->cap = cap;
	if (cap >= BUF_HUGE_FROM)
		buf_advise(b);
}

void buf_reserve(buf_t *b, size_t n)
{
	if (n > b->len)
		buf_grow(b, n - b->len);
}

void buf_append(buf_t *b, const void *p, size_t n)
{
	buf_grow(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_puts(buf_t *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_putc(buf_t *b, char c)
{
	buf_append(b, &c, 1);
}

void buf_printf(buf_t *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char tmp[256];
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		buf_append(b, tmp, (size_t)n);
		return;
	}
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *buf_steal(buf_t *b, size_t *len)
{
	if (b->data == NULL)
		buf_append(b, "", 0);
	char *d = b->data;
	if (len)
		*len = b->len;
	buf_init(b);
	return d;
}
