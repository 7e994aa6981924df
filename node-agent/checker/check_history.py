#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Linearizability / consistency checker for node-agent operation histories.

Input: the history files of all nodes (JSON lines, docs/CLUSTER.md and
docs/NODE-AGENT.md), one completed operation per line:

  {"node":N,"thread":T,"op":"read"|"write"|"incr","addr":"0x...",
   "value":V,"start_ns":S,"end_ns":E}

and a last line {"node":N,"final":true,...}. Times of all nodes must come from
one clock (the nodes of a cluster on one machine share CLOCK_MONOTONIC and
CLOCK_REALTIME); --skew-ns relaxes the real-time order by a clock skew bound.

What is checked, per address (an address with any incr op is a counter):

  registers (read/write; written values are unique per address, so the
  polynomial check for unique-value registers is exact):
    - a read of v, written by w: w must not start after the read ended
      (w.start < r.end), and w must not have been overwritten before the read
      started: no w' with w.end < w'.start and w'.end < r.start (stale read);
    - a read of the initial value 0: no write may have ended before the read
      started;
    - a read of a value no write wrote is a violation.
  counters (incr returns the counter's new value; incrs are done under the
  block's write lock):
    - the values of the incrs are unique and are exactly 1..n (no lost update,
      no duplicate: two incrs holding the write lock at once would return the
      same value, so uniqueness is the single-writer invariant);
    - they respect real time: an incr that ended before another started has
      the smaller value;
    - reads of a counter are checked as register reads, the incrs being the
      writes;
    - a final value reported by a node (final line) equals n.

Exit status: 0 when there is no violation, 1 when there is one, 2 on bad input.
"""

import argparse
import bisect
import glob
import json
import os
import sys
from collections import defaultdict

INITIAL = 0
OPS = ("read", "write", "incr")


class BadInput(Exception):
    pass


def _int(v, what):
    if isinstance(v, bool):
        raise BadInput("%s: not an integer: %r" % (what, v))
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            pass
    raise BadInput("%s: not an integer: %r" % (what, v))


def _where(where):
    """A place in the input: "path:line", or load()'s (path, line), which it
    formats only when needed (once per op was a tenth of the time)."""
    return where if isinstance(where, str) else "%s:%d" % where


# json.loads without its two wrappers (a third of load()'s time); the
# caller checks that the whole line was one value, as json.loads does.
_decode = json.JSONDecoder().raw_decode


class Op:
    __slots__ = ("node", "thread", "op", "addr", "value", "start", "end",
                 "where")

    def __init__(self, rec, where):
        # The common line (integers, the address a string) without _int's
        # calls; anything else takes the checked path below, with its errors.
        try:
            node, thread, addr = rec["node"], rec.get("thread", 0), rec["addr"]
            value, start, end = rec["value"], rec["start_ns"], rec["end_ns"]
            self.op = rec["op"]
            if not (type(node) is int and type(thread) is int and type(value) is int
                    and type(start) is int and type(end) is int):
                raise TypeError
            self.addr = addr if type(addr) is int else int(addr, 0)
        except (KeyError, TypeError, ValueError):
            self._parse(rec, _where(where))
        else:
            self.node, self.thread, self.value = node, thread, value
            self.start, self.end = start, end
        if self.op not in OPS:
            raise BadInput("%s: unknown op %r" % (_where(where), self.op))
        if self.end < self.start:
            raise BadInput("%s: end_ns < start_ns" % _where(where))
        self.where = where

    def _parse(self, rec, where):
        try:
            self.node = _int(rec["node"], "node")
            self.thread = _int(rec.get("thread", 0), "thread")
            self.op = rec["op"]
            self.addr = _int(rec["addr"], "addr")
            self.value = _int(rec["value"], "value")
            self.start = _int(rec["start_ns"], "start_ns")
            self.end = _int(rec["end_ns"], "end_ns")
        except KeyError as e:
            raise BadInput("%s: missing field %s" % (where, e))
        except BadInput as e:
            raise BadInput("%s: %s" % (where, e))

    def __repr__(self):
        return ("%s(node %d thread %d, 0x%x, value %d, [%d, %d]) at %s" %
                (self.op, self.node, self.thread, self.addr, self.value,
                 self.start, self.end, _where(self.where)))


def _final_values(rec):
    """(addr, value) pairs of the counter values a final line reports.

    Accepted shapes: "counters": {"0x..": V, ...}, "counters": [{"addr":..,
    "value":..}, ...], or "addr"/"value" on the line itself."""
    out = []
    c = rec.get("counters")
    if isinstance(c, dict):
        for a, v in c.items():
            out.append((_int(a, "counters key"), _int(v, "counters value")))
    elif isinstance(c, list):
        for e in c:
            if not isinstance(e, dict):
                raise BadInput("counters[]: not an object: %r" % (e,))
            out.append((_int(e["addr"], "counters[].addr"),
                        _int(e["value"], "counters[].value")))
    if "addr" in rec and "value" in rec:
        out.append((_int(rec["addr"], "addr"), _int(rec["value"], "value")))
    return out


def load(paths):
    """Read history files. Returns (ops, finals) where finals is a list of
    (node, record, where)."""
    ops, finals = [], []
    for path in paths:
        try:
            _load_file(path, ops, finals)
        except UnicodeDecodeError as e:
            raise BadInput("%s: not UTF-8: %s" % (path, e))
    return ops, finals


def _load_file(path, ops, finals):
    """Appends the ops and final lines of one history file."""
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line:
                continue
            where = (path, lineno)
            try:
                rec, end = _decode(line)
                if end != len(line):
                    raise json.JSONDecodeError(
                        "Extra data", line,
                        len(line) - len(line[end:].lstrip(" \t\n\r")))
            except (ValueError, RecursionError) as e:
                where = _where(where)
                if not raw.endswith("\n"):
                    raise BadInput("%s: truncated last line (was the "
                                   "node killed before it closed its "
                                   "history?)" % where)
                raise BadInput("%s: not JSON: %s" % (where, e))
            if not isinstance(rec, dict):
                raise BadInput("%s: not a JSON object" % _where(where))
            if rec.get("final"):
                if isinstance(rec.get("node"), (list, dict)):
                    raise BadInput("%s: final line's node is a list or "
                                   "an object" % _where(where))
                finals.append((rec.get("node"), rec, _where(where)))
                continue
            ops.append(Op(rec, where))


class Result:
    def __init__(self):
        self.violations = []
        self.stats = defaultdict(int)

    def bad(self, kind, msg):
        self.violations.append((kind, msg))
        self.stats["violations." + kind] += 1


def _check_reads(res, addr, reads, writes, skew):
    """Register check of `reads` against `writes` (ops with unique values)."""
    by_value = defaultdict(list)
    for w in writes:
        by_value[w.value].append(w)
    ws = sorted(writes, key=lambda w: w.start)
    starts = [w.start for w in ws]
    # suffix_min_end[i] = min end of ws[i:]; suffix_arg[i] = its op
    n = len(ws)
    suffix_min_end = [None] * (n + 1)
    suffix_arg = [None] * (n + 1)
    best, arg = float("inf"), None
    suffix_min_end[n] = best
    for i in range(n - 1, -1, -1):
        if ws[i].end < best:
            best, arg = ws[i].end, ws[i]
        suffix_min_end[i], suffix_arg[i] = best, arg

    def overwriter(after_end, before_start):
        """A write w' with w'.start > after_end + skew and w'.end + skew <
        before_start, or None."""
        i = bisect.bisect_right(starts, after_end + skew)
        if i < n and suffix_min_end[i] + skew < before_start:
            return suffix_arg[i]
        return None

    if reads:
        res.stats["reads"] += len(reads)
    # the loop below runs once per read: overwriter() inlined for the
    # common read (one candidate write, not overwritten)
    bisect_right = bisect.bisect_right
    no_cands = []
    for r in reads:
        rv = r.value
        cands = by_value.get(rv, no_cands)
        if len(cands) == 1 and rv != INITIAL:
            w = cands[0]
            if w.start <= r.end + skew:
                i = bisect_right(starts, w.end + skew)
                if i >= n or not suffix_min_end[i] + skew < r.start:
                    continue
        if rv == INITIAL:
            w2 = overwriter(float("-inf"), r.start)
            if w2 is None:
                continue
            if not cands:
                res.bad("stale_read",
                        "0x%x: %r returned the initial value %d but %r had "
                        "completed before it started" % (addr, r, INITIAL, w2))
                continue
        if not cands:
            res.bad("value_never_written",
                    "0x%x: %r returned %d, which no write wrote" %
                    (addr, r, r.value))
            continue
        if len(cands) > 1:
            res.stats["ambiguous_reads"] += 1
        why = None
        for w in cands:
            if w.start > r.end + skew:
                why = ("from_future",
                       "0x%x: %r returned the value of %r, which started "
                       "after the read ended" % (addr, r, w))
                continue
            w2 = overwriter(w.end, r.start)
            if w2 is not None:
                why = ("stale_read",
                       "0x%x: %r returned %d written by %r, but %r "
                       "overwrote it and completed before the read started" %
                       (addr, r, r.value, w, w2))
                continue
            why = None
            break
        if why:
            res.bad(*why)


def _check_zones(res, addr, reads, writes, skew):
    """The exact test for a register whose written values are unique
    (Gibbons and Korach, "Testing shared memories", SIAM J. Comput. 1997):
    the cluster of a value is its write and the reads returning it; its zone
    runs from the earliest end to the latest start of the cluster. When the
    earliest end is before the latest start the zone is forward, else
    backward. The history is linearizable iff no read precedes its write, no
    two forward zones overlap and no backward zone lies inside a forward zone.
    The initial value is a write at -infinity. This catches what the per-read
    test cannot, e.g. a new-old inversion (a read sees a new value, a later
    read the older one)."""
    # value -> [earliest end, latest start] of its cluster (the first write
    # of a value is its write; the initial value's earliest end is -inf)
    by_value = {}
    for w in writes:
        if w.value not in by_value:
            by_value[w.value] = [w.end, w.start]
    ninf = float("-inf")
    for r in reads:
        z = by_value.get(r.value)
        if z is not None:
            if r.end < z[0]:
                z[0] = r.end
            if r.start > z[1]:
                z[1] = r.start
        elif r.value == INITIAL:
            by_value[INITIAL] = [ninf, r.start]
    fwd, bwd = [], []
    for v, (min_end, max_start) in by_value.items():
        if min_end + skew < max_start:
            fwd.append((min_end, max_start, v))
        else:
            bwd.append((max_start, min_end, v))
    fwd.sort()
    for (e1, s1, v1), (e2, s2, v2) in zip(fwd, fwd[1:]):
        if e2 + skew < s1:
            res.bad("not_linearizable",
                    "0x%x: the values %d and %d were each observed over "
                    "overlapping intervals of real time ([%s, %s] and "
                    "[%s, %s]): no single order of the writes explains the "
                    "reads" % (addr, v1, v2, e1, s1, e2, s2))
    if not fwd:
        return
    starts = [z[0] for z in fwd]
    for (bs, be, bv) in bwd:
        i = bisect.bisect_left(starts, bs - skew)
        for (fe, fs, fv) in fwd[:i][-2:]:
            if fe + skew < bs and be + skew < fs:
                res.bad("not_linearizable",
                        "0x%x: value %d was written and read within [%s, %s], "
                        "entirely while value %d was being observed ([%s, %s])"
                        % (addr, bv, bs, be, fv, fe, fs))
                break


def _check_counter(res, addr, incrs, skew):
    n = len(incrs)
    res.stats["counters"] += 1
    res.stats["incrs"] += n
    seen = defaultdict(list)
    for op in incrs:
        seen[op.value].append(op)
    for v, lst in sorted(seen.items()):
        if len(lst) > 1:
            res.bad("duplicate_incr",
                    "0x%x: value %d returned by %d incrs (two writers held "
                    "the lock at once, or an update was lost): %s" %
                    (addr, v, len(lst), "; ".join(map(repr, lst))))
        if v < 1 or v > n:
            for op in lst:
                res.bad("incr_out_of_range",
                        "0x%x: %r returned %d, outside 1..%d (n = number of "
                        "incrs)" % (addr, op, v, n))
    missing = [v for v in range(1, n + 1) if v not in seen]
    if missing:
        shown = ", ".join(map(str, missing[:10]))
        res.bad("lost_update",
                "0x%x: %d incrs but values %s%s never returned" %
                (addr, n, shown, "..." if len(missing) > 10 else ""))
    # Real-time order: going down in value, keep the earliest end among the
    # higher values; an incr that starts after it has a too-small value.
    ordered = sorted(incrs, key=lambda o: o.value, reverse=True)
    min_end, min_op = float("inf"), None
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j].value == ordered[i].value:
            j += 1
        for op in ordered[i:j]:
            if min_op is not None and min_end + skew < op.start:
                res.bad("realtime_order",
                        "0x%x: %r returned %d but %r returned %d and "
                        "completed before it started" %
                        (addr, op, op.value, min_op, min_op.value))
        for op in ordered[i:j]:
            if op.end < min_end:
                min_end, min_op = op.end, op
        i = j


def check(ops, finals=(), skew=0, expect_nodes=None):
    res = Result()
    # addr -> {"read": [...], "write": [...], "incr": [...]}, each in input
    # order (one pass: the ops are a million in a long run)
    by_addr = {}
    for op in ops:
        g = by_addr.get(op.addr)
        if g is None:
            g = by_addr[op.addr] = {"read": [], "write": [], "incr": []}
        g[op.op].append(op)
    for addr, g in by_addr.items():
        for kind in OPS:
            if g[kind]:
                res.stats["ops." + kind] += len(g[kind])
    res.stats["ops"] = len(ops)
    res.stats["addresses"] = len(by_addr)
    counters = {}
    for addr, g in sorted(by_addr.items(), key=lambda a: a[0]):
        reads, writes, incrs = g["read"], g["write"], g["incr"]
        if incrs:
            if writes:
                res.bad("mixed_ops",
                        "0x%x: both write and incr ops (%r, %r); a counter "
                        "is only incremented" % (addr, writes[0], incrs[0]))
            _check_counter(res, addr, incrs, skew)
            before = len(res.violations)
            _check_reads(res, addr, reads, incrs + writes, skew)
            if len(res.violations) == before:
                _check_zones(res, addr, reads, incrs + writes, skew)
            counters[addr] = len(incrs)
        else:
            res.stats["registers"] += 1
            vals = defaultdict(int)
            for w in writes:
                vals[w.value] += 1
            dup = sorted(v for v, c in vals.items() if c > 1)
            if dup:
                # The check assumes unique written values; say so, it is the
                # workload's fault, not a coherence bug.
                res.stats["duplicate_written_values"] += len(dup)
            before = len(res.violations)
            _check_reads(res, addr, reads, writes, skew)
            if len(res.violations) == before and not dup:
                _check_zones(res, addr, reads, writes, skew)
    nodes_final = set()
    for node, rec, where in finals:
        nodes_final.add(node)
        try:
            fv = _final_values(rec)
        except (BadInput, KeyError) as e:
            raise BadInput("%s: %s" % (where, e))
        for addr, v in fv:
            res.stats["final_values"] += 1
            n = counters.get(addr, 0)
            if v != n:
                res.bad("final_value",
                        "0x%x: node %s reports final value %d, but %d incrs "
                        "completed (%s)" % (addr, node, v, n, where))
    if expect_nodes is not None:
        nodes_ops = {o.node for o in ops}
        for n in range(expect_nodes):
            if n not in nodes_final:
                res.bad("missing_final",
                        "node %d: no final line (did it exit cleanly?)" % n)
            if n not in nodes_ops:
                res.stats["nodes_without_ops"] += 1
    return res


def expand(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(glob.glob(os.path.join(p, "*.jsonl"))))
        else:
            out.append(p)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Check node-agent histories for linearizability "
                    "(registers) and exact counting (counters).")
    ap.add_argument("files", nargs="+",
                    help="history files (JSON lines), or directories of "
                         "*.jsonl")
    ap.add_argument("--skew-ns", type=int, default=0,
                    help="clock skew bound between nodes (default 0: one "
                         "machine, one clock)")
    ap.add_argument("--expect-nodes", type=int, default=None,
                    help="nodes 0..N-1 must each have a final line")
    ap.add_argument("--min-ops", type=int, default=0,
                    help="fail when fewer operations were recorded")
    ap.add_argument("--max-violations", type=int, default=50,
                    help="print at most this many violations (default 50; "
                         "0: all)")
    ap.add_argument("--json", action="store_true",
                    help="print the summary as one JSON object")
    a = ap.parse_args(argv)
    files = expand(a.files)
    if not files:
        print("check_history: no history files", file=sys.stderr)
        return 2
    try:
        ops, finals = load(files)
        res = check(ops, finals, a.skew_ns, a.expect_nodes)
    except (OSError, BadInput) as e:
        print("check_history: %s" % e, file=sys.stderr)
        return 2
    if len(ops) < a.min_ops:
        res.bad("too_few_ops", "%d operations recorded, expected at least %d"
                % (len(ops), a.min_ops))
    shown = res.violations if a.max_violations == 0 else \
        res.violations[:a.max_violations]
    for kind, msg in shown:
        print("VIOLATION %s: %s" % (kind, msg))
    if len(shown) < len(res.violations):
        print("... %d more violations" % (len(res.violations) - len(shown)))
    summary = dict(sorted(res.stats.items()))
    summary["files"] = len(files)
    summary["finals"] = len(finals)
    summary["result"] = "FAIL" if res.violations else "PASS"
    if a.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        print("check_history: %d files, %d ops (%d read, %d write, %d incr), "
              "%d addresses (%d counters), %d final lines: %d violations: %s"
              % (len(files), len(ops), res.stats["ops.read"],
                 res.stats["ops.write"], res.stats["ops.incr"],
                 res.stats["addresses"], res.stats["counters"], len(finals),
                 len(res.violations), summary["result"]))
    return 1 if res.violations else 0


if __name__ == "__main__":
    sys.exit(main())
