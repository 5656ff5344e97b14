/* SPDX-License-Identifier: Apache-2.0 */
/* worker: a thread that runs one tick function now and then every so often until stopped, the
 * shape of the detector and the Alertmanager push. Ticks never overlap; stop wakes a sleeping
 * worker at once and joins it, so a tick in progress finishes first. */
#ifndef WGWATCH_WORKER_H
#define WGWATCH_WORKER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct worker worker_t;
typedef void (*worker_tick_fn)(void *arg);

/* Start a thread named name (at most 15 bytes: what top -H and /proc/PID/task/TID/comm show)
 * that calls tick(arg) at once, then every_ms after each tick ends (sooner when woken).
 * Returns 0, or an errno value (the thread could not start; nothing is left behind). */
int worker_start(const char *name, int64_t every_ms, worker_tick_fn tick, void *arg, worker_t **out);
void worker_wake(worker_t *w); /* run the next tick now */
/* From a tick: let the next tick come after ms instead of every_ms (when sooner); once. */
void worker_next(worker_t *w, int64_t ms);
bool worker_stopping(worker_t *w); /* true once worker_stop began (false for NULL) */
void worker_stop(worker_t *w);     /* wake, join and free; NULL is fine */

#endif
