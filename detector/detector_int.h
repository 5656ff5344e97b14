/* SPDX-License-Identifier: Apache-2.0 */
/* detector_int: shared by detector/'s files (judge, profcore, data, view, report, detector); never
 * included outside. */
#ifndef WGWATCH_DETECTOR_INT_H
#define WGWATCH_DETECTOR_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/profile.h"
#include "detector/detector.h"
#include "lib/worker.h"

/* ---- fit.c: least squares with an intercept ---- */

#define FIT_MAX 20 /* columns at most */

struct fit {
	size_t n, m;                       /* rows used (all values finite), columns */
	double beta[FIT_MAX], se[FIT_MAX]; /* slope and its standard error; NAN when dropped */
	double xmean[FIT_MAX], ymean, resid_sd;
	bool dropped[FIT_MAX]; /* no spread, or collinear with the columns kept */
};

/* y[0..n) on the columns of x (row-major, n x m) plus an intercept; rows with a NAN are left
 * out. -1 when too few rows (m + 3) or no column could be kept. */
int fit_ols(const double *x, const double *y, size_t n, size_t m, struct fit *o);

/* ---- judge.c: the verdict engine, pure functions of a version change's samples ---- */

/* One router's polls around a version change: [0, split) before, [split, npolls) after (the
 * poll that spans the reboot is in neither). A stream is an interface and direction,
 * s = 2 * interface + (0 tx, 1 rx). */
struct judge_frame {
	size_t npolls, ncores, nifs, split;
	const float *load;        /* [poll * ncores + core], 0..1; NAN when not read */
	const double *rate;       /* [poll * 2 * nifs + stream], bits/s over the poll; NAN when none */
	const profile_t *prof[2]; /* a CPU profile taken inside the before, the after window; NULL */
};

struct judge_w { /* a window: the polls [from, to) of a frame */
	size_t from, to;
};

struct judge_params {
	size_t min_samples;
	double threshold, saturated, min_bps;
};

struct judge_result {
	enum detector_outcome verdict;
	enum detector_method method;
	bool hint;
	double before_bps, after_bps, ratio, before_load, after_load;
	double rse; /* relative standard error of a projected ratio; NAN */
	size_t before_n, after_n;
	char cores[32]; /* the cores followed, "3" or "1+2"; empty when none */
	char why[96];   /* insufficient-data: why; empty otherwise */
};

struct judge_poll { /* one poll of the router, for the single-core bound */
	int64_t t;
	double busiest, others; /* busiest-core load and mean of the other cores; NAN */
	double tx, rx;          /* WireGuard bits/s, summed over the interfaces seen */
	size_t nrows;           /* interface samples seen at this poll */
};

/* Quantile q (0..1, linear interpolation) of v, which it sorts; NAN when n is 0. */
double judge_quantile(double *v, size_t n, double q);
/* The median of v[0..n), which it frees; NAN when n is 0. */
double judge_median_take(double *v, size_t n);
/* Mean, standard deviation and count of stream s's finite rates in w (where keep, if given). */
double judge_mean(const struct judge_frame *f, const struct judge_w *w, size_t s, const bool *keep,
	double *sd, size_t *count);
/* Whether stream s's rate in w is as flat as a stream held at its core's ceiling. */
bool judge_flat(const struct judge_frame *f, const struct judge_w *w, size_t s);
/* Whether core c read at least p->saturated in most of w's polls (a pinned core). */
bool judge_core_pinned(
	const struct judge_frame *f, const struct judge_w *w, size_t c, const struct judge_params *p);
/* The verdicts of every stream of f into r[0 .. 2 * f->nifs). */
void judge_event(const struct judge_frame *f, const struct judge_params *p, struct judge_result *r);
/* The single-core shape of polls p[0..n) into *b (all but b->router). */
void judge_bound(const struct judge_poll *p, size_t n, struct detector_bound *b);

/* ---- profcore.c: what a CPU profile says of the cores (docs/detector.md, "CPU profiles") ---- */

struct profcore_pick { /* where a stream's cores came from a profile */
	int side;      /* 0 none, 1 the before window's profile, 2 the after window's */
	int core;
	double share; /* of the core's load on the tunnel's path, percent */
};

/* For a stream no fit and no single pinned core placed (carry, judge_attribute's): the one
 * pinned core of a window whose profile shows it doing mostly tunnel work, where that and the
 * stream are unambiguous. Marks carry; returns what it did per stream (2 * f->nifs, caller
 * frees). */
struct profcore_pick *profcore_attribute(const struct judge_frame *f, const struct judge_w *b,
	const struct judge_w *a, const struct judge_params *p, bool *carry);
/* Says in r->why that its cores came from a profile, when pick says so. */
void profcore_note(const struct profcore_pick *pick, struct judge_result *r);
/* The confounders the profiles before and after a change show on the cores ("3", "1+2"): other
 * work that moved by 10 points of a core or more, one line per core, appended to list (owned,
 * may be NULL) with '\n' between them; returns the new list (caller frees). */
char *profcore_confounders(char *list, const profile_t *before, const profile_t *after, const char *cores);

/* ---- confound.c: what moved across a version change besides the version ---- */

struct confound_row { /* one interface at one poll */
	int64_t t;
	bool reset, running;
	int64_t mtu; /* 0 unknown */
	uint64_t rx_err, tx_err, txq;
	uint64_t rx_pkts, tx_pkts; /* what the errors and drops are a share of */
};

struct confound_iface {
	char *name;
	bool wg;                   /* a WireGuard interface: counts for its own verdicts only */
	struct confound_row *rows; /* ascending time */
	size_t n, cap;
};

struct confound_cpu {
	int64_t t, mhz;
};

struct confound_set { /* one router's rows over the event's windows */
	struct confound_iface *ifs;
	size_t nifs, capifs;
	struct confound_cpu *cpu; /* polls that told their CPU clock */
	size_t ncpu, capcpu;
};

/* The confounders of interface ifc's verdicts across the version change at t (rows before t
 * against rows after it): the CPU clock, every interface that is not WireGuard's, and ifc
 * itself. One line each, joined by '\n'; "" when none. Caller frees. */
char *confound_list(const struct confound_set *x, int64_t t, const char *ifc);
void confound_set_free(struct confound_set *x);

/* ---- detector.c: the detector's state, its verdicts in memory, a round ---- */

struct detector_item { /* a verdict as the detector keeps it */
	int64_t event_id;
	struct detector_verdict v;
	bool dirty, changed; /* to write; verdict or method changed (history row) */
};

enum data_sq {
	DATA_PROFILES, /* the optional ones first: NULL when schema 007 is missing */
	DATA_PROBES,
	DATA_PEERS,
	DATA_EVENTS,
	DATA_POLLS,
	DATA_WG,
	DATA_ROUTERS,
	DATA_UPSERT,
	DATA_HISTORY,
	DATA_LINKS,
	DATA_MHZ,
	DATA_NSQL
};

struct detector {
	struct judge_params params;
	int64_t before_ms, after_ms, every_ms, grace_ms;
	int64_t interval_ms; /* [daemon] interval: how soon a window gains a sample */
	int64_t next_due_ms; /* wall ms the data next allows a new verdict (INT64_MAX: none known) */
	bool readonly;       /* --report: never write */
	struct sqlite3 *db;  /* opaque here: only data.c includes sqlite3.h */
	struct sqlite3_stmt *sq[DATA_NSQL];
	struct detector_item *items; /* sorted by event, interface, direction */
	size_t nitems, capitems;
	int64_t *done; /* events judged final, ascending */
	size_t ndone;
	struct detector_bound *bounds; /* of the newest round, by router name */
	size_t nbounds;
	struct data_recent *recent; /* each router's polls in its bound window, by router id (data.c) */
	size_t nrecent;
	char *error;           /* the failure logged last, NULL while all is well */
	detector_view_t *view; /* the newest published view (under view.c's lock); NULL: none */

	struct rollout *rollout; /* [rollout] and the canaries, handed to every view */
	char **probe_to;         /* [2 * i] a router's name, [2 * i + 1] its probe address */
	size_t nprobe_to;

	worker_t *worker; /* the thread of the rounds; NULL for --report */
};

struct data_event {
	int64_t id, router_id, time_ms;
	int64_t from_ms, to_ms; /* the before window's start and the after window's end */
	const char *router, *from, *to, *arch, *board; /* into the statement's row */
	bool latest;
};

/* Set up d from conf and open its database (read-only for --report). -1 with *cause. */
int detector_open(detector_t *d, const conf_t *conf, bool readonly, char **cause);
void detector_free(detector_t *d); /* closes the database and frees d and all it holds */
/* Judge every version change not final yet, write what changed (unless read-only), and
 * recompute the single-core bounds. -1 with *cause. */
int detector_round(detector_t *d, int64_t now, char **cause);
/* The item of (event, interface, direction), created empty (*created) when missing. */
struct detector_item *detector_item_get(
	detector_t *d, int64_t ev, const char *ifc, const char *dir, bool *created);
void detector_mark_done(detector_t *d, int64_t ev); /* event ev is final: never judged again */
void detector_bounds_clear(detector_t *d);
enum detector_outcome detector_verdict_of(const char *name); /* by name; insufficient-data if unknown */
enum detector_method detector_method_of(const char *name);   /* by name; none if unknown */

/* ---- probe.c: a fixed-rate probe pair across a version change ---- */

struct data_set;

struct probe_row { /* one stored probe */
	int64_t t, duration_ms;
	bool transmit;                      /* else receive */
	double offered, delivered, busiest; /* bits/s; busiest-core load 0..1 or NAN */
};

struct probe_set {              /* a router's probes over an event's windows and its peers' addresses */
	struct probe_row *rows; /* ascending time */
	size_t n, cap;
	char **peers; /* [2 * i] a WireGuard interface, [2 * i + 1] its peer's allowed addresses */
	size_t npeers, cappeers;
};

/* Where the router of e has a probe pair (the newest probe before e, the first that started
 * after it, same direction and offered rate within 1%) through a WireGuard interface of x,
 * it replaces that stream's verdict in r (judge_event's) by one of method probe. -1: failed. */
int probe_apply(detector_t *d, const struct data_event *e, const struct data_set *x, struct judge_result *r);
/* Whether address (IPv4 or IPv6) lies in one of the comma-separated prefixes of list. */
bool probe_addr_in(const char *address, const char *list);
void probe_set_free(struct probe_set *p);

/* ---- data.c: the SQL that loads what judge needs and stores verdicts ---- */

struct data_row {
	size_t poll;
	double tx, rx;
};

struct data_iface {
	char *name;
	struct data_row *rows; /* ascending time */
	size_t n, cap;
};

struct data_set {                 /* one router's samples over a time range */
	struct judge_poll *polls; /* ascending time */
	size_t npolls, cappolls;
	float *loads; /* [poll * ncores + core], 0..1; NAN where not read */
	size_t ncores;
	struct data_iface *ifs; /* by name */
	size_t nifs, capifs;
};

/* Open path and prepare the statements (not the writing ones when readonly). -1 with *cause. */
int data_open(detector_t *d, const char *path, bool readonly, char **cause);
void data_close(detector_t *d); /* finalizes and closes; fine on a half-open d */
/* The samples of router in [from, to) into *x (always to free with data_set_free). -1: failed. */
int data_load(detector_t *d, int64_t router, int64_t from, int64_t to, struct data_set *x);
void data_set_free(struct data_set *x);
/* The CPU clock and every interface's link rows of router in [from, to) into *x (always to free
 * with confound_set_free). -1: failed. */
int data_load_links(detector_t *d, int64_t router, int64_t from, int64_t to, struct confound_set *x);
/* The frame of the version change at t (the poll at t left out): *rates and *loads to free. */
void data_frame(const struct data_set *x, int64_t t, struct judge_frame *f, double **rates, float **loads);
/* The next version change: 1 with *e, 0 after the last, -1 with *cause; then data_events_end. */
int data_event_next(detector_t *d, struct data_event *e, char **cause);
void data_events_end(detector_t *d);
/* Write the dirty items in one short transaction; kept dirty (retried) on failure. -1 with *cause. */
int data_flush(detector_t *d, int64_t now, char **cause);
/* The verdicts stored by an earlier run into d's items; final ones marked done. -1 with *cause. */
int data_load_stored(detector_t *d, char **cause);
/* Every router's recent single-core shape into d->bounds. Each round reads only the polls
 * stored since the last one: the rest of the window is kept in d->recent. -1 with *cause. */
int data_bounds(detector_t *d, char **cause);
void data_recent_free(detector_t *d); /* what data_bounds keeps between rounds */
/* The architecture and board the database last knew of router name (either NULL when unknown):
 * 1 with them (caller frees), 0 when the router is not in the database, -1 with *cause. */
int data_router_kind(detector_t *d, const char *name, char **arch, char **board, char **cause);
/* The probes of router in [from, to) and its enabled peers' allowed addresses into *p (always
 * to free with probe_set_free); none when the database has no probes table. -1: failed. */
int data_load_probes(detector_t *d, int64_t router, int64_t from, int64_t to, struct probe_set *p);
/* The profiles of router that ended in [from, to), newest first, into *v and *n (always to free
 * with history_profiles_free); none when the database has no profiles table. -1: failed. */
int data_load_profiles(detector_t *d, int64_t router, int64_t from, int64_t to, profile_t ***v, size_t *n);
/* *cause = "what: <the database's last error>"; returns -1. */
int data_fail(detector_t *d, char **cause, const char *what);

/* ---- view.c: the immutable snapshot published for web/ ---- */

struct detector_view {
	int refs; /* under view.c's lock */
	struct detector_verdict *v;
	size_t nv;
	struct detector_cohort *c;
	size_t nc;
	struct detector_bound *b;
	size_t nb;
	struct rollout *rollout; /* a reference to the detector's */
};

detector_view_t *view_build(const detector_t *d); /* a new view (one reference) of d's results */
void view_destroy(detector_view_t *v);            /* frees v whatever its references */
/* Make v (owned, may be NULL) d's newest view; the one it replaces loses d's reference. */
void view_publish(detector_t *d, detector_view_t *v);
void view_verdict_free(struct detector_verdict *v); /* its strings, not v */

/* ---- report.c: --report ---- */

void report_print(FILE *out, const detector_view_t *v); /* verdicts, cohorts, bound routers */
struct rollout_query;
struct rollout_result;
/* --rollout-check: the decision on q for router, its cohort and its reasons. */
void report_rollout(
	FILE *out, const char *router, const struct rollout_query *q, const struct rollout_result *res);

#endif
