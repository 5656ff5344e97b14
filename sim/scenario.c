/* SPDX-License-Identifier: Apache-2.0 */
/* scenario: reads a scenario file into groups of identical routers, each with a timeline
 * compiled into phases (the keys only a group has: scgroup.c). Collects every error with
 * FILE:LINE; never logs, never exits. */
#include "config.h"
#include "sim/scenario.h"
#include "lib/text.h"
#include "lib/duration.h"
#include "sim/scenario_int.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sc_event {
	double at;
	int line;
	char *text;
};

struct parser {
	const char *file;
	int line;
	buf_t errs;
	scenario_t *sc;
	struct sc_group *g; /* current [group], NULL in [global] */
	struct sc_state st; /* its initial state */
	int rb;             /* routerboard = yes/no; -1 not given */
	struct sc_event *ev;
	size_t nev;
	struct sc_event *cpu; /* the group's CPU model keys ("key value"), applied at its end */
	size_t ncpu;
};

static const char *const fault_names[] = {
	[SC_FAULT_NONE] = "none",
	[SC_FAULT_401] = "401",
	[SC_FAULT_MALFORMED] = "malformed",
	[SC_FAULT_HTML] = "html",
	[SC_FAULT_HANG] = "hang",
	[SC_FAULT_REFUSE] = "refuse",
	[SC_FAULT_BIG] = "big",
	[SC_FAULT_TRUNCATE] = "truncate",
	[SC_FAULT_SLOW] = "slow",
	[SC_FAULT_SLOWLORIS] = "slowloris",
	[SC_FAULT_RESET] = "reset",
};

const struct sc_menu_fault *scenario_menu_fault(const struct sc_state *st, const char *path)
{
	size_t n = strcspn(path, "?");
	for (int i = 0; i < st->nmenu_faults; i++)
		if (strlen(st->menu_faults[i].path) == n && strncmp(st->menu_faults[i].path, path, n) == 0)
			return &st->menu_faults[i];
	return NULL;
}

const char *scenario_fault_name(enum sc_fault f)
{
	return fault_names[f];
}

static void scenario_perr(struct parser *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void scenario_perr(struct parser *p, int line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	buf_printf(&p->errs, "%s:%d: %s\n", p->file, line, msg);
	free(msg);
}

/* strsep-like: the next sep-separated piece of *s, or NULL at the end. */
char *scenario_split_next(char **s, char sep)
{
	char *t = *s;
	if (!t)
		return NULL;
	char *e = strchr(t, sep);
	if (e)
		*e++ = '\0';
	*s = e;
	return t;
}

int scenario_parse_duration(const char *s, double *sec)
{
	int64_t ms;
	const char *cause;
	if (duration_parse(s, DURATION_BARE_SECONDS | DURATION_FRACTIONS, &ms, &cause) < 0)
		return -1;
	*sec = (double)ms / 1000;
	return 0;
}

static int scenario_parse_num(const char *v, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || *end || errno || !(d >= min && d <= max))
		return -1;
	*out = d;
	return 0;
}

static int scenario_parse_version(const char *v, char out[SC_VER_LEN])
{
	int major, minor, n = 0;
	if (strlen(v) >= SC_VER_LEN || sscanf(v, "%d.%d%n", &major, &minor, &n) != 2 || major < 6)
		return -1;
	for (const char *c = v + n; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.')
			return -1;
	snprintf(out, SC_VER_LEN, "%s", v);
	return 0;
}

/* "100 20 15" / "100,20,15" or "busiest X others Y [core N]". */
static int scenario_parse_loads(const char *v, struct sc_state *st)
{
	int b, o, c = 0, n = 0;
	if (sscanf(v, "busiest %d others %d%n", &b, &o, &n) == 2) {
		const char *rest = v + n;
		int m = 0;
		if (*rest && (sscanf(rest, " core %d%n", &c, &m) != 1 || rest[m] != '\0'))
			return -1;
		if (b < 0 || b > 100 || o < 0 || o > 100 || c < 0 || c >= SC_MAX_CORES)
			return -1;
		st->nloads = 0;
		st->busy_load = b, st->other_load = o, st->busy_core = c;
		return 0;
	}
	int count = 0;
	const char *s = v;
	while (*s) {
		char *end;
		long l = strtol(s, &end, 10);
		if (end == s || l < 0 || l > 100 || count == SC_MAX_CORES)
			return -1;
		st->loads[count++] = (unsigned char)l;
		s = end;
		while (*s == ' ' || *s == ',' || *s == '\t')
			s++;
	}
	if (count == 0)
		return -1;
	st->nloads = count;
	return 0;
}

static int scenario_parse_fault(const char *v, enum sc_fault *f)
{
	for (size_t i = 0; i < sizeof(fault_names) / sizeof(fault_names[0]); i++)
		if (strcmp(v, fault_names[i]) == 0) {
			*f = (enum sc_fault)i;
			return 0;
		}
	return -1;
}

/* A duration with an optional sign: "-1h", "+30d", "90s". */
static int scenario_parse_signed_duration(const char *v, double *sec)
{
	double sign = *v == '-' ? -1 : 1;
	if (*v == '-' || *v == '+')
		v++;
	if (scenario_parse_duration(v, sec) < 0)
		return -1;
	*sec *= sign;
	return 0;
}

/* The confounders' keys (docs/sim.md): 1 handled, 0 not one of them, -1 bad value. */
static int scenario_link_set(struct sc_state *st, const char *k, const char *v)
{
	double x;
	if (strcmp(k, "cpu_frequency") == 0 && scenario_parse_num(v, 0, 10000, &x) == 0)
		return st->cpu_mhz = (int)x, 1;
	if (strcmp(k, "wg_mtu") == 0 && scenario_parse_num(v, 576, 65535, &x) == 0)
		return st->wg_mtu = (int)x, 1;
	if (strcmp(k, "wan_queue_drops") == 0)
		return scenario_parse_num(v, 0, 1e9, &st->wan_drops) == 0 ? 1 : -1;
	return strcmp(k, "cpu_frequency") == 0 || strcmp(k, "wg_mtu") == 0 ? -1 : 0;
}

/* Keys that the timeline may change too. 1 handled, 0 not a state key, -1 bad value. */
static int scenario_state_set(struct sc_state *st, const char *k, const char *v)
{
	if (strcmp(k, "version") == 0)
		return scenario_parse_version(v, st->version) == 0 ? 1 : -1;
	if (strcmp(k, "firmware") == 0)
		return scenario_parse_version(v, st->firmware) == 0 ? 1 : -1;
	if (strcmp(k, "upgrade_firmware") == 0)
		return scenario_parse_version(v, st->upgrade_firmware) == 0 ? 1 : -1;
	if (strcmp(k, "latest_version") == 0)
		return scenario_parse_version(v, st->latest) == 0 ? 1 : -1;
	if (strcmp(k, "channel") == 0) {
		if (strlen(v) >= sizeof(st->channel) || !*v)
			return -1;
		snprintf(st->channel, sizeof(st->channel), "%s", v);
		return 1;
	}
	if (strcmp(k, "tx_mbps") == 0)
		return scenario_parse_num(v, 0, 400000, &st->tx_mbps) == 0 ? 1 : -1;
	if (strcmp(k, "rx_mbps") == 0)
		return scenario_parse_num(v, 0, 400000, &st->rx_mbps) == 0 ? 1 : -1;
	if (strcmp(k, "swing") == 0) {
		if (scenario_parse_num(v, 0, 100, &st->swing) < 0)
			return -1;
		st->swing /= 100;
		return 1;
	}
	if (strcmp(k, "cpu_load") == 0)
		return scenario_parse_loads(v, st) == 0 ? 1 : -1;
	if (strcmp(k, "fault") == 0)
		return scenario_parse_fault(v, &st->fault) == 0 ? 1 : -1;
	if (strcmp(k, "uptime_shift") == 0)
		return scenario_parse_signed_duration(v, &st->uptime_shift) == 0 ? 1 : -1;
	int rc = scdiag_state_set(st, k, v);
	if (rc == 0)
		rc = scfault_state_set(st, k, v);
	return rc ? rc : scenario_link_set(st, k, v);
}

static void scenario_group_defaults(struct parser *p, const char *name)
{
	scenario_t *sc = p->sc;
	sc->groups = xreallocarray(sc->groups, sc->ngroups + 1, sizeof(*sc->groups));
	struct sc_group *g = &sc->groups[sc->ngroups++];
	*g = (struct sc_group){
		.name = xstrdup(name),
		.line = p->line,
		.count = 1,
		.board = xstrdup("CHR"),
		.arch = xstrdup("x86_64"),
		.cpu_model = xstrdup("QEMU"),
		.cores = 1,
		.memory = 1024ULL * 1024 * 1024,
		.peer_prefix = xstrdup("peer"),
		.packet_size = 1000,
		.uptime0 = -1,
		.drip_every = 1,
		.wave_period = 86400,
		.slot = 0.1,
		.noise_every = 1,
	};
	scgroup_parse_wg(g, "wg0:4");
	p->g = g;
	p->st = (struct sc_state){ .channel = "stable", .nloads = 1, .loads = { 5 } };
	snprintf(p->st.version, sizeof(p->st.version), "7.22.3");
	scdiag_defaults(&p->st);
	p->nev = 0;
	p->ncpu = 0;
	p->rb = -1;
}

/* v as given if absolute, else relative to the directory of the scenario file. */
static char *scenario_path(const char *file, const char *v)
{
	const char *slash = strrchr(file, '/');
	if (*v == '/' || !slash)
		return xstrdup(v);
	return xasprintf("%.*s/%s", (int)(slash - file), file, v);
}

static void scenario_global_set(struct parser *p, const char *k, const char *v)
{
	scenario_t *sc = p->sc;
	int bad = 0;
	if (strcmp(k, "user") == 0)
		bad = scgroup_set_str(&sc->user, v);
	else if (strcmp(k, "diag_user") == 0)
		bad = scgroup_set_str(&sc->diag_user, v);
	else if (strcmp(k, "diag_password") == 0) {
		free(sc->diag_password);
		sc->diag_password = xstrdup(v);
	} else if (strcmp(k, "password") == 0) {
		free(sc->password);
		sc->password = xstrdup(v);
	} else if (strcmp(k, "tls_cert") == 0 || strcmp(k, "tls_key") == 0) {
		char **dst = k[4] == 'c' ? &sc->tls_cert : &sc->tls_key;
		free(*dst);
		*dst = scenario_path(p->file, v);
	} else if (strcmp(k, "time_scale") == 0)
		bad = scenario_parse_num(v, 0.001, 1e6, &sc->time_scale);
	else if (strcmp(k, "seed") == 0) {
		char *end;
		sc->seed = strtoull(v, &end, 10);
		bad = *end || end == v ? -1 : 0;
	} else {
		scenario_perr(p, p->line, "unknown key %s in [global]", k);
		return;
	}
	if (bad)
		scenario_perr(p, p->line, "bad value for %s: %s", k, v);
}

static void scenario_key_line(struct parser *p, char *k, char *v)
{
	if (!p->g) {
		scenario_global_set(p, k, v);
		return;
	}
	if (sccpu_is_key(k)) { /* needs the group's final wg list and cores */
		p->cpu = xreallocarray(p->cpu, p->ncpu + 1, sizeof(*p->cpu));
		p->cpu[p->ncpu++] = (struct sc_event){ .line = p->line, .text = xasprintf("%s %s", k, v) };
		return;
	}
	int rc = scenario_state_set(&p->st, k, v);
	if (rc == 0 && strcmp(k, "routerboard") == 0) {
		rc = strcmp(v, "yes") == 0 || strcmp(v, "no") == 0 ? 1 : -1;
		p->rb = strcmp(v, "yes") == 0;
	} else if (rc == 0)
		rc = scgroup_set(p->g, k, v);
	if (rc == -2)
		scenario_perr(p, p->line, "unknown key %s", k);
	else if (rc < 0)
		scenario_perr(p, p->line, "bad value for %s: %s", k, v);
}

static void scenario_event_line(struct parser *p, char *rest)
{
	char *colon = strchr(rest, ':');
	double at;
	if (!p->g) {
		scenario_perr(p, p->line, "timeline lines belong in a [group]");
		return;
	}
	if (!colon) {
		scenario_perr(p, p->line, "expected \"at TIME: change, change...\"");
		return;
	}
	*colon = '\0';
	if (scenario_parse_duration(text_trim(rest), &at) < 0) {
		scenario_perr(p, p->line, "bad time: %s", text_trim(rest));
		return;
	}
	p->ev = xreallocarray(p->ev, p->nev + 1, sizeof(*p->ev));
	p->ev[p->nev++] = (struct sc_event){ .at = at, .line = p->line, .text = xstrdup(colon + 1) };
}

/* A CPU model key into st.cpu, with a FILE:LINE error if bad; false if k is no such key. */
static bool scenario_cpu_change(struct parser *p, int line, struct sc_state *st, const char *k, const char *v)
{
	char why[160];
	int rc = sccpu_set(p->g, &st->cpu, k, v, why, sizeof(why));
	if (rc < 0)
		scenario_perr(p, line, "bad value for %s: %s", k, why);
	return rc != 0;
}

/* Apply one timeline change "key value" to phase ph. */
static void scenario_apply_change(struct parser *p, int line, struct sc_phase *ph, char *c)
{
	char *v = c + strcspn(c, " \t");
	if (*v)
		*v++ = '\0';
	v = text_trim(v);
	if (strcmp(c, "reboot") == 0 && !*v) {
		ph->reboot = true;
		return;
	}
	const char *k = strcmp(c, "upgrade") == 0 ? "version" : c;
	if (scenario_cpu_change(p, line, &ph->st, k, v))
		return;
	int rc = scenario_state_set(&ph->st, k, v);
	if (rc == 0)
		scenario_perr(p, line, "unknown timeline change %s", k);
	else if (rc < 0)
		scenario_perr(p, line, "bad value for %s: %s", k, v);
	else if (strcmp(k, "version") == 0) {
		memcpy(ph->st.upgrade_firmware, ph->st.version, SC_VER_LEN);
		ph->reboot = true;
	} else if (strcmp(k, "firmware") == 0)
		ph->reboot = true;
}

/* Does piece t continue the list of change cur? A number continues cpu_load and work, a wg
 * interface's name continues demand, cost and follow. */
static bool scenario_continues(const struct parser *p, const char *cur, const char *t)
{
	if (isdigit((unsigned char)*t))
		return strncmp(cur, "cpu_load", 8) == 0 || strncmp(cur, "work ", 5) == 0;
	if (strncmp(cur, "demand ", 7) != 0 && strncmp(cur, "cost ", 5) != 0 &&
		strncmp(cur, "follow ", 7) != 0)
		return false;
	size_t n = strcspn(t, " \t");
	for (size_t i = 0; i < p->g->nwg; i++)
		if (strlen(p->g->wg[i].name) == n && strncmp(p->g->wg[i].name, t, n) == 0)
			return true;
	return false;
}

/* Split "version 7.22.3, tx_mbps 130, cpu_load 100,20,20" into changes; a piece may continue
 * the previous change's list (scenario_continues). */
static void scenario_apply_event(struct parser *p, const struct sc_event *e, struct sc_phase *ph)
{
	char *copy = xstrdup(e->text), *rest = copy, *t;
	buf_t cur;
	buf_init(&cur);
	while ((t = scenario_split_next(&rest, ',')) != NULL) {
		t = text_trim(t);
		if (cur.len && scenario_continues(p, cur.data, t)) {
			buf_printf(&cur, "%s %s", strncmp(cur.data, "cpu_load", 8) ? "," : "", t);
			continue;
		}
		if (cur.len)
			scenario_apply_change(p, e->line, ph, cur.data);
		buf_reset(&cur);
		buf_puts(&cur, t);
	}
	if (cur.len)
		scenario_apply_change(p, e->line, ph, cur.data);
	else
		scenario_perr(p, e->line, "empty timeline line");
	buf_free(&cur);
	free(copy);
}

static int scenario_event_cmp(const void *a, const void *b)
{
	const struct sc_event *x = a, *y = b;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->line - y->line; /* stable */
}

static void scenario_check_state(
	struct parser *p, int line, const struct sc_group *g, const struct sc_state *st)
{
	if (st->nloads > g->cores)
		scenario_perr(
			p, line, "cpu_load lists %d loads but there are only %d cores", st->nloads, g->cores);
	if (st->nloads == 0 && st->busy_core >= g->cores)
		scenario_perr(p, line, "cpu_load busiest core is beyond the last core");
}

/* The group's CPU model keys, now that its wg interfaces and cores are known. */
static void scenario_cpu_keys(struct parser *p)
{
	for (size_t i = 0; i < p->ncpu; i++) {
		char *k = p->cpu[i].text, *v = k + strcspn(k, " ");
		*v++ = '\0';
		scenario_cpu_change(p, p->cpu[i].line, &p->st, k, v);
		free(p->cpu[i].text);
	}
	p->ncpu = 0;
}

/* Model mode when some phase has a cost; the model's keys are errors without one. */
static void scenario_cpu_mode(struct parser *p, struct sc_group *g)
{
	bool used = false;
	for (size_t i = 0; i < g->nphases; i++) {
		g->cpu_sim = g->cpu_sim || g->phases[i].st.cpu.has_cost;
		used = used || g->phases[i].st.cpu.used;
	}
	if ((used || g->growth > 0) && !g->cpu_sim)
		scenario_perr(p, g->line,
			"group %s: demand, follow, work, noise, shared_noise, work_noise, burst and growth need a cost (the CPU model)",
			g->name);
	if (g->cpu_sim && g->nwg > SC_CPU_MAX_WG)
		scenario_perr(p, g->line, "group %s: the CPU model takes at most %d wg interfaces", g->name,
			SC_CPU_MAX_WG);
}

static void scenario_compile_phases(struct parser *p, struct sc_group *g)
{
	if (!p->st.firmware[0])
		memcpy(p->st.firmware, p->st.version, SC_VER_LEN);
	if (!p->st.upgrade_firmware[0])
		memcpy(p->st.upgrade_firmware, p->st.version, SC_VER_LEN);
	if (p->nev)
		qsort(p->ev, p->nev, sizeof(*p->ev), scenario_event_cmp);
	g->phases = xcalloc(p->nev + 1, sizeof(*g->phases));
	g->phases[0] = (struct sc_phase){ .start = -INFINITY, .st = p->st };
	g->nphases = 1;
	scenario_check_state(p, g->line, g, &p->st);
	for (size_t i = 0; i < p->nev; i++) {
		struct sc_phase *last = &g->phases[g->nphases - 1];
		if (last->start != p->ev[i].at) {
			g->phases[g->nphases] = (struct sc_phase){ .start = p->ev[i].at, .st = last->st };
			last = &g->phases[g->nphases++];
		}
		scenario_apply_event(p, &p->ev[i], last);
		scenario_check_state(p, p->ev[i].line, g, &last->st);
		free(p->ev[i].text);
	}
	p->nev = 0;
}

static void scenario_group_end(struct parser *p)
{
	struct sc_group *g = p->g;
	if (!g)
		return;
	for (size_t i = 0; i < g->nwg; i++)
		if (g->idle_peers > g->wg[i].npeers)
			scenario_perr(p, g->line, "idle_peers is more than the peers of %s", g->wg[i].name);
	if (g->disabled_peers > g->idle_peers)
		scenario_perr(p, g->line, "disabled_peers is more than idle_peers (a disabled peer is idle)");
	g->routerboard = p->rb >= 0 ? p->rb == 1 : strcmp(g->arch, "x86_64") != 0;
	if (g->health == SC_HEALTH_DEFAULT)
		g->health = g->routerboard ? SC_HEALTH_V7 : SC_HEALTH_NONE;
	scenario_cpu_keys(p);
	scenario_compile_phases(p, g);
	scenario_cpu_mode(p, g);
	p->sc->nrouters += (size_t)g->count;
	p->g = NULL;
}

static void scenario_section_line(struct parser *p, char *s)
{
	char *end = strchr(s, ']');
	if (!end || end[1]) {
		scenario_perr(p, p->line, "bad section header");
		return;
	}
	*end = '\0';
	scenario_group_end(p);
	s = text_trim(s + 1);
	if (strcmp(s, "global") == 0)
		return;
	bool ok = strncmp(s, "group", 5) == 0 && isspace((unsigned char)s[5]);
	if (!ok) {
		scenario_perr(p, p->line, "unknown section [%s] (want [global] or [group NAME])", s);
		scenario_group_defaults(p, "invalid");
		return;
	}
	char *name = text_trim(s + 5);
	ok = *name && strlen(name) < 48;
	for (char *c = name; *c; c++)
		ok = ok && (isalnum((unsigned char)*c) || strchr("._-", *c));
	for (size_t i = 0; ok && i < p->sc->ngroups; i++)
		if (strcmp(p->sc->groups[i].name, name) == 0)
			scenario_perr(p, p->line, "group %s is defined twice", name);
	if (!ok)
		scenario_perr(p, p->line, "bad group name \"%s\" (letters, digits, . _ -)", name);
	scenario_group_defaults(p, name);
}

static void scenario_parse_line(struct parser *p, char *s)
{
	s = text_trim(s);
	if (*s == '\0' || *s == '#' || *s == ';')
		return;
	if (*s == '[') {
		scenario_section_line(p, s);
		return;
	}
	if (strncmp(s, "at", 2) == 0 && isspace((unsigned char)s[2])) {
		scenario_event_line(p, s + 3);
		return;
	}
	char *eq = strchr(s, '=');
	if (!eq) {
		scenario_perr(p, p->line, "expected key = value");
		return;
	}
	*eq = '\0';
	scenario_key_line(p, text_trim(s), text_trim(eq + 1));
}

int scenario_load(const char *path, scenario_t **out, char **errors)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		*errors = xasprintf("%s: %s\n", path, strerror(errno));
		return -1;
	}
	scenario_t *sc = xcalloc(1, sizeof(*sc));
	*sc = (scenario_t){ .file = xstrdup(path),
		.user = xstrdup("admin"),
		.password = xstrdup(""),
		.time_scale = 1,
		.seed = 1 };
	struct parser p = { .file = path, .sc = sc };
	buf_init(&p.errs);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) >= 0) {
		p.line++;
		scenario_parse_line(&p, line);
	}
	scenario_group_end(&p);
	free(line);
	free(p.ev);
	free(p.cpu);
	fclose(f);
	if (sc->nrouters == 0 && p.errs.len == 0)
		scenario_perr(&p, p.line, "no routers: add a [group NAME] section");
	for (size_t i = 0; i < sc->ngroups; i++)
		if (sc->groups[i].tls && (!sc->tls_cert || !sc->tls_key))
			scenario_perr(&p, sc->groups[i].line,
				"group %s: tls = yes needs tls_cert and tls_key in [global]",
				sc->groups[i].name);
	if (sc->diag_user && strcmp(sc->diag_user, sc->user) == 0)
		scenario_perr(&p, p.line, "diag_user must differ from user (%s)", sc->user);
	if (sc->diag_user && !sc->diag_password)
		sc->diag_password = xstrdup("");
	if (p.errs.len) {
		*errors = buf_steal(&p.errs, NULL);
		scenario_free(sc);
		return -1;
	}
	buf_free(&p.errs);
	*out = sc;
	return 0;
}

void scenario_free(scenario_t *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->ngroups; i++) {
		struct sc_group *g = &sc->groups[i];
		for (size_t j = 0; j < g->nwg; j++)
			free(g->wg[j].name);
		free(g->wg);
		free(g->name), free(g->board), free(g->arch), free(g->cpu_model);
		free(g->model_serial), free(g->labels), free(g->peer_prefix), free(g->phases);
		free(g->bridge_name), free(g->routes);
		free(g->btest_user), free(g->btest_password);
	}
	free(sc->groups);
	free(sc->file), free(sc->user), free(sc->password);
	free(sc->diag_user), free(sc->diag_password);
	free(sc->tls_cert), free(sc->tls_key);
	free(sc);
}
