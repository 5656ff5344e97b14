/* SPDX-License-Identifier: Apache-2.0 */
/* history: read-only queries over the SQLite store for the web pages, run on the caller's
 * thread (an HTTP thread) with a read-only connection of its own per call, beside the store's
 * writer (WAL). Series come downsampled in SQL to a common time axis of at most ~600 buckets,
 * from raw samples for short ranges and from the 5-minute roll-ups for long ones. */
#ifndef WGWATCH_HISTORY_H
#define WGWATCH_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/probe.h"
#include "daemon/profile.h"

#define HISTORY_MAX_POINTS 600

struct history_req {
	const char *db_path;
	const char *router;       /* config name */
	int64_t from_ms;          /* 0: since the router was first seen */
	int64_t to_ms;            /* usually now */
	int64_t raw_retention_ms; /* raw samples older than to_ms - this may be gone; 0: 35 d */
	size_t max_points;        /* buckets on the time axis; 0: HISTORY_MAX_POINTS */
	int64_t min_bucket_ms;    /* narrowest bucket (2 poll intervals: no empty buckets) */
};

/* One version_history row. Strings are router text (untrusted), NULL when unknown. */
struct history_event {
	int64_t time_ms;
	char *kind; /* first, upgrade, downgrade, firmware, board, reboot */
	char *old_version, *new_version, *old_firmware, *new_firmware, *old_board, *new_board;
	char *architecture;
	int64_t uptime_ms; /* -1 when unknown */
};

/* A peer's newest sample. */
struct history_peer {
	char *interface, *name;
	int64_t time_ms; /* of the newest sample */
	uint64_t rx_bytes, tx_bytes;
	int64_t handshake_age_ms; /* -1 when never */
	double rx_bps, tx_bps;    /* over the newest interval, bits/s; NAN when unknown */
	char *endpoint, *allowed; /* "addr:port" and the allowed addresses as last seen; NULL */
	int disabled;             /* 0/1, -1 unknown */
};

/* A health sensor: its newest reading and its range over the page's time range. */
struct history_sensor {
	char *name, *unit; /* unit: "celsius", "volts", "amperes", "watts", "rpm", "state" */
	double value;      /* at health_ms; NAN when the newest reading lacked it */
	double min, max;   /* over [from_ms, to_ms); NAN when no reading there */
	double *v;         /* nbuckets means on the page's time axis, NAN where none */
};

/* Per WireGuard interface, one value per bucket, bits/s, NAN where no data. */
struct history_iface {
	char *name;
	double *tx_bps, *rx_bps;
};

/* The result: plain data owned by the caller (history_free). Bucket i covers
 * [from_ms + i * bucket_ms, from_ms + (i + 1) * bucket_ms). */
typedef struct history {
	int64_t first_seen_ms, last_poll_ms, last_ok_ms, uptime_ms, info_ms; /* 0/-1 unknown */
	char *version, *channel, *firmware, *upgrade_firmware, *board, *architecture, *cpu_model;

	int64_t from_ms, to_ms, bucket_ms;
	size_t nbuckets;
	bool rolled; /* the series read 5-minute roll-ups (long range) */
	bool hourly; /* ... and hourly ones, for whole hours or past the 5-minute tier's retention */

	size_t nifaces;
	struct history_iface *ifaces;
	size_t ncores;
	double *load; /* ncores rows of nbuckets, 0..1, NAN where no data */
	size_t nevents;
	struct history_event *events; /* all of the router's, oldest first */
	size_t npeers;
	struct history_peer *peers; /* by interface, then name */
	int64_t health_ms;          /* time of the newest health reading; 0 when none */
	int64_t mem_free, mem_total, disk_free, disk_total; /* bytes then; -1 unknown */
	size_t nsensors;
	struct history_sensor *sensors; /* every sensor the router ever had, by id */
} history_t;

/* 0 and *out on success; 1 when the database does not know the router (*out NULL); -1 with
 * *cause (caller frees) when the database cannot be read. Never logs. */
int history_load(const struct history_req *req, history_t **out, char **cause);
void history_free(history_t *h);

/* The router's CPU profiles (daemon/profile.h), newest first, at most limit, read from the
 * database at db_path (store/history_profiles.c). 0 (none: *n 0), or -1 with *cause (caller frees). */
int history_profiles(
	const char *db_path, const char *router, size_t limit, profile_t ***out, size_t *n, char **cause);
void history_profiles_free(profile_t **v, size_t n);
/* Adds the rows of a stored profile (the profiles table's JSON text, NULL: none) to p; rows it
 * cannot read are left out (store/history_profiles.c). */
void history_profile_rows(profile_t *p, const char *json);
/* One version change (a version_history row of kind upgrade or downgrade) for the report. */
struct history_upgrade {
	int64_t id, time_ms;
	char *router, *from_version, *to_version, *board, *architecture, *firmware; /* NULL unknown */
};
/* The upgrade of id: 0 with *out filled (history_upgrade_clear), 1 when there is none, -1 with
 * *cause (store/history_profiles.c). */
int history_upgrade(const char *db_path, int64_t id, struct history_upgrade *out, char **cause);
void history_upgrade_clear(struct history_upgrade *u);
/* For every router in the database, fn(arg, name, end of its newest profile, of its newest
 * probe) (wall ms, 0 when none). 0, or -1 with *cause (store/history_profiles.c). */
int history_diag_latest(const char *db_path,
	void (*fn)(void *arg, const char *router, int64_t profile_ms, int64_t probe_ms), void *arg,
	char **cause);
/* The router's probes (daemon/probe.h), newest first, likewise. */
int history_probes(
	const char *db_path, const char *router, size_t limit, probe_t ***out, size_t *n, char **cause);
void history_probes_free(probe_t **v, size_t n);

/* The load of core c in bucket b (NAN when none). */
double history_load_at(const history_t *h, size_t core, size_t b);

/* Version running at time t_ms according to the events (NULL when none is known). */
const char *history_version_at(const history_t *h, int64_t t_ms);

/* A router's newest version change (kind upgrade or downgrade). Strings are owned. */
struct history_change {
	char *router; /* config name */
	int64_t time_ms;
	char *kind;                      /* "upgrade" or "downgrade" */
	char *old_version, *new_version; /* router text, NULL when unknown */
};

/* The newest version change of every router that has one, sorted by router name (strcmp),
 * in one query for the whole fleet. 0 with *out and *n (caller frees: history_changes_free;
 * *out may be NULL when n is 0); -1 with *cause when the database cannot be read. Never logs. */
int history_last_changes(const char *db_path, struct history_change **out, size_t *n, char **cause);
void history_changes_free(struct history_change *c, size_t n);
/* The entry of router in c (sorted as history_last_changes returns it), NULL when none. */
const struct history_change *history_change_find(
	const struct history_change *c, size_t n, const char *router);

/* Duration of a range name: "6h", "24h", "7d", "30d" give ms; "all" gives 0. -1 when unknown. */
int64_t history_range_ms(const char *name);

#endif
