/* SPDX-License-Identifier: Apache-2.0 */
/* reloadstate: the newest configuration load's outcome beside the database (daemon/
 * reloadstate.h). Written by the daemon on its loop thread after each load, read by the
 * --reload client. It must never write a value of the configuration, and never leave a half
 * written file where the client reads. */
#include "config.h"
#include "daemon/reloadstate.h"
#include "lib/xmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *reloadstate_path(const char *database)
{
	const char *slash = strrchr(database, '/');
	int dir = slash ? (int)(slash - database) : 1;
	return xasprintf("%.*s/wgwatchd.reload", dir, slash ? database : ".");
}

int reloadstate_write(const char *database, unsigned long gen, bool ok, char **cause)
{
	char *path = reloadstate_path(database), *tmp = xasprintf("%s.tmp", path);
	char line[48];
	int len = snprintf(line, sizeof(line), "%lu %s\n", gen, ok ? "ok" : "refused");
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = fd >= 0 && write(fd, line, (size_t)len) == len ? 0 : -1;
	if (fd >= 0 && close(fd) < 0)
		rc = -1;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -1;
	if (rc < 0) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(tmp);
	free(path);
	return rc;
}

int reloadstate_read(const char *database, unsigned long *gen, bool *ok)
{
	char *path = reloadstate_path(database), word[16];
	FILE *f = fopen(path, "r");
	free(path);
	if (f == NULL)
		return -1;
	int n = fscanf(f, "%lu %15s", gen, word);
	fclose(f);
	if (n != 2 || (strcmp(word, "ok") != 0 && strcmp(word, "refused") != 0))
		return -1;
	*ok = strcmp(word, "ok") == 0;
	return 0;
}
