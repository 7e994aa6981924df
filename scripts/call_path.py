#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Files one dsm.h call goes through, from scripts/call_path_hook.c's record.

Each record is one call of the root function (dsm_write, dsm_read): its
calls and returns in order. A call *enters* a file when the callee is
defined in another .c file than the code that called it; static inline
functions of headers count as the file that calls them (an optimised build
inlines them there). Functions of the wire (--wire, na-sim's transport
and network) are where the request leaves: their callees are not followed.
For each record: the file sequence, the distinct files entered and the
re-entries (a file entered again after the request had left it), in all
and up to the first frame (the request's; the unlock's comes later). Records
that send a frame (--send) are the misses; of those that sent the most
common number of frames (a miss without NACK or retransmission: the
request and the unlock), the one with the median number of entries is
printed in full; then the spread over all misses.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys


def load(path):
    recs, cur = [], None
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == 'R':
                cur = []
                recs.append(cur)
            elif p[0] == 'E':
                cur.append(('E', int(p[1], 16)))
            else:
                cur.append(('X', int(p[1], 16)))
    return recs


def symbolize(exe, offs, root):
    offs = sorted(offs)
    inp = ''.join('%x\n' % o for o in offs)
    out = subprocess.run(['addr2line', '-f', '-e', exe], input=inp,
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    res = {}
    for i, o in enumerate(offs):
        fn, loc = lines[2 * i], lines[2 * i + 1]
        path = loc.rsplit(':', 1)[0]
        if os.path.isabs(path):
            path = os.path.relpath(os.path.realpath(path), root)
        res[o] = (fn, path)
    return res


def walk(rec, sym, wire):
    """(entries, reentries, first): entries is [(file, function)] in
    order; first = (entries, re-entries) up to the first frame sent."""
    stack = []  # (file the frame counts as, is wire)
    entries, seen, reent, first = [], set(), 0, None
    for kind, off in rec:
        if kind == 'X':
            if stack:
                stack.pop()
            continue
        fn, path = sym[off]
        in_wire = bool(stack) and stack[-1][1]
        caller = stack[-1][0] if stack else 'dsm.h'
        here = caller if path.endswith('.h') else path
        is_wire = in_wire or bool(wire.search(path))
        stack.append((here, is_wire))
        if is_wire and not in_wire and first is None:
            new = here != caller
            first = (len(entries) + new, reent + (new and here in seen))
        if in_wire or here == caller:
            continue
        entries.append((here, fn))
        if here in seen:
            reent += 1
        seen.add(here)
    return entries, reent, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('exe')
    ap.add_argument('record')
    ap.add_argument('--root', default='.')
    ap.add_argument('--send', default=r'^na_node_send$',
                    help='a function a miss calls (regex)')
    ap.add_argument('--wire', default=r'node-agent/sim/|/transport/na_transport_',
                    help='files where the frame leaves (regex)')
    ap.add_argument('--label', default='')
    a = ap.parse_args()
    recs = [r for r in load(a.record) if r]
    if not recs:
        sys.exit('call_path: no record in %s' % a.record)
    offs = {off for r in recs for _, off in r}
    sym = symbolize(a.exe, offs, a.root)
    send = re.compile(a.send)
    wire = re.compile(a.wire)
    miss = [r for r in recs
            if any(k == 'E' and send.search(sym[o][0]) for k, o in r)]
    if not miss:
        sys.exit('call_path: none of %d calls sent a frame' % len(recs))
    def sends(r):
        return sum(k == 'E' and bool(send.search(sym[o][0])) for k, o in r)

    res = [walk(r, sym, wire) for r in miss]
    counts = [sends(r) for r in miss]
    least = max(sorted(set(counts)), key=counts.count)
    clean = sorted((x for x, r in zip(res, miss) if sends(r) == least),
                   key=lambda x: (len(x[0]), x[1]))
    ent, reent, first = clean[len(clean) // 2]
    print('%s: %d calls recorded, %d sent a frame, %d of them %d frame(s) '
          '(the most common count); the median of those:'
          % (a.label, len(recs), len(miss), len(clean), least))
    for i, (f, fn) in enumerate(ent):
        print('  %2d %s (%s)' % (i + 1, f, fn))
    files = {f for f, _ in ent}
    print('%s: files %d, re-entries %d, entries %d' %
          (a.label, len(files), reent, len(ent)))
    if first:
        print('%s: to the request\'s frame (entries 1-%d): files %d, '
              're-entries %d' % (a.label, first[0],
                                 len({f for f, _ in ent[:first[0]]}),
                                 first[1]))
    wired = [(len({f for f, _ in e[:x[0]]}), x[1])
             for e, _, x in res if x]
    if wired:
        print('%s: to the request\'s frame, over the %d that sent it on the '
              'wire: files median %g max %d, re-entries median %g max %d' %
              (a.label, len(wired),
               statistics.median(f for f, _ in wired),
               max(f for f, _ in wired),
               statistics.median(r for _, r in wired),
               max(r for _, r in wired)))
    fl = [len({f for f, _ in e}) for e, _, _ in res]
    rl = [r for _, r, _ in res]
    print('%s: over the %d: files min %d median %g max %d, re-entries '
          'min %d median %g max %d' %
          (a.label, len(res), min(fl), statistics.median(fl), max(fl),
           min(rl), statistics.median(rl), max(rl)))


if __name__ == '__main__':
    main()
