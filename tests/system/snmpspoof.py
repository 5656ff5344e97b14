#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""snmpspoof.py LISTEN_ADDR UPSTREAM_ADDR:PORT PORTFILE MODE: a UDP forwarder in front of an SNMP
agent (v1/v2c) that forges an answer to wgwatchd's scalar GET before forwarding it (issue 21,
item 2). It sees each request, so it knows the request ID and the objects asked: the worst
case of a neighbour on the path. The forgery says version 6.6.6, board PWNED.

  otherport  a Response with the request's ID, sent from another port of LISTEN_ADDR
  getpdu     a GET PDU (not a Response) with the request's ID and the forged values, sent from
             the agent's own address and port, as an off-path sender spoofing it could

Binds a free port on LISTEN_ADDR, writes it to PORTFILE (tmp + rename) when ready, and prints
one line per request, "req TAG ID" (TAG the PDU type in hex), and "forged ID" for each forgery.
The real reply is forwarded after the forgery, so the forgery always arrives first.
"""
import os
import selectors
import socket
import sys

VERSION = "1.3.6.1.4.1.14988.1.1.4.4.0"
FORGED = {
    "1.3.6.1.2.1.1.1.0": (0x04, b"RouterOS PWNED"),
    "1.3.6.1.2.1.1.3.0": (0x43, 4242),  # TimeTicks
    "1.3.6.1.2.1.25.1.1.0": (0x43, 4242),
    VERSION: (0x04, b"6.6.6"),
    "1.3.6.1.4.1.14988.1.1.7.4.0": (0x04, b"6.6.6"),
    "1.3.6.1.4.1.14988.1.1.7.7.0": (0x04, b"6.6.6"),
    "1.3.6.1.4.1.14988.1.1.7.9.0": (0x04, b"PWNED"),
    "1.3.6.1.2.1.47.1.1.1.1.2.65536": (0x04, b"RouterOS 6.6.6 (stable) on PWNED"),
}


def tlv(data, i):
    """(tag, value bytes, next index) of the BER element at i."""
    tag, n = data[i], data[i + 1]
    i += 2
    if n & 0x80:
        k = n & 0x7F
        n = int.from_bytes(data[i:i + k], "big")
        i += k
    return tag, data[i:i + n], i + n


def enc(tag, value):
    n = len(value)
    if n < 0x80:
        head = bytes([n])
    else:
        b = n.to_bytes((n.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(b)]) + b
    return bytes([tag]) + head + value


def enc_int(tag, v):
    return enc(tag, v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big", signed=True))


def oid_text(raw):
    parts = [raw[0] // 40, raw[0] % 40]
    v = 0
    for b in raw[1:]:
        v = (v << 7) | (b & 0x7F)
        if not b & 0x80:
            parts.append(v)
            v = 0
    return ".".join(map(str, parts))


def parse(msg):
    """(version, community, pdu tag, request id, [(oid raw, oid text)])."""
    _, body, _ = tlv(msg, 0)
    _, ver, i = tlv(body, 0)
    _, comm, i = tlv(body, i)
    tag, pdu, _ = tlv(body, i)
    _, reqid, j = tlv(pdu, 0)
    _, _, j = tlv(pdu, j)
    _, _, j = tlv(pdu, j)
    _, vbs, _ = tlv(pdu, j)
    names, k = [], 0
    while k < len(vbs):
        _, vb, k = tlv(vbs, k)
        _, raw, _ = tlv(vb, 0)
        names.append((raw, oid_text(raw)))
    return int.from_bytes(ver, "big"), comm, tag, int.from_bytes(reqid, "big", signed=True), names


def forge(ver, comm, tag, reqid, names):
    vbs = b""
    for raw, text in names:
        t, v = FORGED.get(text, (0x05, b""))
        val = enc_int(t, v) if isinstance(v, int) else enc(t, v)
        vbs += enc(0x30, enc(0x06, raw) + val)
    pdu = enc_int(0x02, reqid) + enc_int(0x02, 0) + enc_int(0x02, 0) + enc(0x30, vbs)
    return enc(0x30, enc_int(0x02, ver) + enc(0x04, comm) + enc(tag, pdu))


listen_addr, upstream, portfile, mode = sys.argv[1:5]
up_host, up_port = upstream.rsplit(":", 1)
front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
front.bind((listen_addr, 0))
other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
other.bind((listen_addr, 0))
back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
back.bind(("127.0.0.1", 0))
with open(portfile + ".tmp", "w") as f:
    f.write("%d\n" % front.getsockname()[1])
os.rename(portfile + ".tmp", portfile)

sel = selectors.DefaultSelector()
sel.register(front, selectors.EVENT_READ)
sel.register(back, selectors.EVENT_READ)
client = None
while True:
    for key, _ in sel.select():
        data, addr = key.fileobj.recvfrom(65535)
        if key.fileobj is back:
            if client is not None:
                front.sendto(data, client)
            continue
        client = addr
        try:
            ver, comm, tag, reqid, names = parse(data)
        except (IndexError, ValueError):
            back.sendto(data, (up_host, int(up_port)))
            continue
        print("req %x %d" % (tag, reqid), flush=True)
        if any(text == VERSION for _, text in names):
            if mode == "otherport":
                other.sendto(forge(ver, comm, 0xA2, reqid, names), addr)
            else:
                front.sendto(forge(ver, comm, 0xA0, reqid, names), addr)
            print("forged %d" % reqid, flush=True)
        back.sendto(data, (up_host, int(up_port)))
