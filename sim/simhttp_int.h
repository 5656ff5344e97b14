/* simhttp_int: what simhttp.c and simfault.c share (a router's daemon, one request); for
 * those two files only. */
#ifndef WGWATCH_SIMHTTP_INT_H
#define WGWATCH_SIMHTTP_INT_H

#include "sim/simhttp.h"
#include "sim/simrest.h"
#include "lib/buf.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum park { P_NONE, P_HANG, P_DRIP };

struct host {
	struct MHD_Daemon *d; /* NULL while refusing */
	simhttp_t *h;
	simrouter_t *r;
	uint32_t addr;
	bool dynamic;      /* its fault may switch to or from refuse */
	bool suspends;     /* may hang or drip: its daemon needs suspend/resume */
	bool tls;          /* serves HTTPS */
	size_t hidx;       /* in h->heap, or NO_HEAP */
	double due;        /* real time MHD wants to run without a socket event */
	unsigned long ran; /* h->pass of its last run */
};

/* One request (MHD's con_cls): from the URI callback to the completed notification. */
struct req {
	struct host *ho;
	struct MHD_Connection *c;
	char *target; /* as received: path?query */
	buf_t in;     /* request body */
	bool seen, dead;
	enum park park; /* suspended in h->hung or h->drips */
	struct req *prev, *next;
	int fd;    /* the socket, for hung requests */
	buf_t out; /* callback replies: the body (data points into it or shared) */
	const char *data;
	size_t len, cut;   /* cut: truncate and reset stop there */
	size_t drip_bytes; /* slow and slowloris: bytes a drip, every drip_every seconds */
	double next_drip, drip_every;
};

/* Real (monotonic) seconds since simhttp_create, to the nanosecond. */
double simhttp_real_now(const simhttp_t *h);
/* Suspend r until its next drip is due; the loop resumes it then. */
void simhttp_drip_sleep(simhttp_t *h, struct req *r);

/* The response for rs; fault f decides how it leaves (all at once, dripped, cut short). */
struct MHD_Response *simfault_response(struct req *r, struct simresp *rs, enum sc_fault f);
/* Whether fault f suspends the connection (hang, slow, slowloris). */
bool simfault_suspends(enum sc_fault f);

#endif
