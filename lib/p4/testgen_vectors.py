#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Translate p4testgen's Tofino PTF tests of lcf.p4 into pcap-test vectors.

p4testgen (p4lang/p4c backends/p4tools, `--target tofino --arch tna
--test-backend PTF`) writes one Python file of `class TestN(AbstractTest)`
blocks (targets/tofino/test_backend/ptf.cpp): `setupCtrlPlane` installs table
entries (`insertTableEntry`), default actions (`overrideDefaultEntry`) and
initial register values (`setRegisterValue`); `sendPacket` sends `pkt` on
`ig_port`; `verifyPackets` expects `exp_pkt` on `eg_port` with the bits
`set_do_not_care(bit_offset, bit_width)` ignored, or nothing. The file is
read with `ast`, never executed. One file of about 600 lines: the reading
and the translation share each test's record.

A test becomes a vector (pcap-tests/vectors, docs/PCAP-TESTS.md) for
swswitch, whose pipeline is lib/lcf, when its control plane is one a
topology installs:

  * every entry it adds is an entry lib/p4/topo_to_bfrt.py generates for the
    topology (same table, action, key values and masks, action data);
  * every default it overrides is the topology's, and every default the
    topology sets is overridden (else the test ran with the P4's default);
  * every register it initialises starts at 0 (power-on);
  * its ports are topology ports (dev_port = swswitch port, identity map).

Anything else is skipped with its reason. The tables the topology fills but
the test left empty are listed in the vector ("testgen.assumed_miss"):
p4testgen took their default action, the topology may hit; a mismatch there
is a translation limit, not a C or P4 bug.

  testgen_vectors.py --topology pcap3.json [--seed N] [--queue]
                     [--out DIR] [--first N] [--summary FILE] PTF_FILE...
  testgen_vectors.py --topology pcap3.json --assumptions

Writes DIR/<NNN>-testgen-<file>-<test>/vector.json for each translated test
(NNN from --first, default 900) and prints one line per test and the
counts. Exit 0 (skips are results), 2 on unreadable input.
"""
import argparse
import ast
import contextlib
import io
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import topo_to_bfrt  # noqa: E402


class TestgenError(Exception):
    pass


# ------------------------------------------------------------- PTF reading

def _const(node, where):
    """The value of a literal (int, str, bytes, bool, list/tuple of them)."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise TestgenError("%s: not a literal: %s" % (where, ast.unparse(node)))


def _call_name(call):
    """'self.insertTableEntry' -> 'insertTableEntry'; 'gc.KeyTuple' -> 'KeyTuple'."""
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")


def _key_tuple(call, where):
    if _call_name(call) != "KeyTuple" or not call.args:
        raise TestgenError("%s: expected gc.KeyTuple, got %s" % (where, ast.unparse(call)))
    name = _const(call.args[0], where)
    kw = {k.arg: _const(k.value, where) for k in call.keywords}
    rest = [_const(a, where) for a in call.args[1:]]
    if "low" in kw or "high" in kw:
        return name, ("range", kw.get("low"), kw.get("high"))
    if "prefix_len" in kw:
        return name, ("lpm", rest[0], kw["prefix_len"])
    if len(rest) == 2:
        return name, ("ternary", rest[0], rest[1])
    if len(rest) == 1:
        return name, ("exact", rest[0])
    raise TestgenError("%s: KeyTuple %s has no value" % (where, name))


# Register values at power-on other than 0 (lcf_ways.p4: last_unlock {0, 1})
POWER_ON = {"open_seq": 1}


def _power_on(value):
    """Whether setRegisterValue's value is the register's power-on value."""
    if not isinstance(value, list):
        return value == 0
    return all(v == POWER_ON.get(_short(f), 0) for f, v in value)


def power_on_sources(src, dst):
    """Copy lib/p4's *.p4 to dst with, at the top of every RegisterAction,
    a testgen_assume that the cell holds its power-on value: p4testgen
    starts registers symbolic, and one packet reads a cell once."""
    pairs = {"tag_pair_t": ("lo", "hi"), "q_pair_t": ("lo", "hi"),
             "lu_pair_t": ("seq", "open_seq"), "qg_pair_t": ("seq", "eo")}

    def assume(m):
        t = m.group(2)
        if t in pairs:
            cond = " && ".join("v.%s == %d" % (f, POWER_ON.get(f, 0)) for f in pairs[t])
        elif t.startswith("bit<"):
            cond = "v == 0"
        else:
            raise TestgenError("RegisterAction on %s: no power-on value" % t)
        return "%s LCF_TESTGEN_ASSUME(%s);" % (m.group(1), cond)

    n = 0
    for name in sorted(os.listdir(src)):
        if not name.endswith(".p4"):
            continue
        with open(os.path.join(src, name)) as f:
            text = f.read()
        text = text.replace("home_tbl.apply();",
                            "home_tbl.apply(); LCF_TESTGEN_ASSUME(LCF_TESTGEN_TABLES);")
        text, k = re.subn(r"(void apply\(inout ([\w<>]+) v, out [^)]*\) \{)", assume, text)
        n += k
        with open(os.path.join(dst, name), "w") as f:
            f.write(text)
    return n


def _data_tuples(node, where):
    out = {}
    for c in getattr(node, "elts", []):
        if not isinstance(c, ast.Call) or _call_name(c) != "DataTuple":
            raise TestgenError("%s: expected gc.DataTuple, got %s" % (where, ast.unparse(c)))
        out[_const(c.args[0], where)] = _const(c.args[1], where)
    return out


def _setup(fn, test, where):
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        if name == "insertTableEntry":
            table = _const(node.args[0], where)
            keys = dict(_key_tuple(k, where) for k in node.args[1].elts)
            action = _const(node.args[2], where) if len(node.args) > 2 else None
            data = _data_tuples(node.args[3], where) if len(node.args) > 3 else {}
            if action is None:
                test["unsupported"].append("action profile member in %s" % table)
                continue
            test["entries"].append({"table": table, "action": action,
                                    "keys": keys, "data": data})
        elif name == "overrideDefaultEntry":
            table = _const(node.args[0], where)
            test["defaults"][table] = {"action": _const(node.args[1], where),
                                       "data": _data_tuples(node.args[2], where)}
        elif name == "setRegisterValue":
            value = _const(node.args[1], where)
            vals = [v for _, v in value] if isinstance(value, list) else [value]
            test["registers"].append({"name": _const(node.args[0], where),
                                      "index": _const(node.args[2], where),
                                      "zero": _power_on(value)})
        elif name in ("setDirectRegisterValue", "default_entry_set"):
            # a direct register or a register parameter: neither exists in
            # lcf.p4, so a test that sets one is not of this program's form
            test["unsupported"].append(name)


def _assigns(fn, where):
    out = {}
    for node in fn.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass  # exp_pkt = Mask(exp_pkt)
    return out


def _verify(fn, test, where):
    a = _assigns(fn, where)
    if "eg_port" not in a:
        test["expect"] = None  # verify_no_other_packets: nothing leaves
        return
    if not isinstance(a.get("exp_pkt"), bytes):
        raise TestgenError("%s: verifyPackets has eg_port but no exp_pkt bytes" % where)
    pkt = a["exp_pkt"]
    mask = bytearray(b"\xff" * len(pkt))
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and _call_name(node) == "set_do_not_care":
            off, width = (_const(x, where) for x in node.args[:2])
            if off < 0 or width < 0 or off + width > 8 * len(pkt):
                raise TestgenError("%s: set_do_not_care(%d, %d) outside a %d-byte packet"
                                   % (where, off, width, len(pkt)))
            for bit in range(off, off + width):
                mask[bit // 8] &= ~(0x80 >> (bit % 8)) & 0xff
    test["expect"] = {"port": a["eg_port"], "pkt": pkt, "mask": bytes(mask)}


def parse_ptf(text, path="<ptf>"):
    """Every `class TestN(...)` of a p4testgen PTF file, as dicts."""
    try:
        tree = ast.parse(text, path)
    except SyntaxError as e:
        raise TestgenError("%s: not Python: %s" % (path, e))
    tests = []
    for cls in tree.body:
        if not (isinstance(cls, ast.ClassDef) and re.fullmatch(r"Test\d+", cls.name)):
            continue
        where = "%s:%s" % (path, cls.name)
        test = {"name": cls.name, "entries": [], "defaults": {}, "registers": [],
                "unsupported": [], "send": None, "expect": None,
                "trace": ast.get_docstring(cls) or ""}
        for fn in cls.body:
            if not isinstance(fn, ast.FunctionDef):
                continue
            if fn.name == "setupCtrlPlane":
                _setup(fn, test, where)
            elif fn.name == "sendPacket":
                a = _assigns(fn, where)
                if "ig_port" in a and isinstance(a.get("pkt"), bytes):
                    test["send"] = {"port": a["ig_port"], "pkt": a["pkt"]}
            elif fn.name == "verifyPackets":
                _verify(fn, test, where)
        tests.append(test)
    return tests


# ------------------------------------------------- the topology's entries

class _Recorder:
    """Stands in for bfrt_python: records every call of the generated script."""

    def __init__(self, calls, path):
        self._calls, self._path = calls, path

    def __getattr__(self, name):
        return _Recorder(self._calls, self._path + [name])

    def __call__(self, *args, **kw):
        self._calls.append((self._path, kw))
        return _Recorder(self._calls, self._path + ["()"])


def topology_control_plane(topo_file, seed=1, queue=False):
    """(entries, defaults) topo_to_bfrt.py installs: entries maps a table
    ("LcfIngress.prepare.node_tbl") to [(action, params)], defaults maps a
    table to (action, params)."""
    topo = topo_to_bfrt.load_topology(topo_file)
    script = topo_to_bfrt.generate(topo, {}, "lcf", 512, seed, topo_file, queue)
    calls = []
    with contextlib.redirect_stdout(io.StringIO()):  # the script's own progress lines
        exec(compile(script, "topo_to_bfrt", "exec"), {"bfrt": _Recorder(calls, ["bfrt"])})
    entries, defaults = {}, {}
    for path, kw in calls:
        if path[:3] != ["bfrt", "lcf", "pipe"] or len(path) < 5:
            continue  # PRE, mirror: no p4testgen counterpart
        table, op = ".".join(path[3:-1]), path[-1]
        if op.startswith("add_with_"):
            entries.setdefault(table, []).append((op[len("add_with_"):], kw))
        elif op.startswith("set_default_with_"):
            defaults[table] = (op[len("set_default_with_"):], kw)
    return entries, defaults


# -------------------------------------------------------------- matching

def _short(name):
    """A key, action or parameter name without its control path or slice."""
    return re.sub(r"\[\d+:\d+\]$", "", name).split(".")[-1]


def _table_of(name, tables):
    """The topology table a p4testgen table name denotes ("pipe." and any
    control-path prefix may differ; the last two components must agree)."""
    n = name[len("pipe."):] if name.startswith("pipe.") else name
    hits = [t for t in tables if t == n or t.endswith("." + n) or n.endswith("." + t)]
    if not hits and n.count(".") >= 1:
        tail = ".".join(n.split(".")[-2:])
        hits = [t for t in tables if t.endswith("." + tail) or t == tail]
    return hits[0] if len(hits) == 1 else None


def _entry_matches(ent, action, params):
    if _short(ent["action"]) != action:
        return False
    used = {"MATCH_PRIORITY"}
    for kname, key in ent["keys"].items():
        k = _short(kname)
        if k == "MATCH_PRIORITY":
            continue
        if key[0] == "exact":
            if params.get(k) != key[1]:
                return False
        elif key[0] == "ternary":
            mask = params.get(k + "_mask")
            if mask != key[2] or (params.get(k, 0) & mask) != (key[1] & key[2]):
                return False
            used.add(k + "_mask")
        else:
            return False  # range and lpm: no topology table has them
        used.add(k)
    data = {_short(p): v for p, v in ent["data"].items()}
    rest = {p: v for p, v in params.items() if p not in used}
    return data == rest


# The P4's own default actions of the exact-match tables whose entries
# p4testgen may add with that same action: such an entry on a key the
# topology does not use behaves as a miss, so it is dropped, not a skip.
P4_DEFAULTS = {"LcfIngress.l2.dmac": ("l2_flood", {}),
               "LcfIngress.prepare.node_tbl": ("node_absent", {}),
               "LcfIngress.prepare.node_port_tbl": ("port_differs", {}),
               "LcfIngress.prepare.requester_tbl": ("no_requester", {}),
               "LcfEgress.eg_node": ("node_unknown", {})}


# Ternary tables likewise, by the packet's key (p4testgen's trace has every
# extracted field): a miss when no topology entry matches it
P4_TERNARY_DEFAULTS = {"LcfIngress.prepare.home_tbl": ("no_home", "tag", "hdr.lcf.tag")}


def _traced_field(trace, field):
    m = re.search(r"%s = 0x([0-9A-Fa-f_]+)" % re.escape(field), trace)
    return int(m.group(1).replace("_", ""), 16) if m else None


def _is_miss(ent, table, entries, trace=""):
    t = P4_TERNARY_DEFAULTS.get(table)
    if t is not None:
        val = _traced_field(trace, t[2])
        if _short(ent["action"]) != t[0] or ent["data"] or val is None:
            return False
        return not any((val & p[t[1] + "_mask"]) == (p[t[1]] & p[t[1] + "_mask"])
                       for _, p in entries.get(table, []))
    d = P4_DEFAULTS.get(table)
    if d is None or _short(ent["action"]) != d[0] or ent["data"]:
        return False
    keys = {_short(k): v[1] for k, v in ent["keys"].items() if v[0] == "exact"}
    if len(keys) != len(ent["keys"]):
        return False
    return not any(all(p.get(k) == v for k, v in keys.items())
                   for _, p in entries.get(table, []))


def _chain(pairs, last):
    """cond1 ? then1 : (cond2 ? then2 : (... last)): p4c parses an
    unparenthesised a ? b : c ? d : e as (a ? b : c) ? d : e."""
    out = "(%s)" % last
    for cond, then in reversed(pairs):
        out = "((%s) ? (%s) : %s)" % (cond, then, out)
    return out


def assumptions(topo_cp):
    """The two p4testgen assumptions (LCF_TESTGEN_CFG, LCF_TESTGEN_L2 in
    lcf.p4) that hold exactly when switch_cfg and l2.dmac behave as the
    topology's control plane makes them behave."""
    entries, defaults = topo_cp
    a, p = defaults["LcfIngress.prepare.switch_cfg"]
    if a != "set_switch":
        raise TestgenError("switch_cfg default %s, expected set_switch" % a)
    cfg = " && ".join("md.%s == %d" % (f, p[k]) for f, k in (
        ("sw_mac", "mac"), ("sw_ip", "ip"), ("node_mask", "node_mask"),
        ("has_shadow", "has_shadow"), ("prov_k", "prov_k")))
    ports = sorted({q["ingress_port"] for _, q in entries.get("LcfIngress.prepare.node_port_tbl", [])})
    if ports:  # frames enter on a topology port
        cfg += " && (%s)" % " || ".join("ig_intr_md.ingress_port == %d" % n for n in ports)
    hits, misses = [], []
    for act, q in entries.get("LcfIngress.l2.dmac", []):
        if act != "l2_forward":
            raise TestgenError("l2.dmac entry %s, expected l2_forward" % act)
        hits.append(("hdr.ethernet.dst_addr == %d" % q["dst_mac"],
                     "ig_tm_md.ucast_egress_port == %d" % q["port"]))
    # a chain of ?: : an || would read the field the other action left
    # unwritten, and p4testgen drops an assumption on a tainted value
    return "(%s)" % cfg, _chain(hits, "ig_tm_md.mcast_grp_a == LCF_FLOOD_GRP")


def _crc32c(init, data):
    """C lcf_crc32c: reflected CRC-32C, init given, no final xor."""
    crc = init
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def crc_xors(inputs, seed_bits, out_bits):
    """lcf_ways.p4's CUSTOM CRC-32C hashes as P4 XORs (p4testgen's Tofino
    target fails on CUSTOM hashes: its Hash.get reads the polynomial from
    the call's arguments). A CRC without final xor is linear in (init,
    data): output bit k is the XOR of the input bits whose unit vector
    sets it. inputs: 8 bytes (little-endian) as (P4 field, its first bit),
    None for 0;
    seed_bits: the P4 name of the 32-bit init or None; out_bits: output
    bit numbers, most significant first. Returns a P4 expression."""
    terms = {k: [] for k in out_bits}
    for i, byte in enumerate(inputs):
        for j in range(8):
            if byte is None:
                continue
            data = bytearray(8)
            data[i] = 1 << j
            c = _crc32c(0, bytes(data))
            for k in out_bits:
                if c >> k & 1:
                    terms[k].append("%s[%d:%d]" % (byte[0], byte[1] + j, byte[1] + j))
    if seed_bits:
        for j in range(32):
            c = _crc32c(1 << j, bytes(8))
            for k in out_bits:
                if c >> k & 1:
                    terms[k].append("%s[%d:%d]" % (seed_bits, j, j))
    bits = ["(%s)" % " ^ ".join(terms[k]) if terms[k] else "1w0" for k in out_bits]
    return "(" + " ++ ".join(bits) + ")"


def hash_assumptions(slot_bits):
    """#define lines for LCF_TESTGEN_SLOT and LCF_TESTGEN_PROV."""
    tag = [("hdr.lcf.tag", 8 * i) for i in range(8)]
    prov = [("hdr.lcf.seq", 8 * i) for i in range(4)] + [("md.req", 0), ("md.req", 8), None, None]
    out = ["#define LCF_TESTGEN_PROV %s" % crc_xors(prov, None, range(4, -1, -1))]
    if slot_bits:
        out.append("#define LCF_TESTGEN_SLOT %s"
                   % crc_xors(tag, "seed", range(31, 31 - slot_bits, -1)))
    return out


# Stage 0's topology tables as one more assumption (after home_tbl): key
# fields, and each action's effect on the metadata (hit, then the default)
STAGE0 = [
    ("LcfIngress.prepare.node_tbl", {"node": "hdr.lcf.node"},
     {"node_exists": "md.node_known == 1 && md.node_bit == {node_bit}"}, "md.node_known == 0"),
    ("LcfIngress.prepare.node_port_tbl",
     {"node": "hdr.lcf.node", "ingress_port": "ig_intr_md.ingress_port"},
     {"port_matches": "md.port_ok == 1"}, "md.port_ok == 0"),
    ("LcfIngress.prepare.requester_tbl",
     {"node": "hdr.lcf.node", "thread": "hdr.lcf.thread", "seq_parity": "hdr.lcf.seq[0:0]"},
     {"set_requester": "md.req_ok == 1 && md.req == {req} && md.sb_idx == {sb_idx}"},
     "md.req_ok == 0"),
    ("LcfIngress.prepare.home_tbl", {"tag": "hdr.lcf.tag"},
     {"set_home": "md.home_ok == 1 && md.home == {home} && md.home_port == {port}"},
     "md.home_ok == 0"),
]


def stage0_assumption(topo_cp):
    entries = topo_cp[0]
    out = []
    for table, keys, effects, miss in STAGE0:
        pairs = []
        for act, p in entries.get(table, []):
            conds = []
            for k, field in keys.items():
                if k + "_mask" in p:
                    conds.append("(%s & %d) == %d" % (field, p[k + "_mask"],
                                                      p[k] & p[k + "_mask"]))
                else:
                    conds.append("%s == %d" % (field, p[k]))
            pairs.append((" && ".join(conds), effects[act].format(**p)))
        out.append(_chain(pairs, miss))
    return "(%s)" % " && ".join(out)


def translate(test, topo_file, topo_cp, topo_ports):
    """(vector dict, None) or (None, reason)."""
    entries, defaults = topo_cp
    if test["unsupported"]:
        return None, "unsupported control plane: " + ", ".join(test["unsupported"])
    nonzero = [r["name"] for r in test["registers"] if not r["zero"]]
    if nonzero:
        return None, "register not at power-on: " + ", ".join(sorted(set(nonzero)))
    if test["send"] is None:
        return None, "no packet sent"
    if re.search(r"Computed: ig_tm_md\.mcast_grp_a = [1-9]", test.get("trace", "")):
        # its Tofino model has no PRE: a multicast frame is expected nowhere
        return None, "multicast (PRE) not modelled by p4testgen"
    if test["send"]["port"] not in topo_ports:
        return None, "ingress port %d is no topology port" % test["send"]["port"]
    exp = test["expect"]
    if exp is not None and exp["port"] not in topo_ports:
        return None, "egress port %d is no topology port" % exp["port"]
    all_tables = set(entries) | set(defaults)
    touched = set()
    for ent in test["entries"]:
        t = _table_of(ent["table"], all_tables)
        if t is not None and _is_miss(ent, t, entries, test.get("trace", "")):
            continue
        if t is None or not any(_entry_matches(ent, a, p) for a, p in entries.get(t, [])):
            return None, "entry not the topology's: %s %s" % (ent["table"], _short(ent["action"]))
        touched.add(t)
    over = {}
    for name, d in test["defaults"].items():
        t = _table_of(name, all_tables)
        if t is None or t not in defaults:
            return None, "default of %s is not set by the topology" % name
        a, p = defaults[t]
        if _short(d["action"]) != a or {_short(k): v for k, v in d["data"].items()} != p:
            return None, "default of %s not the topology's" % name
        over[t] = True
    # a default the path never applied (p4testgen's trace in the docstring
    # names every table it applied) cannot matter
    missing = sorted(t for t in defaults if t not in over
                     and ("Table Branch: %s" % t in test.get("trace", "")
                          or "[Table Branch:" not in test.get("trace", "")))
    if missing:
        return None, "topology default not set by the test: " + ", ".join(missing)
    mask = exp["mask"] if exp else b""
    expect = "nothing"
    if exp is not None:
        e = {"port": exp["port"], "raw": exp["pkt"].hex()}
        if mask != b"\xff" * len(mask):
            e["raw_mask"] = mask.hex()
        expect = [e]
    return {
        "topology": os.path.basename(topo_file),
        "description": "p4testgen (Tofino PTF) %s translated by lib/p4/testgen_vectors.py: "
                       "the compiled program's expected output for this input and "
                       "control plane." % test["name"],
        "testgen": {"test": test["name"],
                    "entries": len(test["entries"]),
                    "defaults": sorted(over),
                    "assumed_miss": sorted(t for t in entries if t not in touched)},
        "steps": [{"comment": "%s: packet on port %d" % (test["name"], test["send"]["port"]),
                   "in": {"port": test["send"]["port"], "raw": test["send"]["pkt"].hex()},
                   "expect": expect}],
    }, None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topology", required=True,
                    help="topology JSON (a name under topo/ or a path)")
    ap.add_argument("--seed", type=int, default=1, help="swswitch --seed (default 1)")
    ap.add_argument("--queue", action="store_true", help="program built with LCF_QUEUE=1")
    ap.add_argument("--out", help="directory for the vectors (default: none written)")
    ap.add_argument("--first", type=int, default=900, help="first vector number (900)")
    ap.add_argument("--summary", help="write the per-test results as JSON")
    ap.add_argument("--assumptions", action="store_true",
                    help="print the topology's LCF_TESTGEN_CFG and LCF_TESTGEN_L2 "
                         "(two lines) and exit")
    ap.add_argument("--p4-copy", metavar="DIR",
                    help="copy lib/p4's P4 to DIR, registers assumed at power-on, and exit")
    ap.add_argument("--hashes", type=int, metavar="SLOT_BITS",
                    help="print lcf_ways.p4's hashes as P4 XORs (#define lines) and exit")
    ap.add_argument("ptf", nargs="*", help="p4testgen PTF file(s)")
    a = ap.parse_args(argv)
    topo_file = a.topology
    if not os.path.exists(topo_file):
        topo_file = os.path.join(ROOT, "topo", a.topology)
    try:
        topo_cp = topology_control_plane(topo_file, a.seed, a.queue)
        with open(topo_file) as f:
            ports = {n["port"] for n in json.load(f)["nodes"]}
        if a.assumptions:
            print("\n".join(assumptions(topo_cp) + (stage0_assumption(topo_cp),)))
            return 0
        if a.p4_copy:
            print("testgen_vectors: %d RegisterActions assume power-on"
                  % power_on_sources(HERE, a.p4_copy))
            return 0
        if a.hashes is not None:
            print("\n".join(hash_assumptions(a.hashes)))
            return 0
    except (OSError, ValueError, KeyError, TestgenError, topo_to_bfrt.TopoError) as e:
        print("testgen_vectors: %s: %s" % (topo_file, e), file=sys.stderr)
        return 2
    results, n = [], a.first
    for path in a.ptf:
        try:
            with open(path) as f:
                tests = parse_ptf(f.read(), path)
        except (OSError, UnicodeDecodeError, TestgenError) as e:
            print("testgen_vectors: %s" % e, file=sys.stderr)
            return 2
        stem = re.sub(r"[^A-Za-z0-9]+", "-", os.path.splitext(os.path.basename(path))[0])
        for t in tests:
            vec, why = translate(t, topo_file, topo_cp, ports)
            r = {"file": path, "test": t["name"], "translated": vec is not None}
            if vec is None:
                r["skipped"] = why
                print("%s %s: skipped: %s" % (path, t["name"], why))
            else:
                name = "%03d-testgen-%s-%s" % (n, stem, t["name"].lower())
                n += 1
                r["vector"] = name
                print("%s %s: %s" % (path, t["name"], name))
                if a.out:
                    os.makedirs(os.path.join(a.out, name), exist_ok=True)
                    with open(os.path.join(a.out, name, "vector.json"), "w") as f:
                        json.dump(vec, f, indent=2)
                        f.write("\n")
            results.append(r)
    done = sum(r["translated"] for r in results)
    print("testgen_vectors: %d tests, %d translated, %d skipped"
          % (len(results), done, len(results) - done))
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
