# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of check_history.py with hand-made histories.

Run: cd node-agent/checker && python3 -m unittest -v test_check_history
"""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_history as ch  # noqa: E402

A = "0x1000"
B = "0x2000"


def op(kind, value, start, end, addr=A, node=0, thread=0):
    return {"node": node, "thread": thread, "op": kind, "addr": addr,
            "value": value, "start_ns": start, "end_ns": end}


def final(node, **kw):
    d = {"node": node, "final": True}
    d.update(kw)
    return d


class Base(unittest.TestCase):
    def run_check(self, recs, **kw):
        ops = [ch.Op(r, "t:%d" % i) for i, r in enumerate(recs)
               if not r.get("final")]
        finals = [(r["node"], r, "t:%d" % i) for i, r in enumerate(recs)
                  if r.get("final")]
        return ch.check(ops, finals, **kw)

    def kinds(self, recs, **kw):
        return sorted({k for k, _ in self.run_check(recs, **kw).violations})

    def assertPass(self, recs, **kw):
        res = self.run_check(recs, **kw)
        self.assertEqual(res.violations, [], res.violations)

    def assertFail(self, recs, kind, **kw):
        self.assertIn(kind, self.kinds(recs, **kw))


class Registers(Base):
    def test_sequential_ok(self):
        self.assertPass([op("read", 0, 0, 5), op("write", 1, 10, 20),
                         op("read", 1, 30, 40, node=1),
                         op("write", 2, 50, 60, node=2),
                         op("read", 2, 70, 80, node=3)])

    def test_concurrent_write_read_old(self):
        # the read overlaps the write: old value is fine
        self.assertPass([op("write", 1, 0, 10), op("write", 2, 20, 40),
                         op("read", 1, 25, 30, node=1)])

    def test_concurrent_write_read_new(self):
        # ... and so is the new one
        self.assertPass([op("write", 1, 0, 10), op("write", 2, 20, 40),
                         op("read", 2, 25, 30, node=1)])

    def test_concurrent_initial_value(self):
        self.assertPass([op("write", 7, 10, 40), op("read", 0, 20, 30,
                                                    node=1)])

    def test_read_of_write_starting_at_read_end_edge(self):
        # write starts before the read ends: concurrent, allowed
        self.assertPass([op("write", 5, 29, 50), op("read", 5, 10, 30,
                                                    node=1)])

    def test_overlapping_writes_either_order(self):
        # two overlapping writes, later reads may see either... but must agree
        # only per read; a single read of either is fine
        self.assertPass([op("write", 1, 0, 20), op("write", 2, 5, 25, node=1),
                         op("read", 1, 30, 40, node=2)])
        self.assertPass([op("write", 1, 0, 20), op("write", 2, 5, 25, node=1),
                         op("read", 2, 30, 40, node=2)])

    def test_stale_read_must_fail(self):
        # w1 then w2 complete, then a read returns w1's value
        self.assertFail([op("write", 1, 0, 10), op("write", 2, 20, 30,
                                                   node=1),
                         op("read", 1, 40, 50, node=2)], "stale_read")

    def test_stale_initial_must_fail(self):
        self.assertFail([op("write", 1, 0, 10), op("read", 0, 20, 30,
                                                   node=1)], "stale_read")

    def test_value_never_written_must_fail(self):
        self.assertFail([op("write", 1, 0, 10), op("read", 99, 20, 30,
                                                   node=1)],
                        "value_never_written")

    def test_new_old_inversion_must_fail(self):
        # w2 is in progress; r1 sees its value, a later r2 sees the old one
        self.assertFail([op("write", 1, 0, 10), op("write", 2, 20, 100,
                                                   node=1),
                         op("read", 2, 30, 40, node=2),
                         op("read", 1, 50, 60, node=3)], "not_linearizable")

    def test_concurrent_reads_may_disagree(self):
        # two overlapping reads during the write may see old and new
        self.assertPass([op("write", 1, 0, 10), op("write", 2, 20, 100,
                                                   node=1),
                         op("read", 2, 30, 60, node=2),
                         op("read", 1, 40, 50, node=3)])

    def test_two_observed_values_overlap_must_fail(self):
        # value 1 is read after value 2 was read, and value 2 again after it
        self.assertFail([op("write", 1, 0, 10), op("write", 2, 5, 15, node=1),
                         op("read", 2, 20, 25, node=2),
                         op("read", 1, 30, 35, node=3),
                         op("read", 2, 40, 45, node=2)], "not_linearizable")

    def test_read_from_future_must_fail(self):
        self.assertFail([op("read", 3, 0, 10), op("write", 3, 20, 30,
                                                  node=1)], "from_future")

    def test_addresses_are_independent(self):
        self.assertPass([op("write", 1, 0, 10, addr=A),
                         op("write", 1, 20, 30, addr=B),
                         op("read", 1, 40, 50, addr=A)])
        self.assertFail([op("write", 1, 0, 10, addr=A),
                         op("write", 2, 20, 30, addr=A),
                         op("write", 1, 20, 30, addr=B),
                         op("read", 1, 40, 50, addr=A)], "stale_read")

    def test_skew_relaxes(self):
        recs = [op("write", 1, 0, 10), op("write", 2, 20, 30, node=1),
                op("read", 1, 35, 50, node=2)]
        self.assertFail(recs, "stale_read")
        self.assertPass(recs, skew=10)


class Counters(Base):
    def incrs(self, values, gap=10):
        out = []
        for i, v in enumerate(values):
            out.append(op("incr", v, i * gap, i * gap + 5, node=i % 4,
                          thread=i % 2))
        return out

    def test_exact_count_ok(self):
        self.assertPass(self.incrs([1, 2, 3, 4, 5]))

    def test_concurrent_incrs_any_order(self):
        self.assertPass([op("incr", 2, 0, 50), op("incr", 1, 10, 20, node=1),
                         op("incr", 3, 60, 70, node=2)])

    def test_lost_update_must_fail(self):
        # two incrs both saw 1 and wrote 2: value 3 is never reached
        recs = [op("incr", 1, 0, 5), op("incr", 2, 10, 30, node=1),
                op("incr", 2, 12, 32, node=2)]
        k = self.kinds(recs)
        self.assertIn("duplicate_incr", k)
        self.assertIn("lost_update", k)

    def test_gap_must_fail(self):
        self.assertFail(self.incrs([1, 2, 4]), "incr_out_of_range")
        self.assertFail(self.incrs([1, 2, 4]), "lost_update")

    def test_realtime_order_must_fail(self):
        self.assertFail([op("incr", 2, 0, 5), op("incr", 1, 10, 15, node=1)],
                        "realtime_order")

    def test_final_value(self):
        recs = self.incrs([1, 2, 3])
        self.assertPass(recs + [final(0, counters={A: 3})])
        self.assertFail(recs + [final(0, counters={A: 2})], "final_value")
        self.assertPass(recs + [final(1, addr=A, value=3)])
        self.assertPass(recs + [final(2, counters=[{"addr": A, "value": 3}])])

    def test_counter_reads(self):
        recs = self.incrs([1, 2, 3])
        self.assertPass(recs + [op("read", 3, 100, 110, node=3)])
        self.assertFail(recs + [op("read", 1, 100, 110, node=3)],
                        "stale_read")

    def test_expect_nodes(self):
        recs = self.incrs([1, 2]) + [final(0), final(1)]
        self.assertPass(recs, expect_nodes=2)
        self.assertFail(recs, "missing_final", expect_nodes=3)


class Cli(unittest.TestCase):
    def write(self, d, name, recs):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            for r in recs:
                f.write(json.dumps(r) + "\n")
        return p

    def run_main(self, args):
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = ch.main(args)
        return rc, buf.getvalue()

    def test_pass_and_fail_exit_codes(self):
        with tempfile.TemporaryDirectory() as d:
            self.write(d, "h0.jsonl", [op("write", 1, 0, 10),
                                       op("incr", 1, 0, 5, addr=B),
                                       final(0)])
            self.write(d, "h1.jsonl", [op("read", 1, 20, 30, node=1),
                                       op("incr", 2, 10, 15, addr=B, node=1),
                                       final(1, counters={B: 2})])
            rc, out = self.run_main([d, "--expect-nodes", "2"])
            self.assertEqual(rc, 0, out)
            self.assertIn("PASS", out)
            self.write(d, "h2.jsonl", [op("write", 2, 12, 14, node=2),
                                       op("read", 1, 40, 50, node=2),
                                       final(2)])
            rc, out = self.run_main([d])
            self.assertEqual(rc, 1, out)
            self.assertIn("VIOLATION stale_read", out)

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "bad.jsonl")
            with open(p, "w") as f:
                f.write("{not json\n")
            rc, _ = self.run_main([p])
            self.assertEqual(rc, 2)
            self.write(d, "bad.jsonl", [{"node": 0, "op": "read"}])
            rc, _ = self.run_main([p])
            self.assertEqual(rc, 2)

    def test_hex_and_string_values(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.write(d, "h.jsonl", [
                {"node": 0, "thread": 0, "op": "write", "addr": "0x10",
                 "value": "0x2a", "start_ns": 0, "end_ns": 1},
                {"node": 1, "thread": 0, "op": "read", "addr": 16,
                 "value": 42, "start_ns": 2, "end_ns": 3}])
            rc, out = self.run_main([p])
            self.assertEqual(rc, 0, out)


class Scale(Base):
    def test_large_history_is_fast(self):
        # 4 nodes x 2 threads x 5000 sequential incrs + reads on one counter
        recs, t = [], 0
        for v in range(1, 40001):
            recs.append(op("incr", v, t, t + 3, node=v % 4, thread=v % 2))
            recs.append(op("read", v, t + 4, t + 6, node=(v + 1) % 4))
            t += 10
        self.assertPass(recs)


if __name__ == "__main__":
    unittest.main()
