#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Resource report of a compiled lcf.p4, from the compiler's own output.

Reads what p4c-barefoot -g writes into a compile directory (compile.sh
--out DIR gives one per configuration: DIR/tofino-w2-q0, DIR/tofino2-w7-q0):
pipe/logs/resources.json (per MAU stage: SRAM, TCAM, map RAM, stateful and
statistics ALUs, hash bits, gateways, logical tables), pipe/logs/phv.json
(PHV containers) and bf-rt.json (register sizes).

  tofino_resources.py --stages DIR          stages used per gress (compile.sh)
  tofino_resources.py --report DIR [DIR...] [-o FILE] [--commit SHA]
                                            the Markdown of docs/TOFINO-RESOURCES.md

Standard library only.
"""
import argparse
import glob
import json
import os
import re
import sys

# Concordia section 5: the switch's cache-coherence state takes "about 6 MB"
# of SRAM for 375K blocks.
PAPER_BYTES = 6e6
PAPER_BLOCKS = 375000
TARGET_NAMES = {"tofino": "Tofino-1", "tofino2": "Tofino-2"}


def _one(pattern):
    hits = sorted(glob.glob(pattern, recursive=True))
    return hits[0] if hits else None


def load(dirname):
    """The compile directory's JSON outputs (resources, phv, bf-rt)."""
    res = _one(os.path.join(dirname, "**", "logs", "resources.json"))
    if res is None:
        raise FileNotFoundError(f"{dirname}: no logs/resources.json "
                                "(compiled without -g?)")
    with open(res) as f:
        r = json.load(f)
    phv = _one(os.path.join(dirname, "**", "logs", "phv.json"))
    p = None
    if phv:
        with open(phv) as f:
            p = json.load(f)
    bfrt = _one(os.path.join(dirname, "**", "bf-rt.json"))
    b = None
    if bfrt:
        with open(bfrt) as f:
            b = json.load(f)
    return r, p, b


def gress_of(table):
    """Gress of a table from its P4 control name (LcfIngress / LcfEgress)."""
    t = table.lower()
    if "egress" in t:
        return "egress"
    return "ingress"


def _users(items):
    out = set()
    for it in items:
        for u in it.get("usages", []):
            out.add(u.get("used_by", ""))
    return out


def config_of(dirname):
    """(title, ways) of a compile.sh directory name target-wW-qQ."""
    name = os.path.basename(os.path.normpath(dirname))
    m = re.fullmatch(r"(tofino2?)-w(\d+)(?:-q(\d))?", name)
    if not m:
        return name, None
    q = m.group(3)
    title = "%s, LCF_WAYS=%s" % (TARGET_NAMES[m.group(1)], m.group(2))
    if q is not None:
        title += ", LCF_QUEUE=%s%s" % (q, " (retry mode only)" if q == "0" else "")
    return title, int(m.group(2))


def p4_tables(names):
    """The program's own tables of a stage (not the compiler's: tbl_* and
    cond-* for assignments and conditions, $next-table-* for Tofino-2's
    control flow), without the control prefix."""
    out = []
    for t in names:
        if t.startswith(("tbl_", "cond-", "$")) or "checksum" in t:
            continue
        out.append(t[len("LcfIngress."):] if t.startswith("LcfIngress.") else t)
    return out


def stage_rows(r):
    """One dict per MAU stage that holds anything."""
    mau = r["resources"]["mau"]
    rows = []
    for st in mau["mau_stages"]:
        lts = st["logical_tables"]["ids"]
        tables = sorted({t["table_name"] for t in lts})
        if not tables:
            continue
        rams = st["rams"]
        tcams = st["tcams"]
        meters = st["meter_alus"]
        stats = st["statistic_alus"]
        hb = st["hash_bits"]
        mr = st["map_rams"]
        gw = st["gateways"]
        salu = [m for m in meters["meters"]
                if any(u.get("used_for", "").startswith("stateful")
                       for u in m.get("usages", []))] or meters["meters"]
        rows.append({
            "stage": st["stage_number"],
            "gress": sorted({gress_of(t) for t in tables}),
            "tables": tables,
            "sram": (len(rams["srams"]), rams["nRows"] * rams["nColumns"]),
            "map_ram": (len(mr.get("maprams", mr.get("map_rams", []))),
                        mr.get("nRows", 0) * mr.get("nUnits", mr.get("nColumns", 0))),
            "tcam": (len(tcams["tcams"]), tcams["nRows"] * tcams["nColumns"]),
            "salu": (len(salu), meters["nAlus"]),
            "salu_users": sorted(_users(salu)),
            "stats": (len(stats["stats"]), stats["nAlus"]),
            "hash_bits": (len(hb["bits"]), hb["nBits"] * hb["nFunctions"]),
            "gateways": (len(gw.get("gateways", [])), gw.get("nRows", 0)),
            "ltables": (len(lts), st["logical_tables"]["size"]),
            "tables": tables,
        })
    return rows, mau["nStages"]


def stages_per_gress(rows):
    g = {"ingress": set(), "egress": set()}
    for row in rows:
        for x in row["gress"]:
            g[x].add(row["stage"])
    return {k: (max(v) + 1 if v else 0) for k, v in g.items()}


def phv_usage(p, r):
    """(used containers by width, available by width) or None."""
    if p is None:
        return None
    used = {}
    for c in p.get("containers", []):
        if c.get("slices"):
            w = c["bit_width"]
            used[w] = used.get(w, 0) + 1
    avail = {}
    for t in r["resources"].get("phv_containers", {}).get("normal", []):
        avail[t["width"]] = avail.get(t["width"], 0) + t["units"]
    return used, avail


def register_bits(b):
    """Register arrays from bf-rt.json: name -> (entries, bits per entry)."""
    regs = {}
    if b is None:
        return regs
    for t in b.get("tables", []):
        if t.get("table_type") != "Register":
            continue
        bits = 0
        for d in t.get("data", []):
            s = d.get("singleton", d)
            ty = s.get("type", {})
            if s.get("name", "").startswith("$"):
                continue
            bits += ty.get("width", 0)
        regs[t["name"]] = (t.get("size", 0), bits)
    return regs


def cmd_stages(dirname):
    r, _, _ = load(dirname)
    rows, n = stage_rows(r)
    g = stages_per_gress(rows)
    print(f"stages: ingress {g['ingress']}, egress {g['egress']} "
          f"(of {n})")
    return 0


def frac(p):
    used, tot = p
    return f"{used}/{tot}" if tot else f"{used}"


def report(dirs, commit):
    out = []
    w = out.append
    w("# Tofino resources of lcf.p4")
    w("")
    w("Generated by `lib/p4/tofino_resources.py --report` from the output of")
    w("`lib/p4/compile.sh --out DIR` (p4c-barefoot `-g`: resources.json,")
    w("phv.json, bf-rt.json). Do not edit by hand: recompile and regenerate")
    w("(docs/TOFINO.md, Compiling).")
    w("")
    if commit:
        w(f"Compiler: p4lang/p4c `{commit}`, backends/tofino.")
        w("")
    loaded = []
    for d in dirs:
        r, p, b = load(d)
        rows, n = stage_rows(r)
        title, ways = config_of(d)
        loaded.append((d, r, p, b, rows, n, title, ways))

    w("## Summary")
    w("")
    w("Register memory against the paper's (Concordia section 5: about 6 MB "
      f"for {PAPER_BLOCKS:,} blocks, {PAPER_BYTES / PAPER_BLOCKS:.0f} bytes a "
      "block). Per block: the sum of the per-way arrays' bits (TAG, LOCK, "
      "G-STATUS, COPYSET, VERSION, and QSTATE when the queued mode is in); "
      "the rest (LAST-UNLOCK, SCOREBOARD) is per requester.")
    w("")
    w("| configuration | ingress stages | egress stages | blocks | bytes per block "
      "| register memory | the paper's 6 MB |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    last_bpb = 0
    for d, r, p, b, rows, n, title, ways in loaded:
        g = stages_per_gress(rows)
        regs = register_bits(b)
        total = sum(e * bits // 8 for e, bits in regs.values())
        per_way = [(e, bits) for k, (e, bits) in regs.items()
                   if re.search(r"\.(tag|lcs|ver|queue\.qw)\d", k)]
        blocks = (max(e for e, _ in per_way) * ways) if per_way and ways else 0
        bpb = (sum(bits for _, bits in per_way) // 8 // ways) if ways else 0
        w(f"| {title} | {g['ingress']} of {n} | {g['egress']} of {n} | "
          f"{blocks:,} | {bpb} | {total / 2**20:.2f} MiB | "
          f"{100 * total / PAPER_BYTES:.0f}% |")
        last_bpb = bpb
    w("")
    if loaded and last_bpb:
        w("swswitch's `tofino` and `tofino2` topology profiles (lib/topo/topo.c, "
          "docs/TOPOLOGY.md) default to the geometries above. The `tofino` "
          f"profile's limits, the paper's {PAPER_BLOCKS:,} blocks, would take "
          f"{PAPER_BLOCKS * last_bpb / 2**20:.2f} MiB at these widths: "
          f"{last_bpb} bytes a block against the paper's "
          f"{PAPER_BYTES / PAPER_BLOCKS:.0f} (VERSION's 4 bytes are ours, "
          "PROTOCOL.md 4.10).")
        w("")

    for d, r, p, b, rows, n, title, ways in loaded:
        g = stages_per_gress(rows)
        w(f"## {title}")
        w("")
        w(f"p4c-barefoot {r.get('compiler_version', '')}; MAU stages: ingress "
          f"{g['ingress']}, egress {g['egress']} of {n}.")
        w("")
        w("| stage | gress | SRAM | map RAM | TCAM | stateful ALU | "
          "stats ALU | hash bits | logical tables | stateful ALUs used by |")
        w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for row in rows:
            users = ", ".join(u.split(".")[-2] + "." + u.split(".")[-1]
                              if u.count(".") >= 1 else u
                              for u in row["salu_users"]) or "-"
            w(f"| {row['stage']} | {'+'.join(row['gress'])} | "
              f"{frac(row['sram'])} | {frac(row['map_ram'])} | "
              f"{frac(row['tcam'])} | {frac(row['salu'])} | "
              f"{frac(row['stats'])} | {frac(row['hash_bits'])} | "
              f"{frac(row['ltables'])} | {users} |")
        tot = {k: sum(row[k][0] for row in rows)
               for k in ("sram", "map_ram", "tcam", "salu", "hash_bits")}
        cap = {k: n * (rows[0][k][1] if rows else 0) for k in tot}
        w(f"| all | | {tot['sram']}/{cap['sram']} | "
          f"{tot['map_ram']}/{cap['map_ram']} | {tot['tcam']}/{cap['tcam']}"
          f" | {tot['salu']}/{cap['salu']} | | "
          f"{tot['hash_bits']}/{cap['hash_bits']} | | |")
        w("")
        w("The program's tables per stage (without the compiler's own for "
          "assignments, conditions and register executions outside a table: "
          "the last column above names the registers):")
        w("")
        w("| stage | tables |")
        w("| --- | --- |")
        for row in rows:
            w(f"| {row['stage']} | {', '.join(p4_tables(row['tables'])) or '-'} |")
        w("")
        pu = phv_usage(p, r)
        if pu:
            used, avail = pu
            parts = [f"{used.get(k, 0)}/{avail[k]} x {k}-bit"
                     for k in sorted(avail)]
            w("PHV containers used: " + ", ".join(parts) + ".")
            w("")
        regs = register_bits(b)
        if regs:
            w("| register array | entries | bits/entry | bytes |")
            w("| --- | --- | --- | --- |")
            total = 0
            for k in sorted(regs):
                ent, bits = regs[k]
                by = ent * bits // 8
                total += by
                w(f"| `{k}` | {ent} | {bits} | {by:,} |")
            w(f"| all | | | {total:,} ({total / 2**20:.2f} MiB) |")
            w("")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--stages", metavar="DIR")
    g.add_argument("--report", metavar="DIR", nargs="+")
    ap.add_argument("-o", "--output")
    ap.add_argument("--commit", default="")
    a = ap.parse_args()
    try:
        if a.stages:
            return cmd_stages(a.stages)
        text = report(a.report, a.commit)
    except (OSError, KeyError, ValueError) as e:
        print(f"tofino_resources.py: {e}", file=sys.stderr)
        return 1
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
