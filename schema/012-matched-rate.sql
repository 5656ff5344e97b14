-- SPDX-License-Identifier: Apache-2.0
-- 012-matched-rate: verdicts may have method 'matched-rate', the cores' load at the same rates
-- before and after (docs/detector.md). As 009: SQLite cannot change a CHECK, so the table is
-- copied into a new one with the same columns in the same order and the wider CHECK.
CREATE TABLE verdicts_new (
	event_id INTEGER NOT NULL REFERENCES version_history(id),
	interface TEXT NOT NULL,
	direction TEXT NOT NULL CHECK (direction IN ('tx', 'rx')),
	verdict TEXT NOT NULL CHECK (verdict IN ('regression', 'improvement', 'unchanged',
						 'insufficient-data')),
	method TEXT NOT NULL CHECK (method IN ('probe', 'matched-rate', 'saturation-ceiling', 'cpu-cost',
					 'peak', 'none')),
	hint INTEGER NOT NULL DEFAULT 0,
	before_bps REAL,
	after_bps REAL,
	ratio REAL,
	before_load REAL,
	after_load REAL,
	before_n INTEGER NOT NULL,
	after_n INTEGER NOT NULL,
	final INTEGER NOT NULL DEFAULT 0,
	reached_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL,
	cores TEXT NOT NULL DEFAULT '',
	why TEXT NOT NULL DEFAULT '',
	confounders TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (event_id, interface, direction)
) WITHOUT ROWID;
INSERT INTO verdicts_new SELECT * FROM verdicts;
DROP TABLE verdicts;
ALTER TABLE verdicts_new RENAME TO verdicts;
