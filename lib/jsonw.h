/* SPDX-License-Identifier: Apache-2.0 */
/* jsonw: JSON text written into a buf, the same bytes as jansson's compact printer: strings
 * with their escapes, an array's elements and an object's members. For the small request
 * bodies the collectors send; it never parses and never writes a string that is not UTF-8. */
#ifndef WGWATCH_JSONW_H
#define WGWATCH_JSONW_H

#include "lib/buf.h"

/* Appends s (not NULL) as a JSON string: quoted, with " \ and control characters escaped. -1, and b
 * unchanged, when s is not UTF-8. */
int jsonw_str(buf_t *b, const char *s);
/* Appends the next element of the array (key NULL) or member of the object being written to b:
 * a comma first unless b ends in '[' or '{', then "key":"val" or "val". -1, and b unchanged,
 * when key or val is not UTF-8. */
int jsonw_add(buf_t *b, const char *key, const char *val);

#endif
