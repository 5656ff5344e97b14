/* SPDX-License-Identifier: Apache-2.0 */
/* simq: per user, the item that runs and a FIFO of those that wait. Small lists: a router sees
 * a few requests at once. Never logs, never touches the items. */
#include "config.h"
#include "sim/simq.h"
#include "lib/xmem.h"

#include <stdlib.h>

struct wait {
	void *item;
	int user;
	struct wait *next;
};

struct simq {
	void *running[SIMQ_USERS];
	struct wait *head; /* every user's waiting items, in arrival order */
};

simq_t *simq_create(void)
{
	return xcalloc(1, sizeof(simq_t));
}

void simq_destroy(simq_t *q)
{
	if (!q)
		return;
	for (struct wait *w = q->head, *next; w; w = next) {
		next = w->next;
		free(w);
	}
	free(q);
}

bool simq_enter(simq_t *q, int user, void *item)
{
	if (!q->running[user]) {
		q->running[user] = item;
		return true;
	}
	struct wait **tail = &q->head;
	while (*tail)
		tail = &(*tail)->next;
	*tail = xcalloc(1, sizeof(**tail));
	(*tail)->item = item;
	(*tail)->user = user;
	return false;
}

void *simq_done(simq_t *q, int user)
{
	q->running[user] = NULL;
	for (struct wait **p = &q->head; *p; p = &(*p)->next)
		if ((*p)->user == user) {
			struct wait *w = *p;
			*p = w->next;
			q->running[user] = w->item;
			free(w);
			break;
		}
	return q->running[user];
}

bool simq_running(const simq_t *q, int user, const void *item)
{
	return q->running[user] == item;
}

void simq_drop(simq_t *q, const void *item)
{
	for (struct wait **p = &q->head; *p; p = &(*p)->next)
		if ((*p)->item == item) {
			struct wait *w = *p;
			*p = w->next;
			free(w);
			return;
		}
}

size_t simq_waiting(const simq_t *q, int user)
{
	size_t n = 0;
	for (const struct wait *w = q->head; w; w = w->next)
		n += w->user == user;
	return n;
}
