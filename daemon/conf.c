/* SPDX-License-Identifier: Apache-2.0 */
/* conf: loads wgwatch.conf and everything it includes (inih, with our own line reader) into a
 * conf_t, and frees it. Every key is declared once in confkeys_table[]; parsing, defaults,
 * freeing and conf_help() all walk that table. It never logs and never puts a secret value into
 * an error message: problems are collected as "FILE:LINE: message" lines for the caller to print. */
#include "config.h"
#include "daemon/conf.h"
#include "daemon/conf_int.h"
#include "lib/hash.h"
#include "lib/duration.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

static void conf_verr(struct conf_loader *ld, uint32_t fidx, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static void conf_verr(struct conf_loader *ld, uint32_t fidx, int line, const char *fmt, va_list ap)
{
	char *msg = xvasprintf(fmt, ap);
	ld->errs = xreallocarray(ld->errs, ld->nerrs + 1, sizeof(*ld->errs));
	ld->errs[ld->nerrs] = (struct conf_error){ .file = fidx,
		.line = line,
		.seq = ld->nerrs,
		.msg = fidx == UINT32_MAX ? msg
			: line > 0        ? xasprintf("%s:%d: %s", ld->files[fidx], line, msg)
					  : xasprintf("%s: %s", ld->files[fidx], msg) };
	ld->nerrs++;
	if (fidx != UINT32_MAX)
		free(msg);
}

static int conf_error_cmp(const void *a, const void *b)
{
	const struct conf_error *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* All messages, one a line, in file and line order; NULL if there are none. */
static char *conf_errors_text(struct conf_loader *ld)
{
	if (ld->nerrs == 0)
		return NULL;
	qsort(ld->errs, ld->nerrs, sizeof(*ld->errs), conf_error_cmp);
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < ld->nerrs; i++) {
		buf_puts(&b, ld->errs[i].msg);
		buf_putc(&b, '\n');
		free(ld->errs[i].msg);
	}
	free(ld->errs);
	return buf_steal(&b, NULL);
}

void conf_err(struct conf_loader *ld, struct conf_src at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	conf_verr(ld, at.file, at.line, fmt, ap);
	va_end(ap);
}

void conf_ferr(struct conf_file *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	conf_verr(f->ld, f->fidx, f->line, fmt, ap);
	va_end(ap);
}

/* ---- routers by name ---- */

/* The slot of name in ld->hash: either its router or an empty slot to put it in. */
static uint32_t *conf_hash_slot(struct conf_loader *ld, const char *name)
{
	size_t mask = ld->nhash - 1;
	for (size_t i = hash_str32(name) & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &ld->hash[i];
		if (*slot == 0 || strcmp(ld->rs[*slot - 1]->r.name, name) == 0)
			return slot;
	}
}

static void conf_hash_grow(struct conf_loader *ld)
{
	if (ld->nhash > 2 * ld->nrs)
		return;
	free(ld->hash);
	ld->nhash = ld->nhash ? 2 * ld->nhash : 64;
	ld->hash = xcalloc(ld->nhash, sizeof(*ld->hash));
	for (size_t i = 0; i < ld->nrs; i++)
		if (!ld->rs[i]->dup)
			*conf_hash_slot(ld, ld->rs[i]->r.name) = (uint32_t)i + 1;
}

struct conf_rsec *conf_router_add(struct conf_file *f, const char *name)
{
	struct conf_loader *ld = f->ld;
	conf_hash_grow(ld);
	uint32_t *slot = conf_hash_slot(ld, name);
	struct conf_rsec *rs = xcalloc(1, sizeof(*rs));
	rs->r.name = xstrdup(name);
	rs->r.file = xstrdup(ld->files[f->fidx]);
	rs->r.line = f->line;
	rs->where = (struct conf_src){ .file = f->fidx, .line = f->line };
	if (*slot != 0) {
		const conf_router_t *first = &ld->rs[*slot - 1]->r;
		conf_ferr(f, "duplicate router %s (first defined at %s:%d)", name, first->file, first->line);
		rs->dup = true;
	}
	if (ld->nrs == ld->caprs) {
		ld->caprs = ld->caprs ? 2 * ld->caprs : 64;
		ld->rs = xreallocarray(ld->rs, ld->caprs, sizeof(*ld->rs));
	}
	ld->rs[ld->nrs++] = rs;
	if (!rs->dup)
		*slot = (uint32_t)ld->nrs;
	return rs;
}

/* ---- the interface ---- */

int conf_load(const char *path, conf_t **out, char **errors)
{
	struct conf_loader ld = { .c = xcalloc(1, sizeof(conf_t)) };
	ld.c->path = xstrdup(path);
	confread_file(&ld, path, NULL);
	confinv_read(&ld);
	confrules_finish(&ld);
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		if (confkeys_table[i].sect == SECT_ROUTER)
			confval_field_free(&confkeys_table[i], &ld.defaults.r);
		free(ld.pattern[i]);
		free(ld.pattern_dir[i]);
	}
	for (size_t i = 0; i < ld.nfiles; i++)
		free(ld.files[i]);
	free(ld.files);
	free(ld.hash);
	char *text = conf_errors_text(&ld);
	*out = text == NULL ? ld.c : NULL;
	if (text != NULL)
		conf_free(ld.c);
	if (errors != NULL)
		*errors = text;
	else
		free(text);
	return text == NULL ? 0 : -1;
}

void conf_free(conf_t *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i < c->nrouters; i++)
		confval_router_fields_free(&c->routers[i]);
	free(c->routers);
	for (size_t i = 0; c->rollout_allow_at != NULL && i < c->nrollout_allow; i++)
		free(c->rollout_allow_at[i]);
	free(c->rollout_allow_at);
	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (confkeys_table[i].sect != SECT_ROUTER)
			confval_field_free(&confkeys_table[i], c);
	free(c->listen_at);
	free(c->database_at);
	free(c->path);
	free(c);
}

const conf_router_t *conf_router_find(const conf_t *c, const char *name)
{
	for (size_t i = 0; i < c->nrouters; i++)
		if (strcmp(c->routers[i].name, name) == 0)
			return &c->routers[i];
	return NULL;
}

char *conf_help(void)
{
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &confkeys_table[i];
		buf_printf(&b, "[%s] %s = %s  (%s", confkeys_sect_name(k->sect), k->name,
			k->def ? k->def : "", confkeys_type_name(k));
		if (k->min != 0 || k->max != 0) {
			char *r = confval_range_text(k);
			buf_printf(&b, ", %s", r);
			free(r);
		}
		buf_printf(&b, ") %s\n", k->help);
	}
	return buf_steal(&b, NULL);
}

bool conf_allow_ok(const char *version, const char *cohort)
{
	if (version == NULL || cohort == NULL || *version == '\0' || *cohort == '\0' || strlen(cohort) > 64 ||
		strpbrk(version, ",/") != NULL || strpbrk(cohort, ",") != NULL)
		return false;
	for (const char *p = cohort; *p; p++)
		if (*p <= 0x20 || *p >= 0x7f) /* a board or architecture name: printable ASCII */
			return false;
	char *item = xasprintf("%s/%s", version, cohort), *cause = NULL;
	int rc = conflabel_check_allow(item, &cause);
	free(item);
	free(cause);
	return rc == 0;
}

int conf_parse_duration(const char *s, int64_t *ms)
{
	const char *cause;
	return s == NULL ? -1 : duration_parse(s, 0, ms, &cause);
}
