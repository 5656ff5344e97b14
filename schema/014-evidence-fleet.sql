-- SPDX-License-Identifier: Apache-2.0
-- 014-evidence-fleet: the fleet's evidence id (docs/evidence.md): 32 random hex digits made once,
-- so that two evidence exports of one fleet are counted once by whoever merges them. It names
-- nothing of the fleet. SQLite's randomblob() is seeded from the system's entropy. (013 is left
-- to the storage branch.)
CREATE TABLE evidence_fleet (
	id TEXT NOT NULL CHECK (length(id) = 32)
);
INSERT INTO evidence_fleet (id) VALUES (lower(hex(randomblob(16))));
