#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Measure the `local` profile of na-sim's cost model on this machine
(docs/SIMULATION.md "Cost model"). Prints each figure and how it was
obtained; the figures are then fixed in node-agent/sim/na_sim_cost.c.

  sudo scripts/sim_measure_local.py [--build build] [--skip-ping]

1. hop latency: ICMP ping between two nodes of a namespace cluster
   (scripts/cluster.sh, topo/demo2.json) through swswitch; a round trip
   is four hops (node-switch-node, twice): hop = median RTT / 4.
2. per-frame CPU: a UDP ping-pong between two processes over loopback
   (sendto, a blocking recv that wakes the thread) and a send-only loop;
   tx = a sendto's CPU, the one-way exchange minus tx is what receiving
   costs (recv and the wake-up).
3. instructions: callgrind over `na-sim --app kv` (2 nodes): instructions
   per frame a node receives (na_node_receive, inclusive) and per DSM call
   (the requester's code, node-agent/api, self), and instructions per ns of
   this CPU: the same run's instructions over its user CPU time without
   valgrind.
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
N_PONG = 20000


def ping_rtts_us(swswitch=None):
    """Every ping RTT (us) through swswitch, node 0 to node 1."""
    env = dict(os.environ, SWCL_ID=os.environ.get("SWCL_ID", "m"))
    cl = os.path.join(HERE, "cluster.sh")
    sw = ["--swswitch", swswitch] if swswitch else []
    subprocess.run([cl, "up", os.path.join(REPO, "topo", "demo2.json"),
                    "--force"] + sw, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    try:
        out = subprocess.run([cl, "exec", "0", "ping", "-c", "200", "-i",
                              "0.005", "10.0.0.2"], env=env,
                             capture_output=True, text=True).stdout
    finally:
        subprocess.run([cl, "down"], env=env, stdout=subprocess.DEVNULL)
    return [float(m) * 1000 for m in re.findall(r"time=([0-9.]+) ms", out)]


def echo_server(port, n):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    for _ in range(n):
        b, a = s.recvfrom(2048)
        s.sendto(b, a)


def udp_costs_ns():
    port = 47000 + os.getpid() % 1000
    pid = os.fork()
    if pid == 0:
        echo_server(port, N_PONG)
        os._exit(0)
    time.sleep(0.2)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    msg = b"x" * 96  # an LCF header and a small payload
    rtts = []
    for _ in range(N_PONG):
        t = time.perf_counter_ns()
        s.sendto(msg, ("127.0.0.1", port))
        s.recvfrom(2048)
        rtts.append(time.perf_counter_ns() - t)
    os.waitpid(pid, 0)
    # sendto alone, to a port nobody reads (the kernel drops the frame
    # after the same send path).
    t0 = time.process_time_ns()
    for _ in range(N_PONG):
        s.sendto(msg, ("127.0.0.1", 9))
    tx = (time.process_time_ns() - t0) / N_PONG
    return statistics.median(rtts) / 2, tx


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
    "op_ns"} and what they were derived from ("rtts_us", ...)."""
    f = {}
    if ping:
        f["rtts_us"] = ping_rtts_us(swswitch)
        if not f["rtts_us"]:
            raise RuntimeError("ping through swswitch: no reply")
        rtt = statistics.median(f["rtts_us"])
        f["hop_ns"] = round(rtt * 1000 / 4)
        log("ping through swswitch: median RTT %.1f us over %d -> "
            "hop_ns %d" % (rtt, len(f["rtts_us"]), f["hop_ns"]))
    one_way, tx = udp_costs_ns()
    log("UDP loopback ping-pong: one way %.0f ns; sendto CPU %.0f ns -> "
        "tx %.0f, receive and wake-up %.0f ns" % (one_way, tx, tx,
                                                   one_way - tx))
    cg = callgrind(build)
    ipn = cg["instr_total"] / cg["cpu_ns_native"]
    log("callgrind: %.0f instructions per frame received, %.0f per DSM "
        "call; %.2f instructions per ns (%d instructions, %.0f ms CPU "
        "native)" % (cg["rx_instr"], cg["app_instr"], ipn,
                     cg["instr_total"], cg["cpu_ns_native"] / 1e6))
    f.update({"tx_ns": round(tx), "rx_ns": round(one_way - tx +
                                                  cg["rx_instr"] / ipn),
              "op_ns": round(cg["app_instr"] / ipn), "one_way_ns": one_way,
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
    log("-> rx_ns %d (receive, wake-up, agent), op_ns %d; paper "
        "(2.2 GHz, 1 instruction per cycle): agent %.0f ns, op %.0f ns" %
        (f["rx_ns"], f["op_ns"], cg["rx_instr"] / 2.2,
         cg["app_instr"] / 2.2))
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--skip-ping", action="store_true")
    a = ap.parse_args()
    measure(a.build, ping=not a.skip_ping)
    return 0


if __name__ == "__main__":
    sys.exit(main())
