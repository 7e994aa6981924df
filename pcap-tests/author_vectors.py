#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
Writes pcap-tests/vectors/NNN-name/vector.json.

The vector.json files are the test vectors; this script is only how they were
typed: each expected packet below is spelled out from docs/PROTOCOL.md and the
paper's Tables 2 and 3 with small helpers named after the rule they apply
(nack(), forward(), unlock_ack(), ...). Nothing here looks at swswitch.

  ./author_vectors.py          (re)write every vector.json
  ./author_vectors.py --check  exit 1 when a vector.json differs from this file

One file of one function per vector (over 2,000 lines): the whole catalogue
is rewritten and checked by one command, and each vector sits beside the
rule-named helpers it is spelled with.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VEC = os.path.join(HERE, "vectors")

# In pcap2/pcap3/tiny1x1, node n is on port n.
SHADOW = {"pcap2.json": 1, "pcap3.json": 2, "pcap3q.json": 2, "tiny1x1.json": 2}

VECTORS = []


def tag(vec_no, home, k=0):
    """A tag unique to one vector (so a Tofino run leaves no cross-talk)."""
    return {"home": home, "index": vec_no * 16 + k}


def hx(v):
    return "0x%08x" % v


TYPECODE = {"READ_MISS": 1, "WRITE_MISS": 2, "WRITE_SHARED": 3, "EVICT_SHARED": 4,
            "EVICT_MODIFIED": 5, "READ_UNLOCK": 6, "WRITE_UNLOCK": 7,
            "ADD_TO_SWITCH": 8, "REMOVE_FROM_SWITCH": 9, "ABORT": 10,
            "VERSION_READ": 11, "QXFER": 12, "QRELEASE": 13}


class Req:
    """One packet a node sends (ingress port = its node id)."""

    def __init__(self, type_, node, tag_, seq=1, thread=0, gstatus=None,
                 copyset=None, port=None, **extra):
        self.type = type_
        self.node = node
        self.tag = tag_
        self.seq = seq
        self.thread = thread
        self.gstatus = gstatus
        self.copyset = copyset
        self.port = node if port is None else port
        self.extra = extra

    def input(self):
        l = {"type": self.type, "node": self.node, "thread": self.thread,
             "seq": self.seq, "tag": self.tag}
        if self.gstatus is not None:
            l["gstatus"] = self.gstatus
        if self.copyset is not None:
            l["copyset"] = self.copyset
        for k in ("flags", "aux", "version", "len"):
            if k in self.extra:
                l[k] = self.extra[k]
        d = {"port": self.port, "lcf": l}
        for k in ("payload", "eth", "ip", "udp", "truncate", "append"):
            if k in self.extra:
                d[k] = self.extra[k]
        return d

    def same(self):
        """LCF fields every copy keeps from the request."""
        return {"node": self.node, "thread": self.thread, "seq": self.seq,
                "tag": self.tag}


def to_node(n, src):
    return {"port": n, "eth_dst": "node:%d" % n, "ip_dst": "node:%d" % n,
            "eth_src": src, "ip_src": src}


def forward(req, n, gstatus, copyset, dp=False):
    """A copy of a request leaving the forward table (Table 3): IN_SWITCH, the
    block's gstatus and copyset, dst rewritten to node n, source unchanged."""
    e = to_node(n, "node:%d" % req.node)
    l = {"type": req.type, "flags": ["IN_SWITCH"] + (["DATA_PROVIDER"] if dp else []),
         "gstatus": gstatus, "copyset": copyset, "dst_node": n, "len": 0, "aux": hx(0)}
    l.update(req.same())
    e["lcf"] = l
    return e


def forward_one_of(req, nodes, gstatus, copyset, dp):
    """Copy to one node chosen at random among `nodes` (data provider)."""
    e = {"port": {"any_of": nodes}, "eth_dst": "$port", "ip_dst": "$port",
         "eth_src": "node:%d" % req.node, "ip_src": "node:%d" % req.node}
    l = {"type": req.type, "flags": ["IN_SWITCH", "DATA_PROVIDER"] if dp else ["IN_SWITCH"],
         "gstatus": gstatus, "copyset": copyset, "dst_node": "$port", "len": 0,
         "aux": hx(0)}
    l.update(req.same())
    e["lcf"] = l
    return e


def multicast_any_provider(req, nodes, gstatus, copyset):
    """WRITE_MISS on a Shared block: one copy per node, one of them (random)
    with DATA_PROVIDER. Flags compared under mask 0xfd; the step constraint
    checks that exactly one copy has the bit."""
    out = []
    for n in nodes:
        e = forward(req, n, gstatus, copyset)
        e["lcf"]["flags"] = {"mask": "0xfd", "value": ["IN_SWITCH"]}
        out.append(e)
    return out


def tag_miss(req, home, sent_flags=None):
    """PROTOCOL 4.1: forwarded unchanged to the home node, IN_SWITCH and
    DATA_PROVIDER cleared."""
    e = to_node(home, "node:%d" % req.node)
    l = {"type": req.type, "flags": [], "dst_node": home, "len": 0, "aux": hx(0)}
    l["gstatus"] = req.gstatus if req.gstatus is not None else "Unshared"
    l["copyset"] = req.copyset if req.copyset is not None else []
    l.update(req.same())
    e["lcf"] = l
    return e


def nack(req, gstatus, copyset):
    """PROTOCOL 4.7: NACK to the requester from the switch, IN_SWITCH|FAIL,
    the block's gstatus/copyset, aux = original type << 24."""
    e = to_node(req.node, "switch")
    l = {"type": "NACK", "flags": ["IN_SWITCH", "FAIL"], "gstatus": gstatus,
         "copyset": copyset, "dst_node": req.node, "len": 0,
         "aux": hx(TYPECODE[req.type] << 24)}
    l.update(req.same())
    e["lcf"] = l
    return e


def nack_stale(req):
    """PROTOCOL 4.2, Interpretation (stale request): a request whose seq is
    not after the requester's LAST-UNLOCK is NACKed before the LOCK stage:
    IN_SWITCH|FAIL, aux = original type << 24, the packet's own
    gstatus/copyset."""
    return nack(req, req.gstatus or "Unshared", req.copyset or [])


def returned(req, gstatus, copyset):
    """Table 3 'return to the requester' (evictions, sole-holder ACK): the
    request itself, from the switch, IN_SWITCH, block metadata."""
    e = to_node(req.node, "switch")
    l = {"type": req.type, "flags": ["IN_SWITCH"], "gstatus": gstatus,
         "copyset": copyset, "dst_node": req.node, "len": 0, "aux": hx(0)}
    l.update(req.same())
    e["lcf"] = l
    return e


def unlock_ack(req, gstatus, copyset):
    """PROTOCOL 4.3.4: UNLOCK_ACK from the switch with the block's metadata
    after the pass, the request's seq, aux = original type << 24."""
    e = to_node(req.node, "switch")
    l = {"type": "UNLOCK_ACK", "gstatus": gstatus, "copyset": copyset,
         "dst_node": req.node, "len": 0, "aux": hx(TYPECODE[req.type] << 24)}
    l.update(req.same())
    e["lcf"] = l
    return e


def abort_ack(req, passed):
    """PROTOCOL 4.9: ABORT_ACK from the switch, IN_SWITCH (| FAIL when a copy
    of the event holds the lock), the packet's own gstatus/copyset,
    aux = 0x0a << 24."""
    e = to_node(req.node, "switch")
    l = {"type": "ABORT_ACK", "flags": ["IN_SWITCH"] + (["FAIL"] if passed else []),
         "gstatus": "Unshared", "copyset": [], "dst_node": req.node, "len": 0,
         "aux": hx(TYPECODE["ABORT"] << 24)}
    l.update(req.same())
    e["lcf"] = l
    return e


def abort_to_home(req, home):
    """PROTOCOL 4.9: an ABORT that hits with no counted copy marks its event
    ENDED and goes on to the home (which answers it): the packet unchanged
    but IN_SWITCH."""
    e = tag_miss(req, home)
    e["lcf"]["flags"] = ["IN_SWITCH"]
    return e


def version(req, gstatus, ver, busy=False):
    """PROTOCOL 4.10: VERSION (0x14) to the requester from the switch on a
    tag hit: IN_SWITCH, the block's gstatus, copyset = the 32-bit VERSION
    register, aux = 0x0b << 24 | busy (write lock held) << 16."""
    e = to_node(req.node, "switch")
    l = {"type": "VERSION", "flags": ["IN_SWITCH"], "gstatus": gstatus,
         "copyset": ver, "dst_node": req.node, "len": 0,
         "aux": hx(11 << 24 | (0x10000 if busy else 0))}
    l.update(req.same())
    e["lcf"] = l
    return e


def version_not_here(req):
    """PROTOCOL 4.10: VERSION on a tag miss: FAIL, IN_SWITCH clear,
    aux = 0x0b << 24, the packet's own gstatus and copyset."""
    e = to_node(req.node, "switch")
    l = {"type": "VERSION", "flags": ["FAIL"],
         "gstatus": req.gstatus if req.gstatus is not None else "Unshared",
         "copyset": req.copyset if req.copyset is not None else [],
         "dst_node": req.node, "len": 0, "aux": hx(11 << 24)}
    l.update(req.same())
    e["lcf"] = l
    return e


def migrate_ack(req, topo, gstatus, copyset, way, fail=False):
    """PROTOCOL 4.6: MIGRATE_ACK to the home agent plus its mirror to the
    shadow node (same header, dst_node = shadow)."""
    shadow = SHADOW[topo]
    out = []
    if isinstance(way, list):
        aux = {"any_of": [hx(TYPECODE[req.type] << 24 | w << 16) for w in way]}
    else:
        aux = hx(TYPECODE[req.type] << 24 | way << 16)
    for n in (req.node, shadow):
        e = to_node(n, "switch")
        l = {"type": "MIGRATE_ACK", "flags": ["IN_SWITCH"] + (["FAIL"] if fail else []),
             "dst_node": n, "len": 0, "aux": aux}
        if gstatus is not None:
            l["gstatus"] = gstatus
        if copyset is not None:
            l["copyset"] = copyset
        l.update(req.same())
        e["lcf"] = l
        out.append(e)
    return out


def step(req_or_input, expect, comment, constraints=None):
    s = {"comment": comment,
         "in": req_or_input.input() if isinstance(req_or_input, Req) else req_or_input,
         "expect": expect if expect else "nothing"}
    if constraints:
        s["constraints"] = constraints
    return s


def repeat(count, steps):
    """Step: `steps` played `count` times (lcfvec.expand_steps)."""
    return {"repeat": count, "steps": steps}


def vector(no, name, topo, description, paper, steps, counters=None, requires=None):
    v = {"topology": topo, "description": description, "paper": paper,
         "steps": steps}
    if counters:
        v["expect_counters"] = counters
    if requires:
        v["requires"] = requires
    VECTORS.append(("%03d-%s" % (no, name), v))


def add(no, topo, home, k, gstatus, copyset, way=0, seq=1):
    """Step: the home agent installs a block (PROTOCOL 4.4)."""
    r = Req("ADD_TO_SWITCH", home, tag(no, home, k), seq=seq, gstatus=gstatus,
            copyset=copyset)
    return step(r, migrate_ack(r, topo, gstatus, copyset, way),
                "home agent %d adds the block (%s, copyset %s): MIGRATE_ACK to it, "
                "mirrored to the shadow node %d" % (home, gstatus, copyset, SHADOW[topo]))


DP_ONE = [{"exactly_one_flag": "DATA_PROVIDER"}]


# =================================================================== A: migration

def migration():
    n = 1
    r = Req("ADD_TO_SWITCH", 0, tag(n, 0), gstatus="Shared", copyset=[1])
    vector(n, "add-to-switch-ok", "pcap2.json",
           "ADD_TO_SWITCH of a new tag into an empty switch: installed in way 0; "
           "successful MIGRATE_ACK (IN_SWITCH, aux = 0x08<<24 | way 0) to the "
           "home agent, mirrored to the shadow node.",
           "Section 5.2.1 ADD-TO-SWITCH; 5.2.2 'The switch copies the ACK of every "
           "ADD-TO-SWITCH to the shadow node'; PROTOCOL 4.4, 4.6",
           [step(r, migrate_ack(r, "pcap2.json", "Shared", [1], 0),
                 "node 0 (home) adds a Shared block held by node 1")],
           {"add_to_switch_ok": 1, "mirror_to_shadow": 1})

    n = 2
    t = tag(n, 0)
    a1 = Req("ADD_TO_SWITCH", 0, t, seq=1, gstatus="Shared", copyset=[1])
    a2 = Req("ADD_TO_SWITCH", 0, t, seq=2, gstatus="Modified", copyset=[1])
    rm = Req("READ_MISS", 0, t, seq=1)
    d2 = migrate_ack(a2, "pcap2.json", None, None, 0)
    vector(n, "add-to-switch-duplicate", "pcap2.json",
           "A second ADD_TO_SWITCH for a tag already in the switch is a duplicate: "
           "nothing changes, a successful MIGRATE_ACK is sent (and mirrored). The "
           "duplicate carries different metadata (Modified); a later READ_MISS "
           "still sees the first ADD's Shared {1}.",
           "PROTOCOL 4.4 (Interpretation: look up first so a retransmitted ADD never "
           "installs twice); section 5.3 footnote 5 (idempotent migration)",
           [step(a1, migrate_ack(a1, "pcap2.json", "Shared", [1], 0), "first ADD installs"),
            step(a2, d2, "duplicate ADD: success, no change (gstatus/copyset of the ack "
                 "not compared)"),
            step(rm, [forward(rm, 1, "Shared", [1], dp=True)],
                 "READ_MISS from node 0 sees the original Shared {1}: data provider node 1")],
           {"add_to_switch_ok": 1, "add_to_switch_duplicate": 1,
            "forward_data_provider_shared": 1})

    n = 3
    a = Req("ADD_TO_SWITCH", 0, tag(n, 0, 0), gstatus="Shared", copyset=[2])
    b = Req("ADD_TO_SWITCH", 0, tag(n, 0, 1), gstatus="Shared", copyset=[1])
    rb = Req("READ_MISS", 1, tag(n, 0, 1), seq=1)
    ra = Req("READ_MISS", 1, tag(n, 0, 0), seq=3)
    vector(n, "add-collision-fail-mirrored", "tiny1x1.json",
           "With one way of one slot every second tag collides: the ADD fails with "
           "a MIGRATE_ACK with FAIL and way 0xff, still mirrored to the shadow node "
           "(which then evicts the coldest block, 5.2.2). The failed tag stays a "
           "miss and goes to its home agent; the first tag is unaffected.",
           "Section 5.2.2 'Handling collisions'; PROTOCOL 4.4, 4.6 (way = 0xff on a "
           "collision)",
           [step(a, migrate_ack(a, "tiny1x1.json", "Shared", [2], 0), "first tag fills the only slot"),
            step(b, migrate_ack(b, "tiny1x1.json", None, None, 0xff, fail=True),
                 "second tag collides: MIGRATE_ACK FAIL, aux 0x08ff0000, mirrored"),
            step(rb, [tag_miss(rb, 0)], "READ_MISS for the refused tag: tag miss, to home node 0, IN_SWITCH clear"),
            step(ra, [forward(ra, 2, "Shared", [2], dp=True)],
                 "READ_MISS for the installed tag: (READ_MISS, Shared) to node 2")],
           {"add_to_switch_ok": 1, "add_to_switch_collision": 1, "tag_miss_to_home": 1},
           requires="profile with 1 way x 1 slot (tiny1x1.json)")

    n = 4
    t = tag(n, 0)
    a = Req("ADD_TO_SWITCH", 0, t, gstatus="Shared", copyset=[1])
    rm = Req("REMOVE_FROM_SWITCH", 0, t, seq=2)
    r1 = Req("READ_MISS", 1, t, seq=1)
    vector(n, "remove-from-switch-ok", "pcap2.json",
           "REMOVE_FROM_SWITCH takes the write lock, resubmits, clears the slot and "
           "returns a MIGRATE_ACK with the block's metadata (mirrored to the "
           "shadow). Afterwards the tag misses: a READ_MISS goes to the home agent "
           "with IN_SWITCH clear.",
           "Section 5.2.1 REMOVE-FROM-SWITCH; PROTOCOL 4.5, 4.6, 4.1",
           [add(n, "pcap2.json", 0, 0, "Shared", [1]),
            step(rm, migrate_ack(rm, "pcap2.json", "Shared", [1], 0),
                 "remove: MIGRATE_ACK (aux 0x09000000) with gstatus Shared, copyset {1}"),
            step(r1, [tag_miss(r1, 0)], "tag is gone: READ_MISS to home node 0, IN_SWITCH clear")],
           {"add_to_switch_ok": 1, "remove_from_switch_ok": 1, "tag_miss_to_home": 1})

    n = 5
    rm = Req("REMOVE_FROM_SWITCH", 0, tag(n, 0))
    vector(n, "remove-tag-miss-returns-home", "pcap2.json",
           "A REMOVE_FROM_SWITCH whose tag is not in the switch is a tag miss: the "
           "request returns unchanged to the home agent with IN_SWITCH clear, which "
           "tells it the block is already home. No MIGRATE_ACK, no mirror.",
           "PROTOCOL 4.5 last sentence, 4.1",
           [step(rm, [tag_miss(rm, 0)], "REMOVE of an unknown tag comes back to node 0")],
           {"tag_miss_to_home": 1, "remove_from_switch_ok": 0, "mirror_to_shadow": 0})

    n = 6
    t = tag(n, 0)
    w = Req("WRITE_MISS", 1, t, seq=1)
    rm1 = Req("REMOVE_FROM_SWITCH", 0, t, seq=2)
    wu = Req("WRITE_UNLOCK", 1, t, seq=1, gstatus="Modified", copyset=[1])
    rm2 = Req("REMOVE_FROM_SWITCH", 0, t, seq=3)
    vector(n, "remove-while-write-locked-nack", "pcap2.json",
           "REMOVE_FROM_SWITCH needs the write lock: while node 1 holds it (a "
           "WRITE_MISS), the REMOVE gets a NACK (lock busy). After node 1's "
           "WRITE_UNLOCK installs Modified {1}, the REMOVE succeeds and reports "
           "Modified {1}.",
           "Section 5.2.1 ('the switch acquires the cache block's write lock'); "
           "PROTOCOL 4.5, 4.3",
           [add(n, "pcap2.json", 0, 0, "Unshared", []),
            step(w, [forward(w, 0, "Unshared", [])],
                 "(WRITE_MISS, Unshared): to the home node 0, write lock held"),
            step(rm1, [nack(rm1, "Unshared", [])], "REMOVE while locked: NACK to node 0"),
            step(wu, [unlock_ack(wu, "Modified", [1])], "node 1 unlocks with Modified {1}"),
            step(rm2, migrate_ack(rm2, "pcap2.json", "Modified", [1], 0),
                 "REMOVE now succeeds with the unlocked metadata")],
           {"nack_lock_busy": 1, "remove_from_switch_ok": 1, "unlock_executed": 1})

    n = 7
    a = Req("ADD_TO_SWITCH", 0, tag(n, 0, 0), seq=1, gstatus="Shared", copyset=[1])
    b1 = Req("ADD_TO_SWITCH", 0, tag(n, 0, 1), seq=2, gstatus="Modified", copyset=[2])
    ra = Req("REMOVE_FROM_SWITCH", 0, tag(n, 0, 0), seq=3)
    b2 = Req("ADD_TO_SWITCH", 0, tag(n, 0, 1), seq=4, gstatus="Modified", copyset=[2])
    rb = Req("READ_MISS", 1, tag(n, 0, 1), seq=1)
    vector(n, "remove-frees-slot-for-add", "tiny1x1.json",
           "Collision, then the shadow node's remedy: the home agent removes the "
           "colder block, and the retried ADD takes the freed slot (way 0).",
           "Section 5.2.2 'Handling collisions' (retry at the next epoch); PROTOCOL 4.4, 4.5",
           [step(a, migrate_ack(a, "tiny1x1.json", "Shared", [1], 0), "tag A installed"),
            step(b1, migrate_ack(b1, "tiny1x1.json", None, None, 0xff, fail=True), "tag B collides"),
            step(ra, migrate_ack(ra, "tiny1x1.json", "Shared", [1], 0), "tag A removed"),
            step(b2, migrate_ack(b2, "tiny1x1.json", "Modified", [2], 0), "retried ADD of B succeeds in way 0"),
            step(rb, [forward(rb, 2, "Modified", [2], dp=True)], "(READ_MISS, Modified) on B: to owner node 2")],
           {"add_to_switch_ok": 2, "add_to_switch_collision": 1, "remove_from_switch_ok": 1},
           requires="profile with 1 way x 1 slot (tiny1x1.json)")

    n = 8
    t = tag(n, 0)
    r1 = Req("READ_MISS", 1, t, seq=1)
    u1 = Req("READ_UNLOCK", 1, t, seq=1, gstatus="Shared", copyset=[1])
    rm = Req("REMOVE_FROM_SWITCH", 0, t, seq=2)
    vector(n, "remove-reports-current-metadata", "pcap3.json",
           "The MIGRATE_ACK of a REMOVE carries the up-to-date global metadata: "
           "after node 1 read the block and unlocked with copyset {1}, the "
           "switch's COPYSET is {1,2} (union on read unlock) and that is what the "
           "home agent gets back.",
           "Section 5.2.1 ('sends an ACK with up-to-date global status and "
           "copyset'); 5.1.1 read lock release = union; PROTOCOL 4.3, 4.5",
           [add(n, "pcap3.json", 0, 0, "Shared", [2]),
            step(r1, [forward(r1, 2, "Shared", [2], dp=True)], "(READ_MISS, Shared) to node 2"),
            step(u1, [unlock_ack(u1, "Shared", [1, 2])], "READ_UNLOCK: COPYSET |= {1}"),
            step(rm, migrate_ack(rm, "pcap3.json", "Shared", [1, 2], 0),
                 "REMOVE reports Shared {1,2}")],
           {"remove_from_switch_ok": 1, "unlock_executed": 1})


    n = 9
    a = Req("ADD_TO_SWITCH", 2, tag(n, 2), gstatus="Shared", copyset=[0])
    vector(n, "migrate-ack-home-agent-is-shadow", "pcap3.json",
           "When the home agent that sends the ADD runs on the shadow node, that "
           "node receives two MIGRATE_ACKs: the reply to the home agent and the "
           "shadow mirror copy (same header, dst_node = shadow), as a Tofino "
           "mirror session would send them.",
           "Section 5.2.2 ('The switch copies the ACK of every ADD-TO-SWITCH to the "
           "shadow node'); PROTOCOL 4.6 (MIGRATE_ACK to the home agent and a "
           "mirror copy to the shadow node)",
           [step(a, migrate_ack(a, "pcap3.json", "Shared", [0], 0),
                 "node 2 (home and shadow) adds a block: two copies on port 2")],
           {"add_to_switch_ok": 1, "mirror_to_shadow": 1})


# =================================================================== B: tag miss

def tag_misses():
    n = 10
    r = Req("READ_MISS", 0, tag(n, 2), seq=7, gstatus="Modified", copyset=[1],
            flags=["IN_SWITCH", "DATA_PROVIDER"])
    vector(n, "tag-miss-to-home-agent", "pcap3.json",
           "A request whose tag is in no way goes unchanged to the tag's home node "
           "(top 16 bits of the address: node 2) with IN_SWITCH and DATA_PROVIDER "
           "cleared even if the sender set them; gstatus/copyset are left as sent; "
           "source stays the requester; dst MAC/IP/dst_node rewritten.",
           "Section 5.1.1 ('On failure, the switch forwards the request to its home "
           "agent and sets the is in switch field to false'); PROTOCOL 4.1",
           [step(r, [tag_miss(r, 2)], "READ_MISS from node 0 for a block homed at node 2")],
           {"tag_miss_to_home": 1})

    n = 11
    steps = []
    seq = 1
    for i, ty in enumerate(["WRITE_MISS", "WRITE_SHARED", "EVICT_SHARED",
                            "EVICT_MODIFIED", "READ_UNLOCK", "WRITE_UNLOCK"]):
        home = (i % 2) + 1
        r = Req(ty, 0, tag(n, home, i), seq=seq, gstatus="Shared", copyset=[0])
        seq += 1
        steps.append(step(r, [tag_miss(r, home)],
                          "%s for a tag not in the switch: to home node %d" % (ty, home)))
    vector(n, "tag-miss-every-type", "pcap3.json",
           "Every pipeline type with a missing tag (coherence requests and unlocks) "
           "is forwarded to its home agent with IN_SWITCH clear.",
           "Section 5.1.1, 5.2 ('Home agents handle cache coherence requests for "
           "cache blocks they manage (the is in switch field ... is false)'); PROTOCOL 4.1",
           steps, {"tag_miss_to_home": 6, "resubmit": 0})


# =================================================================== C: Table 3

def table3():
    T = "pcap3.json"

    def simple(n, name, ty, gs, cs, req_node, expect_fn, desc, paper, counters, home=0):
        t = tag(n, home)
        r = Req(ty, req_node, t, seq=1)
        vector(n, name, T, desc, paper,
               [add(n, T, home, 0, gs, cs), step(r, expect_fn(r), "%s from node %d" % (ty, req_node))],
               counters)

    simple(20, "t3-read-miss-unshared", "READ_MISS", "Unshared", [], 1,
           lambda r: [forward(r, 0, "Unshared", [])],
           "(READ_MISS, Unshared): forwarded to the home agent (node 0) with IN_SWITCH, "
           "gstatus Unshared, empty copyset, no data provider. Check (Table 2) "
           "succeeds: node 1 is not in {}.",
           "Table 3 row (READ-MISS, Unshared); Table 2 row READ-MISS (success)",
           {"forward_home_unshared": 1})
    simple(21, "t3-write-miss-unshared", "WRITE_MISS", "Unshared", [], 1,
           lambda r: [forward(r, 0, "Unshared", [])],
           "(WRITE_MISS, Unshared): forwarded to the home agent with IN_SWITCH.",
           "Table 3 row (WRITE-MISS, Unshared); Table 2 row WRITE-MISS (success)",
           {"forward_home_unshared": 1})
    simple(22, "t3-read-miss-modified", "READ_MISS", "Modified", [2], 1,
           lambda r: [forward(r, 2, "Modified", [2], dp=True)],
           "(READ_MISS, Modified): forwarded to the owner (node 2, the copyset's "
           "only node) with DATA_PROVIDER set.",
           "Table 3 row (READ-MISS, Modified) 'forward to the cache agent in pkt.copyset'",
           {"forward_owner_modified": 1})
    simple(23, "t3-write-miss-modified", "WRITE_MISS", "Modified", [2], 1,
           lambda r: [forward(r, 2, "Modified", [2], dp=True)],
           "(WRITE_MISS, Modified): forwarded to the owner node 2 with DATA_PROVIDER "
           "(it invalidates and sends the data).",
           "Table 3 row (WRITE-MISS, Modified)",
           {"forward_owner_modified": 1})
    simple(24, "t3-read-miss-shared-one-holder", "READ_MISS", "Shared", [2], 1,
           lambda r: [forward(r, 2, "Shared", [2], dp=True)],
           "(READ_MISS, Shared) with copyset {2}: the only possible data provider "
           "is node 2; one copy, DATA_PROVIDER set.",
           "Table 3 row (READ-MISS, Shared) 'select a cache agent in pkt.copyset as the data provider'",
           {"forward_data_provider_shared": 1})
    simple(25, "t3-read-miss-shared-random-provider", "READ_MISS", "Shared", [0, 2], 1,
           lambda r: [forward_one_of(r, [0, 2], "Shared", [0, 2], dp=True)],
           "(READ_MISS, Shared) with copyset {0,2}: exactly one copy, to node 0 or "
           "node 2 (random choice), with DATA_PROVIDER and dst rewritten to that node.",
           "Table 3 row (READ-MISS, Shared); section 5.1.1 random data provider selection",
           {"forward_data_provider_shared": 1})

    n = 26
    t = tag(n, 0)
    r = Req("WRITE_MISS", 1, t, seq=1)
    vector(n, "t3-write-miss-shared-multicast", T,
           "(WRITE_MISS, Shared) with copyset {0,2}: multicast to nodes 0 and 2 "
           "(invalidation); exactly one copy, chosen at random, has DATA_PROVIDER.",
           "Table 3 row (WRITE-MISS, Shared) 'multicast to cache agents in pkt.copyset, "
           "select a cache agent as the data provider'",
           [add(n, T, 0, 0, "Shared", [0, 2]),
            step(r, multicast_any_provider(r, [0, 2], "Shared", [0, 2]),
                 "WRITE_MISS from node 1", DP_ONE)],
           {"multicast_invalidate": 1})

    simple(27, "t3-write-miss-shared-one-holder", "WRITE_MISS", "Shared", [2], 1,
           lambda r: [forward(r, 2, "Shared", [2], dp=True)],
           "(WRITE_MISS, Shared) with copyset {2}: a multicast of one copy; node 2 "
           "is necessarily the data provider.",
           "Table 3 row (WRITE-MISS, Shared)",
           {"multicast_invalidate": 1})

    n = 28
    t = tag(n, 0)
    r = Req("WRITE_SHARED", 1, t, seq=1)
    vector(n, "t3-write-shared-multicast", T,
           "(WRITE_SHARED, Shared) by node 1 with copyset {0,1,2}: multicast to "
           "{0,2} (copyset minus the requester), no data provider (the requester "
           "has the data). Check succeeds: node 1 in copyset and Shared.",
           "Table 3 row (WRITE-SHARED, Shared) 'multicast to cache agents in pkt.copyset "
           "except pkt.node id'; Table 2 row WRITE-SHARED (success)",
           [add(n, T, 0, 0, "Shared", [0, 1, 2]),
            step(r, [forward(r, 0, "Shared", [0, 1, 2]), forward(r, 2, "Shared", [0, 1, 2])],
                 "WRITE_SHARED from node 1")],
           {"multicast_invalidate": 1})

    n = 29
    t = tag(n, 0)
    r = Req("WRITE_SHARED", 1, t, seq=1)
    vector(n, "t3-write-shared-sole-holder-ack", T,
           "(WRITE_SHARED, Shared) when the copyset is only the requester: the "
           "switch returns the request to the requester as the direct ACK (from "
           "the switch, dst_node = requester, copyset {1}).",
           "Table 3 footnote 4 'If copyset only contains the requester, the switch "
           "returns an ACK'; PROTOCOL 4.2 Interpretation (direct ACK = request returned)",
           [add(n, T, 0, 0, "Shared", [1]),
            step(r, [returned(r, "Shared", [1])], "WRITE_SHARED from the sole holder")],
           {"ack_sole_holder": 1})

    simple(30, "t3-evict-shared-returned", "EVICT_SHARED", "Shared", [0, 1], 1,
           lambda r: [returned(r, "Shared", [0, 1])],
           "(EVICT_SHARED, Shared) by holder node 1: returned to the requester "
           "(from the switch) with the block's metadata; the write lock is held "
           "until its unlock.",
           "Table 3 row (EVICT-SHARED, Shared) 'return to the requester'; Table 2 row "
           "EVICT-SHARED (success)",
           {"return_eviction": 1})
    simple(31, "t3-evict-modified-returned", "EVICT_MODIFIED", "Modified", [1], 1,
           lambda r: [returned(r, "Modified", [1])],
           "(EVICT_MODIFIED, Modified) by owner node 1: returned to the requester.",
           "Table 3 row (EVICT-MODIFIED, Modified); Table 2 row EVICT-MODIFIED (success)",
           {"return_eviction": 1})
    simple(32, "interp-shared-empty-copyset-to-home", "READ_MISS", "Shared", [], 1,
           lambda r: [forward(r, 0, "Shared", [])],
           "Metadata no correct unlock produces (Shared with an empty copyset): "
           "there is no data provider, so the request goes to the home node, "
           "which owns the data (IN_SWITCH set, Shared, {}).",
           "PROTOCOL 4.2 Interpretation (Modified or Shared with an empty copyset -> home)",
           {"nack_lock_busy": 0, "nack_check_failed": 0})


# =================================================================== D: Table 2 failures

def table2():
    T = "pcap3.json"

    def fail(n, name, gs, cs, r, then, then_expect, desc, paper, counters):
        steps = [add(n, T, 0, 0, gs, cs),
                 step(r, [nack(r, gs, cs)],
                      "%s from node %d fails the check: resubmit releases the lock, "
                      "NACK (IN_SWITCH|FAIL) with the block's metadata" % (r.type, r.node))]
        if then is not None:
            steps.append(step(then, then_expect,
                              "%s from node %d: the lock was released, so it is granted" %
                              (then.type, then.node)))
        vector(n, name, T, desc, paper, steps, counters)

    n = 40
    t = tag(n, 0)
    r = Req("READ_MISS", 1, t, seq=1)
    w = Req("WRITE_SHARED", 2, t, seq=1)
    fail(n, "t2-read-miss-fail-already-holder", "Shared", [1, 2], r, w,
         [forward(w, 1, "Shared", [1, 2])],
         "READ_MISS from node 1 which is already in the copyset {1,2}: check fails, "
         "NACK. The read lock taken in the first pass is released by the resubmit: "
         "node 2's WRITE_SHARED then gets the write lock (LOCK == 0) and multicasts "
         "to {1}.",
         "Table 2 row READ-MISS (failure: pkt.node id in copyset); section 5.1.1 "
         "'If the check fails, the switch resubmits the request to release the "
         "acquired lock, and then sends a failed ACK'",
         {"nack_check_failed": 1, "multicast_invalidate": 1, "nack_lock_busy": 0})

    n = 41
    t = tag(n, 0)
    r = Req("WRITE_MISS", 1, t, seq=1)
    w = Req("WRITE_MISS", 2, t, seq=1)
    fail(n, "t2-write-miss-fail-already-holder", "Modified", [1], r, w,
         [forward(w, 1, "Modified", [1], dp=True)],
         "WRITE_MISS from node 1 which owns the block (Modified {1}): check fails, "
         "NACK; the write lock is released, so node 2's WRITE_MISS is granted and "
         "goes to owner node 1 with DATA_PROVIDER.",
         "Table 2 row WRITE-MISS (failure)",
         {"nack_check_failed": 1, "forward_owner_modified": 1, "nack_lock_busy": 0})

    n = 42
    t = tag(n, 0)
    r = Req("WRITE_SHARED", 1, t, seq=1)
    e = Req("EVICT_SHARED", 2, t, seq=1)
    fail(n, "t2-write-shared-fail-not-holder", "Shared", [2], r, e,
         [returned(e, "Shared", [2])],
         "WRITE_SHARED from node 1, not in copyset {2}: check fails, NACK. Then "
         "node 2's EVICT_SHARED gets the write lock and is returned.",
         "Table 2 row WRITE-SHARED (failure: node not in copyset); the paper's "
         "example of an invalid request (5.1.1)",
         {"nack_check_failed": 1, "return_eviction": 1, "nack_lock_busy": 0})

    n = 43
    t = tag(n, 0)
    r = Req("WRITE_SHARED", 1, t, seq=1)
    rm = Req("READ_MISS", 2, t, seq=1)
    fail(n, "t2-write-shared-fail-not-shared", "Modified", [1], r, rm,
         [forward(rm, 1, "Modified", [1], dp=True)],
         "WRITE_SHARED from node 1 while the block is Modified {1} (gstatus is not "
         "Shared): check fails, NACK. Then a READ_MISS from node 2 is granted.",
         "Table 2 row WRITE-SHARED (failure: global status != Shared)",
         {"nack_check_failed": 1, "forward_owner_modified": 1})

    n = 44
    t = tag(n, 0)
    r = Req("EVICT_SHARED", 1, t, seq=1)
    fail(n, "t2-evict-shared-fail-not-holder", "Shared", [2], r, None, None,
         "EVICT_SHARED from node 1, not in copyset {2}: check fails, NACK.",
         "Table 2 row EVICT-SHARED (failure: node not in copyset)",
         {"nack_check_failed": 1, "return_eviction": 0})

    n = 45
    t = tag(n, 0)
    r = Req("EVICT_SHARED", 1, t, seq=1)
    e = Req("EVICT_MODIFIED", 1, t, seq=2)
    fail(n, "t2-evict-shared-fail-modified", "Modified", [1], r, e,
         [returned(e, "Modified", [1])],
         "EVICT_SHARED from node 1 while the block is Modified {1}: check fails, "
         "NACK. The same node's EVICT_MODIFIED (next seq) then succeeds: returned.",
         "Table 2 row EVICT-SHARED (failure: global status != Shared); row "
         "EVICT-MODIFIED (success)",
         {"nack_check_failed": 1, "return_eviction": 1})

    n = 46
    t = tag(n, 0)
    r = Req("EVICT_MODIFIED", 1, t, seq=1)
    fail(n, "t2-evict-modified-fail-not-owner", "Modified", [2], r, None, None,
         "EVICT_MODIFIED from node 1 while node 2 owns the block: check fails, NACK.",
         "Table 2 row EVICT-MODIFIED (failure: node not in copyset)",
         {"nack_check_failed": 1})

    n = 47
    t = tag(n, 0)
    r = Req("EVICT_MODIFIED", 1, t, seq=1)
    w = Req("WRITE_SHARED", 1, t, seq=2)
    fail(n, "t2-evict-modified-fail-shared", "Shared", [1], r, w,
         [returned(w, "Shared", [1])],
         "EVICT_MODIFIED from node 1 while the block is Shared {1}: check fails, "
         "NACK. Then node 1's WRITE_SHARED is granted and, as sole holder, gets "
         "the direct ACK.",
         "Table 2 row EVICT-MODIFIED (failure: global status != Modified)",
         {"nack_check_failed": 1, "ack_sole_holder": 1})

    n = 48
    t = tag(n, 0)
    f = Req("WRITE_SHARED", 0, t, seq=1)
    w = Req("WRITE_SHARED", 1, t, seq=1)
    r3 = Req("READ_MISS", 0, t, seq=3)
    vector(n, "t2-check-fail-releases-score", T,
           "The second pass of a failed check also decrements the requester's "
           "lock score: node 0 (seq 1, odd) fails, node 1 then takes the write "
           "lock; node 0's next odd-seq request (seq 3) must find score 0 and get "
           "a lock-busy NACK instead of passing as a 'retransmission'.",
           "Section 5.3.2 SCOREBOARD; PROTOCOL 4.2.3 (second pass releases the lock "
           "and decrements the score)",
           [add(n, T, 0, 0, "Shared", [1]),
            step(f, [nack(f, "Shared", [1])], "WRITE_SHARED from non-holder node 0: check fails"),
            step(w, [returned(w, "Shared", [1])], "node 1 (sole holder) takes the write lock"),
            step(r3, [nack(r3, "Shared", [1])], "node 0 seq 3 (odd): lock busy, score 0: NACK")],
           {"nack_check_failed": 1, "nack_lock_busy": 1, "retransmit_passed_on_score": 0,
            "ack_sole_holder": 1})


# =================================================================== E: locks

def locks():
    T = "pcap3.json"
    n = 50
    t = tag(n, 0)
    a = Req("READ_MISS", 0, t, seq=1)
    b = Req("READ_MISS", 1, t, seq=1)
    vector(n, "lock-read-read-granted", T,
           "Two READ_MISS from different nodes on one block: both get the read "
           "lock (readers 1 then 2) and both go to the data provider.",
           "Section 5.1.1 reader-writer lock; Figure 5 (two READ-MISS holding read locks)",
           [add(n, T, 0, 0, "Shared", [2]),
            step(a, [forward(a, 2, "Shared", [2], dp=True)], "node 0 reads"),
            step(b, [forward(b, 2, "Shared", [2], dp=True)], "node 1 reads concurrently: granted")],
           {"forward_data_provider_shared": 2, "nack_lock_busy": 0})

    n = 51
    t = tag(n, 0)
    a = Req("READ_MISS", 0, t, seq=1)
    b = Req("WRITE_MISS", 1, t, seq=1)
    vector(n, "lock-read-then-write-nack", T,
           "A WRITE_MISS while a reader holds the lock: write lock not granted, "
           "score 0, so the switch returns a failed ACK (NACK, lock busy) carrying "
           "the block's metadata.",
           "Section 5.1.1 'The switch returns a failed ACK to the requester when "
           "failing to acquire the lock'; PROTOCOL 4.2.2",
           [add(n, T, 0, 0, "Shared", [2]),
            step(a, [forward(a, 2, "Shared", [2], dp=True)], "node 0 reads"),
            step(b, [nack(b, "Shared", [2])], "node 1 writes: NACK lock busy")],
           {"nack_lock_busy": 1})

    n = 52
    t = tag(n, 0)
    a = Req("WRITE_MISS", 0, t, seq=1)
    b = Req("READ_MISS", 1, t, seq=1)
    vector(n, "lock-write-then-read-nack", T,
           "A READ_MISS while a writer holds the lock: NACK (lock busy).",
           "Section 5.1.1 reader-writer lock",
           [add(n, T, 0, 0, "Shared", [2]),
            step(a, [forward(a, 2, "Shared", [2], dp=True)], "node 0 WRITE_MISS: multicast to {2}, provider 2"),
            step(b, [nack(b, "Shared", [2])], "node 1 READ_MISS: NACK lock busy")],
           {"nack_lock_busy": 1, "multicast_invalidate": 1})

    n = 53
    t = tag(n, 0)
    a = Req("WRITE_MISS", 0, t, seq=1)
    b = Req("WRITE_SHARED", 2, t, seq=1)
    vector(n, "lock-write-write-nack", T,
           "Two writers: node 0's WRITE_MISS holds the write lock; node 2's "
           "WRITE_SHARED (a valid request) gets a NACK, lock busy, aux = 0x03<<24.",
           "Section 5.1.1; Invariant 1 (single writer)",
           [add(n, T, 0, 0, "Shared", [2]),
            step(a, [forward(a, 2, "Shared", [2], dp=True)], "node 0 WRITE_MISS granted"),
            step(b, [nack(b, "Shared", [2])], "node 2 WRITE_SHARED: NACK lock busy")],
           {"nack_lock_busy": 1})

    n = 54
    t = tag(n, 1)
    a = Req("WRITE_MISS", 0, t, seq=1)
    b = Req("WRITE_MISS", 2, t, seq=1)
    u = Req("WRITE_UNLOCK", 0, t, seq=1, gstatus="Modified", copyset=[0])
    c = Req("WRITE_MISS", 2, t, seq=2)
    vector(n, "lock-write-unlock-then-granted", T,
           "Write lock held by node 0 (WRITE_MISS to home node 1), node 2 is "
           "refused; node 0's WRITE_UNLOCK clears the writer bit and installs "
           "Modified {0}; node 2's retry is granted and goes to the new owner, "
           "node 0, with DATA_PROVIDER.",
           "Section 5.1.1 'Requester-driven coherence control' (new copyset {id} "
           "for WRITE-MISS, unlock installs metadata); Figure 6 Unshared -> Modified",
           [add(n, T, 1, 0, "Unshared", []),
            step(a, [forward(a, 1, "Unshared", [])], "(WRITE_MISS, Unshared) to home node 1"),
            step(b, [nack(b, "Unshared", [])], "node 2: lock busy"),
            step(u, [unlock_ack(u, "Modified", [0])], "node 0 unlocks: Modified {0}"),
            step(c, [forward(c, 0, "Modified", [0], dp=True)], "node 2 retries: to owner node 0")],
           {"nack_lock_busy": 1, "unlock_executed": 1, "forward_owner_modified": 1,
            "forward_home_unshared": 1})

    n = 55
    t = tag(n, 0)
    r = Req("READ_MISS", 1, t, seq=1)
    w = Req("WRITE_MISS", 2, t, seq=1)
    vector(n, "nack-lock-released-by-resubmit", T,
           "A NACK whose lock is released by the resubmit: node 1's READ_MISS takes "
           "the read lock, fails the check (it owns the block), and the resubmitted "
           "pass releases the read lock. The very next request, a WRITE_MISS (which "
           "needs LOCK == 0), is granted.",
           "Section 5.1.1 ('the switch resubmits the request to release the acquired "
           "lock, and then sends a failed ACK'); PROTOCOL 4.2.3",
           [add(n, T, 0, 0, "Modified", [1]),
            step(r, [nack(r, "Modified", [1])], "READ_MISS from owner node 1: check fails"),
            step(w, [forward(w, 1, "Modified", [1], dp=True)], "WRITE_MISS from node 2: granted")],
           {"nack_check_failed": 1, "nack_lock_busy": 0, "forward_owner_modified": 1})

    n = 56
    t = tag(n, 0)
    a = Req("READ_MISS", 0, t, seq=1)
    b = Req("READ_MISS", 1, t, seq=1)
    ua = Req("READ_UNLOCK", 0, t, seq=1, gstatus="Shared", copyset=[0, 2])
    ub = Req("READ_UNLOCK", 1, t, seq=1, gstatus="Shared", copyset=[1, 2])
    w = Req("WRITE_SHARED", 2, t, seq=1)
    vector(n, "read-unlock-copyset-union", T,
           "Two concurrent readers unlock with copysets {0,2} and {1,2}: the switch "
           "ORs them into COPYSET ({0,1,2}) instead of overwriting. Both read locks "
           "are released, so node 2's WRITE_SHARED takes the write lock and "
           "invalidates {0,1}.",
           "Section 5.1.1 'For read lock release, the new value in the COPYSET array "
           "is the union of the old one and the copyset field in the unlock request'",
           [add(n, T, 0, 0, "Shared", [2]),
            step(a, [forward(a, 2, "Shared", [2], dp=True)], "node 0 reads"),
            step(b, [forward(b, 2, "Shared", [2], dp=True)], "node 1 reads"),
            step(ua, [unlock_ack(ua, "Shared", [0, 2])], "node 0 unlocks {0,2}"),
            step(ub, [unlock_ack(ub, "Shared", [0, 1, 2])], "node 1 unlocks {1,2}: union {0,1,2}"),
            step(w, [forward(w, 0, "Shared", [0, 1, 2]), forward(w, 1, "Shared", [0, 1, 2])],
                 "node 2 WRITE_SHARED: invalidate {0,1}")],
           {"unlock_executed": 2, "multicast_invalidate": 1, "nack_lock_busy": 0})

    n = 57
    t = tag(n, 0)
    e = Req("EVICT_SHARED", 1, t, seq=1)
    r = Req("READ_MISS", 2, t, seq=1)
    u = Req("WRITE_UNLOCK", 1, t, seq=1, gstatus="Shared", copyset=[0])
    r2 = Req("READ_MISS", 2, t, seq=2)
    vector(n, "evict-holds-write-lock-until-unlock", T,
           "EVICT_SHARED is protected by the write lock: after it is returned, a "
           "READ_MISS is refused until the evicting node's WRITE_UNLOCK (copyset "
           "minus itself: {0}) arrives; then the READ_MISS goes to node 0.",
           "Section 5.1.1 ('we protect EVICT-SHARED with write locks'); Figure 6",
           [add(n, T, 0, 0, "Shared", [0, 1]),
            step(e, [returned(e, "Shared", [0, 1])], "node 1 evicts"),
            step(r, [nack(r, "Shared", [0, 1])], "node 2 READ_MISS: lock busy"),
            step(u, [unlock_ack(u, "Shared", [0])], "node 1 WRITE_UNLOCK Shared {0}"),
            step(r2, [forward(r2, 0, "Shared", [0], dp=True)], "node 2 retries: provider node 0")],
           {"return_eviction": 1, "nack_lock_busy": 1, "unlock_executed": 1})


# =================================================================== F: idempotence

def idempotence():
    n = 60
    T = "pcap2.json"
    t = tag(n, 0)
    rm = Req("READ_MISS", 0, t, seq=1)
    ul = Req("READ_UNLOCK", 0, t, seq=1, gstatus="Shared", copyset=[0, 1])
    ws = Req("WRITE_SHARED", 1, t, seq=1)
    vector(n, "fig8-retransmitted-read-miss-and-unlock", T,
           "The Figure 8 story. (b) node 0 READ_MISS seq 1: readers 0->1, SB 1, "
           "forwarded (and, in the story, lost). (c) the retransmission with the "
           "same seq takes the read lock again: readers 2, SB 2, forwarded again. "
           "(d) READ_UNLOCK seq 1: resubmitted with score 2, LAST-UNLOCK 0->1, "
           "readers 2-2 = 0, SB reset, UNLOCK_ACK. A duplicate of that unlock is "
           "ignored but still ACKed. The lock is then free: node 1's WRITE_SHARED "
           "gets the write lock (it would be NACKed if one reader were left).",
           "Figure 8 (a)-(d); section 5.3.2 SCOREBOARD and LAST-UNLOCK",
           [add(n, T, 0, 0, "Shared", [1]),
            step(rm, [forward(rm, 1, "Shared", [1], dp=True)], "(b) READ_MISS seq 1"),
            step(rm, [forward(rm, 1, "Shared", [1], dp=True)], "(c) retransmitted READ_MISS seq 1"),
            step(ul, [unlock_ack(ul, "Shared", [0, 1])], "(d) READ_UNLOCK seq 1: subtracts the score 2"),
            step(ul, [unlock_ack(ul, "Shared", [0, 1])], "duplicate READ_UNLOCK seq 1: ignored, ACKed"),
            step(ws, [forward(ws, 0, "Shared", [0, 1])],
                 "WRITE_SHARED from node 1: lock free, invalidate node 0")],
           {"forward_data_provider_shared": 2, "unlock_executed": 1,
            "unlock_duplicate_ignored": 1, "nack_lock_busy": 0, "multicast_invalidate": 1})

    n = 61
    t = tag(n, 0)
    w5 = Req("WRITE_MISS", 1, t, seq=5)
    u5 = Req("WRITE_UNLOCK", 1, t, seq=5, gstatus="Modified", copyset=[1])
    u5b = Req("WRITE_UNLOCK", 1, t, seq=5, gstatus="Shared", copyset=[0, 1])
    u4 = Req("WRITE_UNLOCK", 1, t, seq=4, gstatus="Unshared", copyset=[])
    e6 = Req("EVICT_MODIFIED", 1, t, seq=6)
    u6 = Req("WRITE_UNLOCK", 1, t, seq=6, gstatus="Shared", copyset=[1])
    vector(n, "unlock-idempotence-last-unlock", T,
           "LAST-UNLOCK: an unlock executes only when its seq is after the "
           "requester's last unlock and its event holds the lock. Node 1's "
           "WRITE_MISS seq 5 is granted and its unlock executes (Modified {1}); a "
           "second seq 5 carrying other metadata and an older seq 4 are ignored, "
           "and their UNLOCK_ACKs show the unchanged Modified {1}; the eviction "
           "seq 6 is returned and its unlock executes.",
           "Section 5.3.2 ('to avoid repeated execution of the same unlock request'); "
           "PROTOCOL 4.3 (always an UNLOCK_ACK, duplicates included)",
           [add(n, T, 0, 0, "Unshared", []),
            step(w5, [forward(w5, 0, "Unshared", [])], "node 1 WRITE_MISS seq 5: to the home"),
            step(u5, [unlock_ack(u5, "Modified", [1])], "seq 5 executes"),
            step(u5b, [unlock_ack(u5b, "Modified", [1])], "seq 5 again (different metadata): ignored"),
            step(u4, [unlock_ack(u4, "Modified", [1])], "seq 4 (older): ignored"),
            step(e6, [returned(e6, "Modified", [1])], "node 1 EVICT_MODIFIED seq 6: returned"),
            step(u6, [unlock_ack(u6, "Shared", [1])], "seq 6 executes")],
           {"unlock_executed": 2, "unlock_duplicate_ignored": 2})

    n = 62
    t = tag(n, 0)
    steps = [add(n, T, 0, 0, "Unshared", [])]
    bare0 = Req("WRITE_UNLOCK", 1, t, seq=0, gstatus="Modified", copyset=[1])
    steps.append(step(bare0, [unlock_ack(bare0, "Unshared", [])],
                      "seq 0x00000000: not after LAST-UNLOCK: ignored"))
    # steps below 2^31 for LAST-UNLOCK and for each seq parity's SCOREBOARD entry
    for s in (0x40000000, 0x7fffffff, 0x80000000, 0xbfffffff, 0xc0000000,
              0xfffffffe, 0x00000001):
        w = Req("WRITE_MISS", 1, t, seq=s)
        u = Req("WRITE_UNLOCK", 1, t, seq=s, gstatus="Unshared", copyset=[])
        steps.append(step(w, [forward(w, 0, "Unshared", [])], "seq 0x%08x: granted" % s))
        steps.append(step(u, [unlock_ack(u, "Unshared", [])], "seq 0x%08x: executes" % s))
    late = Req("WRITE_UNLOCK", 1, t, seq=0xffffffff, gstatus="Modified", copyset=[1])
    steps.append(step(late, [unlock_ack(late, "Unshared", [])],
                      "seq 0xffffffff: before 1, not after LAST-UNLOCK: ignored"))
    vector(n, "unlock-seq-serial-arithmetic", T,
           "LAST-UNLOCK uses RFC 1982 serial-number comparison and starts at 0: "
           "seq 0 is not after 0 (ignored); events up to 0xfffffffe and then 1 "
           "(wrap-around) each lock and unlock, in steps below 2^31 for LAST-UNLOCK "
           "and for each seq parity's SCOREBOARD entry; 0xffffffff is before 1 "
           "(ignored).",
           "Section 5.3.1 (sequence numbers); PROTOCOL 1 seq (RFC 1982), 4 state "
           "(LAST_UNLOCK initially 0), 4.3",
           steps, {"unlock_executed": 7, "unlock_duplicate_ignored": 2,
                   "forward_home_unshared": 7})

    n = 63
    ta = tag(n, 0, 0)
    tb = tag(n, 0, 1)
    a = Req("READ_MISS", 0, ta, seq=1)
    b = Req("READ_MISS", 0, tb, seq=2)
    ua = Req("READ_UNLOCK", 0, ta, seq=1, gstatus="Shared", copyset=[0, 1])
    ub = Req("READ_UNLOCK", 0, tb, seq=2, gstatus="Shared", copyset=[0, 1])
    wa = Req("WRITE_SHARED", 1, ta, seq=1)
    wb = Req("WRITE_SHARED", 1, tb, seq=2)
    ra = Req("ADD_TO_SWITCH", 0, ta, seq=1, gstatus="Shared", copyset=[1])
    rb = Req("ADD_TO_SWITCH", 0, tb, seq=2, gstatus="Shared", copyset=[1])
    vector(n, "scoreboard-odd-even", T,
           "Two lock scores per requester, by seq parity. Node 0 has two events in "
           "flight: READ_MISS seq 1 on block A (odd score 1) and READ_MISS seq 2 on "
           "block B, retransmitted (even score 2). READ_UNLOCK seq 1 subtracts 1 "
           "from A's readers, READ_UNLOCK seq 2 subtracts 2 from B's. Both blocks "
           "end with LOCK 0, proven by node 1's WRITE_SHARED being granted on each.",
           "Section 5.3.2 ('each requester is associated with two lock scores in "
           "SCOREBOARD array: one for requests with odd sequence numbers, the other "
           "for even ones')",
           [step(ra, migrate_ack(ra, T, "Shared", [1], 0), "add block A"),
            step(rb, migrate_ack(rb, T, "Shared", [1], [0, 1]),
                 "add block B (way 0 or 1, depending on the hash)"),
            step(a, [forward(a, 1, "Shared", [1], dp=True)], "READ_MISS A seq 1"),
            step(b, [forward(b, 1, "Shared", [1], dp=True)], "READ_MISS B seq 2"),
            step(b, [forward(b, 1, "Shared", [1], dp=True)], "READ_MISS B seq 2 retransmitted"),
            step(ua, [unlock_ack(ua, "Shared", [0, 1])], "READ_UNLOCK A seq 1 (odd score 1)"),
            step(ub, [unlock_ack(ub, "Shared", [0, 1])], "READ_UNLOCK B seq 2 (even score 2)"),
            step(wa, [forward(wa, 0, "Shared", [0, 1])], "WRITE_SHARED A: granted"),
            step(wb, [forward(wb, 0, "Shared", [0, 1])], "WRITE_SHARED B: granted")],
           {"unlock_executed": 2, "nack_lock_busy": 0, "multicast_invalidate": 2})

    n = 64
    t = tag(n, 0)
    w1 = Req("WRITE_MISS", 1, t, seq=1)
    w2 = Req("WRITE_MISS", 1, t, seq=2)
    wt = Req("WRITE_MISS", 1, t, seq=1, thread=1)
    vector(n, "retransmit-passes-on-score", T,
           "A retransmitted WRITE_MISS (same requester, same seq) finds the write "
           "lock taken (by itself) but its score 1 > 0, so it goes on and is "
           "forwarded again. The same requester's even-seq request and another "
           "thread of the same node (another requester, score 0) are NACKed.",
           "Section 5.3.2 ('The switch passes the request to the subsequent check "
           "table only if the lock score is greater than 0'); PROTOCOL 4.2.2",
           [add(n, T, 0, 0, "Unshared", []),
            step(w1, [forward(w1, 0, "Unshared", [])], "WRITE_MISS seq 1 to home node 0"),
            step(w1, [forward(w1, 0, "Unshared", [])], "retransmission: passes on score"),
            step(w2, [nack(w2, "Unshared", [])], "seq 2 (even score 0): NACK lock busy"),
            step(wt, [nack(wt, "Unshared", [])], "thread 1, seq 1: another requester: NACK")],
           {"retransmit_passed_on_score": 1, "forward_home_unshared": 2, "nack_lock_busy": 2})

    n = 65
    t = tag(n, 0)
    rm = Req("READ_MISS", 0, t, seq=1)
    u = Req("READ_UNLOCK", 0, t, seq=1, gstatus="Shared", copyset=[0, 1])
    w = Req("WRITE_MISS", 1, t, seq=1)
    w2 = Req("WRITE_SHARED", 1, t, seq=1)
    vector(n, "read-unlock-subtracts-only-own-score", T,
           "The READ_UNLOCK releases exactly the lock score of its requester: one "
           "READ_MISS, one unlock; the block is then free for a writer. (Control "
           "for Figure 8: the subtraction is the score, not a constant.)",
           "Figure 8 (d); section 5.3.2",
           [add(n, T, 0, 0, "Shared", [1]),
            step(rm, [forward(rm, 1, "Shared", [1], dp=True)], "READ_MISS seq 1"),
            step(w, [nack(w, "Shared", [1])], "node 1 WRITE_MISS while read-locked: NACK lock busy"),
            step(u, [unlock_ack(u, "Shared", [0, 1])], "READ_UNLOCK subtracts 1"),
            step(w2, [forward(w2, 0, "Shared", [0, 1])], "node 1 WRITE_SHARED: granted")],
           {"nack_lock_busy": 1, "unlock_executed": 1})

    n = 66
    t = tag(n, 0)
    w3 = Req("WRITE_MISS", 1, t, seq=3)
    u3 = Req("WRITE_UNLOCK", 1, t, seq=3, gstatus="Modified", copyset=[1])
    w2 = Req("WRITE_MISS", 1, t, seq=2)
    e4 = Req("EVICT_MODIFIED", 1, t, seq=4)
    vector(n, "stale-request-nack-after-unlock", T,
           "A copy of a request that arrives after its event's unlock executed "
           "(delayed beyond the retransmission timeout, or duplicated) is NACKed "
           "without touching LOCK or SCOREBOARD: had it taken the write lock, no "
           "unlock would ever release it. Node 1 WRITE_MISS seq 3 is granted, its "
           "WRITE_UNLOCK seq 3 executes (LAST-UNLOCK 3, Modified {1}); the late "
           "copy of seq 3 and an older seq 2 are NACKed (the NACK carries the "
           "packet's own gstatus/copyset: the LOCK stage never ran). The block's "
           "write lock is free: node 1's EVICT_MODIFIED seq 4 is granted.",
           "PROTOCOL 4.2, Interpretation (stale request); section 5.3.2 "
           "LAST-UNLOCK",
           [add(n, T, 0, 0, "Unshared", []),
            step(w3, [forward(w3, 0, "Unshared", [])], "WRITE_MISS seq 3 to home node 0"),
            step(u3, [unlock_ack(u3, "Modified", [1])], "WRITE_UNLOCK seq 3 executes"),
            step(w3, [nack_stale(w3)], "late copy of WRITE_MISS seq 3: NACK, stale"),
            step(w2, [nack_stale(w2)], "WRITE_MISS seq 2 (older): NACK, stale"),
            step(e4, [returned(e4, "Modified", [1])],
                 "EVICT_MODIFIED seq 4: the write lock is free, returned")],
           {"nack_stale_request": 2, "forward_home_unshared": 1, "unlock_executed": 1,
            "return_eviction": 1, "nack_lock_busy": 0, "retransmit_passed_on_score": 0})

    n = 67
    T3 = "pcap3.json"
    t = tag(n, 2)
    holders = [0, 1]
    steps = [add(n, T3, 2, 0, "Shared", holders)]
    events = [("WRITE_MISS", s, s % 3) for s in range(1, 7)] + \
             [("READ_MISS", s, 3) for s in (7, 8)]
    for typ, s, th in events:
        r = Req(typ, 2, t, seq=s, thread=th)
        if typ == "WRITE_MISS":
            exp = multicast_any_provider(r, holders, "Shared", holders)
            cons = DP_ONE
            ul = Req("WRITE_UNLOCK", 2, t, seq=s, thread=th, gstatus="Shared",
                     copyset=holders)
        else:
            exp = [forward_one_of(r, holders, "Shared", holders, dp=True)]
            cons = None
            ul = Req("READ_UNLOCK", 2, t, seq=s, thread=th, gstatus="Shared",
                     copyset=holders)
        first = len(steps)
        steps.append(step(r, exp, "%s thread %d seq %d: a provider among {0,1}"
                          % (typ, th, s), cons))
        again = "passes on score" if typ == "WRITE_MISS" else \
            "takes the read lock again (Figure 8 c)"
        steps.append(step(r, exp, "its retransmission %s: the same provider as "
                          "step %d" % (again, first),
                          (cons or []) + [{"same_provider_as_step": first}]))
        steps.append(step(ul, [unlock_ack(ul, "Shared", holders)],
                          "unlock: back to Shared {0,1}"))
    vector(n, "retransmit-same-provider", T3,
           "A retransmission that passes on the scoreboard names the same data "
           "provider as the first pass: the provider is chosen per event "
           "(requester, seq), not per pass. Otherwise, with copies of both passes "
           "in flight, each holder may see first the copy that does not ask it "
           "for the data, invalidate, and the data is lost. Node 2 writes (six "
           "events, threads 0-2) and reads (two events) a block Shared by {0,1}; "
           "each request is sent twice (a WRITE_MISS copy passes on its score, a "
           "READ_MISS copy takes the read lock again). With a draw per pass, the "
           "eight events would all agree with probability 1/256.",
           "PROTOCOL 4.2, Interpretation (data provider per event); Table 3 rows "
           "(READ-MISS, Shared) and (WRITE-MISS, Shared); section 5.3.2",
           steps,
           {"multicast_invalidate": 12, "forward_data_provider_shared": 4,
            "retransmit_passed_on_score": 6, "unlock_executed": 8,
            "nack_lock_busy": 0, "nack_stale_request": 0})

    n = 68
    t = tag(n, 0)
    w3 = Req("WRITE_MISS", 1, t, seq=3)
    u3 = Req("WRITE_UNLOCK", 1, t, seq=3, gstatus="Modified", copyset=[1])
    w2 = Req("WRITE_MISS", 2, t, seq=1)
    u2 = Req("WRITE_UNLOCK", 2, t, seq=1, gstatus="Modified", copyset=[2])
    w0 = Req("WRITE_MISS", 0, t, seq=1)
    vector(n, "late-copies-after-add", T3,
           "Late copies of an event the home served, arriving after the home "
           "moved the block to the switch. Node 1's WRITE_MISS seq 3 and its "
           "WRITE_UNLOCK seq 3 both miss and go home; the unlock records seq 3 "
           "in LAST-UNLOCK on its way. Home 0 then ADDs the block (Modified {1}). "
           "A delayed copy of the WRITE_MISS is NACKed as stale instead of "
           "taking the write lock nobody would release. Node 2 takes the write "
           "lock; a delayed copy of node 1's WRITE_UNLOCK is a duplicate (ACKed, "
           "nothing released), so node 0 is still refused until node 2 unlocks.",
           "PROTOCOL 4.3, Interpretation (unlocks of home-owned blocks); 4.2 "
           "Interpretation (stale request); section 5.2.1",
           [step(w3, [tag_miss(w3, 0)], "WRITE_MISS seq 3: tag miss, to home 0"),
            step(u3, [tag_miss(u3, 0)],
                 "WRITE_UNLOCK seq 3: tag miss, to home 0 (LAST-UNLOCK 3)"),
            add(n, T3, 0, 0, "Modified", [1]),
            step(w3, [nack_stale(w3)],
                 "late copy of WRITE_MISS seq 3: NACK, stale (no lock taken)"),
            step(w2, [forward(w2, 1, "Modified", [1], dp=True)],
                 "node 2 WRITE_MISS: write lock, to the owner 1"),
            step(u3, [unlock_ack(u3, "Modified", [1])],
                 "late copy of node 1's WRITE_UNLOCK seq 3: duplicate, ACKed"),
            step(w0, [nack(w0, "Modified", [1])],
                 "node 0 WRITE_MISS: node 2 still holds the lock, NACK"),
            step(u2, [unlock_ack(u2, "Modified", [2])], "node 2 unlocks"),
            step(w0, [forward(w0, 2, "Modified", [2], dp=True)],
                 "node 0 WRITE_MISS again: granted, to the owner 2")],
           {"tag_miss_to_home": 2, "add_to_switch_ok": 1, "nack_stale_request": 1,
            "forward_owner_modified": 2, "unlock_duplicate_ignored": 1,
            "unlock_executed": 1, "nack_lock_busy": 1})

    n = 69
    t = tag(n, 0)
    w5 = Req("WRITE_MISS", 2, t, seq=5)
    u5 = Req("WRITE_UNLOCK", 2, t, seq=5, gstatus="Modified", copyset=[2])
    r7 = Req("READ_MISS", 1, t, seq=7)
    a7 = Req("ABORT", 1, t, seq=7)
    w0 = Req("WRITE_MISS", 0, t, seq=1)
    u0 = Req("WRITE_UNLOCK", 0, t, seq=1, gstatus="Modified", copyset=[0])
    r8 = Req("READ_MISS", 1, t, seq=8)
    a8 = Req("ABORT", 1, t, seq=8)
    u8 = Req("READ_UNLOCK", 1, t, seq=8, gstatus="Shared", copyset=[0, 1])
    vector(n, "abort-abandoned-event", T3,
           "A requester that gives up on a NACKed event ends it with an ABORT. "
           "Node 1's READ_MISS seq 7 is NACKed (node 2 holds the write lock); "
           "its ABORT finds no counted copy, marks seq 7 ENDED and goes on to "
           "the home (node 0), which answers it. After node 2's unlock, a duplicate of the "
           "READ_MISS seq 7 takes the free read lock on its pass but is refused "
           "after the scoreboard: the second pass releases it and NACKs, so node "
           "0's WRITE_MISS is granted. Then node 1's READ_MISS seq 8 is NACKed, "
           "a duplicate of it arrives after node 0's unlock and takes the read "
           "lock before node 1's ABORT: the ABORT answers FAIL (a copy passed, "
           "nothing recorded) and node 1's READ_UNLOCK seq 8 executes.",
           "PROTOCOL 4.9; docs/NODE-AGENT.md, Abandoned requests: ABORT",
           [add(n, T3, 0, 0, "Modified", [1]),
            step(w5, [forward(w5, 1, "Modified", [1], dp=True)],
                 "node 2 WRITE_MISS seq 5: write lock, to the owner 1"),
            step(r7, [nack(r7, "Modified", [1])], "node 1 READ_MISS seq 7: NACK, busy"),
            step(a7, [abort_to_home(a7, 0)],
                 "node 1 ABORT seq 7: score 0, ENDED, on to the home"),
            step(u5, [unlock_ack(u5, "Modified", [2])], "node 2 unlocks"),
            step(r7, [nack(r7, "Modified", [2])],
                 "late duplicate of READ_MISS seq 7: refused, its read lock released"),
            step(w0, [forward(w0, 2, "Modified", [2], dp=True)],
                 "node 0 WRITE_MISS seq 1: the lock is free, to the owner 2"),
            step(r8, [nack(r8, "Modified", [2])], "node 1 READ_MISS seq 8: NACK, busy"),
            step(u0, [unlock_ack(u0, "Modified", [0])], "node 0 unlocks"),
            step(r8, [forward(r8, 0, "Modified", [0], dp=True)],
                 "a duplicate of READ_MISS seq 8 takes the read lock"),
            step(a8, [abort_ack(a8, True)], "node 1 ABORT seq 8: a copy passed (FAIL)"),
            step(u8, [unlock_ack(u8, "Shared", [0, 1])],
                 "node 1 releases it with seq 8: executes")],
           {"abort_to_home": 1, "abort_copy_passed": 1, "nack_check_failed": 1,
            "nack_lock_busy": 2, "unlock_executed": 3, "forward_owner_modified": 3,
            "nack_stale_request": 0})


def burst(st):
    """Mark a step as read in the same rx burst as the step before it."""
    st["same_burst"] = True
    return st


def scoreboard():
    """The seq-bound SCOREBOARD (PROTOCOL 4.2, 4.3): the model's
    counterexamples on the parity-keyed scoreboard, as packet sequences. The
    critical frames share one rx burst (the runner holds them until the
    switch reads them together), so a resubmitted pass runs after the rest
    of the burst."""
    T3 = "pcap3.json"
    n = 70
    x, y = tag(n, 1, 0), tag(n, 1, 1)
    w1 = Req("WRITE_MISS", 1, x, seq=1)
    u1 = Req("WRITE_UNLOCK", 1, x, seq=1, gstatus="Unshared", copyset=[])
    r10 = Req("READ_MISS", 0, x, seq=10)
    a10 = Req("ABORT", 0, x, seq=10)
    w2 = Req("WRITE_MISS", 2, y, seq=1)
    u2 = Req("WRITE_UNLOCK", 2, y, seq=1, gstatus="Unshared", copyset=[])
    w12 = Req("WRITE_MISS", 0, y, seq=12)
    vector(n, "two-writers-late-copy-of-aborted-event", T3,
           "Node 0 aborts its NACKed READ_MISS seq 10 on X. A late copy of it "
           "takes X's read lock and is refused (its event is ENDED in its "
           "SCOREBOARD entry); its RELEASE runs after the burst. In the same "
           "burst node 0's next even event, WRITE_MISS seq 12 on Y, finds Y "
           "write-locked by node 2: it must be NACKed. A scoreboard keyed by "
           "(requester, parity) only let it pass on the late copy's score, and "
           "two writers held Y.",
           "PROTOCOL 4.2 (SCOREBOARD bound to its event), 4.9; docs/MODEL.md",
           [add(n, T3, 1, 0, "Unshared", [], way=[0, 1]),
            add(n, T3, 1, 1, "Unshared", [], way=[0, 1], seq=2),
            step(w1, [forward(w1, 1, "Unshared", [])], "node 1 write-locks X"),
            step(r10, [nack(r10, "Unshared", [])], "node 0 READ_MISS seq 10: busy"),
            step(a10, [abort_to_home(a10, 1)], "node 0 aborts seq 10: on to the home"),
            step(u1, [unlock_ack(u1, "Unshared", [])], "node 1 unlocks X"),
            step(w2, [forward(w2, 1, "Unshared", [])], "node 2 write-locks Y"),
            step(r10, [nack(r10, "Unshared", [])],
                 "late copy of seq 10: takes X's read lock, refused, released "
                 "after the burst"),
            burst(step(w12, [nack(w12, "Unshared", [])],
                       "same burst: node 0 WRITE_MISS seq 12 on Y: busy, no pass")),
            step(u2, [unlock_ack(u2, "Unshared", [])], "node 2 unlocks Y"),
            step(w12, [forward(w12, 1, "Unshared", [])], "node 0 retries seq 12: granted")],
           {"nack_lock_busy": 2, "nack_check_failed": 1, "abort_to_home": 1,
            "forward_home_unshared": 3, "unlock_executed": 2,
            "retransmit_passed_on_score": 0})

    n = 71
    t = tag(n, 2)
    r1 = Req("READ_MISS", 1, t, seq=1)
    u1 = Req("READ_UNLOCK", 1, t, seq=1, gstatus="Shared", copyset=[0, 1, 2])
    r5 = Req("READ_MISS", 0, t, seq=5)
    u5 = Req("READ_UNLOCK", 0, t, seq=5, gstatus="Shared", copyset=[0, 2])
    q1 = Req("READ_MISS", 0, t, seq=1, thread=1)
    v1 = Req("READ_UNLOCK", 0, t, seq=1, thread=1, gstatus="Shared", copyset=[0, 2])
    ws = Req("WRITE_SHARED", 2, t, seq=1)
    ws2 = Req("WRITE_SHARED", 2, t, seq=2)
    vector(n, "read-lock-released-once", T3,
           "Node 1 and node 0's event 5 hold X's read lock (readers 2). Node 0's "
           "other thread reads X and unlocks, so node 0 is in the copyset. A "
           "second copy of event 5 takes a read lock and fails Table 2 (node 0 "
           "is a holder): its RELEASE runs after the burst, and in the same burst "
           "event 5's READ_UNLOCK claims its score. That copy was never counted, "
           "so the unlock releases one reader and the RELEASE another: node 1 "
           "still holds its lock and node 2's WRITE_SHARED is NACKed until node "
           "1 unlocks. The parity-keyed scoreboard counted the copy, the unlock "
           "subtracted 2 and the RELEASE 1 more: node 1's lock was gone and node "
           "2 wrote while node 1 read.",
           "PROTOCOL 4.2 (a copy headed for RELEASE is never counted), 4.3",
           [add(n, T3, 2, 0, "Shared", [2]),
            step(r1, [forward(r1, 2, "Shared", [2], dp=True)], "node 1 reads X"),
            step(r5, [forward(r5, 2, "Shared", [2], dp=True)], "node 0 event 5 reads X"),
            step(q1, [forward(q1, 2, "Shared", [2], dp=True)], "node 0 thread 1 reads X"),
            step(v1, [unlock_ack(v1, "Shared", [0, 2])], "... and unlocks: node 0 in copyset"),
            step(r5, [nack(r5, "Shared", [0, 2])],
                 "a second copy of event 5: read lock, check fails, RELEASE after the burst"),
            burst(step(u5, [unlock_ack(u5, "Shared", [0, 2])],
                       "same burst: event 5's READ_UNLOCK (score 1)")),
            step(ws, [nack(ws, "Shared", [0, 2])],
                 "node 2 WRITE_SHARED: node 1 still reads, busy"),
            step(u1, [unlock_ack(u1, "Shared", [0, 1, 2])], "node 1 unlocks"),
            step(ws2, [forward(ws2, 0, "Shared", [0, 1, 2]), forward(ws2, 1, "Shared", [0, 1, 2])],
                 "node 2 WRITE_SHARED seq 2: granted, invalidates 0 and 1")],
           {"nack_lock_busy": 1, "nack_check_failed": 1, "unlock_executed": 3,
            "forward_data_provider_shared": 3, "multicast_invalidate": 1})

    n = 72
    x = tag(n, 1)
    r1 = Req("READ_MISS", 0, x, seq=1)
    a1 = Req("ABORT", 0, x, seq=1)
    vector(n, "abort-hit-goes-home", T3,
           "Node 0's READ_MISS seq 1 on X misses in the switch: a copy is on its "
           "way to the home, node 1. Node 1 then adds X, and node 0 aborts seq 1: "
           "the ABORT hits, finds no counted copy, marks seq 1 ENDED and goes on "
           "to the home, which answers it and records seq 1. Answered by the "
           "switch alone, the home would never learn of the ABORT: if it took X "
           "back (REMOVE) before the copy arrived, it would grant the copy and "
           "hold its lock for good (the protocol model's counterexample). A "
           "later copy of seq 1 at the switch takes X's read lock, is refused and "
           "released.",
           "PROTOCOL 4.9; docs/MODEL.md (counterexamples)",
           [step(r1, [tag_miss(r1, 1)], "node 0 READ_MISS seq 1: tag miss, to the home"),
            add(n, T3, 1, 0, "Unshared", []),
            step(a1, [abort_to_home(a1, 1)],
                 "node 0 ABORT seq 1: hit, no counted copy: ENDED, on to the home"),
            step(r1, [nack(r1, "Unshared", [])],
                 "a later copy of seq 1: read lock taken, refused, released")],
           {"tag_miss_to_home": 1, "abort_to_home": 1, "abort_copy_passed": 0,
            "nack_check_failed": 1})


    n = 90
    xs = [tag(n, 1, k) for k in range(3)]
    pairs = []
    for k, sq in enumerate((0x7ffffff0, 0xf0000000)):
        w = Req("WRITE_MISS", 0, xs[k], seq=sq)
        u = Req("WRITE_UNLOCK", 0, xs[k], seq=sq, gstatus="Modified", copyset=[0])
        pairs += [step(w, [forward(w, 1, "Unshared", [])],
                       "node 0 WRITE_MISS seq 0x%x (even): granted" % sq),
                  step(u, [unlock_ack(u, "Modified", [0])], "... and unlocks")]
    wj = Req("WRITE_MISS", 0, xs[2], seq=0xffffffff)
    vector(n, "seq-jump-to-an-unused-parity", T3,
           "Node 0's seqs jump (each step under 2^31): WRITE_MISS/WRITE_UNLOCK "
           "pairs with seqs 0x7ffffff0 and 0xf0000000 (even), then WRITE_MISS "
           "0xffffffff (odd) on a free block. Its SCOREBOARD entry was never "
           "used: seq 0 is empty (no requester uses it), older than every seq, "
           "so the request is forwarded. In RFC 1982 order alone 0 is after "
           "0xffffffff and the request was refused as over "
           "(nack_aborted_request).",
           "PROTOCOL 4.2 (SCOREBOARD; an entry at seq 0 is empty); docs/MODEL.md "
           "(seqjump.pml)",
           [add(n, T3, 1, k, "Unshared", [], way=[0, 1], seq=k + 1) for k in range(3)] +
           pairs +
           [step(wj, [forward(wj, 1, "Unshared", [])],
                 "node 0 WRITE_MISS seq 0xffffffff: forwarded to the home")],
           {"forward_home_unshared": 3, "unlock_executed": 2,
            "nack_aborted_request": 0})


# ========================================================= F2: VERSION_READ

def versions():
    T3 = "pcap3.json"
    n = 73
    x = tag(n, 1)
    v1 = Req("VERSION_READ", 0, x, seq=1)
    r1 = Req("READ_MISS", 0, x, seq=2)
    v2 = Req("VERSION_READ", 1, x, seq=1)
    vector(n, "version-read-hit", T3,
           "Node 1 adds X (Shared {2}) with seq 7: VERSION = 7 << 16 (the epoch in "
           "the upper half). A VERSION_READ from node 0 is answered by the switch "
           "with the VERSION (in the copyset field) and the busy bit in aux; it "
           "takes no lock and changes no register. A READ_MISS (a read grant) does "
           "not bump it: node 1's VERSION_READ, while node 0 holds the read lock, "
           "reads 0x70000, not busy (the writer bit is clear).",
           "PROTOCOL 4.10; docs/VALIDATE.md 'Switch-owned blocks'",
           [add(n, T3, 1, 0, "Shared", [2], seq=7),
            step(v1, [version(v1, "Shared", 0x70000)], "VERSION_READ: 0x70000"),
            step(r1, [forward(r1, 2, "Shared", [2], dp=True)],
                 "node 0 READ_MISS: read lock, to the provider node 2"),
            step(v2, [version(v2, "Shared", 0x70000)],
                 "node 1 VERSION_READ under a read lock: 0x70000, not busy")],
           {"version_read_hit": 2, "version_read_miss": 0,
            "forward_data_provider_shared": 1})

    n = 74
    x = tag(n, 1)
    ws = Req("WRITE_SHARED", 0, x, seq=1)
    va = Req("VERSION_READ", 1, x, seq=1)
    wm = Req("WRITE_MISS", 2, x, seq=1)
    wu = Req("WRITE_UNLOCK", 0, x, seq=1, gstatus="Modified", copyset=[0])
    vb = Req("VERSION_READ", 1, x, seq=2)
    wm2 = Req("WRITE_MISS", 2, x, seq=2)
    vc = Req("VERSION_READ", 1, x, seq=3)
    vector(n, "version-bump-on-write-request", T3,
           "Every first pass of a WRITE_MISS or WRITE_SHARED that hits and is not "
           "stale adds 1 to the block's VERSION in its LOCK stage, granted or not "
           "(every write grant is counted; the verdict comes later). Node 0's "
           "WRITE_SHARED on X (Shared {0,2}, ADDed with seq 9: 0x90000) is granted: "
           "0x90001, and a VERSION_READ while the write lock is held says busy. "
           "Node 2's WRITE_MISS is NACKed (lock busy): 0x90002. After node 0's "
           "WRITE_UNLOCK (Modified {0}) it reads 0x90002, not busy; node 2's next "
           "WRITE_MISS is forwarded to the owner: 0x90003, busy.",
           "PROTOCOL 4.10, 4.2; docs/VALIDATE.md 'Switch-owned blocks'; "
           "docs/MODEL.md vohsw.pml",
           [add(n, T3, 1, 0, "Shared", [0, 2], seq=9),
            step(ws, [forward(ws, 2, "Shared", [0, 2])],
                 "node 0 WRITE_SHARED: write lock, invalidation to node 2; 0x90001"),
            step(va, [version(va, "Shared", 0x90001, busy=True)],
                 "VERSION_READ: 0x90001, busy (write lock held)"),
            step(wm, [nack(wm, "Shared", [0, 2])],
                 "node 2 WRITE_MISS: lock busy, NACK; 0x90002"),
            step(wu, [unlock_ack(wu, "Modified", [0])],
                 "node 0 WRITE_UNLOCK: Modified {0}"),
            step(vb, [version(vb, "Modified", 0x90002)],
                 "VERSION_READ: 0x90002, not busy"),
            step(wm2, [forward(wm2, 0, "Modified", [0], dp=True)],
                 "node 2 WRITE_MISS seq 2: to the owner node 0; 0x90003"),
            step(vc, [version(vc, "Modified", 0x90003, busy=True)],
                 "VERSION_READ: 0x90003, busy")],
           {"version_read_hit": 3, "nack_lock_busy": 1, "multicast_invalidate": 1,
            "forward_owner_modified": 1, "unlock_executed": 1})

    n = 75
    x = tag(n, 1)
    y = tag(n, 1, 1)
    vm = Req("VERSION_READ", 0, y, seq=1)
    rm = Req("REMOVE_FROM_SWITCH", 1, x, seq=3)
    vx = Req("VERSION_READ", 0, x, seq=2)
    vector(n, "version-read-miss", T3,
           "A VERSION_READ for a block the switch does not hold is answered by the "
           "switch: VERSION with FAIL and IN_SWITCH clear ('not here': the requester "
           "asks the home). It is not forwarded to the home. After a REMOVE the "
           "block is not here either.",
           "PROTOCOL 4.10",
           [add(n, T3, 1, 0, "Unshared", [], seq=5),
            step(vm, [version_not_here(vm)], "VERSION_READ of Y (never added): not here"),
            step(rm, migrate_ack(rm, T3, "Unshared", [], 0), "node 1 removes X"),
            step(vx, [version_not_here(vx)], "VERSION_READ of X: not here")],
           {"version_read_miss": 2, "version_read_hit": 0, "tag_miss_to_home": 0})

    n = 129
    x = tag(n, 1)
    r0 = Req("READ_MISS", 0, x, seq=1)
    w1 = Req("WRITE_MISS", 1, x, seq=1)
    vs = [Req("VERSION_READ", 2, x, seq=s) for s in (1, 2, 3, 4)]
    u0 = Req("READ_UNLOCK", 0, x, seq=1, gstatus="Shared", copyset=[0, 2])
    w2 = Req("WRITE_MISS", 1, x, seq=2)
    busy = step(w1, [nack(w1, "Shared", [2])], "node 1 WRITE_MISS: lock busy, NACK; +1")
    vector(n, "version-count-saturates", T3,
           "VERSION's write count (bits 15-0) saturates at 0xffff and never carries "
           "into the epoch. X is ADDed with seq 7 (0x70000, Shared {2}); node 0 holds "
           "the read lock; node 1's WRITE_MISS, NACKed (lock busy) and resent "
           "0xfffe times, counts each first pass: 0x7fffe, the last stamp. One more: "
           "0x7ffff, saturated (no stamp, PROTOCOL 4.10 Interpretation); 3 more "
           "leave 0x7ffff (a carry would read 0x80002, epoch 8's). After node 0's "
           "READ_UNLOCK, node 1's granted write still reads 0x7ffff, busy.",
           "PROTOCOL 4.10; docs/VALIDATE.md 'Switch-owned blocks'; "
           "lib/tests/test_pipeline_version.c count_saturates_without_carry",
           [add(n, T3, 1, 0, "Shared", [2], seq=7),
            step(r0, [forward(r0, 2, "Shared", [2], dp=True)],
                 "node 0 READ_MISS: read lock, to the provider node 2"),
            repeat(0xfffe, [busy]),
            step(vs[0], [version(vs[0], "Shared", 0x7fffe)], "VERSION_READ: 0x7fffe"),
            busy,
            step(vs[1], [version(vs[1], "Shared", 0x7ffff)],
                 "VERSION_READ: 0x7ffff, saturated"),
            repeat(3, [busy]),
            step(vs[2], [version(vs[2], "Shared", 0x7ffff)],
                 "VERSION_READ: still 0x7ffff, the epoch kept"),
            step(u0, [unlock_ack(u0, "Shared", [0, 2])], "node 0 READ_UNLOCK: Shared {0,2}"),
            step(w2, multicast_any_provider(w2, [0, 2], "Shared", [0, 2]),
                 "node 1 WRITE_MISS seq 2: granted, invalidations; stays 0x7ffff", DP_ONE),
            step(vs[3], [version(vs[3], "Shared", 0x7ffff, busy=True)],
                 "VERSION_READ: 0x7ffff, busy")],
           {"version_read_hit": 4, "nack_lock_busy": 0xfffe + 4,
            "forward_data_provider_shared": 1, "unlock_executed": 1,
            "multicast_invalidate": 1})


# =================================================================== G: L2

def l2():
    T = "pcap3.json"
    n = 80
    arp_req = {"port": 0, "arp": {"op": "request", "from": 0, "target_ip": "node:1"}}
    arp_rep = {"port": 1, "arp": {"op": "reply", "from": 1, "to": 0}}
    uni = {"port": 0, "udp_frame": {"from": 0, "to": "node:1", "dport": 9999}}
    vector(n, "l2-arp-flood-then-learned-unicast", T,
           "ARP through the L2 learning switch: a broadcast ARP request floods to "
           "every other port; the reply (unicast to node 0, learned from the "
           "request) leaves by port 0 only; then ordinary UDP from node 0 to node "
           "1 (learned from the reply) leaves by port 1 only. Frames are unchanged.",
           "BRIEF 'Everything that is not coherence traffic is switched like an "
           "ordinary L2 switch'; PROTOCOL 3 last paragraph",
           [step(arp_req, [{"port": 1, "raw": "input"}, {"port": 2, "raw": "input"}],
                 "broadcast ARP who-has 10.0.0.2 from node 0: flooded"),
            step(arp_rep, [{"port": 0, "raw": "input"}], "ARP reply to node 0: learned port 0"),
            step(uni, [{"port": 1, "raw": "input"}], "UDP 9999 to node 1: learned port 1")],
           {"short_frame": 0})

    n = 81
    f = {"port": 0, "udp_frame": {"from": 0, "to": "node:2", "dport": 9999}}
    vector(n, "l2-unknown-unicast-floods", T,
           "A unicast frame to a MAC the switch has not learned floods to every "
           "port except the ingress port.",
           "BRIEF L2 learning switch (flooding)",
           [step(f, [{"port": 1, "raw": "input"}, {"port": 2, "raw": "input"}],
                 "UDP to node 2's MAC, unknown yet")])

    n = 82
    a = {"port": 1, "arp": {"op": "request", "from": 1, "target_ip": "node:0"}}
    m20 = Req(0x20, 0, tag(n, 1), seq=1, payload="00112233445566778899aabbccddeeff")
    m20.extra["eth"] = {"dst": "node:1"}
    m20.extra["ip"] = {"dst": "node:1"}
    m21 = Req(0x21, 1, tag(n, 1), seq=1, payload="cafe")
    m21.extra["eth"] = {"dst": "node:0"}
    m21.extra["ip"] = {"dst": "node:0"}
    vector(n, "l2-node-to-node-0x20-forwarded", T,
           "Node-to-node messages (types 0x20-0x7f, to the LCF UDP port) are not "
           "pipeline traffic: the L2 switch forwards them unchanged (no header "
           "rewrite) by destination MAC. Node 1 announces itself with an ARP "
           "(flooded); node 0's 0x20 with a 16-byte payload goes to port 1 only; "
           "node 1's 0x21 reply goes to port 0 only (learned from the 0x20).",
           "BRIEF wire format 'Types 0x20-0x7f are node-to-node messages ... that "
           "the switch forwards as ordinary traffic'; PROTOCOL 2, 3",
           [step(a, [{"port": 0, "raw": "input"}, {"port": 2, "raw": "input"}], "ARP from node 1: flooded"),
            step(m20, [{"port": 1, "raw": "input"}], "0x20 node 0 -> node 1: port 1 only, unchanged"),
            step(m21, [{"port": 0, "raw": "input"}], "0x21 node 1 -> node 0: port 0 only, unchanged")],
           {"unknown_type": 0, "tag_miss_to_home": 0})

    n = 83
    m = Req(0x7f, 0, tag(n, 2), seq=1)
    m.extra["eth"] = {"dst": "node:2"}
    m.extra["ip"] = {"dst": "node:2"}
    vector(n, "l2-node-to-node-flood-before-learning", T,
           "A node-to-node message (type 0x7f, the last one) to a MAC not learned "
           "yet is flooded unchanged like any unknown unicast.",
           "PROTOCOL 2 (0x20-0x7f forwarded as ordinary L2 traffic)",
           [step(m, [{"port": 1, "raw": "input"}, {"port": 2, "raw": "input"}], "0x7f to node 2, unknown MAC")],
           {"unknown_type": 0})

    n = 84
    b = {"port": 2, "udp_frame": {"from": 2, "to": "bcast", "dport": 9999}}
    vector(n, "l2-broadcast-floods", T,
           "An IPv4 UDP broadcast (not to the LCF port) floods to all other ports.",
           "BRIEF L2 learning switch (flooding)",
           [step(b, [{"port": 0, "raw": "input"}, {"port": 1, "raw": "input"}], "UDP broadcast from node 2")])

    n = 85
    tcp = {"port": 0, "udp_frame": {"from": 0, "to": "node:1", "proto": 6, "dport": 7340}}
    udp_src = {"port": 0, "udp_frame": {"from": 0, "to": "node:1", "sport": 7340, "dport": 9999}}
    vector(n, "l2-not-lcf-port-is-l2", T,
           "Only IPv4/UDP to lcf_port is coherence traffic: TCP to port 7340 and UDP "
           "from (not to) port 7340 are switched at L2 (flooded, unknown MAC), "
           "never validated or dropped.",
           "PROTOCOL 3 'Frames that are not IPv4/UDP to lcf_port ... the L2 learning "
           "switch forwards them'",
           [step(tcp, [{"port": 1, "raw": "input"}, {"port": 2, "raw": "input"}], "TCP dport 7340"),
            step(udp_src, [{"port": 1, "raw": "input"}, {"port": 2, "raw": "input"}], "UDP sport 7340 dport 9999")],
           {"short_frame": 0, "bad_version": 0, "unknown_type": 0})


# =================================================================== Q: queued locks

def q_id(node, thread, seq):
    """docs/QUEUED-LOCKS.md 2: the id of a queue-holding event."""
    return (node + 1) << 26 | thread << 16 | (seq & 0xffff)


def q_tenure(i):
    return ((i >> 16) & 0x3ff) << 6 | (i & 0x3f)


def to_holder(req, holder_id, index, gstatus, copyset):
    """QUEUED-LOCKS 3: the request forwarded to the queue holder's node:
    IN_SWITCH, the block's metadata, aux = tenure << 16 | forward index."""
    n = (holder_id >> 26) - 1
    e = to_node(n, "node:%d" % req.node)
    l = {"type": req.type, "flags": ["IN_SWITCH"], "gstatus": gstatus,
         "copyset": copyset, "dst_node": n, "len": 0,
         "aux": hx(q_tenure(holder_id) << 16 | index)}
    l.update(req.same())
    e["lcf"] = l
    return e


def qxfer_ack(req, reason, fwd_cnt, gstatus, copyset):
    """QUEUED-LOCKS 4: QXFER_ACK from the switch, FAIL unless approved,
    aux = original type << 24 | reason << 16 | FWD_CNT."""
    e = to_node(req.node, "switch")
    l = {"type": "QXFER_ACK", "flags": ["IN_SWITCH"] + (["FAIL"] if reason else []),
         "gstatus": gstatus, "copyset": copyset, "dst_node": req.node, "len": 0,
         "aux": hx(TYPECODE[req.type] << 24 | reason << 16 | fwd_cnt)}
    l.update(req.same())
    e["lcf"] = l
    return e


def queued():
    T = "pcap3q.json"
    H = 2

    n = 76
    t = tag(n, H)
    w0 = Req("WRITE_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    r2 = Req("READ_MISS", 2, t)
    h = q_id(0, 0, 1)
    vector(n, "queued-forward-to-holder", T,
           "Queued lock mode: node 0's WRITE_MISS takes the free lock and becomes "
           "the queue holder; node 1's WRITE_MISS (M->M) and node 2's READ_MISS "
           "(M->S) find it busy and are forwarded to node 0 with forward indices "
           "1 and 2 instead of being NACKed.",
           "QUEUED-LOCKS 2-3; GCS (paper 002) 3.1.1, 4.2",
           [add(n, T, H, 0, "Unshared", []),
            step(w0, [forward(w0, H, "Unshared", [])],
                 "node 0 WRITE_MISS: lock free, to the home; QHOLDER = node 0's event"),
            step(w1, [to_holder(w1, h, 1, "Unshared", [])],
                 "node 1 WRITE_MISS: busy, forwarded to the holder (index 1)"),
            step(r2, [to_holder(r2, h, 2, "Unshared", [])],
                 "node 2 READ_MISS: busy, forwarded to the holder (index 2)")],
           {"forward_to_holder": 2, "nack_lock_busy": 0})

    n = 77
    t = tag(n, H)
    w0 = Req("WRITE_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    w2 = Req("WRITE_MISS", 2, t)
    x = Req("QXFER", 0, t, aux=1, copyset=q_id(1, 0, 1))
    vector(n, "queued-qxfer-approve", T,
           "QXFER whose count equals FWD_CNT is approved: QHOLDER becomes node 1's "
           "event, FWD_CNT 0, the write lock stays held; the next conflicting "
           "request goes to node 1 with index 1, and a late copy of node 0's "
           "request is NACKed, not queued (QXFER ended its event in SCOREBOARD).",
           "QUEUED-LOCKS 4 (QXFER); GCS 4.2 (atomic queue transfer)",
           [add(n, T, H, 0, "Unshared", []),
            step(w0, [forward(w0, H, "Unshared", [])], "node 0 WRITE_MISS: holder"),
            step(w1, [to_holder(w1, q_id(0, 0, 1), 1, "Unshared", [])],
                 "node 1 WRITE_MISS: forwarded to node 0 (index 1)"),
            step(x, [qxfer_ack(x, 0, 1, "Unshared", [])],
                 "QXFER count 1 == FWD_CNT 1, next = node 1: approved"),
            step(w2, [to_holder(w2, q_id(1, 0, 1), 1, "Unshared", [])],
                 "node 2 WRITE_MISS: forwarded to the new holder node 1 (index 1)"),
            step(w0, [nack(w0, "Unshared", [])],
                 "a late copy of node 0's request: its event is over, NACK")],
           {"qxfer_approved": 1, "forward_to_holder": 2, "nack_lock_busy": 1,
            "nack_stale_request": 0})

    n = 78
    t = tag(n, H)
    w0 = Req("WRITE_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    x0 = Req("QXFER", 0, t, aux=0, copyset=q_id(1, 0, 1))
    x1 = Req("QXFER", 0, t, aux=1, copyset=q_id(1, 0, 1))
    vector(n, "queued-qxfer-deny", T,
           "QXFER whose count differs from FWD_CNT (a forwarded request is still on "
           "its way to the holder) is denied with the switch's FWD_CNT and changes "
           "nothing; the holder's retry with the right count is approved.",
           "QUEUED-LOCKS 4 (QXFER); GCS 4.2 (versioning)",
           [add(n, T, H, 0, "Unshared", []),
            step(w0, [forward(w0, H, "Unshared", [])], "node 0 WRITE_MISS: holder"),
            step(w1, [to_holder(w1, q_id(0, 0, 1), 1, "Unshared", [])],
                 "node 1 WRITE_MISS: forwarded to node 0 (index 1)"),
            step(x0, [qxfer_ack(x0, 1, 1, "Unshared", [])],
                 "QXFER count 0 != FWD_CNT 1: denied (reason 1), FWD_CNT 1"),
            step(x1, [qxfer_ack(x1, 0, 1, "Unshared", [])],
                 "QXFER count 1: approved")],
           {"qxfer_denied": 1, "qxfer_approved": 1})

    n = 79
    t = tag(n, H)
    w0 = Req("WRITE_MISS", 0, t)
    rl = Req("QRELEASE", 0, t, aux=0, gstatus="Modified", copyset=[0])
    w1 = Req("WRITE_MISS", 1, t)
    vector(n, "queued-qrelease", T,
           "QRELEASE of a holder with an empty queue (count 0 == FWD_CNT): two "
           "passes release the write lock and install its metadata like a "
           "WRITE_UNLOCK, QSTATE is cleared; a duplicate is denied as not the holder; "
           "the next writer is granted as with a free lock.",
           "QUEUED-LOCKS 4 (QRELEASE)",
           [add(n, T, H, 0, "Unshared", []),
            step(w0, [forward(w0, H, "Unshared", [])], "node 0 WRITE_MISS: holder"),
            step(rl, [qxfer_ack(rl, 0, 0, "Modified", [0])],
                 "QRELEASE (Modified, {0}): released, installed"),
            step(rl, [qxfer_ack(rl, 2, 0, "Modified", [0])],
                 "the same QRELEASE again: not the holder (reason 2)"),
            step(w1, [forward(w1, 0, "Modified", [0], dp=True)],
                 "node 1 WRITE_MISS: lock free, to the owner node 0")],
           {"qrelease_executed": 1, "qxfer_denied": 1, "resubmit": 2})

    queued_waiter()
    queued_order()
    queued_stale_copy()


def queued_order():
    """A given-up event's tenure ends out of its thread's unlock order:
    node 0 gives seq 5 on Y up and goes on with seq 6 (or seq 4's late
    unlock) on X (PROTOCOL Queued locks; docs/MODEL.md qorder.pml)."""
    T = "pcap3q.json"
    H = 2

    def x_read(n, seq):
        x = tag(n, H, 0)
        r = Req("READ_MISS", 0, x, seq=seq)
        u = Req("READ_UNLOCK", 0, x, seq=seq, gstatus="Shared", copyset=[0, 2])
        return r, u, [step(r, [forward(r, 2, "Shared", [2], dp=True)],
                           "node 0 seq %d READ_MISS X: to the provider" % seq),
                      step(u, [unlock_ack(u, "Shared", [0, 2])],
                           "node 0 seq %d READ_UNLOCK X: executed" % seq)]

    def holder_and_given_up(n):
        y = tag(n, H, 1)
        w2 = Req("WRITE_MISS", 2, y)
        w0 = Req("WRITE_MISS", 0, y, seq=5)
        a0 = Req("ABORT", 0, y, seq=5)
        return y, [add(n, T, H, 0, "Shared", [2]),
                   add(n, T, H, 1, "Unshared", [], seq=2),
                   step(w2, [forward(w2, H, "Unshared", [])],
                        "node 2 WRITE_MISS Y: the holder"),
                   step(w0, [to_holder(w0, q_id(2, 0, 1), 1, "Unshared", [])],
                        "node 0 seq 5 WRITE_MISS Y: forwarded to node 2 (index 1)"),
                   step(a0, [abort_to_home(a0, H)],
                        "node 0 gives seq 5 up: no copy holds, on to the home")]

    def handed_over(y):
        x2 = Req("QXFER", 2, y, aux=1, copyset=q_id(0, 0, 5))
        rl = Req("QRELEASE", 0, y, seq=5, aux=0, gstatus="Modified", copyset=[0])
        w1 = Req("WRITE_MISS", 1, y)
        return [step(x2, [qxfer_ack(x2, 0, 1, "Unshared", [])],
                     "node 2 QXFER to node 0's seq 5: approved"),
                step(rl, [qxfer_ack(rl, 0, 0, "Modified", [0])],
                     "node 0 passes the tenure on: QRELEASE seq 5 executes"),
                step(w1, [forward(w1, 0, "Modified", [0], dp=True)],
                     "node 1 WRITE_MISS Y: the lock is free, to the owner node 0")]

    n = 124
    y, st = holder_and_given_up(n)
    _, _, xs = x_read(n, 6)
    vector(n, "queued-given-up-tenure-after-later-unlock", T,
           "Node 0's WRITE_MISS seq 5 on Y is queued at node 2's tenure and given "
           "up (ABORT on to the home); node 0's seq 6 on X unlocks first. Node 2 "
           "hands over to seq 5 and node 0 passes the tenure on: the QRELEASE "
           "executes (its own gate, not LAST-UNLOCK) and Y is free.",
           "PROTOCOL Queued locks (QRELEASE's gate); issue 28 1(a)",
           st + xs + handed_over(y),
           {"qrelease_executed": 1, "qrelease_duplicate_ignored": 0,
            "nack_lock_busy": 0, "unlock_executed": 1})

    n = 125
    y, st = holder_and_given_up(n)
    r4, u4, xs = x_read(n, 4)
    w1x = Req("WRITE_MISS", 1, tag(n, H, 0))
    vector(n, "queued-given-up-tenure-before-earlier-unlock", T,
           "Node 0's READ_UNLOCK seq 4 on X is late (lost, then retransmitted); "
           "its seq 5 on Y, given up, is handed over and released first. QXFER / "
           "QRELEASE end their event in SCOREBOARD, not LAST-UNLOCK, so the "
           "retransmitted seq 4 unlock still executes and X is free.",
           "PROTOCOL 4.3, Queued locks; issue 28 1(c)",
           st + [xs[0]] + handed_over(y) + [
               xs[1],
               step(w1x, multicast_any_provider(w1x, [0, 2], "Shared", [0, 2]),
                    "node 1 WRITE_MISS X: the lock is free, invalidations", DP_ONE)],
           {"qrelease_executed": 1, "unlock_executed": 1,
            "unlock_duplicate_ignored": 0, "nack_lock_busy": 0})

    def waiter_given_up(n):
        y = tag(n, H, 1)
        r1 = Req("READ_MISS", 1, y)
        w0 = Req("WRITE_MISS", 0, y, seq=5)
        a0 = Req("ABORT", 0, y, seq=5)
        u1 = Req("READ_UNLOCK", 1, y, gstatus="Shared", copyset=[1, 2])
        return y, w0, u1, [add(n, T, H, 0, "Shared", [2]),
                           add(n, T, H, 1, "Shared", [2], seq=2),
                           step(r1, [forward(r1, 2, "Shared", [2], dp=True)],
                                "node 1 READ_MISS Y: read lock"),
                           step(w0, [qwait(w0, False, 1, "Shared", [2])],
                                "node 0 seq 5 WRITE_MISS Y: the waiting writer"),
                           step(a0, [abort_ack(a0, True)],
                                "node 0 gives seq 5 up: its tenure passed")]

    def released(y):
        rl = Req("QRELEASE", 0, y, seq=5, aux=0, gstatus="Modified", copyset=[0])
        w1 = Req("WRITE_MISS", 1, y, seq=2)
        return [step(rl, [qxfer_ack(rl, 0, 0, "Modified", [0])],
                     "node 0 passes the tenure on: QRELEASE seq 5 executes"),
                step(w1, [forward(w1, 0, "Modified", [0], dp=True)],
                     "node 1 WRITE_MISS Y: the lock is free, to the owner node 0")]

    n = 126
    y, w0, u1, st = waiter_given_up(n)
    _, _, xs = x_read(n, 6)
    vector(n, "queued-given-up-waiter-polls-after-later-unlock", T,
           "Node 0's seq 5 is Y's waiting writer and is given up (a copy passed); "
           "node 0's seq 6 on X unlocks before the reader leaves. The polls of seq "
           "5 are stale by LAST-UNLOCK but are the waiting writer's: QWAIT, then "
           "QGRANT once the reader is gone; the QRELEASE executes.",
           "PROTOCOL Queued locks (row 4 before the stale NACK); issue 28 1(b)",
           st + xs + [
               step(w0, [qwait(w0, False, 1, "Shared", [2])],
                    "node 0's poll of seq 5: stale, but row 4: QWAIT"),
               step(u1, [unlock_ack(u1, "Shared", [1, 2])],
                    "node 1 READ_UNLOCK Y: READERS 0, WAITING kept"),
               step(w0, [qwait(w0, True, 0, "Shared", [1, 2])],
                    "node 0's poll of seq 5: QGRANT")] + released(y) + [
               step(w0, [nack_stale(w0)], "a copy of seq 5 now: stale")],
           {"q_wait": 2, "q_grant": 1, "nack_stale_request": 1,
            "qrelease_executed": 1})

    n = 127
    y, w0, u1, st = waiter_given_up(n)
    _, _, xs = x_read(n, 6)
    vector(n, "queued-given-up-waiter-released-after-later-unlock", T,
           "As 126, the QGRANT first: node 0's seq 6 on X unlocks between the "
           "QGRANT of the given-up seq 5 and its QRELEASE, which still executes "
           "and frees Y.",
           "PROTOCOL Queued locks (QRELEASE's gate); issue 28 1(b)",
           st + [step(u1, [unlock_ack(u1, "Shared", [1, 2])],
                      "node 1 READ_UNLOCK Y: READERS 0, WAITING kept"),
                 step(w0, [qwait(w0, True, 0, "Shared", [1, 2])],
                      "node 0's poll of seq 5: QGRANT")] + xs + released(y),
           {"q_grant": 1, "qrelease_executed": 1, "qrelease_duplicate_ignored": 0})


def queued_stale_copy():
    """QRELEASE's staleness window (PROTOCOL Queued locks; lib/model
    qalias.pml, WIN): a copy 2^15 seqs or more before its requester's
    SCOREBOARD seq never meets QSTATE."""
    T = "pcap3q.json"
    H = 2
    n = 128
    t = tag(n, H)
    w0 = Req("WRITE_MISS", 0, t)
    rl = Req("QRELEASE", 0, t, aux=0, gstatus="Unshared", copyset=[])
    w0b = Req("WRITE_MISS", 0, t, seq=65537)
    w1 = Req("WRITE_MISS", 1, t)
    x0 = Req("QXFER", 0, t, seq=65537, aux=1, copyset=q_id(1, 0, 1))
    rl1 = Req("QRELEASE", 1, t, aux=0, gstatus="Modified", copyset=[1])
    vector(n, "queued-qrelease-copy-2p16-seqs-old-is-stale", T,
           "Node 0's QRELEASE seq 1 executes; its seq 65537 holds the block with "
           "the same queue holder id (16 bits of the seq). A delayed copy of "
           "QRELEASE seq 1 is 2^16 seqs before node 0's SCOREBOARD seq: stale, "
           "answered approved in one pass, QSTATE and LOCK untouched. Node 1's "
           "write is forwarded to the holder, which hands over; node 1 releases.",
           "PROTOCOL Queued locks (QRELEASE staleness); issue 28 item 2",
           [add(n, T, H, 0, "Unshared", []),
            step(w0, [forward(w0, H, "Unshared", [])], "node 0 seq 1 WRITE_MISS: holder"),
            step(rl, [qxfer_ack(rl, 0, 0, "Unshared", [])],
                 "QRELEASE seq 1: released, back to Unshared"),
            step(w0b, [forward(w0b, H, "Unshared", [])],
                 "node 0 seq 65537 WRITE_MISS: holder, the id of seq 1"),
            step(rl, [qxfer_ack(rl, 0, 0, "Unshared", [])],
                 "a delayed copy of QRELEASE seq 1: stale, approved, nothing done"),
            step(w1, [to_holder(w1, q_id(0, 0, 65537), 1, "Unshared", [])],
                 "node 1 WRITE_MISS: still held, forwarded to node 0 (index 1)"),
            step(x0, [qxfer_ack(x0, 0, 1, "Unshared", [])],
                 "node 0 seq 65537 QXFER to node 1: approved"),
            step(rl1, [qxfer_ack(rl1, 0, 0, "Modified", [1])],
                 "node 1 QRELEASE: executes")],
           {"qrelease_executed": 2, "qrelease_duplicate_ignored": 1,
            "qxfer_approved": 1, "forward_to_holder": 1, "resubmit": 3})


def qwait(req, grant, readers, gstatus, copyset):
    """QUEUED-LOCKS 3 (the waiting writer): QWAIT (readers hold; aux carries
    READERS) or QGRANT from the switch to the requester, IN_SWITCH, the
    block's metadata, aux = original type << 24 | readers."""
    e = to_node(req.node, "switch")
    l = {"type": "QGRANT" if grant else "QWAIT", "flags": ["IN_SWITCH"],
         "gstatus": gstatus, "copyset": copyset, "dst_node": req.node, "len": 0,
         "aux": hx(TYPECODE[req.type] << 24 | readers)}
    l.update(req.same())
    e["lcf"] = l
    return e


def queued_waiter():
    """A write that meets readers waits at the switch as the next writer."""
    T = "pcap3q.json"
    H = 2

    n = 86
    t = tag(n, H)
    r0 = Req("READ_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    r2 = Req("READ_MISS", 2, t)
    vector(n, "queued-write-meets-readers-qwait", T,
           "Queued lock mode: node 0 holds a read lock; node 1's WRITE_MISS meets "
           "that reader: instead of a NACK it sets LOCK's WAITING, becomes the queue "
           "holder (a SWITCH tenure) and gets QWAIT with READERS 1; node 2's "
           "READ_MISS meets the waiting writer and is forwarded to node 1 "
           "(index 1), not granted.",
           "QUEUED-LOCKS 3 (the waiting writer); GCS (paper 002) 3.2, Fig. 6 case iii",
           [add(n, T, H, 0, "Shared", [2]),
            step(r0, [forward(r0, 2, "Shared", [2], dp=True)],
                 "node 0 READ_MISS: read lock taken, to the provider node 2"),
            step(w1, [qwait(w1, False, 1, "Shared", [2])],
                 "node 1 WRITE_MISS meets READERS 1: WAITING set, QWAIT"),
            step(r2, [to_holder(r2, q_id(1, 0, 1), 1, "Shared", [2])],
                 "node 2 READ_MISS meets WAITING: forwarded to the waiter (index 1)")],
           {"q_wait": 1, "forward_to_holder": 1, "nack_lock_busy": 0})

    n = 87
    t = tag(n, H)
    r0 = Req("READ_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    u0 = Req("READ_UNLOCK", 0, t, gstatus="Shared", copyset=[0, 2])
    vector(n, "queued-waiter-poll-qgrant", T,
           "The waiting writer polls by re-sending its request: QWAIT while the "
           "reader holds (QSTATE untouched); after the reader's READ_UNLOCK "
           "(which keeps WAITING) the poll gets QGRANT with the metadata the "
           "unlock installed.",
           "QUEUED-LOCKS 3 (rows 3 and 4)",
           [add(n, T, H, 0, "Shared", [2]),
            step(r0, [forward(r0, 2, "Shared", [2], dp=True)],
                 "node 0 READ_MISS: read lock"),
            step(w1, [qwait(w1, False, 1, "Shared", [2])], "node 1 WRITE_MISS: QWAIT"),
            step(w1, [qwait(w1, False, 1, "Shared", [2])],
                 "node 1's poll while the reader holds: QWAIT again"),
            step(u0, [unlock_ack(u0, "Shared", [0, 2])],
                 "node 0 READ_UNLOCK (Shared, {0,2}): READERS 0, WAITING kept"),
            step(w1, [qwait(w1, True, 0, "Shared", [0, 2])],
                 "node 1's poll: QGRANT with Shared {0,2}")],
           {"q_wait": 2, "q_grant": 1, "unlock_executed": 1, "nack_lock_busy": 0})

    n = 88
    t = tag(n, H)
    r0 = Req("READ_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    w2 = Req("WRITE_MISS", 2, t)
    u0 = Req("READ_UNLOCK", 0, t, gstatus="Shared", copyset=[0, 2])
    x = Req("QXFER", 1, t, aux=1, copyset=q_id(2, 0, 1))
    vector(n, "queued-qxfer-denied-waiting", T,
           "A QXFER from the waiting writer's tenure while the reader still holds "
           "is denied with reason 5 (waiting) and changes nothing; after the "
           "READ_UNLOCK the same QXFER is approved (SWITCH cleared, the block "
           "stays held), and the next holder's retransmission is forwarded to "
           "it, not granted.",
           "QUEUED-LOCKS 4 (QXFER, reason waiting)",
           [add(n, T, H, 0, "Shared", [2]),
            step(r0, [forward(r0, 2, "Shared", [2], dp=True)],
                 "node 0 READ_MISS: read lock"),
            step(w1, [qwait(w1, False, 1, "Shared", [2])], "node 1 WRITE_MISS: QWAIT"),
            step(w2, [to_holder(w2, q_id(1, 0, 1), 1, "Shared", [2])],
                 "node 2 WRITE_MISS: forwarded to the waiter (index 1)"),
            step(x, [qxfer_ack(x, 5, 1, "Shared", [2])],
                 "QXFER while READERS 1: denied, reason 5, FWD_CNT 1"),
            step(u0, [unlock_ack(u0, "Shared", [0, 2])], "node 0 READ_UNLOCK"),
            step(x, [qxfer_ack(x, 0, 1, "Shared", [0, 2])],
                 "the same QXFER, readers gone: approved, next = node 2"),
            step(w2, [to_holder(w2, q_id(2, 0, 1), 1, "Shared", [0, 2])],
                 "node 2's retransmission: forwarded to itself, the holder (index 1)")],
           {"q_wait": 1, "qxfer_denied": 1, "qxfer_approved": 1,
            "forward_to_holder": 2, "q_grant": 0})

    n = 89
    t = tag(n, H)
    r0 = Req("READ_MISS", 0, t)
    w1 = Req("WRITE_MISS", 1, t)
    a1 = Req("ABORT", 1, t)
    u0 = Req("READ_UNLOCK", 0, t, gstatus="Shared", copyset=[0, 2])
    vector(n, "queued-abort-of-waiter-passed", T,
           "An ABORT of the waiting writer's event (QSTATE {id, SWITCH}) is "
           "answered 'a copy passed' (ABORT_ACK with FAIL) by the switch, "
           "whatever SCOREBOARD says, and changes neither LOCK nor QSTATE: "
           "the requester polls on. After the reader's READ_UNLOCK the poll "
           "gets QGRANT.",
           "QUEUED-LOCKS 3 (ABORT of a waiting tenure); PROTOCOL 4.9",
           [add(n, T, H, 0, "Shared", [2]),
            step(r0, [forward(r0, 2, "Shared", [2], dp=True)],
                 "node 0 READ_MISS: read lock"),
            step(w1, [qwait(w1, False, 1, "Shared", [2])], "node 1 WRITE_MISS: QWAIT"),
            step(a1, [abort_ack(a1, True)],
                 "node 1 ABORT of that event: its tenure is a copy that passed (FAIL)"),
            step(u0, [unlock_ack(u0, "Shared", [0, 2])], "node 0 READ_UNLOCK"),
            step(w1, [qwait(w1, True, 0, "Shared", [0, 2])],
                 "node 1's poll: QGRANT with Shared {0,2}")],
           {"q_wait": 1, "q_grant": 1, "abort_copy_passed": 1, "abort_to_home": 0,
            "unlock_executed": 1, "nack_lock_busy": 0})


# =================================================================== H: malformed

def malformed():
    T = "pcap2.json"
    base_tag = lambda n: tag(n, 0)

    def drops(n, name, reason, cases, desc, extra_counters=None, topo=T, pre=None,
              replay=None):
        steps = list(pre or [])
        for comment, inp in cases:
            # Address it to the node on the other port: a frame wrongly
            # switched at L2 would be flooded or forwarded there and show.
            other = "node:%d" % (1 - inp["port"])
            inp.setdefault("eth", {}).setdefault("dst", other)
            inp.setdefault("ip", {}).setdefault("dst", other)
            steps.append(step(inp, [], comment + ": dropped, nothing out"))
        c = {reason: len(cases)}
        c.update(extra_counters or {})
        vector(n, name, topo, desc,
               "PROTOCOL 3 (validation and drops) reason '%s'; BRIEF 'Anything else on "
               "the LCF port ... is dropped and counted, never processed'" % reason,
               steps, c)
        if replay:
            VECTORS[-1][1]["replay"] = replay

    def rm(n, node=0, **kw):
        return Req("READ_MISS", node, tag(n, 1), seq=1, **kw).input()

    n = 100
    # eth+ip+udp = 42 bytes; the LCF header needs 32 more.
    drops(n, "drop-short-frame", "short_frame",
          [("60 bytes, IP and UDP lengths consistent: 18 bytes of LCF header",
            dict(rm(n), truncate=60, ip={"total_len": 46}, udp={"len": 26})),
           ("73 bytes, consistent: one byte short of the LCF header",
            dict(rm(n), truncate=73, ip={"total_len": 59}, udp={"len": 39})),
           ("UDP length 39 in a full frame", dict(rm(n), udp={"len": 39})),
           ("UDP length 8: a UDP header and nothing after it", dict(rm(n), udp={"len": 8}))],
          "A well-formed IPv4/UDP datagram to the LCF port whose UDP payload is "
          "shorter than the 32-byte LCF header. (A frame cut short of what its "
          "IP header claims is bad_ipv4_header, checked first: vector 103.)")

    def not_lcf(n, name, cases, desc):
        """EtherType IPv4 frames whose UDP port cannot be read are not LCF
        frames: the L2 switch forwards them unchanged, no drop is counted."""
        steps = []
        for comment, inp in cases:
            inp.setdefault("eth", {}).setdefault("dst", "node:1")
            steps.append(step(inp, [{"port": 1, "raw": "input"}],
                              comment + ": not an LCF frame, switched at L2"))
        vector(n, name, "pcap2.json", desc,
               "PROTOCOL 3 ('Frames that are not IPv4/UDP to lcf_port (including "
               "EtherType IPv4 with an IP version other than 4 or an IHL < 5 ...) "
               "... the L2 learning switch forwards them')",
               steps, {"bad_ipv4_header": 0, "short_frame": 0, "tag_miss_to_home": 0})

    n = 101
    not_lcf(n, "not-lcf-bad-ipv4-version",
            [("ethertype IPv4 but IP version 6", dict(rm(n), ip={"version": 6})),
             ("IP version 0", dict(rm(n), ip={"version": 0}))],
            "IP version not 4 in an IPv4 frame: no UDP port can be read, so it is "
            "ordinary traffic for the L2 switch, never the pipeline.")

    n = 102
    # IHL 4: with dst IP 10.0.28.172 the 2 bytes at offset 32 (UDP dport if the
    # header really were 16 bytes) also read 7340 (0x1cac).
    not_lcf(n, "not-lcf-bad-ipv4-ihl",
            [("IHL 4 (< 5)", dict(rm(n), ip={"ihl": 4, "dst": "10.0.28.172"})),
             ("IHL 0", dict(rm(n), ip={"ihl": 0, "dst": "10.0.28.172"}))],
            "IPv4 header length below 5 words: not an LCF frame whatever the bytes "
            "at a guessed UDP offset say (the destination address makes them read "
            "7340 for a 16-byte header), so it is switched at L2.")

    n = 103
    drops(n, "drop-bad-ipv4-total-length", "bad_ipv4_header",
          [("IP total length 200 > frame", dict(rm(n), ip={"total_len": 200})),
           ("IP total length 16 (< the 20-byte header)", dict(rm(n), ip={"total_len": 16})),
           ("frame cut to 60 bytes, IP header still claims 60 + 14",
            dict(rm(n), truncate=60)),
           ("frame cut to 42 bytes (UDP header only)", dict(rm(n), truncate=42))],
          "IPv4 total length inconsistent with the frame: beyond it (a truncated "
          "frame), or smaller than the IP header itself. Checked first.")

    n = 104
    drops(n, "drop-ipv4-fragment", "bad_ipv4_header",
          [("first fragment (MF set, offset 0, UDP header to 7340 present)",
            dict(rm(n), ip={"flags_frag": "0x2000"})),
           ("first fragment with DF|MF", dict(rm(n), ip={"flags_frag": "0x6000"}))],
          "IPv4 fragments are never processed. Replayed through net_pcap: on a "
          "veth, the af_packet PMD's fanout socket asks the kernel to defragment, "
          "so a lone fragment never reaches swswitch.",
          replay="net_pcap")

    n = 105
    drops(n, "drop-bad-udp-length", "bad_udp_length",
          [("UDP length 7 (< the UDP header)", dict(rm(n), udp={"len": 7})),
           ("UDP length 0", dict(rm(n), udp={"len": 0})),
           ("UDP length 200 (beyond the IP payload)", dict(rm(n), udp={"len": 200})),
           ("IP total length 30 cuts the 40-byte UDP datagram", dict(rm(n), ip={"total_len": 30}))],
          "UDP length below the UDP header's own 8 bytes, or beyond the IP "
          "payload.")

    n = 106
    drops(n, "drop-bad-version", "bad_version",
          [("version 0", Req("READ_MISS", 0, base_tag(n), version=0).input()),
           ("version 2", Req("READ_MISS", 0, base_tag(n)).input()),
           ("version 255", Req("READ_MISS", 0, base_tag(n)).input())],
          "LCF version other than 1.")
    # set versions (Req.input does not carry version): patch the steps
    v = VECTORS[-1][1]
    for st, ver in zip(v["steps"], (0, 2, 255)):
        st["in"]["lcf"]["version"] = ver

    n = 107
    cases = []
    for ty in (0x00, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x1f, 0x80, 0xff):
        cases.append(("type 0x%02x%s" % (ty, " (a switch reply: spoof)" if 0x10 <= ty <= 0x15 else ""),
                      Req(ty, 0, base_tag(n)).input()))
    drops(n, "drop-unknown-type", "unknown_type", cases,
          "Types outside 0x01-0x0d and 0x20-0x7f, including the switch's own reply "
          "types 0x10-0x15 arriving at the switch (spoofs).")

    n = 108
    drops(n, "drop-bad-payload-length", "bad_payload_length",
          [("len 1, no payload", Req("READ_MISS", 0, base_tag(n), ).input() | {}),
           ("len 0 with 4 payload bytes", dict(rm(n), payload="deadbeef")),
           ("len 100 with 4 payload bytes", dict(rm(n), payload="deadbeef"))],
          "LCF len different from UDP length - 40.")
    v = VECTORS[-1][1]
    v["steps"][0]["in"]["lcf"]["len"] = 1
    v["steps"][1]["in"]["lcf"]["len"] = 0
    v["steps"][2]["in"]["lcf"]["len"] = 100

    n = 109
    drops(n, "drop-reserved-flags", "reserved_flags_set",
          [("flags 0x08", rm(n, flags=8)), ("flags 0x80", rm(n, flags=0x80)),
           ("flags 0xff", rm(n, flags=0xff))],
          "Flag bits 3-7 are reserved and must be 0.")

    n = 110
    drops(n, "drop-bad-gstatus", "bad_gstatus",
          [("gstatus 3", Req("READ_MISS", 0, base_tag(n), gstatus=3).input()),
           ("gstatus 255", Req("READ_MISS", 0, base_tag(n), gstatus=255).input())],
          "gstatus above 2 (Modified).")

    n = 111
    drops(n, "drop-node-out-of-range", "node_id_out_of_range",
          [("node 32", Req("READ_MISS", 32, base_tag(n), port=0).input()),
           ("node 0xffff", Req("READ_MISS", 0xffff, base_tag(n), port=0).input())],
          "Node ids must be below 32 (the copyset is a 32-bit bitmap).")
    for st in VECTORS[-1][1]["steps"]:
        st["in"]["eth"] = {"src": "node:0"}
        st["in"]["ip"] = {"src": "node:0"}

    n = 112
    drops(n, "drop-node-not-in-topology", "node_id_not_in_topology",
          [("node 5 (in range, not a node of pcap2)", Req("READ_MISS", 5, base_tag(n), port=0).input()),
           ("node 31", Req("ADD_TO_SWITCH", 31, base_tag(n), port=1).input())],
          "Node ids that are not nodes of the topology.")
    for st in VECTORS[-1][1]["steps"]:
        p = st["in"]["port"]
        st["in"]["eth"] = {"src": "node:%d" % p}
        st["in"]["ip"] = {"src": "node:%d" % p}

    n = 113
    t = base_tag(n)
    spoof_w = Req("WRITE_MISS", 1, t, seq=1, port=0)
    spoof_w.extra["eth"] = {"src": "node:1"}
    spoof_w.extra["ip"] = {"src": "node:1"}
    spoof_add = Req("ADD_TO_SWITCH", 0, tag(n, 0, 1), gstatus="Shared", copyset=[0], port=1)
    spoof_rm = Req("REMOVE_FROM_SWITCH", 0, t, seq=2, port=1)
    ok = Req("READ_MISS", 0, t, seq=1)
    ok2 = Req("READ_MISS", 1, tag(n, 0, 1), seq=1)
    vector(n, "drop-spoofed-node-wrong-port", T,
           "A frame whose node id is a real node but which enters on another node's "
           "port is a spoof: dropped, no register touched. A spoofed WRITE_MISS "
           "(node 1 via port 0) must not take the write lock, a spoofed ADD must not "
           "install, a spoofed REMOVE must not remove: node 0's READ_MISS is then "
           "granted on the original metadata and the spoofed-ADD tag still misses.",
           "PROTOCOL 3 reason 'node_id_does_not_match_ingress_port'",
           [add(n, T, 0, 0, "Shared", [1]),
            step(spoof_w.input(), [], "WRITE_MISS claiming node 1, entering port 0"),
            step(spoof_add.input(), [], "ADD_TO_SWITCH claiming node 0, entering port 1"),
            step(spoof_rm.input(), [], "REMOVE_FROM_SWITCH claiming node 0, entering port 1"),
            step(ok, [forward(ok, 1, "Shared", [1], dp=True)], "genuine READ_MISS from node 0: granted"),
            step(ok2, [tag_miss(ok2, 0)], "the spoofed ADD's tag is not in the switch")],
           {"node_id_does_not_match_ingress_port": 3, "nack_lock_busy": 0,
            "add_to_switch_ok": 1, "remove_from_switch_ok": 0})

    n = 114
    drops(n, "drop-thread-out-of-range", "thread_id_out_of_range",
          [("thread 16 (threads_per_node defaults to 16)", rm(n, thread=16)),
           ("thread 0xffff", rm(n, thread=0xffff))],
          "Thread ids at or above threads_per_node.")

    n = 115
    drops(n, "drop-tag-home-not-in-topology", "tag_home_node_not_in_topology",
          [("tag homed at node 7", Req("READ_MISS", 0, tag(n, 7)).input()),
           ("tag homed at node 0xffff", Req("ADD_TO_SWITCH", 0, tag(n, 0xffff)).input())],
          "The tag's home node (top 16 bits of the global address) is not a node.")
    for st in VECTORS[-1][1]["steps"]:
        st["in"]["eth"] = {"dst": "switch"}
        st["in"]["ip"] = {"dst": "switch"}

    n = 116
    P = lambda **kw: Req("READ_MISS", 0, tag(n, 1), **kw).input()
    c1 = P(); c1["lcf"]["version"] = 2; c1["lcf"]["flags"] = 0x80
    c2 = P(gstatus=9); c2["lcf"]["type"] = 0x0e
    c3 = P(flags=0x10, gstatus=7)
    c4 = P(); c4["lcf"]["len"] = 3; c4["lcf"]["node"] = 40
    c5 = P(gstatus=4); c5["lcf"]["node"] = 33
    c6 = dict(P(), truncate=70)
    c6["lcf"]["version"] = 3
    steps = [step(c1, [], "version 2 and reserved flags: bad_version first"),
             step(c2, [], "type 0x0e and gstatus 9: unknown_type first"),
             step(c3, [], "flags 0x10 and gstatus 7: reserved_flags_set first"),
             step(c4, [], "len 3 (no payload) and node 40: bad_payload_length first"),
             step(c5, [], "gstatus 4 and node 33: bad_gstatus first"),
             step(c6, [], "cut to 70 bytes with LCF version 3: bad_ipv4_header first")]
    vector(n, "drop-reason-precedence", T,
           "A frame with several faults is counted under the first reason in "
           "PROTOCOL section 3's order.",
           "PROTOCOL 3 ('for the first of these reasons that applies')",
           steps, {"bad_version": 1, "unknown_type": 1, "reserved_flags_set": 1,
                   "bad_payload_length": 1, "bad_gstatus": 1, "bad_ipv4_header": 1,
                   "node_id_out_of_range": 0, "short_frame": 0})

    n = 117
    t = base_tag(n)
    w = Req("WRITE_MISS", 0, t, seq=1)
    w.extra["flags"] = 0x40
    bad = [("reserved flag on a WRITE_MISS", w.input()),
           ("bad gstatus on a WRITE_UNLOCK", Req("WRITE_UNLOCK", 0, t, seq=1, gstatus=3, copyset=[0]).input()),
           ("thread 99 on a REMOVE", Req("REMOVE_FROM_SWITCH", 0, t, seq=1, thread=99).input()),
           ("truncated READ_UNLOCK", dict(Req("READ_UNLOCK", 0, t, seq=1).input(), truncate=64))]
    r1 = Req("READ_MISS", 1, t, seq=1)
    steps = [add(n, T, 0, 0, "Shared", [0])]
    for c, i in bad:
        i["eth"] = {"dst": "node:1"}
        i["ip"] = {"dst": "node:1"}
        steps.append(step(i, [], c + ": dropped"))
    steps.append(step(r1, [forward(r1, 0, "Shared", [0], dp=True)],
                      "READ_MISS from node 1: block unchanged and unlocked"))
    vector(n, "drop-leaves-state-unchanged", T,
           "Malformed pipeline types aimed at an installed block (a WRITE_MISS that "
           "would lock it, an unlock that would rewrite it, a REMOVE that would "
           "clear it) touch no register: a following READ_MISS sees the block as "
           "installed.",
           "PROTOCOL 3 ('never processed, no register touched')",
           steps, {"reserved_flags_set": 1, "bad_gstatus": 1, "thread_id_out_of_range": 1,
                   "bad_ipv4_header": 1, "forward_data_provider_shared": 1})


# =================================================================== I: framing

def framing():
    T = "pcap3.json"
    n = 120
    t = tag(n, 0)
    r = Req("READ_MISS", 1, t, seq=1)
    r.extra["eth"] = {"dst": "bcast"}
    r.extra["ip"] = {"dst": "10.0.0.99"}
    vector(n, "pipeline-ignores-destination", T,
           "The pipeline runs on every IPv4/UDP frame to lcf_port whatever its "
           "destination MAC/IP: a READ_MISS sent to the broadcast MAC and an "
           "unknown IP is processed (not flooded) and its copy is rewritten to "
           "the data provider.",
           "BRIEF wire format ('The switch runs its pipeline on every such packet "
           "whatever its destination MAC/IP'); PROTOCOL 4.7",
           [add(n, T, 0, 0, "Shared", [2]),
            step(r, [forward(r, 2, "Shared", [2], dp=True)], "READ_MISS to ff:ff:ff:ff:ff:ff / 10.0.0.99")],
           {"forward_data_provider_shared": 1})

    n = 121
    t = tag(n, 0)
    r = Req("READ_MISS", 1, t, seq=1)
    r.extra["ip"] = {"options": "01010101"}
    vector(n, "ipv4-options-accepted", T,
           "IPv4 options are accepted on input (IHL 6): the request is processed "
           "normally. (Whether the copy keeps the options is not compared; its "
           "checksum and lengths must be consistent.)",
           "PROTOCOL 1 ('no options emitted; options accepted on input')",
           [add(n, T, 0, 0, "Modified", [2]),
            step(r, [forward(r, 2, "Modified", [2], dp=True)], "READ_MISS with 4 bytes of NOP options")],
           {"forward_owner_modified": 1})

    n = 122
    t = tag(n, 0)
    pl = "".join("%02x" % (i & 0xff) for i in range(64))
    w = Req("WRITE_MISS", 1, t, seq=1, payload=pl)
    e = forward(w, 0, "Unshared", [])
    e["lcf"]["len"] = 64
    e["payload"] = pl
    vector(n, "payload-carried-with-copy", T,
           "A request's payload (len bytes after the header) travels with the copy "
           "unchanged; len is preserved.",
           "PROTOCOL 1 ('then len bytes of payload'), 4.7 (only the header and "
           "addresses are rewritten)",
           [add(n, T, 0, 0, "Unshared", []),
            step(w, [e], "WRITE_MISS with 64 payload bytes to the home node")],
           {"forward_home_unshared": 1})

    n = 123
    t = tag(n, 0)
    a = Req("READ_MISS", 1, t, seq=1)
    b = Req("READ_MISS", 2, t, seq=1, thread=15)
    vector(n, "threads-are-separate-requesters", T,
           "Requester index = node * threads_per_node + thread: thread 15 (the last "
           "valid one) of node 2 is a requester of its own; both READ_MISS share "
           "the read lock.",
           "PROTOCOL 4 (requester index), 3 (thread < threads_per_node)",
           [add(n, T, 0, 0, "Shared", [0]),
            step(a, [forward(a, 0, "Shared", [0], dp=True)], "node 1 thread 0"),
            step(b, [forward(b, 0, "Shared", [0], dp=True)], "node 2 thread 15")],
           {"forward_data_provider_shared": 2, "thread_id_out_of_range": 0})


def dumps(o, ind=0, width=100):
    """JSON with small objects kept on one line, for reviewers."""
    flat = json.dumps(o)
    if len(flat) + ind <= width or not isinstance(o, (dict, list)) or not o:
        return flat
    pad = " " * (ind + 2)
    if isinstance(o, dict):
        items = ["%s%s: %s" % (pad, json.dumps(k), dumps(v, ind + 2, width)) for k, v in o.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * ind + "}"
    items = [pad + dumps(v, ind + 2, width) for v in o]
    return "[\n" + ",\n".join(items) + "\n" + " " * ind + "]"


def main():
    migration()
    tag_misses()
    table3()
    table2()
    locks()
    idempotence()
    scoreboard()
    versions()
    queued()
    l2()
    malformed()
    framing()
    check = "--check" in sys.argv
    bad = 0
    names = set()
    for name, v in VECTORS:
        assert name not in names, name
        names.add(name)
        text = dumps(v) + "\n"
        path = os.path.join(VEC, name, "vector.json")
        if check:
            if not os.path.exists(path) or open(path).read() != text:
                print("differs: " + path)
                bad += 1
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    print("%d vectors %s" % (len(VECTORS), "checked" if check else "written"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
