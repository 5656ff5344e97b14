/* SPDX-License-Identifier: Apache-2.0 */
/* conf_int.h: what the files of the conf module (conf, confkeys, confval, confread, confrules) share. */
#ifndef WGWATCH_CONF_INT_H
#define WGWATCH_CONF_INT_H

#include "daemon/conf.h"
#include "lib/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CONF_MAX_DEPTH 16   /* include nesting */
#define CONF_LINE_MAX  8190 /* characters of a line; inih's own buffer holds 198 */
#define CONF_NKEYS     82   /* entries of confkeys_table[]; confkeys.c checks it */

enum conf_sect {
	SECT_NONE,
	SECT_DAEMON,
	SECT_DETECTOR,
	SECT_WEB,
	SECT_ALERT,
	SECT_ROLLOUT,
	SECT_EVIDENCE,
	SECT_DEFAULTS,
	SECT_ROUTER,
	SECT_BAD
};

enum conf_type {
	T_STR,         /* non-empty text */
	T_SECRET,      /* any text, never shown */
	T_SECRET_FILE, /* path of a mode 0600 file whose content (less trailing newlines) is the secret */
	T_PATH,        /* path, relative to the file it appears in */
	T_FILE,        /* like T_PATH, and must be readable */
	T_PEM_CERT,    /* like T_FILE, and must hold a PEM certificate */
	T_URL,         /* http:// or https://, trailing '/' stripped */
	T_LISTEN,      /* host:port */
	T_HOSTPORT,    /* host[:port] */
	T_ENUM,        /* one of choices, case-insensitive, stored as spelled in choices */
	T_BOOL,        /* yes|no|true|false */
	T_DURATION,    /* conf_parse_duration, int64_t ms */
	T_INT,         /* int */
	T_SNMPVER,     /* 1|2c|3 into int 1, 2, 3 */
	T_DOUBLE,
	T_SIZE,   /* bytes with an optional k/M/G (KiB/MiB/GiB) suffix, size_t */
	T_LABELS, /* name=value,name=value */
	T_LIST,   /* a,b,c */
	T_SHARD,  /* K/N with 1 <= K <= N: into struct conf_shard */
	T_RATE,   /* bits/s with an optional decimal k/M/G suffix (300M = 300000000), int64_t */
};

struct conf_key {
	enum conf_sect sect; /* SECT_ROUTER keys are also valid in [defaults] */
	const char *name;
	enum conf_type type;
	size_t off;          /* field in conf_t, or in conf_router_t for SECT_ROUTER */
	size_t noff;         /* count field of T_LABELS and T_LIST */
	const char *def;     /* default, parsed like a value; NULL: none (or from [daemon]) */
	double min, max;     /* allowed range, in ms for durations; both 0: unchecked */
	const char *choices; /* T_ENUM: "a|b|c" */
	/* a further check of the whole value (the items of a list), before it is parsed; NULL: none */
	int (*check)(const char *v, char **cause);
	const char *help;
};

struct conf_src { /* where a key was set; line 0: not set */
	uint32_t file;
	int line;
};

struct conf_rsec { /* a [router NAME], or [defaults], while loading */
	conf_router_t r;
	struct conf_src at[CONF_NKEYS];
	struct conf_src where; /* the section line */
	bool dup;              /* a second section of an existing name: checked, then dropped */
};

struct conf_error {
	uint32_t file; /* UINT32_MAX: the main file could not be read */
	int line;
	size_t seq; /* keeps the order of messages on one line */
	char *msg;  /* "FILE:LINE: message" */
};

#define CONF_ROUTER_VAR "%{router}" /* in a secret file's path: the router's name */

struct conf_loader {
	conf_t *c;
	struct conf_error *errs; /* sorted by file and line at the end */
	size_t nerrs;
	char **files; /* every file read, for messages */
	size_t nfiles;
	char *stack[CONF_MAX_DEPTH]; /* real paths of the files being read, for include loops */
	int depth;
	struct conf_src at[CONF_NKEYS]; /* [daemon], [detector], [web] keys */
	struct conf_rsec defaults;
	/* [defaults] *_file values with %{router} (CONF_ROUTER_VAR), read per router once its
	 * name is known: the value as written and the directory it is relative to */
	char *pattern[CONF_NKEYS], *pattern_dir[CONF_NKEYS];
	struct conf_rsec **rs;
	size_t nrs, caprs;
	uint32_t *hash; /* router index + 1, open addressing; 0: empty */
	size_t nhash;
};

struct conf_file { /* one file being read */
	struct conf_loader *ld;
	FILE *fp;
	uint32_t fidx;
	char *dir; /* absolute directory of the file */
	int line;
	enum conf_sect sect;
	struct conf_rsec *rs; /* current [router] or [defaults] */
	char *lbuf;
	size_t lcap;
	size_t bytes; /* read so far */
	int err;      /* errno of a failed read; EFBIG: more than CONF_FILE_MAX bytes */
};

/* conf.c: errors and routers by name */

/* Add a message at at (at.file UINT32_MAX: no FILE:LINE prefix); never give it a secret value. */
void conf_err(struct conf_loader *ld, struct conf_src at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add a message at the current line of f. */
void conf_ferr(struct conf_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A new [router name] at f's line; a duplicate name is reported and marked dup. */
struct conf_rsec *conf_router_add(struct conf_file *f, const char *name);

/* confkeys.c: the key table */

/* Every key, once: name, section, type, field, default, range and help. */
extern const struct conf_key confkeys_table[CONF_NKEYS];
/* The section's name as conf_help() shows it ([defaults] and [router] keys: "router NAME"). */
const char *confkeys_sect_name(enum conf_sect s);
/* The key name of section sect ([defaults] takes router keys), or NULL if there is none. */
const struct conf_key *confkeys_find(enum conf_sect sect, const char *name);
/* A key sharing k's field (password and password_file) already set in at[], or NULL. */
const struct conf_key *confkeys_clash(const struct conf_key *k, const struct conf_src *at);
/* The type of k in words, for conf_help(). */
const char *confkeys_type_name(const struct conf_key *k);

/* confval.c: typed values; they fill *cause (NULL on entry, caller frees) and never log */

/* Whether s is a valid router name: letters, digits, '_', '.' and '-'. */
bool confval_router_name_ok(const char *s);
/* s without leading and trailing blanks (cut in place). */
/* rel made relative to dir unless it is absolute (caller frees). */
char *confval_join(const char *dir, const char *rel);
/* value with each CONF_ROUTER_VAR replaced by name (a new string). */
char *confval_router_var(const char *value, const char *name);
/* The directory of path, made absolute; NULL if it does not exist (caller frees). */
char *confval_dirname(const char *path);
/* k's allowed range in words, e.g. "100ms to 1d" (caller frees). */
char *confval_range_text(const struct conf_key *k);
/* conflabel.c: [rollout] canary: one label "name=value" (name as a Prometheus label name,
 * value not empty). */
int conflabel_check_canary(const char *v, char **cause);
/* [rollout] allow: items "VERSION/ARCHITECTURE" or "VERSION/BOARD", VERSION a RouterOS version. */
int conflabel_check_allow(const char *v, char **cause);
/* [rollout] shards: each item an http:// or https:// base URL with a host, no credentials. */
int conflabel_check_shards(const char *v, char **cause);
/* name=value,name=value added to the n labels of *out (a key repeated adds up; names checked,
 * wgwatch's own refused); on failure *out and *nout are left as they were and *cause says why. */
int conflabel_parse(const char *v, struct conf_label **out, size_t *nout, char **cause);
void conflabel_free(struct conf_label *l, size_t n);
/* Parse v for key k into its field of base (a conf_t or conf_router_t); relative paths from
 * dir; T_LIST and T_LABELS add to what the field holds. On failure fills *cause (which must
 * be NULL on entry) without the value. */
int confval_value(const struct conf_key *k, const char *v, void *base, const char *dir, char **cause);
/* Free k's field of base (secrets wiped first) and clear it. */
void confval_field_free(const struct conf_key *k, void *base);
/* Copy k's field from src into dst, deeply; dst's field must be empty. */
void confval_field_copy(const struct conf_key *k, void *dst, const void *src);
/* Free every field of r, with its name and file, but not r. */
void confval_router_fields_free(conf_router_t *r);

/* confread.c: the file reader */

/* Read path (included from from, or the main file when from is NULL) in from's section,
 * and the files it includes; every problem becomes a message in ld. */
void confread_file(struct conf_loader *ld, const char *path, struct conf_file *from);
/* A file that is not wgwatch.conf text (confinv.c's target files): its index for messages. */
uint32_t confread_add_file(struct conf_loader *ld, const char *path);
/* key = value in f's section, as if read from f: the same checks, the same messages. */
void confread_set_key(struct conf_file *f, const char *key, const char *value);

/* confinv.c: routers from Prometheus file_sd target files ([daemon] targets) */

/* Each target of ld->c->targets' files (JSON or YAML by the name's end) as a [router NAME] of
 * its own; problems become messages in ld at the file and line. */
void confinv_read(struct conf_loader *ld);

/* confrules.c: the second pass */

/* After the last file: defaults, the rules across keys, and ld's routers moved into ld->c. */
void confrules_finish(struct conf_loader *ld);

#endif
