/* SPDX-License-Identifier: Apache-2.0 */
/* restdecode: the RouterOS REST replies of collectors/rest.c decoded into a sample, and its
 * error bodies into a reason. No I/O: what collectors/rest.c and the fuzz harness share. */
#ifndef WGWATCH_RESTDECODE_H
#define WGWATCH_RESTDECODE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/jsonr.h"
#include "daemon/sample.h"

/* The requests of one poll, in order; each has its decoder. */
enum restdecode_step {
	RESTDECODE_RESOURCE, /* /system/resource */
	RESTDECODE_CPU,      /* /system/resource/cpu */
	RESTDECODE_BOARD,    /* /system/routerboard */
	RESTDECODE_IFACES,   /* /interface */
	RESTDECODE_PEERS,    /* /interface/wireguard/peers */
	RESTDECODE_HEALTH,   /* /system/health (not every poll, see rest.c) */
	RESTDECODE_UPDATE,   /* /system/package/update (check_updates, at most hourly) */
	RESTDECODE_NSTEPS
};

/* Decodes the 2xx reply body of step (len bytes, NUL-terminated) into s. 0, or -1 with *cause
 * (printable, caller frees); s may be partly filled on failure. */
int restdecode_reply(enum restdecode_step step, const char *body, size_t len, sample_t *s, char **cause);
/* Sees peer p, just appended to s, and its `.id` (NULL when the row has none), valid for the
 * call only. */
typedef void restdecode_peer_fn(void *arg, sample_t *s, struct sample_peer *p, const char *id);
/* A peers reply into s: with full, as restdecode_reply(RESTDECODE_PEERS) does; without, one of
 * .proplist=.id,rx,tx,last-handshake, whose peers get counters only. fn (may be NULL) sees
 * each peer. 0, or -1 with *cause as restdecode_reply. */
int restdecode_peers_keyed(const char *body, size_t len, bool full, sample_t *s, restdecode_peer_fn *fn,
	void *arg, char **cause);
/* The interface a /ip/route/check reply names (malloc'd into *iface): 0, or -1 with *cause
 * (printable, caller frees). */
int restdecode_route(const char *body, size_t len, char **iface, char **cause);
/* "HTTP 401 Unauthorized[: detail]" from a RouterOS error body, or the standard phrase (malloc'd). */
char *restdecode_http_reason(long code, const char *body, size_t len);
/* body parsed into this thread's jsonr document (valid until its next parse), or NULL with
 * *cause ("reply is not JSON", "reply is HTML, not JSON", "empty reply"; caller frees). */
const jsonr_node_t *restdecode_json(const char *body, size_t len, char **cause);
/* A copy of untrusted text fit for an error line: printable ASCII only, at most max bytes and
 * "..." when cut (malloc'd). */
char *restdecode_clean(const char *s, size_t max);

#endif
