-- SPDX-License-Identifier: Apache-2.0
-- 015-chunks: a router's polls rows of a closed hour kept as one row (issue 38; docs/benchmarks.md
-- "Per-router chunks"): data is store/pollchunk.c's chunk of every column of those rows, time_ms
-- the first row's time and end_ms the last's, all within one hour. store/chunkstore.c writes a
-- chunk in the transaction that deletes the rows it holds and reads chunks and rows as one.
-- A rowid table: its rows are some 20 KB, beyond a page. Empty until the writer is switched on.
CREATE TABLE chunks (
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,
	end_ms INTEGER NOT NULL,
	nrows INTEGER NOT NULL,
	data BLOB NOT NULL
);
CREATE UNIQUE INDEX chunks_key ON chunks (router_id, time_ms);
