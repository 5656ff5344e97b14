/* SPDX-License-Identifier: Apache-2.0 */
/* confread: reads wgwatch.conf and the files it includes through inih, with our own line
 * reader so that every message has its FILE:LINE, and hands each key = value to the typed
 * parsers. It never logs, and wipes every buffer that held a line: lines hold secrets. */
#include "config.h"
#include "daemon/conf_int.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define CONF_IOBUF    8192                /* stdio buffer of a config file being read */
#define CONF_LINE_CAP (CONF_LINE_MAX + 2) /* getline buffer: a line it holds never reallocs */
#define CONF_FILE_MAX (1024 * 1024)       /* bytes of one file: /dev/zero must not read until ENOMEM */
#define CONF_TOO_BIG  "larger than 1 MiB"

/* ---- sections and keys ---- */

static void confread_section(struct conf_file *f, char *name)
{
	static const struct {
		const char *name;
		enum conf_sect sect;
	} plain[] = {
		{ "daemon", SECT_DAEMON },
		{ "detector", SECT_DETECTOR },
		{ "web", SECT_WEB },
		{ "alert", SECT_ALERT },
		{ "rollout", SECT_ROLLOUT },
		{ "evidence", SECT_EVIDENCE },
		{ "defaults", SECT_DEFAULTS },
	};
	f->rs = NULL;
	f->sect = SECT_BAD;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		if (strcmp(name, plain[i].name) == 0) {
			f->sect = plain[i].sect;
			f->rs = f->sect == SECT_DEFAULTS ? &f->ld->defaults : NULL;
			return;
		}
	}
	if (strncmp(name, "router", 6) != 0 || (name[6] != '\0' && !isspace((unsigned char)name[6]))) {
		conf_ferr(f,
			"unknown section [%s] (known: daemon, detector, web, alert, rollout, defaults, router NAME)",
			name);
		return;
	}
	char *rname = text_trim(name + 6);
	if (*rname == '\0') {
		conf_ferr(f, "[router] needs a name: [router NAME]");
		return;
	}
	if (!confval_router_name_ok(rname)) {
		conf_ferr(
			f, "[router %s]: a router name holds only letters, digits, '_', '.' and '-'", rname);
		return;
	}
	f->sect = SECT_ROUTER;
	f->rs = conf_router_add(f, rname);
}

/* Where the [rollout] allow items from index from on were set: this file and line. */
static void confread_allow_at(struct conf_file *f, size_t from)
{
	conf_t *c = f->ld->c;
	if (c->nrollout_allow == from)
		return;
	c->rollout_allow_at = xreallocarray(c->rollout_allow_at, c->nrollout_allow, sizeof(char *));
	for (size_t i = from; i < c->nrollout_allow; i++)
		c->rollout_allow_at[i] = xasprintf("%s:%d", f->ld->files[f->fidx], f->line);
}

static void confread_set(struct conf_file *f, const struct conf_key *k, const char *value)
{
	struct conf_loader *ld = f->ld;
	struct conf_src *at = f->rs ? f->rs->at : ld->at;
	void *base = f->rs ? (void *)&f->rs->r : (void *)ld->c;
	const struct conf_key *other = confkeys_clash(k, at);
	bool adds = other == k && (k->type == T_LIST || k->type == T_LABELS); /* values add up */
	if (other != NULL && !adds) {
		struct conf_src o = at[other - confkeys_table];
		if (other == k)
			conf_ferr(f, "%s is set twice (first at %s:%d)", k->name, ld->files[o.file], o.line);
		else
			conf_ferr(f, "%s and %s are both set (%s at %s:%d): keep one", k->name, other->name,
				other->name, ld->files[o.file], o.line);
		return;
	}
	if (!adds) /* a list keeps its first line, for the messages of the rules */
		at[k - confkeys_table] = (struct conf_src){ .file = f->fidx, .line = f->line };
	char *cause = NULL, *own = NULL;
	size_t allows = ld->c->nrollout_allow;
	if (k->type == T_SECRET_FILE && f->rs != NULL && strstr(value, CONF_ROUTER_VAR) != NULL) {
		if (f->rs == &ld->defaults) { /* read for each router, by confrules */
			ld->pattern[k - confkeys_table] = xstrdup(value);
			ld->pattern_dir[k - confkeys_table] = xstrdup(f->dir);
			return;
		}
		value = own = confval_router_var(value, f->rs->r.name);
	}
	int rc = confval_value(k, value, base, f->dir, &cause);
	if (rc == 0) {
		free(own);
		confread_allow_at(f, allows);
		return;
	}
	/* a URL (or a list of them, [rollout] shards) with credentials in it is not echoed */
	if (k->type == T_SECRET || ((k->type == T_URL || k->type == T_LIST) && strchr(value, '@') != NULL))
		conf_ferr(f, "%s: %s", k->name, cause);
	else
		conf_ferr(f, "%s = %s: %s", k->name, value, cause);
	free(cause);
	free(own);
}

void confread_set_key(struct conf_file *f, const char *key, const char *value)
{
	const struct conf_key *k = confkeys_find(f->sect, key);
	if (k != NULL)
		confread_set(f, k, value);
}

/* ---- includes ---- */

static bool confread_has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* dir/pattern with glob characters in dir escaped. */
static char *confread_glob_pattern(const char *dir, const char *pattern)
{
	if (pattern[0] == '/')
		return xstrdup(pattern);
	buf_t b;
	buf_init(&b);
	for (const char *p = dir; *p; p++) {
		if (strchr("*?[\\", *p))
			buf_putc(&b, '\\');
		buf_putc(&b, *p);
	}
	buf_printf(&b, "/%s", pattern);
	return buf_steal(&b, NULL);
}

static void confread_include(struct conf_file *f, const char *pattern)
{
	if (*pattern == '\0') {
		conf_ferr(f, "include: empty pattern");
		return;
	}
	char *full = confread_glob_pattern(f->dir, pattern);
	glob_t g;
	int rc = glob(full, GLOB_MARK, NULL, &g);
	if (rc == GLOB_NOMATCH && !confread_has_glob(pattern)) {
		char *path = confval_join(f->dir, pattern);
		conf_ferr(f, "include = %s: cannot read %s: %s", pattern, path, strerror(ENOENT));
		free(path);
	} else if (rc != 0 && rc != GLOB_NOMATCH) {
		conf_ferr(f, "include = %s: cannot list the matching files", pattern);
	}
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		size_t n = strlen(g.gl_pathv[i]);
		if (n > 0 && g.gl_pathv[i][n - 1] != '/') /* GLOB_MARK: directories end in '/' */
			confread_file(f->ld, g.gl_pathv[i], f);
	}
	if (rc == 0)
		globfree(&g);
	free(full);
}

static int confread_handler(void *user, const char *section, const char *name, const char *value)
{
	struct conf_file *f = user;
	(void)section; /* the reader tracks sections itself, including empty ones */
	if (strcmp(name, "include") == 0) {
		confread_include(f, value);
		return 1;
	}
	if (f->sect == SECT_BAD)
		return 1; /* the section was reported already */
	if (f->sect == SECT_NONE) {
		conf_ferr(f, "%s is outside any section: put it under [daemon], [defaults], [router NAME]...",
			name);
		return 1;
	}
	const struct conf_key *k = confkeys_find(f->sect, name);
	if (k == NULL) {
		conf_ferr(f, "unknown key %s in [%s]", name,
			f->sect == SECT_DEFAULTS         ? "defaults"
				: f->sect == SECT_ROUTER ? "router"
							 : confkeys_sect_name(f->sect));
		return 1;
	}
	confread_set(f, k, value);
	return 1;
}

/* ---- the line reader ---- */

/* A "[name]" line: enter the section, or report it. Returns false if inih must not see it. */
static bool confread_reader_section(struct conf_file *f, char *s)
{
	char *rb = strchr(s, ']');
	if (rb == NULL || (*text_trim(rb + 1) != '\0' && !strchr(";#", *text_trim(rb + 1)))) {
		conf_ferr(f, "bad section line: want [name]");
		f->sect = SECT_BAD;
		f->rs = NULL;
		return false;
	}
	char *name = xstrndup(s + 1, (size_t)(rb - s - 1));
	confread_section(f, text_trim(name));
	free(name);
	return true;
}

/* Name the key of an over-long line, but never its value: it may be a secret. */
static void confread_too_long(struct conf_file *f, const char *s, size_t len, int max)
{
	size_t klen = strcspn(s, "=:");
	bool has_key = s[klen] != '\0';
	while (klen > 0 && isspace((unsigned char)s[klen - 1]))
		klen--;
	char key[40];
	snprintf(key, sizeof(key), "%.*s", (int)(klen < sizeof(key) ? klen : 0), s);
	const struct conf_key *k = has_key ? confkeys_find(f->sect, key) : NULL;
	if (k != NULL && (k->type == T_LIST || k->type == T_LABELS))
		conf_ferr(f,
			"%s: line is too long (%zu characters, at most %d): split it, %s may be "
			"repeated and the values add up",
			key, len, max, key);
	else if (has_key && klen > 0 && klen < sizeof(key))
		conf_ferr(f, "%s: line is too long (%zu characters, at most %d)", key, len, max);
	else
		conf_ferr(f, "line is too long (%zu characters, at most %d)", len, max);
}

/* inih's find_chars_or_comment: the first of chars, or a ';' after a blank (a comment). */
static char *confread_find(char *s, const char *chars)
{
	bool was_space = false;
	while (*s && (!chars || !strchr(chars, *s)) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

/* A key = value line longer than inih's buffer, split as inih splits one (the key up to the
 * first '=' or ':', the value less a ' ;' comment, both trimmed) and handed over directly. */
static void confread_long_line(struct conf_file *f, char *s)
{
	char *end = confread_find(s, "=:");
	if (*end != '=' && *end != ':') {
		conf_ferr(f, "expected key = value");
		return;
	}
	*end = '\0';
	char *value = end + 1;
	*confread_find(value, NULL) = '\0';
	confread_handler(f, NULL, text_trim(s), text_trim(value));
}

/* inih's reader: hands over one whole line at a time, so that f->line is the line of every
 * handler call, and keeps from inih what it would misread: lines too long for its fixed
 * buffer (it would cut them), malformed lines, and leading blanks (its continuation lines). */
static char *confread_reader(char *str, int num, void *stream)
{
	struct conf_file *f = stream;
	errno = 0;
	ssize_t n = getline(&f->lbuf, &f->lcap, f->fp);
	if (n < 0) { /* the end, or a failure: getline's ENOMEM sets no error flag */
		f->err = feof(f->fp) && !ferror(f->fp) ? 0 : errno != 0 ? errno : EIO;
		return NULL;
	}
	f->bytes += (size_t)n;
	if (f->bytes > CONF_FILE_MAX) { /* it grew since confread_open looked */
		f->err = EFBIG;
		return NULL;
	}
	f->line++;
	char *s = f->lbuf;
	if (f->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	s = text_trim(s);
	size_t len = strlen(s);
	if (len + 2 > (size_t)num && (len > CONF_LINE_MAX || *s == '[')) {
		confread_too_long(f, s, len, *s == '[' ? num - 2 : CONF_LINE_MAX);
		s = (char *)"";
	} else if (len + 2 > (size_t)num) { /* too long for inih's buffer, not for us */
		if (!strchr(";#", *s))
			confread_long_line(f, s);
		s = (char *)"";
	} else if (*s == '[') {
		if (!confread_reader_section(f, s))
			s = (char *)"";
	} else if (*s != '\0' && !strchr(";#", *s) && (strcspn(s, "=:") == 0 || !strpbrk(s, "=:"))) {
		conf_ferr(f, "expected key = value");
		s = (char *)"";
	}
	snprintf(str, (size_t)num, "%s\n", s);
	return str;
}

uint32_t confread_add_file(struct conf_loader *ld, const char *path)
{
	ld->files = xreallocarray(ld->files, ld->nfiles + 1, sizeof(*ld->files));
	ld->files[ld->nfiles] = xstrdup(path);
	return (uint32_t)ld->nfiles++;
}

/* inih copies each line into a buffer on its stack; once it returned, overwrite that area. */
static void __attribute__((noinline)) confread_scrub_stack(void)
{
	char pad[4 * 1024];
	explicit_bzero(pad, sizeof(pad));
	__asm__ volatile("" : : "r"(pad) : "memory");
}

/* Parse the open file fp, the innermost of ld->stack, starting in the section of from. */
static void confread_file_parse(struct conf_loader *ld, FILE *fp, const char *path, struct conf_file *from)
{
	struct conf_file f = {
		.ld = ld,
		.fp = fp,
		.fidx = confread_add_file(ld, path),
		.dir = confval_dirname(ld->stack[ld->depth - 1]),
		.sect = from ? from->sect : SECT_NONE,
		.rs = from ? from->rs : NULL,
	};
	f.lcap = CONF_LINE_CAP; /* one buffer, so no realloc leaves a copy of a line behind */
	f.lbuf = xmalloc(f.lcap);
	int rc = ini_parse_stream(confread_reader, &f, confread_handler, &f);
	confread_scrub_stack();
	if (f.err == EFBIG)
		conf_ferr(&f, "cannot read %s: %s", path, CONF_TOO_BIG);
	else if (f.err != 0)
		conf_ferr(&f, "cannot read %s: %s", path, strerror(f.err));
	else if (rc != 0) /* the reader leaves inih nothing to complain about: keep it honest */
		conf_err(ld, (struct conf_src){ .file = f.fidx, .line = rc > 0 ? rc : f.line },
			"cannot parse this line");
	if (f.lbuf != NULL)
		explicit_bzero(f.lbuf, f.lcap); /* it held secret lines */
	free(f.lbuf);
	free(f.dir);
}

/* Whether the file real may be read now: not being read already, not nested too deep. */
static bool confread_file_allowed(
	struct conf_loader *ld, const char *real, const char *path, struct conf_file *from)
{
	for (int i = 0; i < ld->depth; i++) {
		if (strcmp(ld->stack[i], real) == 0) {
			conf_ferr(from, "include loop: %s is already being read", path);
			return false;
		}
	}
	if (ld->depth == CONF_MAX_DEPTH) {
		conf_ferr(from, "includes nested more than %d deep", CONF_MAX_DEPTH);
		return false;
	}
	return true;
}

/* The file real opened for reading, or NULL with *why: only a regular file of at most
 * CONF_FILE_MAX bytes. O_NONBLOCK: opening a FIFO must not wait for a writer. */
static FILE *confread_open(const char *real, const char **why)
{
	struct stat st;
	int fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		*why = strerror(errno);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	*why = !S_ISREG(st.st_mode) ? "not a regular file" : st.st_size > CONF_FILE_MAX ? CONF_TOO_BIG : NULL;
	FILE *fp = *why == NULL ? fdopen(fd, "r") : NULL;
	if (fp == NULL && *why == NULL)
		*why = strerror(errno);
	if (fp == NULL)
		close(fd);
	return fp;
}

/* Read path (included from from, or the main file when from is NULL) with the section of from. */
void confread_file(struct conf_loader *ld, const char *path, struct conf_file *from)
{
	const char *why = NULL;
	char *real = realpath(path, NULL);
	FILE *fp = real ? confread_open(real, &why) : NULL;
	if (real == NULL)
		why = strerror(errno);
	if (fp == NULL && from != NULL)
		conf_ferr(from, "cannot read %s: %s", path, why);
	else if (fp == NULL)
		conf_err(ld, (struct conf_src){ .file = UINT32_MAX }, "%s: cannot read: %s", path, why);
	if (fp != NULL && !confread_file_allowed(ld, real, path, from)) {
		fclose(fp);
		fp = NULL;
	}
	if (fp == NULL) {
		free(real);
		return;
	}
	/* The file's text holds secrets: stdio reads it through a buffer of ours, wiped after. */
	char *iobuf = xmalloc(CONF_IOBUF);
	setvbuf(fp, iobuf, _IOFBF, CONF_IOBUF);
	ld->stack[ld->depth++] = real;
	confread_file_parse(ld, fp, path, from);
	free(ld->stack[--ld->depth]);
	fclose(fp);
	explicit_bzero(iobuf, CONF_IOBUF);
	free(iobuf);
}
