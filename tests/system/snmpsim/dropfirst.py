# SPDX-License-Identifier: Apache-2.0
"""dropfirst.py LISTEN_ADDR UPSTREAM_ADDR:PORT PORTFILE: a UDP forwarder in front of an SNMP
agent that drops the first datagram it receives and forwards every other one (replies go back
to the sender). Binds a free port on LISTEN_ADDR, writes it to PORTFILE (tmp + rename) when
ready, and prints one line per datagram: "drop", "fwd" or "reply". Used by 061-snmpsim.sh to
show that snmp_retries resends a lost request."""
import os
import selectors
import socket
import sys

listen_addr, upstream, portfile = sys.argv[1], sys.argv[2], sys.argv[3]
up_host, up_port = upstream.rsplit(":", 1)
front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
front.bind((listen_addr, 0))
back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
back.bind(("127.0.0.1", 0))
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % front.getsockname()[1])
os.rename(portfile + ".tmp", portfile)

sel = selectors.DefaultSelector()
sel.register(front, selectors.EVENT_READ)
sel.register(back, selectors.EVENT_READ)
client = None
dropped = False
while True:
    for key, _ in sel.select():
        data, addr = key.fileobj.recvfrom(65535)
        if key.fileobj is front:
            if not dropped:
                dropped = True
                print("drop", flush=True)
                continue
            client = addr
            back.sendto(data, (up_host, int(up_port)))
            print("fwd", flush=True)
        elif client is not None:
            front.sendto(data, client)
            print("reply", flush=True)
