/* SPDX-License-Identifier: Apache-2.0 */
/* xmem: allocation wrappers. Out of memory is not recoverable for a daemon: log and abort. */
#include "config.h"
#include "lib/xmem.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void xmem_die(size_t n)
{
	fprintf(stderr, "wgwatch: fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (p == NULL)
		xmem_die(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		xmem_die(nmemb * size);
	return p;
}

void *xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		xmem_die(SIZE_MAX);
	size_t n = nmemb * size;
	void *q = realloc(p, n ? n : 1);
	if (q == NULL)
		xmem_die(nmemb * size);
	return q;
}

char *xstrdup(const char *s)
{
	if (s == NULL)
		return NULL;
	char *d = strdup(s);
	if (d == NULL)
		xmem_die(strlen(s) + 1);
	return d;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);
	if (d == NULL)
		xmem_die(n + 1);
	return d;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		xmem_die(strlen(fmt));
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
