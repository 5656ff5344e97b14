/* SPDX-License-Identifier: Apache-2.0 */
/* simrouter: one simulated router as a pure function of simulated time: state, uptime, per-core
 * loads, WireGuard counters (integrals of the rates since the last boot, or of the CPU model's
 * throughput), keys. Safe to read from several threads at once. */
#ifndef WGWATCH_SIMROUTER_H
#define WGWATCH_SIMROUTER_H

#include "sim/scenario.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct simrouter simrouter_t;

/* Router number idx (0-based) of group g; gidx is its index across the whole scenario. */
simrouter_t *simrouter_create(const scenario_t *sc, const struct sc_group *g, int idx, size_t gidx);
void simrouter_destroy(simrouter_t *r);

const char *simrouter_name(const simrouter_t *r);
const struct sc_group *simrouter_group(const simrouter_t *r);
const scenario_t *simrouter_scenario(const simrouter_t *r);
size_t simrouter_index(const simrouter_t *r); /* across the scenario */

/* The state in force at simulated time t (seconds since the sim started). */
const struct sc_state *simrouter_state(const simrouter_t *r, double t);
/* Seconds since the last boot finished at t; negative while (re)booting. */
double simrouter_uptime(const simrouter_t *r, double t);
/* The fault at t; SC_FAULT_REFUSE while booting. */
enum sc_fault simrouter_fault(const simrouter_t *r, double t);
/* The first time after t at which simrouter_fault may change; INFINITY if never. */
double simrouter_next_change(const simrouter_t *r, double t);
int simrouter_core_load(const simrouter_t *r, double t, int core);
/* What core's load at t is made of (sc_prof_part: decrypt, encrypt, the rest), unrounded; the
 * static model's load is all "the rest". */
void simrouter_core_parts(const simrouter_t *r, double t, int core, double parts[SC_PROF_PARTS]);
/* Mbit/s a clean tunnel through wg interface f could carry at t in direction d (0 rx, 1 tx):
 * the CPU model's headroom over the cost (simcpu_capacity); INFINITY for the static model. */
double simrouter_capacity(const simrouter_t *r, double t, int f, int d);
/* True when version (no channel) is at least major.minor. */
bool simrouter_version_at_least(const char *version, int major, int minor);

/* Peers are numbered across all wg interfaces, interface by interface. */
int simrouter_npeers(const simrouter_t *r);
int simrouter_peer_iface(const simrouter_t *r, int peer); /* index into group->wg */
int simrouter_peer_num(const simrouter_t *r, int peer);   /* 1-based within its interface */
bool simrouter_peer_idle(const simrouter_t *r, int peer); /* never handshook */
/* Bytes since boot of all peers together; dir 0 = rx (decrypt), 1 = tx (encrypt). */
double simrouter_total_bytes(const simrouter_t *r, double t, int dir);
/* ether1's tx-queue-drop counter at t: the integral of wan_queue_drops since the last boot. */
uint64_t simrouter_wan_drops(const simrouter_t *r, double t);
/* Peers share byte pools: one for the whole router (tx_mbps / rx_mbps) or, in a group of the
 * CPU model, one per wg interface (at most SC_CPU_MAX_WG). */
int simrouter_npools(const simrouter_t *r);
int simrouter_peer_pool(const simrouter_t *r, int peer);
/* out[pool][dir]: bytes since boot of each pool at t. Thread-safe; the same t gives the same bits. */
void simrouter_pool_bytes(const simrouter_t *r, double t, double out[][2]);
/* A peer's share of its pool's bytes (total from simrouter_pool_bytes, or from
 * simrouter_total_bytes when there is one pool). */
uint64_t simrouter_peer_bytes(const simrouter_t *r, int peer, double total);
/* Seconds since the peer's last handshake at t; negative: never. */
double simrouter_last_handshake(const simrouter_t *r, double t, int peer);
/* A deterministic 32-byte key as 44 base64 chars + NUL; salt tells keys apart. */
void simrouter_key(const simrouter_t *r, int peer, int salt, char out[45]);
/* Deterministic 64-bit hash of the router, a and b (seeded by the scenario). */
uint64_t simrouter_hash(const simrouter_t *r, uint64_t a, uint64_t b);

#endif
