/* SPDX-License-Identifier: Apache-2.0 */
/* restopt: the optional menus of a REST poll (docs/routeros.md §2.3): /system/routerboard,
 * /system/health, /system/package/update and /ip/route/check. A failure of one, of any kind,
 * leaves its data out of the sample and the poll standing; it is logged once (then every so
 * many failures, with the number not logged), its recovery once, and the menu waits a time of
 * its own before it is asked again. One per router; no I/O but those log lines. */
#ifndef WGWATCH_RESTOPT_H
#define WGWATCH_RESTOPT_H

#include <stdbool.h>
#include <stdint.h>

#include "collectors/restdecode.h"
#include "daemon/sample.h"

enum restopt_menu { RESTOPT_BOARD, RESTOPT_HEALTH, RESTOPT_UPDATE, RESTOPT_ROUTE, RESTOPT_NMENUS };

typedef struct restopt restopt_t;

restopt_t *restopt_create(void);
void restopt_destroy(restopt_t *o);
/* The optional menu step reads, or -1 for a required step (resource, cpu, interfaces, peers). */
int restopt_of(enum restdecode_step step);
/* Whether m failed and its wait is not over at now_ms (monotonic): the poll goes without it. */
bool restopt_waiting(const restopt_t *o, enum restopt_menu m, int64_t now_ms);
/* m answered well; the end of a failure is logged once. */
void restopt_good(restopt_t *o, enum restopt_menu m, const char *router);
/* m failed, why (printable, no secret): what s (may be NULL) holds of m is dropped, the failure
 * kept and logged as restopt.c's complaint allows. now_ms monotonic. */
void restopt_failed(
	restopt_t *o, enum restopt_menu m, const char *router, const char *why, sample_t *s, int64_t now_ms);
/* The state of every menu asked so far into s (sample_add_menu). */
void restopt_report(const restopt_t *o, sample_t *s);

#endif
