/* SPDX-License-Identifier: Apache-2.0 */
/* conflabel: names and values that become Prometheus labels or select cohorts in the config:
 * a router's labels (names checked, wgwatch's own refused), [rollout] canary and allow. It
 * never logs; a cause names the label, never a secret. */
#include "config.h"
#include "daemon/conf_int.h"
#include "daemon/ros.h"
#include "lib/buf.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool conflabel_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (s++; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* Label names wgwatch's own series use (metrics, the Alertmanager push) and Prometheus's target
 * labels: a router's config label of one of these names would clash, so it is refused. Keep
 * in step with docs/metrics.md. */
static const char *const conflabel_reserved[] = {
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
	"direction",
	"from_version",
	"to_version",
	"upgraded",
	"sensor",
	"endpoint",
	"allowed_address",
	"menu",
	"cpu",
	"name",
	"job",
	"instance",
};

bool conf_label_reserved(const char *name)
{
	for (size_t i = 0; i < sizeof(conflabel_reserved) / sizeof(conflabel_reserved[0]); i++)
		if (strcmp(conflabel_reserved[i], name) == 0)
			return true;
	return false;
}

/* "a, b, c": the reserved names, for the message. */
static char *conflabel_reserved_list(void)
{
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; i < sizeof(conflabel_reserved) / sizeof(conflabel_reserved[0]); i++)
		buf_printf(&b, "%s%s", i ? ", " : "", conflabel_reserved[i]);
	size_t len;
	return buf_steal(&b, &len);
}

void conflabel_free(struct conf_label *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].key);
		free(l[i].value);
	}
	free(l);
}

static char *conflabel_check_one(const struct conf_label *l, size_t n, const char *name)
{
	if (!conflabel_name_ok(name) || strncmp(name, "__", 2) == 0)
		return xasprintf("label name '%s' is not valid: use [a-zA-Z_][a-zA-Z0-9_]*, "
				 "not starting with __",
			name);
	if (conf_label_reserved(name)) {
		char *list = conflabel_reserved_list();
		char *msg = xasprintf("label name '%s' is wgwatch's own (%s): choose another", name, list);
		free(list);
		return msg;
	}
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i].key, name) == 0)
			return xasprintf("label '%s' is given twice", name);
	return NULL;
}

/* name=value,name=value added to the n labels of *out (a key repeated adds up); an empty
 * value adds none. On failure *out and *nout are left as they were. */
int conflabel_parse(const char *v, struct conf_label **out, size_t *nout, char **cause)
{
	char *copy = xstrdup(v), *save = copy, *item;
	size_t n0 = *nout, n = n0;
	struct conf_label *l = xcalloc(n0 + 1, sizeof(*l));
	if (n0 > 0)
		memcpy(l, *out, n0 * sizeof(*l)); /* borrowed: only the new ones are ours to free */
	while ((item = strsep(&save, ",")) != NULL && *cause == NULL) {
		char *eq = strchr(item, '=');
		if (eq == NULL) {
			if (*(item = text_trim(item)) != '\0')
				*cause = xasprintf("'%s' is not name=value", item);
			continue;
		}
		*eq = '\0';
		char *name = text_trim(item), *value = text_trim(eq + 1);
		if ((*cause = conflabel_check_one(l, n, name)) != NULL)
			continue;
		l = xreallocarray(l, n + 1, sizeof(*l));
		l[n++] = (struct conf_label){ .key = xstrdup(name), .value = xstrdup(value) };
	}
	free(copy);
	if (*cause != NULL) {
		for (size_t i = n0; i < n; i++) {
			free(l[i].key);
			free(l[i].value);
		}
		free(l);
		return -1;
	}
	free(*out);
	*out = l;
	*nout = n;
	return 0;
}

/* ---- checks of [rollout] keys: the table names them ---- */

int conflabel_check_canary(const char *v, char **cause)
{
	const char *eq = strchr(v, '=');
	char *name = eq ? xstrndup(v, (size_t)(eq - v)) : NULL;
	bool ok = name != NULL && conflabel_name_ok(name) && eq[1] != '\0' && strchr(eq + 1, ',') == NULL;
	free(name);
	if (!ok)
		*cause = xstrdup(
			"must be one label name=value, as in a router's labels = (e.g. role=canary)");
	return ok ? 0 : -1;
}

/* One VERSION/WHAT item: a RouterOS version, a slash, and an architecture or board. */
static bool conflabel_allow_ok(const char *item)
{
	const char *slash = strchr(item, '/');
	if (slash == NULL || slash[1] == '\0' || strpbrk(slash + 1, " \t/") != NULL)
		return false;
	char *version = xstrndup(item, (size_t)(slash - item));
	struct ros_version rv;
	const char *why;
	bool ok = ros_parse_version(version, &rv, &why) == 0 && strchr(version, ' ') == NULL;
	free(version);
	return ok;
}

int conflabel_check_allow(const char *v, char **cause)
{
	char *copy = xstrdup(v), *save = copy, *item;
	bool ok = true;
	while (ok && (item = strsep(&save, ",")) != NULL) {
		item = text_trim(item);
		ok = *item == '\0' || conflabel_allow_ok(item);
	}
	free(copy);
	if (!ok)
		*cause = xstrdup("each item must be VERSION/ARCHITECTURE or VERSION/BOARD, e.g. 7.22.3/tile");
	return ok ? 0 : -1;
}

/* One base URL of [rollout] shards: http:// or https://, a host, no credentials, no spaces. */
static bool conflabel_shard_ok(const char *item)
{
	size_t pre = strncmp(item, "http://", 7) == 0 ? 7 : strncmp(item, "https://", 8) == 0 ? 8 : 0;
	return pre != 0 && item[pre] != '\0' && item[pre] != '/' && strpbrk(item, "@ \t") == NULL;
}

int conflabel_check_shards(const char *v, char **cause)
{
	char *copy = xstrdup(v), *save = copy, *item;
	bool ok = true;
	while (ok && (item = strsep(&save, ",")) != NULL) {
		item = text_trim(item);
		ok = *item == '\0' || conflabel_shard_ok(item);
	}
	free(copy);
	if (!ok)
		*cause = xstrdup("each item must be a shard's base URL without credentials, e.g. "
				 "http://wg-1:9477 ([web] user and password_file are used)");
	return ok ? 0 : -1;
}
