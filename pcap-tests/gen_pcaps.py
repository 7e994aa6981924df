#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
gen_pcaps.py: vector.json -> pcaps.

For each vector, writes into OUT/<vector>/:
  in.pcap             every injected frame, in the vector's global order
  in.json             sidecar: for frame i, its ingress port and step
  in_port<N>.pcap     the frames entering port N (for offline replay via
                      net_pcap rx_pcap; order across ports is lost there)
  expected_port<N>.pcap  a representative of every frame expected to leave
                      port N (for humans and tshark; "any of" choices take the
                      first alternative)

usage: gen_pcaps.py [--out DIR] [VECTOR_DIR ...]   (default: every vector)
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcfvec  # noqa: E402


def generate(vdir, out_root):
    v = lcfvec.load_vector(vdir)
    topo = v["_topo"]
    out = os.path.join(out_root, v["_name"])
    os.makedirs(out, exist_ok=True)
    frames, side = [], []
    per_in = {p: [] for p in range(topo.n_ports)}
    per_exp = {p: [] for p in range(topo.n_ports)}
    for i, st in enumerate(v["steps"]):
        port, fr = lcfvec.build_input(st["in"], topo)
        frames.append(fr)
        per_in[port].append(fr)
        exps = st.get("expect", [])
        side.append({"step": i, "port": port, "len": len(fr),
                     "expect": 0 if exps == "nothing" else len(exps),
                     "comment": st.get("comment", "")})
        if exps != "nothing":
            for e in exps:
                c = lcfvec.concrete_expect(e, topo, fr)
                if c is not None:
                    per_exp[c[0]].append(c[1])
    lcfvec.write_pcap(os.path.join(out, "in.pcap"), frames)
    with open(os.path.join(out, "in.json"), "w") as f:
        json.dump({"vector": v["_name"], "topology": v["topology"], "frames": side}, f, indent=1)
    for p in range(topo.n_ports):
        lcfvec.write_pcap(os.path.join(out, "in_port%d.pcap" % p), per_in[p])
        lcfvec.write_pcap(os.path.join(out, "expected_port%d.pcap" % p), per_exp[p])
    return len(frames)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", default=os.path.join(here, "out"))
    ap.add_argument("vectors", nargs="*")
    a = ap.parse_args()
    vdirs = a.vectors or lcfvec.list_vectors(os.path.join(here, "vectors"))
    total = 0
    try:
        for d in vdirs:
            total += generate(d, a.out)
    except (lcfvec.VectorError, KeyError, ValueError) as e:
        print("gen_pcaps: %s: %s" % (d, e), file=sys.stderr)
        return 1
    print("gen_pcaps: %d vectors, %d frames -> %s" % (len(vdirs), total, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
