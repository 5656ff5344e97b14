/* SPDX-License-Identifier: Apache-2.0 */
/* scenario: the wgwatch-sim scenario file ([global] and [group NAME] sections, "at T:" timeline
 * lines), compiled into per-group phases. Parsing never logs: errors come back as
 * "FILE:LINE: message" lines. The format is documented in docs/sim.md. */
#ifndef WGWATCH_SCENARIO_H
#define WGWATCH_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sc_fault {
	SC_FAULT_NONE = 0,
	SC_FAULT_401,       /* always 401 */
	SC_FAULT_MALFORMED, /* 200, invalid JSON */
	SC_FAULT_HTML,      /* 200, an HTML error page */
	SC_FAULT_HANG,      /* accept, read, never answer */
	SC_FAULT_REFUSE,    /* not listening */
	SC_FAULT_BIG,       /* a body over 8 MiB */
	SC_FAULT_TRUNCATE,  /* Content-Length larger than the body sent, then close */
	SC_FAULT_SLOW,      /* the reply dripped a few bytes at a time */
	SC_FAULT_SLOWLORIS, /* the head at once, then one body byte per drip_every */
	SC_FAULT_RESET,     /* the head and half the body, then a TCP RST */
};

#define SC_MAX_CORES  128
#define SC_VER_LEN    32
#define SC_CPU_MAX_WG 16 /* wg interfaces a group of the CPU model may have */
#define SC_CPU_SPREAD 8  /* cores one interface's cost may be spread over */

/* The CPU model's keys the timeline may change (docs/sim.md "CPU model"); [f][d] is wg
 * interface f (index into group->wg), direction d: 0 rx (decrypt), 1 tx (encrypt). */
struct sc_cpu {
	bool used;                       /* some CPU model key was given */
	bool has_cost;                   /* a cost key: the group runs the model */
	bool has_demand;                 /* else tx_mbps / rx_mbps split evenly */
	double demand[SC_CPU_MAX_WG][2]; /* Mbit/s offered */
	double cost[SC_CPU_MAX_WG][2];   /* percent of one core per Mbit/s */
	int ncores[SC_CPU_MAX_WG][2];    /* cores each direction's cost is spread over; 0: none */
	unsigned char core[SC_CPU_MAX_WG][2][SC_CPU_SPREAD];
	double follow[SC_CPU_MAX_WG][2]; /* other work (firewall) per Mbit/s carried, percent of one
					    core: it handles the same packets */
	int nfcores[SC_CPU_MAX_WG][2];   /* cores the follow work is spread over; 0: none */
	unsigned char fcore[SC_CPU_MAX_WG][2][SC_CPU_SPREAD];
	double work[SC_MAX_CORES];      /* percent of other load per core */
	double noise, work_noise;       /* uniform multiplicative noise, a fraction (0.25: +-25%) */
	double shared_noise;            /* the same, one draw per cell common to every stream */
	double burst_share, burst_mult; /* a slot bursts with probability share, demand x mult */
};

#define SC_PROF_MAX  8  /* classifiers in one share list */
#define SC_PROF_NAME 24 /* a classifier's name, with its NUL */

/* How a share of a core's load splits over /tool/profile classifiers (docs/sim.md "Diagnostics"):
 * percents that add up to at most 100; the rest is "unclassified". */
struct sc_prof {
	int n;
	char name[SC_PROF_MAX][SC_PROF_NAME];
	double share[SC_PROF_MAX];
};

enum sc_prof_part { SC_PROF_RX = 0, SC_PROF_TX = 1, SC_PROF_WORK = 2, SC_PROF_PARTS = 3 };

/* Which diagnostic commands a router refuses, and how (docs/sim.md "Diagnostics"). */
enum sc_refuse {
	SC_REFUSE_NONE = 0,
	SC_REFUSE_POLICY,      /* the user's group lacks the policy: 500 not enough permissions */
	SC_REFUSE_OLD,         /* no such command: 400 */
	SC_REFUSE_DEVICE_MODE, /* bandwidth-test off in device-mode: 400 not allowed by device-mode */
};

/* How a group's diagnostic replies vary where RouterOS's shape is not confirmed (diag_shape). */
enum sc_diag_shape {
	SC_DIAG_USAGE_PERCENT = 1 << 0, /* usage "12.5%", cpu loads "12%" */
	SC_DIAG_CPU_NAME = 1 << 1,      /* profile cpu "cpu0", not "0" */
	SC_DIAG_NO_SUMMARY = 1 << 2,    /* no per-core summary rows named cpuN */
	SC_DIAG_SUMMARY_CPU = 1 << 3,   /* the cpuN rows carry "cpu":"" */
	SC_DIAG_TOTAL_ROW = 1 << 4,     /* every data frame of cpu=all ends with a total row */
	SC_DIAG_NO_IDLE = 1 << 5,       /* no idle rows */
	SC_DIAG_TX_LOSS = 1 << 6,       /* bandwidth-test direction=transmit has lost-packets too */
};

/* How one REST menu answers badly while the rest of the router is fine (`menu_fault`,
 * docs/sim.md): the failures of an optional menu that wgwatch must ride out. */
enum sc_menu_fault_kind {
	SC_MENU_500 = 1,  /* 500 with RouterOS's internal-failure body */
	SC_MENU_ERROR200, /* 200 with a RouterOS error object, {"error":400,...} */
	SC_MENU_EMPTY,    /* 200 [] */
	SC_MENU_NULL,     /* 200, the usual reply with every value but .id and name null */
	SC_MENU_HANG,     /* never answered (the connection stays open) */
	SC_MENU_KINDS
};
#define SC_MENU_FAULTS   4  /* menus one phase may spoil */
#define SC_MENU_PATH_LEN 40 /* "/system/package/update" */
struct sc_menu_fault {
	char path[SC_MENU_PATH_LEN]; /* the menu's path after /rest, "/system/health" */
	enum sc_menu_fault_kind kind;
};

/* Everything the timeline can change. */
struct sc_state {
	char version[SC_VER_LEN];          /* "7.22.3", no channel */
	char channel[16];                  /* "stable" */
	char firmware[SC_VER_LEN];         /* current-firmware */
	char upgrade_firmware[SC_VER_LEN]; /* upgrade-firmware */
	char latest[SC_VER_LEN];           /* latest-version of /system/package/update; "" none */
	double tx_mbps, rx_mbps;           /* whole router, all wg peers together; tx = encrypt */
	double swing;                      /* daily swing as a fraction, 0..1 */
	int nloads;                        /* > 0: per-core list (last value repeats) */
	unsigned char loads[SC_MAX_CORES];
	int busy_load, other_load, busy_core; /* used when nloads == 0 */
	enum sc_fault fault;
	double uptime_shift; /* seconds added to the served uptime (clock jumps) */
	int cpu_mhz;         /* cpu-frequency; 0 omits it. The CPU model's costs scale with it */
	double wan_drops;    /* ether1 tx-queue-drop per second */
	int wg_mtu;          /* the wg interfaces' MTU; 0: 1420 */
	struct sc_cpu cpu;
	struct sc_prof prof[SC_PROF_PARTS]; /* profile_rx, profile_tx, profile_work */
	enum sc_refuse refuse;              /* diag_refuse */
	struct sc_menu_fault menu_faults[SC_MENU_FAULTS];
	int nmenu_faults;
};

/* A stretch of simulated time with one state; phases[0].start is -INFINITY. */
struct sc_phase {
	double start; /* simulated seconds since the sim started */
	bool reboot;  /* the router rebooted at start */
	struct sc_state st;
};

enum sc_health { SC_HEALTH_DEFAULT, SC_HEALTH_V7, SC_HEALTH_V6, SC_HEALTH_NONE };
/* How a group's routers differ from the common shape (`shape =`, docs/sim.md), as real ones do. */
enum sc_shape {
	SC_SHAPE_RESOURCE_ARRAY = 1 << 0, /* /system/resource as a one-element array (7.1 betas) */
	SC_SHAPE_SNMP_ROS6 = 1 << 1,      /* sysDescr "router", no mtxrBoardName, entPhysicalDescr */
	SC_SHAPE_MORE_IFACES = 1 << 2,    /* wlan1, pppoe-out1 and eoip1 besides the others */
	SC_SHAPE_NO_ROUTE_CHECK = 1 << 3, /* /ip/route/check is "no such command" (400) */
	SC_SHAPE_LO_TYPE_24 = 1 << 4,     /* lo as ifType 24 (softwareLoopback), not 1 */
};

struct sc_wg {
	char *name;
	int npeers;
};

struct sc_group {
	char *name; /* routers are NAME (count 1) or NAME-01.. */
	int line;
	int count;
	char *board, *arch, *cpu_model, *model_serial;
	int cores;
	uint64_t memory; /* bytes */
	bool routerboard;
	char *labels; /* "site=x,role=y" or NULL */
	struct sc_wg *wg;
	size_t nwg;
	int idle_peers;        /* per interface: the last N peers never handshook */
	int comment_every;     /* every Nth peer has a comment; 0 none */
	int disabled_peers;    /* per interface: the last N peers are disabled (and idle) */
	enum sc_health health; /* the shape of /system/health (docs/sim.md) */
	int fans, psus;        /* fanN-speed and psuN-state sensors */
	int failed_psu;        /* psuN-state "fail" for N; 0 none */
	char *peer_prefix;
	int vlans;
	int packet_size;           /* bytes, for packet counters */
	double uptime0;            /* uptime at sim start (s); < 0: derived from the name */
	double boot_time;          /* simulated seconds a reboot keeps the router refusing */
	int load_jitter;           /* +- percent, deterministic; 0 = constant loads */
	double drip_every;         /* real seconds between the slowloris fault's bytes */
	bool tls;                  /* served over HTTPS with the scenario's tls_cert / tls_key */
	unsigned shape;            /* enum sc_shape bits */
	char *bridge_name;         /* the bridge's name [bridge] */
	char *routes;              /* "PREFIX IFACE, ..." besides 0.0.0.0/0 via ether1 (simroute.h) */
	double snmp_restart_every; /* the SNMP agent restarts this often (s); 0: never */
	bool cpu_sim;              /* some phase has a cost: loads and counters come from the CPU model */
	double wave_period;        /* period of the swing (s) [1 d] */
	double growth;             /* the CPU model's demand grows by this share a week, compound [0] */
	double slot;               /* the CPU model's time step (s) [0.1] */
	double noise_every;        /* length of a noise cell (s) [1] */
	double load_window;        /* a load served is the mean over this span before it (s); 0: instant */
	unsigned diag_shape;       /* enum sc_diag_shape bits */
	char *btest_user;          /* the bandwidth-test servers' credentials; NULL: no auth */
	char *btest_password;
	struct sc_phase *phases;
	size_t nphases;
};

typedef struct scenario {
	char *file;
	char *user, *password;
	char *diag_user, *diag_password; /* a second REST user of every router; NULL: none */
	char *tls_cert, *tls_key;        /* PEM files, relative paths taken from the scenario's dir */
	double time_scale;
	uint64_t seed;
	struct sc_group *groups;
	size_t ngroups;
	size_t nrouters;
} scenario_t;

/* Load path. 0 and *out on success; -1 and *errors (one "FILE:LINE: message" per line, caller
 * frees) on failure. */
int scenario_load(const char *path, scenario_t **out, char **errors);
void scenario_free(scenario_t *sc);

/* "1w2d3h4m5s", "90s", "2h", a bare number of seconds; into seconds. 0 or -1. */
int scenario_parse_duration(const char *s, double *sec);
const char *scenario_fault_name(enum sc_fault f);
/* The menu fault of path ("/system/health", a query after '?' ignored) in st, or NULL. */
const struct sc_menu_fault *scenario_menu_fault(const struct sc_state *st, const char *path);

#endif
