/* SPDX-License-Identifier: Apache-2.0 */
/* simq: RouterOS's REST rule that one user's requests run one at a time, in the order they
 * arrive, while other users' run at once (docs/sim.md "Diagnostics"), for one router. It only
 * keeps the order; the caller parks and resumes the requests (opaque items). */
#ifndef WGWATCH_SIMQ_H
#define WGWATCH_SIMQ_H

#include <stdbool.h>
#include <stddef.h>

#define SIMQ_USERS 2 /* the scenario's user and its diag_user */

typedef struct simq simq_t;

simq_t *simq_create(void);
void simq_destroy(simq_t *q);
/* item of user arrives: true if it runs now (the user was free), false if it waits its turn. */
bool simq_enter(simq_t *q, int user, void *item);
/* The running item of user ended: the user's next waiting item, which now runs, or NULL. */
void *simq_done(simq_t *q, int user);
/* True if item is the one running for user. */
bool simq_running(const simq_t *q, int user, const void *item);
/* item is gone while it waits: out of the queue. */
void simq_drop(simq_t *q, const void *item);
/* Items of user waiting their turn. */
size_t simq_waiting(const simq_t *q, int user);

#endif
