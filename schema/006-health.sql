-- SPDX-License-Identifier: Apache-2.0
-- 006-health: the routers' health sensors, memory and disk, and the peers' endpoint, allowed
-- addresses and disabled flag (docs/storage.md). Health is read about once a minute, so a
-- polls row carries a health BLOB only when its poll read health; the peer details change
-- seldom, so they are kept as the newest value in peers, not per poll.

-- A sensor is known by its name and unit (RouterOS's /system/health name, or mtxrGaugeName).
CREATE TABLE sensors (
	id INTEGER PRIMARY KEY,
	router_id INTEGER NOT NULL REFERENCES routers(id),
	name TEXT NOT NULL,
	unit TEXT NOT NULL,                 -- celsius, volts, amperes, watts, rpm, state
	UNIQUE (router_id, name, unit)
);

-- Kind 4: memory free, memory total, disk free, disk total (bytes + 1, 0 = unknown), then per
-- sensor its id (zigzag difference from the previous entry's) and value x 1000 (zigzag).
ALTER TABLE polls ADD COLUMN health BLOB;

ALTER TABLE peers ADD COLUMN endpoint TEXT;        -- "addr:port" as last seen; NULL none
ALTER TABLE peers ADD COLUMN allowed_address TEXT; -- as RouterOS lists it
ALTER TABLE peers ADD COLUMN disabled INTEGER;     -- 0/1; NULL unknown
