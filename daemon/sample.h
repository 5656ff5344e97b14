/* SPDX-License-Identifier: Apache-2.0 */
/* sample: what one poll of one router yielded, whatever the source (REST or SNMP).
 * A sample is plain data, owned by whoever holds the pointer; collectors fill it, the poller
 * hands it to the fleet view and the store. Strings in it come from routers: untrusted text. */
#ifndef WGWATCH_SAMPLE_H
#define WGWATCH_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a poll failed. The names (sample_err_name) are the `kind` label of wgwatch_poll_errors_total. */
enum sample_err {
	SAMPLE_OK = 0,
	SAMPLE_ERR_TIMEOUT,     /* no complete answer within the timeout */
	SAMPLE_ERR_CONNECT,     /* refused, unreachable, reset */
	SAMPLE_ERR_DNS,         /* host name did not resolve */
	SAMPLE_ERR_TLS,         /* handshake or certificate verification failed */
	SAMPLE_ERR_AUTH,        /* 401/403 or SNMP authentication failure */
	SAMPLE_ERR_HTTP,        /* other HTTP status >= 400 */
	SAMPLE_ERR_PARSE,       /* body not JSON, or not the shape RouterOS sends */
	SAMPLE_ERR_SIZE,        /* body over the size cap */
	SAMPLE_ERR_SNMP,        /* SNMP error status or unusable varbinds */
	SAMPLE_ERR_UNSUPPORTED, /* no collector can poll this router */
	SAMPLE_ERR_INTERNAL,    /* our bug or resource exhaustion */
	SAMPLE_ERR_COUNT
};

struct sample_core {
	double load; /* 0..1 */
	double irq;  /* 0..1, NAN when the source does not tell */
};

/* The fields of these are ordered by size (no padding): the fleet keeps every router's newest
 * sample, interfaces and peers included. */
struct sample_iface {
	char *name;
	char *type; /* "wg", "ether", ...; "" when unknown (SNMP) */
	uint64_t rx_bytes, tx_bytes;
	uint64_t rx_packets, tx_packets;
	uint64_t rx_drops, tx_drops;
	uint64_t rx_errors, tx_errors; /* 0 when the source does not tell */
	uint64_t tx_queue_drops;       /* REST tx-queue-drop; 0 when not told */
	uint64_t link_downs;           /* REST link-downs: times the link went down; 0 when not told */
	uint32_t mtu;                  /* actual-mtu, else mtu; 0 when unknown */
	bool running;
};

struct sample_peer {
	char *interface;
	char *peer; /* name, else comment, else public key: the `peer` label */
	char *public_key;
	uint64_t rx_bytes, tx_bytes;
	int64_t last_handshake_ms; /* age of the last handshake; -1 when never */
	char *endpoint;            /* current-endpoint-address; NULL when unknown or none */
	char *allowed;             /* allowed-address as sent ("10.0.0.2/32,10.1.0.0/24"); NULL */
	int endpoint_port;         /* current-endpoint-port; 0 when unknown or none */
	bool disabled;
};

/* What a health sensor measures, and the unit of sample_sensor.value. */
enum sample_unit {
	SAMPLE_UNIT_CELSIUS,
	SAMPLE_UNIT_VOLTS,
	SAMPLE_UNIT_AMPERES,
	SAMPLE_UNIT_WATTS,
	SAMPLE_UNIT_RPM,
	SAMPLE_UNIT_STATE, /* value 1 ok, 0 anything else ("fail") */
	SAMPLE_UNIT_COUNT
};

struct sample_sensor { /* one row of /system/health or mtxrGaugeTable */
	char *name;    /* "cpu-temperature", "fan1-speed", "psu1-state", ... */
	enum sample_unit unit;
	double value; /* in unit */
};

/* An optional menu of the poll (/system/health, ...: docs/routeros.md §2.3) as its collector
 * last asked it. While it fails its data is left out of the sample, and the poll stands. */
struct sample_menu {
	const char *path; /* "/system/health": a static string */
	char *why;        /* NULL when its newest answer was good; else why it failed (printable) */
	int64_t since_ms; /* failing: wall clock of its first failure in a row; else 0 */
};

/* Its fields ordered so that none is padded: the fleet keeps every router's newest sample. */
typedef struct sample {
	char *router;        /* config name of the router */
	int64_t time_ms;     /* wall clock when the poll asked for the counters */
	int64_t mono_ms;     /* the monotonic clock at that instant (sample_stamp); -1 unknown */
	int64_t duration_ms; /* how long the poll took */
	const char *source;  /* "rest" or "snmp" (static string) */

	enum sample_err err;   /* SAMPLE_OK when the router answered everything */
	uint32_t cpu_freq_mhz; /* cpu-frequency; 0 when unknown (some boards do not tell) */
	char *error;           /* human reason when err != SAMPLE_OK, else NULL */

	char *version;  /* "7.22.3" (channel stripped), NULL when unknown */
	char *channel;  /* "stable", ... or NULL */
	char *firmware; /* RouterBOOT current-firmware, NULL on CHR */
	char *upgrade_firmware;
	char *board;
	char *architecture;
	char *cpu_model;
	int64_t uptime_ms; /* -1 when unknown */
	/* /system/package/update (check_updates), as last read, maybe an hour ago: latest-version
	 * (the version the router is offered) and status; NULL when not read or not told. */
	char *offered_version;
	char *update_status;

	size_t ncores;
	struct sample_core *cores;
	size_t nifaces;
	struct sample_iface *ifaces;
	size_t npeers;
	struct sample_peer *peers;
	size_t nsensors;
	struct sample_sensor *sensors;
	size_t nmenus; /* the optional menus asked so far, failing or not */
	struct sample_menu *menus;
	int64_t mem_free, mem_total;   /* bytes; -1 when unknown */
	int64_t disk_free, disk_total; /* bytes; -1 when unknown */
	bool have_peers;               /* false when the source cannot tell peers (SNMP alone) */
	/* Health (/system/health, MIKROTIK-MIB): the sensors as last read, maybe some polls ago
	 * (collectors read them less often than counters); health_fresh when read by this poll. */
	bool health_fresh;
	bool packed;       /* from sample_dup: one block, read-only (see there) */
	bool peers_sealed; /* peers is a shared table (sample_seal), read-only */
	/* Private to sample.c: allocated lengths of ifaces, peers, sensors and menus (grown by
	 * doubling, so that a poll of 20 peers costs a few reallocs, not 20); 0 when unknown. */
	uint32_t cap_ifaces, cap_peers, cap_sensors, cap_menus;
	struct sample_pool *pool;    /* private to sample.c: the blocks of sample_strdup */
	struct sample_strs *held[2]; /* private to sample.c: shared blocks (sample_hold), or NULL */
} sample_t;

/* Where finished samples go (the store, in the daemon): submit takes ownership of s. */
typedef struct sample_sink {
	void (*submit)(void *ctx, sample_t *s);
	void *ctx;
} sample_sink_t;

/* A block of strings that samples share rather than copy: a router's peer details or health
 * names, the same from poll to poll. Immutable once made; reference-counted, atomically, as
 * samples go to the store's and the web's threads; freed with the last reference. */
typedef struct sample_strs sample_strs_t;
/* A block holding a copy of the len bytes at data (strings with their NULs), one reference. */
sample_strs_t *sample_strs_new(const char *data, size_t len);
const char *sample_strs_data(const sample_strs_t *b);
sample_strs_t *sample_strs_ref(sample_strs_t *b); /* b; NULL stays NULL */
void sample_strs_unref(sample_strs_t *b);         /* NULL is a no-op */
/* s keeps a reference to b until it is freed, so that sample_strdup of a string of b gives that
 * string itself (and sample_dup does not copy it). False when s holds as many blocks as it can:
 * sample_strdup then copies, as without. */
bool sample_hold(sample_t *s, sample_strs_t *b);
/* The block s holds that str lies in (a keeper may take its own reference), or NULL. */
sample_strs_t *sample_holder(const sample_t *s, const char *str);

/* A sample stamped time_ms with no monotonic time (mono_ms -1: a made-up one, a test's). */
sample_t *sample_new(const char *router, int64_t time_ms, const char *source);
/* Stamp s now: time_ms from the wall clock and mono_ms from the monotonic one, read together,
 * so that the time between two polls is measured on the clock that never steps. */
void sample_stamp(sample_t *s);
void sample_free(sample_t *s);
/* A copy in one allocation: arrays and strings packed after the struct, so that a reader
 * walking many routers' samples (/metrics) touches a few cache lines per router, not some 70
 * scattered blocks; sealed peers (sample_seal) are shared, not copied. Read-only: free it with
 * sample_free, never grow or replace its parts. */
sample_t *sample_dup(const sample_t *s);
/* Seals s's peers, once its collector is done: one immutable, reference-counted table of
 * exactly npeers, with the strings of them that lie in no block s holds (and references to those
 * blocks), which sample_dup shares rather than copies: the poll's peers are kept once, by the
 * sample the store writes and the fleet's copy alike. s takes no more peers after. */
void sample_seal(sample_t *s);
/* A sealed table of peers, kept beyond its sample (restpeers keeps the newest poll's). */
typedef struct sample_peers sample_peers_t;
sample_peers_t *sample_peers_ref(const sample_t *s); /* s's table, one more reference; NULL if not sealed */
const struct sample_peer *sample_peers_get(const sample_peers_t *t); /* its peers, as s had them */
void sample_peers_unref(sample_peers_t *t);                          /* NULL is a no-op */
/* Mark the sample failed; keeps the first error given. fmt must not contain secrets. */
void sample_fail(sample_t *s, enum sample_err err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *sample_err_name(enum sample_err err); /* "timeout", "connect", ... */

struct sample_iface *sample_add_iface(sample_t *s); /* zeroed, appended */
struct sample_peer *sample_add_peer(sample_t *s);
/* Moves from's interfaces (array and strings) to into, which must have none; from keeps none. */
void sample_take_ifaces(sample_t *into, sample_t *from);
/* A copy of str (NULL stays NULL) owned by s: for the strings of s's interfaces, peers and
 * sensors, which may also be plain malloc'd copies (sample_free frees those). It lives in a
 * block of s shared with other such strings (a poll of 20 peers costs four allocations, not
 * 100): never free it, and never hand it to another sample (sample_take_ifaces copies it).
 * A string of a block s holds (sample_hold) is not copied: str itself comes back. */
char *sample_strdup(sample_t *s, const char *str);
void sample_set_cores(sample_t *s, size_t n); /* allocates n zeroed cores, irq = NAN */
#define SAMPLE_MAX_SENSORS 64
/* Appends a sensor (name copied with sample_strdup), unless one of the same name and unit is there already (the
 * first stands: two would make one Prometheus series twice) or s has SAMPLE_MAX_SENSORS. */
void sample_add_sensor(sample_t *s, const char *name, enum sample_unit unit, double value);
/* Replaces dst's sensors with copies of src's (src may be packed). */
void sample_copy_sensors(sample_t *dst, const sample_t *src);
const char *sample_unit_name(enum sample_unit u); /* "celsius", "volts", ..., "state" */
/* Appends the state of an optional menu: path static, why (NULL: good) copied. */
void sample_add_menu(sample_t *s, const char *path, const char *why, int64_t since_ms);

#endif
