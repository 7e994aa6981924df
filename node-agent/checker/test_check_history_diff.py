# SPDX-License-Identifier: BSD-3-Clause
"""Differential test: check-history (the C build) against check_history.py
(the reference). Both run on the same files with the same options and must
give the same exit code and, when the history was read, the same output
(every VIOLATION line, the summary line, the --json object); on bad input
both exit 2 with a "check_history:" message.

Cases: every hand-made history of test_check_history.py (through its own
assertions, on the C's output), generated linearizable histories and each
with one injected violation (stale read, lost update, duplicate incr,
real-time order, unknown value, read from the future, wrong final value,
missing final line), options (--skew-ns, --expect-nodes, --min-ops,
--max-violations), malformed and unusual lines, and random one-byte edits.

Run: cd node-agent/checker && python3 -m unittest -v test_check_history_diff
The binary: $CHECK_HISTORY_BIN (required to exist when set; test.sh sets
it), else $BUILD or build/ under the repository; skipped when not built.
"""

import io
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_history as ch  # noqa: E402
import test_check_history as hand  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))


def _binary():
    b = os.environ.get("CHECK_HISTORY_BIN")
    if b:
        return b, True
    build = os.environ.get("BUILD", "build")
    if not os.path.isabs(build):
        build = os.path.join(REPO, build)
    return os.path.join(build, "node-agent", "checker", "check-history"), \
        False


BIN, REQUIRED = _binary()


def run_py(args):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = ch.main(args)
        except SystemExit as e:  # argparse
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def run_c(args):
    p = subprocess.run([BIN] + args, capture_output=True, text=True,
                       errors="replace")
    return p.returncode, p.stdout, p.stderr


class Diff(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(BIN, os.X_OK):
            if REQUIRED:
                raise AssertionError("CHECK_HISTORY_BIN=%s: not an "
                                     "executable" % BIN)
            raise unittest.SkipTest("%s not built" % BIN)

    def same(self, args, whole=True):
        """Runs both; asserts the same exit code and output. whole=False
        compares only the summary (last) line. Returns the C's result."""
        py, c = run_py(args), run_c(args)
        what = "check-history %s" % " ".join(args)
        self.assertEqual(py[0], c[0], "%s: exit %s (Python) vs %s (C)\n"
                         "Python: %s%s\nC: %s%s" % (what, py[0], c[0],
                                                    py[1][-600:], py[2],
                                                    c[1][-600:], c[2]))
        if c[0] == 2:
            self.assertEqual(c[1], "", what)
            self.assertTrue(c[2].startswith(("check_history:", "usage:")),
                            "%s: %s" % (what, c[2]))
        elif whole:
            self.assertEqual(py[1], c[1], what)
        else:
            self.assertEqual(py[1].splitlines()[-1:], c[1].splitlines()[-1:],
                             what)
        return c


def _write(path, recs):
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")


class _CResult:
    def __init__(self, out):
        self.violations = []
        for line in out.splitlines():
            if line.startswith("VIOLATION "):
                kind, msg = line[len("VIOLATION "):].split(": ", 1)
                self.violations.append((kind, msg))


class HandMade(Diff):
    """test_check_history.py's cases through both checkers' command lines;
    its assertions then judge the C's violations."""

    def run_check(self, recs, skew=0, expect_nodes=None):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.jsonl")
            _write(p, recs)
            args = [p, "--max-violations", "0", "--skew-ns", str(skew)]
            if expect_nodes is not None:
                args += ["--expect-nodes", str(expect_nodes)]
            self.same(args + ["--json"])
            return _CResult(self.same(args)[1])


class DiffRegisters(HandMade, hand.Registers):
    pass


class DiffCounters(HandMade, hand.Counters):
    pass


class DiffCli(Diff, hand.Cli):
    def run_main(self, args):
        rc, out, _ = self.same(args)
        return rc, out


def generate(rng, nodes=3, threads=2, ops=300, regs=3, ctrs=2):
    """A linearizable history: each thread's ops one after the other, each
    op taking effect at a random point of its interval. Returns
    {node: [records]} (in completion order, a final line last)."""
    regs = ["0x%x" % (0x1000 + 64 * i) for i in range(regs)]
    ctrs = ["0x%x" % (0x9000 + 64 * i) for i in range(ctrs)]
    ev = []
    for n in range(nodes):
        for t in range(threads):
            now = 1000 + rng.randrange(50)
            for _ in range(ops // (nodes * threads)):
                start = now + rng.randrange(1, 30)
                end = start + rng.randrange(0, 60)
                now = end
                addr = rng.choice(regs + ctrs)
                if addr in ctrs:
                    kind = rng.choice(["incr", "incr", "read"])
                else:
                    kind = rng.choice(["write", "read"])
                ev.append((rng.uniform(start, end), n, t, kind, addr, start,
                           end))
    ev.sort()
    state = {a: 0 for a in regs + ctrs}
    seq = 0
    recs = {n: [] for n in range(nodes)}
    for _, n, t, kind, addr, start, end in ev:
        if kind == "write":
            seq += 1
            state[addr] = seq * 7 + 3
        elif kind == "incr":
            state[addr] += 1
        recs[n].append({"node": n, "thread": t, "op": kind, "addr": addr,
                        "value": state[addr], "start_ns": start,
                        "end_ns": end})
    for n in recs:
        recs[n].sort(key=lambda r: r["end_ns"])
        recs[n].append({"node": n, "final": True, "ops": len(recs[n]),
                        "counters": {a: state[a] for a in ctrs}})
    return recs


def _ops(recs, **kw):
    return [r for n in sorted(recs) for r in recs[n] if not r.get("final")
            and all(r[k] == v for k, v in kw.items())]


def _last_end(recs):
    return max(r["end_ns"] for r in _ops(recs))


def inject(rng, recs, kind):
    """One violation of `kind` into recs (changed in place)."""
    end = _last_end(recs) + 100
    reg_writes = [r for r in _ops(recs, op="write")]
    incrs = _ops(recs, op="incr")

    def add(r):
        recs[r["node"]].insert(-1, r)

    def read(value, addr, start=end, stop=end + 10):
        return {"node": 0, "thread": 9, "op": "read", "addr": addr,
                "value": value, "start_ns": start, "end_ns": stop}

    if kind == "stale_read":  # the first write of an address, long after
        by = {}
        for w in reg_writes:
            by.setdefault(w["addr"], []).append(w)
        addr = rng.choice([a for a in by if len(by[a]) > 1])
        first = min(by[addr], key=lambda w: w["end_ns"])
        add(read(first["value"], addr))
    elif kind == "stale_initial":
        add(read(0, rng.choice(reg_writes)["addr"]))
    elif kind == "value_never_written":
        add(read(123456789, rng.choice(reg_writes)["addr"]))
    elif kind == "from_future":
        w = max(reg_writes, key=lambda w: w["start_ns"])
        add(read(w["value"], w["addr"], 0, 1))
    elif kind == "lost_update":  # an incr returns its successor's value
        r = rng.choice([i for i in incrs if i["value"] > 1])
        r["value"] -= 1
    elif kind == "duplicate_incr":
        r = rng.choice(incrs)
        dup = dict(r, node=0, thread=9)
        add(dup)
    elif kind == "realtime_order":  # two incrs in order swap values
        addr = incrs[0]["addr"]
        mine = sorted((i for i in incrs if i["addr"] == addr),
                      key=lambda i: i["value"])
        a, b = mine[0], mine[-1]
        a["value"], b["value"] = b["value"], a["value"]
    elif kind == "final_value":
        fin = recs[0][-1]["counters"]
        k = rng.choice(sorted(fin))
        fin[k] += 1
    elif kind == "missing_final":
        recs[rng.randrange(len(recs))].pop()
    else:
        raise ValueError(kind)


INJECTED = ["stale_read", "stale_initial", "value_never_written",
            "from_future", "lost_update", "duplicate_incr", "realtime_order",
            "final_value", "missing_final"]
EXPECT_KIND = {"stale_initial": "stale_read"}


class Generated(Diff):
    def write(self, d, recs):
        for n, rs in recs.items():
            _write(os.path.join(d, "node-%d.jsonl" % n), rs)

    def test_valid_histories_pass(self):
        rng = random.Random(1)
        for i in range(6):
            recs = generate(rng, nodes=2 + i % 3, threads=1 + i % 2)
            with tempfile.TemporaryDirectory() as d:
                self.write(d, recs)
                c = self.same([d, "--expect-nodes", str(len(recs))])
                self.assertEqual(c[0], 0, c[1])
                self.same([d, "--json", "--min-ops", "10"])

    def test_injected_violations(self):
        rng = random.Random(2)
        for kind in INJECTED:
            for i in range(2):
                recs = generate(rng, nodes=3, threads=2)
                inject(rng, recs, kind)
                with tempfile.TemporaryDirectory() as d:
                    self.write(d, recs)
                    args = [d, "--expect-nodes", "3", "--max-violations",
                            "0"]
                    c = self.same(args)
                    self.assertEqual(c[0], 1, "%s: %s" % (kind, c[1]))
                    self.assertIn("VIOLATION %s:" % EXPECT_KIND.get(kind,
                                                                    kind),
                                  c[1])
                    self.same(args + ["--json"])
                    self.same([d, "--max-violations", "1"])

    def test_random_read_values_and_skew(self):
        # a read's value replaced by another written value of its address:
        # stale, from the future, zones, or still fine; under skews
        rng = random.Random(3)
        for i in range(12):
            recs = generate(rng, nodes=3, threads=2, ops=200)
            reads = _ops(recs, op="read")
            for _ in range(1 + i % 3):
                r = rng.choice(reads)
                vals = [o["value"] for o in _ops(recs, addr=r["addr"])
                        if o["op"] != "read"] + [0]
                r["value"] = rng.choice(vals)
            with tempfile.TemporaryDirectory() as d:
                self.write(d, recs)
                for skew in (0, 5, 40, -3):
                    self.same([d, "--skew-ns", str(skew), "--max-violations",
                               "0"])

    def test_options(self):
        rng = random.Random(4)
        recs = generate(rng)
        inject(rng, recs, "lost_update")
        inject(rng, recs, "stale_read")
        with tempfile.TemporaryDirectory() as d:
            self.write(d, recs)
            p0 = os.path.join(d, "node-0.jsonl")
            for args in (["--min-ops", "100000"], ["--max-violations", "-1"],
                         ["--max-violations=2"], ["--expect-nodes", "5"],
                         ["--expect", "2"], ["--json", "--min-ops", "1_0"],
                         ["--skew-ns", " 7 "], [p0, "--", p0],
                         ["--skew-ns", "x"], ["--skew-ns"], ["--bogus"],
                         ["--json=1"], ["--m", "1"]):
                self.same([d] + args)
            self.same([os.path.join(d, "none.jsonl")])
            empty = os.path.join(d, "empty")
            os.mkdir(empty)
            self.same([empty])


# One op line, a final line, and lines each checker must read alike.
OP = ('{"node":0,"thread":0,"op":"write","addr":"0x10","value":5,'
      '"start_ns":10,"end_ns":20}')
BAD_LINES = [
    "{not json", '{"node": 0, "op": "read"}', "[1, 2]", '"x"', "-",
    OP.replace('"node":0', '"node":true'), OP.replace("5,", "1.5,"),
    OP.replace("5,", '"0x1g",'), OP.replace("5,", "NaN,"),
    OP.replace('"end_ns":20', '"end_ns":5'), OP.replace("write", "delete"),
    OP + " x", OP[:-1] + ",}", OP.replace("5,", "05,"),
    OP.replace("write", "wr\x01ite"), OP.replace("write", "wr\\xite"),
    '{"node":0,"final":true,"counters":[1]}', '{"node":[0],"final":true}',
    '{"node":0,"final":true,"counters":{"zz":1}}',
    '{"node":0,"final":true,"counters":[{"addr":"0x1"}]}',
    '{"node":0,"final":true,"addr":"0x10","value":null}',
    "\ufeff" + OP, "[" * 3000 + "]" * 3000, OP.replace("5,", "1e400,"),
    OP.replace('"0x10"', '"0x10 0"'), OP.replace("5,", '"1__0",'),
    OP.replace("5,", '"0_7",'), OP.replace("5,", "-,"),
    OP.replace("5,", "2e,"), OP.replace('"thread":0', '"thread":null'),
]
ODD_LINES = [
    "  " + OP + " \t", "\u00a0" + OP + "\u3000", "",  "   ",
    OP.replace('"node"', '"\\u006eode"'),
    OP.replace('"value":5', '"value":9,"value":5'),
    OP.replace("5,", '"0X5",'), OP.replace("5,", '" +5 ",'),
    OP.replace("5,", '"0b101",'), OP.replace("5,", '"0o5",'),
    OP.replace("5,", '"0x_5",'), OP.replace('"0x10"', "16"),
    OP.replace('"thread":0,', ""), OP[:-1] + ',"extra":[1,{"a":null}]}',
    OP[:-1] + ',"big":123456789012345678901234567890123456789}',
    OP[:-1] + ',"f":-1.5e-3,"final":false}',
    '{"node":1.0,"final":"yes","counters":{"0x10":0,"0x10":0}}',
    '{"node":0,"final":1,"counters":[{"addr":16,"value":0}]}',
    '{"node":0,"final":true,"addr":"0x20","value":"0"}',
    OP.replace("5,", "0,").replace("write", "read"),
    OP.replace('"start_ns":10', '"start_ns":-10'),
    OP.replace("5,", "18446744073709551615,"),
    OP.replace('"0x10"', '"0xffffffffffffffff"'),
]


class Lines(Diff):
    def check_text(self, text, *extra, whole=True):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.jsonl")
            with open(p, "wb") as f:
                f.write(text if isinstance(text, bytes) else
                        text.encode("utf-8", "surrogatepass"))
            return self.same([p, "--max-violations", "0"] + list(extra),
                             whole)

    def test_bad_lines_exit_2(self):
        for line in BAD_LINES:
            with self.subTest(line=line[:60]):
                c = self.check_text(OP + "\n" + line + "\n")
                self.assertEqual(c[0], 2, c)
        self.assertEqual(self.check_text(OP + "\n" + OP[:30])[0], 2)
        self.assertEqual(self.check_text(OP.encode() + b"\n\xff\n")[0], 2)
        self.assertEqual(self.check_text(OP.encode() + b"\xed\xa0\x80\n")[0],
                         2)

    def test_odd_lines_read_alike(self):
        for line in ODD_LINES:
            with self.subTest(line=line[:60]):
                c = self.check_text(OP + "\n" + line + "\n", "--expect-nodes",
                                    "2")
                self.assertIn(c[0], (0, 1), c)
        # line ends: \r\n, a lone \r, none at the end
        c = self.check_text(OP + "\r\n" + OP.replace("5,", "6,") + "\r" +
                            OP.replace("5,", "7,"))
        self.assertEqual(c[0], 0, c)

    def test_random_edits(self):
        rng = random.Random(5)
        recs = generate(rng, nodes=2, threads=1, ops=12, regs=1, ctrs=1)
        lines = [json.dumps(r, separators=(",", ":")) for n in sorted(recs)
                 for r in recs[n]]
        chars = '{}[]":,0123456789 -+.eExabfnrtu\\_'
        for i in range(150):
            ls = list(lines)
            k = rng.randrange(len(ls))
            s = ls[k]
            j = rng.randrange(len(s) + 1)
            op = i % 3
            if op == 0:
                s = s[:j] + s[j + 1:]
            elif op == 1:
                s = s[:j] + rng.choice(chars) + s[j:]
            else:
                s = s[:j] + rng.choice(chars) + s[j + 1:]
            ls[k] = s
            with self.subTest(edit=s):
                self.check_text("\n".join(ls) + "\n", "--expect-nodes", "2",
                                whole=False)


if __name__ == "__main__":
    unittest.main()
