/* SPDX-License-Identifier: Apache-2.0 */
/* probepair: the detector's highest-confidence method, a fixed-rate probe pair across a version
 * change (docs/detector.md): the same offered rate before and after, through the WireGuard
 * interface whose peer's allowed addresses hold the probe address. It never guesses the
 * interface when two or more could have carried the probe, and never writes. */
#include "config.h"
#include "detector/probepair.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_RATE_TOLERANCE 0.01 /* offered rates this close are the same rate */

/* Whether the first bits bits of a and b are equal. */
static bool probepair_prefix_eq(const unsigned char *a, const unsigned char *b, long bits)
{
	long whole = bits / 8;
	if (memcmp(a, b, (size_t)whole) != 0)
		return false;
	if (bits % 8 == 0)
		return true;
	unsigned char mask = (unsigned char)(0xff << (8 - bits % 8));
	return (a[whole] & mask) == (b[whole] & mask);
}

/* Whether address lies in one prefix "ADDR[/LEN]" of n bytes. */
static bool probepair_addr_in_one(const char *address, const char *s, size_t n)
{
	char net[64];
	if (n == 0 || n >= sizeof(net))
		return false;
	memcpy(net, s, n);
	net[n] = '\0';
	char *slash = strchr(net, '/');
	if (slash != NULL)
		*slash = '\0';
	unsigned char a[16], p[16];
	int af = strchr(net, ':') != NULL ? AF_INET6 : AF_INET;
	long max = af == AF_INET6 ? 128 : 32;
	if (inet_pton(af, net, p) != 1 || inet_pton(af, address, a) != 1)
		return false;
	char *end = NULL;
	long bits = slash != NULL ? strtol(slash + 1, &end, 10) : max;
	if (slash != NULL && (end == slash + 1 || *end != '\0'))
		return false;
	return bits >= 0 && bits <= max && probepair_prefix_eq(a, p, bits);
}

bool probepair_addr_in(const char *address, const char *list)
{
	for (const char *s = list; s != NULL && *s != '\0';) {
		s += strspn(s, " ,");
		size_t n = strcspn(s, " ,");
		if (probepair_addr_in_one(address, s, n))
			return true;
		s += n;
	}
	return false;
}

/* The index in names of the interface the probe to address went through; SIZE_MAX when unknown. */
static size_t probepair_iface(
	const struct probepair_set *p, const char *const *names, size_t nifs, const char *address)
{
	for (size_t k = 0; k < p->npeers; k++) {
		if (!probepair_addr_in(address, p->peers[2 * k + 1]))
			continue;
		for (size_t i = 0; i < nifs; i++)
			if (strcmp(names[i], p->peers[2 * k]) == 0)
				return i;
		return SIZE_MAX; /* the peer's interface has no samples in the windows */
	}
	return nifs == 1 ? 0 : SIZE_MAX;
}

/* The newest probe of the direction that ended before t, or the first that started at t or later. */
static const struct probepair_row *probepair_pick(
	const struct probepair_set *p, bool transmit, int64_t t, bool after)
{
	const struct probepair_row *best = NULL;
	for (size_t i = 0; i < p->n; i++) {
		const struct probepair_row *r = &p->rows[i];
		if (r->transmit != transmit || !(r->delivered >= 0) || !(r->offered > 0))
			continue;
		if (!after && r->t < t)
			best = r;
		if (after && r->t - r->duration_ms >= t)
			return r;
	}
	return best;
}

/* The verdict of a probe pair into *r, over judge's: its sample counts and cores stay. */
static void probepair_judge(const struct probepair_row *b, const struct probepair_row *a,
	const struct frame_params *pp, struct frame_result *r)
{
	double ratio = a->delivered / b->delivered;
	r->method = DETECTOR_M_PROBE;
	r->verdict = ratio < 1 - pp->threshold ? DETECTOR_REGRESSION
		: ratio > 1 + pp->threshold    ? DETECTOR_IMPROVEMENT
					       : DETECTOR_UNCHANGED;
	r->hint = false;
	r->before_bps = b->delivered;
	r->after_bps = a->delivered;
	r->ratio = ratio;
	r->before_load = b->busiest;
	r->after_load = a->busiest;
	r->rse = NAN;
	r->why[0] = '\0';
}

void probepair_apply(const struct probepair_set *p, const char *address, int64_t t, const char *const *names,
	size_t nifs, const struct frame_params *params, struct frame_result *r)
{
	size_t i = p->n > 0 && nifs > 0 ? probepair_iface(p, names, nifs, address) : SIZE_MAX;
	for (int dir = 0; i != SIZE_MAX && dir < 2; dir++) {
		const struct probepair_row *b = probepair_pick(p, dir == 0, t, false);
		const struct probepair_row *a = probepair_pick(p, dir == 0, t, true);
		if (b != NULL && a != NULL && b->delivered > 0 &&
			fabs(a->offered - b->offered) <= PROBE_RATE_TOLERANCE * b->offered)
			probepair_judge(b, a, params, &r[2 * i + (size_t)dir]);
	}
}

void probepair_set_free(struct probepair_set *p)
{
	for (size_t i = 0; i < 2 * p->npeers; i++)
		free(p->peers[i]);
	free(p->peers);
	free(p->rows);
	memset(p, 0, sizeof(*p));
}
