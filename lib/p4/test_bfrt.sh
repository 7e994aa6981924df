#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Test of topo_to_bfrt.py: generate the bfrt_python set-up for
# topo/demo4.json (or an inline 2-node topology when it is absent), run the
# generated script against a recording stand-in for bfrt_python's `bfrt`
# object, and check every table entry, multicast group and mirror session
# it would create. Also: a --port-map is applied, and bad topologies are
# refused. Prints "N passed, N failed"; exit 0 when all pass.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gen="$here/topo_to_bfrt.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The names the compiler wrote: BFRT_JSON (a bf-rt.json, e.g. from
# lib/p4/compile.sh --out DIR), else the committed reduction.
names=""
if [ -n "${BFRT_JSON:-}" ]; then
    python3 "$here/bfrt_names.py" "$BFRT_JSON" -o "$tmp/names.json" || exit 1
    names="$tmp/names.json"
elif [ -f "$here/bfrt-names.json" ]; then
    names="$here/bfrt-names.json"
fi

topo="$root/topo/demo4.json"
if [ ! -f "$topo" ]; then
    topo="$tmp/inline.json"
    cat > "$topo" <<'EOF'
{
  "lcf_port": 7340,
  "block_size": 4096,
  "switch": { "mac": "02:00:00:00:00:fe", "ip": "10.0.0.254",
              "profile": "tofino", "ways": 10, "slots_per_way": 37500 },
  "nodes": [ { "id": 0, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "port": 0 },
             { "id": 1, "mac": "02:00:00:00:00:02", "ip": "10.0.0.2", "port": 1 } ],
  "shadow": 1
}
EOF
fi

python3 - "$gen" "$topo" "$tmp" "$names" <<'PYEOF'
import json, re, subprocess, sys

gen, topo_path, tmp, names_path = sys.argv[1:5]
every_call = []     # every recorded bfrt call, for the names check
passed = failed = 0
# crc32c(seed 1, 8 zero bytes) & 0x1f, the default seed's prov_k: the value
# of C lcf_crc32c_u64(1, 0) (0x493c7d27, asserted in lib/tests/test_pipeline_events.c)
PROV_K = 0x493c7d27 & 0x1f

def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)

class Rec:
    """Stands in for bfrt_python: every attribute chain is a table path,
    every call is recorded as (path, method, kwargs)."""
    def __init__(self, log, path=""):
        self._log, self._path = log, path
    def __getattr__(self, name):
        return Rec(self._log, self._path + "." + name if self._path else name)
    def __call__(self, *args, **kw):
        tbl, _, meth = self._path.rpartition(".")
        self._log.append((tbl, meth, args, kw))
        every_call.append((tbl, meth, kw))
        return self

def run(port_map=None, topo=topo_path):
    cmd = [sys.executable, gen, topo, "-o", tmp + "/out.py", "--queue"]
    if port_map:
        cmd += ["--port-map", port_map]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return p, None
    log = []
    code = open(tmp + "/out.py").read()
    exec(compile(code, "generated", "exec"), {"bfrt": Rec(log), "print": lambda *a: None})
    return p, log

topo = json.load(open(topo_path))
nodes = sorted(topo["nodes"], key=lambda n: n["id"])
ids = [n["id"] for n in nodes]
threads = topo.get("threads_per_node", 16)
shadow = topo.get("shadow", -1)
bs = topo.get("block_size", 4096)
shift = 48 - (bs.bit_length() - 1)
def mac(s): return int(s.replace(":", ""), 16)
def ip(s):
    a = [int(x) for x in s.split(".")]
    return a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]

for pm, devof in ((None, {n["id"]: n["port"] for n in nodes}),
                  (",".join("%d:%d" % (n["port"], 128 + 8 * n["port"]) for n in nodes),
                   {n["id"]: 128 + 8 * n["port"] for n in nodes})):
    tag = "port-map %s" % (pm or "identity")
    p, log = run(pm)
    check(p.returncode == 0 and log is not None, "%s: generator runs, script executes" % tag)
    if log is None:
        print(p.stderr)
        continue
    def calls(tbl, meth):
        return [kw for t, m, a, kw in log if t.endswith(tbl) and m == meth]
    check(calls("lcf_port_vs", "add") == [{"f1": topo.get("lcf_port", 7340), "f1_mask": 0xffff}],
          "%s: LCF port value set" % tag)
    sw = calls("prepare.switch_cfg", "set_default_with_set_switch")
    nm = sum(1 << i for i in ids)
    check(sw == [{"mac": mac(topo["switch"]["mac"]), "ip": ip(topo["switch"]["ip"]),
                  "node_mask": nm, "has_shadow": 1 if shadow >= 0 else 0,
                  "prov_k": PROV_K}],
          "%s: switch MAC/IP, node mask 0x%x, shadow flag, provider seed term" % (tag, nm))
    check(sorted((k["node"], k["node_bit"]) for k in calls("prepare.node_tbl", "add_with_node_exists"))
          == [(i, 1 << i) for i in ids], "%s: node_tbl has every node" % tag)
    check(sorted((k["node"], k["ingress_port"]) for k in calls("prepare.node_port_tbl", "add_with_port_matches"))
          == sorted((i, devof[i]) for i in ids), "%s: node_port_tbl maps node -> dev_port" % tag)
    rq = calls("prepare.requester_tbl", "add_with_set_requester")
    want = sorted((i, t, p_, i * threads + t, 2 * (i * threads + t) + p_)
                  for i in ids for t in range(threads) for p_ in (0, 1))
    check(sorted((k["node"], k["thread"], k["seq_parity"], k["req"], k["sb_idx"]) for k in rq) == want,
          "%s: requester_tbl has %d entries, r = node*%d+thread" % (tag, len(want), threads))
    hm = calls("prepare.home_tbl", "add_with_set_home")
    mask = ((1 << 64) - 1) & ~((1 << shift) - 1)
    check(sorted((k["tag"], k["tag_mask"], k["home"], k["port"]) for k in hm)
          == sorted((i << shift, mask, i, devof[i]) for i in ids),
          "%s: home_tbl matches tag >> %d" % (tag, shift))
    en = calls("eg_node", "add_with_node_addr")
    check(sorted((k["node"], k["mac"], k["ip"], k["n_bit"]) for k in en)
          == sorted((n["id"], mac(n["mac"]), ip(n["ip"]), 1 << n["id"]) for n in nodes),
          "%s: egress node addresses" % tag)
    check(sorted((k["dst_mac"], k["port"]) for k in calls("l2.dmac", "add_with_l2_forward"))
          == sorted((mac(n["mac"]), devof[n["id"]]) for n in nodes), "%s: L2 dmac entries" % tag)
    pre = calls("pre.node", "entry")
    l1 = {k["MULTICAST_NODE_ID"]: k for k in pre}
    mg = {k["MGID"]: k for k in calls("pre.mgid", "entry")}
    ok = 1 in mg and all(l1[x]["DEV_PORT"] == [devof[l1[x]["MULTICAST_RID"]]]
                         for x in mg[1]["MULTICAST_NODE_ID"]) and \
        sorted(l1[x]["MULTICAST_RID"] for x in mg[1]["MULTICAST_NODE_ID"]) == ids
    check(ok, "%s: copyset multicast group 1: one L1 node per node, rid = node id" % tag)
    ok = 2 in mg and len(mg[2]["MULTICAST_NODE_ID"]) == 1 and \
        sorted(l1[mg[2]["MULTICAST_NODE_ID"][0]]["DEV_PORT"]) == sorted(devof.values())
    check(ok, "%s: L2 flood group 2 covers every node port" % tag)
    mi = calls("mirror.cfg", "entry_with_normal")
    if shadow >= 0:
        check(len(mi) == 1 and mi[0]["ucast_egress_port"] == devof[shadow]
              and mi[0]["direction"] == "EGRESS",
              "%s: mirror session to the shadow node %d" % (tag, shadow))
        check(calls("shadow_cfg", "set_default_with_set_shadow") == [{"node": shadow, "sid": mi[0]["sid"]}],
              "%s: egress knows the shadow node and its session" % tag)
    ow = calls("pick.pick_owner", "add_with_set_owner")
    # owner = lowest set bit: evaluate the entries on every single-node and two-node copyset
    def first(entries, key):
        best = None
        for e in entries:
            if all((key[k] & e[k + "_mask"]) == (e[k] & e[k + "_mask"]) if k + "_mask" in e
                   else key[k] == e[k] for k in key):
                if best is None or e["MATCH_PRIORITY"] < best["MATCH_PRIORITY"]:
                    best = e
        return best
    ok = all(first(ow, {"copyset": (1 << a) | (1 << b)})["node"] == min(a, b)
             for a in ids for b in ids)
    check(ok, "%s: pick_owner gives the lowest copyset node (C ctz)" % tag)
    pv = calls("pick.pick_provider", "add_with_set_provider")
    ok = len(pv) == 32 * len(ids)
    for a in ids:
        for b in ids:
            cs = (1 << a) | (1 << b)
            got = set(first([e for e in pv if e["rnd"] == r], {"copyset": cs})["node"]
                      for r in range(32))
            ok = ok and got <= {a, b} and (len(got) == 2 or a == b or len(ids) < 2)
    check(ok, "%s: pick_provider: %d entries, always a copyset node, both of two chosen"
          % (tag, 32 * len(ids)))
    ports_ok = all(e["port"] == devof[e["node"]] for e in pv + ow)
    check(ports_ok, "%s: provider/owner entries carry the node's dev_port" % tag)
    # queued lock mode (lcf_queue.p4)
    lm = calls("prepare.lock_mode_cfg", "set_default_with_set_lock_mode")
    want_q = 1 if topo["switch"].get("lock_mode", "retry") == "queued" else 0
    check(lm == [{"queued": want_q}], "%s: lock mode %d from switch.lock_mode" % (tag, want_q))
    qs = calls("queue.q_self_tbl", "add_with_q_self")
    qn = calls("queue.q_next_tbl", "add_with_q_next")
    want_s = sorted((i, t, (i + 1) << 10 | t, (i + 1) << 4 | (t & 0xf))
                    for i in ids for t in range(threads))
    check(sorted((k["node"], k["thread"], k["idhi"], k["hbhi"]) for k in qs) == want_s and
          sorted((k["next_hi"], k["hbhi"]) for k in qn) ==
          sorted((a[2], a[3]) for a in want_s),
          "%s: q_self_tbl/q_next_tbl: idhi = (node + 1) << 10 | thread, hbhi = "
          "(node + 1) << 4 | thread & 0xf, %d entries each (C lcf_q_id())" % (tag, len(want_s)))
    hp = calls("queue_out.holder_port", "add_with_q_fwd_holder")
    check(sorted((k["node1"], k["node"], k["port"]) for k in hp) ==
          sorted((i + 1, i, devof[i]) for i in ids),
          "%s: holder_port: node + 1 -> node, dev_port" % tag)

# the queued lock mode: switch.lock_mode "queued" sets the mode
qt = dict(topo)
qt["switch"] = dict(topo["switch"], lock_mode="queued")
qt["threads_per_node"] = min(threads, 16)
json.dump(qt, open(tmp + "/queued.json", "w"))
p, log = run(topo=tmp + "/queued.json")
check(log is not None and
      [kw for t, m, a, kw in log if t.endswith("prepare.lock_mode_cfg")] == [{"queued": 1}],
      "switch.lock_mode \"queued\": lock_mode_cfg queued=1")

# refusals
bad = {
    "node id 40": {"switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254"},
                   "nodes": [{"id": 40, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "port": 0}]},
    "shadow not a node": {"switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254"},
                          "nodes": [{"id": 0, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "port": 0}],
                          "shadow": 5},
    "bad MAC": {"switch": {"mac": "02:zz:00:00:00:fe", "ip": "10.0.0.254"},
                "nodes": [{"id": 0, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "port": 0}]},
    "lock mode fifo": {"switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254",
                                  "lock_mode": "fifo"},
                       "nodes": [{"id": 0, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "port": 0}]},
    "queued mode and 32 threads": {"threads_per_node": 32,
                                   "switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254",
                                              "lock_mode": "queued"},
                                   "nodes": [{"id": 0, "mac": "02:00:00:00:00:01",
                                              "ip": "10.0.0.1", "port": 0}]},
    "queued mode and node 31": {"threads_per_node": 4,
                                "switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254",
                                           "lock_mode": "queued"},
                                "nodes": [{"id": 31, "mac": "02:00:00:00:00:01",
                                           "ip": "10.0.0.1", "port": 0}]},
    "too many threads": {"threads_per_node": 64,
                         "switch": {"mac": "02:00:00:00:00:fe", "ip": "10.0.0.254"},
                         "nodes": [{"id": 0, "mac": "02:00:00:00:00:01", "ip": "10.0.0.1", "port": 0}]},
}
for what, doc in bad.items():
    path = tmp + "/bad.json"
    json.dump(doc, open(path, "w"))
    p = subprocess.run([sys.executable, gen, path], capture_output=True, text=True)
    check(p.returncode != 0 and p.stderr.startswith("topo_to_bfrt: "),
          "refuses a topology with %s (%s)" % (what, p.stderr.strip()))

# the register reset script clears every register array of every way
p = subprocess.run([sys.executable, gen, topo_path, "--reset", "--ways", "3", "--queue"],
                   capture_output=True, text=True)
log = []
if p.returncode == 0:
    exec(compile(p.stdout, "reset", "exec"), {"bfrt": Rec(log)})
cleared = sorted(t for t, m, a, kw in log if m == "clear")
want = sorted(["lcf.pipe.LcfIngress.tag%d.tag" % w for w in range(3)] +
              ["lcf.pipe.LcfIngress.lcs%d.%s" % (w, r) for w in range(3)
               for r in ("lock", "gstatus", "copyset")] +
              ["lcf.pipe.LcfIngress.ver%d.blk_version" % w for w in range(3)] +
              ["lcf.pipe.LcfIngress.queue.qw%d.qstate" % w for w in range(3)] +
              ["lcf.pipe.LcfIngress.last_unlock.last_unlock",
               "lcf.pipe.LcfIngress.last_unlock.qgate",
               "lcf.pipe.LcfIngress.scoreboard.sb_seq",
               "lcf.pipe.LcfIngress.scoreboard.sb_c"])
def closed_rows(log, reg):
    return sorted(kw.get("REGISTER_INDEX") for t, m, a, kw in log
                  if m == "mod" and t.endswith(reg) and
                  kw.get("seq") == 0 and kw.get("open_seq") == 1)
check(cleared == want and closed_rows(log, "last_unlock.last_unlock") == list(range(512)) and
      closed_rows(log, "last_unlock.qgate") == list(range(512)),
      "--reset clears TAG, LOCK, G-STATUS, COPYSET, VERSION, QSTATE of 3 "
      "ways, LAST-UNLOCK, QGATE and SCOREBOARD, then closes all 512 LAST-UNLOCK "
      "and QGATE rows at seq 0 ({0, open_seq 1})")

# the node-failed script: stop the world (every port down), evict the locked
# and listing slots of every way (and only those), clear SCOREBOARD and the
# dead node's LAST-UNLOCK rows, bring the survivors' ports back
class Regs(Rec):
    """Rec whose register dump() answers with slots of `regs`
    ({register path: {slot: value}}), one value per pipe (two pipes)."""
    def __init__(self, log, regs, path=""):
        Rec.__init__(self, log, path)
        self._regs = regs
    def __getattr__(self, name):
        return Regs(self._log, self._regs,
                    self._path + "." + name if self._path else name)
    def __call__(self, *args, **kw):
        Rec.__call__(self, *args, **kw)
        reg, _, meth = self._path.rpartition(".")
        if meth != "dump":
            return self
        class Ent:
            def __init__(self, i, v):
                self.key = {b"$REGISTER_INDEX": i}
                name = reg.split(".", 3)[3]
                if isinstance(v, dict):     # a paired register: its fields
                    self.data = {b"LcfIngress.%s.%s" % (name.split(".")[0].encode(),
                                                        f.encode()): [0, x]
                                 for f, x in v.items()}
                else:
                    self.data = {b"LcfIngress.%s.f1" % name.encode(): [0, v]}
        return [Ent(i, v) for i, v in self._regs.get(reg, {}).items()]
dead = ids[-1]
ig = "lcf.pipe.LcfIngress."
regs = {ig + "lcs0.lock": {5: 0x8000, 6: 0},
        ig + "lcs0.copyset": {5: 1, 9: 1 << ids[0], 11: 1 << dead},
        ig + "lcs1.copyset": {7: (1 << dead) | 1},
        # SCOREBOARD C: a count, a claimed count, an ENDED mark, and the
        # dead node's first requester's rows (dead*threads*2, + 1)
        ig + "scoreboard.sb_c": {0: 2, 1: 0x80000001, 2: 0x40000000,
                                 dead * threads * 2: 0x40000000,
                                 dead * threads * 2 + 1: 3}}
p = subprocess.run([sys.executable, gen, topo_path, "--node-failed", str(dead), "--queue",
                    "--ways", "2", "--port-map", "%d:200" % nodes[-1]["port"]],
                   capture_output=True, text=True)
log = []
if p.returncode == 0:
    exec(compile(p.stdout, "node-failed", "exec"),
         {"bfrt": Regs(log, regs), "print": lambda *a: None})
ports = [(kw["DEV_PORT"], kw["PORT_ENABLE"]) for t, m, a, kw in log if t == "port.port"]
devs = sorted(200 if i == dead else n["port"] for i, n in zip(ids, nodes))
work = [i for i, (t, m, a, kw) in enumerate(log) if m in ("mod", "dump", "clear") and t != "port.port"]
down = [i for i, (t, m, a, kw) in enumerate(log) if t == "port.port" and not kw["PORT_ENABLE"]]
up = [i for i, (t, m, a, kw) in enumerate(log) if t == "port.port" and kw["PORT_ENABLE"]]
check(sorted(d for d, e in ports if not e) == devs and
      sorted(d for d, e in ports if e) == [d for d in devs if d != 200] and
      work and max(down) < min(work) and max(work) < min(up),
      "--node-failed %d: every port down before the first register access, "
      "the survivors' up again after the last" % dead)
mods = sorted((t, kw.get("REGISTER_INDEX")) for t, m, a, kw in log
              if m == "mod" and t != "port.port" and ".scoreboard." not in t)
want = sorted([(ig + "tag0.tag", i) for i in (5, 11)] + [(ig + "tag1.tag", 7)] +
              [(ig + "lcs%d.%s" % (w, r), i) for w, i in ((0, 5), (0, 11), (1, 7))
               for r in ("lock", "gstatus", "copyset")] +
              [(ig + "queue.qw%d.qstate" % w, i) for w, i in ((0, 5), (0, 11), (1, 7))] +
              [(ig + "last_unlock." + reg, r) for reg in ("last_unlock", "qgate")
               for r in range(dead * threads, (dead + 1) * threads)])
sb_mods = sorted((t.rpartition(".")[2], kw.get("REGISTER_INDEX"), kw.get("f1"),
                  kw.get("pipe") or 0)
                 for t, m, a, kw in log if m == "mod" and ".scoreboard." in t)
dead_sb = [(r, i, 0, 0) for r in ("sb_c", "sb_seq")
           for i in range(dead * threads * 2, (dead + 1) * threads * 2)]
lu_ok = all(kw.get("seq") == 0 and kw.get("open_seq") == 1 for t, m, a, kw in log
            if m == "mod" and (t.endswith("last_unlock") or t.endswith("qgate")))
lu_ok = lu_ok and all(kw.get("lo") == 0 and kw.get("hi") == 0 for t, m, a, kw in log
                      if m == "mod" and t.endswith("qstate"))
check(mods == want and lu_ok and not [t for t, m, a, kw in log if m == "clear"] and
      sb_mods == sorted([("sb_c", 0, 0, 1), ("sb_c", 1, 0, 1)] + dead_sb),
      "--node-failed: evicts the locked slot and the slots listing node %d in each way "
      "(TAG, LOCK, G-STATUS, COPYSET, QSTATE {0, 0}: C lcf_q_clear()), not the others; "
      "zeroes every SCOREBOARD count (SEQ and ENDED kept) and resets the dead node's "
      "%d LAST-UNLOCK and QGATE rows ({0, 1}) and SCOREBOARD SEQ and C rows" % (dead, threads))
p = subprocess.run([sys.executable, gen, topo_path, "--node-failed", "31"],
                   capture_output=True, text=True)
check(p.returncode != 0 and "not a node" in p.stderr,
      "--node-failed refuses a node outside the topology")

# every table, action, key and data field the generated scripts use exists,
# by bfrt_python's names, in the compiler's bf-rt.json
def name_problems(calls, names):
    tables = names["tables"]
    probs = set()
    for tbl, meth, kw in calls:
        if not tbl.startswith("lcf.pipe."):
            continue            # bfrt.pre, bfrt.mirror, bfrt.port: fixed
        t = tbl[len("lcf."):]
        if t not in tables:
            probs.add("table %s" % t)
            continue
        e = tables[t]
        allowed = set()
        if "_with_" in meth:
            act = meth.split("_with_", 1)[1]
            if act not in e["actions"]:
                probs.add("action %s of %s" % (act, t))
                continue
            allowed = set(e["keys"]) | set(e["actions"][act])
        elif meth == "add":                 # parser value set
            allowed = set(e["keys"])
        elif meth == "mod":                 # register
            allowed = set(e["keys"]) | set(e["data"]) | {"pipe"}
        elif meth in ("clear", "dump", "get"):
            continue                        # options (from_hw, ...), no fields
        else:
            probs.add("method %s of %s" % (meth, t))
            continue
        for k in kw:
            base = k[:-5] if k.endswith("_mask") and k[:-5] in e["keys"] else k
            if base not in allowed:
                probs.add("field %s of %s.%s" % (k, t, meth))
    return sorted(probs)

# without --queue (a program compiled with LCF_QUEUE=0, the default): no
# queue tables, no QSTATE, and a queued topology refused
def gen_calls(args, regs=None):
    p = subprocess.run([sys.executable, gen, topo_path, "-o", tmp + "/g.py"] + args,
                       capture_output=True, text=True)
    if p.returncode != 0:
        return p, None
    log = []
    exec(compile(open(tmp + "/g.py").read(), "generated", "exec"),
         {"bfrt": Regs(log, regs or {}), "print": lambda *a: None})
    return p, log
nq = [gen_calls(["--ways", "2"] + x)
      for x in ([], ["--reset"], ["--node-failed", str(dead)])]
check(all(l is not None for _, l in nq) and
      not [c for _, l in nq for c in l if ".queue" in c[0] or "qstate" in c[0] or
           "qgate" in c[0]] and
      any(c[0].endswith("tag1.tag") for c in nq[1][1]),
      "without --queue: set-up, --reset and --node-failed touch no queue table, QSTATE or QGATE")
qtopo = json.load(open(topo_path))
qtopo["switch"]["lock_mode"] = "queued"
json.dump(qtopo, open(tmp + "/q.json", "w"))
p = subprocess.run([sys.executable, gen, tmp + "/q.json"],
                   capture_output=True, text=True)
check(p.returncode != 0 and "LCF_QUEUE=0" in p.stderr,
      "without --queue, switch.lock_mode \"queued\" is refused")

if names_path:
    names = json.load(open(names_path))
    # the generated scripts for the program the names come from: its ways
    # (TAG registers) and whether the queued mode is compiled in
    tb = names["tables"]
    nways = len([t for t in tb if re.fullmatch(r"pipe\.LcfIngress\.tag\d+\.tag", t)])
    flags = ["--ways", str(nways)]
    if "pipe.LcfIngress.prepare.lock_mode_cfg" in tb:
        flags.append("--queue")
    every_call.clear()
    for x in ([], ["--reset"], ["--node-failed", str(dead)]):
        gen_calls(flags + x)
    probs = name_problems(every_call, names)
    check(nways > 0 and every_call and not probs,
          "every table, action, key and data field used is in bf-rt.json "
          "(%s: %d ways%s)%s" % (names_path, nways, ", queue" if "--queue" in flags
                                 else "", "".join("\n       missing: " + x for x in probs)))
    # the check can fail: a renamed table and a renamed register field
    broken = json.loads(json.dumps(names))
    tb = broken["tables"]
    tb["pipe.LcfIngress.prepare.node_table"] = tb.pop("pipe.LcfIngress.prepare.node_tbl")
    lu = tb["pipe.LcfIngress.last_unlock.last_unlock"]
    lu["data"] = [("opened" if d == "open_seq" else d) for d in lu["data"]]
    got = name_problems(every_call, broken)
    check(any("node_tbl" in x for x in got) and any("open_seq of" in x for x in got),
          "the names check catches a renamed table and register field")
else:
    print("skip names check: no bf-rt.json (set BFRT_JSON, or commit "
          "lib/p4/bfrt-names.json with lib/p4/bfrt_names.py)")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PYEOF
