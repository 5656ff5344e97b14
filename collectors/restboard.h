/* SPDX-License-Identifier: Apache-2.0 */
/* restboard: a router's last /system/routerboard answer (firmware), kept by the REST collector
 * between polls. Firmware changes only when the router restarts, so the request is made again
 * only when the resource answer shows a restart, another version or board, or it is old. */
#ifndef WGWATCH_RESTBOARD_H
#define WGWATCH_RESTBOARD_H

#include <stdbool.h>

#include "daemon/sample.h"

#define RESTBOARD_EVERY_MS 3600000 /* asked again at least this often */

typedef struct restboard restboard_t;

restboard_t *restboard_create(void);
void restboard_destroy(restboard_t *b);
/* Whether the kept answer stands for s (resource decoded) polled from url; see restboard.c. */
bool restboard_fresh(const restboard_t *b, const sample_t *s, const char *url);
/* Keeps s's firmware (routerboard decoded now) with its version, board, uptime and url. */
void restboard_keep(restboard_t *b, const sample_t *s, const char *url);
/* Puts the kept firmware into s. */
void restboard_use(const restboard_t *b, sample_t *s);

#endif
