/* httppem: [web] cert and key for the HTTPS listener: a PEM file read whole (at most 1 MiB)
 * and checked to hold a certificate or an unencrypted private key. */
#ifndef WGWATCH_HTTPPEM_H
#define WGWATCH_HTTPPEM_H

#include <stddef.h>

/* The text of path for key ("cert" or "key"), NUL-terminated, *len its length; NULL with
 * *cause naming the key, the file and what is wrong. Free it with httppem_free. */
char *httppem_load(const char *key, const char *path, size_t *len, char **cause);
/* Wipe and free what httppem_load returned; NULL is fine. */
void httppem_free(char *pem, size_t len);

#endif
