/* SPDX-License-Identifier: Apache-2.0 */
/* listen: the listener's address as the config gives it, "A.B.C.D:PORT" or "[IPV6]:PORT" with
 * a numeric address (no name is looked up: the start never waits on DNS), and whether this
 * host has that address. One parser for the config check and the listener, so that --check
 * refuses exactly what the start would. It never keeps a socket open. */
#ifndef WGWATCH_LISTEN_H
#define WGWATCH_LISTEN_H

#include <sys/socket.h>

/* 0 and the address in *ss (*len its size), port 0..65535; -1 when spec is not of that form. */
int listen_parse(const char *spec, struct sockaddr_storage *ss, socklen_t *len);
/* 0 when a TCP socket can be bound to ss's address (on an ephemeral port, so that a daemon
 * already listening on ss's port does not count against it); else -1 with *cause. */
int listen_bindable(const struct sockaddr_storage *ss, socklen_t len, char **cause);

#endif
