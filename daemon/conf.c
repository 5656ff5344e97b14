/* conf: loads wgwatch.conf and everything it includes (inih, with our own line reader) into a
 * conf_t. Every key is declared once in conf_keys[]; parsing, defaults, freeing and conf_help()
 * all walk that table. It never logs and never puts a secret value into an error message:
 * problems are collected as "FILE:LINE: message" lines for the caller to print. */
#include "config.h"
#include "daemon/conf.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONF_MAX_DEPTH  16   /* include nesting */
#define CONF_MAX_SECRET 4096 /* bytes in a secret file */
#define CONF_IOBUF      8192 /* stdio buffer of a config file being read */
#define CONF_LINE_CAP   8192 /* getline buffer: lines this long never make it realloc */
#define CONF_SEC        1000.0
#define CONF_MIN        (60 * CONF_SEC)
#define CONF_HOUR       (60 * CONF_MIN)
#define CONF_DAY        (24 * CONF_HOUR)
#define CONF_YEAR       (366 * CONF_DAY)

enum conf_sect {
	SECT_NONE,
	SECT_DAEMON,
	SECT_DETECTOR,
	SECT_WEB,
	SECT_ALERT,
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
	const char *help;
};

#define DKEY(n, t, f) .sect = SECT_DAEMON, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define XKEY(n, t, f) .sect = SECT_DETECTOR, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define WKEY(n, t, f) .sect = SECT_WEB, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define AKEY(n, t, f) .sect = SECT_ALERT, .name = (n), .type = (t), .off = offsetof(conf_t, f)
#define RKEY(n, t, f) .sect = SECT_ROUTER, .name = (n), .type = (t), .off = offsetof(conf_router_t, f)

static const struct conf_key conf_keys[] = {
	{ DKEY("listen", T_LISTEN, listen), .def = "127.0.0.1:9477",
		.help = "address and port of the HTTP server (/metrics, API)" },
	{ DKEY("database", T_PATH, database), .def = "wgwatch.db", .help = "SQLite database file" },
	{ DKEY("interval", T_DURATION, interval_ms), .def = "30s", .min = 100, .max = CONF_DAY,
		.help = "how often each router is polled" },
	{ DKEY("timeout", T_DURATION, timeout_ms), .def = "10s", .min = 100, .max = 10 * CONF_MIN,
		.help = "how long one poll of one router may take" },
	{ DKEY("max_in_flight", T_INT, max_in_flight), .def = "256", .min = 1, .max = 100000,
		.help = "routers polled at the same time" },
	{ DKEY("retention", T_DURATION, retention_ms), .def = "35d", .min = CONF_MIN, .max = 10 * CONF_YEAR,
		.help = "how long raw samples are kept" },
	{ DKEY("rollup_retention", T_DURATION, rollup_retention_ms), .def = "400d", .min = CONF_MIN,
		.max = 10 * CONF_YEAR, .help = "how long 5-minute roll-ups are kept" },
	{ DKEY("shard", T_SHARD, shard), .def = "1/1",
		.help = "poll only routers whose name hashes to shard K of N (see README, Sharding)" },
	{ DKEY("max_body", T_SIZE, max_body_bytes), .def = "4M", .min = 1024, .max = 1024.0 * 1024 * 1024,
		.help = "largest REST reply accepted, in bytes" },
	{ XKEY("before", T_DURATION, before_ms), .def = "7d", .min = CONF_SEC, .max = CONF_YEAR,
		.help = "window before a version change that the detector compares" },
	{ XKEY("after", T_DURATION, after_ms), .def = "7d", .min = CONF_SEC, .max = CONF_YEAR,
		.help = "window after a version change that the detector compares" },
	{ XKEY("min_samples", T_INT, min_samples), .def = "30", .min = 1, .max = 1000000,
		.help = "samples needed in each window before the detector judges" },
	{ XKEY("threshold", T_DOUBLE, threshold), .def = "0.20", .min = 0, .max = 1,
		.help = "relative CPU change (0.20 = 20%) that counts as a regression" },
	{ XKEY("saturated", T_DOUBLE, saturated), .def = "0.90", .min = 0, .max = 1,
		.help = "CPU load (0.90 = 90%) from which a core counts as saturated" },
	{ XKEY("every", T_DURATION, every_ms), .def = "1m", .min = CONF_SEC, .max = CONF_DAY,
		.help = "how often the detector re-evaluates its verdicts" },
	{ XKEY("min_mbps", T_DOUBLE, min_mbps), .def = "1", .min = 0, .max = 1000000,
		.help = "WireGuard traffic (Mbit/s) below which a window is too quiet to judge" },
	{ WKEY("user", T_STR, web_user), .help = "user name for the web interface" },
	{ WKEY("password_file", T_SECRET_FILE, web_password), .help = "file holding the web password" },
	{ WKEY("cert", T_FILE, web_cert), .help = "TLS certificate (PEM) for the web interface" },
	{ WKEY("key", T_FILE, web_key), .help = "TLS private key (PEM) for the web interface" },
	{ AKEY("alertmanager", T_URL, alert_url),
		.help = "Alertmanager to push verdicts to (v2 API), e.g. http://127.0.0.1:9093; unset: off" },
	{ AKEY("resend", T_DURATION, alert_resend_ms), .def = "1m", .min = CONF_SEC, .max = CONF_HOUR,
		.help = "how often firing alerts are sent again to Alertmanager" },
	{ AKEY("timeout", T_DURATION, alert_timeout_ms), .def = "5s", .min = 100, .max = CONF_MIN,
		.help = "how long one push to Alertmanager may take" },
	{ RKEY("rest", T_URL, rest), .help = "REST base URL, e.g. https://192.0.2.1" },
	{ RKEY("user", T_STR, user), .help = "RouterOS user for REST" },
	{ RKEY("password", T_SECRET, password), .help = "RouterOS password for REST" },
	{ RKEY("password_file", T_SECRET_FILE, password), .help = "file holding the REST password" },
	{ RKEY("tls_verify", T_BOOL, tls_verify), .def = "yes", .help = "verify the router's certificate" },
	{ RKEY("ca_file", T_FILE, ca_file), .help = "CA bundle (PEM) to verify the router with" },
	{ RKEY("snmp", T_HOSTPORT, snmp), .help = "SNMP agent, host[:port]" },
	{ RKEY("snmp_version", T_SNMPVER, snmp_version), .def = "2c", .help = "SNMP version: 1, 2c or 3" },
	{ RKEY("snmp_community", T_SECRET, snmp_community), .def = "public",
		.help = "SNMP v1/v2c community" },
	{ RKEY("snmp_community_file", T_SECRET_FILE, snmp_community),
		.help = "file holding the SNMP community" },
	{ RKEY("snmp_user", T_STR, snmp_user), .help = "SNMPv3 USM user" },
	{ RKEY("snmp_security_level", T_ENUM, snmp_security_level),
		.choices = "noAuthNoPriv|authNoPriv|authPriv",
		.help = "SNMPv3 level; default from the passwords given" },
	{ RKEY("snmp_auth_protocol", T_ENUM, snmp_auth_protocol),
		.choices = "MD5|SHA|SHA-224|SHA-256|SHA-384|SHA-512", .def = "SHA",
		.help = "SNMPv3 authentication protocol" },
	{ RKEY("snmp_auth_password", T_SECRET, snmp_auth_password),
		.help = "SNMPv3 authentication password" },
	{ RKEY("snmp_auth_password_file", T_SECRET_FILE, snmp_auth_password),
		.help = "file holding the SNMPv3 authentication password" },
	{ RKEY("snmp_priv_protocol", T_ENUM, snmp_priv_protocol), .choices = "DES|AES|AES-192|AES-256",
		.def = "AES", .help = "SNMPv3 privacy protocol" },
	{ RKEY("snmp_priv_password", T_SECRET, snmp_priv_password), .help = "SNMPv3 privacy password" },
	{ RKEY("snmp_priv_password_file", T_SECRET_FILE, snmp_priv_password),
		.help = "file holding the SNMPv3 privacy password" },
	{ RKEY("snmp_retries", T_INT, snmp_retries), .def = "1", .min = 0, .max = 10,
		.help = "SNMP requests resent after a timeout before the poll fails" },
	{ RKEY("labels", T_LABELS, labels), .noff = offsetof(conf_router_t, nlabels),
		.help = "extra Prometheus labels, name=value,name=value" },
	{ RKEY("interfaces", T_LIST, interfaces), .noff = offsetof(conf_router_t, ninterfaces),
		.help = "interfaces to watch besides those of type wg, a,b,c" },
	{ RKEY("interval", T_DURATION, interval_ms), .min = 100, .max = CONF_DAY,
		.help = "poll interval; default [daemon] interval" },
	{ RKEY("timeout", T_DURATION, timeout_ms), .min = 100, .max = 10 * CONF_MIN,
		.help = "poll timeout; default [daemon] timeout" },
};

#define NKEYS (sizeof(conf_keys) / sizeof(conf_keys[0]))

static const char *const conf_builtin_labels[] = {
	"router",
	"core",
	"interface",
	"type",
	"peer",
	"board",
	"architecture",
	"version",
	"firmware",
	"kind",
	"le",
};

struct conf_src { /* where a key was set; line 0: not set */
	uint32_t file;
	int line;
};

struct conf_rsec { /* a [router NAME], or [defaults], while loading */
	conf_router_t r;
	struct conf_src at[NKEYS];
	struct conf_src where; /* the section line */
	bool dup;              /* a second section of an existing name: checked, then dropped */
};

struct conf_error {
	uint32_t file; /* UINT32_MAX: the main file could not be read */
	int line;
	size_t seq; /* keeps the order of messages on one line */
	char *msg;  /* "FILE:LINE: message" */
};

struct conf_loader {
	conf_t *c;
	struct conf_error *errs; /* sorted by file and line at the end */
	size_t nerrs;
	char **files; /* every file read, for messages */
	size_t nfiles;
	char *stack[CONF_MAX_DEPTH]; /* real paths of the files being read, for include loops */
	int depth;
	struct conf_src at[NKEYS]; /* [daemon], [detector], [web] keys */
	struct conf_rsec defaults;
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
	int err; /* errno of a failed read */
};

static void conf_file_read(struct conf_loader *ld, const char *path, struct conf_file *from);

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
		.msg = fidx == UINT32_MAX ? msg : xasprintf("%s:%d: %s", ld->files[fidx], line, msg) };
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

static void conf_err(struct conf_loader *ld, struct conf_src at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void conf_err(struct conf_loader *ld, struct conf_src at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	conf_verr(ld, at.file, at.line, fmt, ap);
	va_end(ap);
}

static void conf_ferr(struct conf_file *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void conf_ferr(struct conf_file *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	conf_verr(f->ld, f->fidx, f->line, fmt, ap);
	va_end(ap);
}

/* ---- durations, sizes, small parsers ---- */

static const struct {
	const char *unit;
	int64_t ms;
} conf_units[] = {
	{ "w", 604800000 },
	{ "d", 86400000 },
	{ "h", 3600000 },
	{ "m", 60000 },
	{ "s", 1000 },
	{ "ms", 1 },
};

static int64_t conf_unit(const char *u, size_t n)
{
	for (size_t i = 0; i < sizeof(conf_units) / sizeof(conf_units[0]); i++)
		if (strlen(conf_units[i].unit) == n && memcmp(conf_units[i].unit, u, n) == 0)
			return conf_units[i].ms;
	return 0;
}

static int conf_duration(const char *s, int64_t *ms, const char **cause)
{
	int64_t total = 0;
	do {
		char *end = (char *)s;
		errno = 0;
		long long n = isdigit((unsigned char)*s) ? strtoll(s, &end, 10) : 0;
		size_t ulen = strspn(end, "abcdefghijklmnopqrstuvwxyz");
		int64_t unit = end == s ? 0 : conf_unit(end, ulen);
		if (unit == 0) {
			*cause = end != s && *end == '\0'
				? "needs a unit: ms, s, m, h, d or w (e.g. 30s, 1h30m)"
				: "is not a duration: use a number with a unit, e.g. 250ms, 30s, 5m, 2h, 7d, 1w or 1h30m";
			return -1;
		}
		if (errno != 0 || n > (INT64_MAX - total) / unit) {
			*cause = "is too large";
			return -1;
		}
		total += n * unit;
		s = end + ulen;
	} while (*s != '\0');
	*ms = total;
	return 0;
}

int conf_parse_duration(const char *s, int64_t *ms)
{
	const char *cause;
	return s == NULL ? -1 : conf_duration(s, ms, &cause);
}

/* "1d", "1h30m", "250ms": the largest units first, weeks left as days. */
static void conf_fmt_duration(buf_t *b, int64_t ms)
{
	if (ms == 0) {
		buf_puts(b, "0s");
		return;
	}
	for (size_t i = 1; i < sizeof(conf_units) / sizeof(conf_units[0]); i++) {
		if (ms >= conf_units[i].ms) {
			buf_printf(b, "%lld%s", (long long)(ms / conf_units[i].ms), conf_units[i].unit);
			ms %= conf_units[i].ms;
		}
	}
}

static const struct {
	const char *suffix;
	size_t mult;
} conf_sizes[] = {
	{ "", 1 },
	{ "k", 1024 },
	{ "K", 1024 },
	{ "KiB", 1024 },
	{ "M", 1024 * 1024 },
	{ "MiB", 1024 * 1024 },
	{ "G", 1024 * 1024 * 1024 },
	{ "GiB", 1024 * 1024 * 1024 },
};

static int conf_size(const char *s, double *out)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	errno = 0;
	unsigned long long n = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	for (size_t i = 0; i < sizeof(conf_sizes) / sizeof(conf_sizes[0]); i++) {
		if (strcmp(end, conf_sizes[i].suffix) == 0) {
			*out = (double)n * (double)conf_sizes[i].mult;
			return 0;
		}
	}
	return -1;
}

static bool conf_label_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool conf_router_name_ok(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("_.-", *s)))
			return false;
	return true;
}

static char *conf_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

static char *conf_join(const char *dir, const char *rel)
{
	return rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", dir, rel);
}

/* The directory of path, made absolute; NULL if it does not exist. */
static char *conf_dirname(const char *path)
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

static int conf_secret_read(int fd, const char *path, char **out, char **cause)
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

/* The content of a secret file without its trailing newline; the file must be private. */
static int conf_secret_file(const char *path, char **out, char **cause)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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
		rc = conf_secret_read(fd, path, out, cause);
	close(fd);
	return rc;
}

/* ---- typed values ---- */

static bool conf_type_secret(enum conf_type t)
{
	return t == T_SECRET || t == T_SECRET_FILE;
}

static void conf_str_zero_free(char *s, bool secret)
{
	if (s != NULL && secret)
		explicit_bzero(s, strlen(s));
	free(s);
}

static void conf_set_str(const struct conf_key *k, void *field, char *v)
{
	char **p = field;
	conf_str_zero_free(*p, conf_type_secret(k->type));
	*p = v;
}

static int conf_v_url(const struct conf_key *k, const char *v, void *field, char **cause)
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
	conf_set_str(k, field, xstrndup(v, n));
	return 0;
}

static bool conf_port_ok(const char *p)
{
	char *end;
	if (!isdigit((unsigned char)*p))
		return false;
	long n = strtol(p, &end, 10);
	return *end == '\0' && n >= 1 && n <= 65535;
}

/* host:port, [v6]:port, host, [v6], or a bare IPv6 address when the port is optional. */
static int conf_v_hostport(const struct conf_key *k, const char *v, void *field, char **cause)
{
	bool need_port = k->type == T_LISTEN;
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
	if (strpbrk(v, " \t") != NULL || (port == NULL && need_port) ||
		(port != NULL && !conf_port_ok(port)) || v[0] == '\0' || v[0] == ':') {
		*cause = xstrdup(need_port ? "must be host:port with a port from 1 to 65535"
					   : "must be host or host:port with a port from 1 to 65535");
		return -1;
	}
	conf_set_str(k, field, xstrdup(v));
	return 0;
}

static int conf_v_enum(const struct conf_key *k, const char *v, void *field, char **cause)
{
	const char *c = k->choices;
	size_t n = strlen(v);
	while (*c != '\0') {
		size_t len = strcspn(c, "|");
		if (len == n && strncasecmp(c, v, n) == 0) {
			conf_set_str(k, field, xstrndup(c, len));
			return 0;
		}
		c += len + (c[len] == '|');
	}
	*cause = xasprintf("must be one of %s", k->choices);
	return -1;
}

static int conf_v_bool(const char *v, void *field, char **cause)
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

static int conf_v_snmpver(const char *v, void *field, char **cause)
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

static void conf_fmt_size(buf_t *b, size_t n)
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

static char *conf_range_text(const struct conf_key *k)
{
	buf_t b;
	buf_init(&b);
	if (k->type == T_DURATION) {
		conf_fmt_duration(&b, (int64_t)k->min);
		buf_puts(&b, " to ");
		conf_fmt_duration(&b, (int64_t)k->max);
	} else if (k->type == T_SIZE) {
		conf_fmt_size(&b, (size_t)k->min);
		buf_puts(&b, " to ");
		conf_fmt_size(&b, (size_t)k->max);
	} else {
		buf_printf(&b, "%.15g to %.15g", k->min, k->max);
	}
	return buf_steal(&b, NULL);
}

static int conf_range(const struct conf_key *k, double x, char **cause)
{
	if ((k->min == 0 && k->max == 0) || (x >= k->min && x <= k->max))
		return 0;
	char *r = conf_range_text(k);
	*cause = xasprintf("is out of range (allowed %s)", r);
	free(r);
	return -1;
}

/* The number in v as a double (ms for durations), or why it is not one. */
static const char *conf_number(const struct conf_key *k, const char *v, double *x)
{
	const char *why = NULL;
	char *end = NULL;
	int64_t ms;
	switch (k->type) {
	case T_DURATION:
		if (conf_duration(v, &ms, &why) == 0)
			*x = (double)ms;
		return why;
	case T_SIZE:
		if (conf_size(v, x) < 0)
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

static int conf_v_number(const struct conf_key *k, const char *v, void *field, char **cause)
{
	double x = 0;
	const char *why = conf_number(k, v, &x);
	if (why != NULL) {
		*cause = xstrdup(why);
		return -1;
	}
	if (conf_range(k, x, cause) < 0)
		return -1;
	if (k->type == T_DURATION)
		*(int64_t *)field = (int64_t)x;
	else if (k->type == T_SIZE)
		*(size_t *)field = (size_t)x;
	else if (k->type == T_INT)
		*(int *)field = (int)x;
	else
		*(double *)field = x;
	return 0;
}

static bool conf_label_builtin(const char *name)
{
	for (size_t i = 0; i < sizeof(conf_builtin_labels) / sizeof(conf_builtin_labels[0]); i++)
		if (strcmp(conf_builtin_labels[i], name) == 0)
			return true;
	return false;
}

static void conf_labels_free(struct conf_label *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].key);
		free(l[i].value);
	}
	free(l);
}

static char *conf_label_check(const struct conf_label *l, size_t n, const char *name)
{
	if (!conf_label_name_ok(name) || strncmp(name, "__", 2) == 0)
		return xasprintf("label name '%s' is not valid: use [a-zA-Z_][a-zA-Z0-9_]*, "
				 "not starting with __",
			name);
	if (conf_label_builtin(name))
		return xasprintf("label name '%s' is built in (router, core, interface, type, peer, board, "
				 "architecture, version, firmware, kind, le): choose another",
			name);
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i].key, name) == 0)
			return xasprintf("label '%s' is given twice", name);
	return NULL;
}

/* name=value,name=value; an empty list clears the labels. */
static int conf_v_labels(const char *v, struct conf_label **out, size_t *nout, char **cause)
{
	char *copy = xstrdup(v), *save = copy, *item;
	struct conf_label *l = NULL;
	size_t n = 0;
	while ((item = strsep(&save, ",")) != NULL && *cause == NULL) {
		char *eq = strchr(item, '=');
		if (eq == NULL) {
			if (*(item = conf_trim(item)) != '\0')
				*cause = xasprintf("'%s' is not name=value", item);
			continue;
		}
		*eq = '\0';
		char *name = conf_trim(item), *value = conf_trim(eq + 1);
		if ((*cause = conf_label_check(l, n, name)) != NULL)
			continue;
		l = xreallocarray(l, n + 1, sizeof(*l));
		l[n++] = (struct conf_label){ .key = xstrdup(name), .value = xstrdup(value) };
	}
	free(copy);
	if (*cause != NULL) {
		conf_labels_free(l, n);
		return -1;
	}
	*out = l;
	*nout = n;
	return 0;
}

static void conf_list_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* a,b,c with blanks around items dropped; empty items are skipped. */
static void conf_v_list(const char *v, char ***out, size_t *nout)
{
	char *copy = xstrdup(v), *save = copy, *item;
	char **l = NULL;
	size_t n = 0;
	while ((item = strsep(&save, ",")) != NULL) {
		item = conf_trim(item);
		if (*item == '\0')
			continue;
		l = xreallocarray(l, n + 1, sizeof(*l));
		l[n++] = xstrdup(item);
	}
	free(copy);
	*out = l;
	*nout = n;
}

static int conf_v_path(const struct conf_key *k, const char *v, const char *dir, void *field, char **cause)
{
	if (*v == '\0') {
		*cause = xstrdup("is empty: want a path");
		return -1;
	}
	char *path = conf_join(dir, v);
	if (k->type == T_FILE && access(path, R_OK) < 0) {
		*cause = xasprintf("cannot read %s: %s", path, strerror(errno));
		free(path);
		return -1;
	}
	conf_set_str(k, field, path);
	return 0;
}

static int conf_v_secret_file(
	const struct conf_key *k, const char *v, const char *dir, void *field, char **cause)
{
	char *path = conf_join(dir, v), *secret = NULL;
	int rc = conf_secret_file(path, &secret, cause);
	free(path);
	if (rc == 0)
		conf_set_str(k, field, secret);
	return rc;
}

/* Parse v for key k into its field of base (a conf_t or conf_router_t). Fills *cause (which
 * must be NULL on entry) without the value on failure. */
static int conf_v_shard(const char *v, void *field, char **cause)
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

static int conf_value(const struct conf_key *k, const char *v, void *base, const char *dir, char **cause)
{
	void *field = (char *)base + k->off;
	switch (k->type) {
	case T_STR:
		if (*v == '\0') {
			*cause = xstrdup("is empty");
			return -1;
		}
		/* fall through */
	case T_SECRET: conf_set_str(k, field, xstrdup(v)); return 0;
	case T_SECRET_FILE: return conf_v_secret_file(k, v, dir, field, cause);
	case T_PATH:
	case T_FILE: return conf_v_path(k, v, dir, field, cause);
	case T_URL: return conf_v_url(k, v, field, cause);
	case T_LISTEN:
	case T_HOSTPORT: return conf_v_hostport(k, v, field, cause);
	case T_ENUM: return conf_v_enum(k, v, field, cause);
	case T_BOOL: return conf_v_bool(v, field, cause);
	case T_SNMPVER: return conf_v_snmpver(v, field, cause);
	case T_SHARD: return conf_v_shard(v, field, cause);
	case T_DURATION:
	case T_INT:
	case T_DOUBLE:
	case T_SIZE: return conf_v_number(k, v, field, cause);
	case T_LABELS: {
		struct conf_label **l = field;
		size_t *n = (size_t *)((char *)base + k->noff);
		struct conf_label *nl;
		size_t nn;
		if (conf_v_labels(v, &nl, &nn, cause) < 0)
			return -1;
		conf_labels_free(*l, *n);
		*l = nl;
		*n = nn;
		return 0;
	}
	case T_LIST:
		conf_list_free(*(char ***)field, *(size_t *)((char *)base + k->noff));
		conf_v_list(v, field, (size_t *)((char *)base + k->noff));
		return 0;
	}
	return -1;
}

/* ---- routers by name ---- */

static uint32_t conf_hash_name(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of name in ld->hash: either its router or an empty slot to put it in. */
static uint32_t *conf_hash_slot(struct conf_loader *ld, const char *name)
{
	size_t mask = ld->nhash - 1;
	for (size_t i = conf_hash_name(name) & mask;; i = (i + 1) & mask) {
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

static struct conf_rsec *conf_router_add(struct conf_file *f, const char *name)
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

/* ---- sections and keys ---- */

static void conf_section(struct conf_file *f, char *name)
{
	static const struct {
		const char *name;
		enum conf_sect sect;
	} plain[] = {
		{ "daemon", SECT_DAEMON },
		{ "detector", SECT_DETECTOR },
		{ "web", SECT_WEB },
		{ "alert", SECT_ALERT },
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
		conf_ferr(f, "unknown section [%s] (known: daemon, detector, web, defaults, router NAME)",
			name);
		return;
	}
	char *rname = conf_trim(name + 6);
	if (*rname == '\0') {
		conf_ferr(f, "[router] needs a name: [router NAME]");
		return;
	}
	if (!conf_router_name_ok(rname)) {
		conf_ferr(
			f, "[router %s]: a router name holds only letters, digits, '_', '.' and '-'", rname);
		return;
	}
	f->sect = SECT_ROUTER;
	f->rs = conf_router_add(f, rname);
}

static const char *conf_sect_name(enum conf_sect s)
{
	return s == SECT_DAEMON      ? "daemon"
		: s == SECT_DETECTOR ? "detector"
		: s == SECT_WEB      ? "web"
		: s == SECT_ALERT    ? "alert"
				     : "router NAME";
}

static const struct conf_key *conf_key_find(enum conf_sect sect, const char *name)
{
	if (sect == SECT_DEFAULTS)
		sect = SECT_ROUTER;
	for (size_t i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect == sect && strcmp(conf_keys[i].name, name) == 0)
			return &conf_keys[i];
	return NULL;
}

/* A key sharing k's field (password and password_file) already set in this section. */
static const struct conf_key *conf_key_clash(const struct conf_key *k, const struct conf_src *at)
{
	for (size_t j = 0; j < NKEYS; j++)
		if (conf_keys[j].sect == k->sect && conf_keys[j].off == k->off && at[j].line != 0)
			return &conf_keys[j];
	return NULL;
}

static void conf_set(struct conf_file *f, const struct conf_key *k, const char *value)
{
	struct conf_loader *ld = f->ld;
	struct conf_src *at = f->rs ? f->rs->at : ld->at;
	void *base = f->rs ? (void *)&f->rs->r : (void *)ld->c;
	const struct conf_key *other = conf_key_clash(k, at);
	if (other != NULL) {
		struct conf_src o = at[other - conf_keys];
		if (other == k)
			conf_ferr(f, "%s is set twice (first at %s:%d)", k->name, ld->files[o.file], o.line);
		else
			conf_ferr(f, "%s and %s are both set (%s at %s:%d): keep one", k->name, other->name,
				other->name, ld->files[o.file], o.line);
		return;
	}
	at[k - conf_keys] = (struct conf_src){ .file = f->fidx, .line = f->line };
	char *cause = NULL;
	if (conf_value(k, value, base, f->dir, &cause) == 0)
		return;
	if (k->type == T_SECRET || (k->type == T_URL && strchr(value, '@') != NULL))
		conf_ferr(f, "%s: %s", k->name, cause);
	else
		conf_ferr(f, "%s = %s: %s", k->name, value, cause);
	free(cause);
}

/* ---- includes ---- */

static bool conf_has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* dir/pattern with glob characters in dir escaped. */
static char *conf_glob_pattern(const char *dir, const char *pattern)
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

static void conf_include(struct conf_file *f, const char *pattern)
{
	if (*pattern == '\0') {
		conf_ferr(f, "include: empty pattern");
		return;
	}
	char *full = conf_glob_pattern(f->dir, pattern);
	glob_t g;
	int rc = glob(full, GLOB_MARK, NULL, &g);
	if (rc == GLOB_NOMATCH && !conf_has_glob(pattern)) {
		char *path = conf_join(f->dir, pattern);
		conf_ferr(f, "include = %s: cannot read %s: %s", pattern, path, strerror(ENOENT));
		free(path);
	} else if (rc != 0 && rc != GLOB_NOMATCH) {
		conf_ferr(f, "include = %s: cannot list the matching files", pattern);
	}
	for (size_t i = 0; rc == 0 && i < g.gl_pathc; i++) {
		size_t n = strlen(g.gl_pathv[i]);
		if (n > 0 && g.gl_pathv[i][n - 1] != '/') /* GLOB_MARK: directories end in '/' */
			conf_file_read(f->ld, g.gl_pathv[i], f);
	}
	if (rc == 0)
		globfree(&g);
	free(full);
}

static int conf_handler(void *user, const char *section, const char *name, const char *value)
{
	struct conf_file *f = user;
	(void)section; /* the reader tracks sections itself, including empty ones */
	if (strcmp(name, "include") == 0) {
		conf_include(f, value);
		return 1;
	}
	if (f->sect == SECT_BAD)
		return 1; /* the section was reported already */
	if (f->sect == SECT_NONE) {
		conf_ferr(f, "%s is outside any section: put it under [daemon], [defaults], [router NAME]...",
			name);
		return 1;
	}
	const struct conf_key *k = conf_key_find(f->sect, name);
	if (k == NULL) {
		conf_ferr(f, "unknown key %s in [%s]", name,
			f->sect == SECT_DEFAULTS         ? "defaults"
				: f->sect == SECT_ROUTER ? "router"
							 : conf_sect_name(f->sect));
		return 1;
	}
	conf_set(f, k, value);
	return 1;
}

/* ---- the line reader ---- */

/* A "[name]" line: enter the section, or report it. Returns false if inih must not see it. */
static bool conf_reader_section(struct conf_file *f, char *s)
{
	char *rb = strchr(s, ']');
	if (rb == NULL || (*conf_trim(rb + 1) != '\0' && !strchr(";#", *conf_trim(rb + 1)))) {
		conf_ferr(f, "bad section line: want [name]");
		f->sect = SECT_BAD;
		f->rs = NULL;
		return false;
	}
	char *name = xstrndup(s + 1, (size_t)(rb - s - 1));
	conf_section(f, conf_trim(name));
	free(name);
	return true;
}

/* Name the key of an over-long line, but never its value: it may be a secret. */
static void conf_too_long(struct conf_file *f, const char *s, size_t len, int max)
{
	size_t klen = strcspn(s, "=:");
	bool has_key = s[klen] != '\0';
	while (klen > 0 && isspace((unsigned char)s[klen - 1]))
		klen--;
	if (has_key && klen > 0 && klen < 40)
		conf_ferr(f, "%.*s: line is too long (%zu characters, at most %d)", (int)klen, s, len, max);
	else
		conf_ferr(f, "line is too long (%zu characters, at most %d)", len, max);
}

/* inih's reader: hands over one whole line at a time, so that f->line is the line of every
 * handler call, and keeps from inih what it would misread: lines too long for its fixed
 * buffer (it would cut them), malformed lines, and leading blanks (its continuation lines). */
static char *conf_reader(char *str, int num, void *stream)
{
	struct conf_file *f = stream;
	ssize_t n = getline(&f->lbuf, &f->lcap, f->fp);
	if (n < 0) {
		f->err = ferror(f->fp) ? errno : 0;
		return NULL;
	}
	f->line++;
	char *s = f->lbuf;
	if (f->line == 1 && strncmp(s, "\xef\xbb\xbf", 3) == 0)
		s += 3;
	s = conf_trim(s);
	size_t len = strlen(s);
	if (len + 2 > (size_t)num) {
		conf_too_long(f, s, len, num - 2);
		s = (char *)"";
	} else if (*s == '[') {
		if (!conf_reader_section(f, s))
			s = (char *)"";
	} else if (*s != '\0' && !strchr(";#", *s) && (strcspn(s, "=:") == 0 || !strpbrk(s, "=:"))) {
		conf_ferr(f, "expected key = value");
		s = (char *)"";
	}
	snprintf(str, (size_t)num, "%s\n", s);
	return str;
}

static uint32_t conf_add_file(struct conf_loader *ld, const char *path)
{
	ld->files = xreallocarray(ld->files, ld->nfiles + 1, sizeof(*ld->files));
	ld->files[ld->nfiles] = xstrdup(path);
	return (uint32_t)ld->nfiles++;
}

/* inih copies each line into a buffer on its stack; once it returned, overwrite that area. */
static void __attribute__((noinline)) conf_scrub_stack(void)
{
	char pad[4 * 1024];
	explicit_bzero(pad, sizeof(pad));
	__asm__ volatile("" : : "r"(pad) : "memory");
}

/* Parse the open file fp, the innermost of ld->stack, starting in the section of from. */
static void conf_file_parse(struct conf_loader *ld, FILE *fp, const char *path, struct conf_file *from)
{
	struct conf_file f = {
		.ld = ld,
		.fp = fp,
		.fidx = conf_add_file(ld, path),
		.dir = conf_dirname(ld->stack[ld->depth - 1]),
		.sect = from ? from->sect : SECT_NONE,
		.rs = from ? from->rs : NULL,
	};
	f.lcap = CONF_LINE_CAP; /* one buffer, so no realloc leaves a copy of a line behind */
	f.lbuf = xmalloc(f.lcap);
	int rc = ini_parse_stream(conf_reader, &f, conf_handler, &f);
	conf_scrub_stack();
	if (f.err != 0)
		conf_ferr(&f, "cannot read %s: %s", path, strerror(f.err));
	else if (rc != 0) /* the reader leaves inih nothing to complain about: keep it honest */
		conf_err(ld, (struct conf_src){ .file = f.fidx, .line = rc > 0 ? rc : f.line },
			"cannot parse this line");
	if (f.lbuf != NULL)
		explicit_bzero(f.lbuf, f.lcap); /* it held secret lines */
	free(f.lbuf);
	free(f.dir);
}

/* Read path (included from f, or the main file when f is NULL) with the section of f. */
/* Whether the file real may be read now: not being read already, not nested too deep. */
static bool conf_file_allowed(
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

static void conf_file_read(struct conf_loader *ld, const char *path, struct conf_file *from)
{
	char *real = realpath(path, NULL);
	FILE *fp = real ? fopen(real, "r") : NULL;
	if (fp == NULL && from != NULL)
		conf_ferr(from, "cannot read %s: %s", path, strerror(errno));
	else if (fp == NULL)
		conf_err(ld, (struct conf_src){ .file = UINT32_MAX }, "%s: cannot read: %s", path,
			strerror(errno));
	if (fp != NULL && !conf_file_allowed(ld, real, path, from)) {
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
	conf_file_parse(ld, fp, path, from);
	free(ld->stack[--ld->depth]);
	fclose(fp);
	explicit_bzero(iobuf, CONF_IOBUF);
	free(iobuf);
}

/* ---- fields: copy and free, by type ---- */

static size_t conf_scalar_size(enum conf_type t)
{
	switch (t) {
	case T_BOOL: return sizeof(bool);
	case T_INT:
	case T_SNMPVER: return sizeof(int);
	case T_DURATION: return sizeof(int64_t);
	case T_DOUBLE: return sizeof(double);
	case T_SIZE: return sizeof(size_t);
	case T_SHARD: return sizeof(struct conf_shard);
	default: return 0;
	}
}

static void conf_field_free(const struct conf_key *k, void *base)
{
	void *field = (char *)base + k->off;
	size_t *n = (size_t *)((char *)base + k->noff);
	if (k->type == T_LABELS) {
		conf_labels_free(*(struct conf_label **)field, *n);
		*(struct conf_label **)field = NULL;
		*n = 0;
	} else if (k->type == T_LIST) {
		conf_list_free(*(char ***)field, *n);
		*(char ***)field = NULL;
		*n = 0;
	} else if (conf_scalar_size(k->type) == 0) {
		conf_str_zero_free(*(char **)field, conf_type_secret(k->type));
		*(char **)field = NULL;
	}
}

static void conf_field_copy(const struct conf_key *k, void *dst, const void *src)
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
	} else if (conf_scalar_size(k->type) != 0) {
		memcpy(to, from, conf_scalar_size(k->type));
	} else {
		*(char **)to = xstrdup(*(char *const *)from);
	}
}

static void conf_router_fields_free(conf_router_t *r)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect == SECT_ROUTER)
			conf_field_free(&conf_keys[i], r);
	free(r->name);
	free(r->file);
}

/* ---- after the last file: defaults and rules across keys ---- */

static void conf_default(const struct conf_key *k, void *base, const char *dir)
{
	char *cause = NULL;
	int rc = conf_value(k, k->def, base, dir, &cause);
	assert(rc == 0 && "a default in conf_keys[] does not parse");
	(void)rc;
	free(cause);
}

static void conf_global_defaults(struct conf_loader *ld, const char *dir)
{
	for (size_t i = 0; i < NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];
		if (k->sect != SECT_ROUTER && k->def != NULL && conf_key_clash(k, ld->at) == NULL)
			conf_default(k, ld->c, dir);
	}
}

/* Keys the router does not set come from [defaults], else from the table, else [daemon]. */
static void conf_router_defaults(struct conf_loader *ld, struct conf_rsec *rs)
{
	const struct conf_rsec *d = &ld->defaults;
	for (size_t i = 0; i < NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];
		if (k->sect != SECT_ROUTER || conf_key_clash(k, rs->at) != NULL)
			continue;
		const struct conf_key *dk = conf_key_clash(k, d->at);
		if (dk == k)
			conf_field_copy(k, &rs->r, &d->r);
		else if (dk == NULL && k->def != NULL)
			conf_default(k, &rs->r, "/");
	}
	if (rs->r.interval_ms == 0)
		rs->r.interval_ms = ld->c->interval_ms;
	if (rs->r.timeout_ms == 0)
		rs->r.timeout_ms = ld->c->timeout_ms;
}

/* Whether the router or [defaults] sets key (or its _file twin), even to a value refused. */
static bool conf_router_has(const struct conf_loader *ld, const struct conf_rsec *rs, const char *key)
{
	const struct conf_key *k = conf_key_find(SECT_ROUTER, key);
	return conf_key_clash(k, rs->at) != NULL || conf_key_clash(k, ld->defaults.at) != NULL;
}

static void conf_router_v3(struct conf_loader *ld, struct conf_rsec *rs)
{
	conf_router_t *r = &rs->r;
	if (r->snmp_user == NULL)
		conf_err(ld, rs->where, "router %s: snmp_version = 3 needs snmp_user", r->name);
	bool has_auth = conf_router_has(ld, rs, "snmp_auth_password");
	bool has_priv = conf_router_has(ld, rs, "snmp_priv_password");
	if (r->snmp_security_level == NULL)
		r->snmp_security_level = xstrdup(!has_auth ? "noAuthNoPriv"
				: !has_priv                ? "authNoPriv"
							   : "authPriv");
	bool auth = strcmp(r->snmp_security_level, "noAuthNoPriv") != 0;
	bool priv = strcmp(r->snmp_security_level, "authPriv") == 0;
	if (auth && !has_auth)
		conf_err(ld, rs->where,
			"router %s: snmp_security_level = %s needs snmp_auth_password "
			"or snmp_auth_password_file",
			r->name, r->snmp_security_level);
	if (priv && !has_priv)
		conf_err(ld, rs->where,
			"router %s: snmp_security_level = %s needs snmp_priv_password "
			"or snmp_priv_password_file",
			r->name, r->snmp_security_level);
}

static void conf_router_check(struct conf_loader *ld, struct conf_rsec *rs)
{
	conf_router_t *r = &rs->r;
	if (!conf_router_has(ld, rs, "rest") && !conf_router_has(ld, rs, "snmp"))
		conf_err(ld, rs->where, "router %s has neither rest nor snmp: set at least one", r->name);
	if (r->snmp != NULL && r->snmp_version == 3)
		conf_router_v3(ld, rs);
}

/* [web]: user and password_file, cert and key, each pair both or neither. */
static void conf_web_pair(struct conf_loader *ld, const char *a, const char *b)
{
	struct conf_src sa = ld->at[conf_key_find(SECT_WEB, a) - conf_keys];
	struct conf_src sb = ld->at[conf_key_find(SECT_WEB, b) - conf_keys];
	if ((sa.line != 0) != (sb.line != 0))
		conf_err(ld, sa.line != 0 ? sa : sb, "[web] %s needs %s: set both or neither",
			sa.line != 0 ? a : b, sa.line != 0 ? b : a);
}

static void conf_web_check(struct conf_loader *ld)
{
	conf_web_pair(ld, "user", "password_file");
	conf_web_pair(ld, "cert", "key");
}

static void conf_finish(struct conf_loader *ld)
{
	conf_t *c = ld->c;
	conf_web_check(ld);
	char *dir = conf_dirname(c->path);
	conf_global_defaults(ld, dir ? dir : ".");
	free(dir);
	c->routers = xcalloc(ld->nrs, sizeof(*c->routers));
	for (size_t i = 0; i < ld->nrs; i++) {
		struct conf_rsec *rs = ld->rs[i];
		if (rs->dup) {
			conf_router_fields_free(&rs->r);
		} else {
			conf_router_defaults(ld, rs);
			conf_router_check(ld, rs);
			c->routers[c->nrouters++] = rs->r;
		}
		free(rs);
	}
	free(ld->rs);
	ld->rs = NULL;
	ld->nrs = 0;
}

/* ---- the interface ---- */

int conf_load(const char *path, conf_t **out, char **errors)
{
	struct conf_loader ld = { .c = xcalloc(1, sizeof(conf_t)) };
	ld.c->path = xstrdup(path);
	conf_file_read(&ld, path, NULL);
	conf_finish(&ld);
	for (size_t i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect == SECT_ROUTER)
			conf_field_free(&conf_keys[i], &ld.defaults.r);
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
		conf_router_fields_free(&c->routers[i]);
	free(c->routers);
	for (size_t i = 0; i < NKEYS; i++)
		if (conf_keys[i].sect != SECT_ROUTER)
			conf_field_free(&conf_keys[i], c);
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

static const char *conf_type_name(const struct conf_key *k)
{
	static const char *const names[] = {
		[T_STR] = "text",
		[T_SECRET] = "secret text",
		[T_SECRET_FILE] = "path of a mode 0600 file",
		[T_PATH] = "path",
		[T_FILE] = "path of a readable file",
		[T_URL] = "http:// or https:// URL",
		[T_LISTEN] = "host:port",
		[T_HOSTPORT] = "host[:port]",
		[T_BOOL] = "yes|no",
		[T_DURATION] = "duration",
		[T_INT] = "integer",
		[T_SNMPVER] = "1|2c|3",
		[T_DOUBLE] = "number",
		[T_SIZE] = "size",
		[T_LABELS] = "name=value,...",
		[T_LIST] = "name,...",
		[T_SHARD] = "K/N",
	};
	return k->type == T_ENUM ? k->choices : names[k->type];
}

char *conf_help(void)
{
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < NKEYS; i++) {
		const struct conf_key *k = &conf_keys[i];
		buf_printf(&b, "[%s] %s = %s  (%s", conf_sect_name(k->sect), k->name, k->def ? k->def : "",
			conf_type_name(k));
		if (k->min != 0 || k->max != 0) {
			char *r = conf_range_text(k);
			buf_printf(&b, ", %s", r);
			free(r);
		}
		buf_printf(&b, ") %s\n", k->help);
	}
	return buf_steal(&b, NULL);
}
