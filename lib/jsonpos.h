/* SPDX-License-Identifier: Apache-2.0 */
/* jsonpos: where a JSON text stops being one valid value, as a line and a column, for the
 * error messages of files a person wrote (lib/jsonr.cc asks it when simdjson, which keeps no
 * place, refuses a text). A plain scanner of RFC 8259's grammar, nested at most
 * JSONPOS_MAX_DEPTH: it builds nothing, allocates nothing, and never reads past len. It does
 * not check UTF-8 nor repeated keys (jsonr does): a text it passes has no place to name. */
#ifndef WGWATCH_JSONPOS_H
#define WGWATCH_JSONPOS_H

#include <stddef.h>

#define JSONPOS_MAX_DEPTH 64

#ifdef __cplusplus
extern "C" {
#endif

/* The offset of the first byte of s[0 .. len) where it stops being one JSON value (len when it
 * ends too early), or (size_t)-1 when the grammar holds to the end. */
size_t jsonpos_stop(const char *s, size_t len);
/* The line and column (from 1; a column counts characters, not UTF-8 bytes) of offset off. */
void jsonpos_place(const char *s, size_t off, size_t *line, size_t *col);

#ifdef __cplusplus
}
#endif

#endif
