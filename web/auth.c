/* SPDX-License-Identifier: Apache-2.0 */
/* auth: the web listener's basic-auth credentials and a throttle on failed attempts (a GCRA
 * deadline per client address, IPv4 whole, IPv6 by /64, in a bounded table that keeps each
 * address's own entry: no client is ever throttled for another's failures). It must never log,
 * return or copy the password, and it wipes the password when destroyed. */
#include "config.h"
#include "web/auth.h"

#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "lib/xmem.h"

#define AUTH_SLOTS_BITS 12 /* 4,096 addresses held at once */
#define AUTH_PROBES     8  /* where an address's entry may be, from its hash on */

/* One address's deadline; an entry whose deadline has passed is free, whatever its key. */
struct auth_entry {
	uint64_t key;
	int64_t tat; /* when this address has its whole burst again (ms) */
};

struct auth {
	char *user;
	char *password; /* SECRET */
	size_t user_len, password_len;
	uint64_t seed; /* random, so that nobody can aim at the entries beside another address's */
	pthread_mutex_t lock;
	struct auth_entry slot[1 << AUTH_SLOTS_BITS];
};

auth_t *auth_create(const char *user, const char *password)
{
	auth_t *a = xcalloc(1, sizeof(*a));
	a->user = xstrdup(user);
	a->password = xstrdup(password);
	a->user_len = strlen(user);
	a->password_len = strlen(password);
	if (getrandom(&a->seed, sizeof(a->seed), GRND_NONBLOCK) != sizeof(a->seed))
		a->seed = (uint64_t)time(NULL) * 0x100000001b3ULL ^ (uint64_t)getpid();
	pthread_mutex_init(&a->lock, NULL);
	return a;
}

void auth_destroy(auth_t *a)
{
	if (a == NULL)
		return;
	explicit_bzero(a->password, a->password_len);
	free(a->password);
	free(a->user);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

/* given equals secret (of length n), in time that depends on strlen(given) only. */
static bool auth_equal(const char *given, const char *secret, size_t n)
{
	size_t len = strlen(given);
	volatile unsigned char diff = len != n;
	for (size_t i = 0; i < len; i++)
		diff |= (unsigned char)given[i] ^ (unsigned char)secret[i < n ? i : n];
	return diff == 0;
}

bool auth_check(const auth_t *a, const char *user, const char *password)
{
	bool u = auth_equal(user ? user : "", a->user, a->user_len);
	bool p = auth_equal(password ? password : "", a->password, a->password_len);
	return (user != NULL) & (password != NULL) & u & p;
}

/* The client's key: an IPv4 address (also when mapped into IPv6) or an IPv6 /64. */
static uint64_t auth_key(const struct sockaddr *sa)
{
	uint64_t key = 0;
	if (sa != NULL && sa->sa_family == AF_INET) {
		key = (1ULL << 32) | ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	} else if (sa != NULL && sa->sa_family == AF_INET6) {
		const struct in6_addr *a6 = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		uint32_t v4;
		memcpy(&v4, a6->s6_addr + 12, sizeof(v4));
		if (IN6_IS_ADDR_V4MAPPED(a6))
			key = (1ULL << 32) | v4;
		else
			memcpy(&key, a6->s6_addr, sizeof(key));
	}
	return key;
}

/* The live entry of the client with this key, or NULL. With create, one is made when there is
 * none: in a free place of its probe window, else in place of the entry nearest to expiry. So
 * a flood of failing addresses can only push each other (or an older failure) out, never put
 * an innocent address behind another's deadline. */
static struct auth_entry *auth_entry(auth_t *a, uint64_t key, int64_t now_ms, bool create)
{
	uint64_t h = ((key ^ a->seed) * 0x9e3779b97f4a7c15ULL) >> (64 - AUTH_SLOTS_BITS);
	size_t mask = ((size_t)1 << AUTH_SLOTS_BITS) - 1;
	struct auth_entry *victim = NULL;
	for (size_t i = 0; i < AUTH_PROBES; i++) {
		struct auth_entry *e = &a->slot[(h + i) & mask];
		if (e->tat > now_ms && e->key == key)
			return e;
		if (victim == NULL || e->tat < victim->tat)
			victim = e;
	}
	if (!create)
		return NULL;
	*victim = (struct auth_entry){ .key = key, .tat = now_ms };
	return victim;
}

bool auth_throttled(auth_t *a, const struct sockaddr *sa, int64_t now_ms)
{
	pthread_mutex_lock(&a->lock);
	const struct auth_entry *e = auth_entry(a, auth_key(sa), now_ms, false);
	bool t = e != NULL && e->tat - now_ms > (int64_t)AUTH_BURST * AUTH_REFILL_MS;
	pthread_mutex_unlock(&a->lock);
	return t;
}

void auth_failed(auth_t *a, const struct sockaddr *sa, int64_t now_ms)
{
	pthread_mutex_lock(&a->lock);
	struct auth_entry *e = auth_entry(a, auth_key(sa), now_ms, true);
	e->tat = (e->tat > now_ms ? e->tat : now_ms) + AUTH_REFILL_MS;
	pthread_mutex_unlock(&a->lock);
}
