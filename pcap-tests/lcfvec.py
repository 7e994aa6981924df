# SPDX-License-Identifier: BSD-3-Clause
"""
lcfvec: the vector language of pcap-tests (docs/PCAP-TESTS.md).

Shared by gen_pcaps.py (vector.json -> pcaps) and run_vectors.py (plays the
vectors through a switch). No scapy needed: frames are built and decoded with
struct, following docs/PROTOCOL.md section 1 and lib/wire/lcf_wire.h.
One module of about 750 lines: the encoder, the decoder and the matcher
share its field tables.

Values in a vector:
  addresses  "node:N" | "switch" | "bcast" | "$port" (expectations only: the
             node on the port the frame left by) | a literal MAC / IPv4
  integers   123 | "0x7b"
  type       a name from TYPES ("READ_MISS") or an integer
  gstatus    "Unshared" | "Shared" | "Modified" or an integer
  flags      a list of names (["IN_SWITCH", "FAIL"]) or an integer
  copyset    a list of node ids ([0, 2]) or an integer bitmap
  tag        an integer, "0x..." or {"home": H, "index": I}
             (= H << (48 - log2(block_size)) | I, the home node being the
             top 16 bits of the 64-bit global address)
In expectations every comparable value may also be {"any_of": [v, ...]} or,
for integers, {"mask": M, "value": V}.
"""

import json
import os
import struct

LCF_HDR = struct.Struct(">BBBBHHIIQHHI")
assert LCF_HDR.size == 32

TYPES = {
    "READ_MISS": 0x01, "WRITE_MISS": 0x02, "WRITE_SHARED": 0x03,
    "EVICT_SHARED": 0x04, "EVICT_MODIFIED": 0x05, "READ_UNLOCK": 0x06,
    "WRITE_UNLOCK": 0x07, "ADD_TO_SWITCH": 0x08, "REMOVE_FROM_SWITCH": 0x09,
    "ABORT": 0x0a, "NACK": 0x10, "UNLOCK_ACK": 0x11, "MIGRATE_ACK": 0x12,
    "ABORT_ACK": 0x13, "VERSION_READ": 0x0b, "VERSION": 0x14,
    "QXFER": 0x0c, "QRELEASE": 0x0d, "QXFER_ACK": 0x15, "QWAIT": 0x16,
    "QGRANT": 0x17,
}
TYPE_NAMES = {v: k for k, v in TYPES.items()}
FLAGS = {"IN_SWITCH": 0x01, "DATA_PROVIDER": 0x02, "FAIL": 0x04}
GSTATUS = {"Unshared": 0, "Shared": 1, "Modified": 2}
GSTATUS_NAMES = {v: k for k, v in GSTATUS.items()}

# docs/PROTOCOL.md section 3, in check order (lcf_wire.h LCF_DROP_LIST).
DROP_REASONS = [
    "short_frame", "bad_ipv4_header", "bad_udp_length", "bad_version",
    "unknown_type", "bad_payload_length", "reserved_flags_set", "bad_gstatus",
    "node_id_out_of_range", "node_id_not_in_topology",
    "node_id_does_not_match_ingress_port", "thread_id_out_of_range",
    "tag_home_node_not_in_topology", "bad_resubmit_metadata",
]

LCF_FIELDS = ["version", "type", "flags", "gstatus", "node", "thread", "seq",
              "copyset", "tag", "dst_node", "len", "aux"]

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class VectorError(Exception):
    pass


# ---------------------------------------------------------------- topology

class Topo:
    def __init__(self, path):
        with open(path) as f:
            j = json.load(f)
        self.path = path
        self.lcf_port = j.get("lcf_port", 7340)
        self.block_size = j.get("block_size", 4096)
        self.block_shift = self.block_size.bit_length() - 1
        self.threads_per_node = j.get("threads_per_node", 16)
        sw = j["switch"]
        self.switch = {"mac": sw["mac"], "ip": sw["ip"]}
        self.nodes = {}
        for n in j["nodes"]:
            self.nodes[n["id"]] = {"mac": n["mac"], "ip": n["ip"], "port": n["port"]}
        self.n_ports = max(n["port"] for n in self.nodes.values()) + 1
        self.port_node = {n["port"]: i for i, n in self.nodes.items()}
        self.shadow = j.get("shadow")

    def tag_home(self, tag):
        return tag >> (48 - self.block_shift)


def topo_path(vec_topology):
    return os.path.join(ROOT, "topo", vec_topology)


# ---------------------------------------------------------------- values

def to_int(v):
    if isinstance(v, bool):
        raise VectorError("boolean where an integer was expected: %r" % v)
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return int(v, 0)
    raise VectorError("expected an integer, got %r" % (v,))


def mac_bytes(s):
    b = bytes(int(x, 16) for x in s.split(":"))
    if len(b) != 6:
        raise VectorError("bad MAC %r" % s)
    return b


def ip_bytes(s):
    b = bytes(int(x) for x in s.split("."))
    if len(b) != 4:
        raise VectorError("bad IPv4 address %r" % s)
    return b


def mac_str(b):
    return ":".join("%02x" % x for x in b)


def ip_str(b):
    return ".".join(str(x) for x in b)


def resolve_addr(v, topo, kind, port=None):
    """kind 'mac' or 'ip'; returns the canonical string."""
    if isinstance(v, str):
        if v.startswith("node:"):
            n = int(v[5:])
            if n not in topo.nodes:
                raise VectorError("%s: node %d is not in the topology" % (v, n))
            return topo.nodes[n][kind]
        if v == "switch":
            return topo.switch[kind]
        if v == "bcast":
            return "ff:ff:ff:ff:ff:ff" if kind == "mac" else "255.255.255.255"
        if v == "$port":
            if port is None or port not in topo.port_node:
                raise VectorError("$port used where no port is known")
            return topo.nodes[topo.port_node[port]][kind]
        return mac_str(mac_bytes(v)) if kind == "mac" else ip_str(ip_bytes(v))
    raise VectorError("bad address %r" % (v,))


def type_val(v):
    if isinstance(v, str) and v in TYPES:
        return TYPES[v]
    return to_int(v)


def gstatus_val(v):
    if isinstance(v, str) and v in GSTATUS:
        return GSTATUS[v]
    return to_int(v)


def flags_val(v):
    if isinstance(v, list):
        x = 0
        for f in v:
            if f not in FLAGS:
                raise VectorError("unknown flag %r" % f)
            x |= FLAGS[f]
        return x
    return to_int(v)


def copyset_val(v):
    if isinstance(v, list):
        x = 0
        for n in v:
            x |= 1 << to_int(n)
        return x
    return to_int(v)


def tag_val(v, topo):
    if isinstance(v, dict):
        return (to_int(v["home"]) << (48 - topo.block_shift)) | to_int(v.get("index", 0))
    return to_int(v)


def field_val(name, v, topo):
    if name == "type":
        return type_val(v)
    if name == "gstatus":
        return gstatus_val(v)
    if name == "flags":
        return flags_val(v)
    if name == "copyset":
        return copyset_val(v)
    if name == "tag":
        return tag_val(v, topo)
    if name == "dst_node" and v == "$port":
        return "$port"
    return to_int(v)


# ---------------------------------------------------------------- frames

def ipv4_cksum(hdr):
    if len(hdr) % 2:
        hdr += b"\0"
    s = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def build_eth(dst, src, ethertype, payload):
    return mac_bytes(dst) + mac_bytes(src) + struct.pack("!H", ethertype) + payload


def build_ipv4_udp(src_ip, dst_ip, sport, dport, udp_payload, ipo=None, udpo=None):
    """IPv4/UDP with optional overrides for malformed frames."""
    ipo = ipo or {}
    udpo = udpo or {}
    options = bytes.fromhex(ipo.get("options", ""))
    ihl_real = 5 + len(options) // 4
    udp_len = udpo.get("len", 8 + len(udp_payload))
    udp = struct.pack("!HHHH", to_int(udpo.get("sport", sport)),
                      to_int(udpo.get("dport", dport)), to_int(udp_len),
                      to_int(udpo.get("csum", 0))) + udp_payload
    version = to_int(ipo.get("version", 4))
    ihl = to_int(ipo.get("ihl", ihl_real))
    total = to_int(ipo.get("total_len", ihl_real * 4 + len(udp)))
    frag = to_int(ipo.get("flags_frag", 0))
    proto = to_int(ipo.get("proto", 17))
    ttl = to_int(ipo.get("ttl", 64))
    ident = to_int(ipo.get("id", 0))
    hdr = struct.pack("!BBHHHBBH4s4s", (version << 4) | (ihl & 0xf), 0, total & 0xffff,
                      ident, frag, ttl, proto, 0, ip_bytes(src_ip), ip_bytes(dst_ip)) + options
    ck = to_int(ipo["csum"]) if "csum" in ipo else ipv4_cksum(hdr)
    hdr = hdr[:10] + struct.pack("!H", ck) + hdr[12:]
    return hdr + udp


def lcf_default_dst(msg_type, node, tag, topo):
    """Who a requester addresses a message to (the switch ignores it)."""
    if msg_type in (TYPES["ADD_TO_SWITCH"], TYPES["REMOVE_FROM_SWITCH"],
                    TYPES["READ_UNLOCK"], TYPES["WRITE_UNLOCK"]):
        return "switch"
    home = topo.tag_home(tag)
    if home in topo.nodes:
        return "node:%d" % home
    return "switch"


def build_lcf_input(spec, topo):
    """spec: {"lcf": {...}, "eth": {}, "ip": {}, "udp": {}, "payload": hex,
    "truncate": n, "append": hex}"""
    l = spec["lcf"]
    vals = {
        "version": 1, "type": None, "flags": 0, "gstatus": 0, "node": 0,
        "thread": 0, "seq": 0, "copyset": 0, "tag": 0, "dst_node": 0xffff,
        "len": None, "aux": 0,
    }
    for k, v in l.items():
        if k not in vals:
            raise VectorError("unknown LCF field %r" % k)
        vals[k] = field_val(k, v, topo)
    if vals["type"] is None:
        raise VectorError("lcf.type is required")
    payload = bytes.fromhex(spec.get("payload", ""))
    if vals["len"] is None:
        vals["len"] = len(payload)
    hdr = LCF_HDR.pack(*(vals[f] & ((1 << (8 * s)) - 1) for f, s in
                         zip(LCF_FIELDS, (1, 1, 1, 1, 2, 2, 4, 4, 8, 2, 2, 4))))
    node = vals["node"]
    src = "node:%d" % node if node in topo.nodes else "switch"
    dst = lcf_default_dst(vals["type"], node, vals["tag"], topo)
    eth = spec.get("eth", {})
    ipo = dict(spec.get("ip", {}))
    src_mac = resolve_addr(eth.get("src", src), topo, "mac")
    dst_mac = resolve_addr(eth.get("dst", dst), topo, "mac")
    src_ip = resolve_addr(ipo.pop("src", src), topo, "ip")
    dst_ip = resolve_addr(ipo.pop("dst", dst), topo, "ip")
    l3 = build_ipv4_udp(src_ip, dst_ip, topo.lcf_port, topo.lcf_port,
                        hdr + payload, ipo, spec.get("udp"))
    frame = build_eth(dst_mac, src_mac, to_int(eth.get("type", 0x0800)), l3)
    frame += bytes.fromhex(spec.get("append", ""))
    if "truncate" in spec:
        frame = frame[:to_int(spec["truncate"])]
    return frame


def build_arp(spec, topo):
    """{"arp": {"op": "request"|"reply", "from": N, "to": N (reply) ,
    "target_ip": ...}}"""
    a = spec["arp"]
    frm = to_int(a["from"])
    smac = topo.nodes[frm]["mac"]
    sip = topo.nodes[frm]["ip"]
    if a.get("op", "request") == "request":
        op, dmac, tmac = 1, "ff:ff:ff:ff:ff:ff", "00:00:00:00:00:00"
        tip = resolve_addr(a["target_ip"], topo, "ip")
    else:
        op = 2
        to = to_int(a["to"])
        dmac = tmac = topo.nodes[to]["mac"]
        tip = topo.nodes[to]["ip"]
    body = struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, op, mac_bytes(smac),
                       ip_bytes(sip), mac_bytes(tmac), ip_bytes(tip))
    return build_eth(dmac, smac, 0x0806, body)


def build_udp_frame(spec, topo):
    """{"udp_frame": {"from": N, "to": addr, "dport": p, "sport": p,
    "payload": hex, "proto": 17|6}} -- ordinary (non-LCF) IPv4 traffic."""
    u = spec["udp_frame"]
    frm = to_int(u["from"])
    src = "node:%d" % frm
    to = u["to"]
    payload = bytes.fromhex(u.get("payload", "00" * 18))
    proto = to_int(u.get("proto", 17))
    if proto == 17:
        l3 = build_ipv4_udp(resolve_addr(src, topo, "ip"),
                            resolve_addr(u.get("to_ip", to), topo, "ip"),
                            to_int(u.get("sport", 40000)), to_int(u.get("dport", 9999)),
                            payload)
    else:
        # TCP-ish segment: 20-byte header with the ports, SYN, no checksum care
        tcp = struct.pack("!HHIIBBHHH", to_int(u.get("sport", 40000)),
                          to_int(u.get("dport", 9999)), 1, 0, 0x50, 0x02, 8192, 0, 0)
        l3 = build_ipv4_udp(resolve_addr(src, topo, "ip"),
                            resolve_addr(u.get("to_ip", to), topo, "ip"), 0, 0, b"",
                            {"proto": proto})[:20]
        total = 20 + len(tcp) + len(payload)
        hdr = bytearray(l3)
        hdr[2:4] = struct.pack("!H", total)
        hdr[10:12] = b"\0\0"
        hdr[10:12] = struct.pack("!H", ipv4_cksum(bytes(hdr)))
        l3 = bytes(hdr) + tcp + payload
    return build_eth(resolve_addr(to, topo, "mac"), resolve_addr(src, topo, "mac"),
                     0x0800, l3)


def build_input(step_in, topo):
    """Returns (port, frame bytes) for a step's "in"."""
    port = to_int(step_in["port"])
    if port >= topo.n_ports:
        raise VectorError("in.port %d: topology has %d ports" % (port, topo.n_ports))
    if "raw" in step_in:
        frame = bytes.fromhex(step_in["raw"].replace(" ", ""))
    elif "lcf" in step_in:
        frame = build_lcf_input(step_in, topo)
    elif "arp" in step_in:
        frame = build_arp(step_in, topo)
    elif "udp_frame" in step_in:
        frame = build_udp_frame(step_in, topo)
    else:
        raise VectorError("step input needs one of raw, lcf, arp, udp_frame")
    return port, frame


# ---------------------------------------------------------------- decoding

def decode(frame, lcf_port=7340):
    d = {"len": len(frame)}
    if len(frame) < 14:
        d["error"] = "runt"
        return d
    d["eth_dst"] = mac_str(frame[0:6])
    d["eth_src"] = mac_str(frame[6:12])
    et = struct.unpack("!H", frame[12:14])[0]
    d["ethertype"] = et
    if et != 0x0800 or len(frame) < 34:
        return d
    vihl = frame[14]
    ihl = (vihl & 0xf) * 4
    ip = {"version": vihl >> 4, "ihl": vihl & 0xf}
    (ip["total_len"], ip["id"], ip["flags_frag"], ip["ttl"], ip["proto"],
     ip["csum"]) = struct.unpack("!HHHBBH", frame[16:26])
    ip["src"] = ip_str(frame[26:30])
    ip["dst"] = ip_str(frame[30:34])
    if ihl >= 20 and len(frame) >= 14 + ihl:
        ip["csum_ok"] = ipv4_cksum(frame[14:14 + ihl]) == 0
    d["ip"] = ip
    if ip["proto"] != 17 or ihl < 20 or len(frame) < 14 + ihl + 8:
        return d
    u = 14 + ihl
    udp = dict(zip(("sport", "dport", "len", "csum"), struct.unpack("!HHHH", frame[u:u + 8])))
    d["udp"] = udp
    if udp["dport"] != lcf_port or len(frame) < u + 8 + 32:
        return d
    vals = LCF_HDR.unpack(frame[u + 8:u + 40])
    d["lcf"] = dict(zip(LCF_FIELDS, vals))
    d["payload"] = frame[u + 40:]
    return d


def fmt_lcf(l):
    t = TYPE_NAMES.get(l["type"], "0x%02x" % l["type"])
    fl = [n for n, b in FLAGS.items() if l["flags"] & b]
    if l["flags"] & ~0x07:
        fl.append("0x%02x" % (l["flags"] & ~0x07))
    cs = [i for i in range(32) if l["copyset"] >> i & 1]
    return ("v%d %s flags=%s gstatus=%s node=%d thread=%d seq=%d copyset=%s "
            "tag=0x%x dst_node=%d len=%d aux=0x%08x" % (
                l["version"], t, "|".join(fl) or "0",
                GSTATUS_NAMES.get(l["gstatus"], str(l["gstatus"])), l["node"],
                l["thread"], l["seq"], cs, l["tag"], l["dst_node"], l["len"], l["aux"]))


def fmt_frame(frame, lcf_port=7340):
    d = decode(frame, lcf_port)
    s = "%s > %s" % (d.get("eth_src", "?"), d.get("eth_dst", "?"))
    if "ip" in d:
        s += " %s > %s" % (d["ip"]["src"], d["ip"]["dst"])
    elif d.get("ethertype") == 0x0806:
        s += " ARP"
    elif "ethertype" in d:
        s += " ethertype 0x%04x" % d["ethertype"]
    if "lcf" in d:
        s += " LCF " + fmt_lcf(d["lcf"])
    elif "udp" in d:
        s += " UDP %d > %d" % (d["udp"]["sport"], d["udp"]["dport"])
    return s + " (%d bytes)" % len(frame)


# ---------------------------------------------------------------- matching

def _cmp(exp, got, conv):
    """exp: plain value, {"any_of": [...]}, or {"mask": m, "value": v}."""
    if isinstance(exp, dict) and "any_of" in exp:
        return any(_cmp(e, got, conv) for e in exp["any_of"])
    if isinstance(exp, dict) and "mask" in exp:
        m = to_int(exp["mask"])
        return (got & m) == (conv(exp["value"]) & m)
    return conv(exp) == got


def _desc(exp):
    if isinstance(exp, dict) and "any_of" in exp:
        return "any of " + ", ".join(_desc(e) for e in exp["any_of"])
    if isinstance(exp, dict) and "mask" in exp:
        return "%r under mask %s" % (exp["value"], exp["mask"])
    return repr(exp)


def check_frame(exp, port, frame, topo, in_frame):
    """Compare one received frame (left by `port`) with one expectation.
    Returns a list of mismatch strings (empty = match)."""
    errs = []
    if "port" in exp and not _cmp(exp["port"], port, to_int):
        errs.append("port: expected %s, got %d" % (_desc(exp["port"]), port))
        return errs
    if exp.get("raw") == "input":
        if frame != in_frame:
            errs.append("frame: expected the input frame unchanged")
        return errs
    if "raw" in exp and "raw_mask" in exp:
        # p4testgen's expected packets: bits outside the mask are not compared
        want, mask = bytes.fromhex(exp["raw"]), bytes.fromhex(exp["raw_mask"])
        if len(mask) != len(want):
            errs.append("raw_mask: %d bytes for a %d-byte raw" % (len(mask), len(want)))
        elif len(frame) != len(want) or any(
                (f ^ w) & m for f, w, m in zip(frame, want, mask)):
            errs.append("frame: expected raw bytes %s under mask %s, got %s"
                        % (exp["raw"], exp["raw_mask"], frame.hex()))
        return errs
    if "raw" in exp:
        if frame != bytes.fromhex(exp["raw"]):
            errs.append("frame: expected raw bytes %s" % exp["raw"])
        return errs
    d = decode(frame, topo.lcf_port)
    for key, kind, got in (("eth_dst", "mac", d.get("eth_dst")),
                           ("eth_src", "mac", d.get("eth_src")),
                           ("ip_dst", "ip", d.get("ip", {}).get("dst")),
                           ("ip_src", "ip", d.get("ip", {}).get("src"))):
        if key in exp:
            conv = (lambda v, k=kind: resolve_addr(v, topo, k, port))
            if got is None or not _cmp(exp[key], got, conv):
                errs.append("%s: expected %s (%s), got %s" % (
                    key, _desc(exp[key]),
                    _try(lambda: resolve_addr(exp[key], topo, kind, port)), got))
    if "lcf" in exp:
        l = d.get("lcf")
        if l is None:
            errs.append("expected an LCF frame, got: " + fmt_frame(frame, topo.lcf_port))
            return errs
        for k, v in exp["lcf"].items():
            if k not in l:
                raise VectorError("unknown expected LCF field %r" % k)
            if k == "dst_node" and v == "$port":
                v = topo.port_node.get(port, -1)
            conv = (lambda x, k=k: field_val(k, x, topo))
            if not _cmp(v, l[k], conv):
                errs.append("lcf.%s: expected %s, got %s" % (k, _desc(v), _show(k, l[k])))
        if exp.get("egress_rules", True):
            # PROTOCOL.md 4.7: every emitted copy has a fresh IPv4 checksum,
            # UDP checksum 0, and lengths that agree with the LCF len.
            ip = d["ip"]
            if not ip.get("csum_ok"):
                errs.append("ipv4 checksum: invalid (0x%04x)" % ip["csum"])
            if d["udp"]["csum"] != 0:
                errs.append("udp checksum: expected 0, got 0x%04x" % d["udp"]["csum"])
            if d["udp"]["len"] != 8 + 32 + l["len"]:
                errs.append("udp length %d != 8 + 32 + lcf.len %d" % (d["udp"]["len"], l["len"]))
            if ip["total_len"] != ip["ihl"] * 4 + d["udp"]["len"]:
                errs.append("ipv4 total length %d != ihl*4 + udp length %d" % (
                    ip["total_len"], d["udp"]["len"]))
    if "payload" in exp:
        got = d.get("payload", b"")[:len(bytes.fromhex(exp["payload"]))]
        if got != bytes.fromhex(exp["payload"]):
            errs.append("payload: expected %s, got %s" % (exp["payload"], got.hex()))
    return errs


def _try(f):
    try:
        return f()
    except VectorError as e:
        return str(e)


def _show(k, v):
    if k == "type":
        return "%s (0x%02x)" % (TYPE_NAMES.get(v, "?"), v)
    if k == "gstatus":
        return "%s (%d)" % (GSTATUS_NAMES.get(v, "?"), v)
    if k == "flags":
        return "%s (0x%02x)" % ("|".join(n for n, b in FLAGS.items() if v & b) or "0", v)
    if k == "copyset":
        return "%s (0x%x)" % ([i for i in range(32) if v >> i & 1], v)
    if k in ("tag", "aux"):
        return "0x%x" % v
    return str(v)


def _flagged_ports(received, topo, bit):
    ports = []
    for port, fr in received:
        d = decode(fr, topo.lcf_port)
        if "lcf" in d and d["lcf"]["flags"] & bit:
            ports.append(port)
    return ports


def check_constraints(step, received, topo, earlier=None):
    """earlier: what each previous step of the vector received, in order."""
    errs = []
    for c in step.get("constraints", []):
        if "same_provider_as_step" in c:
            # one event, two passes: the same copy carries DATA_PROVIDER
            k = c["same_provider_as_step"]
            if earlier is None or k >= len(earlier):
                raise VectorError("same_provider_as_step %r: no such earlier step" % k)
            bit = FLAGS["DATA_PROVIDER"]
            then, now = _flagged_ports(earlier[k], topo, bit), _flagged_ports(received, topo, bit)
            if len(then) != 1 or now != then:
                errs.append("constraint: data provider on port %s, step %d had it on port %s"
                            % (now, k, then))
        elif "exactly_one_flag" in c:
            n = len(_flagged_ports(received, topo, FLAGS[c["exactly_one_flag"]]))
            if n != 1:
                errs.append("constraint: exactly one copy with %s, got %d" % (
                    c["exactly_one_flag"], n))
        else:
            raise VectorError("unknown constraint %r" % c)
    return errs


# check_frame's answers by (expectation, port, frame, topology, input):
# it depends on nothing else, and a repeat's copies are one step object
# whose frames come back the same (vector 129: 65,536 NACKs, each decoded
# and compared field by field was most of that vector's CPU time). The
# objects are kept in the value so that their ids stay theirs.
_CHECKED = {}


def _check_frame_once(exp, port, frame, topo, in_frame):
    k = (id(exp), port, frame, id(topo), in_frame)
    hit = _CHECKED.get(k)
    if hit is None:
        if len(_CHECKED) >= 4096:
            _CHECKED.clear()
        hit = _CHECKED[k] = (exp, topo, tuple(check_frame(exp, port, frame, topo, in_frame)))
    return list(hit[2])


def match_step(step, received, topo, in_frame, earlier=None):
    """received: list of (port, frame). Expectations are matched as a multiset
    (order within a step is not compared; each expected frame must match one
    received frame and vice versa). earlier: the received lists of the
    previous steps (for cross-step constraints). Returns (ok, report lines)."""
    exps = step.get("expect", [])
    if exps == "nothing":
        exps = []
    n, m = len(exps), len(received)
    errs = [[_check_frame_once(e, p, f, topo, in_frame) for (p, f) in received] for e in exps]
    # bipartite matching by augmenting paths
    match_r = [-1] * m

    def augment(i, seen):
        for j in range(m):
            if not errs[i][j] and not seen[j]:
                seen[j] = True
                if match_r[j] < 0 or augment(match_r[j], seen):
                    match_r[j] = i
                    return True
        return False

    matched_e = [False] * n
    for i in range(n):
        if augment(i, [False] * m):
            matched_e[i] = True
    lines = []
    for i in range(n):
        if not matched_e[i]:
            lines.append("  missing: expected[%d] %s" % (i, describe_expect(exps[i])))
            # closest candidate: the received frame with fewest mismatches
            cands = [(len(errs[i][j]), j) for j in range(m) if match_r[j] < 0] or \
                    [(len(errs[i][j]), j) for j in range(m)]
            if cands:
                _, j = min(cands)
                lines.append("    closest received (port %d): %s" % (
                    received[j][0], fmt_frame(received[j][1], topo.lcf_port)))
                for e in errs[i][j]:
                    lines.append("      " + e)
    for j in range(m):
        if match_r[j] < 0:
            lines.append("  unexpected on port %d: %s" % (
                received[j][0], fmt_frame(received[j][1], topo.lcf_port)))
    lines += ["  " + e for e in check_constraints(step, received, topo, earlier)]
    return (not lines), lines


def describe_expect(e):
    parts = []
    for k in ("port", "eth_dst", "eth_src", "ip_dst", "ip_src", "raw"):
        if k in e:
            parts.append("%s=%s" % (k, _desc(e[k]) if isinstance(e[k], dict) else e[k]))
    if "lcf" in e:
        parts.append("lcf{" + ", ".join("%s=%s" % (k, _desc(v) if isinstance(v, dict) else v)
                                        for k, v in e["lcf"].items()) + "}")
    return " ".join(parts)


def concrete_expect(e, topo, in_frame):
    """A representative frame for an expectation (expected_portN.pcap, for
    humans): any_of picks the first choice. Returns (port, frame) or None."""
    def first(v):
        if isinstance(v, dict) and "any_of" in v:
            return first(v["any_of"][0])
        if isinstance(v, dict) and "mask" in v:
            return v["value"]
        return v
    port = to_int(first(e.get("port", 0)))
    if e.get("raw") == "input":
        return port, in_frame
    if "raw" in e:
        return port, bytes.fromhex(e["raw"])
    if "lcf" not in e:
        return None
    d = decode(in_frame, topo.lcf_port)
    base = dict(d.get("lcf", {}))
    spec = {"lcf": {}}
    for k in LCF_FIELDS:
        if k in e["lcf"]:
            v = first(e["lcf"][k])
            spec["lcf"][k] = topo.port_node.get(port, 0) if v == "$port" else v
        elif k in base:
            spec["lcf"][k] = base[k]
    spec["lcf"].setdefault("type", 0)
    if "len" in spec["lcf"] and "payload" in d:
        spec["payload"] = d["payload"].hex()
    spec["eth"] = {"dst": resolve_addr(first(e.get("eth_dst", "$port")), topo, "mac", port),
                   "src": resolve_addr(first(e.get("eth_src", "switch")), topo, "mac", port)}
    spec["ip"] = {"dst": resolve_addr(first(e.get("ip_dst", "$port")), topo, "ip", port),
                  "src": resolve_addr(first(e.get("ip_src", "switch")), topo, "ip", port)}
    return port, build_lcf_input(spec, topo)


# ---------------------------------------------------------------- pcap files

PCAP_GHDR = struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1)


def write_pcap(path, frames, t0=1700000000.0, dt=0.001):
    with open(path, "wb") as f:
        f.write(PCAP_GHDR)
        for i, fr in enumerate(frames):
            t = t0 + i * dt
            sec = int(t)
            usec = int(round((t - sec) * 1e6))
            f.write(struct.pack("<IIII", sec, usec, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    out = []
    with open(path, "rb") as f:
        gh = f.read(24)
        magic = struct.unpack("<I", gh[:4])[0]
        if magic not in (0xa1b2c3d4, 0xa1b23c4d):
            raise VectorError("%s: not a little-endian pcap" % path)
        while True:
            h = f.read(16)
            if len(h) < 16:
                break
            _, _, incl, _ = struct.unpack("<IIII", h)
            out.append(f.read(incl))
    return out


# ---------------------------------------------------------------- vectors

def load_vector(vdir):
    with open(os.path.join(vdir, "vector.json")) as f:
        v = json.load(f)
    for k in ("topology", "description", "steps"):
        if k not in v:
            raise VectorError("%s: vector.json lacks %r" % (vdir, k))
    v["steps"] = expand_steps(v["steps"], vdir)
    v["_dir"] = vdir
    v["_name"] = os.path.basename(os.path.normpath(vdir))
    v["_topo"] = Topo(topo_path(v["topology"]))
    return v


def expand_steps(steps, where, block=None):
    """A step {"repeat": N, "steps": [...]} stands for its steps N times
    (a count that needs 2^16 write requests, VERSION's cap, without 2^16
    copies in the source). Every consumer sees the expanded list; a step of
    a repeat carries "_rep" (the repeat's position) so that the runner may
    play its copies without waiting for each one's replies."""
    out = []
    for k, st in enumerate(steps):
        if "repeat" not in st:
            out.append(st if block is None else dict(st, _rep=block))
            continue
        n, body = st["repeat"], st.get("steps")
        if not isinstance(n, int) or n < 1 or not isinstance(body, list) or not body:
            raise VectorError("%s: repeat needs a count >= 1 and steps" % where)
        rep = "%s.%d" % (block, k) if block is not None else str(k)
        once = expand_steps(body, where, rep)
        for _ in range(n):
            out.extend(once)
    return out


def list_vectors(vroot):
    return sorted(os.path.join(vroot, d) for d in os.listdir(vroot)
                  if os.path.isfile(os.path.join(vroot, d, "vector.json")))


def flatten_counters(obj, prefix=""):
    """Every numeric leaf of swswitch's exit JSON, keyed by its dotted path."""
    out = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(flatten_counters(v, prefix + k + "."))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.update(flatten_counters(v, prefix + str(i) + "."))
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        out[prefix[:-1]] = obj
    return out
