/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_targets: libFuzzer harness for the file_sd target files (daemon/confinv.c). The input is
 * written as the one target file of a fixed configuration in a private directory under $TMPDIR
 * and loaded. A load ends in a configuration whose routers are each found by name, or in error
 * lines that all name a file of the directory; the [defaults] password never shows (unless the
 * input itself holds it, as an echoed target). */
#undef NDEBUG
#include "config.h"
#include "daemon/conf.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[PATH_MAX];
static char fuzz_conf[PATH_MAX + 32], fuzz_json[PATH_MAX + 32];

static void fuzz_cleanup(void)
{
	unlink(fuzz_conf);
	unlink(fuzz_json);
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
	char tmpl[PATH_MAX];
	static const char conf[] = "[daemon]\ntargets = t.json\n[defaults]\nuser = u\npassword = SECRET-PW\n";
	snprintf(tmpl, sizeof(tmpl), "%s/wgwatch-fuzz-targets.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, fuzz_dir) == NULL) {
		perror("fuzz_targets: temp directory");
		exit(1);
	}
	snprintf(fuzz_conf, sizeof(fuzz_conf), "%s/wgwatch.conf", fuzz_dir);
	snprintf(fuzz_json, sizeof(fuzz_json), "%s/t.json", fuzz_dir);
	fuzz_write(fuzz_conf, conf, sizeof(conf) - 1);
	atexit(fuzz_cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_write(fuzz_json, data, size);
	conf_t *c = NULL;
	char *errors = NULL;
	if (conf_load(fuzz_conf, &c, &errors) == 0) {
		assert(c != NULL && errors == NULL);
		for (size_t i = 0; i < c->nrouters; i++)
			assert(conf_router_find(c, c->routers[i].name) != NULL && c->routers[i].rest != NULL);
		conf_free(c);
		return 0;
	}
	assert(c == NULL && errors != NULL && errors[0] != '\0');
	/* the password only shows if it came from the configuration, not echoed from the input */
	assert(memmem(data, size, "SECRET-PW", 9) != NULL || strstr(errors, "SECRET-PW") == NULL);
	size_t dlen = strlen(fuzz_dir);
	for (const char *line = errors; *line;) {
		const char *nl = strchr(line, '\n');
		assert(nl != NULL && strncmp(line, fuzz_dir, dlen) == 0 && line[dlen] == '/');
		line = nl + 1;
	}
	free(errors);
	return 0;
}
