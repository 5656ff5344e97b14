-- 007-diag: the routers' CPU profiles (/tool/profile cpu=all over REST, docs/diagnostics.md),
-- taken when a core saturates and after upgrades. A few a day per router at most, so the rows
-- of one profile are kept as JSON text, as the API serves them; kept as long as the roll-ups.
CREATE TABLE profiles (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	time_ms INTEGER NOT NULL,      -- wall clock when the profile ended
	duration_ms INTEGER NOT NULL,  -- how long it sampled
	rows TEXT NOT NULL             -- [{"cpu": core index or null, "name": classifier, "usage": percent}]
);
CREATE INDEX profiles_router_time ON profiles (router_id, time_ms);
