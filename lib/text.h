/* SPDX-License-Identifier: Apache-2.0 */
/* text: what every output needs of untrusted text (router names, labels, error bodies): valid
 * UTF-8, escaping for Prometheus label values, HTML and URLs, and the parsers' trim. Never fails. */
#ifndef WGWATCH_TEXT_H
#define WGWATCH_TEXT_H

#include "lib/buf.h"

void text_put_utf8(buf_t *out, const char *s);  /* s as valid UTF-8: U+FFFD for each bad byte */
void text_put_label(buf_t *out, const char *s); /* as text_put_utf8, and \ " newline escaped */
void text_put_html(buf_t *out, const char *s);  /* valid UTF-8 with & < > " ' as entities */
void text_put_url(buf_t *out, const char *s);   /* percent-encoded but for A-Z a-z 0-9 - . _ ~ */
/* s on one line: each control character (C0 and DEL) as \n \r \t or \xHH, each bidirectional
 * control (U+202E, ...) as \uHHHH, the rest as is. */
void text_put_oneline(buf_t *out, const char *s);
/* A copy of s (NULL: NULL) of at most max bytes, cut at a character boundary; caller frees.
 * For what routers say of themselves (board, version, ...), which no router sends longer. */
char *text_cap(const char *s, size_t max);
#define TEXT_IDENTITY_MAX 128

char *text_trim(char *s); /* s without leading and trailing white space: cuts s, returns into it */
/* strcmp where NULL (a value not known) sorts before every string and equals NULL. */
int text_cmp(const char *a, const char *b);

#endif
