-- SPDX-License-Identifier: Apache-2.0
-- 018-ratio-rse: a verdict states its ratio's relative standard error (docs/detector.md,
-- `ratio_rse`), so that an operator reads 1.64 with its noise, not as exact. NULL where the
-- method gives none (a probe, a matched-rate regression's bound) and for verdicts stored before.
ALTER TABLE verdicts ADD COLUMN ratio_rse REAL;
