/* SPDX-License-Identifier: Apache-2.0 */
/* simhttp_int: what simhttp.c, simfault.c and simhold.c share (a router's daemon, one
 * request); for those files only. */
#ifndef WGWATCH_SIMHTTP_INT_H
#define WGWATCH_SIMHTTP_INT_H

#include "sim/simhttp.h"
#include "sim/simq.h"
#include "sim/simrest.h"
#include "lib/buf.h"

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a request is suspended: a hang fault, between drips, holding a command's reply until
 * its duration is over, waiting for its user's earlier request (simq). */
enum park { P_NONE, P_HANG, P_DRIP, P_HOLD, P_QUEUE, P_PARKS };

struct host {
	struct MHD_Daemon *d; /* NULL while refusing */
	simhttp_t *h;
	simrouter_t *r;
	uint32_t addr;
	bool dynamic;      /* its fault may switch to or from refuse */
	bool tls;          /* serves HTTPS */
	size_t hidx;       /* in h->heap, or NO_HEAP */
	double due;        /* real time MHD wants to run without a socket event */
	unsigned long ran; /* h->pass of its last run */
	simq_t *q;         /* its users' turns, made at the first request that has a user */
	bool stopping;     /* its daemon is being stopped: no request is resumed */
};

/* One request (MHD's con_cls): from the URI callback to the completed notification. */
struct req {
	struct host *ho;
	struct MHD_Connection *c;
	char *target; /* as received: path?query */
	buf_t in;     /* request body */
	bool seen, dead;
	enum park park; /* suspended in h->parked[park] */
	struct req *prev, *next;
	int fd;    /* the socket, for hung requests */
	buf_t out; /* callback replies: the body (data points into it or shared) */
	const char *data;
	size_t len, cut;   /* cut: truncate and reset stop there */
	size_t drip_bytes; /* slow and slowloris: bytes a drip, every drip_every seconds */
	double next_drip, drip_every;
	int user;            /* simrest_user, when entered */
	bool entered;        /* in ho->q: running or waiting its turn */
	bool ready;          /* held holds the reply, sent at due */
	struct simresp held; /* a command's reply, held until due (real time) */
	double due;
};

/* Real (monotonic) seconds since simhttp_create, to the nanosecond. */
double simhttp_real_now(const simhttp_t *h);
/* Suspend r in h->parked[p] (MHD_suspend_connection). */
void simhttp_park(simhttp_t *h, struct req *r, enum park p);
/* Resume r; dead: it is closed when it runs. */
void simhttp_wake(simhttp_t *h, struct req *r, bool dead);
/* Suspend r until r->due; the loop resumes it then. */
void simhttp_hold_sleep(simhttp_t *h, struct req *r);
/* Suspend r until its next drip is due; the loop resumes it then. */
void simhttp_drip_sleep(simhttp_t *h, struct req *r);

/* The response for rs; fault f decides how it leaves (all at once, dripped, cut short). */
struct MHD_Response *simfault_response(struct req *r, struct simresp *rs, enum sc_fault f);

/* simhold.c: whether r may run now (its user has no request running); false: r waits, parked,
 * until simhold_release of its user's running request resumes it. */
bool simhold_take_turn(struct req *r);
/* r's turn is over (answered or gone): its user's next waiting request runs. Idempotent. */
void simhold_release(struct req *r);
/* Keep rs (its body too) in r until rs->hold real seconds after now, r suspended meanwhile. */
void simhold_keep(struct req *r, struct simresp *rs, double now);

#endif
