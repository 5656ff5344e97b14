/* SPDX-License-Identifier: Apache-2.0 */
/* unitfs: the unit tests' temp files (tests/unit/unitfs.h), one mkdtemp root a run, and
 * stderr caught in a temporary file. It must never write outside that root or tmpfile(). */
#include "config.h"
#include "unitfs.h"
#include "lib/xmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *unitfs_top; /* the real path of the run's mkdtemp directory */
static int unitfs_seq;

const char *unitfs_root(const char *name)
{
	char *tmpl = xasprintf("/tmp/%s.XXXXXX", name);
	if (mkdtemp(tmpl) == NULL) {
		perror("mkdtemp");
		free(tmpl);
		return NULL;
	}
	unitfs_top = realpath(tmpl, NULL);
	free(tmpl);
	return unitfs_top;
}

char *unitfs_dir(void)
{
	char *dir = xasprintf("%s/t%d", unitfs_top, ++unitfs_seq);
	mkdir(dir, 0700);
	return dir;
}

char *unitfs_put(const char *dir, const char *name, mode_t mode, const char *content)
{
	size_t n = strlen(content);
	mkdir(dir, 0700);
	char *path = xasprintf("%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	if (fp == NULL || fwrite(content, 1, n, fp) != n || fclose(fp) != 0) {
		perror(path);
		abort();
	}
	chmod(path, mode);
	return path;
}

FILE *unitfs_catch_stderr(int *saved)
{
	FILE *f = tmpfile();
	fflush(stderr);
	*saved = dup(2);
	if (f != NULL)
		dup2(fileno(f), 2);
	return f;
}

void unitfs_release_stderr(int saved)
{
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
}

int unitfs_lines(FILE *f, const char *needle)
{
	char line[1024];
	int n = 0;
	rewind(f);
	while (fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, needle) != NULL;
	return n;
}

int unitfs_end(int status)
{
	if (unitfs_top == NULL)
		return status;
	if (status != 0) { /* kept to look at */
		fprintf(stderr, "kept %s\n", unitfs_top);
		return status;
	}
	char *rm = xasprintf("rm -rf '%s'", unitfs_top);
	if (system(rm) != 0)
		fprintf(stderr, "could not remove %s\n", unitfs_top);
	free(rm);
	free(unitfs_top);
	unitfs_top = NULL;
	return status;
}
