/* SPDX-License-Identifier: Apache-2.0 */
/* conf: the wgwatch.conf INI file (inih): [daemon], [detector], [web], [alert], [rollout], [defaults],
 * [router NAME], include = GLOB. Every key is declared once in a table in confkeys.c. Parsing never
 * logs: errors come back as "FILE:LINE: message" lines. Secrets (passwords, communities, keys)
 * are held here and must never be printed, in an error message or elsewhere. */
#ifndef WGWATCH_CONF_H
#define WGWATCH_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conf_label {
	char *key;
	char *value;
};

typedef struct conf_router {
	char *name;
	char *file; /* where the [router NAME] section is */
	int line;

	char *rest; /* base URL, e.g. "https://192.0.2.1" (no trailing /); NULL: no REST */
	char *user;
	char *password;         /* SECRET; from password or password_file */
	bool tls_verify;        /* default yes */
	char *ca_file;          /* absolute path or NULL */
	bool check_updates;     /* read /system/package/update at most hourly; default no */
	int peer_details_every; /* polls between REST requests of the peers' details; default 10 */

	char *snmp;                /* "host[:port]" or NULL */
	int snmp_version;          /* 1, 2 (for 2c) or 3; default 2 */
	char *snmp_community;      /* SECRET; default "public" */
	char *snmp_user;           /* v3 USM user */
	char *snmp_security_level; /* noAuthNoPriv|authNoPriv|authPriv */
	char *snmp_auth_protocol;  /* SHA|SHA-256|... */
	char *snmp_auth_password;  /* SECRET */
	char *snmp_priv_protocol;  /* AES|AES-256|... */
	char *snmp_priv_password;  /* SECRET */
	int snmp_retries;          /* resends after a timeout; default 1 */

	struct conf_label *labels; /* extra Prometheus labels, validated names */
	size_t nlabels;
	char **interfaces; /* names to watch besides type wg */
	size_t ninterfaces;
	char **wg_names; /* fnmatch(3) patterns: over SNMP, these interfaces are WireGuard's */
	size_t nwg_names;
	char **wan; /* interfaces carrying the tunnels' outer packets: polled for confounders */
	size_t nwan;
	bool wan_from_peers; /* without wan: found from the peers' endpoints (collectors/restwan.h) */

	bool peer_metrics; /* per-peer series on /metrics; default yes */

	int64_t interval_ms; /* inherited from [daemon] unless set */
	int64_t timeout_ms;

	/* diagnostics (docs/diagnostics.md): /tool/profile and /tool/bandwidth-test over REST */
	bool diag;                   /* default yes (with rest) */
	char *diag_user;             /* REST user of diagnostic requests; NULL: user */
	char *diag_password;         /* SECRET; from diag_password or diag_password_file */
	int64_t profile_every_ms;    /* no profile younger than this is taken again; default 1h */
	int64_t profile_duration_ms; /* default 5s */
	char *probe;                 /* bandwidth-test server address; NULL: no probes */
	int64_t probe_rate_bps;      /* offered rate, bits/s (decimal k/M/G); 0: unset */
	char *probe_direction;       /* transmit|receive|both; default transmit */
	char *probe_protocol;        /* udp|tcp; default udp */
	int64_t probe_duration_ms;   /* default 10s, at most 30s */
	int64_t probe_every_ms;      /* 0: after upgrades and on demand only */
	char *probe_user;
	char *probe_password; /* SECRET; from probe_password_file */
} conf_router_t;

struct conf_shard {
	int index; /* K of K/N, 1-based */
	int count; /* N; 1/1: every router */
};

typedef struct conf {
	char *path; /* the main file as given */

	/* [daemon] */
	char *listen;                       /* "127.0.0.1:9477" */
	char *database;                     /* absolute path */
	char *targets;                      /* [daemon] targets: file_sd JSON/YAML glob, absolute; NULL */
	char *listen_at;                    /* "FILE:LINE" of listen =, or the main file when not set */
	char *database_at;                  /* the same for database = */
	bool database_default;              /* database = not set: the compiled-in path under /var/lib */
	int64_t interval_ms;                /* default 30s */
	int64_t timeout_ms;                 /* default 10s */
	int max_in_flight;                  /* routers polled at once; default 256 */
	int max_probes;                     /* fixed-rate probes at once across the fleet; default 2 */
	int64_t retention_ms;               /* raw samples; default 35d */
	int64_t rollup_retention_ms;        /* 5-minute roll-ups; default 60d */
	int64_t rollup_hourly_retention_ms; /* hourly roll-ups; default 400d */
	size_t max_body_bytes;              /* REST reply cap; default 4 MiB */
	struct conf_shard shard;            /* [daemon] shard = K/N; default 1/1 */
	int reload_max_removed;             /* percent of the routers a reload may remove; default 50 */

	/* [detector] */
	int64_t before_ms; /* default 7d */
	int64_t after_ms;  /* default 7d */
	int min_samples;   /* default 30 */
	double threshold;  /* default 0.20 */
	double saturated;  /* default 0.90 */
	int64_t every_ms;  /* how often verdicts are re-evaluated; default 1m */
	double min_mbps;   /* traffic below this (Mbit/s) is too little to judge; default 1 */
	int64_t hold_ms;   /* a provisional regression alerts once held this long; 5m, 0 = off */

	conf_router_t *routers;
	size_t nrouters;

	/* [web]: accepted and kept for the web module; all NULL when not set */
	char *web_user;
	char *web_password; /* SECRET; content of [web] password_file */
	char *web_cert;     /* absolute path of the TLS certificate (PEM) */
	char *web_key;      /* absolute path of the TLS private key (PEM) */

	/* [alert]: the direct push of verdicts to Alertmanager (web/alert.c) */
	char *alert_url;               /* Alertmanager base URL, no trailing '/'; NULL: no push */
	int64_t alert_resend_ms;       /* firing alerts are sent again this often; default 1m */
	int64_t alert_timeout_ms;      /* one push may take this long; default 5s */
	int64_t alert_capacity_for_ms; /* a capacity alert's condition holds this long first; 1h */

	/* [rollout]: the rollout guard (detector/rollout.h) */
	char *rollout_canary;       /* "name=value": the label of canary routers; role=canary */
	int rollout_hold_regressed; /* routers with a regression that hold a cohort; default 1 */
	double rollout_hold_ratio;  /* a median ratio below this holds a cohort; default 0.8 */
	int rollout_go_min;         /* routers (canaries) judged final before go; default 2 */
	char **rollout_allow;       /* overrides, "VERSION/ARCHITECTURE" or "VERSION/BOARD" */
	size_t nrollout_allow;
	char **rollout_allow_at;      /* "FILE:LINE" of each rollout_allow item, as many */
	char *rollout_evidence;       /* hold|show: whether imported evidence may hold; default show */
	int rollout_evidence_fleets;  /* other fleets with a regression that hold; default 2 */
	int rollout_evidence_routers; /* or their routers with a regression; default 3 */
	char **rollout_shards;        /* every shard's base URL, in shard order; NULL: none */
	size_t nrollout_shards;
	bool rollout_fleet_canary; /* a router of another shard carries the canary label (shard_apply) */

	/* [evidence]: other fleets' documents (detector/evidimport.h) */
	char *evidence_files; /* a glob, absolute; NULL: none */
} conf_t;

/* Load path and everything it includes. On success returns 0 and *out. On failure returns -1
 * and *errors holds every problem found, one "FILE:LINE: message" per line (caller frees). */
int conf_load(const char *path, conf_t **out, char **errors);
/* Whether a label name is one of wgwatch's own series or Prometheus's target labels (router,
 * interface, direction, job, ...): a router's config label may not have it. */
bool conf_label_reserved(const char *name);
void conf_free(conf_t *c);

const conf_router_t *conf_router_find(const conf_t *c, const char *name);

/* Every key, one per line: [section] key = default, its type or range, and what it is for.
 * From the same table the parser uses (for --help and the docs; caller frees). */
char *conf_help(void);

/* Parse "250ms", "30s", "5m", "2h", "7d", "1w" (and combinations such as "1h30m") into ms. */
int conf_parse_duration(const char *s, int64_t *ms);
/* Whether version may be allowed for cohort as [rollout] allow = VERSION/COHORT would be: a
 * RouterOS version, and an architecture or board of at most 64 printable ASCII characters
 * without blanks, slashes or commas. */
bool conf_allow_ok(const char *version, const char *cohort);

#endif
