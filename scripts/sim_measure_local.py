#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Measure the `local` profile of na-sim's cost model on this machine
(docs/SIMULATION.md "Cost model"). Prints each figure and how it was
obtained; the figures are then fixed in node-agent/sim/na_sim_cost.c.

  sudo scripts/sim_measure_local.py [--build build] [--skip-ping]

1. hop latency: ICMP ping between two nodes of a namespace cluster
   (scripts/cluster.sh --pin, topo/demo2.json) through swswitch; a round
   trip is four hops (node-switch-node, twice): hop = median RTT / 4.
2. per-frame CPU on the nodes' own path, in the same cluster: UDP between
   node 0 and node 1 through swswitch, both on the nodes' CPU. A node's
   CPU per frame echoed in bursts of K (it sends and receives each frame,
   and sleeps once a burst) is fitted as a + w / K over K = 1..16: `a` a
   frame's send and receive, `w` a wake-up (poll() asleep, woken by the
   frame: on this VM an interrupt from swswitch's CPU); and a send-only
   loop gives a send's CPU. tx = the send, rx = a - tx, wake = w.
3. instructions: callgrind over `na-sim --app kv` (2 nodes): instructions
   per frame a node receives (na_node_receive, inclusive) and per DSM call
   (the requester's code, node-agent/api, self), and instructions per ns of
   this CPU: the same run's instructions over its user CPU time without
   valgrind. rx_ns adds the agent's instructions per frame to rx.

Python's own cost per send or receive (~1 us) is in the figures.
"""
import argparse
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


PATH_PORT = 47123
PATH_KS = (1, 2, 4, 8, 16)
PATH_FRAMES = 8000


def peer_server():
    """Node 1's side of step 2: echo every frame; answer a mark with this
    process's CPU ns; a second socket that nobody reads sinks the
    send-only loop."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", PATH_PORT))
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("0.0.0.0", PATH_PORT + 1))
    while True:
        b, a = s.recvfrom(2048)
        if b == b"quit":
            return
        if b == b"mark":
            b = b"%d" % time.process_time_ns()
        s.sendto(b, a)


def peer_client(host):
    """Node 0's side of step 2; prints JSON: per K, each side's CPU ns per
    frame; and a send's CPU ns."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    dst = (host, PATH_PORT)
    msg = b"x" * 96  # an LCF header and a small payload

    def mark():
        s.sendto(b"mark", dst)
        return int(s.recvfrom(64)[0])

    for _ in range(200):
        s.sendto(msg, dst)
        s.recvfrom(2048)
    out = {"k": {}}
    for k in PATH_KS:
        rounds = PATH_FRAMES // k
        srv, own = mark(), time.process_time_ns()
        for _ in range(rounds):
            for _ in range(k):
                s.sendto(msg, dst)
            for _ in range(k):
                s.recvfrom(2048)
        own, srv = time.process_time_ns() - own, mark() - srv
        out["k"][k] = [own / (rounds * k), srv / (rounds * k)]
    t = time.process_time_ns()
    for _ in range(PATH_FRAMES):
        s.sendto(msg, (host, PATH_PORT + 1))
    out["send_ns"] = (time.process_time_ns() - t) / PATH_FRAMES
    s.sendto(b"quit", dst)
    print(json.dumps(out))


def fit_wake(per_k):
    """Least squares of cost = a + w / K: (a, w)."""
    xs = [1 / k for k in per_k]
    ys = list(per_k.values())
    mx, my = statistics.mean(xs), statistics.mean(ys)
    w = (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
         sum((x - mx) ** 2 for x in xs))
    return my - w * mx, w


def cluster_costs(swswitch=None, ping=True):
    """Steps 1 and 2 in one pinned demo2 cluster: every ping RTT (us) and
    the path's per-K CPU and send CPU (peer_client's JSON)."""
    env = dict(os.environ, SWCL_ID=os.environ.get("SWCL_ID", "m"))
    cl = os.path.join(HERE, "cluster.sh")
    sw = ["--swswitch", swswitch] if swswitch else []
    me = os.path.abspath(__file__)
    subprocess.run([cl, "up", os.path.join(REPO, "topo", "demo2.json"),
                    "--force", "--pin"] + sw, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    try:
        rtts = []
        if ping:
            out = subprocess.run([cl, "exec", "0", "ping", "-c", "200",
                                  "-i", "0.005", "10.0.0.2"], env=env,
                                 capture_output=True, text=True).stdout
            rtts = [float(m) * 1000
                    for m in re.findall(r"time=([0-9.]+) ms", out)]
        srv = subprocess.Popen([cl, "exec", "1", sys.executable, me,
                                "--peer", "server"], env=env)
        try:
            time.sleep(0.5)
            out = subprocess.run([cl, "exec", "0", sys.executable, me,
                                  "--peer", "10.0.0.2"], env=env,
                                 capture_output=True, text=True, check=True,
                                 timeout=300).stdout
        finally:
            try:
                srv.wait(timeout=5)
            except subprocess.TimeoutExpired:
                srv.kill()
    finally:
        subprocess.run([cl, "down"], env=env, stdout=subprocess.DEVNULL)
    path = json.loads(out)
    path["k"] = {int(k): v for k, v in path["k"].items()}
    return rtts, path


# Each app's run under callgrind: the requester's instructions per DSM call
# differ by app (a PageRank rank read is a short hit, a kv bucket longer).
CALLGRIND_APPS = {
    "kv": ["--", "--workload", "get95", "--keys", "100000"],
    "tpcc": ["--", "--dist-ratio", "0.1"],
    "pagerank": ["--", "--scale", "13", "--iterations", "2"],
}


def callgrind(build, app_name="kv"):
    exe = os.path.join(build, "node-agent", "na-sim")
    args = ["--app", app_name, "--nodes", "2", "--threads", "2",
            "--duration", "0.01", "--profile", "local", "--seed", "1"]
    app = CALLGRIND_APPS[app_name]
    with tempfile.TemporaryDirectory() as d:
        t0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([exe] + args + ["--out", d + "/n"] + app,
                       check=True, stdout=subprocess.DEVNULL)
        t1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        # User time only: the system time is the kernel zeroing the
        # nodes' memory, which callgrind does not count.
        cpu_ns = (t1.ru_utime - t0.ru_utime) * 1e9
        cg = d + "/cg.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file="
                        + cg, exe] + args + ["--out", d + "/c"] + app,
                       check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(d + "/c/sim.json") as f:
            sim = json.load(f)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes",
                              "--threshold=100", cg], capture_output=True,
                             text=True).stdout
        own = subprocess.run(["callgrind_annotate", "--threshold=100", cg],
                             capture_output=True, text=True).stdout
    # The requester's code per DSM call: self instructions of
    # node-agent/api (inclusive counts are not usable there: a coroutine
    # switch inside a call confuses callgrind's call tree; na_node_receive
    # never switches, so its inclusive count is).
    api = sum(int(m.group(1).replace(",", "")) for m in re.finditer(
        r"^\s*([0-9,]+) \([^)]*\)\s+\S*node-agent/api/", own, re.M))
    incl = {}
    total = None
    for line in ann.splitlines():
        m = re.match(r"\s*([0-9,]+) .*?\s+(\S+?)(?: \[.*\])?$", line)
        if not m:
            continue
        v = int(m.group(1).replace(",", ""))
        fn = m.group(2).split(":")[-1]
        if "PROGRAM TOTALS" in line:
            total = v
        incl.setdefault(fn, v)
    if total is None:
        total = max(incl.values())
    return {
        "instr_total": total,
        "cpu_ns_native": cpu_ns,
        # na_node_receive_at: what na_node_receive() calls, by its time.
        "rx_instr": (incl.get("na_node_receive_at") or
                     incl.get("na_node_receive", 0)) /
        sim["net"]["delivered"],
        "app_instr": api / sim["cost"]["app_calls"],
    }


def measure(build, ping=True, swswitch=None, log=print, per_app=False):
    """The `local` figures measured now: {"hop_ns", "tx_ns", "rx_ns",
    "wake_ns", "op_ns"} and what they were derived from ("rtts_us",
    ...)."""
    f = {}
    rtts, path = cluster_costs(swswitch, ping)
    if ping:
        f["rtts_us"] = rtts
        if not f["rtts_us"]:
            raise RuntimeError("ping through swswitch: no reply")
        rtt = statistics.median(f["rtts_us"])
        f["hop_ns"] = round(rtt * 1000 / 4)
        log("ping through swswitch: median RTT %.1f us over %d -> "
            "hop_ns %d" % (rtt, len(f["rtts_us"]), f["hop_ns"]))
    # Both nodes' fits, averaged: each sends and receives every frame.
    fits = [fit_wake({k: v[i] for k, v in path["k"].items()})
            for i in (0, 1)]
    a = statistics.mean(x[0] for x in fits)
    wake = statistics.mean(x[1] for x in fits)
    tx = path["send_ns"]
    log("UDP through swswitch, CPU ns per frame echoed in bursts of K "
        "(node 0 / node 1): %s; fit a + w/K: a %.0f, w %.0f; a send %.0f "
        "-> tx %.0f, receive %.0f, wake %.0f" % (
            ", ".join("K=%d %.0f/%.0f" % (k, v[0], v[1])
                      for k, v in sorted(path["k"].items())),
            a, wake, tx, tx, a - tx, wake))
    cg = callgrind(build)
    ipn = cg["instr_total"] / cg["cpu_ns_native"]
    log("callgrind: %.0f instructions per frame received, %.0f per DSM "
        "call; %.2f instructions per ns (%d instructions, %.0f ms CPU "
        "native)" % (cg["rx_instr"], cg["app_instr"], ipn,
                     cg["instr_total"], cg["cpu_ns_native"] / 1e6))
    f.update({"tx_ns": round(tx), "rx_ns": round(a - tx +
                                                  cg["rx_instr"] / ipn),
              "wake_ns": round(wake), "path_ns_by_k": path["k"],
              "op_ns": round(cg["app_instr"] / ipn),
              "instr_per_ns": ipn, "rx_instr": cg["rx_instr"],
              "app_instr": cg["app_instr"]})
    if per_app:
        # Each app's own requester instructions per DSM call, at the rate
        # of the kv run above (instruction counts are a function of the
        # build and the seed; the rate is the machine's).
        f["app_instr_by_app"] = {"kv": cg["app_instr"]}
        for name in CALLGRIND_APPS:
            if name != "kv":
                f["app_instr_by_app"][name] = callgrind(
                    build, name)["app_instr"]
        log("instructions per DSM call by app: %s" % ", ".join(
            "%s %.0f" % kv for kv in sorted(f["app_instr_by_app"].items())))
    log("-> rx_ns %d (receive, agent), wake_ns %d, op_ns %d; paper "
        "(2.2 GHz, 1 instruction per cycle): agent %.0f ns, op %.0f ns" %
        (f["rx_ns"], f["wake_ns"], f["op_ns"], cg["rx_instr"] / 2.2,
         cg["app_instr"] / 2.2))
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--skip-ping", action="store_true")
    ap.add_argument("--peer", help=argparse.SUPPRESS)  # step 2's ends
    a = ap.parse_args()
    if a.peer == "server":
        peer_server()
        return 0
    if a.peer:
        peer_client(a.peer)
        return 0
    measure(a.build, ping=not a.skip_ping)
    return 0


if __name__ == "__main__":
    sys.exit(main())
