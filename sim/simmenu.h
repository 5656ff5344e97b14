/* SPDX-License-Identifier: Apache-2.0 */
/* simmenu: the RouterOS menus wgwatch-sim serves (/system/resource, /interface, ...), each as a
 * flat record of string fields built from a simrouter at one simulated time. */
#ifndef WGWATCH_SIMMENU_H
#define WGWATCH_SIMMENU_H

#include "sim/simrouter.h"

#include <stdbool.h>
#include <time.h>

#define SIMMENU_FIELDS 40
#define SIMMENU_VLEN   112

struct simmenu_rec {
	int n;
	const char *k[SIMMENU_FIELDS]; /* static strings */
	char v[SIMMENU_FIELDS][SIMMENU_VLEN];
};

/* Per-request values computed once. */
struct simmenu_ctx {
	const simrouter_t *r;
	double t;
	const struct sc_state *st;
	double uptime;
	double total[2];               /* all peers' rx, tx bytes since boot */
	double pool[SC_CPU_MAX_WG][2]; /* per simrouter pool */
	time_t epoch;                  /* wall clock of simulated second 0 */
};

struct simmenu {
	const char *path; /* after "/rest/", e.g. "interface/wireguard/peers" */
	bool list;        /* false: a singleton (one object) */
	int (*count)(const struct simmenu_ctx *c);
	void (*fill)(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec);
};

const struct simmenu *simmenu_find(const char *path); /* NULL if none */
/* True when c's router serves list menu m as one flat object, fill(c, 0) (health = v6). */
bool simmenu_flat(const struct simmenu *m, const struct simmenu_ctx *c);
void simmenu_ctx_init(struct simmenu_ctx *c, const simrouter_t *r, double t, time_t epoch);
/* Value of key in rec, NULL if absent. */
const char *simmenu_get(const struct simmenu_rec *rec, const char *key);
void simmenu_duration(double sec, char *out, size_t size);

#endif
