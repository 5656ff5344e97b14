/* SPDX-License-Identifier: Apache-2.0 */
/* fdreserve: descriptors kept free below the open-files limit for the HTTP listener and the
 * databases, so that a fleet larger than the limit cannot take the last ones: sockets to
 * routers are checked here when opened and refused when they would eat into the reserve. It
 * never changes the limit itself. */
#ifndef WGWATCH_FDRESERVE_H
#define WGWATCH_FDRESERVE_H

#include <stdbool.h>
#include <stdint.h>

/* Descriptors kept for the listener's connections, the page pool's and the detector's SQLite
 * connections, the Alertmanager client, logs and pipes opened later. */
#define FDRESERVE_DEFAULT 16

/* The open-files limit (RLIMIT_NOFILE's soft one; 0: none known, nothing refused) and how
 * many descriptors below it to keep. Called again when the limit changes. */
void fdreserve_set(uint64_t limit, unsigned reserve);
uint64_t fdreserve_limit(void); /* as last set */
unsigned fdreserve_kept(void);  /* as last set */
/* Whether fd, just opened, lies below the reserve (true for any fd without a limit). */
bool fdreserve_allows(int fd);
/* fd, a socket just opened for a router; or -1 with errno EMFILE, fd closed, when it lies in
 * the reserve (descriptors are handed out lowest first, so all below it are taken). fd < 0
 * passes through, errno untouched. */
int fdreserve_check(int fd);
bool fdreserve_exhausted(int err); /* err (an errno) says out of descriptors: EMFILE, ENFILE */

#endif
