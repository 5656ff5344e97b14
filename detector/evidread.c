/* SPDX-License-Identifier: Apache-2.0 */
/* evidread: an evidence document checked whole before anything of it is used: its size, its
 * schema version (a newer one is refused, not guessed at), every key (none unknown), every
 * type, every count (whole, bounded, adding up), every ratio (finite, 0..100, quartiles in
 * order), every string (bounded, printable ASCII) and each fleet id once. The first fault is
 * named with its path. It must never use a document that failed, nor read past len. */
#include "config.h"
#include "detector/evidread.h"
#include "detector/evidence.h"
#include "lib/buf.h"
#include "lib/jsonr.h"
#include "lib/jsonw.h"
#include "lib/xmem.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVIDREAD_MAX_COUNT    1000000 /* routers of one cohort at most */
#define EVIDREAD_MAX_RATIO    100.0
#define EVIDREAD_MAX_STR      64
#define EVIDREAD_MAX_FIRMWARE 1000 /* firmware pairs of one cohort */

struct evidread {
	jsonr_t *doc;
	const jsonr_node_t *root; /* in doc */
};

/* Elements of array a; 0 for anything else (as jansson's json_array_size). */
static size_t evidread_len(const jsonr_node_t *a)
{
	return jsonr_is_array(a) ? jsonr_size(a) : 0;
}

/* a's whole number (no fraction, no exponent) into *n, else false. */
static bool evidread_int(const jsonr_node_t *v, int64_t *n)
{
	return jsonr_int(v, n);
}

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
static bool evidread_keys(const jsonr_node_t *o, const char *const *allowed, struct evidread_err *e)
{
	for (size_t m = 0; m < jsonr_size(o); m++) {
		const char *k = jsonr_key(o, m);
		size_t i = 0;
		while (allowed[i] && strcmp(allowed[i], k) != 0)
			i++;
		if (allowed[i] == NULL)
			return evidread_fail(e, "unknown key \"%.32s\"", k);
	}
	return true;
}

static bool evidread_text(const jsonr_node_t *v, bool nullable, struct evidread_err *e)
{
	if (nullable && jsonr_is_null(v))
		return true;
	if (!jsonr_is_string(v))
		return evidread_fail(e, "not a string%s", nullable ? " or null" : "");
	const char *s = jsonr_str(v);
	size_t n = strlen(s);
	if (n == 0 || n > EVIDREAD_MAX_STR)
		return evidread_fail(e, "a string of 1 to %d characters expected", EVIDREAD_MAX_STR);
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return evidread_fail(e, "a character that is not printable ASCII");
	return true;
}

static bool evidread_day(const jsonr_node_t *v, bool nullable, struct evidread_err *e)
{
	if (nullable && jsonr_is_null(v))
		return true;
	int y, m, d, n = 0;
	const char *s = jsonr_str(v);
	if (s == NULL || strlen(s) != 10 || sscanf(s, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 ||
		y < 2000 || y > 9999 || m < 1 || m > 12 || d < 1 || d > 31)
		return evidread_fail(e, "a day (YYYY-MM-DD) expected");
	return true;
}

/* o[key] a whole count 0..EVIDREAD_MAX_COUNT into *n. */
static bool evidread_count(const jsonr_node_t *o, const char *key, int64_t *n, struct evidread_err *e)
{
	if (!evidread_int(jsonr_get(o, key), n) || *n < 0 || *n > EVIDREAD_MAX_COUNT)
		return evidread_fail(e, "%s: not a count (a whole number 0 to %d)", key, EVIDREAD_MAX_COUNT);
	return true;
}

static bool evidread_ratio(const jsonr_node_t *r, struct evidread_err *e)
{
	static const char *const keys[] = { "q1", "median", "q3", NULL };
	double q[3];
	if (jsonr_is_null(r))
		return true;
	if (!jsonr_is_object(r) || !evidread_keys(r, keys, e))
		return evidread_fail(e, "ratio: an object of q1, median, q3 or null expected");
	for (int i = 0; i < 3; i++) {
		if (!jsonr_num(jsonr_get(r, keys[i]), &q[i]))
			q[i] = NAN;
		if (!(q[i] >= 0 && q[i] <= EVIDREAD_MAX_RATIO))
			return evidread_fail(
				e, "ratio.%s: a number from 0 to %g expected", keys[i], EVIDREAD_MAX_RATIO);
	}
	if (!(q[0] <= q[1] && q[1] <= q[2]))
		return evidread_fail(e, "ratio: q1 <= median <= q3 expected");
	return true;
}

static bool evidread_methods(const jsonr_node_t *m, int64_t judged, struct evidread_err *e)
{
	int64_t sum = 0, v;
	if (!jsonr_is_object(m))
		return evidread_fail(e, "methods: an object expected");
	for (size_t i = 0; i < jsonr_size(m); i++) {
		const char *k = jsonr_key(m, i);
		if (outcome_method_of(k) == DETECTOR_M_NONE || !evidread_int(jsonr_at(m, i), &v) || v < 0 ||
			v > EVIDREAD_MAX_COUNT)
			return evidread_fail(e, "methods: \"%.32s\" is not a method with a count", k);
		sum += v;
	}
	return sum <= judged || evidread_fail(e, "methods: more than the routers judged");
}

static bool evidread_tally(const jsonr_node_t *t, struct evidread_err *e)
{
	static const char *const keys[] = { "routers", "judged", "regressed", "improved", "unchanged",
		"insufficient", "ratio", "methods", NULL };
	int64_t n[6];
	if (!jsonr_is_object(t) || !evidread_keys(t, keys, e))
		return evidread_fail(e, "an object of counts expected");
	for (int i = 0; i < 6; i++)
		if (!evidread_count(t, keys[i], &n[i], e))
			return false;
	if (n[1] != n[2] + n[3] + n[4] || n[0] != n[1] + n[5])
		return evidread_fail(e,
			"the counts do not add up (judged = regressed + improved + unchanged, "
			"routers = judged + insufficient)");
	return evidread_ratio(jsonr_get(t, "ratio"), e) && evidread_methods(jsonr_get(t, "methods"), n[1], e);
}

/* Checks o[key] with f, the key added to e's path while it does. */
static bool evidread_at(const jsonr_node_t *o, const char *key, struct evidread_err *e,
	bool (*f)(const jsonr_node_t *, bool, struct evidread_err *), bool nullable)
{
	size_t len = strlen(e->path);
	snprintf(e->path + len, sizeof(e->path) - len, "%s%s", len ? "." : "", key);
	const jsonr_node_t *v = jsonr_get(o, key);
	bool ok = v != NULL ? f(v, nullable, e) : evidread_fail(e, "missing");
	e->path[len] = '\0';
	return ok;
}

static bool evidread_tally_at(const jsonr_node_t *t, bool nullable, struct evidread_err *e)
{
	(void)nullable;
	return evidread_tally(t, e);
}

/* [{before, after, routers}]: RouterBOOT firmware (text or null) and a count of at least 1. */
static bool evidread_firmware(const jsonr_node_t *a, bool nullable, struct evidread_err *e)
{
	static const char *const keys[] = { "before", "after", "routers", NULL };
	(void)nullable;
	if (!jsonr_is_array(a) || evidread_len(a) > EVIDREAD_MAX_FIRMWARE)
		return evidread_fail(
			e, "an array of at most %d firmware pairs expected", EVIDREAD_MAX_FIRMWARE);
	for (size_t i = 0; i < evidread_len(a); i++) {
		const jsonr_node_t *f = jsonr_at(a, i);
		int64_t n;
		if (!jsonr_is_object(f) || !evidread_keys(f, keys, e))
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

static bool evidread_cohort(const jsonr_node_t *c, struct evidread_err *e)
{
	static const char *const keys[] = { "from_version", "to_version", "architecture", "board",
		"first_day", "last_day", "firmware", "tx", "rx", NULL };
	if (!jsonr_is_object(c) || !evidread_keys(c, keys, e))
		return evidread_fail(e, "a cohort object expected");
	return evidread_at(c, "from_version", e, evidread_text, false) &&
		evidread_at(c, "to_version", e, evidread_text, false) &&
		evidread_at(c, "architecture", e, evidread_text, true) &&
		evidread_at(c, "board", e, evidread_text, true) &&
		evidread_at(c, "first_day", e, evidread_day, false) &&
		evidread_at(c, "last_day", e, evidread_day, false) &&
		(jsonr_get(c, "firmware") == NULL ||
			evidread_at(c, "firmware", e, evidread_firmware, false)) &&
		evidread_at(c, "tx", e, evidread_tally_at, false) &&
		evidread_at(c, "rx", e, evidread_tally_at, false);
}

/* A row of a fleet's "rollout" list: the guard's cohort and its counts, which nest. */
static bool evidread_rollout_row(const jsonr_node_t *c, struct evidread_err *e)
{
	static const char *const keys[] = { "to_version", "architecture", "board", "routers", "canaries",
		"judged", "regressed", "pending", NULL };
	int64_t n[5];
	if (!jsonr_is_object(c) || !evidread_keys(c, keys, e))
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
static bool evidread_rollout(const jsonr_node_t *f, struct evidread_err *e)
{
	const jsonr_node_t *rs = jsonr_get(f, "rollout");
	if (rs == NULL)
		return true;
	if (!jsonr_is_array(rs) || evidread_len(rs) > EVIDREAD_MAX_COHORT)
		return evidread_fail(e, "rollout: an array of at most %d expected", EVIDREAD_MAX_COHORT);
	size_t len = strlen(e->path);
	for (size_t i = 0; i < evidread_len(rs); i++) {
		snprintf(e->path + len, sizeof(e->path) - len, ".rollout[%zu]", i);
		if (!evidread_rollout_row(jsonr_at(rs, i), e))
			return false;
	}
	e->path[len] = '\0';
	return true;
}

static bool evidread_fleet_id(const jsonr_node_t *v, bool nullable, struct evidread_err *e)
{
	(void)nullable;
	const char *s = jsonr_str(v);
	if (s == NULL || strlen(s) != EVIDENCE_FLEET_LEN ||
		strspn(s, "0123456789abcdef") != EVIDENCE_FLEET_LEN)
		return evidread_fail(e, "a fleet id of %d lowercase hex digits expected", EVIDENCE_FLEET_LEN);
	return true;
}

static bool evidread_fleet(const jsonr_node_t *f, struct evidread_err *e)
{
	static const char *const keys[] = { "fleet", "generated", "since", "cohorts", "rollout", NULL };
	if (!jsonr_is_object(f) || !evidread_keys(f, keys, e))
		return evidread_fail(e, "a fleet object expected");
	if (!evidread_at(f, "fleet", e, evidread_fleet_id, false) ||
		!evidread_at(f, "generated", e, evidread_day, false) ||
		!evidread_at(f, "since", e, evidread_day, true))
		return false;
	const jsonr_node_t *cs = jsonr_get(f, "cohorts");
	if (!jsonr_is_array(cs) || evidread_len(cs) > EVIDREAD_MAX_COHORT)
		return evidread_fail(e, "cohorts: an array of at most %d expected", EVIDREAD_MAX_COHORT);
	size_t len = strlen(e->path);
	for (size_t i = 0; i < evidread_len(cs); i++) {
		snprintf(e->path + len, sizeof(e->path) - len, ".cohorts[%zu]", i);
		if (!evidread_cohort(jsonr_at(cs, i), e))
			return false;
	}
	e->path[len] = '\0';
	return evidread_rollout(f, e);
}

/* The schema string: this one, or a newer one (refused by name), or none of ours. */
static bool evidread_schema(const jsonr_node_t *root, struct evidread_err *e)
{
	const char *s = jsonr_str(jsonr_get(root, "schema"));
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
static bool evidread_ids_once(const jsonr_node_t *fs, struct evidread_err *e)
{
	size_t n = evidread_len(fs);
	const char **ids = xcalloc(n + 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		ids[i] = jsonr_str(jsonr_get(jsonr_at(fs, i), "fleet"));
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

static bool evidread_root(const jsonr_node_t *root, struct evidread_err *e)
{
	static const char *const keys[] = { "schema", "fleets", NULL };
	if (!jsonr_is_object(root))
		return evidread_fail(e, "a JSON object expected");
	if (!evidread_schema(root, e) || !evidread_keys(root, keys, e))
		return false;
	const jsonr_node_t *fs = jsonr_get(root, "fleets");
	if (!jsonr_is_array(fs) || evidread_len(fs) == 0 || evidread_len(fs) > EVIDREAD_MAX_FLEETS)
		return evidread_fail(e, "fleets: an array of 1 to %d expected", EVIDREAD_MAX_FLEETS);
	for (size_t i = 0; i < evidread_len(fs); i++) {
		snprintf(e->path, sizeof(e->path), "fleets[%zu]", i);
		if (!evidread_fleet(jsonr_at(fs, i), e))
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
	*why = NULL;
	if (len > EVIDREAD_MAX_BYTES) {
		*why = xasprintf("%zu bytes: more than the %u an evidence document may have", len,
			(unsigned)EVIDREAD_MAX_BYTES);
		return NULL;
	}
	jsonr_t *doc = jsonr_create();
	const jsonr_node_t *root = jsonr_parse(doc, text, len);
	if (root == NULL) {
		size_t line, col;
		*why = jsonr_error_place(doc, &line, &col)
			? xasprintf("not JSON: %s, at line %zu, column %zu", jsonr_error(doc), line, col)
			: xasprintf("not JSON: %s", jsonr_error(doc));
		jsonr_destroy(doc);
		return NULL;
	}
	if (!evidread_root(root, &e)) {
		jsonr_destroy(doc);
		*why = e.why;
		return NULL;
	}
	evidread_t *d = xcalloc(1, sizeof(*d));
	d->doc = doc;
	d->root = root;
	return d;
}

void evidread_free(evidread_t *e)
{
	if (e) {
		jsonr_destroy(e->doc);
		free(e);
	}
}

size_t evidread_nfleets(const evidread_t *e)
{
	return evidread_len(jsonr_get(e->root, "fleets"));
}

const char *evidread_fleet_at(const evidread_t *e, size_t i, const char **generated)
{
	const jsonr_node_t *f = jsonr_at(jsonr_get(e->root, "fleets"), i);
	*generated = jsonr_str(jsonr_get(f, "generated"));
	return jsonr_str(jsonr_get(f, "fleet"));
}

/* A fleet of a document being merged, and the order it was read in. */
struct evidread_pick {
	const jsonr_node_t *fleet;
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
	size_t k = 0, cap = 0;
	for (size_t d = 0; d < n; d++)
		cap += evidread_nfleets(docs[d]);
	struct evidread_pick *p = xcalloc(cap + 1, sizeof(*p));
	for (size_t d = 0; d < n; d++) {
		const jsonr_node_t *fs = jsonr_get(docs[d]->root, "fleets");
		for (size_t i = 0; i < evidread_len(fs); i++, k++) {
			p[k].fleet = jsonr_at(fs, i);
			p[k].id = jsonr_str(jsonr_get(p[k].fleet, "fleet"));
			p[k].generated = jsonr_str(jsonr_get(p[k].fleet, "generated"));
			p[k].seq = k;
		}
	}
	if (k > 1)
		qsort(p, k, sizeof(*p), evidread_pick_cmp);
	buf_t b, out;
	buf_init(&b);
	buf_init(&out);
	jsonw_object(&b, NULL);
	jsonw_add(&b, "schema", EVIDENCE_SCHEMA);
	jsonw_array(&b, "fleets");
	for (size_t i = 0; i < k; i++)
		if (i + 1 == k || strcmp(p[i].id, p[i + 1].id) != 0)
			jsonw_copy(&b, NULL, p[i].fleet, 6); /* reals to six digits, as ever */
	jsonw_end_array(&b);
	jsonw_end_object(&b);
	free(p);
	jsonw_indent(&out, b.data, 1); /* as jansson's JSON_INDENT(1) wrote it */
	buf_free(&b);
	return buf_steal(&out, NULL);
}

static const char *evidread_str(const jsonr_node_t *o, const char *key)
{
	return jsonr_str(jsonr_get(o, key)); /* NULL for null */
}

/* Key of a checked tally: a count. */
static long evidread_n(const jsonr_node_t *t, const char *key)
{
	int64_t n = 0;
	jsonr_int(jsonr_get(t, key), &n);
	return (long)n;
}

static void evidread_tally_of(const jsonr_node_t *t, struct evidread_tally *out)
{
	const jsonr_node_t *r = jsonr_get(t, "ratio");
	double median = NAN;
	if (jsonr_is_object(r))
		jsonr_num(jsonr_get(r, "median"), &median);
	*out = (struct evidread_tally){
		.routers = evidread_n(t, "routers"),
		.judged = evidread_n(t, "judged"),
		.regressed = evidread_n(t, "regressed"),
		.improved = evidread_n(t, "improved"),
		.unchanged = evidread_n(t, "unchanged"),
		.insufficient = evidread_n(t, "insufficient"),
		.median = median,
	};
}

bool evidread_next(const evidread_t *e, struct evidread_at *at, struct evidread_cohort *out)
{
	const jsonr_node_t *fs = jsonr_get(e->root, "fleets");
	for (; at->fleet < evidread_len(fs); at->fleet++, at->cohort = 0) {
		const jsonr_node_t *f = jsonr_at(fs, at->fleet), *cs = jsonr_get(f, "cohorts");
		if (at->cohort >= evidread_len(cs))
			continue;
		const jsonr_node_t *c = jsonr_at(cs, at->cohort++);
		*out = (struct evidread_cohort){ .fleet = evidread_str(f, "fleet"),
			.generated = evidread_str(f, "generated"),
			.from_version = evidread_str(c, "from_version"),
			.to_version = evidread_str(c, "to_version"),
			.architecture = evidread_str(c, "architecture"),
			.board = evidread_str(c, "board") };
		evidread_tally_of(jsonr_get(c, "tx"), &out->tx);
		evidread_tally_of(jsonr_get(c, "rx"), &out->rx);
		return true;
	}
	return false;
}

static size_t evidread_size(const jsonr_node_t *o, const char *key)
{
	return (size_t)evidread_n(o, key);
}

size_t evidread_rollout_rows(const evidread_t *e, size_t i, struct evidread_rollout **out)
{
	const jsonr_node_t *f = jsonr_at(jsonr_get(e->root, "fleets"), i);
	const jsonr_node_t *rs = jsonr_get(f, "rollout");
	size_t n = evidread_len(rs);
	*out = xcalloc(n + 1, sizeof(**out));
	for (size_t k = 0; k < n; k++) {
		const jsonr_node_t *c = jsonr_at(rs, k);
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
	return jsonr_get(jsonr_at(jsonr_get(e->root, "fleets"), i), "rollout") != NULL;
}
