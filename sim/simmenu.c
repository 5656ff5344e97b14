/* SPDX-License-Identifier: Apache-2.0 */
/* simmenu: builds the records of each served RouterOS menu, every value a string as on the wire
 * (routeros.md §1.3, §2). Records are flat and rebuilt per request; nothing here is cached. */
#include "config.h"
#include "sim/simmenu.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FAKE_PRIVATE_KEY \
	"c2ltLWZha2UtcHJpdmF0ZS1rZXktZG8tbm90LXVzZSE="          /* "sim-fake-private-key-do-not-use!" */
#define FAKE_PSK "c2ltLWZha2UtcHJlc2hhcmVkLWtleS1ub3QtcmVhbCE=" /* "sim-fake-preshared-key-not-real!" */
#define NFIXED   4                                              /* ether1, ether2, bridge, lo */

static void simmenu_add(struct simmenu_rec *rec, const char *k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void simmenu_add(struct simmenu_rec *rec, const char *k, const char *fmt, ...)
{
	if (rec->n == SIMMENU_FIELDS)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rec->v[rec->n], SIMMENU_VLEN, fmt, ap);
	va_end(ap);
	rec->k[rec->n++] = k;
}

static void simmenu_add_u64(struct simmenu_rec *rec, const char *k, uint64_t v)
{
	simmenu_add(rec, k, "%llu", (unsigned long long)v);
}

/* Replace the value of key k already in rec (a counter the scenario drives). */
static void simmenu_set_u64(struct simmenu_rec *rec, const char *k, uint64_t v)
{
	for (int i = 0; i < rec->n; i++)
		if (strcmp(rec->k[i], k) == 0)
			snprintf(rec->v[i], SIMMENU_VLEN, "%llu", (unsigned long long)v);
}

const char *simmenu_get(const struct simmenu_rec *rec, const char *key)
{
	for (int i = 0; i < rec->n; i++)
		if (strcmp(rec->k[i], key) == 0)
			return rec->v[i];
	return NULL;
}

void simmenu_duration(double sec, char *out, size_t size)
{
	static const struct {
		char u;
		uint64_t s;
	} parts[] = {
		{ 'w', 604800 },
		{ 'd', 86400 },
		{ 'h', 3600 },
		{ 'm', 60 },
		{ 's', 1 },
	};
	uint64_t left = sec > 0 ? (uint64_t)sec : 0;
	size_t o = 0;
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]) && o < size; i++) {
		uint64_t n = left / parts[i].s;
		left -= n * parts[i].s;
		if (n > 0)
			o += (size_t)snprintf(out + o, size - o, "%llu%c", (unsigned long long)n, parts[i].u);
	}
	if (out[0] == '\0')
		snprintf(out, size, "0s");
}

static void simmenu_add_date(struct simmenu_rec *rec, const char *k, time_t when)
{
	struct tm tm;
	gmtime_r(&when, &tm);
	if (rec->n < SIMMENU_FIELDS && strftime(rec->v[rec->n], SIMMENU_VLEN, "%Y-%m-%d %H:%M:%S", &tm))
		rec->k[rec->n++] = k;
}

void simmenu_ctx_init(struct simmenu_ctx *c, const simrouter_t *r, double t, time_t epoch)
{
	c->r = r;
	c->t = t;
	c->st = simrouter_state(r, t);
	c->uptime = fmax(simrouter_uptime(r, t) + c->st->uptime_shift, 0); /* shift: clock jumps */
	simrouter_pool_bytes(r, t, c->pool);
	c->total[0] = c->total[1] = 0;
	for (int i = 0; i < simrouter_npools(r); i++)
		c->total[0] += c->pool[i][0], c->total[1] += c->pool[i][1];
	c->epoch = epoch;
}

static time_t simmenu_boot_wall(const struct simmenu_ctx *c)
{
	return c->epoch + (time_t)floor(c->t - c->uptime);
}

/* ---- /system ---- */

static int simmenu_cpu_load_avg(const struct simmenu_ctx *c)
{
	int cores = simrouter_group(c->r)->cores, sum = 0;
	for (int i = 0; i < cores; i++)
		sum += simrouter_core_load(c->r, c->t, i);
	return (sum + cores / 2) / cores;
}

/* build-time follows the version: ISO dates from 7.16 on (routeros.md §5.2). */
static void simmenu_add_build_time(struct simmenu_rec *rec, const char *version)
{
	static const char *const mon[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep",
		"Oct", "Nov", "Dec" };
	int major = 7, minor = 0, patch = 0;
	sscanf(version, "%d.%d.%d", &major, &minor, &patch);
	time_t when = 1609459200 + (time_t)(minor * 40 + patch * 6) * 86400 + 37 * 3600 / 3;
	struct tm tm;
	gmtime_r(&when, &tm);
	if (simrouter_version_at_least(version, 7, 16)) {
		simmenu_add_date(rec, "build-time", when);
		return;
	}
	simmenu_add(rec, "build-time", "%s/%02d/%04d %02d:%02d:%02d", mon[tm.tm_mon], tm.tm_mday,
		tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void simmenu_fill_resource(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	const struct sc_group *g = simrouter_group(c->r);
	uint64_t h = simrouter_hash(c->r, 5, 0);
	uint64_t hdd = g->routerboard ? 128ULL << 20 : 1ULL << 30;
	char up[48];
	simmenu_duration(c->uptime, up, sizeof(up));
	simmenu_add(rec, "architecture-name", "%s", g->arch);
	if (g->routerboard)
		simmenu_add(rec, "bad-blocks", "0");
	simmenu_add(rec, "board-name", "%s", g->board);
	simmenu_add_build_time(rec, c->st->version);
	simmenu_add(rec, "cpu", "%s", g->cpu_model);
	simmenu_add(rec, "cpu-count", "%d", g->cores);
	if (c->st->cpu_mhz > 0)
		simmenu_add(rec, "cpu-frequency", "%d", c->st->cpu_mhz);
	simmenu_add(rec, "cpu-load", "%d", simmenu_cpu_load_avg(c));
	simmenu_add(rec, "factory-software", "%s", g->routerboard ? "7.1" : "7.0.4");
	simmenu_add_u64(rec, "free-hdd-space", hdd / 100 * (60 + h % 20));
	simmenu_add_u64(rec, "free-memory", g->memory / 100 * (50 + (h >> 8) % 30));
	simmenu_add(rec, "platform", "MikroTik");
	simmenu_add_u64(rec, "total-hdd-space", hdd);
	simmenu_add_u64(rec, "total-memory", g->memory);
	simmenu_add(rec, "uptime", "%s", up);
	simmenu_add(rec, "version", "%s (%s)", c->st->version, c->st->channel);
	simmenu_add_u64(rec, "write-sect-since-reboot", (uint64_t)(c->uptime / 20));
	simmenu_add_u64(rec, "write-sect-total", 100000 + (h >> 16) % 900000 + (uint64_t)(c->uptime / 20));
}

static int simmenu_count_cores(const struct simmenu_ctx *c)
{
	return simrouter_group(c->r)->cores;
}

static void simmenu_fill_cpu(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	int load = simrouter_core_load(c->r, c->t, i);
	simmenu_add(rec, ".id", "*%X", (unsigned)i);
	simmenu_add(rec, "cpu", "cpu%d", i);
	simmenu_add(rec, "load", "%d", load);
	simmenu_add(rec, "irq", "%d", load / 10);
	simmenu_add(rec, "disk", "0");
}

static void simmenu_fill_routerboard(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	const struct sc_group *g = simrouter_group(c->r);
	if (!g->routerboard) {
		simmenu_add(rec, "routerboard", "false");
		return;
	}
	uint64_t h = simrouter_hash(c->r, 6, 0);
	simmenu_add(rec, "current-firmware", "%s", c->st->firmware);
	simmenu_add(rec, "factory-firmware", "7.1");
	simmenu_add(rec, "firmware-type", "%s", strcmp(g->arch, "tile") == 0 ? "tilegx" : g->arch);
	simmenu_add(rec, "model", "%s", g->board);
	simmenu_add(rec, "revision", "r%d", (int)(h % 3) + 1);
	simmenu_add(rec, "routerboard", "true");
	simmenu_add(rec, "serial-number", "%s%08llX", g->model_serial ? g->model_serial : "HE",
		(unsigned long long)(h >> 32));
	simmenu_add(rec, "upgrade-firmware", "%s", c->st->upgrade_firmware);
}

static void simmenu_fill_identity(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	simmenu_add(rec, "name", "%s", simrouter_name(c->r));
}

/* /system/package/update (routeros-diagnostics §4.6): latest-version and status only once the
 * router has checked (the scenario's latest_version), as a real one shows them. */
static void simmenu_fill_update(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	simmenu_add(rec, "channel", "%s", c->st->channel);
	simmenu_add(rec, "installed-version", "%s", c->st->version);
	if (!c->st->latest[0])
		return;
	simmenu_add(rec, "latest-version", "%s", c->st->latest);
	simmenu_add(rec, "status", "%s",
		strcmp(c->st->latest, c->st->version) != 0 ? "New version is available"
							   : "System is already up to date");
}

/* /system/health (routeros.md §2.7): RouterOS 7 rows of name, value, type; `health = v6` one
 * flat record of the same names (with the fan settings that are no sensor); none on CHR. */
struct simmenu_sensor {
	const char *name, *type; /* static: a record keeps its keys as pointers */
	char value[16];
};

static int simmenu_sensors(const struct simmenu_ctx *c, struct simmenu_sensor *out)
{
	const struct sc_group *g = simrouter_group(c->r);
	int load = simmenu_cpu_load_avg(c), n = 0, h = (int)(simrouter_hash(c->r, 8, 0) % 6);
	if (g->health == SC_HEALTH_NONE)
		return 0;
	out[n] = (struct simmenu_sensor){ .name = "temperature", .type = "C" };
	snprintf(out[n++].value, sizeof(out->value), "%d", 33 + h + load / 8);
	out[n] = (struct simmenu_sensor){ .name = "cpu-temperature", .type = "C" };
	snprintf(out[n++].value, sizeof(out->value), "%d", 45 + h + load / 4);
	out[n] = (struct simmenu_sensor){ .name = "voltage", .type = "V" };
	snprintf(out[n++].value, sizeof(out->value), "24.%d", h);
	static const char *const fans[] = { "fan1-speed", "fan2-speed", "fan3-speed", "fan4-speed" };
	static const char *const psus[] = { "psu1-state", "psu2-state" };
	for (int f = 0; f < g->fans && f < 4; f++, n++) {
		out[n] = (struct simmenu_sensor){ .name = fans[f], .type = "RPM" };
		snprintf(out[n].value, sizeof(out->value), "%d", 4150 + 150 * f + 20 * load);
	}
	for (int p = 0; p < g->psus && p < 2; p++, n++) {
		out[n] = (struct simmenu_sensor){ .name = psus[p], .type = "" };
		snprintf(out[n].value, sizeof(out->value), "%s", p + 1 == g->failed_psu ? "fail" : "ok");
	}
	if (g->psus > 0) {
		out[n] = (struct simmenu_sensor){ .name = "power-consumption", .type = "W" };
		snprintf(out[n++].value, sizeof(out->value), "%d.%d", 20 + load / 4, h);
	}
	return n;
}

#define SIMMENU_MAX_SENSORS 10

static int simmenu_count_health(const struct simmenu_ctx *c)
{
	struct simmenu_sensor s[SIMMENU_MAX_SENSORS];
	return simmenu_sensors(c, s);
}

static bool simmenu_health_flat(const struct simmenu_ctx *c)
{
	return simrouter_group(c->r)->health == SC_HEALTH_V6;
}

static void simmenu_fill_health(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	struct simmenu_sensor s[SIMMENU_MAX_SENSORS];
	int n = simmenu_sensors(c, s);
	if (simmenu_health_flat(c)) {
		for (int k = 0; k < n; k++)
			simmenu_add(rec, s[k].name, "%s", s[k].value);
		if (simrouter_group(c->r)->fans > 0)
			simmenu_add(rec, "fan-mode", "auto"), simmenu_add(rec, "use-fan", "main");
		return;
	}
	if (i >= n)
		return;
	simmenu_add(rec, ".id", "*%X", 0xE + (unsigned)i * 3);
	simmenu_add(rec, "name", "%s", s[i].name);
	simmenu_add(rec, "value", "%s", s[i].value);
	simmenu_add(rec, "type", "%s", s[i].type);
}

/* ---- /interface ---- */

static int simmenu_first_peer(const struct sc_group *g, int iface)
{
	int p = 0;
	for (int i = 0; i < iface; i++)
		p += g->wg[i].npeers;
	return p;
}

static uint64_t simmenu_peer_bytes(const struct simmenu_ctx *c, int peer, int dir)
{
	return simrouter_peer_bytes(c->r, peer, c->pool[simrouter_peer_pool(c->r, peer)][dir]);
}

static void simmenu_wg_iface_bytes(const struct simmenu_ctx *c, int iface, uint64_t out[2])
{
	const struct sc_group *g = simrouter_group(c->r);
	int p0 = simmenu_first_peer(g, iface);
	out[0] = out[1] = 0;
	for (int p = p0; p < p0 + g->wg[iface].npeers; p++)
		for (int d = 0; d < 2; d++)
			out[d] += simmenu_peer_bytes(c, p, d);
}

static void simmenu_add_counters(
	const struct simmenu_ctx *c, struct simmenu_rec *rec, const uint64_t b[2], bool fp)
{
	int ps = simrouter_group(c->r)->packet_size;
	simmenu_add_u64(rec, "rx-byte", b[0]);
	simmenu_add_u64(rec, "tx-byte", b[1]);
	simmenu_add_u64(rec, "rx-packet", b[0] / (uint64_t)ps);
	simmenu_add_u64(rec, "tx-packet", b[1] / (uint64_t)ps);
	/* Real WireGuard interfaces drop and fail thousands of packets (no route to a peer, no
	 * handshake yet: docs/routeros.md §3); the others a few. Growing with the packets. */
	const char *type = simmenu_get(rec, "type");
	uint64_t per = type && strcmp(type, "wg") == 0 ? 2000 : 1000000;
	simmenu_add_u64(rec, "rx-drop", b[0] / (uint64_t)ps / (per * 4));
	simmenu_add_u64(rec, "tx-drop", b[1] / (uint64_t)ps / per);
	simmenu_add(rec, "tx-queue-drop", "0");
	simmenu_add_u64(rec, "rx-error", b[0] / (uint64_t)ps / (per * 20));
	simmenu_add_u64(rec, "tx-error", b[1] / (uint64_t)ps / (per * 3));
	simmenu_add_u64(rec, "fp-rx-byte", fp ? b[0] : 0);
	simmenu_add_u64(rec, "fp-tx-byte", fp ? b[1] : 0);
	simmenu_add_u64(rec, "fp-rx-packet", fp ? b[0] / (uint64_t)ps : 0);
	simmenu_add_u64(rec, "fp-tx-packet", fp ? b[1] / (uint64_t)ps : 0);
}

#define NMORE 3 /* shape more-interfaces: wlan1, pppoe-out1, eoip1 */

static int simmenu_count_interfaces(const struct simmenu_ctx *c)
{
	const struct sc_group *g = simrouter_group(c->r);
	return NFIXED + (int)g->nwg + g->vlans + (g->shape & SC_SHAPE_MORE_IFACES ? NMORE : 0);
}

/* Past the VLANs: interfaces of the other types real routers have (docs/routeros.md §3). */
static void simmenu_more_iface(int m, struct simmenu_rec *rec)
{
	static const char *const names[NMORE] = { "wlan1", "pppoe-out1", "eoip1" };
	static const char *const types[NMORE] = { "wlan", "pppoe-out", "eoip" };
	simmenu_add(rec, ".id", "*%X", 0x2000u + (unsigned)m);
	simmenu_add(rec, "name", "%s", names[m]);
	simmenu_add(rec, "type", "%s", types[m]);
}

/* Fixed and VLAN interfaces: name, type, id, and a steady rate in bytes/s. */
static void simmenu_plain_iface(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec, double rate[2])
{
	static const char *const names[] = { "ether1", "ether2", "bridge", "lo" };
	static const char *const types[] = { "ether", "ether", "bridge", "loopback" };
	const struct sc_group *g = simrouter_group(c->r);
	if (i < NFIXED) {
		simmenu_add(rec, ".id", "*%X", (unsigned)i + 1);
		simmenu_add(rec, "name", "%s", i == 2 && g->bridge_name ? g->bridge_name : names[i]);
		if (i < 2)
			simmenu_add(rec, "default-name", "%s", names[i]);
		simmenu_add(rec, "type", "%s", types[i]);
		rate[0] = i == 3 ? 0 : 250000.0 / (i + 1);
	} else if (i >= NFIXED + (int)g->nwg + g->vlans) {
		simmenu_more_iface(i - NFIXED - (int)g->nwg - g->vlans, rec);
		rate[0] = 2000;
	} else {
		int v = i - NFIXED - (int)g->nwg;
		simmenu_add(rec, ".id", "*%X", 0x1000u + (unsigned)v);
		simmenu_add(rec, "name", "vlan%d", v + 1);
		simmenu_add(rec, "type", "vlan");
		rate[0] = 1000 + (double)(v % 7) * 300;
	}
	rate[1] = rate[0] * 0.8;
}

static void simmenu_fill_interface_wg(const struct simmenu_ctx *c, int w, struct simmenu_rec *rec)
{
	uint64_t b[2];
	simmenu_wg_iface_bytes(c, w, b);
	simmenu_add(rec, ".id", "*%X", 0x10u + (unsigned)w);
	simmenu_add(rec, "name", "%s", simrouter_group(c->r)->wg[w].name);
	simmenu_add(rec, "type", "wg");
	simmenu_add(rec, "mtu", "%d", c->st->wg_mtu ? c->st->wg_mtu : 1420);
	simmenu_add(rec, "actual-mtu", "%d", c->st->wg_mtu ? c->st->wg_mtu : 1420);
	simmenu_add_date(rec, "last-link-up-time", simmenu_boot_wall(c) + 5);
	simmenu_add(rec, "link-downs", "0");
	simmenu_add_counters(c, rec, b, false);
	simmenu_add(rec, "running", "true");
	simmenu_add(rec, "disabled", "false");
}

static void simmenu_fill_interface(const struct simmenu_ctx *c, int i, struct simmenu_rec *rec)
{
	const struct sc_group *g = simrouter_group(c->r);
	if (i >= NFIXED && i < NFIXED + (int)g->nwg) {
		simmenu_fill_interface_wg(c, i - NFIXED, rec);
		return;
	}
	double rate[2];
	simmenu_plain_iface(c, i, rec, rate);
	uint64_t b[2] = { (uint64_t)(rate[0] * c->uptime), (uint64_t)(rate[1] * c->uptime) };
	if (i == 0) /* ether1 carries the tunnels, plus 4% of WireGuard overhead */
		b[0] += (uint64_t)(c->total[0] * 1.04), b[1] += (uint64_t)(c->total[1] * 1.04);
	simmenu_add(rec, "mtu", "1500");
	simmenu_add(rec, "actual-mtu", "1500");
	if (i != 3) {
		simmenu_add(rec, "l2mtu", "1592");
		simmenu_add(rec, "mac-address", "48:A9:8A:%02X:%02X:%02X",
			(unsigned)(simrouter_index(c->r) >> 8) & 0xff, (unsigned)simrouter_index(c->r) & 0xff,
			(unsigned)i & 0xff);
	}
	simmenu_add_date(rec, "last-link-up-time", simmenu_boot_wall(c) + 3);
	simmenu_add(rec, "link-downs", "0");
	simmenu_add_counters(c, rec, b, i < 2);
	if (i == 0) /* the WAN: its queue drops, a confounder (docs/sim.md) */
		simmenu_set_u64(rec, "tx-queue-drop", simrouter_wan_drops(c->r, c->t));
	simmenu_add(rec, "running", "true");
	simmenu_add(rec, "disabled", "false");
}

/* ---- /interface/wireguard ---- */

static int simmenu_count_wg(const struct simmenu_ctx *c)
{
	return (int)simrouter_group(c->r)->nwg;
}

static void simmenu_fill_wg(const struct simmenu_ctx *c, int w, struct simmenu_rec *rec)
{
	char key[45];
	simrouter_key(c->r, w, 1, key);
	simmenu_add(rec, ".id", "*%X", 0x10u + (unsigned)w);
	simmenu_add(rec, "disabled", "false");
	simmenu_add(rec, "listen-port", "%d", 13231 + w);
	simmenu_add(rec, "mtu", "1420");
	simmenu_add(rec, "name", "%s", simrouter_group(c->r)->wg[w].name);
	simmenu_add(rec, "private-key", FAKE_PRIVATE_KEY);
	simmenu_add(rec, "public-key", "%s", key);
	simmenu_add(rec, "running", "true");
}

static int simmenu_count_peers(const struct simmenu_ctx *c)
{
	return simrouter_npeers(c->r);
}

static void simmenu_fill_peer_names(const struct simmenu_ctx *c, int p, struct simmenu_rec *rec)
{
	const struct sc_group *g = simrouter_group(c->r);
	int iface = simrouter_peer_iface(c->r, p), num = simrouter_peer_num(c->r, p);
	simmenu_add(rec, ".id", "*%X", 0x100u + (unsigned)p);
	simmenu_add(rec, "interface", "%s", g->wg[iface].name);
	if (simrouter_version_at_least(c->st->version, 7, 15))
		simmenu_add(rec, "name", "%s%d", g->peer_prefix, p + 1);
	if (g->comment_every > 0 && num % g->comment_every == 0)
		simmenu_add(rec, "comment", "site %d", p + 1);
}

/* The last disabled_peers of each interface (idle too: scenario.c checks). */
static bool simmenu_peer_disabled(const struct simmenu_ctx *c, int p)
{
	const struct sc_group *g = simrouter_group(c->r);
	int iface = simrouter_peer_iface(c->r, p);
	return simrouter_peer_num(c->r, p) > g->wg[iface].npeers - g->disabled_peers;
}

static void simmenu_fill_peer(const struct simmenu_ctx *c, int p, struct simmenu_rec *rec)
{
	int iface = simrouter_peer_iface(c->r, p), num = simrouter_peer_num(c->r, p);
	double hs = simrouter_last_handshake(c->r, c->t, p);
	char key[45], dur[48];
	simmenu_fill_peer_names(c, p, rec);
	simrouter_key(c->r, p, 2, key);
	simmenu_add(rec, "public-key", "%s", key);
	simmenu_add(rec, "private-key", FAKE_PRIVATE_KEY);
	simmenu_add(rec, "preshared-key", FAKE_PSK);
	simmenu_add(rec, "allowed-address", "10.%d.%d.%d/32,172.%d.%d.0/24", 64 + iface, num / 250,
		num % 250 + 2, 16 + iface, num % 250);
	simmenu_add(rec, "endpoint-address", "%s", "");
	simmenu_add(rec, "endpoint-port", "0");
	if (hs >= 0) {
		simmenu_add(rec, "current-endpoint-address", "%s.%d", iface ? "203.0.113" : "198.51.100",
			num % 254 + 1);
		simmenu_add(rec, "current-endpoint-port", "%d",
			1024 + (int)(simrouter_hash(c->r, 7, (uint64_t)p) % 60000));
		simmenu_duration(hs, dur, sizeof(dur));
		simmenu_add(rec, "last-handshake", "%s", dur);
	}
	simmenu_add(rec, "persistent-keepalive", hs >= 0 ? "25s" : "0s");
	simmenu_add_u64(rec, "rx", simmenu_peer_bytes(c, p, 0));
	simmenu_add_u64(rec, "tx", simmenu_peer_bytes(c, p, 1));
	simmenu_add(rec, "responder", hs >= 0 ? "false" : "true");
	simmenu_add(rec, "disabled", "%s", simmenu_peer_disabled(c, p) ? "true" : "false");
	simmenu_add(rec, "dynamic", "false");
}

static const struct simmenu menus[] = {
	{ "system/resource", false, NULL, simmenu_fill_resource },
	{ "system/resource/cpu", true, simmenu_count_cores, simmenu_fill_cpu },
	{ "system/routerboard", false, NULL, simmenu_fill_routerboard },
	{ "system/identity", false, NULL, simmenu_fill_identity },
	{ "system/package/update", false, NULL, simmenu_fill_update },
	{ "system/health", true, simmenu_count_health, simmenu_fill_health },
	{ "interface", true, simmenu_count_interfaces, simmenu_fill_interface },
	{ "interface/wireguard", true, simmenu_count_wg, simmenu_fill_wg },
	{ "interface/wireguard/peers", true, simmenu_count_peers, simmenu_fill_peer },
};

bool simmenu_flat(const struct simmenu *m, const struct simmenu_ctx *c)
{
	return m->fill == simmenu_fill_health && simmenu_health_flat(c);
}

const struct simmenu *simmenu_find(const char *path)
{
	for (size_t i = 0; i < sizeof(menus) / sizeof(menus[0]); i++)
		if (strcmp(menus[i].path, path) == 0)
			return &menus[i];
	return NULL;
}
