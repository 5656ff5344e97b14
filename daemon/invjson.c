/* SPDX-License-Identifier: Apache-2.0 */
/* invjson: file_sd JSON into an invlist (daemon/invjson.h). jansson refuses duplicate keys, a NUL
 * in a string and nesting past its own limit; the size was bounded before. jansson keeps no
 * places, so a target's line is where its quoted text next stands. It must never judge a
 * target or a label, nor log. */
#include "config.h"
#include "daemon/invjson.h"
#include "lib/xmem.h"

#include <jansson.h>
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
static void invjson_keys(struct invlist_group *g, const json_t *j, struct invjson_pos *p)
{
	const json_t *targets = json_object_get(j, "targets"), *labels = json_object_get(j, "labels");
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)j, k, v)
	{
		if (strcmp(k, "targets") != 0 && strcmp(k, "labels") != 0)
			invlist_unknown(g, k, strlen(k));
	}
	g->has_targets = json_is_array(targets);
	g->bad_labels = labels != NULL && !json_is_object(labels);
	json_object_foreach((json_t *)labels, k, v)
	{
		const char *s = json_string_value(v);
		invlist_label(g, k, strlen(k), s, s ? strlen(s) : 0);
	}
	for (size_t i = 0; i < json_array_size(targets); i++) {
		const char *s = json_string_value(json_array_get(targets, i));
		if (s != NULL)
			invjson_line(p, s);
		invlist_target(g, s, s ? strlen(s) : 0, p->line);
	}
}

int invjson_read(const char *text, size_t len, invlist_t *out, int *line, char **why)
{
	json_error_t err;
	json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	struct invjson_pos p = { .text = text, .line = 1 };
	if (doc == NULL) {
		*line = err.line > 0 ? err.line : 1;
		*why = xstrdup(err.text);
		return -1;
	}
	if (!json_is_array(doc)) {
		*line = 1;
		*why = xstrdup("an array of {\"targets\": [...], \"labels\": {...}} expected");
		json_decref(doc);
		return -1;
	}
	for (size_t i = 0; i < json_array_size(doc); i++) {
		const json_t *j = json_array_get(doc, i);
		struct invlist_group *g = invlist_group(out, p.line);
		if (json_is_object(j))
			invjson_keys(g, j, &p);
		else
			g->not_map = true;
	}
	json_decref(doc);
	return 0;
}
