/* SPDX-License-Identifier: Apache-2.0 */
/* inventory_test: the file_sd target files ([daemon] targets, docs/inventory.md). The YAML reader
 * (daemon/invyaml.c) alone, then whole loads: equivalent JSON and YAML files give the same
 * routers, and each refusal names its FILE:LINE; an alias bomb and deep nesting are refused at
 * once. A passing run leaves no file behind: all is in its one mkdtemp directory (unitfs). */
#include "config.h"
#include "daemon/conf.h"
#include "daemon/invyaml.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "unitfs.h"

/* content as the one target file name of a configuration of its own, loaded: the
 * configuration, or NULL with *errs (caller frees); *path is the file's (caller frees). */
static conf_t *load(const char *name, const char *content, char **path, char **errs)
{
	char *dir = unitfs_dir();
	char *conf = unitfs_put(dir, "wgwatch.conf", 0644,
		"[daemon]\ntargets = t/*\n[defaults]\nuser = u\npassword = SECRET-PW\n");
	char *targets = xasprintf("%s/t", dir);
	conf_t *c = NULL;
	*path = unitfs_put(targets, name, 0644, content);
	*errs = NULL;
	if (conf_load(conf, &c, errs) != 0)
		c = NULL;
	free(targets);
	free(conf);
	free(dir);
	return c;
}

/* The routers of c, one a line: name, REST URL, labels. */
static char *dump(const conf_t *c)
{
	buf_t b;
	buf_init(&b);
	for (size_t i = 0; c != NULL && i < c->nrouters; i++) {
		const conf_router_t *r = &c->routers[i];
		buf_printf(&b, "%s %s", r->name, r->rest ? r->rest : "-");
		for (size_t l = 0; l < r->nlabels; l++)
			buf_printf(&b, " %s=%s", r->labels[l].key, r->labels[l].value);
		buf_putc(&b, '\n');
	}
	buf_putc(&b, '\0');
	return buf_steal(&b, NULL);
}

/* The dump of content loaded as file name, or "error" and each message without its FILE:LINE. */
static char *outcome(const char *name, const char *content)
{
	char *path, *errs;
	conf_t *c = load(name, content, &path, &errs);
	char *d = dump(c);
	if (c == NULL) {
		buf_t b;
		buf_init(&b);
		buf_puts(&b, "error\n");
		for (const char *l = errs; l != NULL && *l; l = strchr(l, '\n') + 1) {
			const char *m = strchr(l + strlen(path) + 1, ':'); /* past PATH:LINE */
			buf_append(&b, m + 2, (size_t)(strchr(m, '\n') + 1 - (m + 2)));
		}
		buf_putc(&b, '\0');
		free(d);
		d = buf_steal(&b, NULL);
	}
	conf_free(c);
	free(errs);
	free(path);
	return d;
}

/* Whether errs holds the line "PATH:" suffix. */
static bool has_error(const char *errs, const char *path, const char *suffix)
{
	char *want = xasprintf("%s:%s\n", path, suffix);
	size_t n = strlen(want);
	bool found = false;
	for (const char *p = errs; !found && p != NULL && (p = strstr(p, want)) != NULL; p++)
		found = p == errs || p[-1] == '\n';
	if (!found)
		fprintf(stderr, "  missing error: %.*s in:\n%s", (int)n - 1, want, errs ? errs : "(none)\n");
	free(want);
	return found;
}

/* The reader alone: lines, nulls, scalars of any style as text, anchors and tags let be. */
static void test_read(void)
{
	static const char doc[] = "# NetBox\n"
				  "- targets:\n"
				  "    - 192.0.2.1\n"
				  "    - 'hub-2.example.net:8443'\n"
				  "    - ~\n"
				  "    - \"null\"\n"
				  "  labels: {site: ams, rack: 7, empty: , tagged: !!str 12}\n"
				  "- &g {targets: [[x]], labels: [a], extra: 1}\n"
				  "- 7\n";
	invlist_t l = { 0 };
	int line = 0;
	char *why = NULL;
	CHECK_INT(invyaml_read(doc, sizeof(doc) - 1, &l, &line, &why), 0);
	CHECK_INT(l.ngroups, 3);
	if (l.ngroups != 3) {
		invlist_free(&l);
		return;
	}
	const struct invlist_group *g = &l.groups[0];
	CHECK(g->has_targets && !g->bad_labels && !g->not_map && g->unknown == NULL);
	CHECK_INT(g->line, 2);
	CHECK_INT(g->ntargets, 4);
	CHECK_STR(g->targets[0].s, "192.0.2.1");
	CHECK_INT(g->targets[0].line, 3);
	CHECK_STR(g->targets[1].s, "hub-2.example.net:8443");
	CHECK(g->targets[2].s == NULL); /* ~ is null, not a name */
	CHECK_STR(g->targets[3].s, "null");
	CHECK_INT(g->targets[3].line, 6);
	CHECK_INT(g->nlabels, 4);
	CHECK_STR(g->labels[1].value, "7");
	CHECK(g->labels[2].value == NULL);
	CHECK_STR(g->labels[3].value, "12");
	g = &l.groups[1];
	CHECK(g->has_targets && g->bad_labels && g->targets[0].s == NULL);
	CHECK_STR(g->unknown, "extra");
	CHECK_INT(g->line, 8);
	CHECK(l.groups[2].not_map);
	CHECK_INT(l.groups[2].line, 9);
	invlist_free(&l);
	/* nothing at all, a null document, an empty sequence: no group */
	static const char *const none[] = { "", "# soon\n", "---\n", "--- ~\n", "[]\n" };
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		CHECK_INT(invyaml_read(none[i], strlen(none[i]), &l, &line, &why), 0);
		CHECK_INT(l.ngroups, 0);
	}
}

/* Equivalent JSON and YAML (block and flow) files: the same routers, or the same messages. */
static void test_equivalent(void)
{
	static const char *const same[][3] = {
		{ "[{\"targets\": [\"192.0.2.1\", \"hub-2.example.net:8443\"], \"labels\": "
		  "{\"site\": \"ams\", \"role\": \"hub\"}},\n"
		  " {\"targets\": [\"[2001:db8::7]:443\"], \"labels\": {\"__scheme__\": \"http\", "
		  "\"__meta_netbox_id\": \"7\"}}, {\"targets\": []}]\n",
			"- targets:\n  - 192.0.2.1\n  - hub-2.example.net:8443\n"
			"  labels:\n    site: ams\n    role: hub\n"
			"- targets: ['[2001:db8::7]:443']\n"
			"  labels: {__scheme__: http, __meta_netbox_id: '7'}\n"
			"- targets: []\n",
			"192.0.2.1 https://192.0.2.1 site=ams role=hub\n" },
		{ "[{\"targets\": [\"a\", [7], \"b c\"]}, 3, {\"targetz\": []}, {\"targets\": 1}, "
		  "{\"targets\": [], \"labels\": []}, {\"targets\": [\"d\"], \"labels\": {\"k\": \"a,b\"}},"
		  "{\"targets\": [\"e\"], \"labels\": {\"core\": \"x\"}}]",
			"[{targets: [a, [7], b c]}, 3, {targetz: []}, {targets: 1},\n"
			" {targets: [], labels: []}, {targets: [d], labels: {k: 'a,b'}},\n"
			" {targets: [e], labels: {core: x}}]",
			"error\n" },
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
		char *j = outcome("netbox.json", same[i][0]), *y = outcome("netbox.yml", same[i][1]);
		char *f = outcome("netbox.yaml", same[i][0]); /* JSON is YAML too */
		CHECK_STR(y, j);
		CHECK_STR(f, j);
		CHECK(strncmp(j, same[i][2], strlen(same[i][2])) == 0);
		free(j);
		free(y);
		free(f);
	}
}

struct refusal {
	const char *name, *text; /* the file, and what it holds */
	const char *err;         /* the message after "FILE:" (FILE: the file's path) */
};

/* Each refusal at its line, with nothing of the file echoed raw. */
static void test_refused(void)
{
	static const struct refusal cases[] = {
		{ "t.txt", "[]", "1: not a file_sd file: a name ending in .json, .yml or .yaml expected" },
		{ "t.yml", "- targets: [a, b\n  labels: {x: y}\n",
			"2: not file_sd YAML: did not find expected ',' or ']' (while parsing a flow sequence)" },
		{ "t.yml", "targets: [a]\n",
			"1: not file_sd YAML: a sequence of {targets: [...], labels: {...}} expected" },
		{ "t.yml", "- targets: [a]\n---\n- targets: [b]\n",
			"2: not file_sd YAML: a second document: one expected" },
		{ "t.yml", "- targets: [a]\n  labels: {}\n  targets: [b]\n",
			"3: not file_sd YAML: duplicate key \"targets\"" },
		{ "t.yml", "- targets: [a]\n\n  labels:\n    site: x\n    site: y\n",
			"4: not file_sd YAML: labels: duplicate key \"site\"" },
		{ "t.yml", "- targets: [\"a\\0b\"]\n", "1: not file_sd YAML: a NUL character in a string" },
		{ "t.yml", "\n\n- targets: [a\xff]\n", "3: not file_sd YAML: invalid leading UTF-8 octet" },
		{ "t.yml", "- targets: [a]\n  labels: {? [k]: v}\n",
			"2: not file_sd YAML: a key must be a string" },
		{ "t.yml", "- {targets: [a]}\n- 7\n", "2: group 2: a map of targets and labels expected" },
		{ "t.yml", "- targets: [a]\n  \"\\e[31m\": 1\n",
			"1: group 1: unknown key \"\\x1b[31m\" (a group has targets and labels)" },
		{ "t.yml", "- labels: {}\n",
			"1: group 1: targets: a list of \"host[:port]\" strings expected" },
		{ "t.yml", "- targets: [a]\n  labels: 7\n", "1: group 1: labels: a map of strings expected" },
		{ "t.yml", "- targets: [a]\n  labels: {\"\\u202e\": x}\n",
			"1: group 1: label \\u202e: an ASCII name and a string without ',', '=' or a control character expected" },
		{ "t.yml", "- targets:\n  - a\n  - \"b\\nerror: forged\"\n",
			"3: group 1, target 2: a \"host[:port]\" string expected" },
		{ "t.yml", "- targets:\n  - a\n  - \"c\\u202e\"\n",
			"3: group 1, target 2: a \"host[:port]\" string expected" },
		{ "t.yml", "- targets: [\"c\\u00e9\"]\n  labels: {site: \"Z\\u00fcrich\"}\n",
			"1: group 1, target 1: a \"host[:port]\" string expected" },
		{ "t.yml", "- targets: [c]\n  labels: {site: \"x\\u202ey\"}\n",
			"1: group 1: label site: an ASCII name and a string without ',', '=' or a control character expected" },
		{ "t.yml", "- targets: [\"c:8\\u202e\"]\n",
			"1: group 1, target 1: a \"host[:port]\" string expected" },
		{ "t.yml", "- targets: [c+d]\n",
			"1: target c+d: c+d is no router name (letters, digits, '_', '.' and '-')" },
		{ "t.yml", "- targets: [a]\n- targets:\n  - a\n",
			"3: duplicate router a (first defined at FILE:1)" },
		/* JSON's refusals are lib/jsonr's, whole: no line to give */
		{ "t.json", "[{\"targets\": [\"a\"],\n  \"labels\": {\"site\": \"x\", \"site\": \"y\"}}]\n",
			"1: not file_sd JSON: an object with the key \"site\" twice" },
		{ "t.json", "[{\"targets\": [\"a\"]},\n {\"targets\": [\"b\"]}\n",
			"3: not file_sd JSON: a bracket, brace, comma, colon or quote missing or misplaced (column 1)" },
		{ "t.json", "[{\"targets\": [\"a\\u0000b\"]}]",
			"1: not file_sd JSON: a NUL (\\u0000) in a string" },
		{ "t.json", "{\"targets\": [\"a\"]}",
			"1: not file_sd JSON: an array of {\"targets\": [...], \"labels\": {...}} expected" },
		{ "t.json",
			"[{\"targets\": [\"a\"], \"labels\": {\"\\u001b[31m\": \"x\", \"\\u001b[31m\": \"y\"}}]",
			"1: not file_sd JSON: an object with the key \"\\x1b[31m\" twice" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *path, *errs;
		conf_t *c = load(cases[i].name, cases[i].text, &path, &errs);
		const char *at = strstr(cases[i].err, "FILE");
		char *want = at ? xasprintf("%.*s%s%s", (int)(at - cases[i].err), cases[i].err, path, at + 4)
				: xstrdup(cases[i].err);
		CHECK(c == NULL);
		CHECK(has_error(errs, path, want));
		CHECK(errs == NULL || strstr(errs, "forged\n") == NULL);
		conf_free(c);
		free(want);
		free(errs);
		free(path);
	}
}

/* A billion laughs: refused at its first alias, before anything is expanded. */
static void test_alias_bomb(void)
{
	buf_t b;
	buf_init(&b);
	buf_puts(&b, "- targets: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
	for (int i = 1; i < 10; i++)
		buf_printf(&b,
			"- targets: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i,
			i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	char *doc = buf_steal(&b, NULL), *path, *errs;
	conf_t *c = load("bomb.yaml", doc, &path, &errs);
	CHECK(c == NULL);
	CHECK(has_error(
		errs, path, "2: not file_sd YAML: an alias (*name) is not read: write the value out"));
	free(errs);
	free(path);
	free(doc);
}

/* Nesting cut at INVYAML_MAX_DEPTH, in flow and in block style, long before 16 MiB of it. */
static void test_deep(void)
{
	size_t depth = 100000;
	char *flow = xmalloc(2 * depth + 16), *path, *errs;
	memcpy(flow, "- targets: ", 11);
	memset(flow + 11, '[', depth);
	memset(flow + 11 + depth, ']', depth);
	flow[11 + 2 * depth] = '\0';
	conf_t *c = load("deep.yml", flow, &path, &errs);
	CHECK(c == NULL);
	CHECK(has_error(errs, path, "1: not file_sd YAML: nested deeper than 32"));
	free(errs);
	free(path);
	buf_t b;
	buf_init(&b);
	for (int i = 0; i < 40; i++)
		buf_printf(&b, "%*s-\n", i * 2, "");
	c = load("deep.yml", b.data, &path, &errs);
	CHECK(c == NULL);
	CHECK(has_error(errs, path, "33: not file_sd YAML: nested deeper than 32"));
	buf_free(&b);
	free(errs);
	free(path);
	free(flow);
}

/* A file of more targets than one wgwatchd takes (100,000 routers in all) is refused whole, at
 * its first line, before a router is made of it. */
static void test_too_many(void)
{
	buf_t b;
	buf_init(&b);
	buf_puts(&b, "[{\"targets\": [");
	for (int i = 0; i <= 100000; i++)
		buf_printf(&b, "%s\"r%d\"", i ? "," : "", i);
	buf_puts(&b, "]}]\n");
	char *path, *errs;
	conf_t *c = load("many.json", b.data, &path, &errs);
	CHECK(c == NULL);
	CHECK(has_error(errs, path,
		"1: 100001 targets, more than the 100000 routers one wgwatchd takes in all (0 before this file)"));
	buf_free(&b);
	free(errs);
	free(path);
}

int main(void)
{
	if (unitfs_root("inventory_test") == NULL)
		return 1;
	test_read();
	test_equivalent();
	test_refused();
	test_alias_bomb();
	test_deep();
	test_too_many();
	return unitfs_end(unit_done("inventory_test"));
}
