/* SPDX-License-Identifier: Apache-2.0 */
/* confread_test: how the config loader reads its files: a missing file, devices, FIFOs and
 * files over 1 MiB refused by name, includes and their loops, lines longer than inih's buffer,
 * and list keys that repeat. Every file it writes is under its run's temp directory. */
#include "config.h"
#include "daemon/conf.h"
#include "daemon/conf_int.h"
#include "lib/buf.h"
#include "lib/xmem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"
#include "unitconf.h"
#include "unitfs.h"

static void test_missing_file(void)
{
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load("/nonexistent/wgwatch.conf", &c, &e), -1);
	CHECK_STR(e, "/nonexistent/wgwatch.conf: cannot read: No such file or directory\n");
	free(e);
}

/* A file of n bytes of comment lines: "#...#\n". */
static char *put_comments(const char *dir, const char *name, size_t n)
{
	char *text = xmalloc(n + 1);
	memset(text, '#', n);
	for (size_t i = 99; i < n; i += 100)
		text[i] = '\n';
	text[n] = '\0';
	char *path = unitfs_put(dir, name, 0644, text);
	free(text);
	return path;
}

/* Devices, FIFOs and files over 1 MiB are refused by name, at once: /dev/zero read until
 * ENOMEM and then passed, /dev/urandom and a FIFO never ended. */
static void test_special_files(void)
{
	char *dir = unitfs_dir();
	char *fifo = xasprintf("%s/fifo.conf", dir);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	free(put_comments(dir, "big.conf", 1024 * 1024 + 1));
	free(put_comments(dir, "max.conf", 1024 * 1024));
	char *p = unitfs_put(dir, "main.conf", 0644,
		"[daemon]\ninclude = /dev/zero\ninclude = /dev/urandom\ninclude = fifo.conf\n"
		"include = big.conf\ninclude = max.conf\n");
	alarm(60); /* a hang on the FIFO or a device fails the test rather than blocking it */
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s:2: cannot read /dev/zero: not a regular file", p);
	CHECK_LINE(e, "%s:3: cannot read /dev/urandom: not a regular file", p);
	CHECK_LINE(e, "%s:4: cannot read %s: not a regular file", p, fifo);
	CHECK_LINE(e, "%s:5: cannot read %s/big.conf: larger than 1 MiB", p, dir);
	CHECK_INT(unit_count_lines(e), 4); /* max.conf, exactly 1 MiB, is read */
	free(e);
	CHECK_INT(conf_load("/dev/zero", &c, &e), -1);
	CHECK_STR(e, "/dev/zero: cannot read: not a regular file\n");
	free(e);
	CHECK_INT(conf_load(fifo, &c, &e), -1);
	CHECK_LINE(e, "%s: cannot read: not a regular file", fifo);
	free(e);
	/* a FIFO or a device as a secret file (issue 21 item 5): refused at once, not waited on */
	char *sec = xasprintf("%s/secret.fifo", dir);
	CHECK_INT(mkfifo(sec, 0600), 0);
	free(p);
	p = unitfs_put(dir, "secret.conf", 0644,
		"[router r1]\nrest = https://10.0.0.1\npassword_file = secret.fifo\n"
		"[router r2]\nrest = https://10.0.0.2\npassword_file = /dev/zero\n");
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s:3: password_file = secret.fifo: %s is not a regular file", p, sec);
	CHECK_LINE(e, "%s:6: password_file = /dev/zero: /dev/zero is not a regular file", p);
	free(e);
	free(sec);
	alarm(0);
	free(p);
	free(fifo);
	free(dir);
}

static void test_includes(void)
{
	char *dir = unitfs_dir();
	char *sites = xasprintf("%s/sites.d", dir);
	char *inc = xasprintf("%s/inc", dir);
	/* written out of order: the glob must sort */
	free(unitfs_put(
		sites, "b.conf", 0644, "[router b1]\nrest = https://10.1.0.1\npassword_file = ../s.pass\n"));
	free(unitfs_put(sites, "a.conf", 0644,
		"[router a1]\nrest = https://10.0.0.1\n"
		"[router a2]\ninclude = ../inc/a2.inc\nlabels = rack=r2\n"));
	free(unitfs_put(sites, "c.conf.disabled", 0644, "[router c1]\nrest = https://10.2.0.1\n"));
	free(unitfs_put(dir, "s.pass", 0600, "b-secret\r\n"));
	/* keys before any section continue the including section, [router a2] */
	free(unitfs_put(inc, "a2.inc", 0644, "rest = https://10.0.0.2\nuser = a2user\n"));
	char *p = unitfs_put(dir, "main.conf", 0644, "include = sites.d/*.conf\n[defaults]\nuser = dflt\n");
	conf_t *c = NULL;
	char *e = NULL;
	CHECK_INT(conf_load(p, &c, &e), 0);
	CHECK_STR(e, NULL);
	CHECK(c != NULL && c->nrouters == 3);
	if (c != NULL && c->nrouters == 3) {
		CHECK_STR(c->routers[0].name, "a1");
		CHECK_STR(c->routers[1].name, "a2");
		CHECK_STR(c->routers[2].name, "b1");
		CHECK_STR(c->routers[0].user, "dflt");
		CHECK_STR(c->routers[1].rest, "https://10.0.0.2");
		CHECK_STR(c->routers[1].user, "a2user");
		CHECK_INT(c->routers[1].nlabels, 1);
		CHECK_STR(c->routers[2].password, "b-secret");
		char *bf = xasprintf("%s/b.conf", sites);
		CHECK_STR(c->routers[2].file, bf);
		free(bf);
	}
	conf_free(c);
	free(p);

	/* a loop across two files, reported where the second include is */
	free(unitfs_put(inc, "x.conf", 0644, "include = y.conf\n"));
	free(unitfs_put(inc, "y.conf", 0644, "\n[daemon]\ninclude = x.conf\n"));
	p = unitfs_put(dir, "loop.conf", 0644, "include = inc/x.conf\n");
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s/y.conf:3: include loop: %s/x.conf is already being read", inc, inc);
	CHECK_INT(unit_count_lines(e), 1);
	free(e);
	free(p);

	/* a router defined in two files names both places */
	free(unitfs_put(inc, "dup.conf", 0644, "\n[router a1]\nrest = http://10.9.9.9\n"));
	p = unitfs_put(dir, "dup.conf", 0644, "include = sites.d/a.conf\ninclude = inc/dup.conf\n");
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s/dup.conf:2: duplicate router a1 (first defined at %s/a.conf:1)", inc, sites);
	CHECK_INT(unit_count_lines(e), 1);
	free(e);
	free(p);
	free(sites);
	free(inc);
	free(dir);
}

/* inih's buffer holds 198 characters: longer key = value lines are split by our reader, as inih
 * splits them, up to CONF_LINE_MAX; past that the line is refused whole, never cut. */
static void test_long_lines(void)
{
	char *dir = unitfs_dir();
	buf_t b;
	buf_init(&b);
	buf_puts(&b, "[router r]\nrest = https://10.0.0.1\n");
	size_t start = b.len;
	buf_puts(&b, "labels = ");
	for (int i = 0; b.len - start < 300; i++)
		buf_printf(&b, "%sk%02d=value%02d", i ? "," : "", i, i);
	buf_puts(&b, " ; a comment, as inih drops it\n");
	conf_t *c;
	char *e;
	CHECK_INT(unitconf_load(dir, "long.conf", b.data, &c, &e), 0);
	CHECK(c != NULL && c->nrouters == 1 && c->routers[0].nlabels >= 20);
	if (c != NULL && c->nrouters == 1 && c->routers[0].nlabels >= 20) {
		const conf_router_t *r = &c->routers[0];
		CHECK_STR(r->labels[0].key, "k00");
		const char *last = r->labels[r->nlabels - 1].value; /* less the comment */
		CHECK(strncmp(last, "value", 5) == 0 && strlen(last) == 7);
	}
	conf_free(c);
	free(e);

	/* a 20-port switch's interfaces on one line: the same as in short lines */
	buf_reset(&b);
	buf_puts(&b, "[router r]\nrest = https://10.0.0.1\ninterfaces = ");
	for (int i = 1; i <= 20; i++)
		buf_printf(&b, "%ssfp-sfpplus%d-uplink-to-rack-%02d", i > 1 ? ", " : "", i, i);
	buf_puts(&b, "\n");
	CHECK(b.len > 400);
	CHECK_INT(unitconf_load(dir, "switch.conf", b.data, &c, &e), 0);
	CHECK(c != NULL && c->nrouters == 1 && c->routers[0].ninterfaces == 20);
	if (c != NULL && c->nrouters == 1 && c->routers[0].ninterfaces == 20) {
		CHECK_STR(c->routers[0].interfaces[0], "sfp-sfpplus1-uplink-to-rack-01");
		CHECK_STR(c->routers[0].interfaces[19], "sfp-sfpplus20-uplink-to-rack-20");
	}
	conf_free(c);
	free(e);

	/* past CONF_LINE_MAX: an exact FILE:LINE, the limit and the way out, never the value */
	buf_reset(&b);
	buf_puts(&b, "[router r]\nrest = https://10.0.0.1\n");
	start = b.len;
	buf_puts(&b, "labels = ");
	for (int i = 0; b.len - start <= CONF_LINE_MAX; i++)
		buf_printf(&b, "%sk%04d=value", i ? "," : "", i);
	buf_puts(&b, "\n");
	char *p = unitfs_put(dir, "huge.conf", 0644, b.data);
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e,
		"%s:3: labels: line is too long (%zu characters, at most %d): split it, labels may be "
		"repeated and the values add up",
		p, b.len - start - 1, CONF_LINE_MAX);
	CHECK(e != NULL && strstr(e, "k0000") == NULL); /* no value echoed, no piece parsed */
	CHECK_INT(unit_count_lines(e), 1);
	free(e);
	free(p);

	/* a secret past the limit: the key named, nothing of its value */
	buf_reset(&b);
	buf_puts(&b, "[router r]\nrest = https://10.0.0.1\npassword = ");
	for (int i = 0; i < CONF_LINE_MAX; i++)
		buf_putc(&b, 's');
	buf_puts(&b, "\n");
	p = unitfs_put(dir, "secret.conf", 0644, b.data);
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s:3: password: line is too long (%d characters, at most %d)", p,
		CONF_LINE_MAX + (int)strlen("password = "), CONF_LINE_MAX);
	CHECK(e != NULL && strstr(e, "sss") == NULL);
	free(e);
	free(p);

	/* a long line that is no key = value, and a long comment (ignored) */
	buf_reset(&b);
	buf_puts(&b, "[router r]\nrest = https://10.0.0.1\n# ");
	for (int i = 0; i < 300; i++)
		buf_putc(&b, 'c');
	buf_puts(&b, "\n");
	for (int i = 0; i < 300; i++)
		buf_putc(&b, 'x');
	buf_puts(&b, " ; = not a key\n");
	p = unitfs_put(dir, "junk.conf", 0644, b.data);
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s:4: expected key = value", p);
	CHECK_INT(unit_count_lines(e), 1);
	free(e);
	free(p);

	/* 198 characters still go through inih, and arrive whole */
	buf_reset(&b);
	buf_puts(&b, "[router r]\nrest = https://10.0.0.1\ninterfaces = ");
	start = b.len - strlen("interfaces = ");
	while (b.len - start < 198)
		buf_putc(&b, 'x');
	buf_puts(&b, "\n");
	CHECK_INT(unitconf_load(dir, "edge.conf", b.data, &c, &e), 0);
	CHECK(c != NULL && c->nrouters == 1 && c->routers[0].ninterfaces == 1);
	if (c != NULL && c->nrouters == 1 && c->routers[0].ninterfaces == 1)
		CHECK_INT(strlen(c->routers[0].interfaces[0]), 198 - strlen("interfaces = "));
	conf_free(c);
	free(e);
	buf_free(&b);
	free(dir);
}

/* List keys (interfaces, wg_names, labels) may repeat in a section, the values adding up;
 * a router's list replaces [defaults]' rather than adding to it; other keys still may not. */
static void test_repeat(void)
{
	char *dir = unitfs_dir();
	conf_t *c;
	char *e;
	CHECK_INT(unitconf_load(dir, "rep.conf",
			  "[defaults]\ninterfaces = ether1\nlabels = site=ams\n"
			  "[router sw]\nrest = https://10.0.0.1\n"
			  "interfaces = ether1, ether2\ninterfaces =\ninterfaces = sfp1 ; uplink\n"
			  "wg_names = wg*\nwg_names = tunnel-*\n"
			  "labels = a=1\nlabels = b=2,c=3\n"
			  "[router other]\nrest = https://10.0.0.2\n",
			  &c, &e),
		0);
	CHECK(c != NULL && c->nrouters == 2);
	if (c != NULL && c->nrouters == 2) {
		const conf_router_t *r = strcmp(c->routers[0].name, "sw") == 0 ? &c->routers[0]
									       : &c->routers[1];
		const conf_router_t *o = r == &c->routers[0] ? &c->routers[1] : &c->routers[0];
		CHECK_INT(r->ninterfaces, 3);
		if (r->ninterfaces == 3) {
			CHECK_STR(r->interfaces[1], "ether2");
			CHECK_STR(r->interfaces[2], "sfp1");
		}
		CHECK_INT(r->nwg_names, 2);
		if (r->nwg_names == 2)
			CHECK_STR(r->wg_names[1], "tunnel-*");
		CHECK_INT(r->nlabels, 3);
		if (r->nlabels == 3)
			CHECK_STR(r->labels[2].key, "c");
		CHECK_INT(o->ninterfaces, 1); /* [defaults]' */
		CHECK_INT(o->nlabels, 1);
		CHECK_INT(o->nwg_names, 2); /* the table's default: wg*, wireguard* */
	}
	conf_free(c);
	free(e);

	/* a label repeated across lines, and a scalar key repeated: exact lines */
	char *p = unitfs_put(dir, "bad.conf", 0644,
		"[router sw]\nrest = https://10.0.0.1\nlabels = a=1\n\nlabels = b=2, a=3\n"
		"snmp = 10.0.0.1\nsnmp = 10.0.0.2\n");
	CHECK_INT(conf_load(p, &c, &e), -1);
	CHECK_LINE(e, "%s:5: labels = b=2, a=3: label 'a' is given twice", p);
	CHECK_LINE(e, "%s:7: snmp is set twice (first at %s:6)", p, p);
	CHECK_INT(unit_count_lines(e), 2);
	free(e);
	free(p);
	free(dir);
}

int main(void)
{
	if (unitfs_root("confread_test") == NULL)
		return 1;
	test_missing_file();
	test_includes();
	test_special_files();
	test_long_lines();
	test_repeat();
	return unitfs_end(unit_done("confread_test"));
}
