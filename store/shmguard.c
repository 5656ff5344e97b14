/* SPDX-License-Identifier: Apache-2.0 */
/* shmguard: lets the daemon outlive its database's wal-index (DB-shm) being truncated or made
 * unwritable while it runs. SQLite maps that file shared; an access the kernel can no longer back
 * raises SIGBUS, which kills the process. The handler puts anonymous memory (zeros: SQLite rebuilds
 * the index from the WAL at the next transaction) in place of every mapping of that file and raises
 * a flag; from then on no connection of this process writes or checkpoints, so the database and its
 * WAL stay on disk as committed and the next start reads them back. The handler makes only
 * async-signal-safe calls and leaves every other SIGBUS to the action it replaced. */
#include "config.h"
#include "store/shmguard.h"
#include "store/store.h"
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/xmem.h"

#define SHMGUARD_CKPT_FRAMES 1000 /* SQLite's default wal_autocheckpoint */
#define SHMGUARD_MAX_MAPS    64   /* mappings replaced per fault (SQLite maps 32 KiB regions) */
#define SHMGUARD_HEAD        128  /* a maps line's head: address range to inode */

static atomic_bool shmguard_tripped;
static atomic_bool shmguard_watching; /* the fields below are set */
static unsigned shmguard_major, shmguard_minor;
static uint64_t shmguard_ino;
static struct sigaction shmguard_prev; /* the action replaced, for a SIGBUS not ours */

struct shmguard_map {
	uintptr_t lo, hi;
	unsigned major, minor;
	uint64_t ino;
};

/* ---- in the handler: async-signal-safe only ---- */

static uint64_t shmguard_num(const char **p, int base)
{
	uint64_t v = 0;
	for (;; (*p)++) {
		int c = **p,
		    d = c >= '0' && c <= '9'                 ? c - '0'
			: base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
							     : -1;
		if (d < 0)
			return v;
		v = v * (uint64_t)base + (uint64_t)d;
	}
}

static const char *shmguard_field(const char *p) /* past this field and the blanks after it */
{
	while (*p != '\0' && *p != ' ')
		p++;
	while (*p == ' ')
		p++;
	return p;
}

/* "lo-hi perms offset major:minor inode path" (proc(5)); false when it is not that. */
static bool shmguard_parse(const char *p, struct shmguard_map *m)
{
	m->lo = (uintptr_t)shmguard_num(&p, 16);
	if (*p++ != '-')
		return false;
	m->hi = (uintptr_t)shmguard_num(&p, 16);
	p = shmguard_field(shmguard_field(shmguard_field(p)));
	m->major = (unsigned)shmguard_num(&p, 16);
	if (*p++ != ':')
		return false;
	m->minor = (unsigned)shmguard_num(&p, 16);
	p = shmguard_field(p);
	m->ino = shmguard_num(&p, 10);
	return m->hi > m->lo;
}

/* One line head of /proc/self/maps: note it when it maps the watched file. */
static void shmguard_line(const char *head, struct shmguard_map *found, size_t *n)
{
	struct shmguard_map m;
	if (*n < SHMGUARD_MAX_MAPS && shmguard_parse(head, &m) && m.ino == shmguard_ino &&
		m.major == shmguard_major && m.minor == shmguard_minor)
		found[(*n)++] = m;
}

/* The mappings of the watched file, from /proc/self/maps read with open/read only. */
static size_t shmguard_scan(struct shmguard_map *found)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char chunk[1024], head[SHMGUARD_HEAD];
	size_t n = 0, len = 0;
	ssize_t got;
	while ((got = read(fd, chunk, sizeof(chunk))) > 0 || (got < 0 && errno == EINTR)) {
		for (ssize_t i = 0; i < got; i++) {
			if (chunk[i] != '\n') {
				if (len < sizeof(head) - 1)
					head[len++] = chunk[i];
				continue;
			}
			head[len] = '\0';
			shmguard_line(head, found, &n);
			len = 0;
		}
	}
	close(fd);
	return n;
}

static void shmguard_handler(int sig, siginfo_t *si, void *ctx)
{
	struct shmguard_map found[SHMGUARD_MAX_MAPS];
	int saved = errno;
	size_t n = atomic_load(&shmguard_watching) ? shmguard_scan(found) : 0;
	uintptr_t at = (uintptr_t)si->si_addr;
	bool ours = false;
	for (size_t i = 0; i < n; i++)
		ours |= at >= found[i].lo && at < found[i].hi;
	if (!ours) { /* not the wal-index: as before this module, the fault repeats and kills */
		sigaction(SIGBUS, &shmguard_prev, NULL);
		if (shmguard_prev.sa_handler == SIG_DFL || shmguard_prev.sa_handler == SIG_IGN) {
			errno = saved;
			return;
		}
		if (shmguard_prev.sa_flags & SA_SIGINFO)
			shmguard_prev.sa_sigaction(sig, si, ctx);
		else
			shmguard_prev.sa_handler(sig);
		return;
	}
	for (size_t i = 0; i < n; i++)
		mmap((void *)found[i].lo, found[i].hi - found[i].lo, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	atomic_store(&shmguard_tripped, true);
	errno = saved;
}

/* ---- outside the handler ---- */

void shmguard_watch(const char *db_path)
{
	char *shm = xasprintf("%s-shm", db_path);
	struct stat sb;
	int rc = stat(shm, &sb);
	free(shm);
	if (rc != 0) /* no wal-index file: nothing SQLite maps */
		return;
	atomic_store(&shmguard_watching, false);
	shmguard_major = major(sb.st_dev);
	shmguard_minor = minor(sb.st_dev);
	shmguard_ino = (uint64_t)sb.st_ino;
	atomic_store(&shmguard_tripped, false);
	atomic_store(&shmguard_watching, true);
	struct sigaction sa = { .sa_sigaction = shmguard_handler, .sa_flags = SA_SIGINFO | SA_RESTART };
	sigemptyset(&sa.sa_mask);
	struct sigaction old;
	if (sigaction(SIGBUS, &sa, &old) == 0 && old.sa_sigaction != shmguard_handler)
		shmguard_prev = old;
}

bool shmguard_lost(void)
{
	return atomic_load(&shmguard_tripped);
}

/* SQLite's automatic checkpoint (sqlite3WalDefaultHook), but none once the index is lost. */
static int shmguard_wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	(void)arg;
	if (frames >= SHMGUARD_CKPT_FRAMES && !shmguard_lost())
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;
}

void shmguard_connection(sqlite3 *db)
{
	sqlite3_wal_hook(db, shmguard_wal_hook, NULL);
}

void shmguard_close(sqlite3 *db)
{
	if (db != NULL && shmguard_lost()) /* a checkpoint now would use the lost index */
		sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_close(db);
}
