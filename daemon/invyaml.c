/* SPDX-License-Identifier: Apache-2.0 */
/* invyaml: file_sd YAML into an invlist (daemon/invyaml.h), as Prometheus reads it strictly: a
 * sequence of maps with targets (a list of strings) and labels (a map of strings), every other
 * key kept for confinv to refuse. Events are taken one at a time, so memory follows the text,
 * not its aliases: an alias is refused, never expanded, and nesting is cut at
 * INVYAML_MAX_DEPTH before libyaml's stacks grow. It must never judge a value, nor log. */
#include "config.h"
#include "daemon/invyaml.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct invyaml {
	yaml_parser_t p;
	yaml_event_t ev; /* the current event */
	const char *text;
	size_t len;
	int depth; /* collections open */
	int line;  /* of why */
	char *why; /* the problem that ended the reading */
	invlist_t *out;
};

static int invyaml_line(const yaml_mark_t *m)
{
	return (int)m->line + 1; /* the text is at most 16 MiB */
}

/* Ends the reading with why (taken) at m: -1. */
static int invyaml_fail(struct invyaml *y, const yaml_mark_t *m, char *why)
{
	y->why = why;
	y->line = invyaml_line(m);
	return -1;
}

/* libyaml's problem as the reason; a reader error (bad UTF-8) gives only a byte offset. */
static int invyaml_parse_fail(struct invyaml *y)
{
	yaml_mark_t m = y->p.problem_mark;
	if (y->p.error == YAML_READER_ERROR) {
		m.line = 0;
		for (size_t i = 0; i < y->p.problem_offset && i < y->len; i++)
			m.line += y->text[i] == '\n';
	}
	const char *problem = y->p.problem ? y->p.problem : "cannot be parsed";
	return invyaml_fail(
		y, &m, y->p.context ? xasprintf("%s (%s)", problem, y->p.context) : xstrdup(problem));
}

/* The next event into y->ev, or -1 on a parse error, an alias, a NUL in a scalar, or a
 * collection past INVYAML_MAX_DEPTH. */
static int invyaml_next(struct invyaml *y)
{
	yaml_event_delete(&y->ev);
	if (!yaml_parser_parse(&y->p, &y->ev))
		return invyaml_parse_fail(y);
	const yaml_mark_t *at = &y->ev.start_mark;
	switch (y->ev.type) {
	case YAML_ALIAS_EVENT:
		return invyaml_fail(y, at, xstrdup("an alias (*name) is not read: write the value out"));
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (++y->depth > INVYAML_MAX_DEPTH)
			return invyaml_fail(y, at, xasprintf("nested deeper than %d", INVYAML_MAX_DEPTH));
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT: y->depth--; return 0;
	case YAML_SCALAR_EVENT:
		if (memchr(y->ev.data.scalar.value, '\0', y->ev.data.scalar.length) != NULL)
			return invyaml_fail(y, at, xstrdup("a NUL character in a string"));
		return 0;
	default: return 0;
	}
}

/* Past the value whose first event is the current one: a scalar, or a whole collection. */
static int invyaml_skip(struct invyaml *y)
{
	int depth = y->depth;
	if (y->ev.type != YAML_SEQUENCE_START_EVENT && y->ev.type != YAML_MAPPING_START_EVENT)
		return 0;
	while (y->depth >= depth)
		if (invyaml_next(y) != 0)
			return -1;
	return 0;
}

/* The current event's text, or NULL when it is no scalar or a null (~, null, nothing, !!null). */
static const char *invyaml_str(const struct invyaml *y, size_t *n)
{
	const yaml_event_t *e = &y->ev;
	if (e->type != YAML_SCALAR_EVENT)
		return NULL;
	const char *s = (const char *)e->data.scalar.value, *tag = (const char *)e->data.scalar.tag;
	*n = e->data.scalar.length;
	if (tag != NULL ? strcmp(tag, YAML_NULL_TAG) == 0
			: e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
				(*n == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
					strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0))
		return NULL;
	return s;
}

/* The current event as a map's key (a copy), or NULL after refusing a key that is no scalar. */
static char *invyaml_key(struct invyaml *y)
{
	if (y->ev.type != YAML_SCALAR_EVENT) {
		invyaml_fail(y, &y->ev.start_mark, xstrdup("a key must be a string"));
		return NULL;
	}
	return xstrndup((const char *)y->ev.data.scalar.value, y->ev.data.scalar.length);
}

/* A targets value, its first event current: a list's items into g, or none. */
static int invyaml_targets(struct invyaml *y, struct invlist_group *g)
{
	if (y->ev.type != YAML_SEQUENCE_START_EVENT)
		return invyaml_skip(y); /* g->has_targets stays false */
	g->has_targets = true;
	for (;;) {
		size_t n = 0;
		if (invyaml_next(y) != 0)
			return -1;
		if (y->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		const char *s = invyaml_str(y, &n);
		invlist_target(g, s, n, invyaml_line(&y->ev.start_mark));
		if (invyaml_skip(y) != 0)
			return -1;
	}
}

static int invyaml_label_cmp(const void *a, const void *b)
{
	const struct invlist_label *const *x = a, *const *z = b;
	return strcmp((*x)->name, (*z)->name);
}

/* -1 when two of g's labels share a name (refused, as a strict reading does), at m. */
static int invyaml_label_dups(struct invyaml *y, const struct invlist_group *g, const yaml_mark_t *m)
{
	if (g->nlabels < 2)
		return 0;
	const struct invlist_label **v = xreallocarray(NULL, g->nlabels, sizeof(*v));
	char *dup = NULL;
	for (size_t i = 0; i < g->nlabels; i++)
		v[i] = &g->labels[i];
	qsort(v, g->nlabels, sizeof(*v), invyaml_label_cmp);
	for (size_t i = 1; dup == NULL && i < g->nlabels; i++) {
		if (strcmp(v[i - 1]->name, v[i]->name) == 0) {
			char *name = text_cap(v[i]->name, 64);
			dup = xasprintf("labels: duplicate key \"%s\"", name);
			free(name);
		}
	}
	free(v);
	return dup ? invyaml_fail(y, m, dup) : 0;
}

/* A labels value, its first event current: a map's pairs into g, or g->bad_labels. */
static int invyaml_labels(struct invyaml *y, struct invlist_group *g)
{
	yaml_mark_t at = y->ev.start_mark;
	if (y->ev.type != YAML_MAPPING_START_EVENT) {
		g->bad_labels = true;
		return invyaml_skip(y);
	}
	for (;;) {
		size_t n = 0;
		char *k = NULL;
		if (invyaml_next(y) != 0)
			return -1;
		if (y->ev.type == YAML_MAPPING_END_EVENT)
			return invyaml_label_dups(y, g, &at);
		if ((k = invyaml_key(y)) == NULL || invyaml_next(y) != 0) {
			free(k);
			return -1;
		}
		const char *s = invyaml_str(y, &n);
		invlist_label(g, k, strlen(k), s, n);
		free(k);
		if (invyaml_skip(y) != 0)
			return -1;
	}
}

/* The keys of a group's map, just begun, into g. */
static int invyaml_group(struct invyaml *y, struct invlist_group *g)
{
	bool seen[2] = { false, false }; /* targets, labels */
	for (;;) {
		if (invyaml_next(y) != 0)
			return -1;
		if (y->ev.type == YAML_MAPPING_END_EVENT)
			return 0;
		yaml_mark_t at = y->ev.start_mark;
		char *k = invyaml_key(y);
		if (k == NULL)
			return -1;
		int which = strcmp(k, "targets") == 0 ? 0 : strcmp(k, "labels") == 0 ? 1 : -1;
		if (which < 0)
			invlist_unknown(g, k, strlen(k));
		free(k);
		if (which >= 0 && seen[which])
			return invyaml_fail(
				y, &at, xasprintf("duplicate key \"%s\"", which == 0 ? "targets" : "labels"));
		if (which >= 0)
			seen[which] = true;
		if (invyaml_next(y) != 0)
			return -1;
		int rc = which == 0  ? invyaml_targets(y, g)
			: which == 1 ? invyaml_labels(y, g)
				     : invyaml_skip(y);
		if (rc != 0)
			return -1;
	}
}

/* The groups of a sequence just begun, up to its end. */
static int invyaml_groups(struct invyaml *y)
{
	for (;;) {
		if (invyaml_next(y) != 0)
			return -1;
		if (y->ev.type == YAML_SEQUENCE_END_EVENT)
			return 0;
		struct invlist_group *g = invlist_group(y->out, invyaml_line(&y->ev.start_mark));
		g->not_map = y->ev.type != YAML_MAPPING_START_EVENT;
		if ((g->not_map ? invyaml_skip(y) : invyaml_group(y, g)) != 0)
			return -1;
	}
}

/* The stream: no document, or one whose value is null or a sequence of groups. */
static int invyaml_stream(struct invyaml *y)
{
	size_t n;
	if (invyaml_next(y) != 0 || invyaml_next(y) != 0) /* the stream's start, then the document's */
		return -1;
	if (y->ev.type == YAML_STREAM_END_EVENT)
		return 0;
	if (invyaml_next(y) != 0)
		return -1;
	if (y->ev.type == YAML_SEQUENCE_START_EVENT) {
		if (invyaml_groups(y) != 0)
			return -1;
	} else if (invyaml_str(y, &n) != NULL || y->ev.type != YAML_SCALAR_EVENT)
		return invyaml_fail(y, &y->ev.start_mark,
			xstrdup("a sequence of {targets: [...], labels: {...}} expected"));
	if (invyaml_next(y) != 0 || invyaml_next(y) != 0) /* the document's end, then the stream's */
		return -1;
	if (y->ev.type != YAML_STREAM_END_EVENT)
		return invyaml_fail(y, &y->ev.start_mark, xstrdup("a second document: one expected"));
	return 0;
}

int invyaml_read(const char *text, size_t len, invlist_t *out, int *line, char **why)
{
	struct invyaml y = { .text = text, .len = len, .out = out };
	if (!yaml_parser_initialize(&y.p)) {
		*line = 1;
		*why = xstrdup("out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&y.p, (const unsigned char *)text, len);
	int rc = invyaml_stream(&y);
	yaml_event_delete(&y.ev);
	yaml_parser_delete(&y.p);
	if (rc != 0) {
		*line = y.line;
		*why = y.why;
	}
	return rc;
}
