#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Generate the bfrt_python set-up of the Tofino LCF program from a topology.

Reads the same topology JSON as swswitch and node-agent (docs/TOPOLOGY.md)
and writes a bfrt_python script (run it with `bfshell -b FILE`) that fills:

  * the LCF UDP port (parser value set lcf_port_vs);
  * the switch's MAC/IP, node mask, shadow flag and the data-provider seed
    term prov_k (switch_cfg);
  * port-to-node tables: node_tbl, node_port_tbl, requester_tbl (one entry per
    node x thread x seq parity: r = node * threads_per_node + thread, which
    Tofino cannot multiply), home_tbl (tag -> home node, as ternary entries
    because block_size is a topology value);
  * egress node addresses (eg_node) and the shadow node + mirror session;
  * the copyset multicast group (one L1 node per topology node, rid = node id;
    egress prunes by copyset bit) and the L2 flood group;
  * the L2 dmac table (node MACs);
  * the data-provider and owner selection tables (pick_provider, pick_owner);
  * the queued lock mode (lcf_queue.p4, docs/QUEUED-LOCKS.md): the lock mode
    from switch.lock_mode (prepare.lock_mode_cfg), the queue-holder ids of every
    node and thread (q_self_tbl, q_next_tbl) and the holder -> port table
    (holder_port); only with --queue, for a program compiled with
    -DLCF_QUEUE=1 (without it, switch.lock_mode "queued" is refused).

--reset writes a script that clears every register array instead, and
--node-failed NODE one that evicts the blocks a dead memory node blocks
(held LOCK, or NODE in COPYSET) with their QSTATE, clears SCOREBOARD and
NODE's LAST-UNLOCK rows, with every port disabled meanwhile (docs/FAULTS.md
section 2, docs/TOFINO.md).

The check, forward, validate and dispatch tables are const entries in the P4
program; nothing here touches them.

--port-map maps swswitch port numbers (the topology's "port") to Tofino
dev_ports, e.g. "0:128,1:136" or a JSON object file {"0": 128, ...}; the
default is the identity.
"""
import argparse
import ipaddress
import json
import random
import re
import sys

MAX_NODES = 32
DEFAULT_LCF_PORT = 7340
DEFAULT_BLOCK = 4096
DEFAULT_THREADS = 16
QUEUED_MAX_THREADS = 16  # lcf_queue.p4 keeps 4 thread bits of the holder
QUEUED_MAX_NODE = 30     # and node + 1 in 5 bits (lo bit 15 is Q_SW)
MCAST_GRP = 1          # LCF_MCAST_GRP in lcf_headers.p4
FLOOD_GRP = 2          # LCF_FLOOD_GRP
MCAST_NODE_BASE = 1000  # PRE L1 node ids: MCAST_NODE_BASE + node id
FLOOD_NODE_ID = 2000
FLOOD_RID = 0xffff
SHADOW_SID = 1         # mirror session of the shadow node
PERMUTATIONS = 32      # pick_provider: 5 bits of the provider hash


class TopoError(Exception):
    pass


def need(obj, key, where, kind):
    if key not in obj:
        raise TopoError("%s%s: missing" % (where + "." if where else "", key))
    v = obj[key]
    if kind is int and (not isinstance(v, int) or isinstance(v, bool)):
        raise TopoError("%s.%s: expected integer" % (where, key))
    if kind is str and not isinstance(v, str):
        raise TopoError("%s.%s: expected string" % (where, key))
    return v


def parse_mac(s, where):
    if not re.fullmatch(r"[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}", s or ""):
        raise TopoError('%s: expected "xx:xx:xx:xx:xx:xx", got "%s"' % (where, s))
    return int(s.replace(":", ""), 16)


def parse_ip(s, where):
    try:
        return int(ipaddress.IPv4Address(s))
    except (ipaddress.AddressValueError, ValueError):
        raise TopoError("%s: expected dotted-quad IPv4 address, got \"%s\"" % (where, s))


def load_topology(path):
    try:
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
    except OSError as e:
        raise TopoError("%s: %s" % (path, e.strerror))
    except json.JSONDecodeError as e:
        raise TopoError("%s:%d:%d: %s" % (path, e.lineno, e.colno, e.msg))
    if not isinstance(t, dict):
        raise TopoError("(top level): expected object")
    topo = {
        "lcf_port": t.get("lcf_port", DEFAULT_LCF_PORT),
        "block_size": t.get("block_size", DEFAULT_BLOCK),
        "threads": t.get("threads_per_node", DEFAULT_THREADS),
        "shadow": t.get("shadow", -1),
    }
    if not isinstance(topo["lcf_port"], int) or not 1 <= topo["lcf_port"] <= 65535:
        raise TopoError("lcf_port: out of range 1..65535")
    bs = topo["block_size"]
    if not isinstance(bs, int) or bs < 64 or bs > (1 << 20) or bs & (bs - 1):
        raise TopoError("block_size: must be a power of two in 64..1048576")
    topo["block_shift"] = bs.bit_length() - 1
    if not isinstance(topo["threads"], int) or not 1 <= topo["threads"] <= 1024:
        raise TopoError("threads_per_node: out of range 1..1024")
    sw = need(t, "switch", "", dict)
    if not isinstance(sw, dict):
        raise TopoError("switch: expected object")
    topo["sw_mac"] = parse_mac(need(sw, "mac", "switch", str), "switch.mac")
    topo["sw_ip"] = parse_ip(need(sw, "ip", "switch", str), "switch.ip")
    topo["ways"] = sw.get("ways")
    mode = sw.get("lock_mode", "retry")
    if mode not in ("retry", "queued"):
        raise TopoError('switch.lock_mode: expected "retry" or "queued", got %r' % (mode,))
    topo["queued"] = mode == "queued"
    topo["slots"] = sw.get("slots_per_way")
    nodes = need(t, "nodes", "", list)
    if not isinstance(nodes, list) or not 1 <= len(nodes) <= MAX_NODES:
        raise TopoError("nodes: expected 1..32 entries")
    topo["nodes"] = []
    ids, ports = set(), set()
    for i, n in enumerate(nodes):
        where = "nodes[%d]" % i
        if not isinstance(n, dict):
            raise TopoError("%s: expected object" % where)
        nid = need(n, "id", where, int)
        if not 0 <= nid < MAX_NODES:
            raise TopoError("%s.id: %d out of range 0..31" % (where, nid))
        if nid in ids:
            raise TopoError("%s.id: duplicate node id %d" % (where, nid))
        port = need(n, "port", where, int)
        if not 0 <= port < MAX_NODES:
            raise TopoError("%s.port: %d out of range 0..31" % (where, port))
        if port in ports:
            raise TopoError("%s.port: port %d already used" % (where, port))
        ids.add(nid)
        ports.add(port)
        topo["nodes"].append({
            "id": nid, "port": port,
            "mac": parse_mac(need(n, "mac", where, str), where + ".mac"),
            "ip": parse_ip(need(n, "ip", where, str), where + ".ip"),
        })
    if topo["queued"] and any(n["id"] > QUEUED_MAX_NODE for n in topo["nodes"]):
        raise TopoError("switch.lock_mode \"queued\": the Tofino program keeps a "
                        "queue holder's node + 1 in 5 bits (bit 15 of its QSTATE copy "
                        "is the switch-tenure flag), node ids must be at most %d"
                        % QUEUED_MAX_NODE)
    if topo["queued"] and topo["threads"] > QUEUED_MAX_THREADS:
        raise TopoError("switch.lock_mode \"queued\": the Tofino program keeps %d "
                        "thread bits of a queue holder, threads_per_node must be "
                        "at most %d" % (QUEUED_MAX_THREADS.bit_length() - 1,
                                        QUEUED_MAX_THREADS))
    sh = topo["shadow"]
    if sh != -1 and sh not in ids:
        raise TopoError("shadow: %s is not a node id" % sh)
    return topo


def parse_port_map(arg):
    if not arg:
        return {}
    if re.fullmatch(r"\s*\d+\s*:\s*\d+\s*(,\s*\d+\s*:\s*\d+\s*)*", arg):
        return {int(a): int(b) for a, b in
                (p.split(":") for p in arg.split(","))}
    try:
        with open(arg, encoding="utf-8") as f:
            m = json.load(f)
        return {int(k): int(v) for k, v in m.items()}
    except (OSError, ValueError, AttributeError) as e:
        raise TopoError("--port-map: expected \"swport:devport,...\" or a JSON "
                        "object file (%s)" % e)


def mac_str(v):
    return ":".join("%02x" % ((v >> (8 * i)) & 0xff) for i in range(5, -1, -1))


def ip_str(v):
    return str(ipaddress.IPv4Address(v))


def crc32c(init, data):
    """CRC-32C, reflected, no final xor: C lcf_crc32c_u64() on bytes."""
    crc = init
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc


def provider_seed_term(seed):
    """prov_k: the seed's part of crc32c(seed, event), 5 bits.

    A CRC without final xor is linear: crc32c(seed, D) = crc32c(0, D) ^
    crc32c(seed, 8 zero bytes). The P4 Hash computes the first term (its
    init is a compile-time constant), this is the second (LcfLastUnlock).
    """
    return crc32c(seed, bytes(8)) & 0x1f


def generate(topo, port_map, program, max_requesters, seed, src, queue=False):
    out = []
    w = out.append
    nodes = sorted(topo["nodes"], key=lambda n: n["id"])
    dev = {n["id"]: port_map.get(n["port"], n["port"]) for n in nodes}
    node_mask = 0
    for n in nodes:
        node_mask |= 1 << n["id"]
    shadow = topo["shadow"]
    threads = topo["threads"]
    if topo["queued"] and not queue:
        raise TopoError('switch.lock_mode "queued": the program was compiled '
                        'without the queued lock mode (LCF_QUEUE=0, the default); '
                        'compile it with -DLCF_QUEUE=1 and pass --queue, or use '
                        'lock_mode "retry"')
    if MAX_NODES * threads > max_requesters:
        raise TopoError("threads_per_node %d needs LCF_MAX_REQUESTERS >= %d; "
                        "recompile lcf.p4 with -DLCF_MAX_REQUESTERS=%d or pass "
                        "--max-requesters" % (threads, MAX_NODES * threads,
                                              MAX_NODES * threads))

    w("# Generated by lib/p4/topo_to_bfrt.py from %s -- do not edit." % src)
    w("# Load with: bfshell -b <this file>   (program %s, Tofino-1 TNA)" % program)
    w("# Nodes: %s; shadow: %s; lcf_port %d; block_size %d; threads_per_node %d"
      % (", ".join("%d@dev%d" % (n["id"], dev[n["id"]]) for n in nodes),
         shadow if shadow >= 0 else "none", topo["lcf_port"],
         1 << topo["block_shift"], threads))
    w("")
    w("p4 = bfrt.%s.pipe" % program)
    w("ig = p4.LcfIngress")
    w("eg = p4.LcfEgress")
    w("")
    w("def clear_all():")
    w("    for t in (ig.prepare.node_tbl, ig.prepare.node_port_tbl,")
    w("              ig.prepare.requester_tbl, ig.prepare.home_tbl,")
    w("              ig.pick.pick_provider, ig.pick.pick_owner, ig.l2.dmac,")
    if queue:
        w("              ig.queue.q_self_tbl, ig.queue.q_next_tbl, ig.queue_out.holder_port,")
    w("              eg.eg_node, p4.LcfIngressParser.lcf_port_vs):")
    w("        t.clear()")
    w("    for mgid in (%d, %d):" % (MCAST_GRP, FLOOD_GRP))
    w("        try:")
    w("            bfrt.pre.mgid.delete(MGID=mgid)")
    w("        except Exception:")
    w("            pass")
    w("    for node_id in %r:" % ([MCAST_NODE_BASE + n["id"] for n in nodes] +
                                 [FLOOD_NODE_ID]))
    w("        try:")
    w("            bfrt.pre.node.delete(MULTICAST_NODE_ID=node_id)")
    w("        except Exception:")
    w("            pass")
    w("    try:")
    w("        bfrt.mirror.cfg.delete(sid=%d)" % SHADOW_SID)
    w("    except Exception:")
    w("        pass")
    w("")
    w("clear_all()")
    w("")
    w("# ---- LCF UDP port (parser value set) ----")
    w("p4.LcfIngressParser.lcf_port_vs.add(f1=%d, f1_mask=0xffff)" % topo["lcf_port"])
    w("")
    w("# ---- the switch ----")
    w("ig.prepare.switch_cfg.set_default_with_set_switch(mac=%s, ip=%s, "
      "node_mask=0x%08x, has_shadow=%d, prov_k=%d)"
      % (hex(topo["sw_mac"]), hex(topo["sw_ip"]), node_mask,
         1 if shadow >= 0 else 0, provider_seed_term(seed)))
    w("eg.shadow_cfg.set_default_with_set_shadow(node=%d, sid=%d)"
      % (shadow if shadow >= 0 else 0xff, SHADOW_SID))
    w("")
    w("# ---- nodes: id, ingress port, addresses ----")
    for n in nodes:
        nid = n["id"]
        w("# node %d: %s %s, swswitch port %d, dev_port %d"
          % (nid, mac_str(n["mac"]), ip_str(n["ip"]), n["port"], dev[nid]))
        w("ig.prepare.node_tbl.add_with_node_exists(node=%d, node_bit=0x%08x)"
          % (nid, 1 << nid))
        w("ig.prepare.node_port_tbl.add_with_port_matches(node=%d, ingress_port=%d)"
          % (nid, dev[nid]))
        w("eg.eg_node.add_with_node_addr(node=%d, mac=%s, ip=%s, n_bit=0x%08x)"
          % (nid, hex(n["mac"]), hex(n["ip"]), 1 << nid))
        w("ig.l2.dmac.add_with_l2_forward(dst_mac=%s, port=%d)" % (hex(n["mac"]), dev[nid]))
    w("")
    w("# ---- requesters: r = node * threads_per_node + thread, sb_idx = 2r + (seq & 1) ----")
    w("for node in %r:" % [n["id"] for n in nodes])
    w("    for thread in range(%d):" % threads)
    w("        r = node * %d + thread" % threads)
    w("        for parity in (0, 1):")
    w("            ig.prepare.requester_tbl.add_with_set_requester(node=node, "
      "thread=thread, seq_parity=parity, req=r, sb_idx=2 * r + parity)")
    w("")
    shift = 48 - topo["block_shift"]
    mask = ((1 << 64) - 1) & ~((1 << shift) - 1)
    w("# ---- home node: tag >> %d (block_shift %d); higher tag bits must be 0 ----"
      % (shift, topo["block_shift"]))
    for n in nodes:
        w("ig.prepare.home_tbl.add_with_set_home(tag=0x%016x, tag_mask=0x%016x, "
          "MATCH_PRIORITY=0, home=%d, port=%d)" % (n["id"] << shift, mask, n["id"], dev[n["id"]]))
    w("")
    w("# ---- copyset multicast: one L1 node per node, rid = node id ----")
    for n in nodes:
        w("bfrt.pre.node.entry(MULTICAST_NODE_ID=%d, MULTICAST_RID=%d, "
          "MULTICAST_LAG_ID=[], DEV_PORT=[%d]).push()"
          % (MCAST_NODE_BASE + n["id"], n["id"], dev[n["id"]]))
    ids = [MCAST_NODE_BASE + n["id"] for n in nodes]
    w("bfrt.pre.mgid.entry(MGID=%d, MULTICAST_NODE_ID=%r, "
      "MULTICAST_NODE_L1_XID_VALID=%r, MULTICAST_NODE_L1_XID=%r).push()"
      % (MCAST_GRP, ids, [False] * len(ids), [0] * len(ids)))
    w("# ---- L2 flood: every node port; egress drops the copy to the ingress port ----")
    w("bfrt.pre.node.entry(MULTICAST_NODE_ID=%d, MULTICAST_RID=0x%x, "
      "MULTICAST_LAG_ID=[], DEV_PORT=%r).push()"
      % (FLOOD_NODE_ID, FLOOD_RID, sorted(dev.values())))
    w("bfrt.pre.mgid.entry(MGID=%d, MULTICAST_NODE_ID=[%d], "
      "MULTICAST_NODE_L1_XID_VALID=[False], MULTICAST_NODE_L1_XID=[0]).push()"
      % (FLOOD_GRP, FLOOD_NODE_ID))
    w("")
    if shadow >= 0:
        w("# ---- MIGRATE_ACK mirror (E2E) to the shadow node %d ----" % shadow)
        w("bfrt.mirror.cfg.entry_with_normal(sid=%d, direction='EGRESS', "
          "session_enable=True, ucast_egress_port=%d, ucast_egress_port_valid=1, "
          "max_pkt_len=16384).push()" % (SHADOW_SID, dev[shadow]))
    else:
        w("# ---- no shadow node: MIGRATE_ACK is not mirrored ----")
    w("")
    w("# ---- owner: lowest node of the copyset (C: __builtin_ctz) ----")
    below = 0
    for prio, n in enumerate(nodes):
        bit = 1 << n["id"]
        w("ig.pick.pick_owner.add_with_set_owner(copyset=0x%08x, copyset_mask=0x%08x, "
          "MATCH_PRIORITY=%d, node=%d, port=%d)" % (bit, bit | below, prio, n["id"], dev[n["id"]]))
        below |= bit
    w("")
    w("# ---- data provider: %d seeded permutations of the nodes (seed %d); "
      "rnd = 5 bits of crc32c(seed, r << 32 | seq) picks one, the first "
      "copyset node in it wins ----" % (PERMUTATIONS, seed))
    rng = random.Random(seed)
    perms = []
    for r in range(PERMUTATIONS):
        order = [n["id"] for n in nodes]
        rng.shuffle(order)
        perms.append(order)
    w("PROVIDER_PERMUTATIONS = %r" % perms)
    w("DEV_PORT = %r" % {n["id"]: dev[n["id"]] for n in nodes})
    w("for rnd, order in enumerate(PROVIDER_PERMUTATIONS):")
    w("    before = 0")
    w("    for prio, node in enumerate(order):")
    w("        ig.pick.pick_provider.add_with_set_provider(rnd=rnd, copyset=1 << node, "
      "copyset_mask=before | (1 << node), MATCH_PRIORITY=prio, node=node, port=DEV_PORT[node])")
    w("        before |= 1 << node")
    w("")
    if queue:
        w("# ---- queued lock mode (lcf_queue.p4): mode, holder ids, holder -> port ----")
        w("ig.prepare.lock_mode_cfg.set_default_with_set_lock_mode(queued=%d)"
          % (1 if topo["queued"] else 0))
        w("for node in %r:" % [n["id"] for n in nodes])
        w("    for thread in range(%d):" % threads)
        w("        idhi = (node + 1) << 10 | thread")
        w("        hbhi = (node + 1) << 4 | (thread & 0xf)")
        w("        ig.queue.q_self_tbl.add_with_q_self(node=node, thread=thread, "
          "idhi=idhi, hbhi=hbhi)")
        w("        ig.queue.q_next_tbl.add_with_q_next(next_hi=idhi, hbhi=hbhi)")
        for n in nodes:
            w("ig.queue_out.holder_port.add_with_q_fwd_holder(node1=%d, node=%d, port=%d)"
              % (n["id"] + 1, n["id"], dev[n["id"]]))
    w("")
    w("bfrt.complete_operations()")
    w("print('lcf: topology %s loaded: %d nodes')" % (src.replace("'", ""), len(nodes)))
    return "\n".join(out) + "\n"


def generate_reset(program, ways, max_requesters, queue=False):
    """bfrt_python that brings every register array back to power-on: run
    before each pcap vector (pcap-tests/run_vectors.py --reset-cmd). Every
    array is 0 at power-on except LAST-UNLOCK, {seq 0, open_seq 1} (closed
    at seq 0, lcf_ways.p4), written row by row after the clear."""
    out = ["# Generated by lib/p4/topo_to_bfrt.py --reset: power-on registers.",
           "p4 = bfrt.%s.pipe" % program,
           "ig = p4.LcfIngress",
           "for reg in ("]
    for w in range(ways):
        out.append("        ig.tag%d.tag, ig.lcs%d.lock, ig.lcs%d.gstatus, ig.lcs%d.copyset,"
                   " ig.ver%d.blk_version,%s" % (w, w, w, w, w,
                                                (" ig.queue.qw%d.qstate," % w) if queue else ""))
    out += ["        ig.last_unlock.last_unlock,%s ig.scoreboard.sb_seq, ig.scoreboard.sb_c):"
            % (" ig.last_unlock.qgate," if queue else ""),
            "    reg.clear()",
            "for r in range(%d):" % max_requesters,
            "    ig.last_unlock.last_unlock.mod(REGISTER_INDEX=r, seq=0, open_seq=1)"]
    if queue:   # QGATE[r] powers on closed at seq 0 as LAST-UNLOCK does
        out.append("    ig.last_unlock.qgate.mod(REGISTER_INDEX=r, seq=0, open_seq=1)")
    out += ["bfrt.complete_operations()",
            ""]
    return "\n".join(out)


def generate_node_failed(topo, port_map, program, ways, node, queue=False):
    """bfrt_python for a memory node declared dead: what swswitch's
    /swswitch/node_failed does (lib/lcf/lcf_control.c), as control-plane
    register writes (docs/TOFINO.md "Memory-node failure")."""
    byid = {n["id"]: n for n in topo["nodes"]}
    if node not in byid:
        raise TopoError("--node-failed: %d is not a node of the topology" % node)
    dev = {n["id"]: port_map.get(n["port"], n["port"]) for n in topo["nodes"]}
    th = topo["threads"]
    out = ["# Generated by lib/p4/topo_to_bfrt.py --node-failed %d: evict what "
           "node %d blocks." % (node, node),
           "p4 = bfrt.%s.pipe" % program,
           "ig = p4.LcfIngress",
           "DEAD_BIT = 1 << %d" % node,
           "# Stop the world: no packet may change a register between our reads",
           "# and writes (the agents retransmit what the disabled ports drop).",
           "for dev in (%s):" % ", ".join(str(dev[i]) for i in sorted(dev)),
           "    bfrt.port.port.mod(DEV_PORT=dev, PORT_ENABLE=False)",
           "",
           "def nonzero(reg, field):",
           "    # {slot: [value per pipe]} of the slots whose value is not 0",
           "    return {e.key[b'$REGISTER_INDEX']: e.data[field]",
           "            for e in reg.dump(from_hw=True, return_ents=True, print_zero=False) or ()}",
           "",
           "evicted = 0",
           "for w, tag, lock, gstatus, copyset, qstate in ("]
    for w in range(ways):
        out.append("        (%d, ig.tag%d.tag, ig.lcs%d.lock, ig.lcs%d.gstatus, ig.lcs%d.copyset,"
                   " %s)," % (w, w, w, w, w, ("ig.queue.qw%d.qstate" % w) if queue else "None"))
    out += ["        ):",
            "    # A held LOCK (holders unknown: maybe the dead node) or a COPYSET",
            "    # naming it: the block is forgotten, as a restarted switch would.",
            "    slots = {i for i, v in nonzero(lock, b'LcfIngress.lcs%d.lock.f1' % w).items() if any(v)}",
            "    slots |= {i for i, v in nonzero(copyset, b'LcfIngress.lcs%d.copyset.f1' % w).items()",
            "              if any(x & DEAD_BIT for x in v)}",
            "    # A block homed at the node (C involves()): its new incarnation's",
            "    # home believes it at home. TAG hi holds tag bits 32-62 (bit 31: valid).",
            "    slots |= {e.key[b'$REGISTER_INDEX'] for e in",
            "              tag.dump(from_hw=True, return_ents=True, print_zero=False) or ()",
            "              if any(h >> 31 and (((h & 0x7fffffff) << 32) | lo) >> %d == %d for h, lo in"
            % (48 - topo["block_shift"], node),
            "                     zip(e.data[b'LcfIngress.tag%d.tag.hi' % w],",
            "                         e.data[b'LcfIngress.tag%d.tag.lo' % w]))}",
            "    for i in sorted(slots):",
            "        tag.mod(REGISTER_INDEX=i, lo=0, hi=0)",
            "        lock.mod(REGISTER_INDEX=i, f1=0)",
            "        gstatus.mod(REGISTER_INDEX=i, f1=0)",
            "        copyset.mod(REGISTER_INDEX=i, f1=0)",
            "        if qstate is not None:   # None: compiled with LCF_QUEUE=0",
            "            qstate.mod(REGISTER_INDEX=i, lo=0, hi=0)   # C: lcf_q_clear()",
            "    evicted += len(slots)",
            "# No lock is held any more: no SCOREBOARD count may remain. A count",
            "# or a claimed count (C below ENDED, or CLAIMED) becomes 0, keeping",
            "# the entry's SEQ (later copies of old events stay over); ENDED",
            "# marks stay. The dead node's rows go back to power-on, as after a",
            "# restart. Each pipe has its own copy: written pipe by pipe.",
            "SB_ENDED = 0x40000000",
            "DEAD_ROWS = range(%d, %d)" % (node * th, (node + 1) * th),
            "sb_seq, sb_c = ig.scoreboard.sb_seq, ig.scoreboard.sb_c",
            "for e in sb_c.dump(from_hw=True, return_ents=True, print_zero=False) or ():",
            "    i = e.key[b'$REGISTER_INDEX']",
            "    for pipe, c in enumerate(e.data[b'LcfIngress.scoreboard.sb_c.f1']):",
            "        if i // 2 not in DEAD_ROWS and c != 0 and c != SB_ENDED:",
            "            sb_c.mod(REGISTER_INDEX=i, f1=0, pipe=pipe)",
            "for r in DEAD_ROWS:",
            "    for i in (2 * r, 2 * r + 1):",
            "        sb_seq.mod(REGISTER_INDEX=i, f1=0)",
            "        sb_c.mod(REGISTER_INDEX=i, f1=0)",
            "# The dead node's LAST-UNLOCK and QGATE rows, as after a restart: closed at",
            "# seq 0, i.e. {seq 0, open_seq 1} (lcf_ways.p4).",
            "for r in DEAD_ROWS:",
            "    ig.last_unlock.last_unlock.mod(REGISTER_INDEX=r, seq=0, open_seq=1)"]
    if queue:   # C node_failed: q_gate[r] = {0, 0}, closed (lcf_control.c)
        out.append("    ig.last_unlock.qgate.mod(REGISTER_INDEX=r, seq=0, open_seq=1)")
    out += ["bfrt.complete_operations()",
            "for dev in (%s):" % ", ".join(str(dev[i]) for i in sorted(dev) if i != node),
            "    bfrt.port.port.mod(DEV_PORT=dev, PORT_ENABLE=True)",
            "print('lcf: node %d failed: %%d block(s) evicted' %% evicted)" % node,
            ""]
    return "\n".join(out)


def write_out(text, path):
    if path:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("topology", nargs="?",
                    help="topology JSON (docs/TOPOLOGY.md); not with --reset")
    ap.add_argument("-o", "--output", help="output file (default: stdout)")
    ap.add_argument("--port-map", default="",
                    help='swswitch port -> Tofino dev_port: "0:128,1:136" or a JSON file')
    ap.add_argument("--program", default="lcf", help="P4 program name in bfrt (default lcf)")
    ap.add_argument("--ways", type=int, default=2,
                    help="LCF_WAYS the program was compiled with (default 2, Tofino-1's; "
                         "8 for the Tofino-2 default)")
    ap.add_argument("--slot-bits", type=int, default=15,
                    help="LCF_SLOT_BITS the program was compiled with (default 15)")
    ap.add_argument("--max-requesters", type=int, default=512,
                    help="LCF_MAX_REQUESTERS the program was compiled with (default 512)")
    ap.add_argument("--queue", action="store_true",
                    help="the program was compiled with -DLCF_QUEUE=1 (the queued lock mode): "
                         "fill its tables; without it a queued topology is refused")
    ap.add_argument("--seed", type=int, default=1,
                    help="data-provider seed, swswitch --seed (default 1): the "
                         "permutations and the hash's prov_k")
    ap.add_argument("--reset", action="store_true",
                    help="emit the register reset script instead (topology unused)")
    ap.add_argument("--node-failed", type=int, metavar="NODE",
                    help="emit the script that evicts what dead node NODE "
                         "blocks instead (docs/FAULTS.md section 2)")
    a = ap.parse_args()
    if not a.reset and a.topology is None:
        ap.error("a topology is needed (only --reset runs without one)")
    if a.reset:
        write_out(generate_reset(a.program, a.ways, a.max_requesters, a.queue),
                  a.output)
        return 0
    try:
        topo = load_topology(a.topology)
        pm = parse_port_map(a.port_map)
        if a.node_failed is not None:
            write_out(generate_node_failed(topo, pm, a.program, a.ways,
                                           a.node_failed, a.queue), a.output)
            return 0
        text = generate(topo, pm, a.program, a.max_requesters, a.seed, a.topology,
                        a.queue)
    except TopoError as e:
        print("topo_to_bfrt: %s" % e, file=sys.stderr)
        return 1
    if topo["ways"] is not None and topo["ways"] != a.ways:
        print("topo_to_bfrt: note: the topology asks for %d ways; the Tofino "
              "program has %d (compile-time LCF_WAYS, docs/TOFINO.md)"
              % (topo["ways"], a.ways), file=sys.stderr)
    if topo["slots"] is not None and topo["slots"] != 1 << a.slot_bits:
        print("topo_to_bfrt: note: the topology asks for %d slots per way; the "
              "Tofino program has %d (compile-time LCF_SLOT_BITS)"
              % (topo["slots"], 1 << a.slot_bits), file=sys.stderr)
    write_out(text, a.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
