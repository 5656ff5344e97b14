/* SPDX-License-Identifier: Apache-2.0 */
/* jsonr: JSON texts parsed by simdjson's DOM parser, then laid out as a flat tree (lib/jsonr.h).
 * Written for the routers' replies, where yajl's byte-at-a-time lexer and the callbacks that
 * built the tree from its events were a quarter of a poll's instructions: simdjson validates and
 * indexes a text with vector instructions and leaves its strings NUL-terminated in its own buffer,
 * so the tree only points at them. Nodes go to one array kept between texts, a container's
 * children side by side, so element i is an index. It must never keep a pointer into the text,
 * log, throw into C code, or accept what jansson refused (invalid UTF-8, a NUL in a string, a
 * repeated key, trailing bytes). Unlike yajl, simdjson also refuses a number out of a double's
 * or 64-bit range: RouterOS sends every value as a string, and no file wgwatch reads has a use
 * for such a number either. */
#include "config.h"
extern "C" {
#include "lib/jsonr.h"
#include "lib/jsonpos.h"
#include "lib/xmem.h"
}

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <simdjson.h>

#define JSONR_KEEP (256 * 1024) /* bytes of text a document keeps room for */

enum jsonr_type { RJ_NULL, RJ_TRUE, RJ_FALSE, RJ_STRING, RJ_ARRAY, RJ_OBJECT, RJ_INTEGER, RJ_UINT, RJ_REAL };

struct jsonr_node {
	const jsonr_t *doc;
	enum jsonr_type type;
	uint32_t first, n; /* container: children at doc->nodes[first..first+n) */
	union {
		const char *s; /* string: simdjson's NUL-terminated copy */
		struct {
			double num; /* number: its value */
			int64_t i;  /* RJ_INTEGER: its exact value */
		};
	};
	uint32_t len;
	uint32_t klen; /* member of an object: its key, also NUL-terminated */
	const char *key;
};

struct jsonr {
	simdjson::dom::parser *parser;
	struct jsonr_node *nodes;
	size_t nnodes, capnodes;
	uint32_t cur_first, cur_i; /* jsonr_get's last hit: the object (by its first child), member */
	char why[96];              /* why the last parse refused its text; "" after one accepted */
	size_t line, col;          /* where its grammar broke (jsonpos.c); 0: not a grammar error */
};

extern "C" jsonr_t *jsonr_create(void)
{
	return static_cast<jsonr_t *>(xcalloc(1, sizeof(jsonr_t)));
}

extern "C" void jsonr_destroy(jsonr_t *d)
{
	if (d == NULL)
		return;
	delete d->parser;
	free(d->nodes);
	free(d);
}

/* Room for n more nodes; the index of the first. */
static uint32_t jsonr_grow(jsonr_t *d, size_t n)
{
	if (d->nnodes + n > d->capnodes) {
		while (d->nnodes + n > d->capnodes)
			d->capnodes = d->capnodes ? 2 * d->capnodes : 64;
		d->nodes = static_cast<struct jsonr_node *>(
			xreallocarray(d->nodes, d->capnodes, sizeof(*d->nodes)));
	}
	uint32_t at = static_cast<uint32_t>(d->nnodes);
	d->nnodes += n;
	return at;
}

static bool jsonr_fill(jsonr_t *d, simdjson::dom::element e, uint32_t at);

/* How many of s's first max bytes to show without splitting a UTF-8 sequence. */
static int jsonr_cut(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n <= max)
		return static_cast<int>(n);
	while (max > 0 && (static_cast<unsigned char>(s[max]) & 0xc0) == 0x80)
		max--;
	return static_cast<int>(max);
}

/* simdjson's refusal in words of the header's list. */
static const char *jsonr_why(simdjson::error_code e)
{
	switch (e) {
	case simdjson::DEPTH_ERROR: return "nested deeper than 64 arrays and objects";
	case simdjson::UTF8_ERROR: return "not UTF-8";
	case simdjson::EMPTY: return "no JSON value";
	case simdjson::NUMBER_ERROR:
	case simdjson::NUMBER_OUT_OF_RANGE: return "a malformed number, or one beyond a double or 64 bits";
	case simdjson::STRING_ERROR:
	case simdjson::UNESCAPED_CHARS: return "a malformed string (a bad escape or a raw control character)";
	case simdjson::UNCLOSED_STRING: return "a string not closed";
	case simdjson::T_ATOM_ERROR:
	case simdjson::F_ATOM_ERROR:
	case simdjson::N_ATOM_ERROR: return "a word that is not true, false or null";
	case simdjson::TRAILING_CONTENT: return "more than one JSON value";
	case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return "an array or object not closed";
	case simdjson::CAPACITY:
	case simdjson::MEMALLOC: return "too big";
	default: return "a bracket, brace, comma, colon or quote missing or misplaced";
	}
}

static bool jsonr_key_less(const struct jsonr_node *x, const struct jsonr_node *y)
{
	int c = memcmp(x->key, y->key, x->klen < y->klen ? x->klen : y->klen);
	return c != 0 ? c < 0 : x->klen < y->klen;
}

static bool jsonr_key_same(const struct jsonr_node *x, const struct jsonr_node *y)
{
	return x->klen == y->klen && memcmp(x->key, y->key, x->klen) == 0;
}

/* A key that two of the n members from nodes[first] share, or NULL: pairwise for a record's
 * dozen, sorted beyond, so that a text of one huge object costs n log n, not n squared. */
static const char *jsonr_repeats(const jsonr_t *d, uint32_t first, uint32_t n)
{
	const struct jsonr_node *m = d->nodes + first;
	if (n <= 16) {
		for (uint32_t i = 0; i < n; i++)
			for (uint32_t k = i + 1; k < n; k++)
				if (jsonr_key_same(&m[i], &m[k]))
					return m[i].key;
		return NULL;
	}
	const struct jsonr_node **p = static_cast<const struct jsonr_node **>(xcalloc(n, sizeof(*p)));
	for (uint32_t i = 0; i < n; i++)
		p[i] = &m[i];
	std::sort(p, p + n, jsonr_key_less);
	const char *rep = NULL;
	for (uint32_t i = 1; i < n && rep == NULL; i++)
		rep = jsonr_key_same(p[i - 1], p[i]) ? p[i]->key : NULL;
	free(p);
	return rep;
}

/* nodes[at] becomes a container of n children, placed side by side; the first's index, or
 * UINT32_MAX when the tree would outgrow its 32-bit indices. */
static uint32_t jsonr_place(jsonr_t *d, enum jsonr_type type, size_t n, uint32_t at)
{
	if (n > UINT32_MAX / 4 || d->nnodes + n > UINT32_MAX / 2)
		return UINT32_MAX;
	uint32_t first = jsonr_grow(d, n);
	d->nodes[at].type = type;
	d->nodes[at].first = first;
	d->nodes[at].n = static_cast<uint32_t>(n);
	return first;
}

static bool jsonr_fill_array(jsonr_t *d, simdjson::dom::array a, uint32_t at)
{
	uint32_t i = jsonr_place(d, RJ_ARRAY, a.size(), at);
	if (i == UINT32_MAX)
		return false;
	for (simdjson::dom::element x : a) {
		d->nodes[i].key = NULL;
		d->nodes[i].klen = 0;
		if (!jsonr_fill(d, x, i++))
			return false;
	}
	return true;
}

static bool jsonr_fill_object(jsonr_t *d, simdjson::dom::object o, uint32_t at)
{
	uint32_t first = jsonr_place(d, RJ_OBJECT, o.size(), at), i = first;
	if (first == UINT32_MAX)
		return false;
	for (simdjson::dom::key_value_pair kv : o) {
		if (kv.key.size() > UINT32_MAX / 2 || memchr(kv.key.data(), '\0', kv.key.size()) != NULL) {
			snprintf(d->why, sizeof(d->why), "a NUL (\\u0000) in a key");
			return false;
		}
		d->nodes[i].key = kv.key.data();
		d->nodes[i].klen = static_cast<uint32_t>(kv.key.size());
		if (!jsonr_fill(d, kv.value, i++))
			return false;
	}
	const char *rep = jsonr_repeats(d, first, d->nodes[at].n);
	if (rep != NULL) /* its first 40 bytes, cut before a UTF-8 continuation byte */
		snprintf(d->why, sizeof(d->why), "an object with the key \"%.*s\" twice", jsonr_cut(rep, 40),
			rep);
	return rep == NULL;
}

/* nodes[at] (its key already set, if a member) becomes e; containers place their children. */
static bool jsonr_fill(jsonr_t *d, simdjson::dom::element e, uint32_t at)
{
	d->nodes[at].doc = d;
	d->nodes[at].type = RJ_NULL;
	simdjson::dom::array a;
	simdjson::dom::object o;
	std::string_view s;
	switch (e.type()) {
	case simdjson::dom::element_type::ARRAY:
		return e.get_array().get(a) == simdjson::SUCCESS && jsonr_fill_array(d, a, at);
	case simdjson::dom::element_type::OBJECT:
		return e.get_object().get(o) == simdjson::SUCCESS && jsonr_fill_object(d, o, at);
	case simdjson::dom::element_type::STRING:
		if (e.get_string().get(s) != simdjson::SUCCESS || s.size() > UINT32_MAX / 2 ||
			memchr(s.data(), '\0', s.size()) != NULL) {
			snprintf(d->why, sizeof(d->why), "a NUL (\\u0000) in a string");
			return false;
		}
		d->nodes[at].type = RJ_STRING;
		d->nodes[at].s = s.data();
		d->nodes[at].len = static_cast<uint32_t>(s.size());
		return true;
	case simdjson::dom::element_type::INT64:
		d->nodes[at].type = RJ_INTEGER;
		d->nodes[at].i = e.get_int64().value_unsafe();
		d->nodes[at].num = static_cast<double>(d->nodes[at].i);
		return true;
	case simdjson::dom::element_type::UINT64: /* beyond INT64_MAX: only a double */
	case simdjson::dom::element_type::DOUBLE:
		d->nodes[at].type = e.type() == simdjson::dom::element_type::DOUBLE ? RJ_REAL : RJ_UINT;
		d->nodes[at].num = e.get_double().value_unsafe(); /* any number converts */
		return true;
	case simdjson::dom::element_type::BOOL:
		d->nodes[at].type = e.get_bool().value_unsafe() ? RJ_TRUE : RJ_FALSE;
		return true;
	default: return true; /* null */
	}
}

/* The parser, made on first use and made afresh after a reply bigger than JSONR_KEEP; the
 * node array likewise given back. NULL only when memory ran out. */
static simdjson::dom::parser *jsonr_parser(jsonr_t *d)
{
	if (d->parser != NULL && d->parser->capacity() > JSONR_KEEP) {
		delete d->parser;
		d->parser = NULL;
	}
	if (d->capnodes * sizeof(*d->nodes) > JSONR_KEEP) {
		free(d->nodes);
		d->nodes = NULL;
		d->capnodes = 0;
	}
	if (d->parser == NULL) {
		d->parser = new (std::nothrow) simdjson::dom::parser(simdjson::SIMDJSON_MAXSIZE_BYTES);
		if (d->parser != NULL && d->parser->allocate(4096, JSONR_MAX_DEPTH) != simdjson::SUCCESS) {
			delete d->parser;
			d->parser = NULL;
		}
	}
	return d->parser;
}

extern "C" const jsonr_node_t *jsonr_parse(jsonr_t *d, const char *text, size_t len)
{
	d->nnodes = 0;
	d->cur_first = UINT32_MAX;
	simdjson::dom::parser *p = jsonr_parser(d);
	simdjson::dom::element root;
	d->why[0] = '\0';
	d->line = d->col = 0;
	simdjson::error_code e = p != NULL ? p->parse(text, len, true).get(root) : simdjson::MEMALLOC;
	if (e != simdjson::SUCCESS) {
		snprintf(d->why, sizeof(d->why), "%s", jsonr_why(e));
		size_t stop = e == simdjson::MEMALLOC || e == simdjson::CAPACITY ? SIZE_MAX
										 : jsonpos_stop(text, len);
		if (stop != SIZE_MAX)
			jsonpos_place(text, stop, &d->line, &d->col);
		return NULL;
	}
	uint32_t at = jsonr_grow(d, 1);
	d->nodes[at] = jsonr_node{};
	if (jsonr_fill(d, root, at))
		return &d->nodes[at];
	if (d->why[0] == '\0')
		snprintf(d->why, sizeof(d->why), "too big");
	return NULL;
}

extern "C" const char *jsonr_error(const jsonr_t *d)
{
	return d->why;
}

extern "C" bool jsonr_error_place(const jsonr_t *d, size_t *line, size_t *col)
{
	*line = d->line;
	*col = d->col;
	return d->line > 0;
}

extern "C" bool jsonr_is_object(const jsonr_node_t *n)
{
	return n != NULL && n->type == RJ_OBJECT;
}

extern "C" bool jsonr_is_array(const jsonr_node_t *n)
{
	return n != NULL && n->type == RJ_ARRAY;
}

extern "C" bool jsonr_is_string(const jsonr_node_t *n)
{
	return n != NULL && n->type == RJ_STRING;
}

extern "C" size_t jsonr_size(const jsonr_node_t *n)
{
	return n != NULL && (n->type == RJ_ARRAY || n->type == RJ_OBJECT) ? n->n : 0;
}

extern "C" const jsonr_node_t *jsonr_at(const jsonr_node_t *n, size_t i)
{
	return i < jsonr_size(n) ? &n->doc->nodes[n->first + i] : NULL;
}

extern "C" const char *jsonr_key(const jsonr_node_t *n, size_t i)
{
	const jsonr_node_t *m = jsonr_is_object(n) ? jsonr_at(n, i) : NULL;
	return m != NULL ? m->key : NULL;
}

/* Decoders ask a record's keys mostly in the order RouterOS sends them, so the search starts
 * after the member found last in the same object and wraps: one comparison where the orders
 * agree. The cursor is a lookup cache kept in the document, not part of the tree. */
extern "C" const jsonr_node_t *jsonr_get(const jsonr_node_t *n, const char *key)
{
	if (!jsonr_is_object(n) || n->n == 0)
		return NULL;
	jsonr_t *d = const_cast<jsonr_t *>(n->doc);
	size_t len = strlen(key);
	uint32_t i = d->cur_first == n->first && d->cur_i + 1 < n->n ? d->cur_i + 1 : 0;
	for (uint32_t k = 0; k < n->n; k++, i = i + 1 < n->n ? i + 1 : 0) {
		const jsonr_node_t *m = &d->nodes[n->first + i];
		if (m->klen == len && memcmp(m->key, key, len) == 0) {
			d->cur_first = n->first;
			d->cur_i = i;
			return m;
		}
	}
	return NULL;
}

extern "C" bool jsonr_is_number(const jsonr_node_t *n)
{
	return n != NULL && (n->type == RJ_INTEGER || n->type == RJ_UINT || n->type == RJ_REAL);
}

extern "C" bool jsonr_is_bool(const jsonr_node_t *n)
{
	return n != NULL && (n->type == RJ_TRUE || n->type == RJ_FALSE);
}

extern "C" bool jsonr_is_null(const jsonr_node_t *n)
{
	return n != NULL && n->type == RJ_NULL;
}

extern "C" bool jsonr_num(const jsonr_node_t *n, double *v)
{
	if (!jsonr_is_number(n))
		return false;
	*v = n->num;
	return true;
}

extern "C" bool jsonr_is_integer(const jsonr_node_t *n)
{
	return n != NULL && (n->type == RJ_INTEGER || n->type == RJ_UINT);
}

extern "C" bool jsonr_int(const jsonr_node_t *n, int64_t *v)
{
	if (n == NULL || n->type != RJ_INTEGER)
		return false;
	*v = n->i;
	return true;
}

extern "C" bool jsonr_bool(const jsonr_node_t *n, bool *v)
{
	if (!jsonr_is_bool(n))
		return false;
	*v = n->type == RJ_TRUE;
	return true;
}

extern "C" const char *jsonr_str(const jsonr_node_t *n)
{
	return jsonr_is_string(n) ? n->s : NULL;
}
