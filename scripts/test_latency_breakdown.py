#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Self-test of scripts/latency_breakdown.py on hand-made traces: one
event's records in three processes (requester node 1, home node 0,
swswitch), cut into the parts they imply; a broken chain is not covered;
a malformed file is refused.

  python3 -m unittest scripts/test_latency_breakdown.py
"""

import os
import struct
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import latency_breakdown as lb  # noqa: E402

READ_MISS, NA_DATA, UNLOCK = 0x01, 0x22, 0x07


def rec(t, point, typ, at, peer=0xffff, aux=0, node=1, thread=0, seq=5):
    return lb.REC.pack(t, seq, node, thread, at, peer, lb.P[point], typ, 0,
                       aux)


def write(d, name, at, recs, every=1):
    with open(os.path.join(d, name), "wb") as f:
        f.write(lb.HDR.pack(b"LCFTRC1\0", 32, every, at, 0, len(recs), 0))
        for r in recs:
            f.write(r)


# Requester node 1 asks home node 0 through the switch; the home answers
# node to node. Times in ns.
REQ = [rec(1000, "ev_begin", READ_MISS, 1, peer=0, aux=1),
       rec(1100, "ev_send", READ_MISS, 1, peer=0),
       rec(9000, "rx", NA_DATA, 1),
       rec(9500, "wake", NA_DATA, 1),
       rec(9600, "ev_done", READ_MISS, 1)]
SW = [rec(3100, "sw_in", READ_MISS, 0xffff, peer=1),
      rec(3200, "sw_out", READ_MISS, 0xffff, peer=1)]
HOME = [rec(5200, "rx", READ_MISS, 0),
        rec(5300, "ag_in", READ_MISS, 0),
        rec(6000, "ag_out", NA_DATA, 0, peer=1)]


class Breakdown(unittest.TestCase):
    def run_dir(self, req, sw, home):
        with tempfile.TemporaryDirectory() as d:
            write(d, "trace-1.bin", 1, req)
            write(d, "trace-sw.bin", 0xffff, sw)
            write(d, "trace-0.bin", 0, home)
            an = lb.analyse(d)
            return an, lb.summary(an)

    def test_parts_add_up_along_the_critical_path(self):
        an, s = self.run_dir(REQ, SW, HOME)
        self.assertEqual(an["problems"], [])
        e = s["events"]["READ_MISS"]
        self.assertEqual(e["n"], 1)
        self.assertAlmostEqual(e["mean_us"], 8.6)
        want = {"req_pre": 0.1, "retransmit": 0.0, "net_to_sw": 2.0,
                "switch": 0.1, "net_from_sw": 2.0, "home_q": 0.1,
                "home_s": 0.7, "net_l2": 3.0, "req_q": 0.5,
                "req_collect": 0.1, "cache_q": 0.0, "cache_s": 0.0}
        self.assertEqual(e["parts_us"], want)
        self.assertEqual(e["hops"], 3)
        self.assertEqual(s["event_coverage"], 1.0)

    def test_a_missing_hop_is_not_covered(self):
        an, s = self.run_dir(REQ, SW, HOME[:2])  # no home send
        self.assertLess(s["event_coverage"], 0.2)

    def test_home_local_events_are_told_apart(self):
        req = [r for r in REQ]
        req[0] = rec(1000, "ev_begin", READ_MISS, 1, peer=1, aux=1)
        _, s = self.run_dir(req, SW, HOME)
        self.assertIn("READ_MISS@home", s["events"])

    def test_malformed_file_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "trace-0.bin"), "wb") as f:
                f.write(b"LCFTRC1\0" + struct.pack("<I", 32) + b"\0" * 8)
            an = lb.analyse(d)
        self.assertTrue(an["problems"])


if __name__ == "__main__":
    unittest.main()
