/* SPDX-License-Identifier: Apache-2.0 */
/* httpconn: the HTTP listener's guard against clients that hold connections without asking
 * anything (slowloris). It follows every connection libmicrohttpd has open: one waiting for a
 * request head must complete it by a deadline, and when too many wait at once the one that
 * has waited longest is closed to make room, so quick requests (/healthz, /metrics) always find
 * a slot. It never closes a connection whose request is being answered. */
#ifndef WGWATCH_HTTPCONN_H
#define WGWATCH_HTTPCONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <microhttpd.h>

typedef struct httpconn httpconn_t;

/* Why a connection was closed by the guard: the label of the metric (web/metrics.c). */
enum httpconn_reason { HTTPCONN_DEADLINE, HTTPCONN_RESERVE, HTTPCONN_NREASONS };

/* head_ms: the time a new connection has to send its first request head; idle_ms: the time a
 * kept-alive connection has for its next one; max_waiting: connections waiting for a head at
 * once, beyond which the longest waiting is closed; max_per_ip: connections one client address
 * may hold (httpconn_admit). */
httpconn_t *httpconn_create(int64_t head_ms, int64_t idle_ms, size_t max_waiting, size_t max_per_ip);
/* For MHD_OPTION_ACCEPT_POLICY: whether the client at sa may open one more connection; when it
 * may, its slot is taken at once (the connection's start then fills it), so that libmicrohttpd's
 * workers, admitting at the same time, cannot both pass at the limit. A connection admitted that
 * libmicrohttpd then fails to set up (out of memory) keeps its slot. */
bool httpconn_admit(httpconn_t *g, const struct sockaddr *sa);
void httpconn_destroy(httpconn_t *g); /* after MHD_stop_daemon; NULL is fine */

/* MHD_OPTION_NOTIFY_CONNECTION's callback (cls: the guard). */
void httpconn_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
	enum MHD_ConnectionNotificationCode code);
/* MHD_OPTION_NOTIFY_COMPLETED's callback (cls: the guard): the connection waits for its next
 * request head from now. */
void httpconn_completed(
	void *cls, struct MHD_Connection *conn, void **req_cls, enum MHD_RequestTerminationCode toe);
/* From the access handler: conn's request head is complete; it no longer waits. */
void httpconn_began(httpconn_t *g, struct MHD_Connection *conn);

/* Close (shut down: libmicrohttpd then closes it) every connection past its deadline at
 * now_ms (monotonic). Returns how many. */
size_t httpconn_sweep(httpconn_t *g, int64_t now_ms);
/* Connections closed so far, by reason; open ones, and of those waiting for a head. */
void httpconn_counts(httpconn_t *g, uint64_t closed[HTTPCONN_NREASONS], size_t *open, size_t *waiting);

#endif
