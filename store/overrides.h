/* SPDX-License-Identifier: Apache-2.0 */
/* overrides: the rollout guard's overrides stored through POST /api/v1/rollout/allow (schema
 * 008): add, revoke and list them, each with who allowed it and when. Each call that writes
 * opens its own short-lived connection, off the store's writer and off the event loop. */
#ifndef WGWATCH_OVERRIDES_H
#define WGWATCH_OVERRIDES_H

#include <stddef.h>
#include <stdint.h>

/* One override: version may go to cohort (an architecture or a board). */
struct override {
	int64_t id;             /* the row; 0 for one from the configuration */
	char *version, *cohort; /* owned */
	char *who;              /* owned: the web user, or "config FILE:LINE" */
	int64_t at_ms;          /* when it was allowed (wall ms); 0 unknown (the configuration) */
};

/* Free o's strings and zero it. */
void overrides_clear(struct override *o);
/* Free the strings of v[0..n) and v itself; NULL is fine. */
void overrides_free(struct override *v, size_t n);
/* A deep copy of o into *out. */
void overrides_copy(struct override *out, const struct override *o);

struct sqlite3;
/* The active overrides on an open connection, oldest first; a database older than schema 008
 * has none. 0, or -1 with *cause (caller frees). */
int overrides_load(struct sqlite3 *db, struct override **out, size_t *n, char **cause);
/* The same on a connection of its own to the database at path (read-only). */
int overrides_list(const char *path, struct override **out, size_t *n, char **cause);

/* Store "want->version may go to want->cohort" by want->who at want->at_ms in the database at
 * path. 1 when stored now, 0 when the same was active already; *out (overrides_clear after) is
 * the active row either way. -1 with *cause, *out empty. */
int overrides_add(const char *path, const struct override *want, struct override *out, char **cause);
/* Revoke the active override of version for cohort, recording who and when. 1 when revoked
 * (*out the row as it was; overrides_clear after), 0 when none was active, -1 with *cause. */
int overrides_revoke(const char *path, const char *version, const char *cohort, const char *who,
	int64_t now_ms, struct override *out, char **cause);

#endif
