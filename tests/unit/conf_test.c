/* SPDX-License-Identifier: Apache-2.0 */
/* conf_test: the config loader against fixture and generated files: a full round trip,
 * [defaults] inheritance, every error form with its FILE:LINE, includes, long lines,
 * durations, and a 10,000-router fleet. Links the library; conf_int.h gives it the key table
 * and the duration parser. */
#include "config.h"
#include "daemon/conf.h"
#include "daemon/conf_int.h"
#include "lib/buf.h"
#include "lib/duration.h"
#include "lib/xmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"
#include "unitconf.h"
#include "unitfs.h"

#ifndef TOP_SRCDIR
#define TOP_SRCDIR "."
#endif

static void test_durations(void)
{
	static const struct {
		const char *s;
		int64_t ms;
	} good[] = {
		{ "250ms", 250 },
		{ "30s", 30000 },
		{ "5m", 300000 },
		{ "2h", 7200000 },
		{ "7d", 604800000 },
		{ "1w", 604800000 },
		{ "1h30m", 5400000 },
		{ "0s", 0 },
		{ "1d2h3m4s5ms", 93784005 },
		{ "90s", 90000 },
	};
	static const char *const bad[] = {
		"",
		"30",
		"1h30",
		"5x",
		"-5s",
		"1.5h",
		"s",
		" 5s",
		"5 s",
		"5S",
		"1mss",
		"99999999999999999999s",
		"9999999999999999w",
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int64_t ms = -1;
		CHECK_INT(conf_parse_duration(good[i].s, &ms), 0);
		CHECK_INT(ms, good[i].ms);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int64_t ms = 12345;
		CHECK_INT(conf_parse_duration(bad[i], &ms), -1);
		CHECK_INT(ms, 12345);
	}
	CHECK_INT(conf_parse_duration(NULL, &(int64_t){ 0 }), -1);
	const char *cause = NULL;
	int64_t ms;
	CHECK_INT(duration_parse("30", 0, &ms, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "needs a unit") != NULL);
	buf_t b;
	buf_init(&b);
	duration_fmt(&b, 5400250);
	CHECK_STR(b.data, "1h30m250ms");
	buf_free(&b);
}

static void check_fixture_globals(const conf_t *c, const char *path, const char *dir)
{
	char *db = xasprintf("%s/data/wg.db", dir);
	CHECK_STR(c->path, path);
	CHECK_STR(c->listen, "127.0.0.1:19477");
	CHECK_STR(c->database, db);
	CHECK_INT(c->interval_ms, 15000);
	CHECK_INT(c->timeout_ms, 5000);
	CHECK_INT(c->max_in_flight, 64);
	CHECK_INT(c->retention_ms, 10 * 86400000LL);
	CHECK_INT(c->rollup_retention_ms, 7 * 86400000LL);
	CHECK_INT(c->max_body_bytes, 512 * 1024);
	CHECK_INT(c->before_ms, 3 * 86400000LL);
	CHECK_INT(c->after_ms, 36 * 3600000LL);
	CHECK_INT(c->min_samples, 10);
	CHECK_NEAR(c->threshold, 0.25, 1e-12);
	CHECK_NEAR(c->saturated, 0.8, 1e-12);
	CHECK_STR(c->web_user, NULL);
	CHECK_STR(c->web_password, NULL);
	free(db);
}

static void check_fixture_routers(const conf_t *c, const char *path)
{
	CHECK_INT(c->nrouters, 4);
	if (c->nrouters == 4) {
		/* the include of good.d sits in [defaults], before [router core-1] */
		CHECK_STR(c->routers[0].name, "site-a-1");
		CHECK_STR(c->routers[1].name, "site-a-2");
		CHECK_STR(c->routers[2].name, "site-b-1");
		CHECK_STR(c->routers[3].name, "core-1");
	}
	const conf_router_t *r = conf_router_find(c, "core-1");
	CHECK(r != NULL && r->line == 28);
	if (r != NULL) {
		CHECK_STR(r->file, path);
		CHECK_STR(r->rest, "https://192.0.2.1");
		CHECK_STR(r->user, "monitor");
		CHECK_STR(r->password, "inline-secret");
		CHECK(!r->tls_verify);
		CHECK_INT(r->ninterfaces, 2);
		if (r->ninterfaces == 2) {
			CHECK_STR(r->interfaces[0], "ether1");
			CHECK_STR(r->interfaces[1], "sfp1");
		}
		CHECK_INT(r->interval_ms, 60000);
		CHECK_INT(r->timeout_ms, 5000);
		CHECK_INT(r->nlabels, 2);
		if (r->nlabels == 2) {
			CHECK_STR(r->labels[0].key, "region");
			CHECK_STR(r->labels[0].value, "eu");
			CHECK_STR(r->labels[1].key, "tier");
			CHECK_STR(r->labels[1].value, "core");
		}
		CHECK_STR(r->snmp, NULL);
		CHECK_INT(r->snmp_version, 2);
		CHECK_STR(r->snmp_community, "public");
	}
}

static void check_fixture_sites(const conf_t *c, const char *dir)
{
	const conf_router_t *r = conf_router_find(c, "site-a-1");
	CHECK(r != NULL);
	if (r != NULL) {
		char *f = xasprintf("%s/good.d/site-a.conf", dir);
		CHECK_STR(r->file, f);
		CHECK_INT(r->line, 2);
		free(f);
		CHECK_STR(r->rest, "http://127.0.0.1:8081");
		CHECK(r->tls_verify);
		CHECK_INT(r->interval_ms, 15000);
		CHECK_INT(r->nlabels, 1);
		if (r->nlabels == 1)
			CHECK_STR(r->labels[0].key, "site");
		CHECK_INT(r->ninterfaces, 0);
	}
	r = conf_router_find(c, "site-a-2");
	CHECK(r != NULL && r->rest == NULL && r->snmp_version == 2);
	if (r != NULL) {
		CHECK_STR(r->snmp, "192.0.2.20:1161");
		CHECK_STR(r->snmp_community, "s3cret");
	}
	r = conf_router_find(c, "site-b-1");
	CHECK(r != NULL && r->snmp_version == 3);
	if (r != NULL) {
		CHECK_STR(r->snmp_user, "mon");
		CHECK_STR(r->snmp_security_level, "authPriv");
		CHECK_STR(r->snmp_auth_protocol, "SHA");
		CHECK_STR(r->snmp_priv_protocol, "AES-256");
		CHECK_STR(r->snmp_auth_password, "authpw");
		CHECK_STR(r->snmp_priv_password, "privpw");
	}
	CHECK(conf_router_find(c, "nope") == NULL);
}

static void test_fixture(void)
{
	conf_t *c = NULL;
	char *errs = NULL;
	char *path = xasprintf("%s/tests/fixtures/conf/good.conf", TOP_SRCDIR);
	char *dir = realpath(TOP_SRCDIR "/tests/fixtures/conf", NULL);
	CHECK_INT(conf_load(path, &c, &errs), 0);
	CHECK_STR(errs, NULL);
	if (c == NULL) {
		fprintf(stderr, "%s", errs ? errs : "");
		free(errs);
		free(path);
		free(dir);
		return;
	}
	check_fixture_globals(c, path, dir);
	check_fixture_routers(c, path);
	check_fixture_sites(c, dir);
	conf_free(c);
	free(path);
	free(dir);
}

/* [defaults] reach routers before and after it; a router's own key wins; secrets from files. */
/* [detector] every: a tenth of after, from 1s to 1m, unless set. */
static void test_every(void)
{
	static const struct {
		const char *lines;
		int64_t want;
	} cases[] = {
		{ "", 60000 },                           /* after 7d */
		{ "after = 30s\n", 3000 },               /* a 30 s window is not kept a minute */
		{ "after = 5s\n", 1000 },                /* at least 1 s */
		{ "after = 20m\n", 60000 },              /* at most 1 m */
		{ "after = 30s\nevery = 2m\n", 120000 }, /* set: as set */
	};
	char *dir = unitfs_dir();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = xasprintf("[detector]\n%s[router r]\nrest = https://10.0.0.1\n", cases[i].lines);
		char *path = unitfs_put(dir, "every.conf", 0644, text);
		conf_t *c = NULL;
		char *errs = NULL;
		CHECK_INT(conf_load(path, &c, &errs), 0);
		CHECK_INT(c ? c->every_ms : -1, cases[i].want);
		conf_free(c);
		free(errs);
		free(path);
		free(text);
	}
	free(dir);
}

/* [detector] hold: 5m unless set; 0 (with or without a unit) turns it off; never negative. */
static void test_hold(void)
{
	static const struct {
		const char *lines;
		int64_t want; /* -1: the file is refused */
	} cases[] = {
		{ "", 300000 },
		{ "hold = 3s\n", 3000 },
		{ "hold = 0\n", 0 },
		{ "hold = 0s\n", 0 },
		{ "hold = 2d\n", -1 }, /* above 1d */
		{ "hold = -1s\n", -1 },
	};
	char *dir = unitfs_dir();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = xasprintf("[detector]\n%s[router r]\nrest = https://10.0.0.1\n", cases[i].lines);
		char *path = unitfs_put(dir, "hold.conf", 0644, text);
		conf_t *c = NULL;
		char *errs = NULL;
		CHECK_INT(conf_load(path, &c, &errs), cases[i].want < 0 ? -1 : 0);
		CHECK_INT(c ? c->hold_ms : -1, cases[i].want);
		CHECK(cases[i].want >= 0 || (errs != NULL && strstr(errs, "hold") != NULL));
		conf_free(c);
		free(errs);
		free(path);
		free(text);
	}
	free(dir);
}

/* [rollout] shards: one base URL per shard of [daemon] shard, no credentials. */
static void test_rollout_shards(const char *dir)
{
	conf_t *c;
	char *e;
	CHECK_INT(unitconf_load(dir, "s1.conf",
			  "[daemon]\nshard = 2/2\n[rollout]\nshards = http://wg-1:9477, https://wg-2:9477/\n"
			  "[router r]\nrest = https://10.0.0.1\n",
			  &c, &e),
		0);
	CHECK_INT(c ? c->nrollout_shards : 0, 2);
	CHECK_STR(c && c->nrollout_shards == 2 ? c->rollout_shards[1] : NULL, "https://wg-2:9477/");
	conf_free(c);
	CHECK_INT(unitconf_load(dir, "s2.conf",
			  "[daemon]\nshard = 1/3\n[rollout]\nshards = http://wg-1:9477, http://wg-2:9477\n"
			  "[router r]\nrest = https://10.0.0.1\n",
			  &c, &e),
		-1);
	char *p = xasprintf("%s/s2.conf", dir);
	CHECK_LINE(e,
		"%s:4: [rollout] shards lists 2 URLs, but [daemon] shard has 3 shards: list every shard's, "
		"in shard order",
		p);
	free(p);
	free(e);
	CHECK_INT(unitconf_load(dir, "s3.conf",
			  "[daemon]\nshard = 1/2\n[rollout]\nshards = http://admin:pw@wg-1:9477, wg-2:9477\n"
			  "[router r]\nrest = https://10.0.0.1\n",
			  &c, &e),
		-1);
	CHECK(e != NULL &&
		strstr(e, "s3.conf:4: shards: each item must be a shard's base URL without credentials") !=
			NULL);
	CHECK(e != NULL && strstr(e, "admin:pw") == NULL); /* credentials are not echoed */
	free(e);
}

/* [rollout]: defaults, a repeated allow adding up, and FILE:LINE for each bad value. */
static void test_rollout(void)
{
	char *dir = unitfs_dir();
	conf_t *c;
	char *e;
	CHECK_INT(unitconf_load(dir, "r0.conf", "[router r]\nrest = https://10.0.0.1\n", &c, &e), 0);
	CHECK_STR(c ? c->rollout_canary : NULL, "role=canary");
	CHECK_INT(c ? c->rollout_hold_regressed : 0, 1);
	CHECK_NEAR(c ? c->rollout_hold_ratio : 0, 0.8, 1e-12);
	CHECK_INT(c ? c->rollout_go_min : 0, 2);
	CHECK_INT(c ? c->nrollout_allow : 9, 0);
	conf_free(c);
	CHECK_INT(
		unitconf_load(dir, "r1.conf",
			"[rollout]\ncanary = ring=0\ngo_min = 3\nallow = 7.22.3/tile\n"
			"allow = 7.22.3/CCR1009-7G-1C-1S+, 7.23beta2/arm64\n[router r]\nrest = https://10.0.0.1\n",
			&c, &e),
		0);
	CHECK_STR(c ? c->rollout_canary : NULL, "ring=0");
	CHECK_INT(c ? c->rollout_go_min : 0, 3);
	CHECK_INT(c ? c->nrollout_allow : 0, 3);
	CHECK_STR(c && c->nrollout_allow == 3 ? c->rollout_allow[2] : NULL, "7.23beta2/arm64");
	/* where each item was set: the second line gave two */
	char *r1 = xasprintf("%s/r1.conf", dir), *at = xasprintf("%s:4", r1), *at2 = xasprintf("%s:5", r1);
	CHECK_STR(c && c->rollout_allow_at ? c->rollout_allow_at[0] : NULL, at);
	CHECK_STR(c && c->rollout_allow_at ? c->rollout_allow_at[2] : NULL, at2);
	free(r1), free(at), free(at2);
	conf_free(c);
	/* the API's check of an override, as allow = would take it */
	CHECK(conf_allow_ok("7.22.3", "tile") && conf_allow_ok("7.23beta2", "CCR1009-7G-1C-1S+"));
	CHECK(!conf_allow_ok("7.22.3", "ti le") && !conf_allow_ok("7.22.3", "ti\nle") &&
		!conf_allow_ok("7.22.3", "a/b") && !conf_allow_ok("7.22.3", "a,b") &&
		!conf_allow_ok("latest", "tile") && !conf_allow_ok("7.22.3", "") &&
		!conf_allow_ok(NULL, "tile"));
	CHECK_INT(unitconf_load(dir, "r2.conf",
			  "[rollout]\ncanary = canary\nhold_ratio = 1.5\ngo_min = 0\nallow = tile\n"
			  "allow = 7.22.3/\nallow = latest/tile\nhold_regressed = x\n",
			  &c, &e),
		-1);
	char *p = xasprintf("%s/r2.conf", dir);
	CHECK_LINE(e,
		"%s:2: canary = canary: must be one label name=value, as in a router's labels = (e.g. "
		"role=canary)",
		p);
	CHECK_LINE(e, "%s:3: hold_ratio = 1.5: is out of range (allowed 0 to 1)", p);
	CHECK_LINE(e, "%s:4: go_min = 0: is out of range (allowed 1 to 1000000)", p);
	static const char *const bad[] = { "tile", "7.22.3/", "latest/tile" };
	for (int i = 0; i < 3; i++)
		CHECK_LINE(e,
			"%s:%d: allow = %s: each item must be VERSION/ARCHITECTURE or VERSION/BOARD, e.g. "
			"7.22.3/tile",
			p, 5 + i, bad[i]);
	CHECK(e != NULL && strstr(e, ":8: hold_regressed = x") != NULL);
	free(p);
	free(e);
	test_rollout_shards(dir);
	free(dir);
}

static void test_defaults(void)
{
	char *dir = unitfs_dir();
	char *sdir = xasprintf("%s/secrets", dir);
	free(unitfs_put(sdir, "mon.pass", 0600, "s3cret-from-file\n\n"));
	free(unitfs_put(sdir, "ca.pem", 0644,
		"# a bundle\n-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"));
	char *path = unitfs_put(dir, "main.conf", 0644,
		"[daemon]\n"
		"interval = 20s\n"
		"[router early]\n"
		"rest = https://10.0.0.1\n"
		"[defaults]\n"
		"user = mon\n"
		"password_file = secrets/mon.pass\n"
		"labels = site=x\n"
		"timeout = 3s\n"
		"ca_file = secrets/ca.pem\n"
		"[router late]\n"
		"rest = https://10.0.0.2\n"
		"user = other\n"
		"password = own\n"
		"labels =\n"
		"interval = 1h30m\n");
	conf_t *c = NULL;
	char *errs = NULL;
	CHECK_INT(conf_load(path, &c, &errs), 0);
	CHECK_STR(errs, NULL);
	const conf_router_t *e = c ? conf_router_find(c, "early") : NULL;
	const conf_router_t *l = c ? conf_router_find(c, "late") : NULL;
	CHECK(e != NULL && l != NULL);
	if (e != NULL && l != NULL) {
		char *ca = xasprintf("%s/secrets/ca.pem", dir);
		CHECK_STR(e->user, "mon");
		CHECK_STR(e->password, "s3cret-from-file");
		CHECK_INT(e->nlabels, 1);
		CHECK_INT(e->interval_ms, 20000);
		CHECK_INT(e->timeout_ms, 3000);
		CHECK_STR(e->ca_file, ca);
		CHECK_STR(l->user, "other");
		CHECK_STR(l->password, "own");
		CHECK_INT(l->nlabels, 0);
		CHECK_INT(l->interval_ms, 5400000);
		CHECK_INT(l->timeout_ms, 3000);
		CHECK_STR(l->ca_file, ca);
		free(ca);
		/* Not next to the file: the unit's sandbox keeps that read-only. */
		char *db = xstrdup(WG_LOCALSTATEDIR "/lib/wgwatch/wgwatch.db");
		CHECK_STR(c->database, db);
		CHECK_INT(c->timeout_ms, 10000);
		CHECK_INT(c->max_in_flight, 256);
		CHECK_INT(c->max_body_bytes, 4 * 1024 * 1024);
		CHECK_INT(c->retention_ms, 35 * 86400000LL);
		CHECK_NEAR(c->threshold, 0.20, 1e-12);
		CHECK_STR(c->listen, "127.0.0.1:9477");
		free(db);
	}
	conf_free(c);
	free(errs);
	free(path);
	free(sdir);
	free(dir);
}

static const char bad_conf[] = "wild = 1\n"                               /* 1 */
			       "[daemon]\n"                               /* 2 */
			       "interval = 30\n"                          /* 3 */
			       "timeout = 5x\n"                           /* 4 */
			       "max_in_flight = 0\n"                      /* 5 */
			       "bogus = 2\n"                              /* 6 */
			       "interval = 10s\n"                         /* 7 */
			       "max_body = 4T\n"                          /* 8 */
			       "[detector]\n"                             /* 9 */
			       "threshold = 1.5\n"                        /* 10 */
			       "[nonsense]\n"                             /* 11 */
			       "foo = bar\n"                              /* 12 */
			       "[router r1]\n"                            /* 13 */
			       "rest = ftp://x\n"                         /* 14 */
			       "tls_verify = maybe\n"                     /* 15 */
			       "pasword = hunter2\n"                      /* 16 */
			       "labels = site=a, 9bad=1, core=2\n"        /* 17 */
			       "[router r1]\n"                            /* 18 */
			       "rest = https://admin:hunter2@192.0.2.1\n" /* 19 */
			       "[router r2]\n"                            /* 20 */
			       "user = x\n"                               /* 21 */
			       "[router r3]\n"                            /* 22 */
			       "rest = https://192.0.2.3\n"               /* 23 */
			       "password = hunter2\n"                     /* 24 */
			       "password_file = missing.pass\n"           /* 25 */
			       "snmp_version = 2\n"                       /* 26 */
			       "labels = router=x\n"                      /* 27 */
			       "[router r4]\n"                            /* 28 */
			       "rest = https://192.0.2.4\n"               /* 29 */
			       "password_file = open.pass\n"              /* 30 */
			       "snmp = 192.0.2.4:99999\n"                 /* 31 */
			       "this line has no equals sign\n"           /* 32 */
			       "[router r5]\n"                            /* 33 */
			       "snmp = 192.0.2.5\n"                       /* 34 */
			       "snmp_version = 3\n"                       /* 35 */
			       "snmp_security_level = authpriv\n"         /* 36 */
			       "include = nothere.conf\n"                 /* 37 */
			       "include = nothing-*.conf\n"               /* 38 */
			       "[router]\n"                               /* 39 */
			       "[web\n"                                   /* 40 */
			       "[router r6]\n"                            /* 41 */
			       "snmp = [2001:db8::6]:161\n"               /* 42 */
			       "snmp_version = 3\n"                       /* 43 */
			       "snmp_user = mon\n"                        /* 44 */
			       "snmp_auth_password_file = nope.pass\n"    /* 45 */
			       "[router bad/name]\n";                     /* 46 */

static void check_errors_top(const char *e, const char *p)
{
	CHECK_LINE(e,
		"%s:1: wild is outside any section: put it under [daemon], [defaults], "
		"[router NAME]...",
		p);
	CHECK_LINE(e, "%s:3: interval = 30: needs a unit: ms, s, m, h, d or w (e.g. 30s, 1h30m)", p);
	CHECK_LINE(e,
		"%s:4: timeout = 5x: is not a duration: use a number with a unit, e.g. 250ms, "
		"30s, 5m, 2h, 7d, 1w or 1h30m",
		p);
	CHECK_LINE(e, "%s:5: max_in_flight = 0: is out of range (allowed 1 to 100000)", p);
	CHECK_LINE(e, "%s:6: unknown key bogus in [daemon]", p);
	CHECK_LINE(e, "%s:7: interval is set twice (first at %s:3)", p, p);
	CHECK_LINE(e,
		"%s:8: max_body = 4T: is not a size: bytes with an optional k, M or G suffix "
		"(e.g. 512k, 4M)",
		p);
	CHECK_LINE(e, "%s:10: threshold = 1.5: is out of range (allowed 0 to 1)", p);
	CHECK_LINE(e,
		"%s:11: unknown section [nonsense] (known: daemon, detector, web, alert, rollout, defaults, "
		"router NAME)",
		p);
	CHECK(strstr(e, ":12:") == NULL); /* keys of an unknown section: reported once */
	CHECK_LINE(e, "%s:14: rest = ftp://x: must start with http:// or https://", p);
	CHECK_LINE(e, "%s:15: tls_verify = maybe: must be yes, no, true or false", p);
	CHECK_LINE(e, "%s:16: unknown key pasword in [router]", p);
	CHECK_LINE(e,
		"%s:17: labels = site=a, 9bad=1, core=2: label name '9bad' is not valid: use "
		"[a-zA-Z_][a-zA-Z0-9_]*, not starting with __",
		p);
	CHECK_LINE(e, "%s:18: duplicate router r1 (first defined at %s:13)", p, p);
	CHECK_LINE(e, "%s:19: rest: must not hold credentials: use user and password_file", p);
}

static void check_errors_routers(const char *e, const char *p, const char *dir)
{
	CHECK_LINE(e, "%s:20: router r2 has neither rest nor snmp: set at least one", p);
	CHECK_LINE(e, "%s:25: password_file and password are both set (password at %s:24): keep one", p, p);
	CHECK_LINE(e, "%s:26: snmp_version = 2: must be 1, 2c or 3", p);
	CHECK_LINE(e,
		"%s:27: labels = router=x: label name 'router' is wgwatch's own (router, core, interface, "
		"type, peer, board, architecture, version, firmware, kind, le, direction, from_version, "
		"to_version, upgraded, sensor, endpoint, allowed_address, menu, cpu, name, job, instance): choose another",
		p);
	CHECK_LINE(e,
		"%s:30: password_file = open.pass: %s/open.pass has mode 0644, readable by group "
		"or others: chmod 600 %s/open.pass",
		p, dir, dir);
	CHECK_LINE(e,
		"%s:31: snmp = 192.0.2.4:99999: must be host or host:port with a port from 1 "
		"to 65535",
		p);
	CHECK_LINE(e, "%s:32: expected key = value", p);
	CHECK_LINE(e, "%s:33: router r5: snmp_version = 3 needs snmp_user", p);
	CHECK_LINE(e,
		"%s:33: router r5: snmp_security_level = authPriv needs snmp_auth_password or "
		"snmp_auth_password_file",
		p);
	CHECK_LINE(e,
		"%s:33: router r5: snmp_security_level = authPriv needs snmp_priv_password or "
		"snmp_priv_password_file",
		p);
	CHECK_LINE(e,
		"%s:37: include = nothere.conf: cannot read %s/nothere.conf: No such file or "
		"directory",
		p, dir);
	CHECK_LINE(e, "%s:39: [router] needs a name: [router NAME]", p);
	CHECK_LINE(e, "%s:40: bad section line: want [name]", p);
	CHECK_LINE(e,
		"%s:45: snmp_auth_password_file = nope.pass: cannot read %s/nope.pass: No such "
		"file or directory",
		p, dir);
	CHECK_LINE(e,
		"%s:46: [router bad/name]: a router name holds only letters, digits, '_', '.' "
		"and '-'",
		p);
}

static void test_errors(void)
{
	char *dir = unitfs_dir();
	free(unitfs_put(dir, "open.pass", 0644, "hunter2\n"));
	char *p = unitfs_put(dir, "bad.conf", 0644, bad_conf);
	conf_t *c = (conf_t *)1;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK(c == NULL);
	CHECK(e != NULL);
	if (e == NULL)
		return;
	check_errors_top(e, p);
	check_errors_routers(e, p, dir);
	CHECK(strstr(e, ":38:") == NULL); /* a glob may match nothing */
	CHECK(strstr(e, "hunter2") == NULL);
	CHECK_INT(unit_count_lines(e), 30);
	free(e);
	free(p);
	free(dir);
}

/* [web]: user with password_file and cert with key, both or neither, errors at FILE:LINE. */
static void test_web(void)
{
	static const struct {
		const char *text, *err;
	} bad[] = {
		{ "[web]\nuser = admin\n", "2: [web] user needs password_file: set both or neither" },
		{ "[web]\n\npassword_file = w.pass\n",
			"3: [web] password_file needs user: set both or "
			"neither" },
		{ "[web]\ncert = c.pem\n", "2: [web] cert needs key: set both or neither" },
		{ "[web]\nkey = c.pem\n", "2: [web] key needs cert: set both or neither" },
	};
	char *dir = unitfs_dir();
	free(unitfs_put(dir, "w.pass", 0600, "w3b-secret\n"));
	free(unitfs_put(dir, "c.pem", 0644, "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n"));
	const char *good = "[web]\nuser = admin\npassword_file = w.pass\ncert = c.pem\nkey = c.pem\n";
	for (size_t i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *text = i == 0 ? good : bad[i - 1].text;
		char *all = xasprintf("%s[router a]\nsnmp = 127.0.0.1\n", text);
		char *p = unitfs_put(dir, "web.conf", 0644, all);
		conf_t *c = NULL;
		char *e = NULL;
		CHECK_INT(conf_load(p, &c, &e), i == 0 ? 0 : -1);
		if (i == 0)
			CHECK_STR(c ? c->web_password : NULL, "w3b-secret");
		else
			CHECK_LINE(e, "%s:%s", p, bad[i - 1].err);
		CHECK(e == NULL || strstr(e, "w3b-secret") == NULL);
		conf_free(c);
		free(e);
		free(p);
		free(all);
	}
	free(dir);
}

/* What --check used to pass: a CA file that is no PEM certificate (a key, junk, empty), each
 * refused at its line with the reason. */
static void test_ca_file(void)
{
	char *dir = unitfs_dir();
	free(unitfs_put(dir, "junk.pem", 0644, "not a certificate\n"));
	free(unitfs_put(
		dir, "key.pem", 0644, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n"));
	free(unitfs_put(dir, "empty.pem", 0644, ""));
	char *p = unitfs_put(dir, "t.conf", 0644,
		"[daemon]\ninterval = 30s\ntimeout = 1m\n"      /* 1-3 */
		"[router a]\nsnmp = 127.0.0.1\n"                /* 4-5: 1m > 30s */
		"[router b]\nsnmp = 127.0.0.1\ntimeout = 30s\n" /* 6-8: equal: fine */
		"[router c]\nrest = https://127.0.0.1\ntimeout = 5s\nca_file = junk.pem\n" /* 9-12 */
		"[router d]\nrest = https://127.0.0.1\ntimeout = 5s\nca_file = key.pem\n"  /* 13-16 */
		"[router e]\nrest = https://127.0.0.1\ntimeout = 5s\ninterval = 2s\nca_file = empty.pem\n");
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK(e == NULL || strstr(e, "router a") == NULL);
	CHECK_LINE(e,
		"%s:12: ca_file = junk.pem: %s/junk.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
		p, dir);
	CHECK_LINE(e,
		"%s:16: ca_file = key.pem: %s/key.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
		p, dir);
	CHECK_LINE(e,
		"%s:21: ca_file = empty.pem: %s/empty.pem holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
		p, dir);
	free(e);
	free(p);
	free(dir);
}

/* password_file = .../%{router}: one pattern for a fleet's secrets (issue 41: 300 routers under
 * DynamicUser need no 300 credential lines), read per router; a router without its file is
 * named at the [defaults] line, never with a secret. */
static void test_router_pattern(void)
{
	char *dir = unitfs_dir(), *sdir = xasprintf("%s/creds", dir);
	free(unitfs_put(sdir, "router_a", 0600, "pw-of-a\n"));
	free(unitfs_put(sdir, "router_b", 0600, "pw-of-b\n"));
	free(unitfs_put(sdir, "e.snmp", 0600, "comm-of-e\n"));
	char *p = unitfs_put(dir, "p.conf", 0644,
		"[defaults]\n"                                                                 /* 1 */
		"user = mon\n"                                                                 /* 2 */
		"password_file = creds/router_%{router}\n"                                     /* 3 */
		"[router a]\nrest = https://192.0.2.1\n"                                       /* 4-5 */
		"[router b]\nrest = https://192.0.2.2\n"                                       /* 6-7 */
		"[router own]\nrest = https://192.0.2.3\npassword = mine\n"                    /* 8-10 */
		"[router e]\nsnmp = 192.0.2.5\nsnmp_community_file = creds/%{router}.snmp\n"); /* 11-13 */
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), 0);
	CHECK_STR(e, NULL);
	CHECK_STR(c && conf_router_find(c, "a") ? conf_router_find(c, "a")->password : NULL, "pw-of-a");
	CHECK_STR(c && conf_router_find(c, "b") ? conf_router_find(c, "b")->password : NULL, "pw-of-b");
	CHECK_STR(c && conf_router_find(c, "own") ? conf_router_find(c, "own")->password : NULL, "mine");
	CHECK_STR(
		c && conf_router_find(c, "e") ? conf_router_find(c, "e")->snmp_community : NULL, "comm-of-e");
	conf_free(c);
	free(e);
	char *q = unitfs_put(dir, "q.conf", 0644,
		"[defaults]\npassword_file = creds/router_%{router}\nuser = mon\n"
		"[router a]\nrest = https://192.0.2.1\n[router lost]\nrest = https://192.0.2.9\n");
	c = NULL;
	e = NULL;
	CHECK_INT(conf_load(q, &c, &e), -1);
	CHECK_LINE(e,
		"%s:2: router lost: password_file = creds/router_lost: cannot read %s/router_lost: No such file or directory",
		q, sdir);
	CHECK(e == NULL || (strstr(e, "pw-of-a") == NULL && strstr(e, "router a:") == NULL));
	free(e);
	char *w = unitfs_put(dir, "w.conf", 0644,
		"[web]\nuser = admin\npassword_file = creds/%{router}\n"); /* no router */
	e = NULL;
	CHECK_INT(conf_load(w, &c, &e), -1);
	CHECK(e != NULL && strstr(e, "w.conf:3: password_file = creds/%{router}: cannot read") != NULL);
	free(e);
	free(w);
	free(q);
	free(p);
	free(sdir);
	free(dir);
}

static void test_shard(void)
{
	static const struct {
		const char *v;
		int k, n;
	} ok[] = {
		{ "1/1", 1, 1 },
		{ "2/3", 2, 3 },
		{ "10000/10000", 10000, 10000 },
	};
	static const char *const bad[] = { "0/3", "4/3", "3", "1/", "/2", "1/0", "a/b", "1/2x", "-1/2",
		"1/10001", "1/ 2" };
	char *dir = unitfs_dir();
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *text = xasprintf("[daemon]\nshard = %s\n[router a]\nsnmp = 127.0.0.1\n", ok[i].v);
		char *p = unitfs_put(dir, "shard.conf", 0644, text);
		conf_t *c = NULL;
		char *e = NULL;
		CHECK_INT(conf_load(p, &c, &e), 0);
		CHECK_INT(c ? c->shard.index : -1, ok[i].k);
		CHECK_INT(c ? c->shard.count : -1, ok[i].n);
		CHECK_INT(c ? c->routers[0].snmp_retries : -1, 1);
		conf_free(c);
		free(e);
		free(p);
		free(text);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *text = xasprintf("[daemon]\nshard = %s\n[router a]\nsnmp = 127.0.0.1\n", bad[i]);
		char *p = unitfs_put(dir, "shard.conf", 0644, text);
		conf_t *c = NULL;
		char *e = NULL;
		CHECK_INT(conf_load(p, &c, &e), -1);
		char *want = xasprintf("%s:2: shard = %s: must be K/N", p, bad[i]);
		CHECK(e != NULL && strstr(e, want) != NULL);
		if (e == NULL || strstr(e, want) == NULL)
			fprintf(stderr, "  shard = %s gave: %s\n", bad[i], e ? e : "(none)");
		free(want);
		free(e);
		free(p);
		free(text);
	}
	free(dir);
}

static void test_fleet(void)
{
	char *dir = unitfs_dir();
	char *sites = xasprintf("%s/sites", dir);
	buf_t b;
	buf_init(&b);
	for (int s = 0; s < 100; s++) {
		buf_reset(&b);
		for (int r = 0; r < 100; r++)
			buf_printf(&b,
				"[router s%03d-r%03d]\nrest = https://10.%d.%d.1\nlabels = site=s%03d\n\n", s,
				r, s, r, s);
		char *name = xasprintf("site-%03d.conf", s);
		free(unitfs_put(sites, name, 0644, b.data));
		free(name);
	}
	buf_free(&b);
	free(unitfs_put(dir, "fleet.pass", 0600, "fleet\n"));
	char *p = unitfs_put(dir, "main.conf", 0644,
		"[defaults]\nuser = mon\npassword_file = fleet.pass\n"
		"include = sites/*.conf\n");
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("conf_test: 10000 routers in 100 files loaded in %.1f ms\n",
		(double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	CHECK_STR(e, NULL);
	CHECK(c != NULL && c->nrouters == 10000);
	const conf_router_t *r = c ? conf_router_find(c, "s099-r099") : NULL;
	CHECK(r != NULL);
	if (r != NULL) {
		CHECK_STR(r->rest, "https://10.99.99.1");
		CHECK_STR(r->password, "fleet");
		CHECK_STR(r->labels[0].value, "s099");
	}
	conf_free(c);
	free(p);
	free(sites);
	free(dir);
}

/* The table, the help and the man page list the same keys. */
static void test_help_and_docs(void)
{
	char *help = conf_help();
	CHECK(strstr(help, "[daemon] interval = 30s  (duration, 100ms to 1d) how often") != NULL);
	FILE *fp = fopen(TOP_SRCDIR "/docs/wgwatch.conf.5", "r");
	CHECK(fp != NULL);
	buf_t man;
	buf_init(&man);
	char chunk[4096];
	size_t n;
	while (fp != NULL && (n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_append(&man, chunk, n);
	if (fp != NULL)
		fclose(fp);
	for (size_t i = 0; i < CONF_NKEYS; i++) {
		char *line = xasprintf(
			"[%s] %s ", confkeys_sect_name(confkeys_table[i].sect), confkeys_table[i].name);
		CHECK(strstr(help, line) != NULL);
		free(line);
		char *item = xasprintf(".B %s\n", confkeys_table[i].name);
		if (man.data != NULL && strstr(man.data, item) == NULL) {
			CHECK(!"key missing from docs/wgwatch.conf.5");
			fprintf(stderr, "  docs/wgwatch.conf.5 lacks %s", item);
		}
		free(item);
	}
	buf_free(&man);
	free(help);
}

/* The shipped example loads once the secret file it names exists. */
static void test_example(void)
{
	char *dir = unitfs_dir();
	FILE *fp = fopen(TOP_SRCDIR "/docs/wgwatch.conf.example", "r");
	CHECK(fp != NULL);
	if (fp == NULL) {
		free(dir);
		return;
	}
	buf_t b;
	buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		buf_append(&b, chunk, n);
	fclose(fp);
	char *sec = xasprintf("%s/secrets", dir);
	free(unitfs_put(sec, "routeros.pass", 0600, "ro-pass\n"));
	free(unitfs_put(sec, "snmp-auth.pass", 0600, "auth-pass\n"));
	free(unitfs_put(sec, "snmp-priv.pass", 0600, "priv-pass\n"));
	char *p = unitfs_put(dir, "wgwatch.conf", 0644, b.data);
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), 0);
	if (e != NULL)
		fprintf(stderr, "%s", e);
	CHECK(c != NULL && c->nrouters >= 2);
	conf_free(c);
	free(e);
	free(p);
	free(sec);
	buf_free(&b);
	free(dir);
}

/* The diagnostic keys: inherited from [defaults], decimal rates, probe_duration capped at 30s
 * with FILE:LINE, rules across keys. */
static void test_diag(void)
{
	char *dir = unitfs_dir();
	free(unitfs_put(dir, "diag.pass", 0600, "diag-secret\n"));
	char *p = unitfs_put(dir, "ok.conf", 0644,
		"[defaults]\nrest = http://192.0.2.1\nuser = u\ndiag_user = d\n"
		"diag_password_file = diag.pass\nprofile_every = 2m\n"
		"[router a]\nprobe = 10.0.0.2\nprobe_rate = 300M\nprobe_direction = BOTH\n"
		"[router b]\ndiag = no\nprofile_duration = 10s\nprobe_rate = 1.5G\n");
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), 0);
	if (c != NULL) {
		const conf_router_t *a = conf_router_find(c, "a"), *b = conf_router_find(c, "b");
		CHECK(a->diag && !b->diag);
		CHECK_STR(a->diag_user, "d");
		CHECK_STR(b->diag_password, "diag-secret");
		CHECK_INT(a->profile_every_ms, 120000);
		CHECK_INT(a->profile_duration_ms, 5000);
		CHECK_INT(b->profile_duration_ms, 10000);
		CHECK_INT(a->probe_rate_bps, 300000000);
		CHECK_INT(b->probe_rate_bps, 1500000000);
		CHECK_STR(a->probe_direction, "both");
		CHECK_STR(b->probe_direction, "transmit");
		CHECK_STR(a->probe_protocol, "udp");
		CHECK_INT(a->probe_duration_ms, 10000);
		CHECK_INT(a->probe_every_ms, 0);
	}
	conf_free(c);
	free(e);
	free(p);
	p = unitfs_put(dir, "bad.conf", 0644,
		"[router a]\nrest = http://192.0.2.1\nprobe = 10.0.0.2\nprobe_rate = 300X\n"
		"probe_duration = 31s\ndiag_password = x\n");
	e = NULL;
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e,
		"%s:4: probe_rate = 300X: is not a rate: bits/s with an optional decimal k, M or G suffix (e.g. 300M)",
		p);
	CHECK_LINE(e, "%s:5: probe_duration = 31s: is out of range (allowed 1s to 30s)", p);
	CHECK_LINE(e, "%s:1: router a: diag_password needs diag_user", p);
	CHECK_LINE(e, "%s:1: router a: probe needs probe_rate (bits/s, e.g. 300M)", p);
	CHECK(e == NULL || strstr(e, "= x") == NULL);
	free(e);
	free(p);
	free(dir);
}

/* [daemon] max_probes: 2 unless set; an integer from 1 to 1000, FILE:LINE otherwise. */
static void test_max_probes(void)
{
	static const struct {
		const char *line;
		int want;        /* -1: the file is refused */
		const char *err; /* the message after "FILE:2: " */
	} cases[] = {
		{ "", 2, NULL },
		{ "max_probes = 1\n", 1, NULL },
		{ "max_probes = 3\n", 3, NULL },
		{ "max_probes = 0\n", -1, "max_probes = 0: is out of range (allowed 1 to 1000)" },
		{ "max_probes = 1001\n", -1, "max_probes = 1001: is out of range (allowed 1 to 1000)" },
		{ "max_probes = two\n", -1, NULL },
		{ "max_probes = 1.5\n", -1, NULL },
	};
	char *dir = unitfs_dir();
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = xasprintf("[daemon]\n%s[router r]\nrest = https://10.0.0.1\n", cases[i].line);
		char *path = xasprintf("%s/probes.conf", dir);
		conf_t *c = NULL;
		char *e = NULL;
		CHECK_INT(unitconf_load(dir, "probes.conf", text, &c, &e), cases[i].want < 0 ? -1 : 0);
		CHECK_INT(c ? c->max_probes : -1, cases[i].want);
		if (cases[i].err != NULL)
			CHECK_LINE(e, "%s:2: %s", path, cases[i].err);
		else if (cases[i].want < 0)
			CHECK(e != NULL && strncmp(e, path, strlen(path)) == 0 &&
				strstr(e, ":2: max_probes = ") != NULL);
		conf_free(c);
		free(e);
		free(path);
		free(text);
	}
	free(dir);
}

int main(void)
{
	if (unitfs_root("conf_test") == NULL)
		return 1;
	test_durations();
	test_fixture();
	test_defaults();
	test_every();
	test_hold();
	test_rollout();
	test_errors();
	test_shard();
	test_web();
	test_ca_file();
	test_router_pattern();
	test_fleet();
	test_help_and_docs();
	test_example();
	test_diag();
	test_max_probes();
	return unitfs_end(unit_done("conf_test"));
}
