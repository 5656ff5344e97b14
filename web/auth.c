/* auth: the web listener's basic-auth credentials and a throttle on failed attempts (a GCRA
 * deadline per slot of a table keyed by client address: IPv4 whole, IPv6 by /64; addresses
 * that hash alike share a slot). It must never log, return or copy the password, and it wipes
 * the password when destroyed. */
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

#define AUTH_SLOTS_BITS 10

struct auth {
	char *user;
	char *password; /* SECRET */
	size_t user_len, password_len;
	uint64_t seed; /* random, so that nobody can aim at another address's slot */
	pthread_mutex_t lock;
	int64_t tat[1 << AUTH_SLOTS_BITS]; /* when each slot has its whole burst again (ms) */
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

static int64_t *auth_slot(auth_t *a, const struct sockaddr *sa)
{
	uint64_t h = (auth_key(sa) ^ a->seed) * 0x9e3779b97f4a7c15ULL;
	return &a->tat[h >> (64 - AUTH_SLOTS_BITS)];
}

bool auth_throttled(auth_t *a, const struct sockaddr *sa, int64_t now_ms)
{
	pthread_mutex_lock(&a->lock);
	bool t = *auth_slot(a, sa) - now_ms > (int64_t)AUTH_BURST * AUTH_REFILL_MS;
	pthread_mutex_unlock(&a->lock);
	return t;
}

void auth_failed(auth_t *a, const struct sockaddr *sa, int64_t now_ms)
{
	pthread_mutex_lock(&a->lock);
	int64_t *tat = auth_slot(a, sa);
	*tat = (*tat > now_ms ? *tat : now_ms) + AUTH_REFILL_MS;
	pthread_mutex_unlock(&a->lock);
}
