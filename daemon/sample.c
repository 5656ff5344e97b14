/* SPDX-License-Identifier: Apache-2.0 */
/* sample: construction, copy and release of poll results. No I/O here. */
#include "config.h"
#include "daemon/sample.h"
#include "lib/clock.h"
#include "lib/xmem.h"

#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const sample_err_names[SAMPLE_ERR_COUNT] = {
	[SAMPLE_OK] = "ok",
	[SAMPLE_ERR_TIMEOUT] = "timeout",
	[SAMPLE_ERR_CONNECT] = "connect",
	[SAMPLE_ERR_DNS] = "dns",
	[SAMPLE_ERR_TLS] = "tls",
	[SAMPLE_ERR_AUTH] = "auth",
	[SAMPLE_ERR_HTTP] = "http",
	[SAMPLE_ERR_PARSE] = "parse",
	[SAMPLE_ERR_SIZE] = "size",
	[SAMPLE_ERR_SNMP] = "snmp",
	[SAMPLE_ERR_UNSUPPORTED] = "unsupported",
	[SAMPLE_ERR_INTERNAL] = "internal",
};

const char *sample_err_name(enum sample_err err)
{
	if ((unsigned)err >= SAMPLE_ERR_COUNT)
		return "internal";
	return sample_err_names[err];
}

/* A block of sample_strdup's strings; a sample's blocks are a list, newest first. */
struct sample_pool {
	struct sample_pool *next;
	size_t size, used; /* bytes of data */
	char data[];
};

/* Blocks double from 256 to 4096 bytes: a sample that keeps a few names (healthkeep's, one per
 * router for hours) stays small, a poll of 20 peers takes four blocks. */
#define SAMPLE_POOL_FIRST 256
#define SAMPLE_POOL_MAX   4096

static size_t sample_pool_size(const struct sample_pool *b, size_t n)
{
	size_t size = b == NULL ? SAMPLE_POOL_FIRST : 2 * b->size;
	if (size > SAMPLE_POOL_MAX)
		size = SAMPLE_POOL_MAX;
	return n > size ? n : size;
}

struct sample_strs {
	atomic_uint refs;
	size_t len;
	char data[];
};

#define SAMPLE_NHELD (sizeof(((sample_t *)0)->held) / sizeof(((sample_t *)0)->held[0]))

/* A sealed sample's peers (sample_seal): the array, then those of their strings that lie in no
 * block the sample held; it holds those blocks itself. Shared by the sample and its copies. */
struct sample_peers {
	atomic_uint refs;
	sample_strs_t *held[SAMPLE_NHELD];
	struct sample_peer peers[];
};

/* The table s->peers lies in; s->peers_sealed. */
static struct sample_peers *sample_peers_of(const sample_t *s)
{
	return (struct sample_peers *)((char *)s->peers - offsetof(struct sample_peers, peers));
}

sample_peers_t *sample_peers_ref(const sample_t *s)
{
	if (!s->peers_sealed)
		return NULL;
	struct sample_peers *t = sample_peers_of(s);
	atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	return t;
}

const struct sample_peer *sample_peers_get(const sample_peers_t *t)
{
	return t->peers;
}

void sample_peers_unref(sample_peers_t *t)
{
	if (t == NULL || atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
		return;
	for (size_t i = 0; i < SAMPLE_NHELD; i++)
		sample_strs_unref(t->held[i]);
	free(t);
}

sample_strs_t *sample_strs_new(const char *data, size_t len)
{
	sample_strs_t *b = xmalloc(sizeof(*b) + len);
	atomic_init(&b->refs, 1);
	b->len = len;
	memcpy(b->data, data, len);
	return b;
}

const char *sample_strs_data(const sample_strs_t *b)
{
	return b->data;
}

sample_strs_t *sample_strs_ref(sample_strs_t *b)
{
	if (b != NULL)
		atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
	return b;
}

void sample_strs_unref(sample_strs_t *b)
{
	if (b != NULL && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
		free(b);
}

bool sample_hold(sample_t *s, sample_strs_t *b)
{
	for (size_t i = 0; i < SAMPLE_NHELD; i++)
		if (s->held[i] == b)
			return true;
	for (size_t i = 0; i < SAMPLE_NHELD; i++)
		if (s->held[i] == NULL) {
			s->held[i] = sample_strs_ref(b);
			return true;
		}
	return false;
}

/* Whether str lies in b (compared as integers: str may be any pointer). */
static bool sample_in(const sample_strs_t *b, const char *str)
{
	uintptr_t p = (uintptr_t)str;
	return p >= (uintptr_t)b->data && p < (uintptr_t)b->data + b->len;
}

sample_strs_t *sample_holder(const sample_t *s, const char *str)
{
	for (size_t i = 0; i < SAMPLE_NHELD; i++)
		if (s->held[i] != NULL && sample_in(s->held[i], str))
			return s->held[i];
	return NULL;
}

/* Whether str lies in a block s holds. */
static bool sample_shared(const sample_t *s, const char *str)
{
	return sample_holder(s, str) != NULL;
}

static void sample_release(sample_t *s)
{
	for (size_t i = 0; i < SAMPLE_NHELD; i++) {
		sample_strs_unref(s->held[i]);
		s->held[i] = NULL;
	}
}

char *sample_strdup(sample_t *s, const char *str)
{
	if (str == NULL)
		return NULL;
	if (sample_shared(s, str))
		return (char *)str; /* immutable: the sample's strings are only read */
	size_t n = strlen(str) + 1;
	struct sample_pool *b = s->pool;
	if (b == NULL || b->size - b->used < n) {
		size_t size = sample_pool_size(b, n);
		b = xmalloc(sizeof(*b) + size);
		*b = (struct sample_pool){ .next = s->pool, .size = size };
		s->pool = b;
	}
	char *d = memcpy(b->data + b->used, str, n);
	b->used += n;
	return d;
}

/* Whether str is one of sample_strdup's (compared as integers: str may be any pointer). */
static bool sample_pooled(const sample_t *s, const char *str)
{
	uintptr_t p = (uintptr_t)str;
	for (const struct sample_pool *b = s->pool; b != NULL; b = b->next)
		if (p >= (uintptr_t)b->data && p < (uintptr_t)b->data + b->size)
			return true;
	return false;
}

/* Frees str unless NULL or sample_strdup's. */
static void sample_free_str(const sample_t *s, char *str)
{
	if (str != NULL && !sample_pooled(s, str) && !sample_shared(s, str))
		free(str);
}

/* Frees p's strings that are neither sample_strdup's nor a held block's. */
static void sample_free_peer(const sample_t *s, struct sample_peer *p)
{
	sample_free_str(s, p->interface);
	sample_free_str(s, p->peer);
	sample_free_str(s, p->public_key);
	sample_free_str(s, p->endpoint);
	sample_free_str(s, p->allowed);
}

static void sample_free_pool(sample_t *s)
{
	while (s->pool != NULL) {
		struct sample_pool *b = s->pool;
		s->pool = b->next;
		free(b);
	}
}

sample_t *sample_new(const char *router, int64_t time_ms, const char *source)
{
	sample_t *s = xcalloc(1, sizeof(*s));
	s->router = xstrdup(router);
	s->time_ms = time_ms;
	s->mono_ms = -1;
	s->source = source;
	s->uptime_ms = -1;
	s->mem_free = s->mem_total = s->disk_free = s->disk_total = -1;
	return s;
}

void sample_stamp(sample_t *s)
{
	s->time_ms = clock_wall_ms();
	s->mono_ms = clock_mono_ms();
}

void sample_free(sample_t *s)
{
	if (s == NULL)
		return;
	if (s->peers_sealed)
		sample_peers_unref(sample_peers_of(s));
	if (s->packed) {
		sample_release(s);
		free(s);
		return;
	}
	for (size_t i = 0; i < s->nifaces; i++) {
		sample_free_str(s, s->ifaces[i].name);
		sample_free_str(s, s->ifaces[i].type);
	}
	for (size_t i = 0; !s->peers_sealed && i < s->npeers; i++)
		sample_free_peer(s, &s->peers[i]);
	for (size_t i = 0; i < s->nsensors; i++)
		sample_free_str(s, s->sensors[i].name);
	for (size_t i = 0; i < s->nmenus; i++)
		sample_free_str(s, s->menus[i].why);
	sample_free_pool(s);
	sample_release(s);
	free(s->sensors);
	free(s->menus);
	free(s->ifaces);
	if (!s->peers_sealed)
		free(s->peers);
	free(s->cores);
	free(s->router);
	free(s->error);
	free(s->version);
	free(s->channel);
	free(s->firmware);
	free(s->upgrade_firmware);
	free(s->board);
	free(s->architecture);
	free(s->cpu_model);
	free(s->offered_version);
	free(s->update_status);
	free(s);
}

/* Bytes sample_dup copies of str: none for a string of a block s holds. */
static size_t sample_slen(const sample_t *s, const char *str)
{
	return str && !sample_shared(s, str) ? strlen(str) + 1 : 0;
}

/* Bytes of p's strings that a copy (sample_dup, sample_seal) takes. */
static size_t sample_peer_slen(const sample_t *s, const struct sample_peer *p)
{
	return sample_slen(s, p->interface) + sample_slen(s, p->peer) + sample_slen(s, p->public_key) +
		sample_slen(s, p->endpoint) + sample_slen(s, p->allowed);
}

/* Bytes sample_dup needs for s: the struct, its arrays, then every string with its NUL. */
static size_t sample_packed_size(const sample_t *s)
{
	size_t n = sizeof(*s) + s->ncores * sizeof(*s->cores) + s->nifaces * sizeof(*s->ifaces) +
		(s->peers_sealed ? 0 : s->npeers * sizeof(*s->peers)) + s->nsensors * sizeof(*s->sensors) +
		s->nmenus * sizeof(*s->menus);
	const char *top[] = { s->router, s->error, s->version, s->channel, s->firmware, s->upgrade_firmware,
		s->board, s->architecture, s->cpu_model, s->offered_version, s->update_status };
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		n += sample_slen(s, top[i]);
	for (size_t i = 0; i < s->nifaces; i++)
		n += sample_slen(s, s->ifaces[i].name) + sample_slen(s, s->ifaces[i].type);
	for (size_t i = 0; !s->peers_sealed && i < s->npeers; i++)
		n += sample_peer_slen(s, &s->peers[i]);
	for (size_t i = 0; i < s->nsensors; i++)
		n += sample_slen(s, s->sensors[i].name);
	for (size_t i = 0; i < s->nmenus; i++)
		n += sample_slen(s, s->menus[i].why);
	return n;
}

/* Copy str to *at and move *at past it; NULL stays NULL, a string of a block s holds stays. */
static char *sample_pack(const sample_t *s, char **at, const char *str)
{
	if (str == NULL || sample_shared(s, str))
		return (char *)str;
	size_t n = strlen(str) + 1;
	char *d = memcpy(*at, str, n);
	*at += n;
	return d;
}

/* d's strings those of p (d a copy of p), packed at *at as sample_pack does. */
static void sample_pack_peer(const sample_t *s, char **at, struct sample_peer *d, const struct sample_peer *p)
{
	d->interface = sample_pack(s, at, p->interface);
	d->peer = sample_pack(s, at, p->peer);
	d->public_key = sample_pack(s, at, p->public_key);
	d->endpoint = sample_pack(s, at, p->endpoint);
	d->allowed = sample_pack(s, at, p->allowed);
}

void sample_seal(sample_t *s)
{
	if (s->packed || s->peers_sealed || s->npeers == 0)
		return;
	size_t n = sizeof(struct sample_peers) + s->npeers * sizeof(*s->peers);
	for (size_t i = 0; i < s->npeers; i++)
		n += sample_peer_slen(s, &s->peers[i]);
	struct sample_peers *t = xmalloc(n);
	atomic_init(&t->refs, 1);
	for (size_t i = 0; i < SAMPLE_NHELD; i++)
		t->held[i] = sample_strs_ref(s->held[i]);
	memcpy(t->peers, s->peers, s->npeers * sizeof(*s->peers));
	char *at = (char *)(t->peers + s->npeers);
	for (size_t i = 0; i < s->npeers; i++) {
		sample_pack_peer(s, &at, &t->peers[i], &s->peers[i]);
		sample_free_peer(s, &s->peers[i]);
	}
	free(s->peers);
	s->peers = t->peers;
	s->cap_peers = 0;
	s->peers_sealed = true;
}

/* Arrays (8-byte aligned: every element size is a multiple of 8) then strings. */
sample_t *sample_dup(const sample_t *s)
{
	sample_t *d = xmalloc(sample_packed_size(s));
	*d = *s;
	d->packed = true;
	d->cap_ifaces = d->cap_peers = d->cap_sensors = d->cap_menus = 0;
	d->pool = NULL;
	for (size_t i = 0; i < SAMPLE_NHELD; i++)
		sample_strs_ref(d->held[i]);
	char *at = (char *)(d + 1);
	d->cores = memcpy(at, s->cores ? (const void *)s->cores : "", s->ncores * sizeof(*d->cores));
	at += s->ncores * sizeof(*d->cores);
	d->ifaces = memcpy(at, s->ifaces ? (const void *)s->ifaces : "", s->nifaces * sizeof(*d->ifaces));
	at += s->nifaces * sizeof(*d->ifaces);
	if (s->peers_sealed) { /* shared: the table, its strings and blocks stay as they are */
		sample_peers_ref(s);
	} else {
		d->peers = memcpy(at, s->peers ? (const void *)s->peers : "", s->npeers * sizeof(*d->peers));
		at += s->npeers * sizeof(*d->peers);
	}
	d->sensors = memcpy(
		at, s->sensors ? (const void *)s->sensors : "", s->nsensors * sizeof(*d->sensors));
	at += s->nsensors * sizeof(*d->sensors);
	d->menus = memcpy(at, s->menus ? (const void *)s->menus : "", s->nmenus * sizeof(*d->menus));
	at += s->nmenus * sizeof(*d->menus);
	d->router = sample_pack(s, &at, s->router), d->error = sample_pack(s, &at, s->error);
	d->version = sample_pack(s, &at, s->version), d->channel = sample_pack(s, &at, s->channel);
	d->firmware = sample_pack(s, &at, s->firmware);
	d->upgrade_firmware = sample_pack(s, &at, s->upgrade_firmware);
	d->board = sample_pack(s, &at, s->board), d->architecture = sample_pack(s, &at, s->architecture);
	d->cpu_model = sample_pack(s, &at, s->cpu_model);
	d->offered_version = sample_pack(s, &at, s->offered_version);
	d->update_status = sample_pack(s, &at, s->update_status);
	for (size_t i = 0; i < s->nifaces; i++) {
		d->ifaces[i].name = sample_pack(s, &at, s->ifaces[i].name);
		d->ifaces[i].type = sample_pack(s, &at, s->ifaces[i].type);
	}
	for (size_t i = 0; !s->peers_sealed && i < s->npeers; i++)
		sample_pack_peer(s, &at, &d->peers[i], &s->peers[i]);
	for (size_t i = 0; i < s->nsensors; i++)
		d->sensors[i].name = sample_pack(s, &at, s->sensors[i].name);
	for (size_t i = 0; i < s->nmenus; i++)
		d->menus[i].why = sample_pack(s, &at, s->menus[i].why);
	return d;
}

void sample_fail(sample_t *s, enum sample_err err, const char *fmt, ...)
{
	if (s->err != SAMPLE_OK)
		return;
	va_list ap;
	va_start(ap, fmt);
	s->err = err;
	s->error = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Room for one more of n elements in *arr of *cap allocated (0: exactly n). */
static void *sample_grow(void *arr, size_t n, uint32_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	size_t want = n < 4 ? 4 : 2 * n;
	if (want > UINT32_MAX) /* far beyond any reply's cap (rest max_body, SNMP's tables) */
		abort();
	*cap = (uint32_t)want;
	return xreallocarray(arr, want, size);
}

struct sample_iface *sample_add_iface(sample_t *s)
{
	s->ifaces = sample_grow(s->ifaces, s->nifaces, &s->cap_ifaces, sizeof(*s->ifaces));
	struct sample_iface *f = &s->ifaces[s->nifaces++];
	memset(f, 0, sizeof(*f));
	return f;
}

struct sample_peer *sample_add_peer(sample_t *s)
{
	assert(!s->peers_sealed && "a sealed sample takes no more peers");
	s->peers = sample_grow(s->peers, s->npeers, &s->cap_peers, sizeof(*s->peers));
	struct sample_peer *p = &s->peers[s->npeers++];
	memset(p, 0, sizeof(*p));
	p->last_handshake_ms = -1;
	return p;
}

void sample_take_ifaces(sample_t *into, sample_t *from)
{
	free(into->ifaces);
	into->ifaces = from->ifaces;
	into->nifaces = from->nifaces;
	into->cap_ifaces = from->cap_ifaces;
	for (size_t i = 0; i < into->nifaces; i++) {
		struct sample_iface *f = &into->ifaces[i];
		if (sample_pooled(from, f->name) || sample_shared(from, f->name))
			f->name = sample_strdup(into, f->name);
		if (sample_pooled(from, f->type) || sample_shared(from, f->type))
			f->type = sample_strdup(into, f->type);
	}
	from->ifaces = NULL;
	from->nifaces = from->cap_ifaces = 0;
}

void sample_set_cores(sample_t *s, size_t n)
{
	free(s->cores);
	s->cores = xcalloc(n, sizeof(*s->cores));
	s->ncores = n;
	for (size_t i = 0; i < n; i++)
		s->cores[i].irq = NAN;
}

void sample_add_sensor(sample_t *s, const char *name, enum sample_unit unit, double value)
{
	if (s->nsensors >= SAMPLE_MAX_SENSORS)
		return;
	for (size_t i = 0; i < s->nsensors; i++)
		if (s->sensors[i].unit == unit && strcmp(s->sensors[i].name, name) == 0)
			return;
	s->sensors = sample_grow(s->sensors, s->nsensors, &s->cap_sensors, sizeof(*s->sensors));
	s->sensors[s->nsensors++] = (struct sample_sensor){
		.name = sample_strdup(s, name), .unit = unit, .value = value
	};
}

void sample_copy_sensors(sample_t *dst, const sample_t *src)
{
	for (size_t i = 0; i < dst->nsensors; i++) /* pooled names stay till dst goes */
		sample_free_str(dst, dst->sensors[i].name);
	dst->nsensors = 0;                         /* the array is kept for the copies */
	for (size_t i = 0; i < src->nsensors; i++) /* names of a block src holds: shared too */
		for (size_t b = 0; b < SAMPLE_NHELD; b++)
			if (src->held[b] != NULL && sample_in(src->held[b], src->sensors[i].name))
				sample_hold(dst, src->held[b]);
	for (size_t i = 0; i < src->nsensors; i++)
		sample_add_sensor(dst, src->sensors[i].name, src->sensors[i].unit, src->sensors[i].value);
}

const char *sample_unit_name(enum sample_unit u)
{
	static const char *const names[SAMPLE_UNIT_COUNT] = {
		[SAMPLE_UNIT_CELSIUS] = "celsius",
		[SAMPLE_UNIT_VOLTS] = "volts",
		[SAMPLE_UNIT_AMPERES] = "amperes",
		[SAMPLE_UNIT_WATTS] = "watts",
		[SAMPLE_UNIT_RPM] = "rpm",
		[SAMPLE_UNIT_STATE] = "state",
	};
	return (unsigned)u < SAMPLE_UNIT_COUNT ? names[u] : "state";
}

void sample_add_menu(sample_t *s, const char *path, const char *why, int64_t since_ms)
{
	s->menus = sample_grow(s->menus, s->nmenus, &s->cap_menus, sizeof(*s->menus));
	s->menus[s->nmenus++] = (struct sample_menu){
		.path = path, .why = sample_strdup(s, why), .since_ms = why != NULL ? since_ms : 0
	};
}
