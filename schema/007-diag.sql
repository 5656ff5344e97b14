-- SPDX-License-Identifier: Apache-2.0
-- 007-diag: the routers' CPU profiles (/tool/profile cpu=all over REST) and fixed-rate probes
-- (/tool/bandwidth-test), docs/diagnostics.md. A few a day per router at most, so the rows of one
-- profile are kept as JSON text, as the API serves them; both are kept as long as the roll-ups.
CREATE TABLE profiles (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,      -- wall clock when the profile ended
	duration_ms INTEGER NOT NULL,  -- how long it sampled
	rows TEXT NOT NULL             -- [{"cpu": core index or null, "name": classifier, "usage": percent}]
);
CREATE INDEX profiles_router_time ON profiles (router_id, time_ms);

-- Fixed-rate probes (/tool/bandwidth-test through a tunnel): one row per direction measured.
CREATE TABLE probes (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,      -- wall clock when the probe ended
	duration_ms INTEGER NOT NULL,
	direction TEXT NOT NULL,       -- transmit or receive
	offered_bps REAL NOT NULL,     -- probe_rate
	delivered_bps REAL NOT NULL,   -- tx- or rx-total-average of the last record
	lost_packets INTEGER,          -- of the last second; NULL when RouterOS gives none
	local_cpu_load REAL,           -- 0..1; NULL when not told
	remote_cpu_load REAL,
	busiest_core_load REAL         -- 0..1: the busiest core in the polls during the probe
);
CREATE INDEX probes_router_time ON probes (router_id, time_ms);
