#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""
run_flood.py: the robustness flood through the real swswitch.

1. gen_flood.py writes N random/mutated frames over the 3 ports of
   topo/pcap3.json, preceded (port 0) by a few valid frames that build state.
2. Baseline: swswitch replays only the valid prefix (net_pcap rx_pcap per
   port, tx_pcap=/dev/null, --idle-exit) and prints its exit JSON.
3. Flood: swswitch replays prefix + flood the same way.
4. Asserts: both runs exit 0; every port received every frame; the drop
   counters of the flood run sum to the number of LCF-port flood frames and,
   per reason, equal what docs/PROTOCOL.md section 3 gives each frame
   (computed by gen_flood.validate); the pipeline action counters (other than
   "drop") and the register digest equal the baseline's, i.e. the flood
   changed no register.

usage: run_flood.py [--swswitch PATH] [--frames N] [--seed S] [--out DIR]
                    [--lenient-reasons]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import lcfvec  # noqa: E402


def run_switch(binary, topo, pcaps, lcore, log):
    prefix = "lcffl%d" % os.getpid()
    cmd = [binary, "--no-huge", "-m", "512", "-l", str(lcore), "--no-pci",
           "--file-prefix", prefix, "--log-level", "swswitch,notice"]
    for i, p in enumerate(pcaps):
        cmd += ["--vdev", "net_pcap%d,rx_pcap=%s,tx_pcap=/dev/null" % (i, p)]
    cmd += ["--", "--topo", topo, "--idle-exit", "500", "--mbufs", "16383"]
    cmd += os.environ.get("SWSWITCH_TEST_ARGS", "").split()  # scripts/test.sh
    t0 = time.monotonic()
    with open(log, "w") as lf:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=lf, text=True, timeout=600)
    dt = time.monotonic() - t0
    subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix])
    try:
        stats = json.loads(r.stdout)
    except ValueError:
        stats = None
    return r.returncode, stats, dt, cmd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--swswitch", default=os.environ.get("SWSWITCH"))
    ap.add_argument("--frames", type=int, default=int(os.environ.get("FLOOD_FRAMES", "200000")))
    ap.add_argument("--seed", type=int, default=7340)
    ap.add_argument("--out", help="keep the pcaps here (default: a temp dir, removed)")
    ap.add_argument("--lcore", type=int, default=int(os.environ.get("SWSWITCH_LCORE", "0")))
    ap.add_argument("--lenient-reasons", action="store_true",
                    help="report, but do not fail on, per-reason differences")
    a = ap.parse_args()
    if not a.swswitch or not os.access(a.swswitch, os.X_OK):
        print("run_flood: no swswitch binary (--swswitch or $SWSWITCH)", file=sys.stderr)
        return 2
    out = a.out or tempfile.mkdtemp(prefix="lcf-flood-")
    os.makedirs(out, exist_ok=True)
    topo = os.path.join(lcfvec.ROOT, "topo", "pcap3.json")
    n_ports = lcfvec.Topo(topo).n_ports

    t0 = time.monotonic()
    r = subprocess.run([sys.executable, os.path.join(HERE, "gen_flood.py"), "--frames",
                        str(a.frames), "--seed", str(a.seed), out])
    if r.returncode != 0:
        return 2
    t_gen = time.monotonic() - t0
    with open(os.path.join(out, "expect.json")) as f:
        exp = json.load(f)

    rc_b, base, t_b, _ = run_switch(a.swswitch, topo, [os.path.join(out, "prefix_port%d.pcap" % p)
                                                       for p in range(n_ports)],
                                    a.lcore, os.path.join(out, "baseline.log"))
    rc_f, flood, t_f, cmd = run_switch(a.swswitch, topo, [os.path.join(out, "port%d.pcap" % p)
                                                          for p in range(n_ports)],
                                       a.lcore, os.path.join(out, "flood.log"))
    fails = []

    def check(cond, msg):
        print("  %s %s" % ("ok  " if cond else "FAIL", msg))
        if not cond:
            fails.append(msg)
        return cond

    print("flood: %d frames (%d LCF-port, all malformed; %d other) after %d valid frames, seed %d" % (
        exp["frames"], exp["lcf_frames"], exp["junk_frames"], exp["valid_prefix_frames"], a.seed))
    print("  generate %.1fs, baseline run %.1fs, flood run %.1fs (incl. 0.5s idle exit)" % (
        t_gen, t_b, t_f))
    print("  " + " ".join(cmd))
    check(rc_b == 0 and base is not None, "baseline swswitch exited 0 with statistics (status %s)" % rc_b)
    check(rc_f == 0 and flood is not None, "flood swswitch exited 0 with statistics (status %s)" % rc_f)
    if base is None or flood is None:
        print("run_flood: FAILED (logs in %s)" % out)
        return 1

    rx = sum(flood.get("port%d" % p, {}).get("rx", 0) for p in range(n_ports))
    check(rx == exp["frames"] + exp["valid_prefix_frames"],
          "every frame received: rx %d == %d" % (rx, exp["frames"] + exp["valid_prefix_frames"]))
    bd = base.get("drops", {})
    fd = flood.get("drops", {})
    check(sum(bd.values()) == 0, "baseline (valid frames only) dropped nothing (%d)" % sum(bd.values()))
    total = sum(fd.values()) - sum(bd.values())
    check(total == exp["lcf_frames"], "sum of drop counters %d == LCF-port flood frames %d" % (
        total, exp["lcf_frames"]))
    diffs = []
    for k in sorted(set(exp["drops"]) | {k for k, v in fd.items() if v}):
        want = exp["drops"].get(k, 0)
        got = fd.get(k, 0) - bd.get(k, 0)
        print("      %-38s expected %8d  got %8d%s" % (k, want, got, "" if want == got else "   <--"))
        if want != got:
            diffs.append(k)
    ok = check(not diffs, "per-reason drop counts match PROTOCOL.md section 3" +
               (" (differ: %s)" % ", ".join(diffs) if diffs else ""))
    if not ok and a.lenient_reasons:
        fails.pop()
        print("       (--lenient-reasons: not counted as a failure)")
    ba = {k: v for k, v in base.get("actions", {}).items() if k != "drop"}
    fa = {k: v for k, v in flood.get("actions", {}).items() if k != "drop"}
    check(ba == fa, "pipeline actions equal the baseline's (no flood frame was processed)%s" % (
        "" if ba == fa else ": " + ", ".join("%s %s->%s" % (k, ba.get(k), fa.get(k))
                                             for k in sorted(set(ba) | set(fa))
                                             if ba.get(k) != fa.get(k))))
    check(base.get("digest") == flood.get("digest") and base.get("digest") is not None,
          "register digest unchanged by the flood: %s == %s" % (base.get("digest"), flood.get("digest")))
    blocks = base.get("pipeline", {}).get("blocks")
    print("  state kept through the flood: %s blocks installed, actions %s" % (
        blocks, ", ".join("%s=%d" % kv for kv in sorted(ba.items()) if kv[1])))
    up = flood.get("switch", {}).get("uptime_ms")
    if up and up > 500:
        print("  forwarding time %.0f ms for %d frames (~%.2f Mpps from pcap, uptime minus "
              "the 500 ms idle exit)" % (up - 500, rx, rx / ((up - 500) / 1000.0) / 1e6))
    if not a.out:
        subprocess.run(["rm", "-rf", out])
    print("run_flood: %s" % ("PASSED" if not fails else "FAILED (%d checks)" % len(fails)))
    return 0 if not fails else 1


if __name__ == "__main__":
    sys.exit(main())
