/* SPDX-License-Identifier: Apache-2.0 */
/* metrics_daemon: the /metrics families of the daemon's own work, once per exposition: shard,
 * poll duration and start-delay histograms, late polls, the store's counters, the HTTP
 * listener's refusals and its late pages. Reads only the fleet view's stats and counters copied
 * for the render. */
#include "config.h"
#include "web/metrics_int.h"

#include <math.h>
#include <stdint.h>

/* [daemon] shard = K/N of the config the fleet follows. */
void metrics_daemon_shard_info(struct metrics_ctx *c, const struct metrics_family *fam)
{
	const struct fleet_stats *st = fleet_view_stats(c->view);
	metrics_puts(c->out, fam->name);
	metrics_puts(c->out, "{shard=\"");
	metrics_put_u64(c->out, (uint64_t)st->shard_index);
	metrics_puts(c->out, "\",shards=\"");
	metrics_put_u64(c->out, (uint64_t)st->shard_count);
	metrics_puts(c->out, "\"} 1\n");
}

void metrics_daemon_value(buf_t *out, const struct metrics_family *fam, double v)
{
	metrics_puts(out, fam->name);
	metrics_putc(out, ' ');
	metrics_put_double(out, v);
	metrics_putc(out, '\n');
}

static void metrics_daemon_u64(buf_t *out, const struct metrics_family *fam, uint64_t v)
{
	metrics_puts(out, fam->name);
	metrics_putc(out, ' ');
	metrics_put_u64(out, v);
	metrics_putc(out, '\n');
}

static void metrics_hist_line(buf_t *out, const char *name, const char *suffix, double le, uint64_t v)
{
	metrics_puts(out, name);
	metrics_puts(out, suffix);
	metrics_puts(out, "{le=\"");
	metrics_put_double(out, le);
	metrics_put(out, "\"} ", 3);
	metrics_put_u64(out, v);
	metrics_putc(out, '\n');
}

static void metrics_hist(buf_t *out, const char *name, const struct fleet_hist *h)
{
	for (size_t k = 0; k < FLEET_HIST_BUCKETS; k++)
		metrics_hist_line(out, name, "_bucket", fleet_hist_bounds[k], h->le[k]);
	metrics_hist_line(out, name, "_bucket", INFINITY, h->count);
	metrics_puts(out, name);
	metrics_puts(out, "_sum ");
	metrics_put_double(out, h->sum);
	metrics_putc(out, '\n');
	metrics_puts(out, name);
	metrics_puts(out, "_count ");
	metrics_put_u64(out, h->count);
	metrics_putc(out, '\n');
}

void metrics_daemon_poll_duration(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_hist(c->out, fam->name, &fleet_view_stats(c->view)->duration);
}

void metrics_daemon_poll_start_delay(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_hist(c->out, fam->name, &fleet_view_stats(c->view)->start_delay);
}

void metrics_daemon_polls_late(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, fleet_view_stats(c->view)->polls_late);
}

void metrics_daemon_clock_steps(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, fleet_view_stats(c->view)->clock_steps);
}

void metrics_daemon_store_samples(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, c->store->samples_stored);
}

void metrics_daemon_store_write_errors(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, c->store->write_errors);
}

void metrics_daemon_store_queue(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, c->store->queued);
}

void metrics_daemon_store_sqlite_bytes(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, c->store->sqlite_bytes > 0 ? (uint64_t)c->store->sqlite_bytes : 0);
}

void metrics_daemon_store_failing(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, c->store->failing ? 1 : 0);
}

void metrics_daemon_http_refused(struct metrics_ctx *c, const struct metrics_family *fam)
{
	static const char *const reasons[METRICS_REFUSED_N] = {
		[METRICS_REFUSED_LIMIT] = "limit",
		[METRICS_REFUSED_ACCEPT] = "accept",
	};
	for (size_t i = 0; i < METRICS_REFUSED_N; i++) {
		metrics_puts(c->out, fam->name);
		metrics_puts(c->out, "{reason=\"");
		metrics_puts(c->out, reasons[i]);
		metrics_puts(c->out, "\"} ");
		metrics_put_u64(c->out, c->http ? c->http->refused[i] : 0);
		metrics_putc(c->out, '\n');
	}
}

void metrics_daemon_http_slow(struct metrics_ctx *c, const struct metrics_family *fam)
{
	static const char *const reasons[] = { "deadline", "reserve" };
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		metrics_puts(c->out, fam->name);
		metrics_puts(c->out, "{reason=\"");
		metrics_puts(c->out, reasons[i]);
		metrics_puts(c->out, "\"} ");
		metrics_put_u64(c->out, c->http ? c->http->slow_closed[i] : 0);
		metrics_putc(c->out, '\n');
	}
}

void metrics_daemon_http_pages_late(struct metrics_ctx *c, const struct metrics_family *fam)
{
	metrics_daemon_u64(c->out, fam, c->http ? c->http->pages_late : 0);
}
