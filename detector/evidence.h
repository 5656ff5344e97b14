/* SPDX-License-Identifier: Apache-2.0 */
/* evidence: what upgrades did to a fleet's capacity, per cohort and direction, as an anonymous
 * versioned JSON document another fleet can read (docs/evidence.md). Pure: a verdict array in,
 * text out. It must never put a router's name, address, label, serial, peer or interface name
 * in a document, and never touch SQLite, a clock or a file. */
#ifndef WGWATCH_DETECTOR_EVIDENCE_H
#define WGWATCH_DETECTOR_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "detector/detector.h"
#include "detector/evidread.h"

#define EVIDENCE_SCHEMA    "wgwatch-evidence/1"
#define EVIDENCE_FLEET_LEN 32 /* a fleet id: this many lowercase hex digits */

/* The document of fleet's final verdicts vs[n] whose upgrade came at or after since_ms (0: all),
 * made at now_ms: one fleet, its cohorts, and when ro is not NULL its rollout list ro[0..nro)
 * (the guard's counts, for the other shards of a fleet). Caller frees. */
char *evidence_export(const struct detector_verdict *vs, size_t n, const char *fleet, int64_t since_ms,
	int64_t now_ms, const struct evidread_rollout *ro, size_t nro);

#endif
