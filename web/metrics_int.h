/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_int: what the files of the /metrics exposition share (metrics.c the table and the
 * render, metrics_health.c the health and peer-detail families, metrics_detector.c the
 * detector's, metrics_daemon.c and metrics_self.c the daemon's own); nothing outside them. */
#ifndef WGWATCH_METRICS_INT_H
#define WGWATCH_METRICS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lib/buf.h"
#include "daemon/fleet.h"
#include "detector/detector.h"
#include "store/store.h"
#include "web/metrics.h"

/* A range of the render's label buffer. */
struct metrics_seg {
	size_t off, len;
};

/* Text a streamed render hands to flush at once: small enough to stay in cache. */
#define METRICS_CHUNK (256 * 1024)

/* Per router, the escaped `router="..."` label, the `,key="value"` config labels and `} `, and
 * for each interface and peer of its newest sample the router label with its own
 * (segs[seg0..]: interfaces, then peers), all escaped once per render into one buffer:
 * families then copy them, and a render walks one contiguous buffer rather than some 50
 * scattered strings per router per family. */
struct metrics_rl {
	struct metrics_seg router, extra;
	size_t seg0, peer0; /* segs[] of its first interface, of its first peer */
};

struct metrics_ctx {
	buf_t *out;
	/* When set, called with out once it holds METRICS_CHUNK bytes or more, between two
	 * routers' series: it takes the text and resets out (a gzip stream). */
	void (*flush)(void *arg, buf_t *out);
	void *flush_arg;
	bool drop_empty; /* a family without a series goes without its # HELP and # TYPE */
	char name[96];   /* "name{" of the family being rendered */
	size_t name_len;
	const fleet_view_t *view;
	const struct store_stats *store;
	const struct metrics_http *http;
	detector_view_t *det; /* NULL while the detector has nothing to say */
	buf_t labels;
	struct metrics_rl *rl;
	struct metrics_seg *segs;
	size_t nsegs, capsegs;
};

struct metrics_family;
typedef void (*metrics_router_fn)(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
typedef void (*metrics_daemon_fn)(struct metrics_ctx *c, const struct metrics_family *fam);

struct metrics_family {
	const char *name;
	const char *type;
	const char *help;
	metrics_router_fn per_router; /* called for every router, or */
	metrics_daemon_fn daemon;     /* called once */
	size_t off;                   /* offset of the counter in its struct, where used */
	bool peer;                    /* one series per peer: skipped where peer_metrics = no */
};

/* buf_add: buf_append's fast path inlined; a render makes over a million small appends. */
static inline void metrics_put(buf_t *b, const void *p, size_t n)
{
	buf_add(b, p, n);
}

static inline void metrics_puts(buf_t *b, const char *s)
{
	metrics_put(b, s, strlen(s));
}

static inline void metrics_putc(buf_t *b, char c)
{
	metrics_put(b, &c, 1);
}

void metrics_put_u64(buf_t *out, uint64_t v);
void metrics_put_double(buf_t *out, double v); /* shortest text that reads back as v */

/* name{router="R" — the caller adds its own labels, then ends the series. */
void metrics_begin(struct metrics_ctx *c, const struct metrics_family *fam, size_t i);
/* name{router="R" and the prepared labels of interface (peer = false) or peer k of router i;
 * the caller may add labels, then ends the series. */
void metrics_begin_seg(struct metrics_ctx *c, size_t i, bool peer, size_t k);
void metrics_label(buf_t *out, const char *key, const char *value); /* ,key="escaped value" */
/* Config labels, "} ", the value and a newline. */
void metrics_end_u64(struct metrics_ctx *c, size_t i, uint64_t v);
void metrics_end_double(struct metrics_ctx *c, size_t i, double v);
/* The newest sample's readings, or NULL while the router is down. */
const sample_t *metrics_current(const fleet_router_t *r);

/* metrics_daemon.c: the daemon's work (metrics_daemon_fn). */
/* name value\n of a family without labels. */
void metrics_daemon_value(buf_t *out, const struct metrics_family *fam, double v);
void metrics_daemon_shard_info(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_poll_duration(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_poll_start_delay(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_polls_late(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_store_samples(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_clock_steps(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_store_write_errors(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_store_queue(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_store_sqlite_bytes(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_store_failing(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_http_refused(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_http_slow(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_daemon_http_pages_late(struct metrics_ctx *c, const struct metrics_family *fam);

/* metrics_detector.c: the detector's families. fam->off of the upgrade families picks one: */
enum { METRICS_UP_REGRESSION, METRICS_UP_RATIO, METRICS_UP_REACHED, METRICS_UP_CONFOUNDERS };
void metrics_detector_upgrade(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* fam->off 0: regressed, 1: improved. */
void metrics_detector_cohort(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
void metrics_detector_cohort_ratio(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
void metrics_detector_core_saturated(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
void metrics_detector_rollout(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_detector_shard_up(struct metrics_ctx *c, const struct metrics_family *fam);
/* fam->off of the capacity families picks one: */
enum { METRICS_CAP_BPS, METRICS_CAP_HEADROOM, METRICS_CAP_EXHAUSTED };
void metrics_detector_capacity(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* metrics_evidence.c: other fleets' evidence per imported cohort (fam->off picks the figure) */
void metrics_evidence_cohort(struct metrics_ctx *c, const struct metrics_family *fam);

/* metrics_self.c: the daemon's own families (metrics_daemon_fn) and two per router. */
void metrics_self_build_info(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_self_reload_ok(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_self_reload_time(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_self_process(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_self_open_fds(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_self_max_fds(struct metrics_ctx *c, const struct metrics_family *fam);
void metrics_self_router_success(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);

/* metrics_health.c: per-router families (metrics_router_fn). */
/* One series per sensor of unit fam->off (enum sample_unit), label sensor. */
void metrics_health_sensor(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* The int64_t of sample_t at fam->off (mem_free...), in bytes; absent when unknown (-1). */
void metrics_health_bytes(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* Per optional REST menu asked (label menu): 1 while it answers, 0 while it fails. */
void metrics_health_menu(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* Per peer: endpoint and allowed addresses as labels, value 1. */
void metrics_health_peer_info(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* Per peer: 1 when disabled, else 0. */
void metrics_health_peer_disabled(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
/* Per peer that ever handshook: unix time of the last handshake (poll time minus its age). */
void metrics_probe_delivered(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
void metrics_profile_usage(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);
void metrics_health_handshake_time(
	struct metrics_ctx *c, const struct metrics_family *fam, size_t i, const fleet_router_t *r);

#endif
