/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_jsonr: libFuzzer harness for the one JSON reader (lib/jsonr.cc, linked from the library),
 * which every reply, file and body wgwatch reads goes through: any bytes as a JSON text. A tree
 * accepted must keep the header's promises: no deeper than 64, no object with a key twice, every
 * string and key valid UTF-8 without a NUL, every number finite, an integer's exact value agreeing
 * with its double; and the same bytes parsed again, into a document that held a bigger text,
 * must give the same tree. Never touches a file. */
#undef NDEBUG
#include "lib/jsonr.h"
#include "lib/text.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Walks n (at depth 1..): its checks, and a count of its nodes and bytes of text. */
static void fuzz_walk(const jsonr_node_t *n, int depth, size_t *count)
{
	assert(n != NULL && depth <= JSONR_MAX_DEPTH + 1);
	(*count)++;
	double v;
	int64_t i;
	bool b;
	if (jsonr_is_string(n)) {
		assert(text_is_utf8(jsonr_str(n)));
		*count += strlen(jsonr_str(n));
	} else if (jsonr_num(n, &v)) {
		assert(isfinite(v) && jsonr_is_number(n));
		assert(!jsonr_int(n, &i) || (jsonr_is_integer(n) && (double)i == v));
	} else if (jsonr_is_array(n) || jsonr_is_object(n)) {
		assert(depth <= JSONR_MAX_DEPTH);
		for (size_t k = 0; k < jsonr_size(n); k++) {
			if (jsonr_is_object(n)) {
				const char *key = jsonr_key(n, k);
				assert(key != NULL && text_is_utf8(key));
				assert(jsonr_get(n, key) == jsonr_at(n, k)); /* no other member has it */
				*count += strlen(key);
			}
			fuzz_walk(jsonr_at(n, k), depth + 1, count);
		}
		assert(jsonr_at(n, jsonr_size(n)) == NULL);
	} else {
		assert(jsonr_bool(n, &b) || jsonr_is_null(n));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static jsonr_t *big;
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *root = jsonr_parse(d, (const char *)data, size);
	size_t count = 0, again = 0;
	if (root != NULL)
		fuzz_walk(root, 1, &count);
	if (big == NULL) { /* a document that has held a text bigger than it keeps room for */
		big = jsonr_create();
		size_t n = 300 * 1024;
		char *t = malloc(n);
		memset(t, ' ', n);
		t[0] = '[';
		t[n - 1] = ']';
		assert(jsonr_parse(big, t, n) != NULL);
		free(t);
	}
	const jsonr_node_t *r2 = jsonr_parse(big, (const char *)data, size);
	assert((root == NULL) == (r2 == NULL));
	if (r2 != NULL)
		fuzz_walk(r2, 1, &again);
	assert(count == again);
	jsonr_destroy(d);
	return 0;
}
