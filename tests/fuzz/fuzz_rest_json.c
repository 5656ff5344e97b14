/* SPDX-License-Identifier: Apache-2.0 */
/* fuzz_rest_json: libFuzzer harness for the RouterOS REST reply decoders (collectors/restdecode.c,
 * linked from the library). The input is fed as the 2xx body of every endpoint (route checks
 * included), as an error body, and as a peers reply with and without the details restpeers
 * keeps, and as a /tool/profile and a /tool/bandwidth-test reply (restdiag.c, on the same
 * parser); an error text must stay printable ASCII, a decoded sample within its ranges.
 * Never opens a socket: restdecode has no transport. */
#undef NDEBUG
#include "collectors/restdecode.h"
#include "collectors/restdiag.h"
#include "collectors/restpeers.h"
#include "lib/xmem.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Untrusted bytes reach error lines only through restdecode_clean. */
static void fuzz_printable(const char *s)
{
	assert(s != NULL);
	for (; *s; s++)
		assert(*s >= 0x20 && *s < 0x7f);
}

static void fuzz_check_sample(enum restdecode_step step, const sample_t *s)
{
	switch (step) {
	case RESTDECODE_RESOURCE: assert(s->version != NULL && s->board != NULL && s->uptime_ms >= 0); break;
	case RESTDECODE_CPU:
		assert(s->ncores > 0);
		for (size_t i = 0; i < s->ncores; i++)
			assert(s->cores[i].load >= 0.0 && s->cores[i].load <= 1.0);
		break;
	case RESTDECODE_IFACES:
		for (size_t i = 0; i < s->nifaces; i++)
			assert(s->ifaces[i].name != NULL && s->ifaces[i].type != NULL);
		break;
	case RESTDECODE_PEERS:
		assert(s->have_peers);
		for (size_t i = 0; i < s->npeers; i++)
			assert(s->peers[i].peer != NULL && s->peers[i].public_key != NULL &&
				s->peers[i].last_handshake_ms >= -1);
		break;
	default: break;
	}
}

static void fuzz_step(enum restdecode_step step, const char *body, size_t len)
{
	sample_t *s = sample_new("fuzz", 0, "rest");
	char *cause = NULL;
	if (restdecode_reply(step, body, len, s, &cause) < 0) {
		fuzz_printable(cause);
		free(cause);
	} else {
		assert(cause == NULL);
		fuzz_check_sample(step, s);
	}
	sample_free(s);
}

/* body as the details' reply, then as the counters' (restpeers.h): whatever the rows, a
 * counters-only sample is whole or holds no peers. */
static void fuzz_peers_kept(const char *body, size_t len)
{
	static char name[] = "fuzz";
	conf_router_t rc = { .name = name, .peer_details_every = 10 };
	restpeers_t *k = restpeers_create();
	for (int i = 0; i < 2; i++) {
		sample_t *s = sample_new("fuzz", 0, "rest");
		char *cause = NULL;
		restpeers_plan(k, &rc, s);
		assert(i == 1 || restpeers_full(k));
		int rc2 = restpeers_decode(k, body, len, s, &cause);
		if (rc2 < 0)
			fuzz_printable(cause);
		else if (rc2 == 0)
			fuzz_check_sample(RESTDECODE_PEERS, s);
		else
			assert(s->npeers == 0);
		free(cause);
		sample_free(s);
	}
	restpeers_destroy(k);
}

/* body as a profile reply and as a bandwidth-test reply of each direction. */
static void fuzz_diag(const char *body, size_t len)
{
	profile_t *pf = profile_new("fuzz", 0);
	char *cause = NULL;
	if (restdiag_decode_profile(body, len, pf, &cause) < 0)
		fuzz_printable(cause);
	free(cause);
	profile_free(pf);
	probe_t *p[2] = { probe_new("fuzz", 0, "transmit"),
		len % 2 ? probe_new("fuzz", 0, "receive") : NULL };
	cause = NULL;
	if (restdiag_decode_probe(body, len, p, &cause) != 0)
		fuzz_printable(cause);
	free(cause);
	probe_free(p[0]);
	probe_free(p[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The transport hands over a NUL-terminated buf_t with its length. */
	char *body = xmalloc(size + 1);
	memcpy(body, data, size);
	body[size] = '\0';
	for (int step = 0; step < RESTDECODE_NSTEPS; step++)
		fuzz_step((enum restdecode_step)step, body, size);
	fuzz_peers_kept(body, size);
	fuzz_diag(body, size);
	char *why = restdecode_http_reason(size % 2 ? 401 : 500, body, size);
	fuzz_printable(why);
	free(why);
	char *iface = NULL;
	why = NULL;
	if (restdecode_route(body, size, &iface, &why) == 0)
		assert(iface != NULL && iface[0] != '\0' && why == NULL);
	else
		fuzz_printable(why);
	free(iface);
	free(why);
	free(body);
	return 0;
}
