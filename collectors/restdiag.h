/* restdiag: RouterOS diagnostics over REST: POST /rest/tool/profile {"cpu":"all","duration":D}
 * on a curl multi and a connection of its own (never a poll's keep-alive connection, which it
 * must never hold up), under diag_user when set. Decodes the frames into one averaged profile.
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

#endif
