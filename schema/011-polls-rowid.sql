-- SPDX-License-Identifier: Apache-2.0
-- 011-polls-rowid: polls becomes a rowid table with a unique index on (router_id, time_ms).
-- WITHOUT ROWID keeps whole rows in the interior pages of its B-tree. A packed polls row is
-- some 750 bytes (far past the 1/20 of a page SQLite advises for WITHOUT ROWID), so interior
-- pages held four rows, the tree grew seven levels deep, and each poll rewrote some 3.5 pages
-- when a commit held one poll of each of many routers. Now rows go to the end of the table in
-- the order they are written and only the small index entries are placed by router: about one
-- page a poll (docs/storage.md). The rows are copied in key order, so old ones stay together
-- by router. Same columns, same order.
CREATE TABLE polls_new (
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,
	duration_ms INTEGER NOT NULL,
	source TEXT,
	err TEXT,
	error TEXT,
	cpu BLOB,
	ifaces BLOB,
	peers BLOB,
	cpu_mhz INTEGER,
	health BLOB
);
INSERT INTO polls_new SELECT router_id, time_ms, duration_ms, source, err, error, cpu, ifaces,
	peers, cpu_mhz, health FROM polls ORDER BY router_id, time_ms;
DROP TABLE polls;
ALTER TABLE polls_new RENAME TO polls;
CREATE UNIQUE INDEX polls_key ON polls (router_id, time_ms);
