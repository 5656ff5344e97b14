/* SPDX-License-Identifier: Apache-2.0 */
/* evidread: an evidence document checked whole before anything of it is used: its size, its
 * schema version (a newer one is refused, not guessed at), every key (none unknown), every
 * type, every count (whole, bounded, adding up), every ratio (finite, 0..100, quartiles in
 * order), every string (bounded, printable ASCII) and each fleet id once. The first fault is
 * named with its path. It must never use a document that failed, nor read past len. */
#include "config.h"
#include "detector/evidread.h"
#include "detector/evidence.h"
#include "lib/xmem.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIDREAD_MAX_COUNT    1000000 /* routers of one cohort at most */
#define EVIDREAD_MAX_RATIO    100.0
#define EVIDREAD_MAX_STR      64
#define EVIDREAD_MAX_FIRMWARE 1000 /* firmware pairs of one cohort */

struct evidread {
	json_t *root;
};

/* The first fault, with its path. */
struct evidread_err {
	char path[96];
	char *why;
};

static bool evidread_fail(struct evidread_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool evidread_fail(struct evidread_err *e, const char *fmt, ...)
{
	char msg[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e->why == NULL)
		e->why = xasprintf("%s%s%s", e->path, e->path[0] ? ": " : "", msg);
	return false;
}

/* Only the keys of allowed (NULL-terminated) in o. */
static bool evidread_keys(const json_t *o, const char *const *allowed, struct evidread_err *e)
{
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)o, k, v)
	{
		size_t i = 0;
		while (allowed[i] && strcmp(allowed[i], k) != 0)
			i++;
		if (allowed[i] == NULL)
			return evidread_fail(e, "unknown key \"%.32s\"", k);
	}
	return true;
}

static bool evidread_text(const json_t *v, bool nullable, struct evidread_err *e)
{
	if (nullable && json_is_null(v))
		return true;
	if (!json_is_string(v))
		return evidread_fail(e, "not a string%s", nullable ? " or null" : "");
	const char *s = json_string_value(v);
	size_t n = json_string_length(v);
	if (n == 0 || n > EVIDREAD_MAX_STR)
		return evidread_fail(e, "a string of 1 to %d characters expected", EVIDREAD_MAX_STR);
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return evidread_fail(e, "a character that is not printable ASCII");
	return true;
}

static bool evidread_day(const json_t *v, bool nullable, struct evidread_err *e)
{
	if (nullable && json_is_null(v))
		return true;
	int y, m, d, n = 0;
	const char *s = json_string_value(v);
	if (s == NULL || strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 ||
		y < 2000 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31)
		return evidread_fail(e, "a day (YYYY-MM-DD) expected");
	return true;
}

/* o[key] a whole count 0..EVIDREAD_MAX_COUNT into *n. */
static bool evidread_count(const json_t *o, const char *key, json_int_t *n, struct evidread_err *e)
{
	const json_t *v = json_object_get(o, key);
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > EVIDREAD_MAX_COUNT)
		return evidread_fail(e, "%s: not a count (a whole number 0 to %d)", key, EVIDREAD_MAX_COUNT);
	*n = json_integer_value(v);
	return true;
}

static bool evidread_ratio(const json_t *r, struct evidread_err *e)
{
	static const char *const keys[] = { "q1", "median", "q3", NULL };
	double q[3];
	if (json_is_null(r))
		return true;
	if (!json_is_object(r) || !evidread_keys(r, keys, e))
		return evidread_fail(e, "ratio: an object of q1, median, q3 or null expected");
	for (int i = 0; i < 3; i++) {
		const json_t *v = json_object_get(r, keys[i]);
		q[i] = json_is_number(v) ? json_number_value(v) : NAN;
		if (!(q[i] >= 0 && q[i] <= EVIDREAD_MAX_RATIO))
			return evidread_fail(
				e, "ratio.%s: a number from 0 to %g expected", keys[i], EVIDREAD_MAX_RATIO);
	}
	if (!(q[0] <= q[1] && q[1] <= q[2]))
		return evidread_fail(e, "ratio: q1 <= median <= q3 expected");
	return true;
}

static bool evidread_methods(const json_t *m, json_int_t judged, struct evidread_err *e)
{
	const char *k;
	json_t *v;
	json_int_t sum = 0;
	if (!json_is_object(m))
		return evidread_fail(e, "methods: an object expected");
	json_object_foreach((json_t *)m, k, v)
	{
		if (outcome_method_of(k) == DETECTOR_M_NONE || !json_is_integer(v) ||
			json_integer_value(v) < 0 || json_integer_value(v) > EVIDREAD_MAX_COUNT)
			return evidread_fail(e, "methods: \"%.32s\" is not a method with a count", k);
		sum += json_integer_value(v);
	}
	return sum <= judged || evidread_fail(e, "methods: more than the routers judged");
}

static bool evidread_tally(const json_t *t, struct evidread_err *e)
{
	static const char *const keys[] = { "routers", "judged", "regressed", "improved", "unchanged",
		"insufficient", "ratio", "methods", NULL };
	json_int_t n[6];
	if (!json_is_object(t) || !evidread_keys(t, keys, e))
		return evidread_fail(e, "an object of counts expected");
	for (int i = 0; i < 6; i++)
		if (!evidread_count(t, keys[i], &n[i], e))
			return false;
	if (n[1] != n[2] + n[3] + n[4] || n[0] != n[1] + n[5])
		return evidread_fail(e,
			"the counts do not add up (judged = regressed + improved + unchanged, "
			"routers = judged + insufficient)");
	return evidread_ratio(json_object_get(t, "ratio"), e) &&
		evidread_methods(json_object_get(t, "methods"), n[1], e);
}

/* Checks o[key] with f, the key added to e's path while it does. */
static bool evidread_at(const json_t *o, const char *key, struct evidread_err *e,
	bool (*f)(const json_t *, bool, struct evidread_err *), bool nullable)
{
	size_t len = strlen(e->path);
	snprintf(e->path + len, sizeof(e->path) - len, "%s%s", len ? "." : "", key);
	const json_t *v = json_object_get(o, key);
	bool ok = v != NULL ? f(v, nullable, e) : evidread_fail(e, "missing");
	e->path[len] = '\0';
	return ok;
}

static bool evidread_tally_at(const json_t *t, bool nullable, struct evidread_err *e)
{
	(void)nullable;
	return evidread_tally(t, e);
}

/* [{before, after, routers}]: RouterBOOT firmware (text or null) and a count of at least 1. */
static bool evidread_firmware(const json_t *a, bool nullable, struct evidread_err *e)
{
	static const char *const keys[] = { "before", "after", "routers", NULL };
	(void)nullable;
	if (!json_is_array(a) || json_array_size(a) > EVIDREAD_MAX_FIRMWARE)
		return evidread_fail(
			e, "an array of at most %d firmware pairs expected", EVIDREAD_MAX_FIRMWARE);
	for (size_t i = 0; i < json_array_size(a); i++) {
		const json_t *f = json_array_get(a, i);
		json_int_t n;
		if (!json_is_object(f) || !evidread_keys(f, keys, e))
			return evidread_fail(e, "[%zu]: an object of before, after, routers expected", i);
		if (!evidread_at(f, "before", e, evidread_text, true) ||
			!evidread_at(f, "after", e, evidread_text, true) ||
			!evidread_count(f, "routers", &n, e))
			return false;
		if (n < 1)
			return evidread_fail(e, "[%zu]: routers: at least 1 expected", i);
	}
	return true;
}

static bool evidread_cohort(const json_t *c, struct evidread_err *e)
{
	static const char *const keys[] = { "from_version", "to_version", "architecture", "board",
		"first_day", "last_day", "firmware", "tx", "rx", NULL };
	if (!json_is_object(c) || !evidread_keys(c, keys, e))
		return evidread_fail(e, "a cohort object expected");
	return evidread_at(c, "from_version", e, evidread_text, false) &&
		evidread_at(c, "to_version", e, evidread_text, false) &&
		evidread_at(c, "architecture", e, evidread_text, true) &&
		evidread_at(c, "board", e, evidread_text, true) &&
		evidread_at(c, "first_day", e, evidread_day, false) &&
		evidread_at(c, "last_day", e, evidread_day, false) &&
		(json_object_get(c, "firmware") == NULL ||
			evidread_at(c, "firmware", e, evidread_firmware, false)) &&
		evidread_at(c, "tx", e, evidread_tally_at, false) &&
		evidread_at(c, "rx", e, evidread_tally_at, false);
}

/* A row of a fleet's "rollout" list: the guard's cohort and its counts, which nest. */
static bool evidread_rollout_row(const json_t *c, struct evidread_err *e)
{
	static const char *const keys[] = { "to_version", "architecture", "board", "routers", "canaries",
		"judged", "regressed", "pending", NULL };
	json_int_t n[5];
	if (!json_is_object(c) || !evidread_keys(c, keys, e))
		return evidread_fail(e, "a rollout object expected");
	if (!evidread_at(c, "to_version", e, evidread_text, false) ||
		!evidread_at(c, "architecture", e, evidread_text, true) ||
		!evidread_at(c, "board", e, evidread_text, true))
		return false;
	for (int i = 0; i < 5; i++)
		if (!evidread_count(c, keys[3 + i], &n[i], e))
			return false;
	if (n[1] > n[0] || n[2] > n[1] || n[3] + n[4] > n[0])
		return evidread_fail(e,
			"the counts do not nest (judged <= canaries <= routers, "
			"regressed + pending <= routers)");
	return true;
}

/* A fleet's optional "rollout" list (absent in exports not asked for it). */
static bool evidread_rollout(const json_t *f, struct evidread_err *e)
{
	const json_t *rs = json_object_get(f, "rollout");
	if (rs == NULL)
		return true;
	if (!json_is_array(rs) || json_array_size(rs) > EVIDREAD_MAX_COHORT)
		return evidread_fail(e, "rollout: an array of at most %d expected", EVIDREAD_MAX_COHORT);
	size_t len = strlen(e->path);
	for (size_t i = 0; i < json_array_size(rs); i++) {
		snprintf(e->path + len, sizeof(e->path) - len, ".rollout[%zu]", i);
		if (!evidread_rollout_row(json_array_get(rs, i), e))
			return false;
	}
	e->path[len] = '\0';
	return true;
}

static bool evidread_fleet_id(const json_t *v, bool nullable, struct evidread_err *e)
{
	(void)nullable;
	const char *s = json_string_value(v);
	if (s == NULL || strlen(s) != EVIDENCE_FLEET_LEN ||
		strspn(s, "0123456789abcdef") != EVIDENCE_FLEET_LEN)
		return evidread_fail(e, "a fleet id of %d lowercase hex digits expected", EVIDENCE_FLEET_LEN);
	return true;
}

static bool evidread_fleet(const json_t *f, struct evidread_err *e)
{
	static const char *const keys[] = { "fleet", "generated", "since", "cohorts", "rollout", NULL };
	if (!json_is_object(f) || !evidread_keys(f, keys, e))
		return evidread_fail(e, "a fleet object expected");
	if (!evidread_at(f, "fleet", e, evidread_fleet_id, false) ||
		!evidread_at(f, "generated", e, evidread_day, false) ||
		!evidread_at(f, "since", e, evidread_day, true))
		return false;
	const json_t *cs = json_object_get(f, "cohorts");
	if (!json_is_array(cs) || json_array_size(cs) > EVIDREAD_MAX_COHORT)
		return evidread_fail(e, "cohorts: an array of at most %d expected", EVIDREAD_MAX_COHORT);
	size_t len = strlen(e->path);
	for (size_t i = 0; i < json_array_size(cs); i++) {
		snprintf(e->path + len, sizeof(e->path) - len, ".cohorts[%zu]", i);
		if (!evidread_cohort(json_array_get(cs, i), e))
			return false;
	}
	e->path[len] = '\0';
	return evidread_rollout(f, e);
}

/* The schema string: this one, or a newer one (refused by name), or none of ours. */
static bool evidread_schema(const json_t *root, struct evidread_err *e)
{
	const char *s = json_string_value(json_object_get(root, "schema"));
	unsigned v;
	int n = 0;
	if (s && strcmp(s, EVIDENCE_SCHEMA) == 0)
		return true;
	if (s && sscanf(s, "wgwatch-evidence/%u%n", &v, &n) == 1 && s[n] == '\0' && v > 1)
		return evidread_fail(e,
			"schema \"%.40s\" is newer than this wgwatchd reads (%s): upgrade wgwatch", s,
			EVIDENCE_SCHEMA);
	return evidread_fail(e, "not a wgwatch evidence document (schema \"%s\" expected)", EVIDENCE_SCHEMA);
}

static int evidread_idcmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each fleet id of fs (checked fleets) once: sorted, not searched per fleet, so that a document
 * of 10,000 fleets costs no quadratic time. The path names the first fleet of a pair. */
static bool evidread_ids_once(const json_t *fs, struct evidread_err *e)
{
	size_t n = json_array_size(fs);
	const char **ids = xcalloc(n + 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = json_string_value(json_object_get(json_array_get(fs, i), "fleet"));
	qsort(ids, n, sizeof(*ids), evidread_idcmp);
	const char *twice = NULL;
	for (size_t i = 1; i < n && twice == NULL; i++)
		twice = strcmp(ids[i - 1], ids[i]) == 0 ? ids[i] : NULL;
	bool ok = twice == NULL;
	if (!ok) {
		snprintf(e->path, sizeof(e->path), "fleets");
		evidread_fail(e, "fleet %s is in the document twice", twice);
	}
	free(ids);
	return ok;
}

static bool evidread_root(const json_t *root, struct evidread_err *e)
{
	static const char *const keys[] = { "schema", "fleets", NULL };
	if (!json_is_object(root))
		return evidread_fail(e, "a JSON object expected");
	if (!evidread_schema(root, e) || !evidread_keys(root, keys, e))
		return false;
	const json_t *fs = json_object_get(root, "fleets");
	if (!json_is_array(fs) || json_array_size(fs) == 0 || json_array_size(fs) > EVIDREAD_MAX_FLEETS)
		return evidread_fail(e, "fleets: an array of 1 to %d expected", EVIDREAD_MAX_FLEETS);
	for (size_t i = 0; i < json_array_size(fs); i++) {
		snprintf(e->path, sizeof(e->path), "fleets[%zu]", i);
		if (!evidread_fleet(json_array_get(fs, i), e))
			return false;
	}
	if (!evidread_ids_once(fs, e))
		return false;
	e->path[0] = '\0';
	return true;
}

evidread_t *evidread_parse(const char *text, size_t len, char **why)
{
	struct evidread_err e = { .path = "" };
	json_error_t err;
	*why = NULL;
	if (len > EVIDREAD_MAX_BYTES) {
		*why = xasprintf("%zu bytes: more than the %u an evidence document may have", len,
			(unsigned)EVIDREAD_MAX_BYTES);
		return NULL;
	}
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
	if (root == NULL) {
		*why = xasprintf("not JSON: line %d column %d: %s", err.line, err.column, err.text);
		return NULL;
	}
	if (!evidread_root(root, &e)) {
		json_decref(root);
		*why = e.why;
		return NULL;
	}
	evidread_t *d = xcalloc(1, sizeof(*d));
	d->root = root;
	return d;
}

void evidread_free(evidread_t *e)
{
	if (e) {
		json_decref(e->root);
		free(e);
	}
}

size_t evidread_nfleets(const evidread_t *e)
{
	return json_array_size(json_object_get(e->root, "fleets"));
}

const char *evidread_fleet_at(const evidread_t *e, size_t i, const char **generated)
{
	const json_t *f = json_array_get(json_object_get(e->root, "fleets"), i);
	*generated = json_string_value(json_object_get(f, "generated"));
	return json_string_value(json_object_get(f, "fleet"));
}

/* A fleet of a document being merged, and the order it was read in. */
struct evidread_pick {
	json_t *fleet;
	const char *id, *generated;
	size_t seq;
};

/* Fleet id, then generated, then the order read: the last of an id's run wins. */
static int evidread_pick_cmp(const void *x, const void *y)
{
	const struct evidread_pick *a = x, *b = y;
	int c = strcmp(a->id, b->id);
	c = c ? c : strcmp(a->generated, b->generated);
	return c ? c : (a->seq > b->seq) - (a->seq < b->seq);
}

char *evidread_merge(evidread_t *const *docs, size_t n)
{
	json_t *out = json_array(), *doc = json_object();
	size_t k = 0, cap = 0;
	for (size_t d = 0; d < n; d++)
		cap += evidread_nfleets(docs[d]);
	struct evidread_pick *p = xcalloc(cap + 1, sizeof(*p));
	for (size_t d = 0; d < n; d++) {
		const json_t *fs = json_object_get(docs[d]->root, "fleets");
		for (size_t i = 0; i < json_array_size(fs); i++, k++) {
			p[k].fleet = json_array_get(fs, i);
			p[k].id = json_string_value(json_object_get(p[k].fleet, "fleet"));
			p[k].generated = json_string_value(json_object_get(p[k].fleet, "generated"));
			p[k].seq = k;
		}
	}
	if (k > 1)
		qsort(p, k, sizeof(*p), evidread_pick_cmp);
	for (size_t i = 0; i < k; i++)
		if (i + 1 == k || strcmp(p[i].id, p[i + 1].id) != 0)
			json_array_append_new(out, json_deep_copy(p[i].fleet));
	free(p);
	json_object_set_new(doc, "schema", json_string(EVIDENCE_SCHEMA));
	json_object_set_new(doc, "fleets", out);
	char *s = json_dumps(doc, JSON_INDENT(1) | JSON_REAL_PRECISION(6) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	return s;
}

static const char *evidread_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key)); /* NULL for null */
}

static void evidread_tally_of(const json_t *t, struct evidread_tally *out)
{
	const json_t *r = json_object_get(t, "ratio");
	*out = (struct evidread_tally){
		.routers = (long)json_integer_value(json_object_get(t, "routers")),
		.judged = (long)json_integer_value(json_object_get(t, "judged")),
		.regressed = (long)json_integer_value(json_object_get(t, "regressed")),
		.improved = (long)json_integer_value(json_object_get(t, "improved")),
		.unchanged = (long)json_integer_value(json_object_get(t, "unchanged")),
		.insufficient = (long)json_integer_value(json_object_get(t, "insufficient")),
		.median = json_is_object(r) ? json_number_value(json_object_get(r, "median")) : NAN,
	};
}

bool evidread_next(const evidread_t *e, struct evidread_at *at, struct evidread_cohort *out)
{
	const json_t *fs = json_object_get(e->root, "fleets");
	for (; at->fleet < json_array_size(fs); at->fleet++, at->cohort = 0) {
		const json_t *f = json_array_get(fs, at->fleet), *cs = json_object_get(f, "cohorts");
		if (at->cohort >= json_array_size(cs))
			continue;
		const json_t *c = json_array_get(cs, at->cohort++);
		*out = (struct evidread_cohort){ .fleet = evidread_str(f, "fleet"),
			.generated = evidread_str(f, "generated"),
			.from_version = evidread_str(c, "from_version"),
			.to_version = evidread_str(c, "to_version"),
			.architecture = evidread_str(c, "architecture"),
			.board = evidread_str(c, "board") };
		evidread_tally_of(json_object_get(c, "tx"), &out->tx);
		evidread_tally_of(json_object_get(c, "rx"), &out->rx);
		return true;
	}
	return false;
}

static size_t evidread_size(const json_t *o, const char *key)
{
	return (size_t)json_integer_value(json_object_get(o, key));
}

size_t evidread_rollout_rows(const evidread_t *e, size_t i, struct evidread_rollout **out)
{
	const json_t *f = json_array_get(json_object_get(e->root, "fleets"), i);
	const json_t *rs = json_object_get(f, "rollout");
	size_t n = json_array_size(rs);
	*out = xcalloc(n + 1, sizeof(**out));
	for (size_t k = 0; k < n; k++) {
		const json_t *c = json_array_get(rs, k);
		(*out)[k] = (struct evidread_rollout){ .to_version = evidread_str(c, "to_version"),
			.architecture = evidread_str(c, "architecture"),
			.board = evidread_str(c, "board"),
			.routers = evidread_size(c, "routers"),
			.canaries = evidread_size(c, "canaries"),
			.judged = evidread_size(c, "judged"),
			.regressed = evidread_size(c, "regressed"),
			.pending = evidread_size(c, "pending") };
	}
	return n;
}

bool evidread_has_rollout(const evidread_t *e, size_t i)
{
	return json_object_get(json_array_get(json_object_get(e->root, "fleets"), i), "rollout") != NULL;
}
