/* SPDX-License-Identifier: Apache-2.0 */
/* httppem: the PEM files of [web] cert and key, read and checked for the TLS listener. */
#ifndef WGWATCH_HTTPPEM_H
#define WGWATCH_HTTPPEM_H

#include <stddef.h>

/* The text of the PEM file at path for key ("cert" or "key"), NUL-terminated, *len its length;
 * NULL with *cause (naming key and path) when it cannot be read, is over 1 MiB, or does not
 * hold a certificate (cert) or an unencrypted private key (key). Free with httppem_free. */
char *httppem_load(const char *key, const char *path, size_t *len, char **cause);
/* Wipe and free what httppem_load returned; NULL is fine. */
void httppem_free(char *pem, size_t len);

#endif
