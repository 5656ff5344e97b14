/* SPDX-License-Identifier: Apache-2.0 */
/* confinv: routers from Prometheus file_sd target files ([daemon] targets = GLOB, the JSON or
 * YAML a NetBox or Ansible export writes for Prometheus). invjson and invyaml read a file into
 * one list; here each target of each group becomes a [router NAME] with rest = SCHEME://TARGET
 * and the group's labels, set through the same key checks as a written section, so [defaults]
 * (a %{router} secret file too) applies. It must never poll or resolve a name, and a file that
 * fails adds none of its routers. */
#include "config.h"
#include "daemon/conf_int.h"
#include "daemon/invjson.h"
#include "daemon/invlist.h"
#include "daemon/invyaml.h"
#include "lib/buf.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFINV_FILE_MAX  (16 << 20) /* bytes of one target file */
#define CONFINV_MAX_FILES 1000
#define CONFINV_MAX_ROUTERS \
	100000 /* routers in all: 10x the largest shard the docs size (1 KiB each to load) */

/* What a file's name ends in says how it is read (Prometheus's file_sd_configs: any case). */
static const struct confinv_format {
	const char *ext, *name;
	int (*read)(const char *text, size_t len, invlist_t *out, int *line, char **why);
} confinv_formats[] = {
	{ ".json", "JSON", invjson_read },
	{ ".yml", "YAML", invyaml_read },
	{ ".yaml", "YAML", invyaml_read },
};

/* The name of target t ("host[:port]", "[v6]:port"): its host, ':' as '-' (a v6 address). */
static char *confinv_name(const char *t)
{
	const char *end = t[0] == '[' ? strchr(t, ']') : strrchr(t, ':');
	size_t n = t[0] == '[' && end ? (size_t)(end - t - 1) : end ? (size_t)(end - t) : strlen(t);
	char *name = xstrndup(t[0] == '[' ? t + 1 : t, n);
	for (char *p = name; *p; p++)
		*p = *p == ':' ? '-' : *p;
	return name;
}

/* Whether lib/text's one-line escaper leaves s as it is: no control character, no
 * bidirectional control. What an error line may echo: a newline in a target or label would
 * start a message of its own, or forge a log line; U+202E would turn one around. */
static bool confinv_printable(const char *s)
{
	buf_t b;
	buf_init(&b);
	text_put_oneline(&b, s);
	bool same = b.len == strlen(s); /* an escape only ever lengthens */
	buf_free(&b);
	return same;
}

/* Whether s is a word of printable ASCII, as a host[:port] and a label name are: no blank, no
 * control and no other script (a bidirectional control would turn a message around). */
static bool confinv_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* At most n bytes of s on one line, as lib/text.h escapes control and bidirectional
 * characters: what an error may echo of a file. */
static char *confinv_echo(const char *s, size_t n)
{
	buf_t b;
	buf_init(&b);
	char *cut = text_cap(s, n);
	text_put_oneline(&b, cut);
	free(cut);
	return buf_steal(&b, NULL);
}

/* The group's labels as a labels = value, and its scheme; NULL with *why when unusable. */
static char *confinv_labels(const struct invlist_group *g, const char **scheme, char **why)
{
	buf_t b;
	buf_init(&b);
	*scheme = "https";
	for (size_t i = 0; i < g->nlabels; i++) {
		const char *k = g->labels[i].name, *s = g->labels[i].value;
		if (s == NULL || strpbrk(s, ",=") != NULL || !confinv_printable(s) || !confinv_ascii(k)) {
			char *e = confinv_echo(k, 64);
			*why = xasprintf(
				"label %s: an ASCII name and a string without ',', '=' or a control character expected",
				e);
			free(e);
			buf_free(&b);
			return NULL;
		}
		if (strcmp(k, "__scheme__") == 0 && (strcmp(s, "http") == 0 || strcmp(s, "https") == 0))
			*scheme = strcmp(s, "http") == 0 ? "http" : "https";
		else if (strncmp(k, "__", 2) != 0) /* Prometheus's meta labels: not the router's */
			buf_printf(&b, "%s%s=%s", b.len ? "," : "", k, s);
	}
	return buf_steal(&b, NULL);
}

/* One target as a router section of file f. */
static void confinv_target(struct conf_file *f, const char *target, const char *scheme, const char *labels)
{
	char *name = confinv_name(target);
	if (!confval_router_name_ok(name)) {
		char *et = confinv_echo(target, 64), *en = confinv_echo(name, 64);
		conf_ferr(f, "target %s: %s is no router name (letters, digits, '_', '.' and '-')", et, en);
		free(et);
		free(en);
		free(name);
		return;
	}
	f->sect = SECT_ROUTER;
	f->rs = conf_router_add(f, name);
	char *url = xasprintf("%s://%s", scheme, target);
	confread_set_key(f, "rest", url);
	if (labels[0] != '\0')
		confread_set_key(f, "labels", labels);
	free(url);
	free(name);
}

/* Why group g is no group of targets and labels, or NULL (caller frees). */
static char *confinv_shape(const struct invlist_group *g)
{
	if (g->not_map)
		return xstrdup("a map of targets and labels expected");
	if (g->unknown != NULL) {
		char *e = confinv_echo(g->unknown, 32);
		char *why = xasprintf("unknown key \"%s\" (a group has targets and labels)", e);
		free(e);
		return why;
	}
	if (!g->has_targets)
		return xstrdup("targets: a list of \"host[:port]\" strings expected");
	if (g->bad_labels)
		return xstrdup("labels: a map of strings expected");
	return NULL;
}

/* Group g (its index i) of file f: each target a router, or the group refused at its line. */
static void confinv_group(struct conf_file *f, const struct invlist_group *g, size_t i)
{
	const char *scheme;
	char *ls = NULL, *why = confinv_shape(g);
	if (why == NULL)
		ls = confinv_labels(g, &scheme, &why);
	for (size_t t = 0; why == NULL && t < g->ntargets; t++) {
		const char *s = g->targets[t].s;
		f->line = g->targets[t].line;
		if (s == NULL || s[0] == '\0' || strpbrk(s, "/@") != NULL || !confinv_ascii(s))
			conf_ferr(
				f, "group %zu, target %zu: a \"host[:port]\" string expected", i + 1, t + 1);
		else
			confinv_target(f, s, scheme, ls);
	}
	if (why != NULL) {
		f->line = g->line;
		conf_ferr(f, "group %zu: %s", i + 1, why);
	}
	free(why);
	free(ls);
}

/* The routers of list l, read from file f: the one way JSON's and YAML's groups become routers.
 * A file whose targets would make more than CONFINV_MAX_ROUTERS routers is refused whole, before
 * any is made: 16 MiB of short targets would take gigabytes to load. */
static void confinv_list(struct conf_file *f, const invlist_t *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->ngroups; i++)
		n += l->groups[i].ntargets;
	if (n > CONFINV_MAX_ROUTERS - f->ld->nrs) {
		conf_ferr(f,
			"%zu targets, more than the %d routers one wgwatchd takes in all (%zu before this file)",
			n, CONFINV_MAX_ROUTERS, f->ld->nrs);
		return;
	}
	for (size_t i = 0; i < l->ngroups; i++)
		confinv_group(f, &l->groups[i], i);
}

/* The file's text, at most CONFINV_FILE_MAX bytes; NULL with *why. */
static char *confinv_slurp(const char *path, size_t *len, char **why)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	char *text = NULL;
	if (fd < 0 || fstat(fd, &st) != 0)
		*why = xstrdup(strerror(errno));
	else if (!S_ISREG(st.st_mode) || st.st_size > CONFINV_FILE_MAX)
		*why = xstrdup("not a regular file of at most 16 MiB");
	else {
		text = xmalloc((size_t)st.st_size + 1);
		ssize_t n = read(fd, text, (size_t)st.st_size);
		*len = n > 0 ? (size_t)n : 0;
		text[*len] = '\0'; /* for invjson's search of a target's line */
		if (n < 0)
			*why = xstrdup(strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	if (*why != NULL) {
		free(text);
		return NULL;
	}
	return text;
}

/* The reader of path by its name's end, as Prometheus chooses it; NULL: none. */
static const struct confinv_format *confinv_format(const char *path)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(confinv_formats) / sizeof(confinv_formats[0]); i++) {
		size_t e = strlen(confinv_formats[i].ext);
		if (n > e && strcasecmp(path + n - e, confinv_formats[i].ext) == 0)
			return &confinv_formats[i];
	}
	return NULL;
}

static void confinv_file(struct conf_loader *ld, const char *path)
{
	struct conf_file f = {
		.ld = ld, .fidx = confread_add_file(ld, path), .dir = confval_dirname(path), .line = 1
	};
	const struct confinv_format *fmt = confinv_format(path);
	invlist_t l = { 0 };
	size_t len = 0;
	char *why = NULL, *text = fmt ? confinv_slurp(path, &len, &why) : NULL;
	if (fmt == NULL)
		conf_ferr(&f, "not a file_sd file: a name ending in .json, .yml or .yaml expected");
	else if (text == NULL)
		conf_ferr(&f, "cannot read %s: %s", path, why);
	else if (fmt->read(text, len, &l, &f.line, &why) != 0) {
		char *e = confinv_echo(why, 160);
		conf_ferr(&f, "not file_sd %s: %s", fmt->name, e);
		free(e);
	} else
		confinv_list(&f, &l);
	invlist_free(&l);
	free(text);
	free(why);
	free(f.dir);
}

void confinv_read(struct conf_loader *ld)
{
	glob_t g = { 0 };
	if (ld->c->targets == NULL || glob(ld->c->targets, 0, NULL, &g) != 0) { /* sorted */
		globfree(&g);
		return; /* no file yet is fine: the export may come later */
	}
	for (size_t i = 0; i < g.gl_pathc && i < CONFINV_MAX_FILES; i++)
		confinv_file(ld, g.gl_pathv[i]);
	globfree(&g);
}
