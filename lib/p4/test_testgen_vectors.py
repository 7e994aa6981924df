#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Unit tests of lib/p4/testgen_vectors.py (p4testgen PTF -> pcap-test vectors)
on lib/p4/testdata/testgen-sample.ptf, a hand-written file in p4testgen's
Tofino PTF format, and of lcfvec's raw_mask expectation.

  python3 -m unittest discover -s lib/p4 -p 'test_testgen*.py'
"""
import contextlib
import copy
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "pcap-tests"))
import lcfvec  # noqa: E402
import testgen_vectors as tv  # noqa: E402

SAMPLE = os.path.join(HERE, "testdata", "testgen-sample.ptf")
TOPO = os.path.join(ROOT, "topo", "pcap3.json")


def load():
    with open(SAMPLE) as f:
        return {t["name"]: t for t in tv.parse_ptf(f.read(), SAMPLE)}


class TestParse(unittest.TestCase):
    def test_reads_every_test_class(self):
        tests = load()
        self.assertEqual(sorted(tests), ["Test%d" % i for i in range(5)])
        t = tests["Test0"]
        self.assertEqual([_e["table"] for _e in t["entries"]], [
            "LcfIngress.prepare.node_tbl", "LcfIngress.prepare.node_port_tbl",
            "LcfIngress.prepare.requester_tbl", "LcfIngress.prepare.home_tbl",
            "pipe.LcfEgress.eg_node"])
        home = t["entries"][3]
        self.assertEqual(home["keys"]["tag"], ("ternary", 0x2000000000, 0xfffffff000000000))
        self.assertEqual(home["data"], {"home": 2, "port": 2})
        self.assertEqual(sorted(t["defaults"]),
                         ["LcfEgress.shadow_cfg", "LcfIngress.prepare.switch_cfg"])
        self.assertEqual(t["registers"], [{"name": "LcfIngress.tag0.tag", "index": 5,
                                           "zero": True}])
        self.assertEqual(t["send"]["port"], 0)
        self.assertEqual(len(t["send"]["pkt"]), 74)
        exp = t["expect"]
        self.assertEqual(exp["port"], 2)
        # set_do_not_care(192, 16): the IPv4 checksum, bytes 24 and 25
        self.assertEqual([i for i, m in enumerate(exp["mask"]) if m != 0xff], [24, 25])
        self.assertEqual(exp["mask"][24:26], b"\0\0")
        self.assertFalse(tests["Test1"]["registers"][0]["zero"])
        self.assertIsNone(tests["Test4"]["expect"])

    def test_bad_input_is_an_error(self):
        with self.assertRaises(tv.TestgenError):
            tv.parse_ptf("class Test0(:\n", "x")
        bad = ("class Test0(AbstractTest):\n    def setupCtrlPlane(self):\n"
               "        self.insertTableEntry('t', [gc.KeyTuple('k', f(1))], 'a', [])\n")
        with self.assertRaisesRegex(tv.TestgenError, "not a literal"):
            tv.parse_ptf(bad, "x")
        bad = ("class Test0(AbstractTest):\n    def verifyPackets(self):\n"
               "        eg_port = 1\n        exp_pkt = b'\\x00'\n"
               "        exp_pkt.set_do_not_care(4, 8)\n")
        with self.assertRaisesRegex(tv.TestgenError, "outside a 1-byte packet"):
            tv.parse_ptf(bad, "x")


class TestTranslate(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cp = tv.topology_control_plane(TOPO)
        cls.tests = load()

    def tr(self, name, test=None):
        return tv.translate(test or self.tests[name], TOPO, self.cp, {0, 1, 2})

    def test_topology_control_plane(self):
        entries, defaults = self.cp
        self.assertEqual(len(entries["LcfIngress.prepare.requester_tbl"]), 3 * 16 * 2)
        self.assertEqual(defaults["LcfEgress.shadow_cfg"], ("set_shadow", {"node": 2, "sid": 1}))
        self.assertNotIn("LcfIngressParser.lcf_port_vs", entries)

    def test_translated(self):
        vec, why = self.tr("Test0")
        self.assertIsNone(why)
        self.assertEqual(vec["topology"], "pcap3.json")
        step = vec["steps"][0]
        self.assertEqual(step["in"]["port"], 0)
        self.assertEqual(step["in"]["raw"], self.tests["Test0"]["send"]["pkt"].hex())
        (e,) = step["expect"]
        self.assertEqual(e["port"], 2)
        self.assertEqual(e["raw_mask"], "ff" * 24 + "0000" + "ff" * 48)
        self.assertEqual(vec["testgen"]["defaults"],
                         ["LcfEgress.shadow_cfg", "LcfIngress.prepare.switch_cfg"])
        self.assertEqual(vec["testgen"]["assumed_miss"],
                         ["LcfIngress.l2.dmac", "LcfIngress.pick.pick_owner",
                          "LcfIngress.pick.pick_provider"])
        vec, why = self.tr("Test4")
        self.assertIsNone(why)
        self.assertEqual(vec["steps"][0]["expect"], "nothing")

    def test_skipped_with_reason(self):
        self.assertEqual(self.tr("Test1"),
                         (None, "register not at power-on: LcfIngress.tag0.tag"))
        self.assertEqual(self.tr("Test2"), (None, "entry not the topology's: "
                                            "LcfIngress.prepare.node_tbl node_exists"))
        self.assertEqual(self.tr("Test3"), (None, "topology default not set by the test: "
                                            "LcfIngress.prepare.switch_cfg"))

    def test_p4testgen_trace_rules(self):
        t = copy.deepcopy(self.tests["Test3"])
        t["trace"] = "[Table Branch: LcfIngress.l2.dmac | Key(s): ...]"
        self.assertIsNotNone(self.tr(None, t)[0])
        t["trace"] += "\n[Table Branch: LcfIngress.prepare.switch_cfg| ...]"
        self.assertIsNone(self.tr(None, t)[0])
        t = copy.deepcopy(self.tests["Test0"])
        t["trace"] = "Computed: ig_tm_md.mcast_grp_a = 2;"
        self.assertEqual(self.tr(None, t),
                         (None, "multicast (PRE) not modelled by p4testgen"))

    def test_entry_with_the_p4_default_is_a_miss(self):
        t = copy.deepcopy(self.tests["Test0"])
        flood = {"table": "pipe.LcfIngress.l2.dmac", "action": "LcfIngress.l2.l2_flood",
                 "keys": {"dst_mac": ("exact", 0x123456)}, "data": {}}
        t["entries"].append(flood)
        self.assertIsNotNone(self.tr(None, t)[0])
        flood["keys"]["dst_mac"] = ("exact", 0x020000000001)  # a topology node's
        self.assertIsNone(self.tr(None, t)[0])

    def test_crc_xors_is_crc32c(self):
        # evaluate the P4 XOR expression on a tag and compare with the CRC
        import random
        rnd = random.Random(7)
        for _ in range(20):
            tag, seed = rnd.getrandbits(64), rnd.getrandbits(32)
            expr = tv.crc_xors([("tag", 8 * i) for i in range(8)], "seed", range(31, 27, -1))
            env = {"tag": tag, "seed": seed}
            bits = [eval("^".join("(%s >> %s & 1)" % (t.split("[")[0], t.split("[")[1].split(":")[0])
                                  for t in b.strip("()").split(" ^ ")), {}, env)
                    for b in expr[1:-1].split(" ++ ")]
            want = tv._crc32c(seed, tag.to_bytes(8, "little")) >> 28
            self.assertEqual(int("".join(map(str, bits)), 2), want)

    def test_assumptions(self):
        cfg, l2 = tv.assumptions(self.cp)
        self.assertIn("md.node_mask == 7", cfg)
        self.assertTrue(l2.startswith("((hdr.ethernet.dst_addr == %d) ? "
                                      "(ig_tm_md.ucast_egress_port == 0) : ((" % 0x020000000001))
        self.assertTrue(l2.endswith("(ig_tm_md.mcast_grp_a == LCF_FLOOD_GRP))))"))

    def test_every_field_of_an_entry_counts(self):
        t = copy.deepcopy(self.tests["Test0"])
        home = t["entries"][3]
        # a value differing only under the mask's zero bits is the same entry
        home["keys"]["tag"] = ("ternary", 0x2000000123, 0xfffffff000000000)
        self.assertIsNone(self.tr(None, t)[1])
        for change in (("keys", "tag", ("ternary", 0x2000000000, 0xffffffff00000000)),
                       ("keys", "tag", ("exact", 0x2000000000)),
                       ("data", "port", 1),
                       ("action", None, "LcfIngress.prepare.no_home")):
            t2 = copy.deepcopy(t)
            if change[1] is None:
                t2["entries"][3]["action"] = change[2]
            else:
                t2["entries"][3][change[0]][change[1]] = change[2]
            self.assertEqual(self.tr(None, t2)[1], "entry not the topology's: "
                             "LcfIngress.prepare.home_tbl "
                             + tv._short(t2["entries"][3]["action"]), change)
        t2 = copy.deepcopy(t)
        t2["defaults"]["LcfEgress.shadow_cfg"]["data"]["sid"] = 2
        self.assertEqual(self.tr(None, t2)[1], "default of LcfEgress.shadow_cfg "
                         "not the topology's")
        t2 = copy.deepcopy(t)
        t2["send"]["port"] = 7
        self.assertEqual(self.tr(None, t2)[1], "ingress port 7 is no topology port")
        t2 = copy.deepcopy(t)
        t2["expect"]["port"] = 9
        self.assertEqual(self.tr(None, t2)[1], "egress port 9 is no topology port")

    def test_main_writes_vectors_and_summary(self):
        d = tempfile.mkdtemp()
        try:
            with contextlib.redirect_stdout(io.StringIO()) as out:
                rc = tv.main(["--topology", "pcap3.json", "--out", d,
                              "--summary", os.path.join(d, "s.json"), SAMPLE])
            self.assertEqual(rc, 0)
            self.assertIn("5 tests, 2 translated, 3 skipped", out.getvalue())
            self.assertEqual(sorted(os.listdir(d)), [
                "900-testgen-testgen-sample-test0", "901-testgen-testgen-sample-test4",
                "s.json"])
            with open(os.path.join(d, "s.json")) as f:
                s = json.load(f)
            self.assertEqual([r["translated"] for r in s], [True, False, False, False, True])
            with contextlib.redirect_stderr(io.StringIO()):
                self.assertEqual(tv.main(["--topology", "pcap3.json",
                                          os.path.join(d, "missing.py")]), 2)
        finally:
            shutil.rmtree(d)


class TestRawMask(unittest.TestCase):
    """lcfvec's raw + raw_mask expectation, as the translated vectors use it."""

    def setUp(self):
        t = load()["Test0"]
        self.topo = lcfvec.Topo(TOPO)
        self.frame = t["expect"]["pkt"]
        self.exp = tv.translate(t, TOPO, tv.topology_control_plane(TOPO),
                                {0, 1, 2})[0]["steps"][0]["expect"][0]

    def check(self, frame, port=2):
        return lcfvec.check_frame(self.exp, port, frame, self.topo, b"")

    def test_masked_bits_are_not_compared(self):
        self.assertEqual(self.check(self.frame), [])
        f = bytearray(self.frame)
        f[24] ^= 0xff  # IPv4 checksum: masked
        self.assertEqual(self.check(bytes(f)), [])

    def test_unmasked_bits_length_and_port_are(self):
        f = bytearray(self.frame)
        f[14 + 28 + 7] ^= 1  # a byte of the LCF header
        self.assertTrue(self.check(bytes(f)))
        self.assertTrue(self.check(self.frame + b"\0"))
        self.assertTrue(self.check(self.frame, port=1))
        bad = dict(self.exp, raw_mask="ff")
        self.assertTrue(lcfvec.check_frame(bad, 2, self.frame, self.topo, b""))


@unittest.skipUnless(shutil.which("cpp"), "no cpp")
class TestParserMacro(unittest.TestCase):
    """p4testgen drops value-set select cases: testgen.sh's builds name the port."""

    def cpp(self, *defs):
        return subprocess.run(["cpp", "-P", "-nostdinc", *defs,
                               os.path.join(HERE, "lcf_parser.p4")],
                              capture_output=True, text=True).stdout

    def test_port_case(self):
        self.assertIn("lcf_port_vs : parse_lcf;", self.cpp())
        out = self.cpp("-DLCF_TESTGEN_PORT=7340")
        self.assertIn("7340 : parse_lcf;", out)
        self.assertNotIn("lcf_port_vs : parse_lcf;", out)


if __name__ == "__main__":
    unittest.main()
