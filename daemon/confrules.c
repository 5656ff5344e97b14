/* SPDX-License-Identifier: Apache-2.0 */
/* confrules: the second pass, after the last file is read: defaults (from [defaults], the key
 * table or [daemon]) and the rules across keys, such as a router needing rest or snmp. It never
 * logs and never reads a file; problems become messages at the line of the section or key. */
#include "config.h"
#include "daemon/conf_int.h"
#include "lib/xmem.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static void confrules_default(const struct conf_key *k, void *base, const char *dir)
{
	char *cause = NULL;
	int rc = confval_value(k, k->def, base, dir, &cause);
	assert(rc == 0 && "a default in confkeys_table[] does not parse");
	(void)rc;
	free(cause);
}

static void confrules_global_defaults(struct conf_loader *ld, const char *dir)
{
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &confkeys_table[i];
		if (k->sect != SECT_ROUTER && k->def != NULL && confkeys_clash(k, ld->at) == NULL)
			confrules_default(k, ld->c, dir);
	}
}

/* Whether the router uses the secret of key name: a pattern's file is looked for only where it
 * is needed (an SNMP-only router has no REST password file, and needs none). */
static bool confrules_router_uses(const conf_router_t *r, const char *name)
{
	if (strncmp(name, "snmp_", 5) == 0)
		return r->snmp != NULL;
	if (strcmp(name, "diag_password_file") == 0)
		return r->diag_user != NULL;
	if (strcmp(name, "probe_password_file") == 0)
		return r->probe != NULL;
	return r->rest != NULL; /* password_file: REST's */
}

/* A [defaults] secret file with %{router} in its path: this router's file, read now; a problem
 * is said at the [defaults] line, with the router's name and the path (never the secret). */
static void confrules_router_pattern(struct conf_loader *ld, struct conf_rsec *rs, const struct conf_key *k)
{
	size_t i = (size_t)(k - confkeys_table);
	char *value = confval_router_var(ld->pattern[i], rs->r.name), *cause = NULL;
	if (confval_value(k, value, &rs->r, ld->pattern_dir[i], &cause) < 0)
		conf_err(ld, ld->defaults.at[i], "router %s: %s = %s: %s", rs->r.name, k->name, value, cause);
	free(cause);
	free(value);
}

/* Keys the router does not set come from [defaults], else from the table, else [daemon]. */
static void confrules_router_defaults(struct conf_loader *ld, struct conf_rsec *rs)
{
	const struct conf_rsec *d = &ld->defaults;
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		const struct conf_key *k = &confkeys_table[i];
		if (k->sect != SECT_ROUTER || confkeys_clash(k, rs->at) != NULL)
			continue;
		const struct conf_key *dk = confkeys_clash(k, d->at);
		if (dk == k && ld->pattern[i] != NULL)
			continue; /* below, once the router's other keys are known */
		else if (dk == k)
			confval_field_copy(k, &rs->r, &d->r);
		else if (dk == NULL && k->def != NULL)
			confrules_default(k, &rs->r, "/");
	}
	for (size_t i = 0; i < CONF_NKEYS; i++)
		if (ld->pattern[i] != NULL && confkeys_clash(&confkeys_table[i], rs->at) == NULL &&
			confrules_router_uses(&rs->r, confkeys_table[i].name))
			confrules_router_pattern(ld, rs, &confkeys_table[i]);
	if (rs->r.interval_ms == 0)
		rs->r.interval_ms = ld->c->interval_ms;
	if (rs->r.timeout_ms == 0)
		rs->r.timeout_ms = ld->c->timeout_ms;
}

/* Whether the router or [defaults] sets key (or its _file twin), even to a value refused. */
static bool confrules_router_has(const struct conf_loader *ld, const struct conf_rsec *rs, const char *key)
{
	const struct conf_key *k = confkeys_find(SECT_ROUTER, key);
	return confkeys_clash(k, rs->at) != NULL || confkeys_clash(k, ld->defaults.at) != NULL;
}

static void confrules_router_v3(struct conf_loader *ld, struct conf_rsec *rs)
{
	conf_router_t *r = &rs->r;
	if (r->snmp_user == NULL)
		conf_err(ld, rs->where, "router %s: snmp_version = 3 needs snmp_user", r->name);
	bool has_auth = confrules_router_has(ld, rs, "snmp_auth_password");
	bool has_priv = confrules_router_has(ld, rs, "snmp_priv_password");
	if (r->snmp_security_level == NULL)
		r->snmp_security_level = xstrdup(!has_auth ? "noAuthNoPriv"
				: !has_priv                ? "authNoPriv"
							   : "authPriv");
	bool auth = strcmp(r->snmp_security_level, "noAuthNoPriv") != 0;
	bool priv = strcmp(r->snmp_security_level, "authPriv") == 0;
	if (auth && !has_auth)
		conf_err(ld, rs->where,
			"router %s: snmp_security_level = %s needs snmp_auth_password "
			"or snmp_auth_password_file",
			r->name, r->snmp_security_level);
	if (priv && !has_priv)
		conf_err(ld, rs->where,
			"router %s: snmp_security_level = %s needs snmp_priv_password "
			"or snmp_priv_password_file",
			r->name, r->snmp_security_level);
}

static void confrules_router_check(struct conf_loader *ld, struct conf_rsec *rs)
{
	conf_router_t *r = &rs->r;
	if (!confrules_router_has(ld, rs, "rest") && !confrules_router_has(ld, rs, "snmp"))
		conf_err(ld, rs->where, "router %s has neither rest nor snmp: set at least one", r->name);
	if (r->snmp != NULL && r->snmp_version == 3)
		confrules_router_v3(ld, rs);
	if (r->diag_password != NULL && r->diag_user == NULL)
		conf_err(ld, rs->where, "router %s: diag_password needs diag_user", r->name);
	if (r->probe != NULL && r->probe_rate_bps == 0)
		conf_err(ld, rs->where, "router %s: probe needs probe_rate (bits/s, e.g. 300M)", r->name);
	if (r->probe != NULL && r->rest == NULL)
		conf_err(ld, rs->where, "router %s: probe needs rest (probes run over REST)", r->name);
}

/* [web]: user and password_file, cert and key, each pair both or neither. */
static void confrules_web_pair(struct conf_loader *ld, const char *a, const char *b)
{
	struct conf_src sa = ld->at[confkeys_find(SECT_WEB, a) - confkeys_table];
	struct conf_src sb = ld->at[confkeys_find(SECT_WEB, b) - confkeys_table];
	if ((sa.line != 0) != (sb.line != 0))
		conf_err(ld, sa.line != 0 ? sa : sb, "[web] %s needs %s: set both or neither",
			sa.line != 0 ? a : b, sa.line != 0 ? b : a);
}

static void confrules_web_check(struct conf_loader *ld)
{
	confrules_web_pair(ld, "user", "password_file");
	confrules_web_pair(ld, "cert", "key");
}

/* [rollout] shards: one URL per shard of [daemon] shard = K/N, so URL K is this daemon. */
static void confrules_rollout_check(struct conf_loader *ld)
{
	struct conf_src at = ld->at[confkeys_find(SECT_ROLLOUT, "shards") - confkeys_table];
	const conf_t *c = ld->c;
	if (c->nrollout_shards > 0 && c->nrollout_shards != (size_t)(c->shard.count > 0 ? c->shard.count : 1))
		conf_err(ld, at,
			"[rollout] shards lists %zu URLs, but [daemon] shard has %d shards: "
			"list every shard's, in shard order",
			c->nrollout_shards, c->shard.count > 0 ? c->shard.count : 1);
}

/* Where a [daemon] key was set, for the checks made outside the loader (wgwatchd --check). */
static char *confrules_where(const struct conf_loader *ld, const char *key, bool *unset)
{
	struct conf_src at = ld->at[confkeys_find(SECT_DAEMON, key) - confkeys_table];
	if (unset != NULL)
		*unset = at.line == 0;
	return at.line != 0 ? xasprintf("%s:%d", ld->files[at.file], at.line) : xstrdup(ld->c->path);
}

void confrules_finish(struct conf_loader *ld)
{
	conf_t *c = ld->c;
	confrules_web_check(ld);
	char *dir = confval_dirname(c->path);
	confrules_global_defaults(ld, dir ? dir : ".");
	free(dir);
	confrules_rollout_check(ld);
	c->listen_at = confrules_where(ld, "listen", NULL);
	c->database_at = confrules_where(ld, "database", &c->database_default);
	if (c->every_ms ==
		0) /* not set: a tenth of the after window, so short windows are not kept waiting */
		c->every_ms = c->after_ms / 10 < 1000 ? 1000
			: c->after_ms / 10 > 60000    ? 60000
						      : c->after_ms / 10;
	c->routers = xcalloc(ld->nrs, sizeof(*c->routers));
	for (size_t i = 0; i < ld->nrs; i++) {
		struct conf_rsec *rs = ld->rs[i];
		if (rs->dup) {
			confval_router_fields_free(&rs->r);
		} else {
			confrules_router_defaults(ld, rs);
			confrules_router_check(ld, rs);
			c->routers[c->nrouters++] = rs->r;
		}
		free(rs);
	}
	free(ld->rs);
	ld->rs = NULL;
	ld->nrs = 0;
}
