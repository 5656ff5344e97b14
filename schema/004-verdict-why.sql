-- SPDX-License-Identifier: Apache-2.0
-- 004-verdict-why: what the detector followed and why it could not judge (docs/detector.md).
-- cores: the CPU cores whose load carries the stream, "3" or "1+2" ('' when none could be
-- told); why: for insufficient-data (and a hint), the reason in words for the operator.
ALTER TABLE verdicts ADD COLUMN cores TEXT NOT NULL DEFAULT '';
ALTER TABLE verdicts ADD COLUMN why TEXT NOT NULL DEFAULT '';
