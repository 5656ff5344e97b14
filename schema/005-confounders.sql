-- SPDX-License-Identifier: Apache-2.0
-- 005-confounders: what changes WireGuard throughput without a version change, recorded with
-- each poll and named in each verdict (docs/detector.md, "Confounders").
-- polls.cpu_mhz: /system/resource cpu-frequency in MHz (NULL when the router does not tell).
-- The interfaces' MTU, rx/tx errors, tx-queue-drop and running state need no column: they are
-- packed into polls.ifaces, behind entry flag 8 (docs/storage.md); entries written before
-- this migration lack the flag and read as unknown.
-- verdicts.confounders: the confounders that moved across the version change, one per line
-- ('' when none), e.g. "cpu frequency 1400 → 800 MHz across the upgrade".
ALTER TABLE polls ADD COLUMN cpu_mhz INTEGER;
ALTER TABLE verdicts ADD COLUMN confounders TEXT NOT NULL DEFAULT '';
