/* sample: construction, copy and release of poll results. No I/O here. */
#include "config.h"
#include "sample.h"
#include "xmem.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const sample_err_names[SAMPLE_ERR_COUNT] = {
	[SAMPLE_OK] = "ok",
	[SAMPLE_ERR_TIMEOUT] = "timeout",
	[SAMPLE_ERR_CONNECT] = "connect",
	[SAMPLE_ERR_DNS] = "dns",
	[SAMPLE_ERR_TLS] = "tls",
	[SAMPLE_ERR_AUTH] = "auth",
	[SAMPLE_ERR_HTTP] = "http",
	[SAMPLE_ERR_PARSE] = "parse",
	[SAMPLE_ERR_SIZE] = "size",
	[SAMPLE_ERR_SNMP] = "snmp",
	[SAMPLE_ERR_UNSUPPORTED] = "unsupported",
	[SAMPLE_ERR_INTERNAL] = "internal",
};

const char *sample_err_name(enum sample_err err)
{
	if ((unsigned)err >= SAMPLE_ERR_COUNT)
		return "internal";
	return sample_err_names[err];
}

sample_t *sample_new(const char *router, int64_t time_ms, const char *source)
{
	sample_t *s = xcalloc(1, sizeof(*s));
	s->router = xstrdup(router);
	s->time_ms = time_ms;
	s->source = source;
	s->uptime_ms = -1;
	return s;
}

void sample_free(sample_t *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->nifaces; i++) {
		free(s->ifaces[i].name);
		free(s->ifaces[i].type);
	}
	for (size_t i = 0; i < s->npeers; i++) {
		free(s->peers[i].interface);
		free(s->peers[i].peer);
		free(s->peers[i].public_key);
	}
	free(s->ifaces);
	free(s->peers);
	free(s->cores);
	free(s->router);
	free(s->error);
	free(s->version);
	free(s->channel);
	free(s->firmware);
	free(s->upgrade_firmware);
	free(s->board);
	free(s->architecture);
	free(s->cpu_model);
	free(s);
}

sample_t *sample_dup(const sample_t *s)
{
	sample_t *d = xmalloc(sizeof(*d));
	*d = *s;
	d->router = xstrdup(s->router);
	d->error = xstrdup(s->error);
	d->version = xstrdup(s->version);
	d->channel = xstrdup(s->channel);
	d->firmware = xstrdup(s->firmware);
	d->upgrade_firmware = xstrdup(s->upgrade_firmware);
	d->board = xstrdup(s->board);
	d->architecture = xstrdup(s->architecture);
	d->cpu_model = xstrdup(s->cpu_model);
	d->cores = xcalloc(s->ncores, sizeof(*d->cores));
	if (s->ncores)
		memcpy(d->cores, s->cores, s->ncores * sizeof(*d->cores));
	d->ifaces = xcalloc(s->nifaces, sizeof(*d->ifaces));
	for (size_t i = 0; i < s->nifaces; i++) {
		d->ifaces[i] = s->ifaces[i];
		d->ifaces[i].name = xstrdup(s->ifaces[i].name);
		d->ifaces[i].type = xstrdup(s->ifaces[i].type);
	}
	d->peers = xcalloc(s->npeers, sizeof(*d->peers));
	for (size_t i = 0; i < s->npeers; i++) {
		d->peers[i] = s->peers[i];
		d->peers[i].interface = xstrdup(s->peers[i].interface);
		d->peers[i].peer = xstrdup(s->peers[i].peer);
		d->peers[i].public_key = xstrdup(s->peers[i].public_key);
	}
	return d;
}

void sample_fail(sample_t *s, enum sample_err err, const char *fmt, ...)
{
	if (s->err != SAMPLE_OK)
		return;
	va_list ap;
	va_start(ap, fmt);
	s->err = err;
	s->error = xvasprintf(fmt, ap);
	va_end(ap);
}

struct sample_iface *sample_add_iface(sample_t *s)
{
	s->ifaces = xreallocarray(s->ifaces, s->nifaces + 1, sizeof(*s->ifaces));
	struct sample_iface *f = &s->ifaces[s->nifaces++];
	memset(f, 0, sizeof(*f));
	return f;
}

struct sample_peer *sample_add_peer(sample_t *s)
{
	s->peers = xreallocarray(s->peers, s->npeers + 1, sizeof(*s->peers));
	struct sample_peer *p = &s->peers[s->npeers++];
	memset(p, 0, sizeof(*p));
	p->last_handshake_ms = -1;
	return p;
}

void sample_set_cores(sample_t *s, size_t n)
{
	free(s->cores);
	s->cores = xcalloc(n, sizeof(*s->cores));
	s->ncores = n;
	for (size_t i = 0; i < n; i++)
		s->cores[i].irq = NAN;
}
