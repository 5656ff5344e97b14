/* SPDX-License-Identifier: Apache-2.0 */
/* xmem: allocation wrappers that abort on out-of-memory, and small string helpers.
 * Never returns NULL from an allocation; never used for data from outside without a length. */
#ifndef WGWATCH_XMEM_H
#define WGWATCH_XMEM_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);                  /* aborts on failure */
void *xcalloc(size_t nmemb, size_t size); /* zeroed; aborts on failure or overflow */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s); /* NULL in, NULL out */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
