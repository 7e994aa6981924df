#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
run_vectors.py: play pcap-test vectors through a real switch, PTF style.

For each vector: a fresh swswitch on veth pairs (one per switch port; the
switch ends are given to swswitch as net_af_packet vdevs in port order), then,
step by step in the vector's global order, the step's frame is injected with
libpcap (pcap_inject) on the peer of its ingress port, and every frame that
leaves any port is captured with libpcap until the ports are quiet; the
capture is compared field by field with the step's expectations before the
next step is sent. At the end swswitch is stopped (SIGTERM) and its exit JSON
is checked against the vector's expect_counters. One file of about 800
lines: the ports, the injection, the capture and the comparison share one
vector's state.

  run_vectors.py [--swswitch PATH] [--vector DIR]... [DIR...] [--ifaces a,b,c]
                 [--reset-cmd CMD] [--topology NAME] [--skip-requires]
                 [--settle-ms N] [--nothing-ms N] [--max-wait-ms N] [--verbose]

--ifaces points the runner at existing interfaces (e.g. the host ports cabled
to a Tofino's front-panel ports, in the topology's port order) instead of
starting swswitch; --reset-cmd is then run before each vector to bring the
switch's registers back to power-on (the vectors assume a fresh switch).
Counters are not checked in that mode.

Exit status: 0 when every vector passed, 1 otherwise, 2 on a setup error.
"""

import argparse
import ctypes
import ctypes.util
import json
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lcfvec  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LUA = os.path.join(ROOT, "lib", "dissector", "lcf.lua")

# ------------------------------------------------------------------ libpcap

_pcap = None
PCAP_D_IN = 1


class PcapPkthdr(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long),
                ("caplen", ctypes.c_uint32), ("len", ctypes.c_uint32)]


def libpcap():
    global _pcap
    if _pcap is None:
        name = ctypes.util.find_library("pcap") or "libpcap.so.0.8"
        _pcap = ctypes.CDLL(name)
        _pcap.pcap_create.restype = ctypes.c_void_p
        _pcap.pcap_create.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        for fn in ("pcap_set_snaplen", "pcap_set_promisc", "pcap_set_timeout",
                   "pcap_set_immediate_mode", "pcap_set_buffer_size", "pcap_setdirection"):
            getattr(_pcap, fn).argtypes = [ctypes.c_void_p, ctypes.c_int]
        _pcap.pcap_activate.argtypes = [ctypes.c_void_p]
        _pcap.pcap_setnonblock.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p]
        _pcap.pcap_get_selectable_fd.argtypes = [ctypes.c_void_p]
        _pcap.pcap_inject.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
        _pcap.pcap_next_ex.argtypes = [ctypes.c_void_p,
                                       ctypes.POINTER(ctypes.POINTER(PcapPkthdr)),
                                       ctypes.POINTER(ctypes.POINTER(ctypes.c_ubyte))]
        _pcap.pcap_geterr.restype = ctypes.c_char_p
        _pcap.pcap_geterr.argtypes = [ctypes.c_void_p]
        _pcap.pcap_close.argtypes = [ctypes.c_void_p]
    return _pcap


class Port:
    """A libpcap handle on the node side of one switch port."""

    def __init__(self, iface):
        lib = libpcap()
        err = ctypes.create_string_buffer(256)
        self.iface = iface
        self.p = lib.pcap_create(iface.encode(), err)
        if not self.p:
            raise RuntimeError("pcap_create %s: %s" % (iface, err.value.decode()))
        lib.pcap_set_snaplen(self.p, 65535)
        lib.pcap_set_promisc(self.p, 1)
        lib.pcap_set_timeout(self.p, 1)
        lib.pcap_set_immediate_mode(self.p, 1)
        lib.pcap_set_buffer_size(self.p, 4 << 20)
        rc = lib.pcap_activate(self.p)
        if rc < 0:
            raise RuntimeError("pcap_activate %s: %s" % (iface, lib.pcap_geterr(self.p).decode()))
        # Only what arrives at this interface (frames the switch sent), not
        # what we inject.
        if lib.pcap_setdirection(self.p, PCAP_D_IN) != 0:
            raise RuntimeError("pcap_setdirection %s: %s" % (iface, lib.pcap_geterr(self.p).decode()))
        lib.pcap_setnonblock(self.p, 1, err)
        self.fd = lib.pcap_get_selectable_fd(self.p)
        self.ignore_src = set()

    def inject(self, frame):
        n = libpcap().pcap_inject(self.p, frame, len(frame))
        if n != len(frame):
            raise RuntimeError("pcap_inject %s: %s" % (self.iface, libpcap().pcap_geterr(self.p).decode()))

    def read(self):
        lib = libpcap()
        hdr = ctypes.POINTER(PcapPkthdr)()
        data = ctypes.POINTER(ctypes.c_ubyte)()
        out = []
        while True:
            rc = lib.pcap_next_ex(self.p, ctypes.byref(hdr), ctypes.byref(data))
            if rc != 1:
                break
            fr = ctypes.string_at(data, hdr.contents.caplen)
            # kernel chatter from the switch-side interface's own stack
            if fr[6:12] in self.ignore_src:
                continue
            out.append(fr)
        return out

    def close(self):
        if self.p:
            libpcap().pcap_close(self.p)
            self.p = None


def collect(ports, n_expected, settle, max_wait, nothing_wait):
    """Read every port until quiet. Returns [(port index, frame)]."""
    got = []
    start = last = time.monotonic()
    fds = {p.fd: i for i, p in enumerate(ports)}
    while True:
        now = time.monotonic()
        if n_expected == 0:
            deadline = start + nothing_wait
        elif len(got) >= n_expected:
            deadline = last + settle
        else:
            deadline = start + max_wait
        if now >= deadline:
            break
        r, _, _ = select.select(list(fds), [], [], deadline - now)
        for fd in r:
            i = fds[fd]
            for fr in ports[i].read():
                got.append((i, fr))
                last = time.monotonic()
    return got


def drain(ports):
    for p in ports:
        p.read()


# ------------------------------------------------------------------ veths

def sh(*args, check=True):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(args), r.stderr.strip()))
    return r


def set_sysctl(path, val):
    try:
        with open(path, "w") as f:
            f.write(val)
    except OSError:
        pass


def stale_cleanup():
    """Remove veths a crashed runner left behind (names lt<pid>s<i>)."""
    for name in os.listdir("/sys/class/net"):
        m = re.match(r"^lt(\d+)s(\d+)$", name)
        if m and not os.path.exists("/proc/%s" % m.group(1)):
            sh("ip", "link", "del", name, check=False)


class Veths:
    def __init__(self, n):
        self.pid = os.getpid()
        self.pairs = []
        for i in range(n):
            sw, nd = "lt%ds%d" % (self.pid, i), "lt%dn%d" % (self.pid, i)
            sh("ip", "link", "add", sw, "type", "veth", "peer", "name", nd)
            self.pairs.append((sw, nd))
            for ifc in (sw, nd):
                set_sysctl("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % ifc, "1")
                sh("ip", "link", "set", ifc, "up")

    def mac(self, ifc):
        with open("/sys/class/net/%s/address" % ifc) as f:
            return lcfvec.mac_bytes(f.read().strip())

    def ifindex(self, ifc):
        with open("/sys/class/net/%s/ifindex" % ifc) as f:
            return int(f.read())

    def delete(self):
        for sw, _ in self.pairs:
            sh("ip", "link", "del", sw, check=False)
        self.pairs = []


# ------------------------------------------------------------------ swswitch

class Switch:
    def __init__(self, binary, topo_file, ifaces, lcore, log_path, idle_ms=60000,
                 vdevs=None):
        self.prefix = "lcfpt%d" % os.getpid()
        self.log_path = log_path
        cmd = [binary, "--no-huge", "-m", "256", "-l", str(lcore), "--no-pci",
               "--file-prefix", self.prefix, "--log-level", "swswitch,info"]
        for i, ifc in enumerate(ifaces):
            cmd += ["--vdev", "net_af_packet%d,iface=%s" % (i, ifc)]
        for vd in vdevs or []:
            cmd += ["--vdev", vd]
        cmd += ["--", "--topo", topo_file, "--idle-exit", str(idle_ms)]
        # scripts/test.sh: --idle-sleep-us, the core left to its other lanes
        cmd += os.environ.get("SWSWITCH_TEST_ARGS", "").split()
        self.cmd = cmd
        self.log = open(log_path, "w+")
        self.out = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdout=self.out, stderr=self.log,
                                     start_new_session=True)

    READY_LOG = re.compile(r"polling \d+ rx queue|forwarding on")

    def wait_ready(self, ifindexes, timeout=30.0, grace=10.0):
        """Ready when the worker logs that it polls, or else (log wording is
        not an interface) once every switch-end interface has a packet socket
        bound to it (/proc/net/packet) plus a grace period: frames sent after
        that wait in the af_packet ring until the worker polls. The grace is
        long because swswitch discards what its sockets received before its
        start-up flush, which on a loaded machine comes seconds after the
        bind: a frame sent in between would be lost."""
        end = time.monotonic() + timeout
        bound_at = None
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                return False
            self.log.seek(0)
            if self.READY_LOG.search(self.log.read()):
                return True
            if ifindexes and bound_at is None and ifindexes <= packet_socket_ifindexes():
                bound_at = time.monotonic()
            if bound_at is not None and time.monotonic() - bound_at >= grace:
                return True
            time.sleep(0.02)
        return False

    def stop(self, timeout=20.0):
        """SIGTERM, wait, return (exit code, stats dict or None)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.seek(0)
        text = self.out.read()
        stats = None
        try:
            stats = json.loads(text) if text.strip() else None
        except ValueError:
            stats = None
        self.cleanup_runtime()
        return self.proc.returncode, stats

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.cleanup_runtime()

    def cleanup_runtime(self):
        d = "/var/run/dpdk/%s" % self.prefix
        if os.path.isdir(d):
            subprocess.run(["rm", "-rf", d])

    def log_tail(self, n=15):
        self.log.seek(0)
        return self.log.read().splitlines()[-n:]


def wait_carrier(ifaces, timeout=5.0):
    """Both ends of a veth report carrier once both are up."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if all(open("/sys/class/net/%s/carrier" % i).read().strip() == "1" for i in ifaces):
                return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


def packet_socket_ifindexes():
    out = set()
    try:
        with open("/proc/net/packet") as f:
            next(f)
            for line in f:
                cols = line.split()
                if len(cols) >= 5:
                    out.add(int(cols[4]))
    except (OSError, ValueError, StopIteration):
        pass
    return out


CURRENT_SWITCH = []


def counter(stats, name):
    """A counter of swswitch's exit JSON by name: actions.<name>,
    drops.<name>, pipeline.<name>, or a dotted path."""
    if "." in name:
        cur = stats
        for part in name.split("."):
            if not isinstance(cur, dict) or part not in cur:
                return None
            cur = cur[part]
        return cur
    for sec in ("actions", "drops", "pipeline"):
        if isinstance(stats.get(sec), dict) and name in stats[sec]:
            return stats[sec][name]
    return stats.get(name)


# ------------------------------------------------------------------ diff output

def tshark_decode(frames, lcf_port):
    """Decode frames with tshark + the Lua dissector (for mismatch reports)."""
    if not frames or not os.path.exists(LUA):
        return []
    try:
        with tempfile.NamedTemporaryFile(suffix=".pcap", delete=False) as f:
            path = f.name
        lcfvec.write_pcap(path, frames)
        r = subprocess.run(["tshark", "-X", "lua_script:" + LUA, "-o",
                            "lcf.udp_port:%d" % lcf_port, "-n", "-r", path],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=20)
        os.unlink(path)
        return r.stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return []


# ------------------------------------------------------------------ one vector

def run_vector_net_pcap(v, args, log_dir):
    """Offline replay for drop-only vectors the kernel would alter on a veth
    (IPv4 fragments: the af_packet PMD's fanout socket asks for defrag). The
    frames enter through net_pcap rx_pcap per port; every step expects
    nothing, so every tx_pcap must stay empty."""
    topo = v["_topo"]
    t0 = time.monotonic()
    if any(st.get("expect", []) not in ("nothing", []) for st in v["steps"]):
        return False, ["  replay net_pcap is only for vectors whose steps all expect nothing"], 0.0
    tmp = tempfile.mkdtemp(prefix="lcf-pt-pcap-")
    per_port = {p: [] for p in range(topo.n_ports)}
    for st in v["steps"]:
        port, fr = lcfvec.build_input(st["in"], topo)
        per_port[port].append(fr)
    vdevs = []
    for p in range(topo.n_ports):
        rx = os.path.join(tmp, "in_port%d.pcap" % p)
        lcfvec.write_pcap(rx, per_port[p])
        vdevs.append("net_pcap%d,rx_pcap=%s,tx_pcap=%s" % (p, rx, os.path.join(tmp, "out_port%d.pcap" % p)))
    sw = Switch(args.swswitch, topo.path, [], args.lcore,
                os.path.join(log_dir, v["_name"] + ".log"), idle_ms=300, vdevs=vdevs)
    try:
        sw.proc.wait(30)
    except subprocess.TimeoutExpired:
        pass
    rc, stats = sw.stop()
    lines = []
    ok = rc == 0 and stats is not None
    if rc != 0:
        lines.append("  swswitch exited with status %s" % rc)
        lines += ["    " + l for l in sw.log_tail()]
    for p in range(topo.n_ports):
        path = os.path.join(tmp, "out_port%d.pcap" % p)
        out = lcfvec.read_pcap(path) if os.path.exists(path) else []
        for fr in out:
            ok = False
            lines.append("  unexpected on port %d: %s" % (p, lcfvec.fmt_frame(fr, topo.lcf_port)))
    subprocess.run(["rm", "-rf", tmp])
    return ok, lines, stats, time.monotonic() - t0


def check_counters(v, stats, lines, verbose):
    ok = True
    if stats is not None and verbose:
        lines.append("  non-zero counters: " + ", ".join(
            "%s=%s" % (k, x) for sec in ("actions", "drops")
            for k, x in sorted(stats.get(sec, {}).items()) if x))
        lines.append("  l2: %s" % json.dumps(stats.get("l2")))
    if stats is None:
        return True
    for name, want in v.get("expect_counters", {}).items():
        got = counter(stats, name)
        if got is None:
            got = 0 if name in lcfvec.DROP_REASONS or name in KNOWN_ACTIONS else None
        if got != want:
            ok = False
            lines.append("  counter %s: expected %s, got %s" % (name, want, got))
    if not ok:
        lines.append("  all non-zero counters: " + ", ".join(
            "%s=%s" % (k, x) for sec in ("actions", "drops")
            for k, x in sorted(stats.get(sec, {}).items()) if x))
    return ok

def run_vector(v, args, ports_all, veths, log_dir):
    topo = v["_topo"]
    n = topo.n_ports
    if n > len(ports_all):
        return False, ["vector needs %d ports, only %d available" % (n, len(ports_all))], 0
    if v.get("replay") == "net_pcap" and not args.ifaces:
        ok, lines, stats, dt = run_vector_net_pcap(v, args, log_dir)
        if ok and stats is None:
            ok = False
            lines.append("  swswitch printed no statistics JSON")
        if not check_counters(v, stats, lines, args.verbose):
            ok = False
        return ok, lines, dt
    ports = ports_all[:n]
    lines = []
    sw = None
    t0 = time.monotonic()
    if args.ifaces:
        if args.reset_cmd:
            r = subprocess.run(args.reset_cmd, shell=True)
            if r.returncode != 0:
                return False, ["--reset-cmd failed (%d)" % r.returncode], 0
    else:
        log_path = os.path.join(log_dir, v["_name"] + ".log")
        sw = Switch(args.swswitch, topo.path, [p[0] for p in veths.pairs[:n]],
                    args.lcore, log_path)
        CURRENT_SWITCH[:] = [sw]
        if not sw.wait_ready({veths.ifindex(p[0]) for p in veths.pairs[:n]}):
            sw.kill()
            return False, ["swswitch did not start: " + " ".join(map(shlex.quote, sw.cmd))] + \
                ["  " + l for l in sw.log_tail()], time.monotonic() - t0
    ok = True
    if veths is not None:
        wait_carrier([nd for _, nd in veths.pairs[:n]])
    try:
        drain(ports)
        earlier = []
        burst = {}
        for i, st in enumerate(v["steps"]):
            port, frame = built(st, topo)
            exps = st.get("expect", [])
            n_exp = 0 if exps == "nothing" else len(exps)
            if i not in burst:
                group = same_burst_group(v["steps"], i)
                window = repeat_window(v["steps"], i, topo)
                if len(window) > 1:
                    burst = play_window(window, v["steps"], ports, topo, args)
                elif len(group) == 1:
                    ports[port].inject(frame)
                    got = collect(ports, n_exp, args.settle_ms / 1000.0,
                                  args.max_wait_ms / 1000.0, args.nothing_ms / 1000.0)
                else:
                    burst = inject_burst(group, v["steps"], ports, topo, sw, args)
            if i in burst:
                got = burst[i]
            good, report = lcfvec.match_step(st, got, topo, frame, earlier)
            earlier.append(got)
            if args.verbose or not good:
                lines.append("  step %d (%s): %s" % (i, st.get("comment", ""),
                                                     "ok" if good else "MISMATCH"))
                lines.append("    in  port %d: %s" % (port, lcfvec.fmt_frame(frame, topo.lcf_port)))
                for p, fr in got:
                    lines.append("    out port %d: %s" % (p, lcfvec.fmt_frame(fr, topo.lcf_port)))
            if not good:
                ok = False
                lines += ["  " + l for l in report]
                dec = tshark_decode([fr for _, fr in got], topo.lcf_port)
                if dec:
                    lines.append("    tshark (lcf.lua) of what left the switch:")
                    lines += ["      " + l.strip() for l in dec]
                break
    finally:
        if sw is not None:
            rc, stats = sw.stop()
            CURRENT_SWITCH[:] = []
    if sw is not None:
        if rc != 0:
            ok = False
            lines.append("  swswitch exited with status %s" % rc)
            lines += ["    " + l for l in sw.log_tail()]
        if stats is None:
            ok = False
            lines.append("  swswitch printed no statistics JSON")
        if not check_counters(v, stats, lines, args.verbose):
            ok = False
    return ok, lines, time.monotonic() - t0


KNOWN_ACTIONS = {
    "tag_miss_to_home", "forward_home_unshared", "forward_owner_modified",
    "forward_data_provider_shared", "multicast_invalidate", "ack_sole_holder",
    "return_eviction", "nack_lock_busy", "nack_check_failed", "nack_stale_request",
    "retransmit_passed_on_score", "resubmit", "unlock_executed",
    "unlock_duplicate_ignored", "add_to_switch_ok", "add_to_switch_duplicate",
    "add_to_switch_collision", "remove_from_switch_ok", "mirror_to_shadow", "drop",
}


def same_burst_group(steps, i):
    """Step i and the steps after it marked "same_burst": one rx burst."""
    g = [i]
    while g[-1] + 1 < len(steps) and steps[g[-1] + 1].get("same_burst"):
        g.append(g[-1] + 1)
    return g


_EVENT_KEYS = {}


def event_key(frame, lcf_port):
    """(node, thread, seq, tag, message type): a reply the switch originates
    (types 0x10 and up) names the type it answers in aux's top byte.
    Remembered per frame: a repeat's copies and their replies are the same
    bytes (play_window asks twice for each)."""
    k = (frame, lcf_port)
    if k in _EVENT_KEYS:
        return _EVENT_KEYS[k]
    l = lcfvec.decode(frame, lcf_port).get("lcf")
    if l is None:
        key = None
    else:
        ty = l["type"] if l["type"] < 0x10 else l["aux"] >> 24
        key = (l["node"], l["thread"], l["seq"], l["tag"], ty)
    if len(_EVENT_KEYS) >= 4096:
        _EVENT_KEYS.clear()
    _EVENT_KEYS[k] = key
    return key


def inject_burst(group, steps, ports, topo, sw, args):
    """Inject the frames of `group` so that swswitch reads them in one rx
    burst: it is stopped (SIGSTOP) while they are queued on its port and
    continued after, so its next rx_burst returns them all, and every
    resubmitted pass runs after the whole burst, as in a busy switch. The
    frames must enter one port (bursts are per port) and be of distinct
    messages (node, thread, seq, tag, type): what leaves the switch is given
    to the step of the message it carries or answers. Returns {step index: [(port, frame)]}."""
    frames, keys, n_exp = [], [], 0
    for i in group:
        port, frame = lcfvec.build_input(steps[i]["in"], topo)
        frames.append((port, frame))
        keys.append(event_key(frame, topo.lcf_port))
        exps = steps[i].get("expect", [])
        n_exp += 0 if exps == "nothing" else len(exps)
    if len({p for p, _ in frames}) != 1 or len(set(keys)) != len(keys):
        raise lcfvec.VectorError("same_burst steps %s: one port, distinct events" % group)
    if sw is not None:
        os.kill(sw.proc.pid, signal.SIGSTOP)
    try:
        for port, frame in frames:
            ports[port].inject(frame)
        time.sleep(0.05)    # the veth delivers to the stopped switch's ring
    finally:
        if sw is not None:
            os.kill(sw.proc.pid, signal.SIGCONT)
    got = collect(ports, n_exp, args.settle_ms / 1000.0, args.max_wait_ms / 1000.0,
                  args.nothing_ms / 1000.0)
    out = {i: [] for i in group}
    for p, fr in got:
        k = event_key(fr, topo.lcf_port)
        i = group[keys.index(k)] if k in keys else group[-1]
        out[i].append((p, fr))
    return out


# One rx burst: 128 copies back to back lost replies on the veths.
REPEAT_WINDOW = 32


_BUILT = {}


def built(st, topo):
    """lcfvec.build_input of a step, once per step object (a repeat's
    copies are one object)."""
    k = id(st)
    if k not in _BUILT:
        _BUILT[k] = (st, lcfvec.build_input(st["in"], topo))
    return _BUILT[k][1]


def repeat_window(steps, i, topo):
    """Step i and the steps after it of the same repeat, up to
    REPEAT_WINDOW, when they may be sent without waiting for replies: one
    ingress port (the switch takes them in order), each expecting frames
    (a "nothing" needs its own quiet wait), no burst, no constraint."""
    def pipelinable(st):
        return ("_rep" in st and st.get("expect") not in ("nothing", [], None)
                and not st.get("same_burst") and not st.get("constraints"))
    if not pipelinable(steps[i]):
        return [i]
    port = built(steps[i], topo)[0]
    w = [i]
    while (len(w) < REPEAT_WINDOW and w[-1] + 1 < len(steps)
           and steps[w[-1] + 1].get("_rep") == steps[i]["_rep"]
           and pipelinable(steps[w[-1] + 1])
           and built(steps[w[-1] + 1], topo)[0] == port):
        w.append(w[-1] + 1)
    return w


def play_window(window, steps, ports, topo, args):
    """Send a window of a repeat's steps back to back, collect every frame
    they expect, and give each frame to the first step of its event (the
    request it carries or answers) that still lacks frames: copies of one
    step share an event, the switch answers them in order."""
    need = {}
    n_exp = 0
    for i in window:
        port, frame = built(steps[i], topo)
        ports[port].inject(frame)
        n = len(steps[i]["expect"])
        need[i] = n
        n_exp += n
    # A short settle: a frame past the count reaches the next step's capture.
    got = collect(ports, n_exp, min(args.settle_ms, 5) / 1000.0,
                  args.max_wait_ms / 1000.0, args.nothing_ms / 1000.0)
    out = {i: [] for i in window}
    keys = {i: event_key(built(steps[i], topo)[1], topo.lcf_port) for i in window}
    for p, fr in got:
        k = event_key(fr, topo.lcf_port)
        i = next((j for j in window if keys[j] == k and len(out[j]) < need[j]), window[-1])
        out[i].append((p, fr))
    return out


def find_swswitch(arg):
    for c in (arg, os.environ.get("SWSWITCH"), os.path.join(ROOT, "build", "swswitch", "swswitch")):
        if c and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


def main():
    ap = argparse.ArgumentParser(description="Play pcap-test vectors through a switch.")
    ap.add_argument("--swswitch", help="swswitch binary (default $SWSWITCH)")
    ap.add_argument("--vector", action="append", default=[],
                    help="run only this vector directory (repeatable)")
    ap.add_argument("more_vectors", nargs="*", metavar="DIR", help="same as --vector DIR")
    ap.add_argument("--vectors-dir", default=os.path.join(HERE, "vectors"))
    ap.add_argument("--ifaces", help="comma-separated existing interfaces, in switch "
                    "port order; no swswitch is started")
    ap.add_argument("--reset-cmd", help="with --ifaces: shell command run before each vector")
    ap.add_argument("--topology", help="run only the vectors written for this topology "
                    "file (e.g. pcap3.json): with --ifaces, the one the switch is configured with")
    ap.add_argument("--skip-requires", action="store_true",
                    help="skip vectors with a 'requires' note (e.g. tiny register profiles)")
    ap.add_argument("--lcore", type=int, default=int(os.environ.get("SWSWITCH_LCORE", "0")))
    ap.add_argument("--settle-ms", type=float, default=60,
                    help="quiet time after the expected frames arrived (default 60)")
    ap.add_argument("--nothing-ms", type=float, default=150,
                    help="how long a step that expects nothing listens (default 150)")
    ap.add_argument("--max-wait-ms", type=float, default=1500,
                    help="longest wait for expected frames (default 1500)")
    ap.add_argument("--log-dir", default=None, help="keep swswitch logs here")
    ap.add_argument("--retries", type=int, default=0,
                    help="re-run a failed vector up to N times; one that then passes is "
                    "reported as FLAKY (its failed output is kept) and counted as passed")
    ap.add_argument("--verbose", "-v", action="store_true")
    args = ap.parse_args()

    if args.ifaces and args.swswitch:
        ap.error("--ifaces and --swswitch are exclusive")
    if not args.ifaces:
        args.swswitch = find_swswitch(args.swswitch)
        if not args.swswitch:
            print("run_vectors: no swswitch binary (use --swswitch or $SWSWITCH)", file=sys.stderr)
            return 2
        if os.geteuid() != 0:
            print("run_vectors: needs root (veth pairs, raw sockets)", file=sys.stderr)
            return 2

    vdirs = (args.vector + args.more_vectors) or lcfvec.list_vectors(args.vectors_dir)
    vectors = []
    for d in vdirs:
        try:
            vectors.append(lcfvec.load_vector(d))
        except (lcfvec.VectorError, OSError, ValueError, KeyError) as e:
            print("run_vectors: %s: %s" % (d, e), file=sys.stderr)
            return 2
    if args.topology:
        vectors = [v for v in vectors if v["topology"] == os.path.basename(args.topology)]
    if not vectors:
        print("run_vectors: no vector selected", file=sys.stderr)
        return 2
    n_ports = max(v["_topo"].n_ports for v in vectors)

    log_dir = args.log_dir or tempfile.mkdtemp(prefix="lcf-pt-")
    os.makedirs(log_dir, exist_ok=True)
    veths = None
    ports = []
    cleaned = [False]

    def cleanup(*_):
        if cleaned[0]:
            return
        cleaned[0] = True
        for sw in CURRENT_SWITCH:
            sw.kill()
        for p in ports:
            p.close()
        if veths is not None:
            veths.delete()

    def on_signal(signum, _frame):
        cleanup()
        sys.exit(128 + signum)

    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)

    t_start = time.monotonic()
    passed = failed = skipped = 0
    failures = []
    flaky = []
    try:
        if args.ifaces:
            names = args.ifaces.split(",")
            ports = [Port(n) for n in names]
        else:
            stale_cleanup()
            veths = Veths(n_ports)
            ports = [Port(nd) for _, nd in veths.pairs]
            for (sw, nd), p in zip(veths.pairs, ports):
                p.ignore_src = {veths.mac(sw), veths.mac(nd)}
        for v in vectors:
            if args.ifaces and v.get("requires") and args.skip_requires:
                print("SKIP %-48s (requires %s)" % (v["_name"], v["requires"]))
                skipped += 1
                continue
            earlier = []
            for attempt in range(args.retries + 1):
                try:
                    ok, lines, dt = run_vector(v, args, ports, veths, log_dir)
                except lcfvec.VectorError as e:
                    ok, lines, dt = False, ["  vector error: %s" % e], 0.0
                if ok:
                    break
                earlier.append(lines)
            if ok and earlier:
                flaky.append(v["_name"])
                print("FLAKY %-47s %5.2fs (passed on attempt %d; the failed attempts:)" % (
                    v["_name"], dt, len(earlier) + 1))
                for l in earlier[0]:
                    print("  " + l)
            else:
                print("%s %-48s %5.2fs" % ("PASS" if ok else "FAIL", v["_name"], dt))
            for l in lines:
                print(l)
            sys.stdout.flush()
            if ok:
                passed += 1
            else:
                failed += 1
                failures.append(v["_name"])
    finally:
        cleanup()
    total = passed + failed
    print("%d/%d vectors passed%s in %.1fs" % (
        passed, total, (" (%d skipped)" % skipped) if skipped else "",
        time.monotonic() - t_start))
    if flaky:
        print("flaky (failed, then passed on retry): " + " ".join(flaky))
    if failures:
        print("failed: " + " ".join(failures))
        if not args.ifaces:
            print("swswitch logs: " + log_dir)
    elif not args.log_dir:
        subprocess.run(["rm", "-rf", log_dir])
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
