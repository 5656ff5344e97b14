/* SPDX-License-Identifier: Apache-2.0 */
/* restdecode: RouterOS REST JSON replies -> sample, and error bodies -> a reason; collectors/rest.c
 * does the I/O. Pure parsing of untrusted input: it must never touch curl, the loop or the log,
 * and every cause or reason it returns is printable ASCII. */
#include "config.h"
#include "collectors/restdecode.h"
#include "lib/jsonr.h"
#include "daemon/ros.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A copy of untrusted text fit for an error line: printable ASCII only, at most max bytes. */
char *restdecode_clean(const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = n > max;
	if (cut)
		n = max;
	char *d = xmalloc(n + 4);
	for (size_t i = 0; i < n; i++)
		d[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	memcpy(d + n, cut ? "..." : "", cut ? 4 : 1);
	return d;
}

/* What the router says of itself (version, board, architecture, CPU, firmware), cut to
 * TEXT_IDENTITY_MAX: it goes into every router_info label and log line, and no router's is
 * longer (a 10 KB board name is not one). */
static void restdecode_set(char **dst, const char *v)
{
	free(*dst);
	*dst = text_cap(v, TEXT_IDENTITY_MAX);
}

/* Every value of a record must be a JSON string (routeros.md §1.3; jsonr refuses NULs). */
static int restdecode_check_record(const jsonr_node_t *o, char **cause)
{
	if (!jsonr_is_object(o)) {
		*cause = xstrdup("record is not a JSON object");
		return -1;
	}
	for (size_t i = 0; i < jsonr_size(o); i++) {
		const jsonr_node_t *v = jsonr_at(o, i);
		if (jsonr_is_string(v))
			continue;
		char *k = restdecode_clean(jsonr_key(o, i), 40);
		*cause = xasprintf("value of \"%s\" is not a string", k);
		free(k);
		return -1;
	}
	return 0;
}

/* Element i of an array; NULL for anything else or past its end. */
static const jsonr_node_t *restdecode_elem(const jsonr_node_t *j, size_t i)
{
	return jsonr_is_array(j) ? jsonr_at(j, i) : NULL;
}

/* Elements of an array; 0 for anything else. */
static size_t restdecode_nelem(const jsonr_node_t *j)
{
	return jsonr_is_array(j) ? jsonr_size(j) : 0;
}

/* A singleton menu: one object, or (older versions) a one-element array of it. */
static const jsonr_node_t *restdecode_singleton(const jsonr_node_t *j, char **cause)
{
	if (restdecode_nelem(j) == 1)
		j = restdecode_elem(j, 0);
	if (!jsonr_is_object(j)) {
		*cause = xstrdup("expected one object");
		return NULL;
	}
	return restdecode_check_record(j, cause) < 0 ? NULL : j;
}

static int restdecode_list(const jsonr_node_t *j, char **cause)
{
	if (!jsonr_is_array(j)) {
		*cause = xstrdup("expected a list");
		return -1;
	}
	return 0;
}

/* The value of key in a checked record, or NULL when absent. */
static const char *restdecode_str(const jsonr_node_t *o, const char *key)
{
	return jsonr_str(jsonr_get(o, key));
}

static int restdecode_need(const jsonr_node_t *o, const char *key, const char **out, char **cause)
{
	*out = restdecode_str(o, key);
	if (*out == NULL) {
		*cause = xasprintf("missing \"%s\"", key);
		return -1;
	}
	return 0;
}

static int restdecode_bad(const char *key, const char *val, const char *why, char **cause)
{
	char *v = restdecode_clean(val, 32);
	*cause = xasprintf("\"%s\": \"%s\": %s", key, v, why);
	free(v);
	return -1;
}

/* Optional unless need: an absent optional key leaves *out untouched. */
static int restdecode_u64(const jsonr_node_t *o, const char *key, bool need, uint64_t *out, char **cause)
{
	const char *v = restdecode_str(o, key), *why;
	if (v == NULL)
		return need ? restdecode_need(o, key, &v, cause) : 0;
	if (ros_parse_u64(v, out, &why) < 0)
		return restdecode_bad(key, v, why, cause);
	return 0;
}

static int restdecode_bool(const jsonr_node_t *o, const char *key, bool *out, char **cause)
{
	const char *v = restdecode_str(o, key), *why;
	if (v != NULL && ros_parse_bool(v, out, &why) < 0)
		return restdecode_bad(key, v, why, cause);
	return 0;
}

static int restdecode_percent(const jsonr_node_t *o, const char *key, bool need, double *out, char **cause)
{
	const char *v = restdecode_str(o, key), *why;
	if (v == NULL)
		return need ? restdecode_need(o, key, &v, cause) : 0;
	if (ros_parse_percent(v, out, &why) < 0)
		return restdecode_bad(key, v, why, cause);
	return 0;
}

static int restdecode_duration(const jsonr_node_t *o, const char *key, bool need, int64_t *out, char **cause)
{
	const char *v = restdecode_str(o, key), *why;
	if (v == NULL)
		return need ? restdecode_need(o, key, &v, cause) : 0;
	if (ros_parse_duration(v, out, &why) < 0)
		return restdecode_bad(key, v, why, cause);
	return 0;
}

/* cpu-frequency in MHz; absent on some boards (the CCR2004-1G-12S+2XS), then 0 = unknown. */
static int restdecode_mhz(const jsonr_node_t *o, sample_t *s, char **cause)
{
	uint64_t mhz = 0;
	if (restdecode_u64(o, "cpu-frequency", false, &mhz, cause) < 0)
		return -1;
	if (mhz > 1000000)
		return restdecode_bad("cpu-frequency", restdecode_str(o, "cpu-frequency"),
			"not a CPU frequency in MHz", cause);
	s->cpu_freq_mhz = (uint32_t)mhz;
	return 0;
}

/* free-memory, total-memory, free-hdd-space, total-hdd-space: bytes, each optional. */
static int restdecode_resource_sizes(const jsonr_node_t *o, sample_t *s, char **cause)
{
	static const char *const keys[] = { "free-memory", "total-memory", "free-hdd-space",
		"total-hdd-space" };
	int64_t *dst[] = { &s->mem_free, &s->mem_total, &s->disk_free, &s->disk_total };
	for (size_t k = 0; k < 4; k++) {
		uint64_t v = UINT64_MAX;
		if (restdecode_u64(o, keys[k], false, &v, cause) < 0)
			return -1;
		*dst[k] = v <= INT64_MAX ? (int64_t)v : -1;
	}
	return 0;
}

static int restdecode_resource(const jsonr_node_t *j, sample_t *s, char **cause)
{
	const jsonr_node_t *o = restdecode_singleton(j, cause);
	const char *ver, *board, *why;
	int64_t up;
	struct ros_version v;
	if (o == NULL || restdecode_duration(o, "uptime", true, &up, cause) < 0 ||
		restdecode_need(o, "version", &ver, cause) < 0 ||
		restdecode_need(o, "board-name", &board, cause) < 0)
		return -1;
	if (ros_parse_version(ver, &v, &why) < 0)
		return restdecode_bad("version", ver, why, cause);
	if (restdecode_resource_sizes(o, s, cause) < 0)
		return -1;
	s->uptime_ms = up;
	restdecode_set(&s->version, v.text);
	restdecode_set(&s->channel, v.channel[0] ? v.channel : NULL);
	restdecode_set(&s->board, board);
	restdecode_set(&s->architecture, restdecode_str(o, "architecture-name"));
	restdecode_set(&s->cpu_model, restdecode_str(o, "cpu"));
	return restdecode_mhz(o, s, cause);
}

struct restdecode_cpu {
	uint64_t key; /* N of "cpuN", else of ".id" "*N" (hex), else the row */
	size_t row;
	double load, irq;
};

/* Reads the digits after prefix in s in base; -1 unless all of s is prefix + 1..16 digits. */
static int restdecode_num_after(const char *s, const char *prefix, int base, uint64_t *out)
{
	size_t n = strlen(prefix);
	if (s == NULL || strncmp(s, prefix, n) != 0 || s[n] == '\0' || strlen(s + n) > 16)
		return -1;
	const char *digits = base == 16 ? "0123456789ABCDEFabcdef" : "0123456789";
	if (s[n + strspn(s + n, digits)] != '\0')
		return -1;
	*out = strtoull(s + n, NULL, base);
	return 0;
}

static int restdecode_cpu_order(const void *a, const void *b)
{
	const struct restdecode_cpu *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int restdecode_cpu_row(const jsonr_node_t *o, size_t row, struct restdecode_cpu *c, char **cause)
{
	const char *name;
	c->row = row;
	c->irq = NAN;
	if (restdecode_check_record(o, cause) < 0 || restdecode_need(o, "cpu", &name, cause) < 0 ||
		restdecode_percent(o, "load", true, &c->load, cause) < 0 ||
		restdecode_percent(o, "irq", false, &c->irq, cause) < 0)
		return -1;
	if (restdecode_num_after(name, "cpu", 10, &c->key) < 0 &&
		restdecode_num_after(restdecode_str(o, ".id"), "*", 16, &c->key) < 0)
		c->key = row;
	return 0;
}

static int restdecode_cpu(const jsonr_node_t *j, sample_t *s, char **cause)
{
	size_t n = restdecode_nelem(j);
	if (restdecode_list(j, cause) < 0)
		return -1;
	if (n == 0) {
		*cause = xstrdup("no CPU rows");
		return -1;
	}
	struct restdecode_cpu *rows = xcalloc(n, sizeof(*rows));
	for (size_t i = 0; i < n; i++) {
		if (restdecode_cpu_row(restdecode_elem(j, i), i, &rows[i], cause) < 0) {
			free(rows);
			return -1;
		}
	}
	qsort(rows, n, sizeof(*rows), restdecode_cpu_order);
	sample_set_cores(s, n);
	for (size_t i = 0; i < n; i++) {
		s->cores[i].load = rows[i].load;
		s->cores[i].irq = rows[i].irq;
	}
	free(rows);
	return 0;
}

/* On CHR/x86 the record is only {"routerboard":"false"}: firmware stays unknown. */
static int restdecode_board(const jsonr_node_t *j, sample_t *s, char **cause)
{
	const jsonr_node_t *o = restdecode_singleton(j, cause);
	bool rb = true;
	if (o == NULL || restdecode_bool(o, "routerboard", &rb, cause) < 0)
		return -1;
	restdecode_set(&s->firmware, restdecode_str(o, "current-firmware"));
	restdecode_set(&s->upgrade_firmware, restdecode_str(o, "upgrade-firmware"));
	return 0;
}

/* actual-mtu (what the interface uses), else mtu; an "auto" or absent value stays 0. */
static int restdecode_mtu(const jsonr_node_t *o, struct sample_iface *f, char **cause)
{
	static const char *const keys[] = { "actual-mtu", "mtu" };
	for (size_t i = 0; i < 2; i++) {
		const char *v = restdecode_str(o, keys[i]), *why = "not an MTU";
		uint64_t mtu;
		if (v == NULL || strcmp(v, "auto") == 0)
			continue;
		if (ros_parse_u64(v, &mtu, &why) < 0 || mtu > 65535)
			return restdecode_bad(keys[i], v, why, cause);
		f->mtu = (uint32_t)mtu;
		return 0;
	}
	return 0;
}

static int restdecode_iface_row(
	const jsonr_node_t *o, struct sample_iface *f, const char **name, char **cause)
{
	if (restdecode_check_record(o, cause) < 0 || restdecode_need(o, "name", name, cause) < 0 ||
		restdecode_u64(o, "rx-byte", true, &f->rx_bytes, cause) < 0 ||
		restdecode_u64(o, "tx-byte", true, &f->tx_bytes, cause) < 0 ||
		restdecode_u64(o, "rx-packet", false, &f->rx_packets, cause) < 0 ||
		restdecode_u64(o, "tx-packet", false, &f->tx_packets, cause) < 0 ||
		restdecode_u64(o, "rx-drop", false, &f->rx_drops, cause) < 0 ||
		restdecode_u64(o, "tx-drop", false, &f->tx_drops, cause) < 0 ||
		restdecode_u64(o, "tx-queue-drop", false, &f->tx_queue_drops, cause) < 0 ||
		restdecode_u64(o, "rx-error", false, &f->rx_errors, cause) < 0 ||
		restdecode_u64(o, "tx-error", false, &f->tx_errors, cause) < 0 ||
		restdecode_u64(o, "link-downs", false, &f->link_downs, cause) < 0 ||
		restdecode_bool(o, "running", &f->running, cause) < 0)
		return -1;
	return restdecode_mtu(o, f, cause);
}

static int restdecode_ifaces(const jsonr_node_t *j, sample_t *s, char **cause)
{
	if (restdecode_list(j, cause) < 0)
		return -1;
	for (size_t i = 0; i < restdecode_nelem(j); i++) {
		const jsonr_node_t *o = restdecode_elem(j, i);
		struct sample_iface f = { 0 };
		const char *name;
		if (restdecode_iface_row(o, &f, &name, cause) < 0)
			return -1;
		const char *type = restdecode_str(o, "type");
		f.name = sample_strdup(s, name);
		f.type = sample_strdup(s, type ? type : "");
		*sample_add_iface(s) = f;
	}
	return 0;
}

/* current-endpoint-address/port (absent, or "" and "0", before a first handshake) and
 * allowed-address; the configured endpoint-address is not what the peer uses, so not read. */
static int restdecode_endpoint(const jsonr_node_t *o, sample_t *s, struct sample_peer *p, char **cause)
{
	const char *allowed = restdecode_str(o, "allowed-address");
	const char *addr = restdecode_str(o, "current-endpoint-address");
	uint64_t port = 0;
	if (restdecode_u64(o, "current-endpoint-port", false, &port, cause) < 0)
		return -1;
	if (port > 65535)
		return restdecode_bad("current-endpoint-port", restdecode_str(o, "current-endpoint-port"),
			"not a port", cause);
	p->endpoint_port = (int)port;
	p->endpoint = addr != NULL && addr[0] != '\0' ? sample_strdup(s, addr) : NULL;
	p->allowed = sample_strdup(s, allowed);
	return 0;
}

/* One peer, its keys read in the order RouterOS sends them (jsonr_get). *label is the
 * `peer` label: name (7.15+), else comment, else the public key. */
static int restdecode_peer_row(const jsonr_node_t *o, sample_t *s, struct sample_peer *p, const char **ifc,
	const char **key, const char **label, char **cause)
{
	p->last_handshake_ms = -1;
	if (restdecode_check_record(o, cause) < 0 || restdecode_need(o, "interface", ifc, cause) < 0)
		return -1;
	const char *name = restdecode_str(o, "name"), *comment = restdecode_str(o, "comment");
	if (restdecode_need(o, "public-key", key, cause) < 0 || restdecode_endpoint(o, s, p, cause) < 0 ||
		restdecode_duration(o, "last-handshake", false, &p->last_handshake_ms, cause) < 0 ||
		restdecode_u64(o, "rx", true, &p->rx_bytes, cause) < 0 ||
		restdecode_u64(o, "tx", true, &p->tx_bytes, cause) < 0 ||
		restdecode_bool(o, "disabled", &p->disabled, cause) < 0)
		return -1;
	*label = name != NULL && name[0] != '\0'        ? name
		: comment != NULL && comment[0] != '\0' ? comment
							: *key;
	return 0;
}

/* How a peers reply is read: all of a peer (full), or the counters of .proplist=.id,rx,tx,
 * last-handshake; fn, when set, sees each peer with its .id. */
struct restdecode_keyed {
	bool full;
	restdecode_peer_fn *fn;
	void *arg;
};

/* A counters-only row: the rest of the peer comes from collectors/restpeers.h's cache. */
static int restdecode_counter_row(const jsonr_node_t *o, struct sample_peer *p, char **cause)
{
	p->last_handshake_ms = -1;
	if (restdecode_check_record(o, cause) < 0 ||
		restdecode_duration(o, "last-handshake", false, &p->last_handshake_ms, cause) < 0 ||
		restdecode_u64(o, "rx", true, &p->rx_bytes, cause) < 0 ||
		restdecode_u64(o, "tx", true, &p->tx_bytes, cause) < 0)
		return -1;
	return 0;
}

static int restdecode_peers_with(
	const jsonr_node_t *j, sample_t *s, const struct restdecode_keyed *k, char **cause)
{
	if (restdecode_list(j, cause) < 0)
		return -1;
	for (size_t i = 0; i < restdecode_nelem(j); i++) {
		const jsonr_node_t *o = restdecode_elem(j, i);
		const char *id = k->fn != NULL ? restdecode_str(o, ".id") : NULL; /* sent first */
		struct sample_peer p = { 0 };
		const char *ifc, *key, *label;
		if (!k->full) {
			if (restdecode_counter_row(o, &p, cause) < 0)
				return -1;
		} else if (restdecode_peer_row(o, s, &p, &ifc, &key, &label, cause) < 0) {
			return -1; /* p's strings, if any, are s's: freed with it */
		} else {
			p.interface = sample_strdup(s, ifc);
			p.public_key = sample_strdup(s, key);
			p.peer = sample_strdup(s, label);
		}
		struct sample_peer *at = sample_add_peer(s);
		*at = p;
		if (k->fn != NULL)
			k->fn(k->arg, s, at, id);
	}
	s->have_peers = true;
	return 0;
}

static int restdecode_peers(const jsonr_node_t *j, sample_t *s, char **cause)
{
	static const struct restdecode_keyed all = { .full = true };
	return restdecode_peers_with(j, s, &all, cause);
}

/* ---- /system/health: RouterOS 7 rows {name, value, type}, older builds one flat record ---- */

/* The unit of a sensor from its type ("C", "V", "A", "W", "RPM", "" for states), else, for the
 * flat record that has no types, from its name; -1 for what is no sensor (fan-mode, use-fan). */
static int restdecode_health_unit(const char *name, const char *type)
{
	static const struct {
		const char *type, *suffix;
		enum sample_unit unit;
	} map[] = {
		{ "C", "temperature", SAMPLE_UNIT_CELSIUS }, { "V", "voltage", SAMPLE_UNIT_VOLTS },
		{ "A", "current", SAMPLE_UNIT_AMPERES }, { "W", "consumption", SAMPLE_UNIT_WATTS },
		{ "RPM", "speed", SAMPLE_UNIT_RPM },
		{ "", "-state", SAMPLE_UNIT_STATE }, /* fan-state, psu1-state; not "state" */
	};
	size_t n = sizeof(map) / sizeof(map[0]);
	for (size_t k = 0; type != NULL && type[0] != '\0' && k < n; k++)
		if (strcasecmp(type, map[k].type) == 0)
			return (int)map[k].unit;
	for (size_t k = 0; k < n; k++) { /* no type, or one not known: by the name */
		const char *at = strstr(name, map[k].suffix);
		const char *after = at ? at + strlen(map[k].suffix) : NULL;
		if (at != NULL && (*after == '\0' || isdigit((unsigned char)*after)))
			return (int)map[k].unit;
	}
	return -1;
}

/* A reading: a decimal number, or for a state "ok" (1) and anything else (0). */
static int restdecode_health_value(const char *v, enum sample_unit unit, double *out)
{
	if (unit == SAMPLE_UNIT_STATE) {
		*out = strcmp(v, "ok") == 0 ? 1 : 0;
		return 0;
	}
	char *end;
	*out = strtod(v, &end);
	return v[0] != '\0' && *end == '\0' && isfinite(*out) ? 0 : -1;
}

/* One sensor; an unknown kind, or a value that is no number, is passed over, not an error:
 * a new sensor of a new board must not fail the poll. */
static void restdecode_health_one(sample_t *s, const char *name, const char *type, const char *value)
{
	int unit = restdecode_health_unit(name, type);
	double v;
	if (unit < 0 || value == NULL || restdecode_health_value(value, (enum sample_unit)unit, &v) < 0)
		return;
	sample_add_sensor(s, name, (enum sample_unit)unit, v);
}

static int restdecode_health_flat(const jsonr_node_t *o, sample_t *s, char **cause)
{
	if (restdecode_check_record(o, cause) < 0)
		return -1;
	for (size_t i = 0; i < jsonr_size(o); i++) {
		const char *key = jsonr_key(o, i);
		if (key[0] != '.')
			restdecode_health_one(s, key, NULL, jsonr_str(jsonr_at(o, i)));
	}
	return 0;
}

static int restdecode_health(const jsonr_node_t *j, sample_t *s, char **cause)
{
	const jsonr_node_t *first = restdecode_elem(j, 0);
	sample_copy_sensors(s, &(sample_t){ 0 });
	s->health_fresh = true;
	if (jsonr_is_object(j) || (restdecode_nelem(j) == 1 && jsonr_get(first, "name") == NULL))
		return restdecode_health_flat(jsonr_is_object(j) ? j : first, s, cause);
	if (restdecode_list(j, cause) < 0)
		return -1;
	for (size_t i = 0; i < restdecode_nelem(j); i++) {
		const jsonr_node_t *o = restdecode_elem(j, i);
		const char *name, *value;
		if (restdecode_check_record(o, cause) < 0 || restdecode_need(o, "name", &name, cause) < 0 ||
			restdecode_need(o, "value", &value, cause) < 0)
			return -1;
		restdecode_health_one(s, name, restdecode_str(o, "type"), value);
	}
	return 0;
}

/* /system/package/update: latest-version (a RouterOS version, else ignored) and status. The
 * router learns latest-version from MikroTik when it checks for updates; until then it is
 * absent (routeros-diagnostics: MikroTik manual, /system/package/update). */
static int restdecode_update(const jsonr_node_t *j, sample_t *s, char **cause)
{
	const jsonr_node_t *o = restdecode_singleton(j, cause);
	if (o == NULL)
		return -1;
	const char *latest = restdecode_str(o, "latest-version"), *status = restdecode_str(o, "status"), *why;
	struct ros_version v;
	free(s->offered_version);
	s->offered_version = latest && ros_parse_version(latest, &v, &why) == 0 ? xstrdup(latest) : NULL;
	free(s->update_status);
	s->update_status = status ? restdecode_clean(status, 80) : NULL;
	return 0;
}

static int (*const restdecode_table[RESTDECODE_NSTEPS])(const jsonr_node_t *, sample_t *, char **) = {
	[RESTDECODE_RESOURCE] = restdecode_resource,
	[RESTDECODE_CPU] = restdecode_cpu,
	[RESTDECODE_BOARD] = restdecode_board,
	[RESTDECODE_IFACES] = restdecode_ifaces,
	[RESTDECODE_PEERS] = restdecode_peers,
	[RESTDECODE_HEALTH] = restdecode_health,
	[RESTDECODE_UPDATE] = restdecode_update,
};

/* Each decoding thread (the loop, the offload thread) keeps one document between replies, so
 * a steady poll allocates nothing to parse; a thread's document is freed when it ends. */
static pthread_key_t restdecode_doc_key;
static pthread_once_t restdecode_doc_once = PTHREAD_ONCE_INIT;

static void restdecode_doc_free(void *d)
{
	jsonr_destroy(d);
}

static void restdecode_doc_init(void)
{
	if (pthread_key_create(&restdecode_doc_key, restdecode_doc_free) != 0)
		abort(); /* only at start, out of keys: our bug */
}

static jsonr_t *restdecode_doc(void)
{
	pthread_once(&restdecode_doc_once, restdecode_doc_init);
	jsonr_t *d = pthread_getspecific(restdecode_doc_key);
	if (d == NULL) {
		d = jsonr_create();
		pthread_setspecific(restdecode_doc_key, d);
	}
	return d;
}

const jsonr_node_t *restdecode_json(const char *body, size_t len, char **cause)
{
	const jsonr_node_t *j = jsonr_parse(restdecode_doc(), body, len);
	if (j == NULL) {
		size_t ws = strspn(body, " \t\r\n");
		*cause = xstrdup(ws < len && body[ws] == '<' ? "reply is HTML, not JSON"
				: len == 0                   ? "empty reply"
							     : "reply is not JSON");
	}
	return j;
}

static char *restdecode_error_text(const jsonr_node_t *j, const char *fallback);

/* A RouterOS error object ({"error":N,"message":...}, routeros.md §1) where a 2xx reply should
 * hold data, as some builds and proxies answer: -1 with *cause naming it, rather than a cause
 * about a field that is no string. 0 for anything else. */
static int restdecode_error_object(const jsonr_node_t *j, char **cause)
{
	const jsonr_node_t *e = jsonr_get(j, "error");
	if (e == NULL || jsonr_is_string(e) || jsonr_str(jsonr_get(j, "message")) == NULL)
		return 0;
	char *text = restdecode_error_text(j, "");
	*cause = xasprintf("a RouterOS error in a 2xx reply: %s", text);
	free(text);
	return -1;
}

int restdecode_reply(enum restdecode_step step, const char *body, size_t len, sample_t *s, char **cause)
{
	const jsonr_node_t *j = restdecode_json(body, len, cause);
	if (j == NULL || restdecode_error_object(j, cause) < 0)
		return -1;
	return restdecode_table[step](j, s, cause);
}

int restdecode_peers_keyed(
	const char *body, size_t len, bool full, sample_t *s, restdecode_peer_fn *fn, void *arg, char **cause)
{
	const struct restdecode_keyed k = { .full = full, .fn = fn, .arg = arg };
	const jsonr_node_t *j = restdecode_json(body, len, cause);
	if (j == NULL || restdecode_error_object(j, cause) < 0)
		return -1;
	return restdecode_peers_with(j, s, &k, cause);
}

/* The interface of a /ip/route/check reply: a one-element array (a command bounded by once) or
 * its object; "interface" names it. The values of "status" are not documented: it only says why
 * there is no interface. */
int restdecode_route(const char *body, size_t len, char **iface, char **cause)
{
	const jsonr_node_t *j = jsonr_parse(restdecode_doc(), body, len);
	const jsonr_node_t *o = jsonr_is_array(j) ? jsonr_at(j, 0) : j;
	const char *name = NULL, *status = NULL;
	*iface = NULL;
	if (j != NULL && restdecode_error_object(j, cause) < 0)
		return -1;
	if (j == NULL)
		*cause = xstrdup("reply is not JSON");
	else if (!jsonr_is_object(o) || (jsonr_is_array(j) && jsonr_size(j) != 1))
		*cause = xstrdup("expected one object");
	else if (restdecode_check_record(o, cause) == 0) {
		status = restdecode_str(o, "status");
		name = restdecode_str(o, "interface");
		if (name != NULL && name[0] != '\0')
			*iface = xstrdup(name);
		else if (status != NULL && status[0] != '\0') {
			char *st = restdecode_clean(status, 60);
			*cause = xasprintf("no \"interface\" (status \"%s\")", st);
			free(st);
		} else
			*cause = xstrdup("missing \"interface\"");
	}
	return *iface != NULL ? 0 : -1;
}

/* "HTTP 401 Unauthorized[: detail]" from a RouterOS error body, or the standard phrase. */
static const char *restdecode_phrase(long code)
{
	switch (code) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 406: return "Not Acceptable";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "";
	}
}

/* "message[: detail]" of a RouterOS error object, fallback for a missing message (malloc'd). */
static char *restdecode_error_text(const jsonr_node_t *j, const char *fallback)
{
	const char *msg = jsonr_str(jsonr_get(j, "message"));
	const char *detail = jsonr_str(jsonr_get(j, "detail"));
	char *m = restdecode_clean(msg != NULL ? msg : fallback, 40);
	char *d = detail != NULL && detail[0] != '\0' ? restdecode_clean(detail, 120) : NULL;
	char *out = xasprintf("%s%s%s", m, d ? ": " : "", d ? d : "");
	free(m);
	free(d);
	return out;
}

char *restdecode_http_reason(long code, const char *body, size_t len)
{
	const jsonr_node_t *j = jsonr_parse(restdecode_doc(), body, len);
	char *text = restdecode_error_text(j, restdecode_phrase(code));
	char *out = xasprintf("HTTP %ld%s%s", code, text[0] && text[0] != ':' ? " " : "", text);
	free(text);
	return out;
}
