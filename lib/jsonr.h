/* SPDX-License-Identifier: Apache-2.0 */
/* jsonr: the one JSON reader of every layer. A text is parsed (by simdjson, from C++: jsonr.cc)
 * into a read-only tree whose nodes and strings live in one reusable document, so that reading
 * the same kind of text again allocates nothing: the routers' REST replies, the inventory's
 * file_sd files, imported evidence documents, the other shards' answers, POST bodies. What it
 * refuses, whole (jsonr_parse answers NULL), is the same for all of them:
 * - a text that is not exactly one JSON value in UTF-8 (trailing bytes included);
 * - nesting deeper than JSONR_MAX_DEPTH (64) arrays and objects;
 * - an object that repeats a key (no reader silently takes one of two values);
 * - a string or key holding a NUL (\u0000), so every string is also a C string;
 * - a number beyond a double's range (1e400) or, written as an integer, beyond 64 bits.
 * Writing JSON is lib/jsonw's. */
#ifndef WGWATCH_JSONR_H
#define WGWATCH_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONR_MAX_DEPTH 64

typedef struct jsonr jsonr_t;
typedef struct jsonr_node jsonr_node_t;

/* An empty document; grows to its largest text and keeps up to 256 KiB of that room. */
jsonr_t *jsonr_create(void);
void jsonr_destroy(jsonr_t *d);
/* Parses text (len bytes) into d, dropping its previous tree. The root, or NULL when the text is
 * refused (above). The tree lives until d's next parse or its destruction. */
const jsonr_node_t *jsonr_parse(jsonr_t *d, const char *text, size_t len);
/* Why d's last parse refused its text, in a few words ("not UTF-8", "an object with the key
 * \"site\" twice", ...; a key cut to 40 bytes, valid UTF-8 but not escaped: the caller escapes
 * it for its log); "" after one accepted. Valid until d's next parse. */
const char *jsonr_error(const jsonr_t *d);
/* Where the last refused text broke JSON's grammar (lib/jsonpos.c: simdjson keeps no place),
 * line and column from 1, true; false (both 0) when it was refused for something else (a
 * repeated key, not UTF-8, too big) or accepted. */
bool jsonr_error_place(const jsonr_t *d, size_t *line, size_t *col);

/* The accessors take NULL (absent) and answer false, 0 or NULL to it. */
bool jsonr_is_object(const jsonr_node_t *n);
bool jsonr_is_array(const jsonr_node_t *n);
bool jsonr_is_string(const jsonr_node_t *n);
bool jsonr_is_number(const jsonr_node_t *n);
bool jsonr_is_bool(const jsonr_node_t *n);
bool jsonr_is_null(const jsonr_node_t *n);
/* Elements of an array, members of an object, else 0. */
size_t jsonr_size(const jsonr_node_t *n);
/* Element or member i (in document order), or NULL past the end. */
const jsonr_node_t *jsonr_at(const jsonr_node_t *n, size_t i);
/* The key of member i of an object, or NULL. */
const char *jsonr_key(const jsonr_node_t *n, size_t i);
/* The member of an object named key, or NULL. It moves a lookup cursor kept in the document:
 * one document is read by one thread at a time (restdecode keeps one per thread). */
const jsonr_node_t *jsonr_get(const jsonr_node_t *n, const char *key);
/* A number's value into *v (true), else false. */
bool jsonr_num(const jsonr_node_t *n, double *v);
/* Whether n is a number written without fraction or exponent. */
bool jsonr_is_integer(const jsonr_node_t *n);
/* Such a number's exact value into *v (true) when it fits an int64_t, else false. */
bool jsonr_int(const jsonr_node_t *n, int64_t *v);
/* true or false into *v (true), else false. */
bool jsonr_bool(const jsonr_node_t *n, bool *v);
/* A string's text (NUL-terminated), else NULL. */
const char *jsonr_str(const jsonr_node_t *n);

#endif
