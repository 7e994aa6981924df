#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One run of a program on every node of a namespace cluster, for the
benchmark drivers (bench_e2e.py, bench_apps.py).

Cluster(topo, build).run(outdir, argv_of, nodes, timeout) brings a fresh
cluster up (scripts/cluster.sh up --force), starts argv_of(n) in node n's
namespace for each n in `nodes`, waits for all of them (SIGINT, then
SIGKILL, past `timeout` seconds: exit status 124), stops swswitch with
SIGINT so that it prints its statistics (kept as outdir/swswitch.json), and
takes the cluster down. Each node's stdout and stderr go to
outdir/node-N.out and outdir/node-N.log. With cpu_from (node -> a file
the program writes as its measured phase starts), each node process's CPU
time (user + system, from /proc, sampled every 50 ms) from that file's
appearance to its exit goes to outdir/cpu.json, {node: seconds}, and its
threads' voluntary context switches (each a thread that blocked and was
woken) to outdir/wakeups.json, {node: [all threads, the dispatch thread]}.
"""

import json
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def dedicate(pin=True, nice=-10):
    """Run the clusters this process starts as a DPDK switch expects its
    machine, and say so on stdout. pin: swswitch's lcore gets a CPU of its
    own, the nodes the others (scripts/cluster.sh --pin); sharing a CPU
    with the nodes, the busy-polling lcore gets a time slice and every frame
    waits for it. nice: this process's scheduling group (autogroup), which
    the nodes share and swswitch copies: the kernel gives each session's
    group a fair share whatever its processes' nice values, so one
    background job in another session takes as much CPU as the whole
    cluster."""
    if pin:
        os.environ["SWCL_PIN"] = "1"
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(nice))
        group = "scheduling group nice %d" % nice
    except OSError as e:
        group = "scheduling group unchanged (%s)" % e.strerror
    print("cluster: %s, %s" % (
        "swswitch on a CPU of its own" if pin else "CPUs shared", group),
        flush=True)


def history_checker(build):
    """The history checker's argv: build's check-history (the C build) when
    built, else check_history.py (the reference: the same arguments, output
    and exit codes)."""
    c = os.path.join(build, "node-agent", "checker", "check-history")
    if os.access(c, os.X_OK):
        return [c]
    return [sys.executable, os.path.join(os.path.dirname(HERE), "node-agent",
                                         "checker", "check_history.py")]


class Cluster:
    def __init__(self, topo, build, sw_args=None):
        self.topo = topo
        self.sw_args = sw_args or []
        self.build = build
        self.script = os.path.join(HERE, "cluster.sh")
        self.swswitch = os.path.join(build, "swswitch", "swswitch")
        with open(topo) as f:
            self.nodes = [n["id"] for n in json.load(f)["nodes"]]
        self.run_dir = os.environ.get(
            "SWCL_RUN_DIR",
            "/tmp/swswitch-cluster" + os.environ.get("SWCL_ID", ""))

    def up(self, log):
        with open(log, "w") as f:
            extra = ["--sw-args", " ".join(self.sw_args)] \
                if self.sw_args else []
            subprocess.run([self.script, "up", self.topo, "--swswitch",
                            self.swswitch, "--force"] + extra, stdout=f,
                           stderr=subprocess.STDOUT, check=True)

    def down(self, outdir=None):
        """Stop swswitch with SIGINT (it prints its statistics), tear down."""
        try:
            with open(os.path.join(self.run_dir, "swswitch.pid")) as f:
                pid = int(f.read().strip())
            os.kill(pid, 2)
            for _ in range(50):
                os.kill(pid, 0)
                time.sleep(0.1)
        except (OSError, ValueError):
            pass
        src = os.path.join(self.run_dir, "swswitch.out")
        if outdir and os.path.exists(src):
            with open(src) as f, \
                    open(os.path.join(outdir, "swswitch.json"), "w") as g:
                g.write(f.read())
        subprocess.run([self.script, "down"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)

    def exec_argv(self, n, argv):
        return [self.script, "exec", str(n)] + list(argv)

    @staticmethod
    def _cpu_s(pid):
        """A process's user + system CPU seconds; None once it is gone."""
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    @staticmethod
    def _sleeps(pid):
        """A process's voluntary context switches per thread, {tid: (n,
        name)} (each a thread that blocked and was woken); None once it is
        gone."""
        n = {}
        try:
            for t in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/status" % (pid, t)) as f:
                    st = dict(line.split(":", 1) for line in f)
                n[t] = (int(st["voluntary_ctxt_switches"]),
                        st["Name"].strip())
        except (OSError, KeyError, ValueError):
            return None
        return n

    def _sample_cpu(self, procs, cpu_from, stop, outdir):
        """CPU seconds (cpu.json) and voluntary context switches
        (wakeups.json: all threads', and libdsm's dispatch threads',
        "na-dispatch") of each node from cpu_from(n)'s appearance to its
        last sample (cluster.sh exec execs the program: the pid is its).
        Switches are kept per thread: a thread that exits keeps its last
        sample."""
        start, last, sw0, sw = {}, {}, {}, {}
        while not stop.is_set():
            for n, p in procs.items():
                c = self._cpu_s(p.pid) if p.poll() is None else None
                w = self._sleeps(p.pid) if c is not None else None
                if c is None or w is None:
                    continue
                last[n] = c
                sw.setdefault(n, {}).update(w)
                if n not in start and os.path.exists(cpu_from(n)):
                    start[n], sw0[n] = c, dict(w)
            stop.wait(0.05)
        with open(os.path.join(outdir, "cpu.json"), "w") as f:
            json.dump({n: round(last[n] - start[n], 3) for n in start}, f)

        def woken(n, dispatch):
            return sum(v - sw0[n].get(t, (0, ""))[0]
                       for t, (v, name) in sw[n].items()
                       if not dispatch or name == "na-dispatch")
        with open(os.path.join(outdir, "wakeups.json"), "w") as f:
            json.dump({n: [woken(n, False), woken(n, True)]
                       for n in start}, f)

    def run(self, outdir, argv_of, nodes=None, timeout=60, cpu_from=None):
        """Every node's exit status, {node: rc}."""
        nodes = self.nodes if nodes is None else nodes
        os.makedirs(outdir, exist_ok=True)
        self.up(os.path.join(outdir, "cluster-up.log"))
        procs = {}
        stop = threading.Event()
        sampler = None
        try:
            for n in nodes:
                procs[n] = subprocess.Popen(
                    self.exec_argv(n, argv_of(n)),
                    stdout=open(os.path.join(outdir, "node-%d.out" % n), "w"),
                    stderr=open(os.path.join(outdir, "node-%d.log" % n), "w"))
            if cpu_from:
                sampler = threading.Thread(target=self._sample_cpu, args=(
                    procs, cpu_from, stop, outdir))
                sampler.start()
            deadline = time.time() + timeout
            rcs = {}
            for n, p in procs.items():
                try:
                    rcs[n] = p.wait(timeout=max(1, deadline - time.time()))
                except subprocess.TimeoutExpired:
                    p.send_signal(2)
                    try:
                        rcs[n] = p.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        p.kill()
                        rcs[n] = p.wait()
                    rcs[n] = rcs[n] or 124
            return rcs
        finally:
            stop.set()
            if sampler:
                sampler.join()
            for p in procs.values():
                if p.poll() is None:
                    p.kill()
                    p.wait()
            self.down(outdir)
