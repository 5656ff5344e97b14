/* SPDX-License-Identifier: Apache-2.0 */
/* invjson: a file_sd JSON target file read into an invlist (lib/jsonr), each target with the line
 * it stands on. It must never judge a target or a label (confinv does), nor log. */
#ifndef WGWATCH_INVJSON_H
#define WGWATCH_INVJSON_H

#include "daemon/invlist.h"

#include <stddef.h>

/* The groups of text (len bytes, text[len] == '\0') added to *out; -1 with *line (1: jsonr keeps
 * no place) and *why (jsonr's words, not escaped; caller frees) when text is no JSON array. */
int invjson_read(const char *text, size_t len, invlist_t *out, int *line, char **why);

#endif
