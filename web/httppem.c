/* SPDX-License-Identifier: Apache-2.0 */
/* httppem: the listener's TLS certificate and key files ([web] cert, key), read whole and
 * checked to hold what their key names before GnuTLS sees them. The key's text is wiped before
 * it is freed; no content of either file is ever put into a message. */
#include "config.h"
#include "web/httppem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xmem.h"

#define HTTPPEM_MAX (1024 * 1024)

/* The whole of a file of at most HTTPPEM_MAX bytes, NUL-terminated; *len its length. The
 * caller wipes it (it may hold the private key). */
static char *httppem_read(const char *key, const char *path, size_t *len, char **cause)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		*cause = xasprintf("[web] %s %s: cannot read it: %s", key, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > HTTPPEM_MAX) {
		*cause = xasprintf("[web] %s %s: not a regular file of at most 1 MiB", key, path);
		close(fd);
		return NULL;
	}
	char *data = xmalloc((size_t)st.st_size + 1);
	size_t n = 0;
	ssize_t r = 1;
	while (n < (size_t)st.st_size && (r = read(fd, data + n, (size_t)st.st_size - n)) > 0)
		n += (size_t)r;
	close(fd);
	data[n] = '\0';
	*len = n;
	if (r < 0) {
		*cause = xasprintf("[web] %s %s: cannot read it: %s", key, path, strerror(errno));
		explicit_bzero(data, n);
		free(data);
		return NULL;
	}
	return data;
}

/* What is wrong with a PEM file's content for its key ("cert" or "key"); NULL if nothing. */
static const char *httppem_problem(const char *key, const char *pem)
{
	if (strcmp(key, "cert") == 0)
		return strstr(pem, "-----BEGIN CERTIFICATE-----")
			? NULL
			: "holds no PEM certificate (-----BEGIN CERTIFICATE-----)";
	if (strstr(pem, "ENCRYPTED") != NULL)
		return "is an encrypted private key: wgwatchd needs it unencrypted (and mode 0600)";
	const char *b = strstr(pem, "-----BEGIN ");
	return b && strstr(b, "PRIVATE KEY-----") ? NULL
						  : "holds no PEM private key (-----BEGIN PRIVATE KEY-----)";
}

char *httppem_load(const char *key, const char *path, size_t *len, char **cause)
{
	char *pem = httppem_read(key, path, len, cause);
	const char *problem = pem ? httppem_problem(key, pem) : NULL;
	if (problem != NULL) {
		*cause = xasprintf("[web] %s %s %s", key, path, problem);
		explicit_bzero(pem, *len);
		free(pem);
		return NULL;
	}
	return pem;
}

void httppem_free(char *pem, size_t len)
{
	if (pem != NULL)
		explicit_bzero(pem, len);
	free(pem);
}
