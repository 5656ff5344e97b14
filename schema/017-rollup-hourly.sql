-- SPDX-License-Identifier: Apache-2.0
-- 017-rollup-hourly: the hourly tier of roll-ups (issue 38; docs/storage.md "Roll-up and
-- retention"), kept by rollup_hourly_retention where the 5-minute tier is kept by
-- rollup_retention. A row is the sums of the hour's 5-minute rows, so that every reader that
-- weighs those rows gets the same answer from one hourly row: n their n, load_sum their
-- load_avg * n summed; m the rows with rates, *_rate_sum their *_rate_avg summed; the minima,
-- maxima and *_bytes_end those of the hour. bucket_ms is the hour's start. The open day stays
-- here; the maintenance job moves each closed day into rollup_chunks as kinds 3 (cpu), 4
-- (iface) and 5 (peer), which store_*_rollup_1h read with the rows. A database of an older
-- schema gets its hours from the 5-minute roll-ups it has, by the job, a day a step: nothing
-- is built at start.
CREATE TABLE cpu_rollup_1h (
	router_id INTEGER NOT NULL REFERENCES routers(id),
	bucket_ms INTEGER NOT NULL,
	core INTEGER NOT NULL,
	n INTEGER NOT NULL,
	load_min INTEGER NOT NULL,
	load_sum INTEGER NOT NULL,
	load_max INTEGER NOT NULL,
	PRIMARY KEY (router_id, bucket_ms, core)
) WITHOUT ROWID;

CREATE TABLE iface_rollup_1h (
	iface_id INTEGER NOT NULL REFERENCES interfaces(id),
	bucket_ms INTEGER NOT NULL,
	n INTEGER NOT NULL,
	m INTEGER NOT NULL,
	rx_rate_sum INTEGER,
	rx_rate_max INTEGER,
	tx_rate_sum INTEGER,
	tx_rate_max INTEGER,
	rx_bytes_end INTEGER NOT NULL,
	tx_bytes_end INTEGER NOT NULL,
	PRIMARY KEY (iface_id, bucket_ms)
) WITHOUT ROWID;

CREATE TABLE peer_rollup_1h (
	peer_id INTEGER NOT NULL REFERENCES peers(id),
	bucket_ms INTEGER NOT NULL,
	n INTEGER NOT NULL,
	m INTEGER NOT NULL,
	rx_rate_sum INTEGER,
	rx_rate_max INTEGER,
	tx_rate_sum INTEGER,
	tx_rate_max INTEGER,
	rx_bytes_end INTEGER NOT NULL,
	tx_bytes_end INTEGER NOT NULL,
	PRIMARY KEY (peer_id, bucket_ms)
) WITHOUT ROWID;
