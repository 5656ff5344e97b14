/* SPDX-License-Identifier: Apache-2.0 */
/* confinv: routers from Prometheus file_sd target files ([daemon] targets = GLOB, the JSON a
 * NetBox or Ansible export writes for Prometheus): each target of each group becomes a
 * [router NAME] with rest = SCHEME://TARGET and the group's labels, set through the same key
 * checks as a written section, so [defaults] (a %{router} secret file too) applies. It must
 * never poll or resolve a name, and a file that fails adds none of its routers. */
#include "config.h"
#include "daemon/conf_int.h"
#include "lib/buf.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFINV_FILE_MAX  (16 << 20) /* bytes of one target file */
#define CONFINV_MAX_FILES 1000

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

/* Whether s holds no control character: what an error line may echo (a newline in a target or
 * label would start a message of its own, or forge a log line). */
static bool confinv_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
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

/* The group's labels (NULL: none) as a labels = value, and its scheme; NULL with *why when
 * unusable. */
static char *confinv_labels(const json_t *labels, const char **scheme, char **why)
{
	buf_t b;
	buf_init(&b);
	const char *k;
	json_t *v;
	*scheme = "https";
	json_object_foreach((json_t *)labels, k, v)
	{
		const char *s = json_string_value(v);
		if (s == NULL || strpbrk(s, ",=") != NULL || !confinv_printable(s) || !confinv_printable(k)) {
			char *e = confinv_echo(k, 64);
			*why = xasprintf(
				"label %s: a string without ',', '=' or a control character expected", e);
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

/* Where the file's text, from *pos on, next names target t (as "t"): f->line set to that line
 * and *pos moved past it, so messages and "first defined at" name the target's own line (a
 * line of at least 1: a key's place in the loader is its line). */
static void confinv_line(struct conf_file *f, const char *text, size_t *pos, const char *t)
{
	char *quoted = xasprintf("\"%s\"", t);
	const char *at = strstr(text + *pos, quoted);
	if (at != NULL) {
		for (const char *p = text + *pos; p < at; p++)
			f->line += *p == '\n';
		*pos = (size_t)(at - text) + strlen(quoted);
	}
	free(quoted);
}

/* One target as a router section of file f. */
static void confinv_target(struct conf_file *f, const char *target, const char *scheme, const char *labels)
{
	char *name = confinv_name(target);
	if (!confval_router_name_ok(name)) {
		conf_ferr(f, "target %.64s: %s is no router name (letters, digits, '_', '.' and '-')", target,
			name);
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

/* Group g (its index i) of file f, whose text is text (pos: how far its targets were found). */
static void confinv_group(struct conf_file *f, const json_t *g, size_t i, const char *text, size_t *pos)
{
	const json_t *targets = json_object_get(g, "targets"), *labels = json_object_get(g, "labels");
	const char *scheme, *k;
	char *why = NULL, *ls = NULL;
	json_t *v;
	json_object_foreach((json_t *)g, k, v)
	{
		if (why == NULL && strcmp(k, "targets") != 0 && strcmp(k, "labels") != 0) {
			char *e = confinv_echo(k, 32);
			why = xasprintf("unknown key \"%s\" (a group has targets and labels)", e);
			free(e);
		}
	}
	if (why == NULL && !json_is_array(targets))
		why = xstrdup("targets: an array of \"host[:port]\" strings expected");
	if (why == NULL && labels != NULL && !json_is_object(labels))
		why = xstrdup("labels: an object of strings expected");
	if (why == NULL)
		ls = confinv_labels(labels, &scheme, &why); /* NULL labels: none */
	for (size_t t = 0; why == NULL && t < json_array_size(targets); t++) {
		const char *s = json_string_value(json_array_get(targets, t));
		if (s != NULL)
			confinv_line(f, text, pos, s);
		if (s == NULL || s[0] == '\0' || strpbrk(s, "/@ ") != NULL || !confinv_printable(s))
			conf_ferr(
				f, "group %zu, target %zu: a \"host[:port]\" string expected", i + 1, t + 1);
		else
			confinv_target(f, s, scheme, ls);
	}
	if (why != NULL)
		conf_ferr(f, "group %zu: %s", i + 1, why);
	free(why);
	free(ls);
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

static void confinv_file(struct conf_loader *ld, const char *path)
{
	struct conf_file f = {
		.ld = ld, .fidx = confread_add_file(ld, path), .dir = confval_dirname(path), .line = 1
	};
	size_t len = 0, pos = 0;
	char *why = NULL, *text = confinv_slurp(path, &len, &why);
	json_error_t err;
	json_t *doc = text ? json_loadb(text, len, JSON_REJECT_DUPLICATES, &err) : NULL;
	if (text != NULL)
		text[len] = '\0'; /* for confinv_line's search */
	if (text == NULL)
		conf_ferr(&f, "cannot read %s: %s", path, why);
	else if (doc == NULL) {
		f.line = err.line > 0 ? err.line : 1;
		char *e = confinv_echo(err.text, sizeof(err.text));
		conf_ferr(&f, "not file_sd JSON: %s", e);
		free(e);
	} else if (!json_is_array(doc))
		conf_ferr(
			&f, "not file_sd JSON: an array of {\"targets\": [...], \"labels\": {...}} expected");
	for (size_t i = 0; json_is_array(doc) && i < json_array_size(doc); i++) {
		const json_t *g = json_array_get(doc, i);
		if (json_is_object(g))
			confinv_group(&f, g, i, text, &pos);
		else
			conf_ferr(&f, "group %zu: an object expected", i + 1);
	}
	json_decref(doc);
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
