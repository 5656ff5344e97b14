-- SPDX-License-Identifier: Apache-2.0
-- 003-packed: one polls row holds every value of its poll, packed, instead of one row per core,
-- interface and peer in cpu_samples, iface_samples and peer_samples (docs/storage.md). The
-- BLOBs are written and read by store/store.c: store_values(blob) turns one into rows, and
-- the temp views cpu_samples, iface_samples and peer_samples that wgwatchd creates on each of
-- its connections show them with the columns of 001 (plus router_id). The samples of 001 are
-- carried over by store_pack_*(), aggregates of store/store.c, then their tables dropped.

ALTER TABLE polls ADD COLUMN cpu BLOB;      -- per core: load, irq + 1 (0 = unknown)
ALTER TABLE polls ADD COLUMN ifaces BLOB;   -- per interface: id, flags, deltas, 6 counters
ALTER TABLE polls ADD COLUMN peers BLOB;    -- per peer: id, flags, deltas, 2 counters, handshake

-- Samples always came with their polls row; keep any that did not.
INSERT OR IGNORE INTO polls (router_id, time_ms, duration_ms)
	SELECT router_id, time_ms, 0 FROM cpu_samples
	UNION SELECT i.router_id, s.time_ms, 0 FROM iface_samples s JOIN interfaces i ON i.id = s.iface_id
	UNION SELECT p.router_id, s.time_ms, 0 FROM peer_samples s JOIN peers p ON p.id = s.peer_id;

UPDATE polls SET
	cpu = (SELECT store_pack_cpu(load, irq) FROM (SELECT load, irq FROM cpu_samples c
		WHERE c.router_id = polls.router_id AND c.time_ms = polls.time_ms ORDER BY core)),
	ifaces = (SELECT store_pack_iface(id, rx_bytes, tx_bytes, rx_packets, tx_packets, rx_drops,
			tx_drops, dt_ms, rx_delta, tx_delta, reset)
		FROM (SELECT i.id, s.* FROM interfaces i JOIN iface_samples s ON s.iface_id = i.id
		WHERE i.router_id = polls.router_id AND s.time_ms = polls.time_ms ORDER BY i.id)),
	peers = (SELECT store_pack_peer(id, rx_bytes, tx_bytes, handshake_age_ms, dt_ms, rx_delta,
			tx_delta, reset)
		FROM (SELECT p.id, s.* FROM peers p JOIN peer_samples s ON s.peer_id = p.id
		WHERE p.router_id = polls.router_id AND s.time_ms = polls.time_ms ORDER BY p.id));

DROP TABLE cpu_samples;
DROP TABLE iface_samples;
DROP TABLE peer_samples;
