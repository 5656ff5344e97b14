/* SPDX-License-Identifier: Apache-2.0 */
/* capacity: how much WireGuard each stream of a router has left, and when it runs out
 * (docs/detector.md, "Capacity headroom"): the capacity now from the router's newest window
 * (judge.c's pinned or projected capacity), the demand from its 5-minute averages, the headroom
 * and the date a Theil-Sen trend of the daily peaks reaches the capacity. Pure: no SQLite, no
 * clock, no lock; it calls judge and stats below it, never above. */
#ifndef WGWATCH_CAPACITY_H
#define WGWATCH_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#include "detector/frame.h"

#define CAPACITY_NEVER INT64_MIN /* exhausted_ms: no date */

enum capacity_method { CAPACITY_UNKNOWN, CAPACITY_PINNED, CAPACITY_PROJECTED };

struct capacity {                 /* one router x interface x direction; plain data */
	char *router, *interface; /* owned (capacity_clear frees them); NULL in capacity_window's */
	const char *direction;    /* "tx" or "rx" (static) */
	enum capacity_method method;
	double bps, rse;          /* the capacity now and its relative standard error; NAN unknown */
	double p95_day, p95_week; /* demand: p95 of the 5-minute averages, bits/s; NAN: none */
	double headroom;          /* 1 - p95_week / bps, 0 at its limit; NAN when unknown */
	int64_t exhausted_ms;     /* when the daily peaks' trend reaches bps; CAPACITY_NEVER */
	double slope_bps_day;     /* the daily peaks' Theil-Sen growth at the last, bits/s a day; NAN */
	bool compound;            /* the trend is a line through the peaks' logarithms */
	size_t days;              /* daily peaks the trend had */
	int64_t from_ms;          /* the first poll of the window the capacity is of; 0 */
	char cores[32];           /* the cores that carry it, "3" or "1+2"; "" */
	char why[96];             /* unknown: why; pinned: "at its limit"; else "" */
	char trend_why[80];       /* why there is no date; "" when there is one */
};

/* The capacity of every stream of f (the router's newest window, all of its polls) into
 * c[0 .. 2 * f->nifs): method, bps, rse, cores, why; the demand is left unknown. */
void capacity_window(const struct frame *f, const struct frame_params *p, struct capacity *c);
/* Stream c's demand from its 5-minute averages bps[i] (bits/s) at t[i] (ms, ascending), as of
 * now_ms: the p95s, the headroom and the date it runs out. */
void capacity_demand(struct capacity *c, const int64_t *t, const double *bps, size_t n, int64_t now_ms);
/* "pinned", "projected"; NULL when unknown. */
const char *capacity_method_name(enum capacity_method m);
void capacity_clear(struct capacity *c); /* frees router and interface */

#endif
