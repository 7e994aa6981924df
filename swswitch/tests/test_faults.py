#!/usr/bin/env python3
"""Fault injection in the real swswitch (net_pcap ports, --no-huge).

1000 READ_MISS frames for blocks the switch does not own enter port 0 and go
to their home node on port 1. Each case checks the exit statistics and the
frames that left port 1:
  drop 50% out   -> out_drop + tx == 1000, roughly half dropped
  dup 10% in     -> 1000 + in_dup frames out, every one processed
  delay 30% in   -> all 1000 out, and the delayed ones overtaken (reordered)
  bad spec       -> refused at start-up, naming the spec
  dup 100% in, 64 ADD_TO_SWITCH -> bursts of 64 first passes, each
                    resubmitted: every second pass runs (none lost as
                    bad_resubmit_metadata, which strands a lock), each copy
                    answered, and the port counters count frames
Usage: test_faults.py SWSWITCH_BINARY
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

TOPO = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "..", "..", "topo", "pcap2.json")
N = 1000


def frame(seq, tag, typ=1):
    lcf = struct.pack(">BBBBHHIIQHHI", 1, typ, 0, 0, 0, 0, seq, 0, tag, 0, 0, 0)
    udp = struct.pack(">HHHH", 7340, 7340, 8 + len(lcf), 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp) + len(lcf), 0,
                     0x4000, 64, 17, 0, bytes([10, 0, 0, 1]),
                     bytes([10, 0, 0, 2]))
    return (bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1]) + b"\x08\x00" + ip +
            udp + lcf)


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)


def read_seqs(path):
    data = open(path, "rb").read()
    off, seqs = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack("<IIII", data[off:off + 16])[2]
        fr = data[off + 16:off + 16 + incl]
        off += 16 + incl
        seqs.append(struct.unpack(">I", fr[42 + 8:42 + 12])[0])
    return seqs


def run(sw, d, fault_args):
    cmd = [sw, "--no-huge", "-l", "0", "--no-pci", "--log-level=error",
           "--file-prefix", "ftest%d" % os.getpid(),
           "--vdev", "net_pcap0,rx_pcap=%s/in0.pcap,tx_pcap=%s/out0.pcap" % (d, d),
           "--vdev", "net_pcap1,rx_pcap=%s/in1.pcap,tx_pcap=%s/out1.pcap" % (d, d),
           "--", "--topo", TOPO, "--idle-exit", "300", "--fault-seed", "7"]
    cmd += os.environ.get("SWSWITCH_TEST_ARGS", "").split()  # scripts/test.sh
    for spec in fault_args:
        cmd += ["--fault", spec]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return p


def main():
    sw = sys.argv[1]
    failures = []

    def check(name, cond, detail):
        print("%-5s %s: %s" % ("ok" if cond else "FAIL", name, detail))
        if not cond:
            failures.append(name)

    with tempfile.TemporaryDirectory() as d:
        write_pcap(d + "/in0.pcap", [frame(i + 1, (1 << 36) | i) for i in range(N)])
        write_pcap(d + "/in1.pcap", [])

        p = run(sw, d, ["drop:requests:out:0.5"])
        st = json.loads(p.stdout)
        f, tx = st["faults"], st["port1"]["tx"]
        check("drop", p.returncode == 0 and f["out_drop"] + tx == N and
              400 < f["out_drop"] < 600 and len(read_seqs(d + "/out1.pcap")) == tx,
              "out_drop=%d tx=%d" % (f["out_drop"], tx))

        p = run(sw, d, ["dup:all:in:0.1"])
        st = json.loads(p.stdout)
        f, tx = st["faults"], st["port1"]["tx"]
        check("dup", p.returncode == 0 and 50 < f["in_dup"] < 150 and
              tx == N + f["in_dup"] and
              st["actions"]["tag_miss_to_home"] == N + f["in_dup"],
              "in_dup=%d tx=%d" % (f["in_dup"], tx))

        p = run(sw, d, ["delay:all:in:0.3"])
        st = json.loads(p.stdout)
        f, seqs = st["faults"], read_seqs(d + "/out1.pcap")
        inversions = sum(1 for a, b in zip(seqs, seqs[1:]) if b < a)
        check("delay", p.returncode == 0 and f["in_delay"] > 200 and
              sorted(seqs) == list(range(1, N + 1)) and inversions > 0,
              "in_delay=%d out=%d inversions=%d" % (f["in_delay"], len(seqs),
                                                  inversions))

        # Node 0 moves 64 of its own blocks to the (16-slot) switch; each
        # ADD and its duplicate resubmit in the same burst, and every copy's
        # second pass answers it (MIGRATE_ACK; mirrored to the shadow).
        write_pcap(d + "/in0.pcap", [frame(i + 1, i, 8) for i in range(64)])
        p = run(sw, d, ["dup:all:in:1"])
        if p.returncode != 0:  # a queue overflow corrupts the worker
            check("dup of a burst of resubmits", False,
                  "exit %d %s" % (p.returncode, p.stderr.strip()[-200:]))
        else:
            st = json.loads(p.stdout)
            a, pl = st["actions"], st["pipeline"]
            done = sum(a.get("add_to_switch_" + k, 0)
                       for k in ("ok", "duplicate", "collision"))
            check("dup of a burst of resubmits",
                  st["faults"]["in_dup"] == 64 and pl["passes"] == 256 and
                  pl["resubmits"] == 128 and pl["drops"] == 0 and
                  done == 128 and st["port0"]["rx"] == 64 and
                  st["port0"]["tx"] == 128 and st["port1"]["tx"] == 128 and
                  st["port0"]["tx_dropped"] == 0,
                  "passes=%d resubmits=%d drops=%d ADDs answered %d, "
                  "port0 rx=%d tx=%d" % (
                      pl["passes"], pl["resubmits"], pl["drops"], done,
                      st["port0"]["rx"], st["port0"]["tx"]))

        p = run(sw, d, ["drop:bogus:out:0.1"])
        check("bad spec refused", p.returncode != 0 and "bogus" in p.stderr,
              p.stderr.strip().splitlines()[0] if p.stderr else "")

        p = run(sw, d, ["drop:all:out:1.5"])
        check("bad probability refused", p.returncode != 0 and "1.5" in p.stderr,
              p.stderr.strip().splitlines()[0] if p.stderr else "")

    if failures:
        print("fault tests FAILED: %s" % ", ".join(failures))
        return 1
    print("fault tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
