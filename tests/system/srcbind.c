/* SPDX-License-Identifier: Apache-2.0 */
/* srcbind: an LD_PRELOAD shim for load clients (tests/system/096-load.sh). Each unbound IPv4
 * socket connecting to 127.0.0.0/8 is first bound to the next of SRCBIND_COUNT loopback source
 * addresses from SRCBIND_BASE (e.g. 127.3.4.1), so that hundreds of connections come from several
 * client addresses and stay under wgwatchd's per-address connection limit. It must never touch
 * other sockets, and a failed bind leaves the connect as it was. Built by the test with `cc`. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);

static atomic_uint srcbind_next;

static int srcbind_wanted(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (sa == NULL || len < sizeof(struct sockaddr_in) || sa->sa_family != AF_INET)
		return 0;
	const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
	if ((ntohl(in->sin_addr.s_addr) >> 24) != 127)
		return 0;
	struct sockaddr_in cur;
	socklen_t clen = sizeof(cur);
	if (getsockname(fd, (struct sockaddr *)&cur, &clen) != 0)
		return 0;
	return cur.sin_port == 0 && cur.sin_addr.s_addr == htonl(INADDR_ANY);
}

static void srcbind_bind(int fd)
{
	const char *base = getenv("SRCBIND_BASE"), *count = getenv("SRCBIND_COUNT");
	struct in_addr a;
	if (base == NULL || count == NULL || inet_pton(AF_INET, base, &a) != 1)
		return;
	unsigned n = (unsigned)strtoul(count, NULL, 10);
	if (n == 0 || n > 250)
		return;
	struct sockaddr_in src = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(ntohl(a.s_addr) + atomic_fetch_add(&srcbind_next, 1) % n),
	};
	(void)bind(fd, (struct sockaddr *)&src, sizeof(src));
}

int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	static connect_fn real;
	if (real == NULL)
		real = (connect_fn)dlsym(RTLD_NEXT, "connect");
	if (srcbind_wanted(fd, sa, len))
		srcbind_bind(fd);
	return real(fd, sa, len);
}
