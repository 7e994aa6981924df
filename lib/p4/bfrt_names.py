#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The control-plane names of a compiled lcf.p4, from its bf-rt.json.

bfrt_python reaches a table as bfrt.<program>.pipe.<control>.<instance>.<table>
and names a key or data field, and an action, by the last component of its
dotted bf-rt.json name (`LcfIngress.lcs0.lock.f1` -> `f1`,
`LcfIngress.prepare.node_exists` -> `add_with_node_exists`). This script
reduces bf-rt.json to those names, so that topo_to_bfrt.py's output can be
checked against what the compiler wrote (lib/p4/test_bfrt.sh) without the
compiler: lib/p4/bfrt-names.json is the committed reduction.

  bfrt_names.py BF_RT_JSON [-o OUT] [--source TEXT]
                                       reduce (default: standard output);
                                       TEXT says which compile it came from

The reduced form: {"program": ..., "tables": {"pipe.LcfIngress.prepare.node_tbl":
{"type": "MatchAction_Direct", "size": 64, "keys": {"node": "Exact"},
"actions": {"node_exists": ["node_bit"]}, "data": ["f1"]}}} ("data": the
fields of a register or a table's non-action data).

Standard library only.
"""
import argparse
import json
import sys


def short(name):
    """bfrt_python's name: the last component, without a leading '$'
    ($REGISTER_INDEX, $MATCH_PRIORITY)."""
    return name.rsplit(".", 1)[-1].lstrip("$")


def reduce(bfrt):
    tables = {}
    for t in bfrt.get("tables", []):
        keys = {}
        for k in t.get("key", []):
            keys[short(k["name"])] = k.get("match_type", "")
        actions = {}
        for a in t.get("action_specs", []):
            actions[short(a["name"])] = sorted(
                short(d["name"]) for d in a.get("data", []))
        data = []
        for d in t.get("data", []):
            s = d.get("singleton")
            if s is not None:
                data.append(short(s["name"]))
        tables[t["name"]] = {
            "type": t.get("table_type", ""),
            "size": t.get("size", 0),
            "keys": keys,
            "actions": actions,
            "data": sorted(data),
        }
    return {"program": bfrt.get("p4_name", ""), "tables": tables}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bfrt_json")
    ap.add_argument("-o", "--output")
    ap.add_argument("--source", help="the compile the file came from (kept as \"source\")")
    a = ap.parse_args()
    try:
        with open(a.bfrt_json) as f:
            red = reduce(json.load(f))
    except (OSError, ValueError, KeyError) as e:
        print(f"bfrt_names.py: {a.bfrt_json}: {e}", file=sys.stderr)
        return 1
    if a.source:
        red["source"] = a.source
    text = json.dumps(red, indent=1, sort_keys=True) + "\n"
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
