/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw: JSON text written into a buf, the same bytes as jansson's compact printer: the request
 * bodies the collectors send and the answers of the web API. A streaming writer: the caller opens
 * and closes objects and arrays, each value call writes one element of the array or one member of
 * the object being written, and the writer puts the commas between them. It never parses, never
 * writes a string that is not UTF-8 and never writes a number JSON has not (NaN, infinities). */
#ifndef WGWATCH_JSONW_H
#define WGWATCH_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/buf.h"
#include "lib/jsonr.h"

/* jsonw_real's precision for jansson's default (JSON_REAL_PRECISION(0)): %.17g. */
#define JSONW_PREC_MAX 17

/* Every function below but jsonw_str writes the next value into b, which holds one document
 * and nothing before it: a comma first unless b is empty or ends in '[', '{' or ':', then
 * "key": when key is not NULL (an object's member; NULL: an array's element, the document, or
 * the value after jsonw_key). A key that is not UTF-8 is written with U+FFFD for each bad byte. */

/* Appends s (not NULL) as a JSON string: quoted, with " \ and control characters escaped. -1, and b
 * unchanged, when s is not UTF-8. No comma, no key. */
int jsonw_str(buf_t *b, const char *s);
/* The string val (not NULL). -1, and b unchanged, when key or val is not UTF-8: as jansson's
 * json_object_set_new(o, key, json_string(val)), which leaves the member out. */
int jsonw_add(buf_t *b, const char *key, const char *val);
/* The string s made valid UTF-8 (U+FFFD for each bad byte); null for NULL. */
void jsonw_text(buf_t *b, const char *key, const char *s);
/* The comma and "key": alone, for a value written next (jsonw_add(b, NULL, ...), ...). */
void jsonw_key(buf_t *b, const char *key);
void jsonw_object(buf_t *b, const char *key); /* '{': its members follow, then jsonw_end_object */
void jsonw_end_object(buf_t *b);
void jsonw_array(buf_t *b, const char *key); /* '[': its elements follow, then jsonw_end_array */
void jsonw_end_array(buf_t *b);
void jsonw_int(buf_t *b, const char *key, int64_t v);
/* v as jansson prints a real with JSON_REAL_PRECISION(prec), prec 1..17 ("%.*g", ".0" added to
 * an integral value, the exponent without '+' or leading zeros); null when v is not finite. */
void jsonw_real(buf_t *b, const char *key, double v, int prec);
void jsonw_bool(buf_t *b, const char *key, bool v);
void jsonw_null(buf_t *b, const char *key);

/* Value v of a document read by jsonr written whole into b (as member key, or an element when
 * key is NULL), its reals to prec digits; a value jsonr knows no kind of as null. */
void jsonw_copy(buf_t *b, const char *key, const jsonr_node_t *v, int prec);

/* The JSON text s, as jsonw writes it (compact, valid), appended to out laid out as jansson's
 * JSON_INDENT(n) lays it out: each element and member on a line of its own, indented n spaces a
 * level, ": " after a key, empty arrays and objects as [] and {}. */
void jsonw_indent(buf_t *out, const char *s, int n);

#endif
