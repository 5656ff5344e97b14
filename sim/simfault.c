/* SPDX-License-Identifier: Apache-2.0 */
/* simfault: how the network faults shape a reply of wgwatch-sim's HTTP side: cut short
 * (truncate), dripped (slow, slowloris) or reset half way, from MHD content callbacks. It
 * never blocks and never sleeps: a drip not yet due parks the connection through simhttp. */
#include "config.h"
#include "sim/simhttp_int.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "lib/xmem.h"

#include <errno.h>
#include <math.h>
#include <microhttpd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define DRIP_BYTES 16
#define DRIP_EVERY 0.25 /* real seconds between drips: 64 bytes/s */
#define CB_BLOCK   4096 /* buffer of callback replies (truncate, slow) */

static ssize_t simfault_cut_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct req *r = cls;
	if (pos >= r->cut)
		return MHD_CONTENT_READER_END_WITH_ERROR;
	size_t n = r->cut - (size_t)pos < max ? r->cut - (size_t)pos : max;
	memcpy(buf, r->data + pos, n);
	return (ssize_t)n;
}

/* The slow and slowloris faults: the head at once, then drip_bytes of body every drip_every;
 * in between the connection sleeps suspended. */
static ssize_t simfault_drip_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct req *r = cls;
	simhttp_t *h = r->ho->h;
	double now = simhttp_real_now(h);
	if (now < r->next_drip) {
		simhttp_drip_sleep(h, r);
		return 0;
	}
	size_t n = r->len - (size_t)pos;
	if (n > max)
		n = max;
	if (n > r->drip_bytes)
		n = r->drip_bytes;
	memcpy(buf, r->data + pos, n);
	r->next_drip = now + r->drip_every;
	return (ssize_t)n;
}

/* The reset fault: half the body, then a TCP RST with no FIN before it. MHD would shut the
 * socket down (FIN) before closing it, so the connection is aborted here: SO_LINGER 0 and a
 * connect(AF_UNSPEC), which makes Linux send the RST and leaves MHD a dead but open fd. */
static ssize_t simfault_reset_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct req *r = cls;
	if (pos < r->cut)
		return simfault_cut_read(cls, pos, buf, max);
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(r->c, MHD_CONNECTION_INFO_CONNECTION_FD);
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr sa = { .sa_family = AF_UNSPEC };
	if (ci &&
		(setsockopt(ci->connect_fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0 ||
			connect(ci->connect_fd, &sa, sizeof(sa)) < 0))
		log_debug("reset fault: %s", strerror(errno));
	return MHD_CONTENT_READER_END_WITH_ERROR;
}

/* "Name: value\r\n" lines onto the response. */
static void simfault_add_headers(struct MHD_Response *resp, const char *lines)
{
	while (*lines) {
		const char *colon = strchr(lines, ':'), *eol = strstr(lines, "\r\n");
		if (!colon || !eol || colon > eol)
			return;
		char *name = xasprintf("%.*s", (int)(colon - lines), lines);
		const char *v = colon + 1 + strspn(colon + 1, " ");
		char *value = xasprintf("%.*s", (int)(eol - v), v);
		MHD_add_response_header(resp, name, value);
		free(name);
		free(value);
		lines = eol + 2;
	}
}

/* A reply the fault sends through a callback: dripped, cut short or reset half way. */
static struct MHD_Response *simfault_callback_response(struct req *r, struct simresp *rs, enum sc_fault f)
{
	static MHD_ContentReaderCallback const readers[] = {
		[SC_FAULT_TRUNCATE] = simfault_cut_read,
		[SC_FAULT_RESET] = simfault_reset_read,
		[SC_FAULT_SLOW] = simfault_drip_read,
		[SC_FAULT_SLOWLORIS] = simfault_drip_read,
	};
	r->len = rs->shared ? rs->shared_len : rs->body.len;
	r->data = rs->shared;
	if (!rs->shared) {
		buf_append(&r->out, rs->body.data ? rs->body.data : "", rs->body.len);
		r->data = r->out.data;
	}
	r->cut = r->len / 2;
	r->drip_bytes = f == SC_FAULT_SLOW ? DRIP_BYTES : 1;
	r->drip_every = f == SC_FAULT_SLOW ? DRIP_EVERY : simrouter_group(r->ho->r)->drip_every;
	r->next_drip = simhttp_real_now(r->ho->h) + r->drip_every;
	struct MHD_Response *resp = MHD_create_response_from_callback(r->len, CB_BLOCK, readers[f], r, NULL);
	if (resp && f == SC_FAULT_TRUNCATE)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	return resp;
}

static bool simfault_is_callback_fault(enum sc_fault f)
{
	return f == SC_FAULT_TRUNCATE || f == SC_FAULT_SLOW || f == SC_FAULT_SLOWLORIS || f == SC_FAULT_RESET;
}

/* The response for rs; the fault decides how it leaves (all at once, dripped, cut short). */
struct MHD_Response *simfault_response(struct req *r, struct simresp *rs, enum sc_fault f)
{
	struct MHD_Response *resp;
	if (simfault_is_callback_fault(f)) {
		resp = simfault_callback_response(r, rs, f);
	} else if (rs->shared) {
		resp = MHD_create_response_from_buffer(
			rs->shared_len, (void *)rs->shared, MHD_RESPMEM_PERSISTENT);
	} else {
		resp = MHD_create_response_from_buffer(rs->body.len, rs->body.data, MHD_RESPMEM_MUST_COPY);
	}
	if (resp) {
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type);
		simfault_add_headers(resp, rs->extra_headers);
	}
	return resp;
}
