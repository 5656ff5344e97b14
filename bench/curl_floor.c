/* SPDX-License-Identifier: Apache-2.0 */
/* curl_floor: the least a libcurl-multi poller can spend on wgwatchd's steady REST poll, for
 * bench/run's comparisons (bench/README.md). It polls the routers of a wgwatch-sim config with
 * the daemon's four requests a poll on one keep-alive connection each, started on the daemon's
 * grid, with its per-request economies (URLs parsed once, the Authorization header built
 * once), and drops the replies (or, with -p, only parses them as wgwatchd's jsonr does): no
 * decoding, no store, no web server. It prints CPU per poll; it must never be read as what
 * wgwatchd could do with less code, only as the part of a poll that libcurl and the kernel take
 * in any such poller. With -j ROUNDS it then parses the first router's last four replies, as
 * recorded, with jsonr, ROUNDS rounds (issue 42; jansson's side of that comparison went with
 * jansson, its figures stay in docs/benchmarks.md). */
#include "config.h"
#include "collectors/resthdr.h"
#include "lib/jsonr.h"
#include "lib/buf.h"

#include <curl/curl.h>

#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define FLOOR_STEPS 4

/* The steady poll's requests, as restreq.c asks them between peer detail polls. */
static const char *const floor_paths[FLOOR_STEPS] = {
	"/rest/system/resource?.proplist=uptime,version,board-name,architecture-name,cpu,"
	"cpu-frequency,free-memory,total-memory,free-hdd-space,total-hdd-space",
	"/rest/system/resource/cpu?.proplist=.id,cpu,load,irq",
	"/rest/interface?type=wg&.proplist=.id,name,type,running,disabled,rx-byte,tx-byte,rx-packet,"
	"tx-packet,rx-drop,tx-drop,tx-queue-drop,rx-error,tx-error,mtu,actual-mtu,link-downs",
	"/rest/interface/wireguard/peers?.proplist=.id,rx,tx,last-handshake",
};

struct floor_router {
	char *base, *user, *pass;
	CURL *easy;
	int step;
	int64_t due_ms;
	CURLU *url[FLOOR_STEPS]; /* parsed once, as wgwatchd's restreq.c keeps them */
	struct curl_slist *auth; /* User-Agent and Authorization, built once, as resthdr.c does */
	bool parse;
	buf_t body; /* with -p: the reply, parsed whole when it is done */
};

struct floor {
	CURLM *multi;
	int epfd;
	int64_t timer_ms; /* curl's next timeout, -1 none */
	struct floor_router *r;
	size_t n, next;
	long polls;
	bool parse;
	jsonr_t *doc;
	int json_rounds;        /* -j: rounds of the parse comparison, 0 none */
	int json_n;             /* -n: polls' replies parsed a round */
	buf_t rec[FLOOR_STEPS]; /* -j: the first router's last reply of each step */
};

static volatile sig_atomic_t floor_asked; /* SIGUSR1: print the polls done so far */

static void floor_on_usr1(int sig)
{
	(void)sig;
	floor_asked = 1;
}

static int64_t floor_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t floor_cpu_us(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (int64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
		ru.ru_stime.tv_usec;
}

static size_t floor_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct floor_router *r = arg;
	if (r->parse)
		buf_append(&r->body, data, size * nmemb);
	return size * nmemb;
}

static int floor_socket(CURL *e, curl_socket_t s, int what, void *arg, void *sockp)
{
	struct floor *f = arg;
	(void)e;
	struct epoll_event ev = { .data.fd = s };
	if (what == CURL_POLL_REMOVE) {
		epoll_ctl(f->epfd, EPOLL_CTL_DEL, s, NULL);
		curl_multi_assign(f->multi, s, NULL);
		return 0;
	}
	ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
	if (epoll_ctl(f->epfd, sockp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &ev) < 0 && errno == ENOENT)
		epoll_ctl(f->epfd, EPOLL_CTL_ADD, s, &ev);
	curl_multi_assign(f->multi, s, f);
	return 0;
}

static int floor_timer(CURLM *m, long ms, void *arg)
{
	struct floor *f = arg;
	(void)m;
	f->timer_ms = ms < 0 ? -1 : floor_now_ms() + ms;
	return 0;
}

static int floor_request(struct floor *f, struct floor_router *r)
{
	curl_easy_setopt(r->easy, CURLOPT_CURLU, r->url[r->step]);
	r->parse = f->parse || f->json_rounds > 0;
	buf_reset(&r->body);
	return curl_multi_add_handle(f->multi, r->easy) == CURLM_OK ? 0 : -1;
}

static void floor_done(struct floor *f)
{
	CURLMsg *msg;
	int left;
	while ((msg = curl_multi_info_read(f->multi, &left)) != NULL) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		struct floor_router *r;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
		curl_multi_remove_handle(f->multi, r->easy);
		if (msg->data.result != CURLE_OK) {
			fprintf(stderr, "curl_floor: %s: %s\n", r->base,
				curl_easy_strerror(msg->data.result));
			r->step = 0;
			continue;
		}
		if (f->json_rounds > 0 && r == f->r) {
			buf_reset(&f->rec[r->step]);
			buf_append(&f->rec[r->step], r->body.data, r->body.len);
		}
		if (f->parse && jsonr_parse(f->doc, r->body.data, r->body.len) == NULL)
			fprintf(stderr, "curl_floor: %s: a reply that is not JSON\n", r->base);
		if (++r->step < FLOOR_STEPS)
			floor_request(f, r);
		else {
			r->step = 0;
			f->polls++;
		}
	}
}

/* routers.conf as wgwatch-sim writes it: [router NAME], rest =, user =, password = lines. */
static int floor_read(struct floor *f, const char *path)
{
	FILE *in = fopen(path, "r");
	if (in == NULL) {
		fprintf(stderr, "curl_floor: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char line[1024], val[1024];
	size_t cap = 0;
	while (fgets(line, sizeof(line), in) != NULL) {
		if (strncmp(line, "[router ", 8) == 0) {
			if (f->n == cap) {
				cap = cap ? 2 * cap : 64;
				f->r = realloc(f->r, cap * sizeof(*f->r));
			}
			memset(&f->r[f->n++], 0, sizeof(*f->r));
			continue;
		}
		if (f->n == 0 || sscanf(line, "%*[a-z] = %1023[^\n]", val) != 1)
			continue;
		struct floor_router *r = &f->r[f->n - 1];
		if (strncmp(line, "rest ", 5) == 0)
			r->base = strdup(val);
		else if (strncmp(line, "user ", 5) == 0)
			r->user = strdup(val);
		else if (strncmp(line, "password ", 9) == 0)
			r->pass = strdup(val);
	}
	fclose(in);
	return f->n > 0 ? 0 : -1;
}

static void floor_setup(struct floor *f, int64_t iv)
{
	for (size_t i = 0; i < f->n; i++) {
		struct floor_router *r = &f->r[i];
		r->easy = curl_easy_init();
		curl_easy_setopt(r->easy, CURLOPT_PRIVATE, (char *)r);
		curl_easy_setopt(r->easy, CURLOPT_WRITEFUNCTION, floor_write);
		curl_easy_setopt(r->easy, CURLOPT_WRITEDATA, r);
		curl_easy_setopt(r->easy, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(r->easy, CURLOPT_NOPROXY, "*");
		curl_easy_setopt(r->easy, CURLOPT_FAILONERROR, 1L); /* a 401 is an error, not a poll */
		curl_easy_setopt(r->easy, CURLOPT_TIMEOUT_MS, 5000L);
		char line[800];
		char *basic = resthdr_basic(r->user, r->pass); /* wgwatchd's own header value */
		snprintf(line, sizeof(line), "Authorization: %s", basic);
		explicit_bzero(basic, strlen(basic));
		free(basic);
		r->auth = curl_slist_append(
			curl_slist_append(NULL, "User-Agent: " PACKAGE_NAME "/" PACKAGE_VERSION), line);
		curl_easy_setopt(r->easy, CURLOPT_HTTPHEADER, r->auth);
		for (int k = 0; k < FLOOR_STEPS; k++) {
			snprintf(line, sizeof(line), "%s%s", r->base, floor_paths[k]);
			r->url[k] = curl_url();
			curl_url_set(r->url[k], CURLUPART_URL, line, 0);
		}
		r->due_ms = floor_now_ms() + iv * (int64_t)i / (int64_t)f->n;
	}
}

/* wgwatchd's grid (daemon/poller.c): about 16 polls a slot, at least 8 ms, at most iv / 10. */
static int64_t floor_grid(int64_t iv, size_t n)
{
	int64_t g = iv * 16 / (int64_t)n;
	g = g < iv / 300 ? iv / 300 : g;
	g = g < 8 ? 8 : g;
	return g > iv / 10 ? iv / 10 : g;
}

/* Routers are due in the order of the config, one interval apart each: a ring, next at f->next. */
static void floor_start_due(struct floor *f, int64_t now, int64_t grid, int64_t iv)
{
	for (;;) {
		struct floor_router *r = &f->r[f->next];
		if (r->due_ms - r->due_ms % grid > now)
			return;
		r->due_ms += iv;
		f->next = (f->next + 1) % f->n;
		if (r->step == 0) /* else the last poll is still running: skip this one */
			floor_request(f, r);
	}
}

static int64_t floor_next_slot(const struct floor *f, int64_t grid)
{
	int64_t at = f->r[f->next].due_ms;
	return at - at % grid;
}

static void floor_run(struct floor *f, int64_t iv, int64_t until_ms)
{
	int64_t grid = floor_grid(iv, f->n);
	int running;
	for (;;) {
		int64_t now = floor_now_ms();
		if (now >= until_ms)
			return;
		floor_start_due(f, now, grid, iv);
		if (f->timer_ms >= 0 && f->timer_ms <= now) { /* curl's timer is one-shot */
			f->timer_ms = -1;
			curl_multi_socket_action(f->multi, CURL_SOCKET_TIMEOUT, 0, &running);
			floor_done(f);
			continue;
		}
		int64_t wake = floor_next_slot(f, grid);
		if (f->timer_ms >= 0 && f->timer_ms < wake)
			wake = f->timer_ms;
		now = floor_now_ms();
		struct epoll_event ev[64];
		int k = epoll_wait(f->epfd, ev, 64, wake > now ? (int)(wake - now) : 0);
		if (floor_asked) {
			floor_asked = 0;
			printf("%ld\n", f->polls);
			fflush(stdout);
		}
		for (int i = 0; i < k; i++) {
			int bits = (ev[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
				(ev[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
				(ev[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
			curl_multi_socket_action(f->multi, ev[i].data.fd, bits, &running);
		}
		floor_done(f);
	}
}

/* One poll's four recorded replies parsed n times by jsonr (the daemon's parser and its tree);
 * ns a poll. */
static double floor_json_time(struct floor *f, int n)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < FLOOR_STEPS; k++)
			if (jsonr_parse(f->doc, f->rec[k].data, f->rec[k].len) == NULL)
				abort();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
}

static int floor_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void floor_json_print(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), floor_cmp_double);
	printf("  %-40s median %.2f us a poll (%.2f to %.2f)\n", what, v[n / 2] / 1000, v[0] / 1000,
		v[n - 1] / 1000);
}

/* -j: jsonr over the recorded replies, rounds times; the median and range of the rounds. */
static void floor_json(struct floor *f, int rounds)
{
	size_t bytes = 0;
	for (int k = 0; k < FLOOR_STEPS; k++) {
		if (f->rec[k].len == 0) {
			fprintf(stderr,
				"curl_floor -j: the first router answered no poll: nothing to parse\n");
			return;
		}
		bytes += f->rec[k].len;
	}
	if (f->doc == NULL)
		f->doc = jsonr_create();
	double *rj = calloc((size_t)rounds, sizeof(*rj));
	floor_json_time(f, 1 + f->json_n / 20); /* warm */
	for (int i = 0; i < rounds; i++)
		rj[i] = floor_json_time(f, f->json_n);
	printf("curl_floor -j: one poll's four replies (%zu bytes), %d times a round, %d rounds:\n", bytes,
		f->json_n, rounds);
	floor_json_print("jsonr_parse (the daemon's)", rj, rounds);
	free(rj);
}

int main(int argc, char **argv)
{
	struct floor f = { .timer_ms = -1, .json_n = 5000 };
	int64_t iv = 1000, warm = 5, window = 20;
	int opt;
	while ((opt = getopt(argc, argv, "i:w:W:pj:n:")) != -1) {
		switch (opt) {
		case 'i': iv = strtoll(optarg, NULL, 10); break;
		case 'w': warm = strtoll(optarg, NULL, 10); break;
		case 'W': window = strtoll(optarg, NULL, 10); break;
		case 'p': f.parse = true; break;
		case 'j': f.json_rounds = atoi(optarg); break;
		case 'n': f.json_n = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (f.parse)
		f.doc = jsonr_create();
	if (optind != argc - 1 || iv < 10 || f.json_n < 1) {
usage:
		fprintf(stderr,
			"usage: curl_floor [-i INTERVAL_MS] [-w WARMUP_S] [-W WINDOW_S|0] [-p] [-j ROUNDS [-n N]] "
			"ROUTERS.CONF\n");
		return 2;
	}
	if (floor_read(&f, argv[optind]) < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		return 1;
	f.multi = curl_multi_init();
	f.epfd = epoll_create1(EPOLL_CLOEXEC);
	curl_multi_setopt(f.multi, CURLMOPT_SOCKETFUNCTION, floor_socket);
	curl_multi_setopt(f.multi, CURLMOPT_SOCKETDATA, &f);
	curl_multi_setopt(f.multi, CURLMOPT_TIMERFUNCTION, floor_timer);
	curl_multi_setopt(f.multi, CURLMOPT_TIMERDATA, &f);
	curl_multi_setopt(f.multi, CURLMOPT_MAXCONNECTS, (long)f.n);
	floor_setup(&f, iv);
	if (window == 0) { /* polls until killed; SIGUSR1 prints the count (bench/collectdbench.py) */
		struct sigaction sa = { .sa_handler = floor_on_usr1 }; /* no SA_RESTART: epoll_wait returns */
		sigaction(SIGUSR1, &sa, NULL);
		printf("polling %zu routers\n", f.n); /* the handler is in place: ask away */
		fflush(stdout);
		floor_run(&f, iv, INT64_MAX);
	}
	floor_run(&f, iv, floor_now_ms() + warm * 1000);
	long p0 = f.polls;
	int64_t c0 = floor_cpu_us(), t0 = floor_now_ms();
	floor_run(&f, iv, t0 + window * 1000);
	int64_t c1 = floor_cpu_us(), t1 = floor_now_ms();
	long p = f.polls - p0;
	printf("curl_floor%s: %zu routers every %" PRId64 " ms: %ld polls in %.1f s (%.0f%% of asked), "
	       "%.0f us of CPU a poll\n",
		f.parse ? " -p" : "", f.n, iv, p, (t1 - t0) / 1000.0,
		100.0 * p * iv / ((double)(t1 - t0) * (double)f.n), p ? (double)(c1 - c0) / p : 0.0);
	if (f.json_rounds > 0)
		floor_json(&f, f.json_rounds);
	return 0;
}
