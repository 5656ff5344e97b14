/* SPDX-License-Identifier: Apache-2.0 */
/* unitfs: the files a unit test writes, all under one mkdtemp directory of its run. It must
 * never write outside that directory, and unitfs_remove() leaves nothing behind. */
#ifndef WGWATCH_TESTS_UNITFS_H
#define WGWATCH_TESTS_UNITFS_H

#include <stddef.h>
#include <sys/types.h>

/* Makes /tmp/NAME.XXXXXX and returns its real path (kept here; freed by unitfs_remove), or
 * NULL with the error printed. */
const char *unitfs_root(const char *name);
/* A new directory below the root (caller frees the path). */
char *unitfs_dir(void);
/* Writes content to dir/name (making dir) with mode, and returns the path (caller frees);
 * aborts on a write error. */
char *unitfs_put(const char *dir, const char *name, mode_t mode, const char *content);
/* Removes the root and all below it. */
void unitfs_remove(void);

#endif
