#!/usr/bin/env python3
"""Fail on a dependency cycle between source files or between directories.

Usage: scripts/check-cycles.py [--build DIR] [--edges] [ROOT ...]

ROOTs default to lib swswitch node-agent (paths relative to the repository).
Two kinds of dependency are collected:

  include  a file's `#include "x"` lines, resolved against the including
           file's directory, then against every directory under the roots
           (the first unique match);
  call     which object defines and which object uses each symbol, from
           `nm` on the objects of the build directory (compile_commands.json
           maps each object to its source file): a file that uses a symbol
           depends on the file that defines it.

Two graphs are checked, each must be acyclic:

  file       every .c and .h file a node, with both kinds of edge (a.c
             calling b.c while b.c calls a.c is a cycle, so is a.h
             including b.h including a.h);
  directory  every file collapsed into its directory (node-agent/api,
             node-agent/agents, ...): edges between directories point one
             way only.

For each cycle the script prints one closed path and, for every step,
the edge that witnesses it (the include line or the symbol). Exit status 0
when there is no cycle, 1 when there is one, 2 on a usage or build error.
`--edges` prints the directory graph's edges (for docs/ARCHITECTURE.md).
"""
import argparse
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_EXT = ('.c', '.h')


def repo_root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def list_sources(root, roots):
    files = []
    for r in roots:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, r)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
            for f in sorted(filenames):
                if f.endswith(SOURCE_EXT):
                    files.append(os.path.relpath(os.path.join(dirpath, f),
                                                 root))
    return files


def include_edges(root, files):
    """(from_file, to_file, witness) for every resolvable #include "x"."""
    fileset = set(files)
    by_suffix = defaultdict(list)
    for f in files:
        parts = f.split('/')
        for i in range(len(parts)):
            by_suffix['/'.join(parts[i:])].append(f)
    edges = []
    for f in files:
        with open(os.path.join(root, f), errors='replace') as fh:
            for lineno, line in enumerate(fh, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                name = m.group(1)
                local = os.path.normpath(os.path.join(os.path.dirname(f),
                                                      name))
                if local in fileset:
                    target = local
                else:
                    cands = by_suffix.get(os.path.normpath(name), [])
                    if len(cands) != 1:
                        continue    # system header or ambiguous: not ours
                    target = cands[0]
                edges.append((f, target,
                              '%s:%d #include "%s"' % (f, lineno, name)))
    return edges


def nm_symbols(objs):
    """{object: (defined, undefined)} from `nm -P -A`, a hundred objects a
    call: each nm start loads binutils' plugins (0.14 CPU-s, 40 CPU-s over
    the build's objects one by one)."""
    syms = {o: (set(), set()) for o in objs}
    for i in range(0, len(objs), 100):
        chunk = objs[i:i + 100]
        out = subprocess.run(['nm', '-P', '-A'] + chunk, capture_output=True,
                             text=True)
        if out.returncode != 0:
            raise RuntimeError('nm %s: %s' % (' '.join(chunk),
                                              out.stderr.strip()))
        for line in out.stdout.splitlines():
            obj, _, rest = line.partition(': ')
            parts = rest.split()
            if obj not in syms or len(parts) < 2:
                continue
            name, kind = parts[0], parts[1]
            defined, undefined = syms[obj]
            if kind == 'U':
                undefined.add(name)
            elif kind in 'TDBRCVWGS':     # global definitions only
                defined.add(name)
    return syms


def call_edges(root, build, files):
    """(user_file, definer_file, witness) from nm on the built objects."""
    ccpath = os.path.join(build, 'compile_commands.json')
    if not os.path.exists(ccpath):
        sys.exit('check-cycles: %s not found (meson setup %s && ninja -C %s)'
                 % (ccpath, build, build))
    fileset = set(files)
    objs = []           # (source file, object path, link target dir)
    for e in json.load(open(ccpath)):
        src = os.path.relpath(os.path.normpath(os.path.join(e['directory'],
                                                            e['file'])), root)
        if src not in fileset:
            continue
        obj = os.path.join(e['directory'], e['output'])
        if not os.path.exists(obj):
            sys.exit('check-cycles: %s missing: build first (ninja -C %s)'
                     % (obj, build))
        objs.append((src, obj, os.path.dirname(obj)))
    definers = defaultdict(set)     # symbol -> {(src, target dir)}
    uses = []
    syms = nm_symbols([obj for _, obj, _ in objs])
    for src, obj, target in objs:
        d, u = syms[obj]
        for s in d:
            definers[s].add((src, target))
        uses.append((src, target, u))
    edges = set()
    for src, target, undefined in uses:
        for s in undefined:
            cands = definers.get(s)
            if not cands:
                continue            # libc, DPDK, criterion...
            # a symbol defined in several files (main, a test helper linked
            # into each test): take the definition linked with this object
            same = {c for c, t in cands if t == target}
            srcs = same or {c for c, t in cands}
            if len(srcs) > 1:
                continue
            (to,) = srcs
            if to != src:
                edges.add((src, to, '%s uses %s' % (src, s)))
    return sorted(edges)


def sccs(nodes, adj):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(adj.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(adj.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def one_cycle(comp, adj):
    """A shortest closed path through comp[0] inside the component."""
    inside = set(comp)
    start = comp[0]
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(adj.get(v, ())):
            if w not in inside:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def check(name, edges, key):
    """edges: (from, to, witness) on files; key maps a file to its node."""
    adj = defaultdict(set)
    witness = {}
    nodes = set()
    for a, b, why in edges:
        na, nb = key(a), key(b)
        nodes.update((na, nb))
        if na == nb:
            continue
        adj[na].add(nb)
        witness.setdefault((na, nb), why)
    bad = sccs(nodes, adj)
    for comp in bad:
        cyc = one_cycle(comp, adj)
        print('%s cycle: %s' % (name, ' -> '.join(cyc)))
        for a, b in zip(cyc, cyc[1:]):
            print('    %s -> %s: %s' % (a, b, witness[(a, b)]))
        if len(comp) > len(cyc) - 1:
            print('    (strongly connected: %s)' % ', '.join(comp))
    return adj, len(bad)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default=os.environ.get('BUILD', 'build'))
    ap.add_argument('--edges', action='store_true',
                    help='print the directory graph')
    ap.add_argument('roots', nargs='*',
                    default=['lib', 'swswitch', 'node-agent'])
    args = ap.parse_args()
    root = repo_root()
    build = os.path.abspath(args.build)
    files = list_sources(root, args.roots)
    inc = include_edges(root, files)
    calls = call_edges(root, build, files)
    both = inc + calls
    _, nmod = check('file', both, lambda f: f)
    dadj, ndir = check('directory', both,
                       lambda f: os.path.dirname(f))
    if args.edges:
        for a in sorted(dadj):
            for b in sorted(dadj[a]):
                print('edge %s -> %s' % (a, b))
    ndirs = len({os.path.dirname(f) for f in files})
    print('check-cycles: %d files, %d directories, %d include and %d call '
          'edges: %s' % (len(files), ndirs, len(inc), len(calls),
                         'no cycle' if not (nmod or ndir) else
                         '%d file and %d directory cycles'
                         % (nmod, ndir)))
    return 1 if (nmod or ndir) else 0


if __name__ == '__main__':
    sys.exit(main())
