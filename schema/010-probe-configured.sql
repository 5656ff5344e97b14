-- SPDX-License-Identifier: Apache-2.0
-- 010-probe-configured: a probe row keeps the direction it measured (transmit or receive) and
-- gains the probe_direction it was run with (transmit, receive or both: a both probe is two rows
-- of the same time), which the report and the API show as its direction (docs/diagnostics.md).
-- Rows from before measured what they were configured to, as far as anyone can tell now.
ALTER TABLE probes ADD COLUMN configured TEXT;
UPDATE probes SET configured = direction;
