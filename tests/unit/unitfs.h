/* SPDX-License-Identifier: Apache-2.0 */
/* unitfs: the files a unit test writes, all under one mkdtemp directory of its run. It must
 * never write outside that directory, and unitfs_end() of a passing run leaves nothing behind. */
#ifndef WGWATCH_TESTS_UNITFS_H
#define WGWATCH_TESTS_UNITFS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Makes /tmp/NAME.XXXXXX and returns its real path (kept here; freed by unitfs_end), or
 * NULL with the error printed. */
const char *unitfs_root(const char *name);
/* A new directory below the root (caller frees the path). */
char *unitfs_dir(void);
/* Writes content to dir/name (making dir) with mode, and returns the path (caller frees);
 * aborts on a write error. */
char *unitfs_put(const char *dir, const char *name, mode_t mode, const char *content);
/* stderr into a temporary file until unitfs_release_stderr(*saved): the log lines of a run.
 * NULL (stderr left as it is) when no temporary file can be made. */
FILE *unitfs_catch_stderr(int *saved);
void unitfs_release_stderr(int saved);
/* The lines of f (stderr caught by unitfs_catch_stderr) holding needle. */
int unitfs_lines(FILE *f, const char *needle);
/* The end of a run, status unit_done's (0: passed): the root and all below it removed when the
 * run passed, else kept to look at and named on stderr. Returns status. */
int unitfs_end(int status);

#endif
