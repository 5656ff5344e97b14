/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_http: libFuzzer harness for what web/http.c (included to reach its statics) and
 * web/metrics.c do with outside text: the request target (sent as "METHOD <input> HTTP/1.1" to
 * a real listener on 127.0.0.1, one connection per input), the listen address parser, and label
 * escaping / UTF-8 repair of router-supplied strings. A request left without reply aborts. */
#undef NDEBUG
#include "web/http.c"
#include "lib/listen.h"
#include "lib/text.h"

#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned fuzz_port;

/* A fleet of one router that has answered once, so that every route has something to show. */
static fleet_t *fuzz_fleet(conf_t *c)
{
	c->interval_ms = 30000;
	c->nrouters = 1;
	c->routers = xcalloc(1, sizeof(*c->routers));
	c->routers[0].name = xstrdup("r0");
	c->routers[0].interval_ms = 30000;
	fleet_t *f = fleet_create(c);
	sample_t *s = sample_new("r0", 1700000000000, "rest");
	s->version = xstrdup("7.22.3");
	s->board = xstrdup("RB5009\xff\"\n");
	sample_set_cores(s, 1);
	s->cores[0].load = 0.5;
	fleet_update(f, s);
	sample_free(s);
	return f;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static conf_t conf;
	static struct http_deps deps;
	http_t *h;
	char *cause = NULL;
	log_set_level(LOG_LVL_ERROR);
	deps = (struct http_deps){ .conf = &conf, .fleet = fuzz_fleet(&conf) };
	if (http_start("127.0.0.1:0", &deps, &h, &cause) < 0) {
		fprintf(stderr, "fuzz_http: %s\n", cause);
		exit(1);
	}
	fuzz_port = http_port(h); /* runs until exit */
	return 0;
}

static int fuzz_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)fuzz_port) };
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	/* Tens of thousands of connections a run leave the loopback's ports in TIME_WAIT: a port
	 * that is not free yet is a fault of the harness, not of the server, so try again; and so
	 * when libFuzzer's -timeout alarm (SIGALRM, no SA_RESTART) interrupts the connect. */
	for (int tries = 0;; tries++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert(fd >= 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			return fd;
		int e = errno;
		close(fd);
		if (e == EINTR && tries < 1000)
			continue;
		if (e != EADDRNOTAVAIL || tries >= 1000) {
			fprintf(stderr, "fuzz_http: connect to 127.0.0.1:%u: %s\n", fuzz_port, strerror(e));
			abort();
		}
		poll(NULL, 0, 10); /* a port frees as its TIME_WAIT ends */
	}
}

/* poll for fd readable until the monotonic end (ms), again when interrupted: poll's result. */
static int fuzz_wait_readable(int fd, int64_t end)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - clock_mono_ms();
		int r = poll(&p, 1, left > 0 ? (int)left : 0);
		if (r >= 0 || errno != EINTR || left <= 0)
			return r;
	}
}

/* Reads the whole reply. libmicrohttpd drops an idle connection after HTTP_TIMEOUT_S, so a
 * listener silent for longer is a hang, reported as a crash. libFuzzer's -timeout alarm
 * (SIGALRM, no SA_RESTART) interrupts poll and recv: that is no hang, so wait on until the
 * deadline. */
static void fuzz_read_all(int fd, buf_t *reply)
{
	char tmp[4096];
	for (;;) {
		int64_t end = clock_mono_ms() + (HTTP_TIMEOUT_S + 5) * 1000;
		int r = fuzz_wait_readable(fd, end);
		if (r != 1) {
			fprintf(stderr, "fuzz_http: no reply within %d s (poll: %s)\n", HTTP_TIMEOUT_S + 5,
				r < 0 ? strerror(errno) : "timed out");
			abort();
		}
		ssize_t n = recv(fd, tmp, sizeof(tmp), 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf_append(reply, tmp, (size_t)n);
	}
}

/* Our own replies (not libmicrohttpd's 400s) carry the security headers. */
static void fuzz_check_reply(const buf_t *reply)
{
	unsigned status = 0;
	if (reply->len == 0)
		return; /* libmicrohttpd may close on a request it cannot parse */
	assert(sscanf(reply->data, "HTTP/1.%*1d %3u ", &status) == 1);
	if (status == 200 || status == 404 || status == 405 || status == 503) {
		assert(strstr(reply->data, "\r\nX-Content-Type-Options: nosniff\r\n") != NULL);
		assert(strstr(reply->data, "\r\nContent-Security-Policy: ") != NULL);
	}
}

/* The first byte picks the method; the rest, CR and LF made blanks, is the request target. */
static void fuzz_request(const uint8_t *data, size_t size)
{
	static const char *const methods[] = { "GET", "HEAD", "POST", "OPTIONS" };
	buf_t req, reply;
	buf_init(&req);
	buf_init(&reply);
	buf_printf(&req, "%s ", methods[size ? data[0] % 4 : 0]);
	for (size_t i = 1; i < size; i++)
		buf_putc(&req, data[i] == '\r' || data[i] == '\n' ? ' ' : (char)data[i]);
	buf_puts(&req, " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
	int fd = fuzz_connect();
	for (size_t off = 0; off < req.len;) { /* a short write or EINTR: see fuzz_connect */
		ssize_t n = send(fd, req.data + off, req.len - off, MSG_NOSIGNAL);
		if (n < 0 && errno != EINTR)
			break; /* the server may close early on a request it refuses */
		off += n > 0 ? (size_t)n : 0;
	}
	shutdown(fd, SHUT_WR);
	fuzz_read_all(fd, &reply);
	close(fd);
	fuzz_check_reply(&reply);
	buf_free(&req);
	buf_free(&reply);
}

static void fuzz_listen(const char *s)
{
	struct sockaddr_storage ss;
	socklen_t len = 0;
	if (listen_parse(s, &ss, &len) < 0)
		return;
	assert(ss.ss_family == AF_INET ? len == sizeof(struct sockaddr_in)
				       : ss.ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6));
}

/* Length of the valid UTF-8 sequence (RFC 3629) at s (n bytes left), 0 when invalid. */
static size_t fuzz_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t k;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		k = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		k = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
	else if (c >= 0xF0 && c <= 0xF4)
		k = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
	else
		return 0;
	if (k > n || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < k; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return k;
}

static void fuzz_check_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = fuzz_utf8_len((const unsigned char *)s + i, n - i);
		assert(k > 0);
		i += k;
	}
}

/* A label value: valid UTF-8, no raw newline, every quote and backslash escaped. */
static void fuzz_escape(const char *s)
{
	buf_t b;
	buf_init(&b);
	text_put_label(&b, s);
	fuzz_check_utf8(b.data ? b.data : "", b.len);
	for (size_t i = 0; i < b.len; i++) {
		assert(b.data[i] != '\n' && b.data[i] != '"' && b.data[i] != '\0');
		if (b.data[i] == '\\')
			assert(++i < b.len && strchr("\\\"n", b.data[i]) != NULL);
	}
	buf_reset(&b);
	text_put_utf8(&b, s);
	fuzz_check_utf8(b.data ? b.data : "", b.len);
	buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	fuzz_listen(s);
	fuzz_escape(s);
	free(s);
	fuzz_request(data, size);
	return 0;
}
