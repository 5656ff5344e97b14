/* SPDX-License-Identifier: Apache-2.0 */
/* auth: HTTP basic authentication for the web listener: the one configured user, a
 * constant-time password comparison, and a throttle on failed attempts per client address.
 * It holds the password and never logs it, returns it or keeps a copy after auth_destroy. */
#ifndef WGWATCH_AUTH_H
#define WGWATCH_AUTH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

typedef struct auth auth_t;

#define AUTH_BURST     10   /* failed attempts an address may make at once */
#define AUTH_REFILL_MS 1000 /* after which it gets one more every this often */

/* Copies user and password (both non-empty). */
auth_t *auth_create(const char *user, const char *password);
/* Wipes the password. NULL is fine. */
void auth_destroy(auth_t *a);

/* Whether user and password (either may be NULL: not given) are the configured ones. The time
 * taken depends on the lengths given, not on the secret's content. */
bool auth_check(const auth_t *a, const char *user, const char *password);

/* Whether the client at sa has used up its failed attempts; now_ms is monotonic. */
bool auth_throttled(auth_t *a, const struct sockaddr *sa, int64_t now_ms);
/* Counts a failed attempt against the client at sa. */
void auth_failed(auth_t *a, const struct sockaddr *sa, int64_t now_ms);

#endif
