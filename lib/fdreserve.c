/* SPDX-License-Identifier: Apache-2.0 */
/* fdreserve: the reserve of descriptors below the open-files limit (lib/fdreserve.h). Plain
 * numbers, set by main and read by the collectors on the loop; it must never open, log or
 * change a limit. */
#include "config.h"
#include "lib/fdreserve.h"

#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>

static _Atomic uint64_t fdreserve_nofile;
static _Atomic unsigned fdreserve_n;

void fdreserve_set(uint64_t limit, unsigned reserve)
{
	atomic_store(&fdreserve_nofile, limit);
	atomic_store(&fdreserve_n, reserve);
}

uint64_t fdreserve_limit(void)
{
	return atomic_load(&fdreserve_nofile);
}

unsigned fdreserve_kept(void)
{
	return atomic_load(&fdreserve_n);
}

bool fdreserve_allows(int fd)
{
	uint64_t limit = fdreserve_limit();
	return fd >= 0 && (limit == 0 || (uint64_t)fd + fdreserve_kept() < limit);
}

int fdreserve_check(int fd)
{
	if (fd < 0 || fdreserve_allows(fd))
		return fd;
	close(fd);
	errno = EMFILE;
	return -1;
}

bool fdreserve_exhausted(int err)
{
	return err == EMFILE || err == ENFILE;
}
