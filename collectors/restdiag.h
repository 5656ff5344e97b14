/* SPDX-License-Identifier: Apache-2.0 */
/* restdiag: RouterOS diagnostics over REST: POST /rest/tool/profile {"cpu":"all","duration":D}
 * and POST /rest/tool/bandwidth-test (a fixed-rate probe) on a curl multi and a connection of
 * their own (never a poll's keep-alive connection, which they must never hold up), under
 * diag_user when set. Decodes the frames into one averaged profile, the records into a probe.
 * Never puts a password in a URL, an error or a log line. */
#ifndef WGWATCH_RESTDIAG_H
#define WGWATCH_RESTDIAG_H

#include <stddef.h>

#include "daemon/diag.h"
#include "daemon/profile.h"
#include "lib/loop.h"

typedef struct restdiag restdiag_t;

restdiag_t *restdiag_create(loop_t *loop); /* NULL when curl cannot make a multi */
void restdiag_destroy(restdiag_t *rd);     /* abandons requests in flight without done */
diag_runner_t restdiag_runner(restdiag_t *rd);

/* The rows of a /tool/profile reply (every documented and guessed shape, docs/diagnostics.md)
 * averaged over the frames past the first two into p. 0, or -1 with *cause (caller frees). */
int restdiag_decode_profile(const char *body, size_t len, profile_t *p, char **cause);

/* The verdict of a /tool/bandwidth-test reply: the last record with status "done testing" (or
 * the last record) into p[0], and p[1] for direction both, each with the router's name and
 * offered bps set by the caller (p[] made with probe_new). 0; 1 when the router refused
 * (device-mode); -1 when the test failed ("can not connect", "authentication failed", ...) or
 * the reply cannot be read; *cause says why (caller frees). */
int restdiag_decode_probe(const char *body, size_t len, probe_t *p[2], char **cause);

/* The body of POST /rest/tool/profile for a profile of duration_ms (caller frees). */
char *restdiag_profile_body(int64_t duration_ms);
/* The body of POST /rest/tool/bandwidth-test for rc's probe: it holds rc's probe_password, so
 * it goes nowhere but the request (caller frees); NULL when rc's probe is not UTF-8. */
char *restdiag_probe_body(const conf_router_t *rc, int64_t duration_ms);
/* The probes a reply of rc's probe_direction decodes into: pr[0], and pr[1] for both (else
 * NULL), of router, ended at end_ms, configured, offered rate_bps and duration_ms set. */
void restdiag_probe_pair(probe_t *pr[2], const char *router, int64_t end_ms, const char *direction,
	double rate_bps, int64_t duration_ms);

#endif
