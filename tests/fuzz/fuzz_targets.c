/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_targets: libFuzzer harness for the file_sd target files (daemon/confinv.c, the JSON and
 * YAML readers daemon/invjson.c and daemon/invyaml.c). The input is written as t.json and as
 * t.yml, each the one target file of a fixed configuration in a private directory under
 * $TMPDIR, and both are loaded (JSON is YAML too, so every seed feeds both readers). A load
 * ends in a configuration whose routers are each found by name, or in error lines that all
 * name a file of the directory and hold no control character (C0, DEL, bidirectional); the
 * [defaults] password never shows (unless the input itself holds it, as an echoed target). It
 * must never write outside its directory. */
#undef NDEBUG
#include "config.h"
#include "daemon/conf.h"
#include "lib/buf.h"
#include "lib/text.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[PATH_MAX];
/* per format: the configuration naming it, and the target file */
static char fuzz_conf[2][PATH_MAX + 32], fuzz_file[2][PATH_MAX + 32];

static void fuzz_cleanup(void)
{
	for (int i = 0; i < 2; i++) {
		unlink(fuzz_conf[i]);
		unlink(fuzz_file[i]);
	}
	rmdir(fuzz_dir);
}

static void fuzz_write(const char *path, const void *data, size_t size)
{
	FILE *fp = fopen(path, "w");
	assert(fp != NULL);
	assert(fwrite(data, 1, size, fp) == size);
	assert(fclose(fp) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	const char *tmp = getenv("TMPDIR");
	static const char *const ext[2] = { "json", "yml" };
	char tmpl[PATH_MAX];
	snprintf(tmpl, sizeof(tmpl), "%s/wgwatch-fuzz-targets.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, fuzz_dir) == NULL) {
		perror("fuzz_targets: temp directory");
		exit(1);
	}
	for (int i = 0; i < 2; i++) {
		char conf[128];
		int n = snprintf(conf, sizeof(conf),
			"[daemon]\ntargets = t.%s\n[defaults]\nuser = u\npassword = SECRET-PW\n", ext[i]);
		snprintf(fuzz_conf[i], sizeof(fuzz_conf[i]), "%s/wgwatch-%s.conf", fuzz_dir, ext[i]);
		snprintf(fuzz_file[i], sizeof(fuzz_file[i]), "%s/t.%s", fuzz_dir, ext[i]);
		fuzz_write(fuzz_conf[i], conf, (size_t)n);
	}
	atexit(fuzz_cleanup);
	return 0;
}

/* The input loaded as target file i: the oracles of the file's top comment. */
static void fuzz_load(int i, const uint8_t *data, size_t size)
{
	fuzz_write(fuzz_file[i], data, size);
	conf_t *c = NULL;
	char *errors = NULL;
	if (conf_load(fuzz_conf[i], &c, &errors) == 0) {
		assert(c != NULL && errors == NULL);
		for (size_t r = 0; r < c->nrouters; r++)
			assert(conf_router_find(c, c->routers[r].name) != NULL && c->routers[r].rest != NULL);
		conf_free(c);
		return;
	}
	assert(c == NULL && errors != NULL && errors[0] != '\0');
	/* the password only shows if it came from the configuration, not echoed from the input */
	assert(memmem(data, size, "SECRET-PW", 9) != NULL || strstr(errors, "SECRET-PW") == NULL);
	size_t dlen = strlen(fuzz_dir);
	buf_t b;
	buf_init(&b);
	for (char *line = errors; *line;) {
		char *nl = strchr(line, '\n');
		assert(nl != NULL && strncmp(line, fuzz_dir, dlen) == 0 && line[dlen] == '/');
		*nl = '\0'; /* each line as lib/text's one-line escaper leaves it: no control echoed */
		buf_reset(&b);
		text_put_oneline(&b, line);
		assert(b.len == (size_t)(nl - line));
		line = nl + 1;
	}
	buf_free(&b);
	free(errors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_load(0, data, size);
	fuzz_load(1, data, size);
	return 0;
}
