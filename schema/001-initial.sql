-- SPDX-License-Identifier: Apache-2.0
-- 001-initial: routers, version history, raw samples and 5-minute roll-ups.
-- Times are Unix epoch milliseconds. Loads are per mille (0..1000). Router counters are
-- unsigned 64-bit values kept in SQLite's signed INTEGER: read them back as uint64.
-- Raw sample tables are WITHOUT ROWID, keyed by a small integer id and time, so that a row
-- holds numbers only and one router's (or interface's) history is contiguous on disk.

CREATE TABLE routers (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,          -- the [router NAME] of the config
	first_seen_ms INTEGER NOT NULL,
	last_poll_ms INTEGER,               -- any poll, failed or not
	last_ok_ms INTEGER,                 -- last poll that answered everything
	version TEXT,                       -- last known info; NULL while unknown
	channel TEXT,
	firmware TEXT,
	upgrade_firmware TEXT,
	board TEXT,
	architecture TEXT,
	cpu_model TEXT,
	uptime_ms INTEGER,                  -- last known uptime ...
	info_ms INTEGER                     -- ... and the poll time it was read at
);

-- One row per event; kind says what changed. old_* is what was known before (NULL for
-- 'first'), new_* after. For 'reboot' old and new are equal and uptime_ms is the new uptime.
CREATE TABLE version_history (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('first', 'upgrade', 'downgrade', 'firmware', 'board', 'reboot')),
	old_version TEXT,
	new_version TEXT,
	old_firmware TEXT,
	new_firmware TEXT,
	old_board TEXT,
	new_board TEXT,
	architecture TEXT,
	uptime_ms INTEGER
);
CREATE INDEX version_history_router ON version_history (router_id, time_ms);

CREATE TABLE interfaces (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	name TEXT NOT NULL,
	type TEXT NOT NULL DEFAULT '',
	UNIQUE (router_id, name)
);

-- A peer is known by its public key (pkey), else by its label when the source has no key.
CREATE TABLE peers (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	interface TEXT NOT NULL,
	pkey TEXT NOT NULL,
	name TEXT NOT NULL,                 -- the `peer` label when first seen
	UNIQUE (router_id, interface, pkey)
);

CREATE TABLE polls (
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL,
	source TEXT,                        -- 'rest' or 'snmp'
	err TEXT,                           -- NULL when ok, else the error kind ('timeout', ...)
	error TEXT,                         -- the human reason
	PRIMARY KEY (router_id, time_ms)
) WITHOUT ROWID;

CREATE TABLE cpu_samples (
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,
	core INTEGER NOT NULL,              -- 0-based
	load INTEGER NOT NULL,              -- per mille
	irq INTEGER,                        -- per mille; NULL when the source does not tell
	PRIMARY KEY (router_id, time_ms, core)
) WITHOUT ROWID;

-- Raw counters as read, and the increase since the previous sample of the same interface
-- computed across wraps, reboots and reset-counters (never negative). dt_ms, rx_delta and
-- tx_delta are NULL on the first sample; reset is 1 when the counters restarted from zero.
CREATE TABLE iface_samples (
	iface_id INTEGER NOT NULL REFERENCES interfaces(id),
	time_ms INTEGER NOT NULL,
	rx_bytes INTEGER NOT NULL,
	tx_bytes INTEGER NOT NULL,
	rx_packets INTEGER NOT NULL,
	tx_packets INTEGER NOT NULL,
	rx_drops INTEGER NOT NULL,
	tx_drops INTEGER NOT NULL,
	dt_ms INTEGER,
	rx_delta INTEGER,
	tx_delta INTEGER,
	reset INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (iface_id, time_ms)
) WITHOUT ROWID;

CREATE TABLE peer_samples (
	peer_id INTEGER NOT NULL REFERENCES peers(id),
	time_ms INTEGER NOT NULL,
	rx_bytes INTEGER NOT NULL,
	tx_bytes INTEGER NOT NULL,
	handshake_age_ms INTEGER,           -- age of the last handshake; NULL when never
	dt_ms INTEGER,
	rx_delta INTEGER,
	tx_delta INTEGER,
	reset INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (peer_id, time_ms)
) WITHOUT ROWID;

-- 5-minute roll-ups, kept much longer than raw samples. bucket_ms is the bucket's start.
CREATE TABLE cpu_rollup (
	router_id INTEGER NOT NULL REFERENCES routers(id),
	bucket_ms INTEGER NOT NULL,
	core INTEGER NOT NULL,
	n INTEGER NOT NULL,                 -- raw samples in the bucket
	load_min INTEGER NOT NULL,          -- per mille
	load_avg INTEGER NOT NULL,
	load_max INTEGER NOT NULL,
	PRIMARY KEY (router_id, bucket_ms, core)
) WITHOUT ROWID;

-- Rates in bytes/s: avg = sum of deltas / sum of intervals, max = the highest single
-- interval. NULL when no sample in the bucket had a delta. *_end: the newest raw counters.
CREATE TABLE iface_rollup (
	iface_id INTEGER NOT NULL REFERENCES interfaces(id),
	bucket_ms INTEGER NOT NULL,
	n INTEGER NOT NULL,
	rx_rate_avg INTEGER,
	rx_rate_max INTEGER,
	tx_rate_avg INTEGER,
	tx_rate_max INTEGER,
	rx_bytes_end INTEGER NOT NULL,
	tx_bytes_end INTEGER NOT NULL,
	PRIMARY KEY (iface_id, bucket_ms)
) WITHOUT ROWID;

CREATE TABLE peer_rollup (
	peer_id INTEGER NOT NULL REFERENCES peers(id),
	bucket_ms INTEGER NOT NULL,
	n INTEGER NOT NULL,
	rx_rate_avg INTEGER,
	rx_rate_max INTEGER,
	tx_rate_avg INTEGER,
	tx_rate_max INTEGER,
	rx_bytes_end INTEGER NOT NULL,
	tx_bytes_end INTEGER NOT NULL,
	PRIMARY KEY (peer_id, bucket_ms)
) WITHOUT ROWID;

-- Progress of the maintenance jobs: everything before value (ms) is done.
CREATE TABLE store_state (
	key TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) WITHOUT ROWID;
