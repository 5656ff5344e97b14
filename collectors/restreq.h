/* restreq: the requests of a RouterOS REST poll (collectors/rest.c does the I/O): each step's
 * URL, POST body and the name it goes by in errors. */
#ifndef WGWATCH_RESTREQ_H
#define WGWATCH_RESTREQ_H

#include "collectors/restdecode.h"
#include "daemon/conf.h"
#include "daemon/sample.h"

/* "GET /rest/system/resource" and the like, for error lines; nfound: the WAN interfaces found
 * (restwan.h), asked for by name like those of `interfaces` and `wan`. */
const char *restreq_what(enum restdecode_step step, const conf_router_t *rc, size_t nfound);
/* The URL of step for router rc (malloc'd); *post gets the POST body (malloc'd) or NULL. found:
 * the WAN interfaces found. s is the poll's sample so far (its version decides the peers'
 * .proplist). */
char *restreq_url(enum restdecode_step step, const conf_router_t *rc, char *const *found, size_t nfound,
	const sample_t *s, char **post);
/* The route check of dst: its URL (malloc'd) and *post its body (restwan.h). */
char *restreq_route(const conf_router_t *rc, const char *dst, char **post);

#endif
