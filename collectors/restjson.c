/* restjson: RouterOS REST replies parsed with yajl's event parser into a flat, reusable tree.
 * jansson built a hash table per object and copied every character on its own: it was the half
 * of a poll's instructions. Here nodes and strings go to two arrays kept between replies, and a
 * container's children are moved next to each other when it closes, so that element i is an
 * index. It must never keep a pointer into the reply, log, or accept what jansson refused
 * (invalid UTF-8, a NUL in a string, a repeated key, trailing bytes). */
#include "config.h"
#include "collectors/restjson.h"
#include "lib/xmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#define RESTJSON_MAX_DEPTH 64
#define RESTJSON_KEEP      (256 * 1024) /* bytes of room kept after a bigger reply */

enum restjson_type { RJ_OTHER, RJ_STRING, RJ_ARRAY, RJ_OBJECT };

struct restjson_node {
	const restjson_t *doc;
	enum restjson_type type;
	uint32_t first, n;   /* container: children at doc->nodes[first..first+n) */
	uint32_t off, len;   /* string: doc->text + off */
	uint32_t koff, klen; /* member of an object: its key at doc->text + koff */
};

struct restjson_frame {
	enum restjson_type type;
	size_t start;        /* its children from doc->scratch[start] */
	uint32_t koff, klen; /* the key it is the value of */
	bool keyed;
};

struct restjson {
	struct restjson_node *nodes, *scratch; /* placed children; values of open containers */
	size_t nnodes, capnodes, nscratch, capscratch;
	char *text;
	size_t ntext, captext;
	struct restjson_frame frames[RESTJSON_MAX_DEPTH];
	size_t depth;
	uint32_t koff, klen; /* the key just read, for the next value */
	bool keyed;
	struct restjson_node root;
	uint32_t cur_first, cur_i; /* restjson_get's last hit: the object (by its first child), member */
};

restjson_t *restjson_create(void)
{
	return xcalloc(1, sizeof(restjson_t));
}

void restjson_destroy(restjson_t *d)
{
	if (d == NULL)
		return;
	free(d->nodes);
	free(d->scratch);
	free(d->text);
	free(d);
}

/* Copies s (len bytes) and a NUL into d->text; its offset. */
static uint32_t restjson_text(restjson_t *d, const unsigned char *s, size_t len)
{
	if (d->ntext + len + 1 > d->captext) {
		while (d->ntext + len + 1 > d->captext)
			d->captext = d->captext ? 2 * d->captext : 4096;
		d->text = xreallocarray(d->text, d->captext, 1);
	}
	uint32_t off = (uint32_t)d->ntext;
	memcpy(d->text + off, s, len);
	d->text[off + len] = '\0';
	d->ntext += len + 1;
	return off;
}

static struct restjson_node *restjson_grow(struct restjson_node **v, size_t *n, size_t *cap, size_t more)
{
	if (*n + more > *cap || *v == NULL) {
		while (*n + more > *cap || *cap == 0)
			*cap = *cap ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	struct restjson_node *at = *v + *n;
	*n += more;
	return at;
}

/* A finished value of the open container (or the root), with the key read before it. */
static int restjson_push(restjson_t *d, struct restjson_node n)
{
	n.doc = d;
	n.koff = d->keyed ? d->koff : 0;
	n.klen = d->keyed ? d->klen : 0;
	d->keyed = false;
	if (d->depth == 0)
		d->root = n;
	else
		*restjson_grow(&d->scratch, &d->nscratch, &d->capscratch, 1) = n;
	return 1;
}

static int restjson_on_other(void *ctx)
{
	return restjson_push(ctx, (struct restjson_node){ .type = RJ_OTHER });
}

static int restjson_on_bool(void *ctx, int v)
{
	(void)v;
	return restjson_on_other(ctx);
}

static int restjson_on_number(void *ctx, const char *s, size_t len)
{
	(void)s, (void)len;
	return restjson_on_other(ctx);
}

static int restjson_on_string(void *ctx, const unsigned char *s, size_t len)
{
	restjson_t *d = ctx;
	if (len > UINT32_MAX / 2 || memchr(s, '\0', len) != NULL)
		return 0;
	uint32_t off = restjson_text(d, s, len);
	return restjson_push(
		d, (struct restjson_node){ .type = RJ_STRING, .off = off, .len = (uint32_t)len });
}

static int restjson_on_key(void *ctx, const unsigned char *s, size_t len)
{
	restjson_t *d = ctx;
	if (len > UINT32_MAX / 2 || memchr(s, '\0', len) != NULL)
		return 0;
	d->koff = restjson_text(d, s, len);
	d->klen = (uint32_t)len;
	d->keyed = true;
	return 1;
}

static int restjson_open(restjson_t *d, enum restjson_type type)
{
	if (d->depth == RESTJSON_MAX_DEPTH)
		return 0;
	d->frames[d->depth++] = (struct restjson_frame){
		.type = type, .start = d->nscratch, .koff = d->koff, .klen = d->klen, .keyed = d->keyed
	};
	d->keyed = false;
	return 1;
}

static int restjson_on_start_map(void *ctx)
{
	return restjson_open(ctx, RJ_OBJECT);
}

static int restjson_on_start_array(void *ctx)
{
	return restjson_open(ctx, RJ_ARRAY);
}

static int restjson_key_cmp(const void *a, const void *b)
{
	const struct restjson_node *x = *(struct restjson_node *const *)a,
				   *y = *(struct restjson_node *const *)b;
	int c = memcmp(x->doc->text + x->koff, y->doc->text + y->koff, x->klen < y->klen ? x->klen : y->klen);
	return c != 0 ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

/* Whether two of the n members at m share a key: pairwise for a record's dozen, sorted beyond. */
static bool restjson_repeats(struct restjson_node *m, size_t n)
{
	if (n <= 16) {
		for (size_t i = 0; i < n; i++)
			for (size_t k = i + 1; k < n; k++)
				if (m[i].klen == m[k].klen &&
					memcmp(m[i].doc->text + m[i].koff, m[k].doc->text + m[k].koff,
						m[i].klen) == 0)
					return true;
		return false;
	}
	struct restjson_node **p = xcalloc(n, sizeof(*p));
	for (size_t i = 0; i < n; i++)
		p[i] = &m[i];
	qsort(p, n, sizeof(*p), restjson_key_cmp);
	bool rep = false;
	for (size_t i = 1; i < n && !rep; i++)
		rep = restjson_key_cmp(&p[i - 1], &p[i]) == 0;
	free(p);
	return rep;
}

/* The open container's children move to d->nodes side by side; it becomes a value itself. */
static int restjson_close(restjson_t *d)
{
	struct restjson_frame f = d->frames[--d->depth];
	size_t n = d->nscratch - f.start;
	if (n > UINT32_MAX / 2 || d->nnodes > UINT32_MAX / 2)
		return 0;
	uint32_t first = (uint32_t)d->nnodes;
	struct restjson_node *at = restjson_grow(&d->nodes, &d->nnodes, &d->capnodes, n);
	if (n > 0) /* scratch is NULL before a first value */
		memcpy(at, d->scratch + f.start, n * sizeof(*at));
	d->nscratch = f.start;
	if (f.type == RJ_OBJECT && restjson_repeats(at, n))
		return 0;
	d->koff = f.koff;
	d->klen = f.klen;
	d->keyed = f.keyed;
	return restjson_push(d, (struct restjson_node){ .type = f.type, .first = first, .n = (uint32_t)n });
}

static int restjson_on_end(void *ctx)
{
	return restjson_close(ctx);
}

static const yajl_callbacks restjson_callbacks = {
	.yajl_null = restjson_on_other,
	.yajl_boolean = restjson_on_bool,
	.yajl_number = restjson_on_number,
	.yajl_string = restjson_on_string,
	.yajl_start_map = restjson_on_start_map,
	.yajl_map_key = restjson_on_key,
	.yajl_end_map = restjson_on_end,
	.yajl_start_array = restjson_on_start_array,
	.yajl_end_array = restjson_on_end,
};

/* Empties d, giving back the room a reply bigger than RESTJSON_KEEP took. */
static void restjson_reset(restjson_t *d)
{
	if (d->captext > RESTJSON_KEEP || d->capnodes * sizeof(*d->nodes) > RESTJSON_KEEP) {
		free(d->text), free(d->nodes), free(d->scratch);
		*d = (restjson_t){ 0 };
	}
	d->nnodes = d->nscratch = d->ntext = d->depth = 0;
	d->keyed = false;
	d->root = (struct restjson_node){ .type = RJ_OTHER };
	d->cur_first = UINT32_MAX;
}

const restjson_node_t *restjson_parse(restjson_t *d, const char *body, size_t len)
{
	restjson_reset(d);
	yajl_handle h = yajl_alloc(&restjson_callbacks, NULL, d);
	if (h == NULL)
		return NULL;
	bool ok = yajl_parse(h, (const unsigned char *)body, len) == yajl_status_ok &&
		yajl_complete_parse(h) == yajl_status_ok && d->depth == 0;
	yajl_free(h);
	return ok ? &d->root : NULL;
}

bool restjson_is_object(const restjson_node_t *n)
{
	return n != NULL && n->type == RJ_OBJECT;
}

bool restjson_is_array(const restjson_node_t *n)
{
	return n != NULL && n->type == RJ_ARRAY;
}

bool restjson_is_string(const restjson_node_t *n)
{
	return n != NULL && n->type == RJ_STRING;
}

size_t restjson_size(const restjson_node_t *n)
{
	return n != NULL && (n->type == RJ_ARRAY || n->type == RJ_OBJECT) ? n->n : 0;
}

const restjson_node_t *restjson_at(const restjson_node_t *n, size_t i)
{
	return i < restjson_size(n) ? &n->doc->nodes[n->first + i] : NULL;
}

const char *restjson_key(const restjson_node_t *n, size_t i)
{
	const restjson_node_t *m = restjson_is_object(n) ? restjson_at(n, i) : NULL;
	return m != NULL ? m->doc->text + m->koff : NULL;
}

/* Decoders ask a record's keys mostly in the order RouterOS sends them, so the search starts
 * after the member found last in the same object and wraps: one comparison where the orders
 * agree. The cursor is a lookup cache kept in the document, not part of the tree. */
const restjson_node_t *restjson_get(const restjson_node_t *n, const char *key)
{
	if (!restjson_is_object(n) || n->n == 0)
		return NULL;
	restjson_t *d = (restjson_t *)n->doc;
	size_t len = strlen(key);
	uint32_t i = d->cur_first == n->first && d->cur_i + 1 < n->n ? d->cur_i + 1 : 0;
	for (uint32_t k = 0; k < n->n; k++, i = i + 1 < n->n ? i + 1 : 0) {
		const restjson_node_t *m = &d->nodes[n->first + i];
		if (m->klen == len && memcmp(d->text + m->koff, key, len) == 0) {
			d->cur_first = n->first;
			d->cur_i = i;
			return m;
		}
	}
	return NULL;
}

const char *restjson_str(const restjson_node_t *n)
{
	return restjson_is_string(n) ? n->doc->text + n->off : NULL;
}
