/* SPDX-License-Identifier: Apache-2.0 */
/* storehistory_test: what the store's readers return (store/history.h, store/overrides.h):
 * health sensors, peers, the rollout guard's overrides, CPU profiles and probes, a database
 * without their tables. Written through the store on temp files. */
#include "config.h"
#include "store/store_int.h"
#include "store/history.h"
#include "store/schema_sql.h"
#include "store/overrides.h"
#include "lib/db.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <fcntl.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "storefix.h"
#include "unit.h"

static sample_t *mk_health(int64_t t, bool fresh, double temp, const char *endpoint, bool disabled)
{
	sample_t *s = storefix_sample("h1", t, "7.22.3", "7.22.3", 100000 + (t - STOREFIX_T0));
	s->health_fresh = fresh;
	sample_add_sensor(s, "cpu-temperature", SAMPLE_UNIT_CELSIUS, temp);
	sample_add_sensor(s, "voltage", SAMPLE_UNIT_VOLTS, 24.1);
	sample_add_sensor(s, "psu2-state", SAMPLE_UNIT_STATE, 0);
	s->mem_free = 3950641152, s->mem_total = 4227858432, s->disk_free = 0;
	s->have_peers = true;
	struct sample_peer *p = sample_add_peer(s);
	p->interface = xstrdup("wg0");
	p->peer = xstrdup("alice");
	p->public_key = xstrdup("k1");
	p->endpoint = endpoint ? xstrdup(endpoint) : NULL;
	p->endpoint_port = 51209;
	p->allowed = xstrdup("10.0.0.2/32,10.1.0.0/24");
	p->disabled = disabled;
	return s;
}

/* Health goes into a polls row only when the poll read it; the peer details into peers when
 * they change; the page's history reads the newest reading and each sensor's range, also
 * after a restart of the store. */
static void test_health(void)
{
	char *p = storefix_path("health.db");
	store_t *st = storefix_open(p);
	store_submit(st, mk_health(STOREFIX_T0, true, 50, "198.51.100.7", false));
	store_submit(
		st, mk_health(STOREFIX_T0 + 30000, false, 99, "198.51.100.7", false)); /* kept, not read */
	store_submit(st, mk_health(STOREFIX_T0 + 60000, true, 58.5, "2001:db8::7", false));
	store_flush(st);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls WHERE health IS NOT NULL"), 2);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM sensors"), 3);
	CHECK_STR(storefix_text(p, "SELECT unit FROM sensors WHERE name = 'voltage'"), "volts");
	CHECK_STR(storefix_text(p, "SELECT endpoint FROM peers"), "[2001:db8::7]:51209");
	CHECK_STR(storefix_text(p, "SELECT allowed_address FROM peers"), "10.0.0.2/32,10.1.0.0/24");
	CHECK_INT(storefix_int(p, "SELECT disabled FROM peers"), 0);

	st = storefix_open(p); /* the cache knows the sensors and the peer's details again */
	store_submit(st, mk_health(STOREFIX_T0 + 90000, true, 40, "2001:db8::7", true));
	store_flush(st);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM sensors"), 3);
	CHECK_INT(storefix_int(p, "SELECT disabled FROM peers"), 1);

	history_t *h = NULL;
	char *cause = NULL;
	struct history_req hq = {
		.db_path = p, .router = "h1", .from_ms = STOREFIX_T0, .to_ms = STOREFIX_T0 + 120000
	};
	CHECK_INT(history_load(&hq, &h, &cause), 0);
	free(cause);
	CHECK(h != NULL && h->nsensors == 3 && h->health_ms == STOREFIX_T0 + 90000);
	for (size_t i = 0; h != NULL && i < h->nsensors; i++) {
		const struct history_sensor *x = &h->sensors[i];
		if (strcmp(x->name, "cpu-temperature") == 0) {
			CHECK_STR(x->unit, "celsius");
			CHECK(x->value == 40 && x->min == 40 && x->max == 58.5); /* not the 99 never stored */
		}
		if (strcmp(x->name, "psu2-state") == 0)
			CHECK(x->value == 0);
	}
	CHECK(h != NULL && h->mem_free == 3950641152 && h->mem_total == 4227858432);
	CHECK(h != NULL && h->disk_free == 0 && h->disk_total == -1);
	CHECK(h != NULL && h->npeers == 1 && h->peers[0].disabled == 1);
	CHECK(h != NULL && h->npeers == 1 && strcmp(h->peers[0].endpoint, "[2001:db8::7]:51209") == 0);
	history_free(h);

	st = storefix_open(p); /* a new port alone is a new endpoint; the same one again no change */
	sample_t *s = mk_health(STOREFIX_T0 + 120000, true, 40, "2001:db8::7", true);
	s->peers[0].endpoint_port = 51210;
	store_submit(st, s);
	store_submit(st, mk_health(STOREFIX_T0 + 150000, true, 40, "198.51.100.7", true));
	store_flush(st);
	store_close(st);
	CHECK_STR(storefix_text(p, "SELECT endpoint FROM peers"), "198.51.100.7:51209");
	st = storefix_open(p);
	store_submit(st, mk_health(STOREFIX_T0 + 180000, true, 40, "2001:db8::7", true));
	s = mk_health(STOREFIX_T0 + 210000, true, 40, "2001:db8::7", true);
	s->peers[0].endpoint_port = 1;
	store_submit(st, s);
	store_flush(st);
	store_close(st);
	CHECK_STR(storefix_text(p, "SELECT endpoint FROM peers"), "[2001:db8::7]:1");
	st = storefix_open(p);
	store_submit(st, mk_health(STOREFIX_T0 + 240000, true, 40, NULL, true));
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM peers WHERE endpoint IS NULL"), 1);
	storefix_integrity(p);
	free(p);
}

/* A poll of router "pp" at t with peers first..last (inclusive) of wg0, counters from t. */
static sample_t *mk_peers(int64_t t, int first, int last)
{
	sample_t *s = storefix_sample("pp", t, "7.22.3", NULL, 1000 + t - STOREFIX_T0);
	s->have_peers = true;
	for (int i = first; i <= last; i++) {
		struct sample_peer *pe = sample_add_peer(s);
		pe->interface = xstrdup("wg0");
		pe->peer = xasprintf("peer%05d", i);
		pe->public_key = xasprintf("%042dA=", i);
		pe->rx_bytes = (uint64_t)(t - STOREFIX_T0) + (uint64_t)i;
		pe->tx_bytes = 2 * pe->rx_bytes;
		pe->last_handshake_ms = i % 7 == 0 ? -1 : 1000 * i;
	}
	return s;
}

/* The router page's peers (issue 21 item 4: the query was quadratic in peers): each peer's
 * newest sample of the hour before the newest poll with peers. 3,000 peers; peers 2,900 and
 * on stopped answering 30 s before the newest poll and show their older sample; peer 2,999
 * was last seen more than an hour before it and is left out. */
static void test_history_peers(void)
{
	char *p = storefix_path("peers.db");
	store_t *st = storefix_open(p);
	store_submit(st, mk_peers(STOREFIX_T0, 0, 2999));
	store_submit(st, mk_peers(STOREFIX_T0 + 3700000, 0, 2998));
	store_submit(st, mk_peers(STOREFIX_T0 + 3730000, 0, 2998));
	store_submit(st, mk_peers(STOREFIX_T0 + 3760000, 0, 2899));
	store_flush(st);
	store_close(st);
	history_t *h = NULL;
	char *cause = NULL;
	struct history_req hq = {
		.db_path = p, .router = "pp", .from_ms = STOREFIX_T0, .to_ms = STOREFIX_T0 + 3800000
	};
	double t0 = storefix_seconds();
	CHECK_INT(history_load(&hq, &h, &cause), 0);
	printf("  history with 3,000 peers: %.1f ms\n", (storefix_seconds() - t0) * 1e3);
	free(cause);
	CHECK(h != NULL && h->npeers == 2999);
	for (size_t i = 0; h != NULL && i < h->npeers; i++) {
		const struct history_peer *x = &h->peers[i];
		int64_t t = i < 2900 ? STOREFIX_T0 + 3760000 : STOREFIX_T0 + 3730000;
		int bad = strcmp(x->interface, "wg0") != 0 || x->time_ms != t ||
			x->rx_bytes != (uint64_t)(t - STOREFIX_T0) + i || x->tx_bytes != 2 * x->rx_bytes ||
			x->handshake_age_ms != (i % 7 == 0 ? -1 : 1000 * (int64_t)i);
		char want[32];
		snprintf(want, sizeof(want), "peer%05zu", i);
		bad |= strcmp(x->name, want) != 0;
		if (bad)
			fprintf(stderr, "  peer row %zu: %s %s t=%lld rx=%llu\n", i, x->interface, x->name,
				(long long)x->time_ms, (unsigned long long)x->rx_bytes);
		CHECK_INT(bad, 0);
		if (bad)
			break;
	}
	CHECK(h != NULL && h->npeers > 1 && h->peers[1].rx_bps > 0); /* deltas: 30 s apart */
	history_free(h);
	free(p);
}

/* Rollout overrides (store/overrides.c): stored once with who and when, a second add finds
 * the same row, a revoke keeps the row but ends it, and a database before 008 has none. */
static void test_overrides(void)
{
	char *p = storefix_path("overrides.db"), *cause = NULL;
	store_close(storefix_open(p));
	struct override want = { .version = (char *)"7.22.3",
		.cohort = (char *)"tile",
		.who = (char *)"admin",
		.at_ms = STOREFIX_T0 },
			got;
	CHECK_INT(overrides_add(p, &want, &got, &cause), 1);
	CHECK(got.id > 0 && got.at_ms == STOREFIX_T0);
	CHECK_STR(got.who, "admin");
	overrides_clear(&got);
	want.who = (char *)"other";
	want.at_ms = STOREFIX_T0 + 1000;
	CHECK_INT(overrides_add(p, &want, &got, &cause), 0); /* already: the first one stays */
	CHECK_STR(got.who, "admin");
	CHECK(got.at_ms == STOREFIX_T0);
	overrides_clear(&got);
	struct override *v = NULL;
	size_t n = 9;
	CHECK_INT(overrides_list(p, &v, &n, &cause), 0);
	CHECK_INT(n, 1);
	CHECK_STR(n == 1 ? v[0].cohort : NULL, "tile");
	overrides_free(v, n);
	CHECK_INT(overrides_revoke(p, "7.22.3", "tile", "root", STOREFIX_T0 + 2000, &got, &cause), 1);
	CHECK_STR(got.who, "admin");
	overrides_clear(&got);
	CHECK_INT(overrides_revoke(p, "7.22.3", "tile", "root", STOREFIX_T0 + 3000, &got, &cause), 0);
	CHECK_INT(overrides_list(p, &v, &n, &cause), 0);
	CHECK_INT(n, 0);
	overrides_free(v, n);
	CHECK_STR(
		storefix_text(p,
			"SELECT who || ' ' || revoked_by || ' ' || (revoked_ms - at_ms) FROM rollout_allows"),
		"admin root 2000");
	CHECK(cause == NULL);
	free(cause);
	free(p);
	p = storefix_path("old.db"); /* a database of schema 6: no table, no overrides, a clear error */
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	sqlite3_close(db);
	CHECK_INT(overrides_list(p, &v, &n, &cause), 0);
	CHECK_INT(n, 0);
	CHECK_INT(overrides_add(p, &want, &got, &cause), -1);
	CHECK(cause != NULL && strstr(cause, "schema 008") != NULL);
	free(cause);
	free(p);
}

/* Profiles and probes (schema 007): written through the queue, read back newest first, and
 * purged with the roll-ups' retention. */
static void test_profiles(void)
{
	char *p = storefix_path("profiles.db");
	store_t *st = storefix_open(p);
	int64_t now = atomic_load(&storefix_now);
	store_submit(
		st, storefix_sample("ccr", now - 600000, "7.21.5", "7.21.5", 1000)); /* where maint starts */
	for (int i = 0; i < 3; i++) {
		profile_t *pr = profile_new("ccr", now - (2 - i) * 2 * STORE_DAY_MS);
		pr->duration_ms = 5000;
		profile_add(pr, 4, "networking", 38 + i);
		profile_add(pr, -1, "total", 12.5);
		store_submit_profile(st, pr);
	}
	probe_t *pb = probe_new("ccr", now, "transmit");
	pb->offered_bps = 3e8;
	pb->delivered_bps = 1.39e8;
	pb->busiest_core_load = 1;
	store_submit_probe(st, probe_new("ccr", now - 2 * STORE_DAY_MS, "receive")); /* purged below */
	store_submit_probe(st, pb);
	store_flush(st);
	probe_t **pv = NULL;
	size_t pn = 0;
	char *pcause = NULL;
	CHECK_INT(history_probes(p, "ccr", 10, &pv, &pn, &pcause), 0);
	CHECK_INT(pn, 2);
	if (pn == 2) {
		CHECK_STR(pv[0]->direction, "transmit");
		CHECK(pv[0]->offered_bps == 3e8 && pv[0]->delivered_bps == 1.39e8);
		CHECK(pv[0]->lost_packets == -1 && pv[0]->local_cpu_load == -1 &&
			pv[0]->busiest_core_load == 1);
	}
	history_probes_free(pv, pn);
	profile_t **v = NULL;
	size_t n = 0;
	char *cause = NULL;
	CHECK_INT(history_profiles(p, "ccr", 10, &v, &n, &cause), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_INT(v[0]->time_ms, now);
		CHECK_INT(v[0]->nrows, 2);
		CHECK(profile_find(v[0], 4, "networking") &&
			profile_find(v[0], 4, "networking")->usage == 40);
		CHECK(profile_find(v[2], -1, "total") && profile_find(v[2], -1, "total")->usage == 12.5);
	}
	history_profiles_free(v, n);
	/* the rows as stored: the bytes jansson's compact printer wrote (JSON_REAL_PRECISION(6)) */
	CHECK_STR(storefix_text(p, "SELECT rows FROM profiles ORDER BY time_ms DESC LIMIT 1"),
		"[{\"cpu\":4,\"name\":\"networking\",\"usage\":40.0},{\"cpu\":null,\"name\":\"total\",\"usage\":12.5}]");
	/* rows of another shape read as far as they go: what is not a row, or has no name, skipped */
	profile_t *odd = profile_new("ccr", now);
	history_profile_rows(odd,
		"[{\"cpu\":\"4\",\"name\":\"a\",\"usage\":\"x\"},7,{\"cpu\":2},"
		"{\"cpu\":3,\"name\":\"b\",\"usage\":1e2}]");
	CHECK_INT(odd->nrows, 2);
	CHECK(profile_find(odd, -1, "a") && profile_find(odd, -1, "a")->usage == 0);
	history_profile_rows(odd, "[{\"name\":\"c\"},{\"name\":\"c\"}"); /* not JSON: nothing */
	history_profile_rows(odd, NULL);
	CHECK_INT(odd->nrows, 2);
	profile_free(odd);
	storefix_maintain(st); /* retention starts where the data starts */
	atomic_store(&storefix_now, now + 5 * STORE_DAY_MS);
	storefix_maintain(st); /* rollup_hourly_retention 5 days: the two older than `now` go */
	atomic_store(&storefix_now, now);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM profiles"), 1);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM probes"), 1); /* the old probe went with them */
	CHECK_INT(history_profiles(p, "nosuch", 10, &v, &n, &cause), 0);
	CHECK_INT(n, 0);
	storefix_integrity(p);
	free(p);
}

/* A database without the profiles table (one that skipped 007) drops profiles, never polls. */
static void test_profiles_missing(void)
{
	char *p = storefix_path("noprofiles.db");
	store_t *st = storefix_open(p);
	sqlite3 *db = NULL;
	CHECK(sqlite3_open(p, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db, "DROP TABLE profiles", NULL, NULL, NULL) == SQLITE_OK);
	sqlite3_close(db);
	int64_t now = atomic_load(&storefix_now);
	profile_t *pr = profile_new("r", now);
	profile_add(pr, 0, "networking", 50);
	store_submit_profile(st, pr);
	store_submit(st, storefix_sample("r", now, "7.21.5", "7.21.5", 1000));
	store_flush(st);
	struct store_stats ss;
	store_get_stats(st, &ss);
	CHECK(!ss.failing && ss.write_errors == 0);
	store_close(st);
	CHECK_INT(storefix_int(p, "SELECT count(*) FROM polls"), 1);
	free(p);
}

/* A poll of router "hr" at t: two cores whose load moves every poll, a wg interface whose rate
 * grows, so that the 5-minute averages are rounded and the hours' sums of them are not round. */
static sample_t *hr_poll(int64_t t, int64_t t0)
{
	int64_t up = t - t0 + 60000, k = up / 47000;
	sample_t *s = storefix_sample("hr", t, "7.22.3", "7.22.3", up);
	sample_set_cores(s, 2);
	for (size_t c = 0; c < s->ncores; c++)
		s->cores[c].load = (double)((k * 37 + (int64_t)c * 11) % 1000) / 1000.0;
	struct sample_iface *f = sample_add_iface(s);
	f->name = xstrdup("wg0");
	f->type = xstrdup("wg");
	f->rx_bytes = (uint64_t)(up * 3 + k * k * 13);
	f->tx_bytes = (uint64_t)(up / 7 + k * k);
	return s;
}

/* The history of hr over [from, to) in buckets of w (its narrowest, of many points). */
static history_t *hr_load(const char *p, int64_t from, int64_t to, int64_t w)
{
	history_t *h = NULL;
	char *cause = NULL;
	struct history_req hq = { .db_path = p,
		.router = "hr",
		.from_ms = from,
		.to_ms = to,
		.max_points = 1000,
		.min_bucket_ms = w };
	CHECK_INT(history_load(&hq, &h, &cause), 0);
	free(cause);
	return h;
}

static bool hr_same_series(const double *a, const double *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
			return false;
	return true;
}

/* Whether a and b hold the same series, to the bit, and how many of their values are numbers. */
static size_t hr_same(const history_t *a, const history_t *b)
{
	size_t numbers = 0;
	CHECK(a->nbuckets == b->nbuckets && a->from_ms == b->from_ms && a->bucket_ms == b->bucket_ms);
	CHECK(a->ncores == b->ncores && a->nifaces == b->nifaces);
	if (a->nbuckets != b->nbuckets || a->ncores != b->ncores || a->nifaces != b->nifaces)
		return 0;
	CHECK(hr_same_series(a->load, b->load, a->ncores * a->nbuckets));
	for (size_t i = 0; i < a->nifaces; i++) {
		CHECK_STR(a->ifaces[i].name, b->ifaces[i].name);
		CHECK(hr_same_series(a->ifaces[i].tx_bps, b->ifaces[i].tx_bps, a->nbuckets));
		CHECK(hr_same_series(a->ifaces[i].rx_bps, b->ifaces[i].rx_bps, a->nbuckets));
		for (size_t k = 0; k < a->nbuckets; k++)
			numbers += !isnan(a->ifaces[i].tx_bps[k]);
	}
	for (size_t k = 0; k < a->ncores * a->nbuckets; k++)
		numbers += !isnan(a->load[k]);
	return numbers;
}

/* Issue 38's hourly tier: a history of whole-hour buckets reads it, and gives what the 5-minute
 * tier gives for the same range to the bit (the same answer with the hourly mark set back to
 * 0, which makes the history read every hour from the 5-minute rows); across a chunked day and
 * the open one, the raw polls after the roll-ups' mark included. A bucket of 65 minutes reads
 * the 5-minute tier. */
static void test_hourly_same(void)
{
	char *p = storefix_path("hourly.db");
	int64_t t0 = STOREFIX_T0 - 26 * 3600000, end = STOREFIX_T0 + 5 * 3600000;
	store_t *st = storefix_open(p);
	for (int64_t t = t0; t < end; t += 47000)
		store_submit(st, hr_poll(t, t0));
	store_flush(st);
	atomic_store(&storefix_now, end + STORE_GRACE_MS);
	storefix_maintain(st);
	store_close(st);
	CHECK(storefix_int(p, "SELECT count(*) FROM rollup_chunks WHERE kind = 3") >= 1); /* chunked day */
	CHECK(storefix_int(p, "SELECT count(*) FROM cpu_rollup_1h") > 0);                 /* the open one */
	int64_t from = t0 - t0 % 3600000 + 3600000;
	history_t *hourly = hr_load(p, from, end + 60000, 3600000);
	CHECK(hourly != NULL && hourly->hourly && hourly->bucket_ms == 3600000);
	history_t *odd = hr_load(p, from, end + 60000, 3900000);
	CHECK(odd != NULL && odd->rolled && !odd->hourly && odd->bucket_ms == 3900000);
	history_t *two = hr_load(p, from, from + 24 * 3600000, 7200000);
	int64_t hours = storefix_int(p, "SELECT value FROM store_state WHERE key = 'rollup_1h_ms'");
	sqlite3 *db = storefix_db(p);
	CHECK(sqlite3_exec(db, "UPDATE store_state SET value = 0 WHERE key = 'rollup_1h_ms'", NULL, NULL,
		      NULL) == SQLITE_OK);
	history_t *fine = hr_load(p, from, end + 60000, 3600000);
	char *sql = xasprintf(
		"UPDATE store_state SET value = %lld WHERE key = 'rollup_1h_ms'", (long long)hours);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	free(sql);
	sqlite3_close(db);
	CHECK(fine != NULL && fine->hourly);
	if (hourly != NULL && fine != NULL)
		CHECK(hr_same(hourly, fine) > 30 * 3); /* two cores and wg0, every hour */

	/* past the 5-minute tier's retention (3 days), the hourly tier (5 days) is read: the
	 * 65-minute buckets become 2 hours, as they were read from it before */
	st = storefix_open(p);
	atomic_store(&storefix_now, from + 4 * STORE_DAY_MS + 3600000); /* its first day past 3 d, not 5 */
	storefix_maintain(st);
	store_close(st);
	sql = xasprintf("SELECT count(*) FROM store_cpu_rollup WHERE bucket_ms < %lld",
		(long long)(from + 24 * 3600000));
	CHECK_INT(storefix_int(p, sql), 0);
	free(sql);
	history_t *late = hr_load(p, from, from + 24 * 3600000, 3900000);
	CHECK(late != NULL && late->hourly && late->bucket_ms == 7200000);
	if (two != NULL && late != NULL)
		CHECK(hr_same(two, late) >= 12 * 3);
	history_free(hourly);
	history_free(fine);
	history_free(odd);
	history_free(two);
	history_free(late);
	storefix_integrity(p);
	free(p);
}

int main(void)
{
	if (storefix_begin("storehistory_test") < 0)
		return 99;
	test_health();
	test_history_peers();
	test_overrides();
	test_profiles();
	test_profiles_missing();
	test_hourly_same();
	return unitfs_end(unit_done("storehistory_test"));
}
