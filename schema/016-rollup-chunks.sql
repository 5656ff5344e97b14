-- SPDX-License-Identifier: Apache-2.0
-- 016-rollup-chunks: a series' 5-minute roll-up rows of a closed UTC day kept as one row (issue
-- 38; docs/storage.md "Roll-up and retention"): kind 0 is cpu_rollup's rows of router id (every
-- core), 1 iface_rollup's of interface id, 2 peer_rollup's of peer id; data is
-- store/rollchunk.c's chunk of their columns, time_ms the first bucket and end_ms the last, all
-- within one day. The open day stays in the roll-up tables; the maintenance job moves each closed
-- day here (the rows already stored included, a day a step: no migration at start), and
-- store/rollstore.c reads both as one, which the store_*_rollup tables give SQL. A rowid table:
-- its rows are a few KB.
CREATE TABLE rollup_chunks (
	kind INTEGER NOT NULL,
	id INTEGER NOT NULL,
	time_ms INTEGER NOT NULL,
	end_ms INTEGER NOT NULL,
	nrows INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE UNIQUE INDEX rollup_chunks_key ON rollup_chunks (kind, id, time_ms);
