-- SPDX-License-Identifier: Apache-2.0
-- 008-rollout-allow: the rollout guard's overrides made through POST /api/v1/rollout/allow
-- (docs/detector.md, Rollout guard): which version may go to which cohort (an architecture or
-- a board), who allowed it and when, and who revoked it and when. A revoked row is kept, so
-- that the record of who allowed what stays; at most one row per version and cohort is active.
CREATE TABLE rollout_allows (
	id INTEGER PRIMARY KEY,
	version TEXT NOT NULL,     -- RouterOS version, e.g. 7.22.3
	cohort TEXT NOT NULL,      -- an architecture (tile) or a board (CCR1009-7G-1C-1S+)
	who TEXT NOT NULL,         -- the web user who allowed it
	at_ms INTEGER NOT NULL,    -- when (wall clock, ms since the epoch)
	revoked_by TEXT,           -- the web user who revoked it; NULL while active
	revoked_ms INTEGER         -- when; NULL while active
);
CREATE UNIQUE INDEX rollout_allows_active ON rollout_allows (version, cohort) WHERE revoked_ms IS NULL;
