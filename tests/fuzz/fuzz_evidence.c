/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_evidence: libFuzzer harness for the evidence reader (detector/evidread.c, linked from the
 * library): any bytes as an evidence document from another fleet. A refusal must say why in
 * printable text; a document accepted must merge with itself into a document the reader
 * accepts again, with the same fleets, each once; its cohorts walked (evidread_next) give
 * counts that add up as the schema says, and its rollout rows counts that nest. Never touches
 * a file. */
#undef NDEBUG
#include "detector/evidread.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *why = NULL;
	evidread_t *e = evidread_parse((const char *)data, size, &why);
	if (e == NULL) {
		assert(why != NULL && why[0] != '\0');
		free(why);
		return 0;
	}
	assert(why == NULL);
	struct evidread_at at = { 0 };
	struct evidread_cohort c;
	while (evidread_next(e, &at, &c)) {
		assert(c.fleet != NULL && c.generated != NULL && c.from_version && c.to_version);
		assert(c.tx.judged == c.tx.regressed + c.tx.improved + c.tx.unchanged);
		assert(c.rx.routers == c.rx.judged + c.rx.insufficient);
	}
	for (size_t i = 0; i < evidread_nfleets(e); i++) {
		struct evidread_rollout *rows;
		size_t n = evidread_rollout_rows(e, i, &rows);
		assert(n == 0 || evidread_has_rollout(e, i));
		for (size_t k = 0; k < n; k++)
			assert(rows[k].to_version != NULL && rows[k].judged <= rows[k].canaries &&
				rows[k].canaries <= rows[k].routers &&
				rows[k].regressed + rows[k].pending <= rows[k].routers);
		free(rows);
	}
	evidread_t *two[2] = { e, e };
	char *merged = evidread_merge(two, 2), *why2 = NULL;
	assert(merged != NULL);
	evidread_t *again = evidread_parse(merged, strlen(merged), &why2);
	assert(again != NULL && why2 == NULL);
	assert(evidread_nfleets(again) == evidread_nfleets(e));
	evidread_free(again);
	evidread_free(e);
	free(merged);
	return 0;
}
