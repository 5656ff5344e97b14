-- SPDX-License-Identifier: Apache-2.0
-- 002-verdicts: the upgrade detector's verdicts (detector/detector.c, docs/detector.md).
-- One row per version change (a version_history row of kind 'upgrade' or 'downgrade') x
-- WireGuard interface x direction, updated while the after window fills; final = 1 once the
-- window is complete. Every change of verdict or method also lands in verdict_history, so
-- that the time a verdict was reached stays known. Rates in bits/s, loads 0..1.

CREATE TABLE verdicts (
	event_id INTEGER NOT NULL REFERENCES version_history(id),
	interface TEXT NOT NULL,
	direction TEXT NOT NULL CHECK (direction IN ('tx', 'rx')),
	verdict TEXT NOT NULL CHECK (verdict IN ('regression', 'improvement', 'unchanged',
						 'insufficient-data')),
	method TEXT NOT NULL CHECK (method IN ('saturation-ceiling', 'cpu-cost', 'peak', 'none')),
	hint INTEGER NOT NULL DEFAULT 0,    -- low-confidence sign of a loss
	before_bps REAL,
	after_bps REAL,
	ratio REAL,                         -- capacity after / before
	before_load REAL,
	after_load REAL,
	before_n INTEGER NOT NULL,
	after_n INTEGER NOT NULL,
	final INTEGER NOT NULL DEFAULT 0,
	reached_ms INTEGER NOT NULL,        -- when the current verdict and method were first reached
	updated_ms INTEGER NOT NULL,        -- last evaluation
	PRIMARY KEY (event_id, interface, direction)
) WITHOUT ROWID;

CREATE TABLE verdict_history (
	event_id INTEGER NOT NULL REFERENCES version_history(id),
	interface TEXT NOT NULL,
	direction TEXT NOT NULL,
	time_ms INTEGER NOT NULL,           -- when this verdict was reached
	verdict TEXT NOT NULL,
	method TEXT NOT NULL,
	ratio REAL,
	after_n INTEGER NOT NULL,
	PRIMARY KEY (event_id, interface, direction, time_ms)
) WITHOUT ROWID;
