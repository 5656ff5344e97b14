/* SPDX-License-Identifier: Apache-2.0 */
/* listen: parse "A.B.C.D:PORT" and "[IPV6]:PORT" (numeric only) and try the address on a port
 * of the kernel's choice. It must never resolve a name, nor leave a socket behind. */
#include "config.h"
#include "lib/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/xmem.h"

/* Decimal 0..65535, digits only. */
static int listen_port(const char *s, unsigned *port)
{
	size_t n = strlen(s);
	if (n == 0 || n > 5 || strspn(s, "0123456789") != n)
		return -1;
	unsigned long v = strtoul(s, NULL, 10);
	if (v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

int listen_parse(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	const char *colon, *host = spec;
	size_t hlen;
	bool v6 = spec[0] == '[';
	if (v6) {
		const char *end = strchr(spec, ']');
		if (end == NULL || end[1] != ':')
			return -1;
		host = spec + 1, hlen = (size_t)(end - host), colon = end + 1;
	} else {
		colon = strchr(spec, ':');
		if (colon == NULL || strchr(colon + 1, ':') != NULL)
			return -1;
		hlen = (size_t)(colon - spec);
	}
	char addr[INET6_ADDRSTRLEN];
	unsigned port;
	if (hlen == 0 || hlen >= sizeof(addr) || listen_port(colon + 1, &port) < 0)
		return -1;
	memcpy(addr, host, hlen);
	addr[hlen] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
		s6->sin6_family = AF_INET6, s6->sin6_port = htons((uint16_t)port), *len = sizeof(*s6);
		return inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1 ? 0 : -1;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	s4->sin_family = AF_INET, s4->sin_port = htons((uint16_t)port), *len = sizeof(*s4);
	return inet_pton(AF_INET, addr, &s4->sin_addr) == 1 ? 0 : -1;
}

int listen_bindable(const struct sockaddr_storage *ss, socklen_t len, char **cause)
{
	struct sockaddr_storage any = *ss;
	if (any.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&any)->sin6_port = 0;
	else
		((struct sockaddr_in *)&any)->sin_port = 0;
	int fd = socket(any.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && bind(fd, (const struct sockaddr *)&any, len) == 0) {
		close(fd);
		return 0;
	}
	int e = errno;
	if (fd >= 0)
		close(fd);
	if (e == EADDRNOTAVAIL)
		*cause = xstrdup("not an address of this host");
	else
		*cause = xasprintf("cannot listen there: %s", strerror(e));
	return -1;
}
