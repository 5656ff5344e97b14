/* SPDX-License-Identifier: Apache-2.0 */
/* confval: the typed value parsers of the config (durations, sizes, addresses, URLs, labels,
 * secret files...) and the copy and free of each type of field. A parser fills *cause and
 * never logs; a cause never holds the value, which may be a secret. */
#include "config.h"
#include "daemon/conf_int.h"
#include "daemon/ros.h"
#include "lib/duration.h"
#include "lib/listen.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONF_MAX_SECRET 4096 /* bytes in a secret file */

/* ---- durations, sizes, small parsers ---- */

static const struct {
	const char *suffix;
	size_t mult;
} confval_sizes[] = {
	{ "", 1 },
	{ "k", 1024 },
	{ "K", 1024 },
	{ "KiB", 1024 },
	{ "M", 1024 * 1024 },
	{ "MiB", 1024 * 1024 },
	{ "G", 1024 * 1024 * 1024 },
	{ "GiB", 1024 * 1024 * 1024 },
};

static int confval_size(const char *s, double *out)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	for (size_t i = 0; i < sizeof(confval_sizes) / sizeof(confval_sizes[0]); i++) {
		if (strcmp(end, confval_sizes[i].suffix) == 0) {
			*out = (double)n * (double)confval_sizes[i].mult;
			return 0;
		}
	}
	return -1;
}

/* Bits per second with a decimal suffix: "300M" is 300,000,000 (bandwidth-test's own units). */
static int confval_rate(const char *s, double *out)
{
	static const struct {
		char suffix;
		double mult;
	} units[] = { { '\0', 1 }, { 'k', 1e3 }, { 'K', 1e3 }, { 'M', 1e6 }, { 'G', 1e9 } };
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	double n = strtod(s, &end);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (end[0] == units[i].suffix && (end[0] == '\0' || end[1] == '\0') && isfinite(n)) {
			*out = n * units[i].mult;
			return 0;
		}
	}
	return -1;
}

bool confval_router_name_ok(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("_.-", *s)))
			return false;
	return true;
}

char *confval_router_var(const char *value, const char *name)
{
	buf_t b;
	buf_init(&b);
	const char *at;
	while ((at = strstr(value, CONF_ROUTER_VAR)) != NULL) {
		buf_append(&b, value, (size_t)(at - value));
		buf_puts(&b, name);
		value = at + strlen(CONF_ROUTER_VAR);
	}
	buf_puts(&b, value);
	return buf_steal(&b, NULL);
}

char *confval_join(const char *dir, const char *rel)
{
	return rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", dir, rel);
}

/* The directory of path, made absolute; NULL if it does not exist. */
char *confval_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash == NULL ? xstrdup(".")
		: slash == path   ? xstrdup("/")
				  : xstrndup(path, (size_t)(slash - path));
	char *real = realpath(dir, NULL);
	free(dir);
	return real;
}

/* ---- secret files ---- */

static int confval_secret_read(int fd, const char *path, char **out, char **cause)
{
	char tmp[CONF_MAX_SECRET];
	size_t n = 0;
	ssize_t r = 0;
	while (n < sizeof(tmp) && (r = read(fd, tmp + n, sizeof(tmp) - n)) > 0)
		n += (size_t)r;
	int rc = -1;
	if (n == sizeof(tmp))
		*cause = xasprintf("%s is longer than %d bytes", path, CONF_MAX_SECRET - 1);
	else if (r < 0)
		*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
	while (n > 0 && (tmp[n - 1] == '\n' || tmp[n - 1] == '\r'))
		n--;
	if (*cause == NULL && n == 0)
		*cause = xasprintf("%s is empty", path);
	if (*cause == NULL) {
		*out = xstrndup(tmp, n);
		rc = 0;
	}
	explicit_bzero(tmp, sizeof(tmp));
	return rc;
}

/* The content of a secret file without its trailing newline; the file must be private and
 * regular. O_NONBLOCK: opening a FIFO must not wait for a writer (the check below refuses it). */
static int confval_secret_file(const char *path, char **out, char **cause)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	int rc = -1;
	if (fstat(fd, &st) < 0)
		*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		*cause = xasprintf("%s is not a regular file", path);
	else if (st.st_mode & 077)
		*cause = xasprintf("%s has mode %04o, readable by group or others: chmod 600 %s", path,
			(unsigned)(st.st_mode & 07777), path);
	else
		rc = confval_secret_read(fd, path, out, cause);
	close(fd);
	return rc;
}

/* ---- typed values ---- */

static bool confval_type_secret(enum conf_type t)
{
	return t == T_SECRET || t == T_SECRET_FILE;
}

static void confval_str_zero_free(char *s, bool secret)
{
	if (s != NULL && secret)
		explicit_bzero(s, strlen(s));
	free(s);
}

static void confval_set_str(const struct conf_key *k, void *field, char *v)
{
	char **p = field;
	confval_str_zero_free(*p, confval_type_secret(k->type));
	*p = v;
}

static int confval_v_url(const struct conf_key *k, const char *v, void *field, char **cause)
{
	size_t pre = strncmp(v, "http://", 7) == 0 ? 7 : strncmp(v, "https://", 8) == 0 ? 8 : 0;
	size_t n = strlen(v);
	while (n > pre && v[n - 1] == '/')
		n--;
	if (pre == 0)
		*cause = xstrdup("must start with http:// or https://");
	else if (strchr(v, '@') != NULL)
		*cause = xstrdup("must not hold credentials: use user and password_file");
	else if (n == pre || v[pre] == '/' || strpbrk(v, " \t") != NULL)
		*cause = xstrdup("has no host, or spaces (want e.g. https://192.0.2.1)");
	if (*cause != NULL)
		return -1;
	confval_set_str(k, field, xstrndup(v, n));
	return 0;
}

static bool confval_port_ok(const char *p)
{
	char *end;
	if (!isdigit((unsigned char)*p))
		return false;
	long n = strtol(p, &end, 10);
	return *end == '\0' && n >= 1 && n <= 65535;
}

/* The listener's address: what lib/listen parses (numeric), with a port from 1. */
static int confval_v_listen(const struct conf_key *k, const char *v, void *field, char **cause)
{
	struct sockaddr_storage ss;
	socklen_t len;
	if (listen_parse(v, &ss, &len) < 0 ||
		(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					 : ((struct sockaddr_in6 *)&ss)->sin6_port) == 0) {
		*cause = xstrdup("must be A.B.C.D:PORT or [IPV6]:PORT, a numeric address (127.0.0.1:9477, "
				 "not localhost:9477) and a port from 1 to 65535");
		return -1;
	}
	confval_set_str(k, field, xstrdup(v));
	return 0;
}

/* host:port, [v6]:port, host, [v6], or a bare IPv6 address when the port is optional. */
static int confval_v_hostport(const struct conf_key *k, const char *v, void *field, char **cause)
{
	const char *port = NULL;
	if (v[0] == '[') {
		const char *rb = strchr(v, ']');
		if (rb != NULL && rb[1] == ':')
			port = rb + 2;
		else if (rb == NULL || rb[1] != '\0')
			port = "";
	} else {
		const char *colon = strchr(v, ':');
		if (colon != NULL && strchr(colon + 1, ':') == NULL)
			port = colon + 1;
	}
	if (strpbrk(v, " \t") != NULL || (port != NULL && !confval_port_ok(port)) || v[0] == '\0' ||
		v[0] == ':') {
		*cause = xstrdup("must be host or host:port with a port from 1 to 65535");
		return -1;
	}
	confval_set_str(k, field, xstrdup(v));
	return 0;
}

static int confval_v_enum(const struct conf_key *k, const char *v, void *field, char **cause)
{
	const char *c = k->choices;
	size_t n = strlen(v);
	while (*c != '\0') {
		size_t len = strcspn(c, "|");
		if (len == n && strncasecmp(c, v, n) == 0) {
			confval_set_str(k, field, xstrndup(c, len));
			return 0;
		}
		c += len + (c[len] == '|');
	}
	*cause = xasprintf("must be one of %s", k->choices);
	return -1;
}

static int confval_v_bool(const char *v, void *field, char **cause)
{
	bool *p = field;
	if (strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0) {
		*p = true;
	} else if (strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0) {
		*p = false;
	} else {
		*cause = xstrdup("must be yes, no, true or false");
		return -1;
	}
	return 0;
}

static int confval_v_snmpver(const char *v, void *field, char **cause)
{
	int *p = field;
	if (strcmp(v, "1") == 0)
		*p = 1;
	else if (strcasecmp(v, "2c") == 0)
		*p = 2;
	else if (strcmp(v, "3") == 0)
		*p = 3;
	else {
		*cause = xstrdup("must be 1, 2c or 3");
		return -1;
	}
	return 0;
}

static void confval_fmt_size(buf_t *b, size_t n)
{
	static const char units[] = "GMk";
	for (int i = 0; i < 3; i++) {
		size_t mult = (size_t)1 << (10 * (3 - i));
		if (n >= mult && n % mult == 0) {
			buf_printf(b, "%zu%c", n / mult, units[i]);
			return;
		}
	}
	buf_printf(b, "%zu", n);
}

char *confval_range_text(const struct conf_key *k)
{
	buf_t b;
	buf_init(&b);
	if (k->type == T_DURATION) {
		duration_fmt(&b, (int64_t)k->min);
		buf_puts(&b, " to ");
		duration_fmt(&b, (int64_t)k->max);
	} else if (k->type == T_SIZE) {
		confval_fmt_size(&b, (size_t)k->min);
		buf_puts(&b, " to ");
		confval_fmt_size(&b, (size_t)k->max);
	} else {
		buf_printf(&b, "%.15g to %.15g", k->min, k->max);
	}
	return buf_steal(&b, NULL);
}

static int confval_range(const struct conf_key *k, double x, char **cause)
{
	if ((k->min == 0 && k->max == 0) || (x >= k->min && x <= k->max))
		return 0;
	char *r = confval_range_text(k);
	*cause = xasprintf("is out of range (allowed %s)", r);
	free(r);
	return -1;
}

/* The number in v as a double (ms for durations), or why it is not one. */
static const char *confval_number(const struct conf_key *k, const char *v, double *x)
{
	const char *why = NULL;
	char *end = NULL;
	int64_t ms;
	switch (k->type) {
	case T_DURATION:
		if (duration_parse(v, 0, &ms, &why) == 0)
			*x = (double)ms;
		return why;
	case T_RATE:
		if (confval_rate(v, x) < 0)
			return "is not a rate: bits/s with an optional decimal k, M or G suffix (e.g. 300M)";
		return NULL;
	case T_SIZE:
		if (confval_size(v, x) < 0)
			return "is not a size: bytes with an optional k, M or G suffix (e.g. 512k, 4M)";
		return NULL;
	case T_INT:
		*x = (double)strtoll(v, &end, 10);
		return end == v || *end != '\0' ? "is not an integer" : NULL;
	default:
		*x = strtod(v, &end);
		return end == v || *end != '\0' || !isfinite(*x) ? "is not a number" : NULL;
	}
}

static int confval_v_number(const struct conf_key *k, const char *v, void *field, char **cause)
{
	double x = 0;
	const char *why = confval_number(k, v, &x);
	if (why != NULL) {
		*cause = xstrdup(why);
		return -1;
	}
	if (confval_range(k, x, cause) < 0)
		return -1;
	if (k->type == T_DURATION)
		*(int64_t *)field = (int64_t)x;
	else if (k->type == T_SIZE)
		*(size_t *)field = (size_t)x;
	else if (k->type == T_RATE)
		*(int64_t *)field = (int64_t)x;
	else if (k->type == T_INT)
		*(int *)field = (int)x;
	else
		*(double *)field = x;
	return 0;
}

static void confval_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* a,b,c added to the *nout items of *out (a key repeated adds up), with blanks around items
 * dropped; empty items are skipped. */
static void confval_v_list(const char *v, char ***out, size_t *nout)
{
	char *copy = xstrdup(v), *save = copy, *item;
	char **l = *out;
	size_t n = *nout;
	while ((item = strsep(&save, ",")) != NULL) {
		item = text_trim(item);
		if (*item == '\0')
			continue;
		l = xreallocarray(l, n + 1, sizeof(*l));
		l[n++] = xstrdup(item);
	}
	free(copy);
	*out = l;
	*nout = n;
}

#define CONFVAL_PEM_MAX (8 << 20) /* a CA bundle (Debian's: 220 KB) is read this far at most */

/* Whether path holds a PEM certificate block: a file curl or the TLS listener would refuse
 * (DER, a key, junk) is refused at --check, not at the first poll. -1 with *cause. */
static int confval_pem_cert(const char *path, char **cause)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	char *buf = xmalloc(CONFVAL_PEM_MAX + 1);
	size_t n = fread(buf, 1, CONFVAL_PEM_MAX, f);
	int err = ferror(f);
	fclose(f);
	buf[n] = '\0';
	bool found = !err && memmem(buf, n, begin, sizeof(begin) - 1) != NULL;
	free(buf);
	if (!found)
		*cause = err ? xasprintf("cannot read %s", path)
			     : xasprintf("%s holds no PEM certificate (%s)", path, begin);
	return found ? 0 : -1;
}

static int confval_v_path(const struct conf_key *k, const char *v, const char *dir, void *field, char **cause)
{
	if (*v == '\0') {
		*cause = xstrdup("is empty: want a path");
		return -1;
	}
	char *path = confval_join(dir, v);
	if ((k->type == T_FILE || k->type == T_PEM_CERT) && access(path, R_OK) < 0) {
		*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (k->type == T_PEM_CERT && confval_pem_cert(path, cause) < 0) {
		free(path);
		return -1;
	}
	confval_set_str(k, field, path);
	return 0;
}

static int confval_v_secret_file(
	const struct conf_key *k, const char *v, const char *dir, void *field, char **cause)
{
	char *path = confval_join(dir, v), *secret = NULL;
	int rc = confval_secret_file(path, &secret, cause);
	free(path);
	if (rc == 0)
		confval_set_str(k, field, secret);
	return rc;
}

static int confval_v_shard(const char *v, void *field, char **cause)
{
	struct conf_shard *sh = field;
	char *end;
	errno = 0;
	long k = strtol(v, &end, 10);
	long n = 0;
	if (errno == 0 && end != v && *end == '/' && end[1] >= '0' && end[1] <= '9') {
		const char *ns = end + 1;
		n = strtol(ns, &end, 10);
		if (errno != 0 || *end != '\0')
			n = 0;
	}
	if (n < 1 || n > 10000 || k < 1 || k > n) {
		*cause = xstrdup("must be K/N with 1 <= K <= N <= 10000, e.g. 2/3");
		return -1;
	}
	sh->index = (int)k;
	sh->count = (int)n;
	return 0;
}

/* Parse v for key k into its field of base (a conf_t or conf_router_t). Fills *cause (which
 * must be NULL on entry) without the value on failure. */
int confval_value(const struct conf_key *k, const char *v, void *base, const char *dir, char **cause)
{
	void *field = (char *)base + k->off;
	if (k->check != NULL && k->check(v, cause) < 0)
		return -1;
	switch (k->type) {
	case T_STR:
		if (*v == '\0') {
			*cause = xstrdup("is empty");
			return -1;
		}
		/* fall through */
	case T_SECRET: confval_set_str(k, field, xstrdup(v)); return 0;
	case T_SECRET_FILE: return confval_v_secret_file(k, v, dir, field, cause);
	case T_PATH:
	case T_FILE:
	case T_PEM_CERT: return confval_v_path(k, v, dir, field, cause);
	case T_URL: return confval_v_url(k, v, field, cause);
	case T_LISTEN: return confval_v_listen(k, v, field, cause);
	case T_HOSTPORT: return confval_v_hostport(k, v, field, cause);
	case T_ENUM: return confval_v_enum(k, v, field, cause);
	case T_BOOL: return confval_v_bool(v, field, cause);
	case T_SNMPVER: return confval_v_snmpver(v, field, cause);
	case T_SHARD: return confval_v_shard(v, field, cause);
	case T_DURATION:
	case T_INT:
	case T_DOUBLE:
	case T_SIZE:
	case T_RATE: return confval_v_number(k, v, field, cause);
	case T_LABELS: return conflabel_parse(v, field, (size_t *)((char *)base + k->noff), cause);
	case T_LIST: confval_v_list(v, field, (size_t *)((char *)base + k->noff)); return 0;
	}
	return -1;
}

/* ---- fields: copy and free, by type ---- */

static size_t confval_scalar_size(enum conf_type t)
{
	switch (t) {
	case T_BOOL: return sizeof(bool);
	case T_INT:
	case T_SNMPVER: return sizeof(int);
	case T_DURATION:
	case T_RATE: return sizeof(int64_t);
	case T_DOUBLE: return sizeof(double);
	case T_SIZE: return sizeof(size_t);
	case T_SHARD: return sizeof(struct conf_shard);
	default: return 0;
	}
}

void confval_field_free(const struct conf_key *k, void *base)
{
	void *field = (char *)base + k->off;
	size_t *n = (size_t *)((char *)base + k->noff);
	if (k->type == T_LABELS) {
		conflabel_free(*(struct conf_label **)field, *n);
		*(struct conf_label **)field = NULL;
		*n = 0;
	} else if (k->type == T_LIST) {
		confval_list_free(*(char ***)field, *n);
		*(char ***)field = NULL;
		*n = 0;
	} else if (confval_scalar_size(k->type) == 0) {
		confval_str_zero_free(*(char **)field, confval_type_secret(k->type));
		*(char **)field = NULL;
	}
}

void confval_field_copy(const struct conf_key *k, void *dst, const void *src)
{
	size_t n = k->noff ? *(const size_t *)((const char *)src + k->noff) : 0;
	void *to = (char *)dst + k->off;
	const void *from = (const char *)src + k->off;
	if (k->type == T_LABELS) {
		const struct conf_label *l = *(struct conf_label *const *)from;
		struct conf_label *c = n ? xcalloc(n, sizeof(*c)) : NULL;
		for (size_t i = 0; i < n; i++)
			c[i] = (struct conf_label){ .key = xstrdup(l[i].key), .value = xstrdup(l[i].value) };
		*(struct conf_label **)to = c;
		*(size_t *)((char *)dst + k->noff) = n;
	} else if (k->type == T_LIST) {
		char *const *l = *(char **const *)from;
		char **c = n ? xcalloc(n, sizeof(*c)) : NULL;
		for (size_t i = 0; i < n; i++)
			c[i] = xstrdup(l[i]);
		*(char ***)to = c;
		*(size_t *)((char *)dst + k->noff) = n;
	} else if (confval_scalar_size(k->type) != 0) {
		memcpy(to, from, confval_scalar_size(k->type));
	} else {
		*(char **)to = xstrdup(*(char *const *)from);
	}
}

void confval_router_fields_free(conf_router_t *r)
{
	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (confkeys_table[i].sect == SECT_ROUTER)
			confval_field_free(&confkeys_table[i], r);
	free(r->name);
	free(r->file);
}
