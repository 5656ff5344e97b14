/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_conf: libFuzzer harness for the config loader (daemon/conf.c). The input is written to
 * one file in a private directory under $TMPDIR (default /tmp) and loaded; includes may glob
 * that directory only (inputs whose include lines name a path are refused). Errors must all be
 * "FILE:LINE:" lines and never show a secret (the marker SECRET given only to secret keys). */
#undef NDEBUG
#include "config.h"
#include "daemon/conf.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[PATH_MAX];
static char fuzz_path[PATH_MAX + 32];

static void fuzz_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof(tmpl), "%s/wgwatch-fuzz-conf.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, fuzz_dir) == NULL) {
		perror("fuzz_conf: temp directory");
		exit(1);
	}
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/wgwatch.conf", fuzz_dir);
	atexit(fuzz_cleanup);
	return 0;
}

/* The key of an INI line as inih splits it: up to the first '=' or ':', blanks trimmed. */
static size_t fuzz_key(const char *line, size_t len, const char **key)
{
	while (len > 0 && isspace((unsigned char)*line))
		line++, len--;
	size_t n = 0;
	while (n < len && line[n] != '=' && line[n] != ':')
		n++;
	while (n > 0 && isspace((unsigned char)line[n - 1]))
		n--;
	*key = line;
	return n;
}

static bool fuzz_is(const char *key, size_t n, const char *name)
{
	return n == strlen(name) && memcmp(key, name, n) == 0;
}

static bool fuzz_secret_key(const char *key, size_t n)
{
	return fuzz_is(key, n, "password") || fuzz_is(key, n, "snmp_community") ||
		fuzz_is(key, n, "snmp_auth_password") || fuzz_is(key, n, "snmp_priv_password");
}

/* Line by line: false to refuse the input (an include naming a path outside the temp dir);
 * *marked is true when SECRET appears only as part of the values of secret keys. */
static bool fuzz_scan(const char *s, size_t size, bool *marked)
{
	bool only_secret = true, seen = false;
	for (const char *line = s, *end; line < s + size; line = end + 1) {
		end = memchr(line, '\n', (size_t)(s + size - line));
		if (end == NULL)
			end = s + size;
		size_t len = (size_t)(end - line);
		const char *key;
		size_t klen = fuzz_key(line, len, &key);
		if (memmem(line, len, "include", 7) != NULL &&
			(memchr(line, '/', len) != NULL || memchr(line, '~', len) != NULL))
			return false;
		if (memmem(line, len, "SECRET", 6) != NULL) {
			seen = true;
			if (!fuzz_secret_key(key, klen) || memmem(key, klen, "SECRET", 6) != NULL)
				only_secret = false;
		}
	}
	*marked = seen && only_secret;
	return true;
}

/* Every error line names a file of the temp dir and a line. */
static void fuzz_check_errors(const char *errors, bool marked)
{
	size_t dlen = strlen(fuzz_dir);
	for (const char *line = errors; *line;) {
		const char *nl = strchr(line, '\n');
		assert(nl != NULL);
		assert(strncmp(line, fuzz_dir, dlen) == 0 && line[dlen] == '/');
		line = nl + 1;
	}
	assert(!marked || strstr(errors, "SECRET") == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool marked;
	if (!fuzz_scan((const char *)data, size, &marked))
		return -1;
	FILE *fp = fopen(fuzz_path, "w");
	assert(fp != NULL);
	assert(fwrite(data, 1, size, fp) == size);
	assert(fclose(fp) == 0);
	conf_t *c = NULL;
	char *errors = NULL;
	if (conf_load(fuzz_path, &c, &errors) == 0) {
		assert(c != NULL && errors == NULL);
		for (size_t i = 0; i < c->nrouters; i++)
			assert(conf_router_find(c, c->routers[i].name) != NULL);
		conf_free(c);
	} else {
		assert(c == NULL && errors != NULL && errors[0] != '\0');
		fuzz_check_errors(errors, marked);
		free(errors);
	}
	return 0;
}
