/* SPDX-License-Identifier: Apache-2.0 */
/* shard_test: the router-to-shard hash is a contract (operators split one fleet config over N
 * daemons by it), so fixed vectors pin it; 10,000 names spread evenly over 2..8 shards; and
 * shard_apply keeps exactly the owned routers, in order, freeing the rest (ASan checks). */
#include "config.h"

#include <stdlib.h>

#include "lib/buf.h"
#include "daemon/shard.h"
#include "unit.h"
#include "unitfs.h"
#include "lib/xmem.h"

/* FNV-1a 32 reference values, and shards of real-looking names for N = 2, 3, 4, 5, 7, 8. If one
 * of these changes, every sharded deployment would move routers between daemons: don't. */
static void test_vectors(void)
{
	static const struct {
		const char *name;
		uint32_t hash;
		int shard[6];
	} v[] = {
		{ "", 0x811c9dc5u, { 2, 2, 2, 2, 3, 6 } }, { "a", 0xe40c292cu, { 1, 2, 1, 1, 6, 5 } },
		{ "foobar", 0xbf9cf968u, { 1, 2, 1, 1, 1, 1 } },
		{ "ccr1009", 0xe0351f0du, { 2, 1, 2, 2, 6, 6 } },
		{ "chr", 0x0a85ab74u, { 1, 2, 1, 1, 6, 5 } },
		{ "ccr2116", 0xc9999969u, { 2, 1, 2, 3, 7, 2 } },
		{ "rb5009-swing", 0xcd85addcu, { 1, 3, 1, 2, 5, 5 } },
		{ "ljubljana-ccr1009", 0xaf320853u, { 2, 2, 4, 2, 6, 4 } },
		{ "router-00001", 0xab9f1dfeu, { 1, 2, 3, 4, 6, 7 } },
		{ "site12-hap-ax3", 0x5f4f5552u, { 1, 3, 3, 2, 4, 3 } },
		{ "\xc4\x8d"
		  "akovec-hub",
			0x289c4555u, { 2, 3, 2, 1, 7, 6 } }, /* UTF-8 bytes */
	};
	static const int ns[6] = { 2, 3, 4, 5, 7, 8 };
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		CHECK_INT(shard_hash(v[i].name), v[i].hash);
		for (size_t k = 0; k < 6; k++) {
			int owners = 0;
			for (int K = 1; K <= ns[k]; K++) {
				struct conf_shard sh = { .index = K, .count = ns[k] };
				if (shard_owns(&sh, v[i].name)) {
					owners++;
					CHECK_INT(K, v[i].shard[k]);
				}
			}
			CHECK_INT(owners, 1);
		}
		struct conf_shard all = { .index = 1, .count = 1 };
		CHECK(shard_owns(&all, v[i].name));
	}
}

/* Router i of a fleet named in one of three common ways. */
static void spread_name(char *name, size_t size, int style, int i)
{
	if (style == 0)
		snprintf(name, size, "router-%05d", i);
	else if (style == 1)
		snprintf(name, size, "site%d-hap-ax3", i);
	else
		snprintf(name, size, "%x.vpn.example.net", (unsigned)i);
}

/* Every shard within 10% of 10,000 / N. (The hex names are the worst: 8.9% at N = 7.) */
static void test_spread(void)
{
	for (int style = 0; style < 3; style++) {
		for (int n = 2; n <= 8; n++) {
			int count[8] = { 0 };
			for (int i = 0; i < 10000; i++) {
				char name[64];
				spread_name(name, sizeof(name), style, i);
				count[shard_hash(name) % (uint32_t)n]++;
			}
			double want = 10000.0 / n;
			for (int k = 0; k < n; k++) {
				CHECK(count[k] >= 0.9 * want && count[k] <= 1.1 * want);
				if (count[k] < 0.9 * want || count[k] > 1.1 * want)
					fprintf(stderr, "  style %d N=%d: shard %d has %d\n", style, n, k + 1,
						count[k]);
			}
		}
	}
}

static conf_t *load(const char *dir, const char *shard)
{
	char *path = xasprintf("%s/wgwatch.conf", dir);
	FILE *fp = fopen(path, "w");
	CHECK(fp != NULL);
	fprintf(fp, "[daemon]\ndatabase = /tmp/x.db\nshard = %s\n", shard);
	for (int i = 1; i <= 10; i++)
		fprintf(fp,
			"[router r%d]\nrest = http://127.0.0.1\npassword = s3cret%d\n"
			"labels = n=%d\n",
			i, i, i);
	fclose(fp);
	conf_t *c = NULL;
	char *errors = NULL;
	CHECK(conf_load(path, &c, &errors) == 0);
	if (errors)
		fprintf(stderr, "%s\n", errors);
	free(errors);
	free(path);
	return c;
}

static void test_apply(const char *dir)
{
	conf_t *c = load(dir, "2/3");
	if (c == NULL)
		return;
	CHECK_INT(shard_apply(c), 10);
	static const char *const want[] = { "r1", "r2", "r4", "r8", "r10" }; /* fnv % 3 == 1 */
	CHECK_INT(c->nrouters, 5);
	for (size_t i = 0; i < c->nrouters && i < 5; i++) {
		CHECK_STR(c->routers[i].name, want[i]);
		CHECK_STR(c->routers[i].labels[0].value, want[i] + 1);
	}
	CHECK(conf_router_find(c, "r3") == NULL);
	conf_free(c);

	size_t sum = 0;
	for (int k = 1; k <= 3; k++) {
		char sh[16];
		snprintf(sh, sizeof(sh), "%d/3", k);
		c = load(dir, sh);
		CHECK_INT(c ? shard_apply(c) : 0, 10);
		sum += c ? c->nrouters : 0;
		conf_free(c);
	}
	CHECK_INT(sum, 10);

	c = load(dir, "1/1");
	CHECK_INT(c ? shard_apply(c) : 0, 10);
	CHECK_INT(c ? c->nrouters : 0, 10);
	conf_free(c);
}

int main(void)
{
	const char *dir = unitfs_root("shard_test");
	CHECK(dir != NULL);
	test_vectors();
	test_spread();
	if (dir)
		test_apply(dir);
	return unitfs_end(unit_done("shard_test"));
}
