#!/usr/bin/env python3
"""Turn pcap files into libFuzzer seeds for fuzz_pipeline.

Each seed is one pcap's frames as records [port:1][len:1][frame], in file
order. The port is the frame's LCF node id when it has one (requests enter on
their node's port), else 0. Frames longer than 255 bytes are cut, which the
harness sees as truncated frames.
"""
import os
import struct
import sys


def frames(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = struct.unpack("<I", data[:4])[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(endian + "IIII", data[off:off + 16])
        off += 16
        yield data[off:off + incl]
        off += incl


def port_of(frame):
    if len(frame) >= 14 + 20 + 8 + 6 and frame[12:14] == b"\x08\x00":
        ihl = (frame[14] & 0x0F) * 4
        lcf = 14 + ihl + 8
        if len(frame) >= lcf + 6:
            return struct.unpack(">H", frame[lcf + 4:lcf + 6])[0] & 0xFF
    return 0


# A seed's first frames only: a vector with a repeat (pcap-tests 129, 2^16
# requests) would make a 6 MB seed, and libFuzzer's max_len with it.
MAX_FRAMES = 512


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: seed_corpus.py OUT_DIR PCAP...")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sys.argv[2:]:
        rec = bytearray()
        for k, fr in enumerate(frames(path)):
            if k == MAX_FRAMES:
                break
            fr = fr[:255]
            rec += bytes([port_of(fr), len(fr)]) + fr
        if rec:
            with open(os.path.join(out, "seed%04d" % n), "wb") as f:
                f.write(rec)
            n += 1
    print("seed_corpus: %d seeds from %d pcaps" % (n, len(sys.argv) - 2))


if __name__ == "__main__":
    main()
