#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Read the switch's view of the blocks the home agents gave it.

  migration_owners.py RUNTIME_DIR na-0.json na-1.json ...
  migration_owners.py --scan RUNTIME_DIR

RUNTIME_DIR is swswitch's DPDK runtime directory (/var/run/dpdk/PREFIX),
which holds the telemetry socket (docs/SWSWITCH.md, Telemetry). For every
tag in the nodes' migration.switch_owned_blocks it asks /swswitch/block,
and /swswitch/occupancy for the total. Prints one JSON object:
{"switch_blocks": N, "claimed": [tags], "missing": [tags not in the
switch], "locked": [tags whose LOCK is not 0]}. scripts/test-migration.sh
checks it (one owner per block, no lock left behind). With --scan (when a
run hangs): the switch blocks among the first 64 of nodes 0-3, with their
LOCK, and every requester's registers. Standard library only.
"""
import json
import os
import socket
import sys


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(5)
    s.connect(path)
    hello = json.loads(s.recv(16384).decode())
    return s, hello.get("max_output_len", 16384)


def query(s, size, cmd):
    s.send(cmd.encode())
    reply = json.loads(s.recv(size).decode())
    return reply.get(cmd.split(",", 1)[0])


def scan(sock, size, nodes, blocks, threads):
    """A hang's picture: the locked blocks among the first `blocks` of each
    node, and every requester's scoreboard and LAST-UNLOCK."""
    out = {"occupancy": query(sock, size, "/swswitch/occupancy"),
           "blocks": [], "requesters": []}
    for n in range(nodes):
        for i in range(blocks):
            b = query(sock, size, "/swswitch/block,%#x" % (n << 36 | i))
            if b and "error" not in b:
                out["blocks"].append(b)
        for t in range(threads):
            out["requesters"].append(query(sock, size, "/swswitch/requester,%d,%d"
                                           % (n, t)))
    print(json.dumps(out, indent=1))


def main():
    if sys.argv[1] == "--scan":
        sock, size = connect(os.path.join(sys.argv[2], "dpdk_telemetry.v2"))
        scan(sock, size, 4, 64, 2)
        return
    sock, size = connect(os.path.join(sys.argv[1], "dpdk_telemetry.v2"))
    claimed = []
    for f in sys.argv[2:]:
        j = json.load(open(f))
        for idx in j["migration"]["switch_owned_blocks"]:
            claimed.append(j["node"] << 36 | idx)   # block_size 4096
    occ = query(sock, size, "/swswitch/occupancy")
    missing, locked = [], []
    for t in claimed:
        b = query(sock, size, "/swswitch/block,%#x" % t)
        if not b or "error" in b:
            missing.append("%#x" % t)
        elif b.get("lock"):
            locked.append("%#x:%#x" % (t, b["lock"]))
    print(json.dumps({"switch_blocks": occ["blocks"], "claimed":
                      ["%#x" % t for t in claimed], "missing": missing,
                      "locked": locked}))


if __name__ == "__main__":
    main()
