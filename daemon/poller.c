/* SPDX-License-Identifier: Apache-2.0 */
/* poller: when each router is polled and what happens to the result. Runs on the loop
 * thread; never blocks (the sink, the store, queues; the fleet copies). Routers waiting for a free slot
 * wait in a FIFO so a fleet of hanging routers delays nobody beyond the in-flight cap.
 * A router with two sources (REST and SNMP) is polled by both in turn, and the two samples are
 * merged into one: identity and peers from the first, CPU and counters from the second. */
#include "config.h"
#include "daemon/poller.h"
#include "lib/clock.h"
#include "lib/complain.h"
#include "lib/hash.h"
#include "lib/log.h"
#include "lib/text.h"
#include "lib/xmem.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define POLLER_MAX_COLLECTORS 4
#define POLLER_MAX_BACKOFF    8    /* intervals skipped at most while a router is down */
#define POLLER_LATE_EVERY     10   /* a router's late starts: the first warned of, then every 10th */
#define POLLER_GRID_MS        8    /* polls start on a grid at least this wide (see poller_arm) */
#define POLLER_GRID_SHARE     300  /* ... and as wide as this share of the interval */
#define POLLER_GRID_POLLS     16   /* ... and as wide as it takes for this many polls to share a slot */
#define POLLER_STEP_MS        5000 /* the wall clock moved this much against the monotonic: a step */

struct prouter {
	poller_t *p;
	const conf_router_t *conf;
	const collector_t *collector; /* NULL: no collector handles it */
	const collector_t *second;    /* another that handles it too (SNMP beside REST), or NULL */
	void *handle, *handle2;       /* what collector and second attached for this router */
	sample_t *first;              /* the first collector's sample while the second runs */
	conf_router_t *derived;       /* conf given to the second: interfaces = those seen first (NULL
				       * until a second source polls: most routers have one) */
	int64_t due_ms;               /* monotonic time the current/next poll is due */
	int64_t grid_ms;              /* the width of its grid (poller_grid_ms), set on start */
	int64_t started_ms;
	loop_timer_id timer;
	bool in_flight, queued;
	bool carried;     /* due_ms carried over from before a reload */
	unsigned fails;   /* consecutive failed polls */
	complain_t late;  /* polls started late, for throttled warnings */
	sample_t *failed; /* a poll that could not start, delivered by a timer */
	struct prouter *next_queued;
};

struct poller {
	loop_t *loop;
	const conf_t *conf;
	fleet_t *fleet;
	sample_sink_t sink;
	collector_t collectors[POLLER_MAX_COLLECTORS];
	size_t ncollectors;
	struct prouter *routers;
	size_t n;
	size_t in_flight;
	struct prouter *queue_head, *queue_tail;
	FILE *once_out; /* non-NULL in --once mode */
	size_t once_left, once_failed;
	int64_t clock_wall_ms, clock_mono_ms; /* the stamps of the newest sample; mono -1 none */
};

static void poller_start_poll(struct prouter *r);
static void poller_schedule(struct prouter *r);

/* The collectors free their state of r: its connection and caches go. */
static void poller_detach(struct prouter *r)
{
	if (r->handle != NULL)
		r->collector->detach(r->collector->ctx, r->handle);
	if (r->handle2 != NULL)
		r->second->detach(r->second->ctx, r->handle2);
	r->handle = r->handle2 = NULL;
}

poller_t *poller_create(loop_t *loop, const conf_t *conf, fleet_t *fleet, sample_sink_t sink)
{
	poller_t *p = xcalloc(1, sizeof(*p));
	p->loop = loop;
	p->conf = conf;
	p->fleet = fleet;
	p->sink = sink;
	p->clock_mono_ms = -1;
	p->n = conf->nrouters;
	p->routers = xcalloc(p->n, sizeof(*p->routers));
	for (size_t i = 0; i < p->n; i++) {
		p->routers[i].p = p;
		p->routers[i].conf = &conf->routers[i];
		complain_init(&p->routers[i].late, POLLER_LATE_EVERY);
	}
	return p;
}

void poller_destroy(poller_t *p)
{
	if (p == NULL)
		return;
	for (size_t i = 0; i < p->n; i++) {
		struct prouter *r = &p->routers[i];
		if (r->timer)
			loop_cancel(p->loop, r->timer);
		if (r->in_flight && r->failed == NULL && r->handle != NULL)
			r->collector->cancel(r->collector->ctx, r->handle);
		if (r->in_flight && r->first != NULL && r->handle2 != NULL)
			r->second->cancel(r->second->ctx, r->handle2);
		poller_detach(r);
		sample_free(r->failed);
		sample_free(r->first);
		if (r->derived != NULL)
			free(r->derived->interfaces);
		free(r->derived);
	}
	free(p->routers);
	free(p);
}

void poller_add_collector(poller_t *p, collector_t c)
{
	if (p->ncollectors < POLLER_MAX_COLLECTORS)
		p->collectors[p->ncollectors++] = c;
}

static void poller_bind_collectors(poller_t *p)
{
	for (size_t i = 0; i < p->n; i++) {
		struct prouter *r = &p->routers[i];
		r->collector = r->second = NULL;
		for (size_t c = 0; c < p->ncollectors && r->second == NULL; c++) {
			if (!p->collectors[c].handles(p->collectors[c].ctx, r->conf))
				continue;
			if (r->collector == NULL)
				r->collector = &p->collectors[c];
			else
				r->second = &p->collectors[c];
		}
		if (r->collector != NULL)
			r->handle = r->collector->attach(r->collector->ctx, r->conf);
		if (r->second != NULL)
			r->handle2 = r->second->attach(r->second->ctx, r->conf);
	}
}

/* A stable offset in [0, interval) from the router's name: restarts keep each router's phase. */
static int64_t poller_phase(const conf_router_t *rc)
{
	uint64_t h = hash_str64(rc->name);
	return rc->interval_ms > 0 ? (int64_t)(h % (uint64_t)rc->interval_ms) : 0;
}

static void poller_due(void *arg)
{
	struct prouter *r = arg;
	poller_t *p = r->p;
	r->timer = 0;
	if (p->in_flight < (size_t)p->conf->max_in_flight) {
		poller_start_poll(r);
		return;
	}
	r->queued = true;
	r->next_queued = NULL;
	if (p->queue_tail)
		p->queue_tail->next_queued = r;
	else
		p->queue_head = r;
	p->queue_tail = r;
}

static void poller_dequeue(poller_t *p)
{
	while (p->queue_head && p->in_flight < (size_t)p->conf->max_in_flight) {
		struct prouter *r = p->queue_head;
		p->queue_head = r->next_queued;
		if (p->queue_head == NULL)
			p->queue_tail = NULL;
		r->queued = false;
		poller_start_poll(r);
	}
}

static void poller_log_change(const struct prouter *r, const sample_t *s)
{
	if (s->err == SAMPLE_OK)
		log_info("router %s: up (RouterOS %s, %s, %s)", r->conf->name, s->version ? s->version : "?",
			s->board ? s->board : "?", s->architecture ? s->architecture : "?");
	else
		log_warn("router %s: down: %s: %s", r->conf->name, sample_err_name(s->err),
			s->error ? s->error : "");
}

/* One line a router: what the router sent is escaped, it cannot add lines of its own. */
static void poller_print_once(poller_t *p, const sample_t *s)
{
	buf_t b;
	buf_init(&b);
	buf_printf(&b, "%s %s ", s->router, s->err != SAMPLE_OK ? "down" : "up");
	if (s->err != SAMPLE_OK) {
		buf_printf(&b, "%s: ", sample_err_name(s->err));
		text_put_oneline(&b, s->error);
	} else {
		size_t wg = 0;
		for (size_t i = 0; i < s->nifaces; i++)
			wg += s->ifaces[i].type && strcmp(s->ifaces[i].type, "wg") == 0;
		const char *f[] = { s->version, s->board, s->architecture };
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			text_put_oneline(&b, f[i] ? f[i] : "?");
			buf_putc(&b, ' ');
		}
		buf_printf(&b, "cores=%zu wg=%zu peers=%zu %" PRId64 "ms", s->ncores, wg, s->npeers,
			s->duration_ms);
	}
	buf_putc(&b, '\n');
	fwrite(b.data, 1, b.len, p->once_out);
	buf_free(&b);
}

/* Log and count a step of the wall clock (NTP, a restored snapshot, a wrong RTC at boot), once
 * for all routers. Between two samples stamped in turn (sample_stamp) the wall clock moves as
 * the monotonic one does, but for slewing: at most 0.5 ms a second, under 2 s across an hour
 * without a poll, so POLLER_STEP_MS is a step. Smaller ones harm nothing: rates use monotonic
 * time, and the roll-ups wait a minute. A sample stamped before the newest one seen (a poll
 * begun before the step and ended after it) is left out. */
static void poller_clock_check(poller_t *p, const sample_t *s)
{
	if (s->mono_ms < 0 || s->mono_ms < p->clock_mono_ms)
		return;
	int64_t step = p->clock_mono_ms < 0
		? 0
		: (s->time_ms - p->clock_wall_ms) - (s->mono_ms - p->clock_mono_ms);
	p->clock_wall_ms = s->time_ms;
	p->clock_mono_ms = s->mono_ms;
	if (step > -POLLER_STEP_MS && step < POLLER_STEP_MS)
		return;
	log_warn("the wall clock stepped %s by %.3f s: polls keep its time stamps, rates the"
		 " monotonic clock's intervals",
		step > 0 ? "forward" : "back", (double)llabs(step) / 1000.0);
	fleet_note_clock_step(p->fleet);
}

static void poller_done(sample_t *s, void *arg)
{
	struct prouter *r = arg;
	poller_t *p = r->p;
	r->in_flight = false;
	p->in_flight--;
	s->duration_ms = clock_mono_ms() - r->started_ms;
	r->fails = s->err == SAMPLE_OK ? 0 : r->fails + 1;
	poller_clock_check(p, s);
	sample_seal(s); /* its peers kept once, by the fleet's copy and the store alike */
	if (fleet_update(p->fleet, s) && p->once_out == NULL)
		poller_log_change(r, s);
	if (p->once_out) {
		poller_print_once(p, s);
		p->once_failed += s->err != SAMPLE_OK;
		if (--p->once_left == 0)
			loop_stop(p->loop);
	} else {
		poller_schedule(r);
	}
	p->sink.submit(p->sink.ctx, s);
	poller_dequeue(p);
}

static void poller_deliver_failed(void *arg)
{
	struct prouter *r = arg;
	sample_t *s = r->failed;
	r->failed = NULL;
	r->timer = 0;
	poller_done(s, r);
}

/* The second source's interfaces: those the first one returned, else the configured ones. */
static void poller_derive_conf(struct prouter *r, const sample_t *first)
{
	if (r->derived == NULL)
		r->derived = xcalloc(1, sizeof(*r->derived));
	free(r->derived->interfaces);
	*r->derived = *r->conf;
	if (first->nifaces == 0) {
		r->derived->interfaces = xcalloc(r->conf->ninterfaces + 1, sizeof(char *));
		for (size_t i = 0; i < r->conf->ninterfaces; i++)
			r->derived->interfaces[i] = r->conf->interfaces[i];
		return;
	}
	r->derived->interfaces = xcalloc(first->nifaces, sizeof(char *));
	r->derived->ninterfaces = first->nifaces;
	for (size_t i = 0; i < first->nifaces; i++)
		r->derived->interfaces[i] = first->ifaces[i].name; /* lives until the merge */
}

/* Moves *src into *dst when *dst is unknown. */
static void poller_take(char **dst, char **src)
{
	if (*dst == NULL) {
		*dst = *src;
		*src = NULL;
	}
}

static void poller_merge_ifaces(sample_t *into, sample_t *from)
{
	if (into->nifaces == 0) { /* the first source failed: the second's interfaces stand */
		sample_take_ifaces(into, from);
		return;
	}
	for (size_t i = 0; i < into->nifaces; i++) {
		struct sample_iface *a = &into->ifaces[i];
		for (size_t k = 0; k < from->nifaces; k++) {
			const struct sample_iface *b = &from->ifaces[k];
			if (strcmp(a->name, b->name) != 0)
				continue;
			a->rx_bytes = b->rx_bytes;
			a->tx_bytes = b->tx_bytes;
			a->rx_packets = b->rx_packets;
			a->tx_packets = b->tx_packets;
			a->rx_drops = b->rx_drops;
			a->tx_drops = b->tx_drops;
			break;
		}
	}
}

/* into (REST) keeps identity and peers; from (SNMP) gives CPU and interface counters. The
 * result fails when either source failed, with the first source's reason first. */
static void poller_merge(sample_t *into, sample_t *from)
{
	if (from->ncores > 0) {
		free(into->cores);
		into->cores = from->cores;
		into->ncores = from->ncores;
		from->cores = NULL;
		from->ncores = 0;
	}
	poller_merge_ifaces(into, from);
	poller_take(&into->version, &from->version);
	poller_take(&into->firmware, &from->firmware);
	poller_take(&into->upgrade_firmware, &from->upgrade_firmware);
	poller_take(&into->board, &from->board);
	if (into->uptime_ms < 0)
		into->uptime_ms = from->uptime_ms;
	if (into->cpu_freq_mhz == 0)
		into->cpu_freq_mhz = from->cpu_freq_mhz;
	if (from->err != SAMPLE_OK)
		sample_fail(into, from->err, "%s: %s", from->source, from->error ? from->error : "");
	into->source = "rest+snmp";
}

static void poller_done_second(sample_t *s, void *arg)
{
	struct prouter *r = arg;
	sample_t *merged = r->first;
	r->first = NULL;
	poller_merge(merged, s);
	sample_free(s);
	poller_done(merged, r);
}

/* The first source answered: hold its sample and poll the second with what it learnt. */
static void poller_done_first(sample_t *s, void *arg)
{
	struct prouter *r = arg;
	r->first = s;
	poller_derive_conf(r, s);
	if (r->second->poll(r->second->ctx, r->handle2, r->derived, poller_done_second, r) == 0)
		return;
	r->first = NULL;
	sample_fail(s, SAMPLE_ERR_INTERNAL, "could not start the %s poll", r->second->name);
	poller_done(s, r);
}

/* A router's late starts: the first is warned of, then every POLLER_LATE_EVERY-th with the
 * number not logged, and the first start on time again once. */
static void poller_note_late(struct prouter *r, bool late, int64_t delay)
{
	uint64_t held, n;
	char more[64] = "";
	if (!late) {
		if ((n = complain_release(&r->late)) > 0)
			log_info("router %s: polls start on time again after %" PRIu64 " late", r->conf->name,
				n);
		return;
	}
	if (!complain_note(&r->late, &held))
		return;
	if (held > 0)
		snprintf(more, sizeof(more), " (%" PRIu64 " more late polls not logged)", held);
	log_warn("router %s: poll started %" PRId64 " ms late; raise [daemon] max_in_flight or interval%s",
		r->conf->name, delay, more);
}

/* The grid's width for routers polled every interval_ms, of which there are `routers`: wide
 * enough that about POLLER_GRID_POLLS polls fall in one slot, at least POLLER_GRID_MS and a
 * 300th of the interval, and at most a tenth of it (16 ms for 1,000 routers at 1 s, 100 ms
 * for 100, 100 ms for 10,000 at 30 s). A slot holding one poll costs the loop a wake-up for each of
 * its requests and replies; polls that share one share those wake-ups. */
int64_t poller_grid_ms(int64_t interval_ms, size_t routers)
{
	int64_t g = interval_ms / POLLER_GRID_SHARE;
	if (routers > 0 && interval_ms * POLLER_GRID_POLLS / (int64_t)routers > g)
		g = interval_ms * POLLER_GRID_POLLS / (int64_t)routers;
	if (g < POLLER_GRID_MS)
		g = POLLER_GRID_MS;
	return g < interval_ms / 10 ? g : interval_ms / 10;
}

static int poller_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* How many of the n sorted values are below x. */
static size_t poller_below(const int64_t *v, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each router's grid, from how many routers share its interval (a sorted copy of them). */
static void poller_set_grids(poller_t *p)
{
	int64_t *iv = xcalloc(p->n + 1, sizeof(*iv));
	for (size_t i = 0; i < p->n; i++)
		iv[i] = p->routers[i].conf->interval_ms;
	qsort(iv, p->n, sizeof(*iv), poller_cmp_i64);
	for (size_t i = 0; i < p->n; i++) {
		struct prouter *r = &p->routers[i];
		int64_t x = r->conf->interval_ms;
		size_t same = poller_below(iv, p->n, x + 1) - poller_below(iv, p->n, x);
		r->grid_ms = poller_grid_ms(x, same);
	}
	free(iv);
}

/* Arms r's timer for its due time rounded down onto the grid (poller_grid_ms): the polls due
 * within one slot start together, so one wake-up of the loop serves them all, and their
 * requests and replies bunch up the same way. A poll so starts up to a slot early, never
 * late; the schedule itself (due_ms) does not move. */
static void poller_arm(struct prouter *r)
{
	int64_t g = r->grid_ms;
	int64_t at = g > 1 ? r->due_ms - (r->due_ms % g + g) % g : r->due_ms;
	r->timer = loop_at(r->p->loop, at, poller_due, r);
}

/* Start the poll now. Failures to start become a failed sample like any other. */
static void poller_start_poll(struct prouter *r)
{
	poller_t *p = r->p;
	r->started_ms = clock_mono_ms();
	if (p->once_out == NULL) { /* --once has no schedule to keep */
		int64_t delay = r->started_ms - r->due_ms;
		bool late = delay > r->conf->interval_ms;
		fleet_note_start(p->fleet, delay, late);
		poller_note_late(r, late, delay);
	}
	r->in_flight = true;
	p->in_flight++;
	collector_done_fn done = r->second ? poller_done_first : poller_done;
	if (r->collector && r->collector->poll(r->collector->ctx, r->handle, r->conf, done, r) == 0)
		return;
	sample_t *s = sample_new(r->conf->name, 0, r->collector ? r->collector->name : "none");
	sample_stamp(s);
	sample_fail(s, r->collector ? SAMPLE_ERR_INTERNAL : SAMPLE_ERR_UNSUPPORTED,
		r->collector ? "could not start the poll" : "no collector in this build polls this router");
	r->failed = s;
	r->timer = loop_after(p->loop, 0, poller_deliver_failed, r);
}

/* Next poll on the grid: due += interval (skipping missed slots, and more while down). */
static void poller_schedule(struct prouter *r)
{
	int64_t iv = r->conf->interval_ms;
	int64_t now = clock_mono_ms();
	unsigned skip = 1;
	if (r->fails > 1)
		skip = r->fails - 1 >= 4 ? POLLER_MAX_BACKOFF : 1u << (r->fails - 1);
	r->due_ms += iv * skip;
	if (r->due_ms <= now)
		r->due_ms += ((now - r->due_ms) / iv + 1) * iv;
	poller_arm(r);
}

void poller_start(poller_t *p)
{
	poller_bind_collectors(p);
	poller_set_grids(p);
	int64_t now = clock_mono_ms();
	for (size_t i = 0; i < p->n; i++) {
		struct prouter *r = &p->routers[i];
		if (!r->carried)
			r->due_ms = now + poller_phase(r->conf);
		poller_arm(r);
	}
}

static int poller_cmp_name(const void *a, const void *b)
{
	const struct prouter *x = *(struct prouter *const *)a, *y = *(struct prouter *const *)b;
	return strcmp(x->conf->name, y->conf->name);
}

static const struct prouter *poller_find(struct prouter *const *idx, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, idx[mid]->conf->name);
		if (c == 0)
			return idx[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Routers kept by a reload keep their grid (unless their interval changed) and back-off. A
 * poll in flight or waiting for a slot was due already: its due_ms makes it start at once. */
static void poller_carry(poller_t *p, const poller_t *old)
{
	struct prouter **idx = xcalloc(old->n + 1, sizeof(*idx));
	for (size_t i = 0; i < old->n; i++)
		idx[i] = &old->routers[i];
	qsort(idx, old->n, sizeof(*idx), poller_cmp_name);
	for (size_t i = 0; i < p->n; i++) {
		struct prouter *r = &p->routers[i];
		const struct prouter *was = poller_find(idx, old->n, r->conf->name);
		if (was == NULL)
			continue;
		r->fails = was->fails;
		r->late = was->late;
		if (was->conf->interval_ms != r->conf->interval_ms)
			continue; /* a new grid: start afresh within the new interval */
		r->due_ms = was->due_ms;
		r->carried = true;
	}
	free(idx);
}

/* Every collector drops its state of every router (in flight or idle) before the conf goes:
 * the new poller attaches afresh, so that changed settings apply. */
static void poller_forget(poller_t *p)
{
	for (size_t i = 0; i < p->n; i++) {
		poller_detach(&p->routers[i]);
		p->routers[i].in_flight = false;
	}
}

poller_t *poller_reload(poller_t *old, const conf_t *conf)
{
	poller_t *p = poller_create(old->loop, conf, old->fleet, old->sink);
	for (size_t c = 0; c < old->ncollectors; c++)
		poller_add_collector(p, old->collectors[c]);
	poller_carry(p, old);
	poller_forget(old);
	poller_destroy(old);
	poller_start(p);
	return p;
}

void poller_once(poller_t *p, FILE *out)
{
	poller_bind_collectors(p);
	p->once_out = out;
	p->once_left = p->n;
	int64_t now = clock_mono_ms();
	for (size_t i = 0; i < p->n; i++) {
		p->routers[i].due_ms = now;
		p->routers[i].timer = loop_at(p->loop, now, poller_due, &p->routers[i]);
	}
	if (p->n == 0)
		loop_stop(p->loop);
}

size_t poller_once_failed(const poller_t *p)
{
	return p->once_failed;
}
