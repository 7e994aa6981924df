#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Send malformed LCF datagrams (random bytes, truncated headers, headers
that fail validation) to a node-agent's or swswitch's LCF UDP port, at a
bounded rate for a bounded count. Run inside a node's network namespace
(scripts/cluster.sh exec N) while a cluster serves a workload;
scripts/test-e2e.sh then checks that the target kept serving and counted
every datagram that reached it in its `rx_bad` statistic.

Every class below fails node-agent's receive validation (udp_valid():
lcf_msg_validate() plus the node's own types), so none of them can reach an
agent: none is a well-formed message with forged contents.

  python3 lcf_garbage.py --dst 10.0.0.2 [--port 7340] [--count 2000]
                         [--rate 2000] [--seed 1] [--json OUT]

Prints (and with --json writes) the number sent per class.

  python3 lcf_garbage.py --verify DIR --node N

checks a finished run's artifacts (scripts/test-e2e.sh): DIR/garbage-switch.
json (sent through the switch), DIR/garbage-node.json (sent to node N from
its own namespace), DIR/swswitch.json and DIR/na-N.json: swswitch must have
dropped at least as many malformed frames as were sent through it, and node
N's rx_bad must equal the number sent to it. Exit 0 when both hold.
"""

import argparse
import json
import random
import socket
import struct
import sys
import time

LCF_HDR_LEN = 32
LCF_VERSION = 1
LCF_F_MASK = 0x07
NODE_TYPES = (0x20, 0x7f)


def header(rng, **kw):
    """A valid-looking LCF header (docs/PROTOCOL.md 2.1) with overrides."""
    f = dict(version=LCF_VERSION, type=rng.choice([1, 2, 3, 6, 7, 0x21]),
             flags=0, gstatus=rng.randrange(3), node=rng.randrange(4),
             thread=rng.randrange(2), seq=rng.getrandbits(32),
             copyset=rng.getrandbits(4), tag=rng.getrandbits(40) << 6,
             dst=rng.randrange(4), len=0, aux=0)
    f.update(kw)
    return struct.pack(">BBBBHHIIQHHI", f["version"], f["type"], f["flags"],
                       f["gstatus"], f["node"], f["thread"], f["seq"],
                       f["copyset"], f["tag"], f["dst"], f["len"], f["aux"])


def bad_type(rng):
    return rng.choice([0, 0x0e, 0x0f, 0x18, 0x1f, 0x80, 0xff])


# Each class: name -> function(rng) returning one datagram.
CLASSES = {
    "empty": lambda rng: b"",
    "random_short": lambda rng: rng.randbytes(rng.randrange(1, LCF_HDR_LEN)),
    # random bytes of any size; the first byte is never the version
    "random": lambda rng: bytes([rng.choice([0, 2, 0x45, 0xff])]) +
    rng.randbytes(rng.randrange(LCF_HDR_LEN, 1400)),
    "truncated_header": lambda rng: header(rng)[:rng.randrange(1,
                                                               LCF_HDR_LEN)],
    "bad_version": lambda rng: header(rng, version=rng.choice([0, 2, 0xff])),
    "unknown_type": lambda rng: header(rng, type=bad_type(rng)),
    "len_too_long": lambda rng: header(rng, len=rng.randrange(1, 4096)),
    "len_too_short": lambda rng: header(rng, len=0) +
    rng.randbytes(rng.randrange(1, 64)),
    "payload_truncated": lambda rng: header(rng, type=0x22, len=64) +
    rng.randbytes(rng.randrange(0, 64)),
    "bad_flags": lambda rng: header(rng, flags=rng.randrange(LCF_F_MASK + 1,
                                                            256)),
    "bad_gstatus": lambda rng: header(rng, gstatus=rng.randrange(3, 256)),
    "node_range": lambda rng: header(rng, node=rng.randrange(32, 0x10000)),
}


def verify(d, node):
    with open(d + "/garbage-switch.json") as f:
        sw_sent = json.load(f)["sent"]
    with open(d + "/garbage-node.json") as f:
        na_sent = json.load(f)["sent"]
    with open(d + "/swswitch.json") as f:
        sw = json.load(f)
    with open("%s/na-%s.json" % (d, node)) as f:
        rx_bad = json.load(f)["rx_bad"]
    sw_drops = sum(v for k, v in sw["drops"].items() if k != "none")
    print("swswitch dropped %d malformed frames (%d sent through it); node %s "
          "counted rx_bad %d (%d sent to it)" % (sw_drops, sw_sent, node,
                                                 rx_bad, na_sent))
    return 0 if sw_sent and na_sent and sw_drops >= sw_sent and \
        rx_bad == na_sent else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dst", help="target IPv4 address")
    ap.add_argument("--verify", metavar="DIR",
                    help="check a run's artifacts instead of sending")
    ap.add_argument("--node", help="with --verify: the node sent to")
    ap.add_argument("--port", type=int, default=7340)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--rate", type=float, default=2000,
                    help="datagrams per second (bounded)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the per-class counts here")
    a = ap.parse_args()
    if a.verify:
        return verify(a.verify, a.node)
    if not a.dst:
        ap.error("--dst or --verify is required")

    rng = random.Random(a.seed)
    names = sorted(CLASSES)
    sent = dict.fromkeys(names, 0)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0 = time.monotonic()
    for i in range(a.count):
        name = names[i % len(names)]
        dgram = CLASSES[name](rng)
        try:
            s.sendto(dgram, (a.dst, a.port))
            sent[name] += 1
        except OSError as e:
            print("lcf_garbage: %s: %s" % (name, e), file=sys.stderr)
        delay = t0 + (i + 1) / a.rate - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    out = {"dst": a.dst, "port": a.port, "sent": sum(sent.values()),
           "by_class": sent}
    print(json.dumps(out))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
