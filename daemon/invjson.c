/* SPDX-License-Identifier: Apache-2.0 */
/* invjson: file_sd JSON into an invlist (daemon/invjson.h), read with lib/jsonr, which refuses
 * duplicate keys, a NUL in a string and nesting past 64; the size was bounded before. jsonr keeps
 * no places, so a target's line is where its quoted text next stands. It must never judge a
 * target or a label, nor log. */
#include "config.h"
#include "daemon/invjson.h"
#include "lib/jsonr.h"
#include "lib/xmem.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct invjson_pos {
	const char *text;
	size_t pos; /* how far targets were found */
	int line;   /* the line of pos */
};

/* Where the text, from p->pos on, next names target t (as "t"): p->line set to that line and
 * p->pos moved past it; a target written with escapes is not found and keeps the line. */
static void invjson_line(struct invjson_pos *p, const char *t)
{
	char *quoted = xasprintf("\"%s\"", t);
	const char *at = strstr(p->text + p->pos, quoted);
	if (at != NULL) {
		for (const char *c = p->text + p->pos; c < at; c++)
			p->line += *c == '\n';
		p->pos = (size_t)(at - p->text) + strlen(quoted);
	}
	free(quoted);
}

/* Group object j into g. */
static void invjson_keys(struct invlist_group *g, const jsonr_node_t *j, struct invjson_pos *p)
{
	const jsonr_node_t *targets = jsonr_get(j, "targets"), *labels = jsonr_get(j, "labels");
	for (size_t i = 0; i < jsonr_size(j); i++) {
		const char *k = jsonr_key(j, i);
		if (strcmp(k, "targets") != 0 && strcmp(k, "labels") != 0)
			invlist_unknown(g, k, strlen(k));
	}
	g->has_targets = jsonr_is_array(targets);
	g->bad_labels = labels != NULL && !jsonr_is_object(labels);
	for (size_t i = 0; jsonr_is_object(labels) && i < jsonr_size(labels); i++) {
		const char *k = jsonr_key(labels, i), *s = jsonr_str(jsonr_at(labels, i));
		invlist_label(g, k, strlen(k), s, s ? strlen(s) : 0);
	}
	for (size_t i = 0; jsonr_is_array(targets) && i < jsonr_size(targets); i++) {
		const char *s = jsonr_str(jsonr_at(targets, i));
		if (s != NULL)
			invjson_line(p, s);
		invlist_target(g, s, s ? strlen(s) : 0, p->line);
	}
}

int invjson_read(const char *text, size_t len, invlist_t *out, int *line, char **why)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *doc = jsonr_parse(d, text, len);
	struct invjson_pos p = { .text = text, .line = 1 };
	int rc = -1;
	*line = 1;
	size_t at, col;
	if (doc == NULL && jsonr_error_place(d, &at, &col)) {
		*line = at > INT_MAX ? INT_MAX : (int)at;
		*why = xasprintf("%s (column %zu)", jsonr_error(d), col);
	} else if (doc == NULL)
		*why = xstrdup(jsonr_error(d));
	else if (!jsonr_is_array(doc))
		*why = xstrdup("an array of {\"targets\": [...], \"labels\": {...}} expected");
	else
		rc = 0;
	for (size_t i = 0; rc == 0 && i < jsonr_size(doc); i++) {
		const jsonr_node_t *j = jsonr_at(doc, i);
		struct invlist_group *g = invlist_group(out, p.line);
		if (jsonr_is_object(j))
			invjson_keys(g, j, &p);
		else
			g->not_map = true;
	}
	jsonr_destroy(d);
	return rc;
}
