/* SPDX-License-Identifier: Apache-2.0 */
/* simrest: answers one REST request of one simulated router as RouterOS 7 would: Basic auth,
 * 400 for unknown paths, .proplist, GET equality filters, POST print with API .query words.
 * Also the content faults (401, malformed, html, big). Never logs, never does I/O. */
#include "config.h"
#include "sim/simrest.h"
#include "sim/simdiag.h"
#include "sim/simmenu.h"
#include "sim/simroute.h"
#include "lib/buf.h"
#include "lib/jsonr.h"
#include "lib/jsonw.h"
#include "lib/xmem.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

#define MAX_WORDS 64
#define BIG_BYTES (9u << 20)

/* What to return: .proplist and a query program (API words; GET filters become "k=v"). */
struct sel {
	char *props[SIMMENU_FIELDS];
	int nprops; /* -1: no .proplist */
	char *words[MAX_WORDS];
	int nwords;
	bool count_only;
};

static time_t sim_epoch;

void simrest_set_epoch(time_t epoch)
{
	sim_epoch = epoch;
}

void simrest_duration(double sec, char *out, size_t size)
{
	simmenu_duration(sec, out, size);
}

static void simrest_json_str(buf_t *b, const char *s)
{
	buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			buf_printf(b, "\\u%04x", c);
		else
			buf_putc(b, (char)c);
	}
	buf_putc(b, '"');
}

static void simrest_reply(struct simresp *out, int status, const char *json)
{
	out->status = status;
	out->content_type = "application/json";
	buf_reset(&out->body);
	buf_puts(&out->body, json);
}

/* 400 with detail; takes ownership of detail. */
static void simrest_error_400(struct simresp *out, char *detail)
{
	simrest_reply(out, 400, "{\"detail\":");
	simrest_json_str(&out->body, detail);
	free(detail);
	buf_puts(&out->body, ",\"error\":400,\"message\":\"Bad Request\"}");
}

static void simrest_sel_free(struct sel *s)
{
	for (int i = 0; i < s->nprops; i++)
		free(s->props[i]);
	for (int i = 0; i < s->nwords; i++)
		free(s->words[i]);
}

/* ---- auth ---- */

static int simrest_b64_val(char c)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = c ? strchr(tab, c) : NULL;
	return p ? (int)(p - tab) : -1;
}

/* Decode base64 s into out (NUL-terminated); -1 on bad input or overflow. */
static int simrest_b64_decode(const char *s, char *out, size_t size)
{
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (; *s && *s != '='; s++) {
		int v = simrest_b64_val(*s);
		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o + 1 >= size)
				return -1;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = '\0';
	return 0;
}

static bool simrest_creds_ok(const char *dec, const char *user, const char *password)
{
	size_t n = strlen(user);
	return strncmp(dec, user, n) == 0 && dec[n] == ':' && strcmp(dec + n + 1, password) == 0;
}

int simrest_user(const scenario_t *sc, const char *hdr)
{
	char dec[512];
	if (!hdr || strncasecmp(hdr, "Basic ", 6) != 0)
		return -1;
	hdr += 6;
	while (*hdr == ' ')
		hdr++;
	if (simrest_b64_decode(hdr, dec, sizeof(dec)) < 0)
		return -1;
	if (simrest_creds_ok(dec, sc->user, sc->password))
		return 0;
	if (sc->diag_user && simrest_creds_ok(dec, sc->diag_user, sc->diag_password))
		return 1;
	return -1;
}

/* ---- selection: .proplist, filters, .query ---- */

static void simrest_add_props(struct sel *s, const char *list)
{
	const char *p = list;
	if (s->nprops < 0)
		s->nprops = 0;
	while (*p && s->nprops < SIMMENU_FIELDS) {
		size_t n = strcspn(p, ",");
		if (n > 0)
			s->props[s->nprops++] = xstrndup(p, n);
		p += n;
		if (*p == ',')
			p++;
	}
}

static void simrest_add_word(struct sel *s, const char *w, size_t n)
{
	if (s->nwords < MAX_WORDS)
		s->words[s->nwords++] = xstrndup(w, n);
}

static char *simrest_url_decode(const char *s, size_t n)
{
	char *out = xmalloc(n + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) &&
			isxdigit((unsigned char)s[i + 2]) && sscanf(s + i + 1, "%2x", &v) == 1) {
			out[o++] = (char)v;
			i += 2;
		} else
			out[o++] = s[i] == '+' ? ' ' : s[i];
	}
	out[o] = '\0';
	return out;
}

static void simrest_sel_from_query(struct sel *s, const char *q)
{
	while (*q) {
		size_t n = strcspn(q, "&");
		char *kv = simrest_url_decode(q, n);
		if (strncmp(kv, ".proplist=", 10) == 0)
			simrest_add_props(s, kv + 10);
		else if (*kv)
			simrest_add_word(s, kv, strlen(kv));
		free(kv);
		q += n;
		if (*q == '&')
			q++;
	}
}

/* The strings of a .proplist or .query value v (a string, or an array whose strings count). */
static void simrest_sel_words(struct sel *s, const jsonr_node_t *v, bool query)
{
	for (size_t i = 0; i < (jsonr_is_array(v) ? jsonr_size(v) : 1); i++) {
		const char *w = jsonr_str(jsonr_is_array(v) ? jsonr_at(v, i) : v);
		if (w != NULL && query)
			simrest_add_word(s, w, strlen(w));
		else if (w != NULL)
			simrest_add_props(s, w);
	}
}

/* POST print body: {".proplist": "a,b" | ["a","b"], ".query": [...], "count-only": ""}. */
static int simrest_sel_from_body(struct sel *s, const char *body, size_t len, struct simresp *out)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = len ? jsonr_parse(d, body, len) : jsonr_parse(d, "{}", 2);
	int rc = 0;
	if (!jsonr_is_object(j)) {
		simrest_error_400(out, xstrdup("invalid JSON body"));
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < jsonr_size(j); i++) {
		const char *key = jsonr_key(j, i);
		const jsonr_node_t *v = jsonr_at(j, i);
		if (strcmp(key, ".proplist") == 0 && (jsonr_is_string(v) || jsonr_is_array(v)))
			simrest_sel_words(s, v, false);
		else if (strcmp(key, ".query") == 0 && jsonr_is_array(v))
			simrest_sel_words(s, v, true);
		else if (strcmp(key, "count-only") == 0)
			s->count_only = true;
		else {
			simrest_error_400(out, xasprintf("unknown parameter %s", key));
			rc = -1;
		}
	}
	jsonr_destroy(d);
	return rc;
}

/* One API query word against rec: "k=v", "k<v", "k>v", "k" (has), "-k" (lacks). */
static bool simrest_word_match(const struct simmenu_rec *rec, const char *w)
{
	if (*w == '?')
		w++;
	if (*w == '-')
		return simmenu_get(rec, w + 1) == NULL;
	size_t n = strcspn(w, "=<>");
	char key[64];
	if (n >= sizeof(key))
		return false;
	memcpy(key, w, n);
	key[n] = '\0';
	const char *have = simmenu_get(rec, key);
	if (w[n] == '\0' || !have)
		return have != NULL;
	if (w[n] == '=')
		return strcmp(have, w + n + 1) == 0;
	double a = strtod(have, NULL), b = strtod(w + n + 1, NULL);
	return w[n] == '<' ? a < b : a > b;
}

/* Run the API query program: "#|" ORs, "#&" ANDs, "#!" negates, "#." duplicates the top;
 * whatever stays on the stack is ANDed. */
static bool simrest_sel_match(const struct sel *s, const struct simmenu_rec *rec)
{
	bool st[MAX_WORDS + 1];
	int sp = 0;
	for (int i = 0; i < s->nwords; i++) {
		const char *w = s->words[i][0] == '?' ? s->words[i] + 1 : s->words[i];
		if (*w != '#') {
			st[sp++] = simrest_word_match(rec, w);
			continue;
		}
		for (w++; *w; w++) {
			if ((*w == '|' || *w == '&') && sp >= 2) {
				sp--;
				st[sp - 1] = *w == '|' ? (st[sp - 1] || st[sp]) : (st[sp - 1] && st[sp]);
			} else if (*w == '!' && sp >= 1)
				st[sp - 1] = !st[sp - 1];
			else if (*w == '.' && sp >= 1 && sp < MAX_WORDS)
				st[sp] = st[sp - 1], sp++;
		}
	}
	for (int i = 0; i < sp; i++)
		if (!st[i])
			return false;
	return true;
}

static bool simrest_wanted(const struct sel *s, const char *key)
{
	if (s->nprops < 0)
		return true;
	for (int i = 0; i < s->nprops; i++)
		if (strcmp(s->props[i], key) == 0)
			return true;
	return false;
}

static void simrest_emit_rec(
	buf_t *b, const struct sel *s, const struct simmenu_rec *rec, struct simresp *out)
{
	bool first = true;
	buf_putc(b, '{');
	for (int i = 0; i < rec->n; i++) {
		if (!simrest_wanted(s, rec->k[i]))
			continue;
		if (strcmp(rec->k[i], "private-key") == 0 || strcmp(rec->k[i], "preshared-key") == 0)
			out->served_private_key++;
		if (!first)
			buf_putc(b, ',');
		first = false;
		simrest_json_str(b, rec->k[i]);
		buf_putc(b, ':');
		simrest_json_str(b, rec->v[i]);
	}
	buf_putc(b, '}');
}

/* ---- menus ---- */

static void simrest_emit_list(
	const struct simmenu *m, const struct simmenu_ctx *c, const struct sel *s, struct simresp *out)
{
	int n = m->count(c), matched = 0;
	buf_t *b = &out->body;
	struct simmenu_rec rec;
	simrest_reply(out, 200, "[");
	for (int i = 0; i < n; i++) {
		rec.n = 0;
		m->fill(c, i, &rec);
		if (!simrest_sel_match(s, &rec))
			continue;
		if (!s->count_only) {
			if (matched)
				buf_putc(b, ',');
			simrest_emit_rec(b, s, &rec, out);
		}
		matched++;
	}
	buf_putc(b, ']');
	if (s->count_only) {
		buf_reset(b);
		buf_printf(b, "{\"ret\":\"%d\"}", matched);
	}
}

/* GET /rest/MENU/ID-or-NAME: one object, 404 if none. */
static void simrest_emit_one(const struct simmenu *m, const struct simmenu_ctx *c, const struct sel *s,
	const char *id, struct simresp *out)
{
	int n = m->count(c);
	struct simmenu_rec rec;
	for (int i = 0; i < n; i++) {
		rec.n = 0;
		m->fill(c, i, &rec);
		const char *rid = simmenu_get(&rec, ".id"), *name = simmenu_get(&rec, "name");
		if ((rid && strcmp(rid, id) == 0) || (name && strcmp(name, id) == 0)) {
			simrest_reply(out, 200, "");
			simrest_emit_rec(&out->body, s, &rec, out);
			return;
		}
	}
	simrest_reply(out, 404, "{\"error\":404,\"message\":\"Not Found\"}");
}

static void simrest_serve_menu(const simrouter_t *r, double t, const struct simmenu *m, const char *id,
	const struct sel *s, struct simresp *out)
{
	struct simmenu_ctx c;
	struct simmenu_rec rec = { .n = 0 };
	simmenu_ctx_init(&c, r, t, sim_epoch);
	bool list = m->list && !simmenu_flat(m, &c);
	if (list && id) {
		simrest_emit_one(m, &c, s, id, out);
	} else if (list) {
		simrest_emit_list(m, &c, s, out);
	} else {
		/* 7.1 betas sent /system/resource as a one-element array (shape resource-array) */
		bool array = strcmp(m->path, "system/resource") == 0 &&
			(simrouter_group(r)->shape & SC_SHAPE_RESOURCE_ARRAY);
		m->fill(&c, 0, &rec);
		simrest_reply(out, 200, array ? "[" : "");
		simrest_emit_rec(&out->body, s, &rec, out);
		if (array)
			buf_putc(&out->body, ']');
	}
}

/* Split "/rest/a/b/c" into a menu and, for GET, an optional trailing id or, for POST, a
 * command. Returns the menu or NULL; *last is the unmatched last segment. */
static const struct simmenu *simrest_route(const char *path, char **last)
{
	const struct simmenu *m = simmenu_find(path);
	*last = NULL;
	if (m)
		return m;
	const char *slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	char *base = xstrndup(path, (size_t)(slash - path));
	m = simmenu_find(base);
	free(base);
	*last = xstrdup(slash + 1);
	return m;
}

/* POST /rest/ip/route/check {"dst-ip":"A","once":""}: a one-element array (routeros.md: a
 * command bounded by once), or 400 as RouterOS gives for a bad argument or a missing command. */
static void simrest_route_check(const simrouter_t *r, const struct simreq *q, struct simresp *out)
{
	const struct sc_group *g = simrouter_group(r);
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = q->body_len ? jsonr_parse(d, q->body, q->body_len) : NULL;
	const char *dst = NULL;
	bool once = false;
	char iface[64], hop[32];
	if (g->shape & SC_SHAPE_NO_ROUTE_CHECK) {
		simrest_error_400(out, xstrdup("no such command or directory (check)"));
	} else if (!jsonr_is_object(j)) {
		simrest_error_400(out, xstrdup("invalid JSON body"));
	} else {
		for (size_t i = 0; i < jsonr_size(j); i++) {
			const char *key = jsonr_key(j, i);
			if (strcmp(key, "dst-ip") == 0 && jsonr_is_string(jsonr_at(j, i)))
				dst = jsonr_str(jsonr_at(j, i));
			else if (strcmp(key, "once") == 0)
				once = true;
			else if (strcmp(key, ".proplist") != 0)
				dst = "", once = true; /* caught below as a bad argument */
		}
		if (!once) /* RouterOS would run it until the REST server's 60 s cut */
			simrest_error_400(out, xstrdup("Session closed"));
		else if (dst == NULL ||
			simroute_check(g->routes, dst, iface, sizeof(iface), hop, sizeof(hop)) < 0)
			simrest_error_400(out, xstrdup("invalid value for argument dst-ip"));
		else {
			simrest_reply(out, 200, "[{\"status\":\"ok\",\"interface\":");
			simrest_json_str(&out->body, iface);
			buf_printf(&out->body, ",\"nexthop\":\"%s\"}]", hop);
		}
	}
	jsonr_destroy(d);
}

static void simrest_serve_rest(const simrouter_t *r, double t, const struct simreq *q, struct simresp *out)
{
	char *last;
	bool post = strcmp(q->method, "POST") == 0;
	if (post && strcmp(q->path, "/rest/ip/route/check") == 0) {
		simrest_route_check(r, q, out);
		return;
	}
	const struct simmenu *m = simrest_route(q->path + 6, &last);
	struct sel s = { .nprops = -1 };
	if (post && simdiag_is_command(q->path + 6)) {
		simdiag_handle(r, t, q->time_scale, q, out);
		free(last);
		return;
	}
	bool bad = !m || (post && (!last || strcmp(last, "print") != 0)) ||
		(!post && last && (strcmp(last, "print") == 0 || !m->list));
	if (bad) {
		simrest_error_400(
			out, xasprintf("no such command or directory (%s)", strrchr(q->path, '/') + 1));
	} else if (post) {
		if (simrest_sel_from_body(&s, q->body, q->body_len, out) == 0)
			simrest_serve_menu(r, t, m, NULL, &s, out);
	} else {
		simrest_sel_from_query(&s, q->query);
		simrest_serve_menu(r, t, m, last, &s, out);
	}
	simrest_sel_free(&s);
	free(last);
}

/* ---- faults ---- */

static const char *simrest_big_body(size_t *len)
{
	static char *big;
	static size_t big_len;
	if (!big) {
		buf_t b;
		buf_init(&b);
		buf_putc(&b, '[');
		for (unsigned i = 0; b.len < BIG_BYTES; i++)
			buf_printf(&b,
				"%s{\".id\":\"*%X\",\"name\":\"vlan%u\",\"type\":\"vlan\",\"rx-byte\":\"0\","
				"\"tx-byte\":\"0\",\"running\":\"true\",\"disabled\":\"false\"}",
				i ? "," : "", 0x1000 + i, i + 1);
		buf_putc(&b, ']');
		big = buf_steal(&b, &big_len);
	}
	*len = big_len;
	return big;
}

static bool simrest_content_fault(enum sc_fault f, struct simresp *out)
{
	switch (f) {
	case SC_FAULT_MALFORMED:
		simrest_reply(out, 200,
			"{\"architecture-name\":\"tile\",\"board-name\":\"CCR1009-7G-1C-1S+\",\"uptime\":");
		return true;
	case SC_FAULT_HTML:
		simrest_reply(out, 200,
			"<!DOCTYPE html>\n<html><head><title>Error</title></head><body>"
			"<h1>503 Service Unavailable</h1><p>The server is busy.</p></body></html>\n");
		out->content_type = "text/html";
		return true;
	case SC_FAULT_BIG:
		simrest_reply(out, 200, "");
		out->shared = simrest_big_body(&out->shared_len);
		return true;
	default: return false;
	}
}

/* ---- one menu's faults (menu_fault) ---- */

/* Record o (an object, else copied as it is) with every value but .id's and name's null. */
static void simrest_null_record(buf_t *b, const jsonr_node_t *o)
{
	if (!jsonr_is_object(o)) {
		jsonw_copy(b, NULL, o, JSONW_PREC_MAX);
		return;
	}
	jsonw_object(b, NULL);
	for (size_t k = 0; k < jsonr_size(o); k++) {
		const char *key = jsonr_key(o, k);
		if (strcmp(key, ".id") != 0 && strcmp(key, "name") != 0)
			jsonw_null(b, key);
		else
			jsonw_copy(b, key, jsonr_at(o, k), JSONW_PREC_MAX);
	}
	jsonw_end_object(b);
}

/* Every value of the records of out's 200 reply, but .id and name, made null. */
static void simrest_nulls(struct simresp *out)
{
	jsonr_t *d = jsonr_create();
	const jsonr_node_t *j = jsonr_parse(d, out->body.data ? out->body.data : "", out->body.len);
	if (j != NULL && out->status == 200) {
		buf_t b;
		buf_init(&b);
		if (jsonr_is_array(j)) {
			jsonw_array(&b, NULL);
			for (size_t i = 0; i < jsonr_size(j); i++)
				simrest_null_record(&b, jsonr_at(j, i));
			jsonw_end_array(&b);
		} else
			simrest_null_record(&b, j);
		simrest_reply(out, out->status, b.data ? b.data : "");
		buf_free(&b);
	}
	jsonr_destroy(d);
}

bool simrest_hangs(const simrouter_t *r, double t, const char *target)
{
	const struct sc_menu_fault *f = strncmp(target, "/rest/", 6) == 0
		? scenario_menu_fault(simrouter_state(r, t), target + 5)
		: NULL;
	return f != NULL && f->kind == SC_MENU_HANG;
}

/* The reply of q's menu, as its menu_fault (docs/sim.md) spoils it, if it has one. */
static void simrest_serve_menu_fault(
	const simrouter_t *r, double t, const struct simreq *q, struct simresp *out)
{
	const struct sc_menu_fault *f = scenario_menu_fault(simrouter_state(r, t), q->path + 5);
	if (f == NULL || f->kind == SC_MENU_HANG || f->kind == SC_MENU_NULL) {
		simrest_serve_rest(r, t, q, out);
		if (f != NULL && f->kind == SC_MENU_NULL)
			simrest_nulls(out);
	} else if (f->kind == SC_MENU_500) {
		simrest_reply(out, 500,
			"{\"detail\":\"std failure: not allowed (9)\",\"error\":500,"
			"\"message\":\"Internal Server Error\"}");
	} else if (f->kind == SC_MENU_ERROR200) {
		simrest_error_400(
			out, xasprintf("no such command or directory (%s)", strrchr(q->path, '/') + 1));
		out->status = 200;
	} else {
		simrest_reply(out, 200, "[]");
	}
}

void simrest_handle(const simrouter_t *r, double t, const struct simreq *q, struct simresp *out)
{
	enum sc_fault f = simrouter_fault(r, t);
	out->content_type = "application/json";
	out->extra_headers = "";
	out->shared = NULL;
	out->served_private_key = 0;
	out->hold = 0;
	if (strcmp(q->path, "/") == 0 && strcmp(q->method, "GET") == 0) {
		simrest_reply(
			out, 200, "<html><head><title>RouterOS</title></head><body>webfig</body></html>\n");
		out->content_type = "text/html";
	} else if (strncmp(q->path, "/rest/", 6) != 0) {
		simrest_reply(out, 404, "<html><body><h1>404 Not Found</h1></body></html>\n");
		out->content_type = "text/html";
	} else if (f == SC_FAULT_401 || simrest_user(simrouter_scenario(r), q->auth) < 0) {
		simrest_reply(out, 401, "{\"error\":401,\"message\":\"Unauthorized\"}");
		out->extra_headers = "WWW-Authenticate: Basic realm=\"RouterOS\"\r\n";
	} else if (simrest_content_fault(f, out)) {
		return;
	} else if (strcmp(q->method, "HEAD") == 0) {
		simrest_reply(out, 501, "{\"error\":501,\"message\":\"Not Implemented\"}");
	} else if (strcmp(q->method, "GET") != 0 && strcmp(q->method, "POST") != 0) {
		simrest_reply(out, 500,
			"{\"detail\":\"std failure: not allowed (9)\",\"error\":500,"
			"\"message\":\"Internal Server Error\"}");
	} else if (q->body_len &&
		(!q->content_type || strncasecmp(q->content_type, "application/json", 16) != 0)) {
		simrest_reply(out, 415, "{\"error\":415,\"message\":\"Unsupported Media Type\"}");
	} else {
		simrest_serve_menu_fault(r, t, q, out);
	}
}
