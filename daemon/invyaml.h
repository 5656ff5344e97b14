/* SPDX-License-Identifier: Apache-2.0 */
/* invyaml: a file_sd YAML target file read into an invlist (libyaml's event parser), each group
 * and target with the line it stands on. It must never judge a target or a label (confinv
 * does), nor log, nor follow an alias. */
#ifndef WGWATCH_INVYAML_H
#define WGWATCH_INVYAML_H

#include "daemon/invlist.h"

#include <stddef.h>

#define INVYAML_MAX_DEPTH 32 /* collections open at once; file_sd needs 3 */

/* The groups of text (len bytes) added to *out; an empty stream or a null document has none.
 * -1 with *line and *why (not escaped; caller frees) when text is no YAML, holds an alias, a
 * NUL, a duplicate key, a second document, nesting past INVYAML_MAX_DEPTH, or no sequence. */
int invyaml_read(const char *text, size_t len, invlist_t *out, int *line, char **why);

#endif
