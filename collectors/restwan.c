/* SPDX-License-Identifier: Apache-2.0 */
/* restwan: the WAN of a REST router from its peers' endpoints (restwan.h). It picks what to ask
 * and keeps what was answered; it must never ask about an IPv6 or malformed endpoint, more than
 * one endpoint per poll, or anything at all when the operator named the WAN. */
#include "config.h"
#include "collectors/restwan.h"
#include "lib/buf.h"
#include "lib/jsonw.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct restwan {
	char *todo[RESTWAN_ENDPOINTS]; /* this round's endpoints, while it runs (freed at its end) */
	size_t ntodo, next;            /* next: the one being or to be checked */
	char **found;                  /* in effect: polled besides `interfaces` */
	size_t nfound;
	char **round; /* found by this round so far */
	size_t nround;
	int64_t round_ms; /* when the round started; 0: never */
	bool settled;     /* a whole round ended: later rounds replace the set at their end */
};

restwan_t *restwan_create(void)
{
	return xcalloc(1, sizeof(restwan_t));
}

static void restwan_names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void restwan_todo_clear(restwan_t *w)
{
	for (size_t i = 0; i < w->ntodo; i++)
		free(w->todo[i]);
	w->ntodo = w->next = 0;
}

void restwan_destroy(restwan_t *w)
{
	if (w == NULL)
		return;
	restwan_todo_clear(w);
	restwan_names_free(w->found, w->nfound);
	restwan_names_free(w->round, w->nround);
	free(w);
}

static bool restwan_enabled(const conf_router_t *rc)
{
	return rc->nwan == 0 && rc->wan_from_peers;
}

static bool restwan_ipv4(const char *a)
{
	struct in_addr x;
	return a != NULL && inet_pton(AF_INET, a, &x) == 1;
}

/* Peers with an IPv4 endpoint, busiest (rx + tx) first. */
static int restwan_busier(const void *a, const void *b)
{
	const struct sample_peer *p = *(const struct sample_peer *const *)a;
	const struct sample_peer *q = *(const struct sample_peer *const *)b;
	uint64_t x = p->rx_bytes + p->tx_bytes, y = q->rx_bytes + q->tx_bytes;
	return (x < y) - (x > y);
}

static bool restwan_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* A new round: the distinct endpoints of the busiest enabled peers. */
static void restwan_round(restwan_t *w, const sample_t *s, int64_t now_ms)
{
	const struct sample_peer **v = xcalloc(s->npeers + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < s->npeers; i++)
		if (!s->peers[i].disabled && restwan_ipv4(s->peers[i].endpoint))
			v[n++] = &s->peers[i];
	qsort(v, n, sizeof(*v), restwan_busier);
	restwan_todo_clear(w);
	for (size_t i = 0; i < n && w->ntodo < RESTWAN_ENDPOINTS; i++)
		if (!restwan_has(w->todo, w->ntodo, v[i]->endpoint))
			w->todo[w->ntodo++] = xstrdup(v[i]->endpoint);
	free(v);
	restwan_names_free(w->round, w->nround);
	w->round = NULL;
	w->nround = 0;
	/* No endpoint yet (no handshake, IPv6 only): look again in RESTWAN_RETRY_MS, not at every
	 * poll (each look walks every peer). */
	w->round_ms = w->ntodo > 0 ? now_ms : now_ms - RESTWAN_EVERY_MS + RESTWAN_RETRY_MS;
}

const char *restwan_due(restwan_t *w, const conf_router_t *rc, const sample_t *s, int64_t now_ms)
{
	if (!restwan_enabled(rc) || !s->have_peers)
		return NULL;
	if (w->next >= w->ntodo && (w->round_ms == 0 || now_ms - w->round_ms >= RESTWAN_EVERY_MS))
		restwan_round(w, s, now_ms);
	return w->next < w->ntodo ? w->todo[w->next] : NULL;
}

static void restwan_add(char ***v, size_t *n, const char *name)
{
	if (restwan_has(*v, *n, name))
		return;
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(name);
}

static bool restwan_same(char *const *a, size_t na, char *const *b, size_t nb)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (!restwan_has(b, nb, a[i]))
			return false;
	return true;
}

/* The round is over: what it found replaces what was in effect. */
static void restwan_settle(restwan_t *w, const char *router)
{
	if (w->nround == 0 || restwan_same(w->found, w->nfound, w->round, w->nround))
		return;
	char list[512] = "";
	for (size_t i = 0, o = 0; i < w->nround && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", w->round[i]);
	log_info("rest: router %s: WAN from the peers' endpoints (/ip/route/check): %s", router, list);
	restwan_names_free(w->found, w->nfound);
	w->found = w->round;
	w->nfound = w->nround;
	w->round = NULL;
	w->nround = 0;
}

void restwan_done(restwan_t *w, const char *router, const char *iface, int64_t now_ms)
{
	if (w->next >= w->ntodo)
		return;
	if (iface == NULL) { /* the round ends as if not begun; the next starts in an hour */
		restwan_todo_clear(w);
		w->round_ms = now_ms;
		restwan_names_free(w->round, w->nround);
		w->round = NULL;
		w->nround = 0;
		return;
	}
	restwan_add(&w->round, &w->nround, iface);
	if (!w->settled && !restwan_has(w->found, w->nfound, iface)) { /* the first round: at once */
		restwan_add(&w->found, &w->nfound, iface);
		log_info("rest: router %s: WAN from the peers' endpoints (/ip/route/check): %s (to %s)",
			router, iface, w->todo[w->next]);
	}
	if (++w->next >= w->ntodo) { /* an hour to the next: no need to keep its endpoints */
		w->settled = true;
		restwan_settle(w, router);
		restwan_todo_clear(w);
	}
}

char *const *restwan_names(const restwan_t *w, const conf_router_t *rc, size_t *n)
{
	*n = restwan_enabled(rc) ? w->nfound : 0;
	return *n > 0 ? w->found : NULL;
}

char *restwan_body(const char *dst)
{
	buf_t b;
	buf_init(&b);
	buf_putc(&b, '{');
	if (jsonw_add(&b, "dst-ip", dst) < 0) {
		buf_free(&b);
		return NULL;
	}
	jsonw_add(&b, "once", "");
	buf_putc(&b, '}');
	return buf_steal(&b, NULL);
}
