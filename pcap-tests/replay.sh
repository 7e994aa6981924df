#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Offline replay of captures through swswitch (net_pcap vdevs), for traffic
# where the order across ports does not matter (docs/PCAP-TESTS.md).
#
#   pcap-tests/replay.sh IN_DIR [-t TOPO] [-s SWSWITCH] [-o OUT_DIR] [-- EXTRA]
#
# IN_DIR holds in_port0.pcap, in_port1.pcap, ... (one per topology port, as
# gen_pcaps.py writes them; a missing one counts as empty). The topology is
# -t, else the "topology" named in IN_DIR/in.json, else topo/pcap2.json.
# swswitch reads every port's file (rx_pcap), writes what each port emits to
# OUT_DIR/out_portN.pcap (tx_pcap), exits after 500 ms without input
# (--idle-exit) and leaves its exit statistics in OUT_DIR/stats.json.
# Anything after "--" goes to swswitch (e.g. -- --seed 7).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
usage() { sed -n '6,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

[ $# -ge 1 ] || usage
in=$1; shift
topo=""; sw=${SWSWITCH:-}; out=""
while [ $# -gt 0 ]; do
	case $1 in
	-t) topo=$2; shift 2 ;;
	-s) sw=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) echo "replay.sh: unknown argument $1" >&2; usage ;;
	esac
done
[ -d "$in" ] || { echo "replay.sh: $in is not a directory" >&2; exit 2; }
if [ -z "$sw" ] || [ ! -x "$sw" ]; then
	echo "replay.sh: give swswitch with -s or \$SWSWITCH" >&2
	exit 2
fi
if [ -z "$topo" ]; then
	if [ -f "$in/in.json" ]; then
		name=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["topology"])' "$in/in.json")
		topo="$root/topo/$name"
	else
		topo="$root/topo/pcap2.json"
	fi
fi
out=${out:-$in/replay}
mkdir -p "$out"
in=$(cd "$in" && pwd); out=$(cd "$out" && pwd)

nports=$(/usr/bin/python3 -c 'import json,sys; print(max(n["port"] for n in json.load(open(sys.argv[1]))["nodes"]) + 1)' "$topo")
prefix="lcfrp$$"
vdevs=""
p=0
while [ $p -lt "$nports" ]; do
	rx="$in/in_port$p.pcap"
	if [ ! -f "$rx" ]; then
		rx="$out/empty_port$p.pcap"
		printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' > "$rx"
	fi
	vdevs="$vdevs --vdev net_pcap$p,rx_pcap=$rx,tx_pcap=$out/out_port$p.pcap"
	p=$((p + 1))
done

trap 'rm -rf /var/run/dpdk/$prefix' EXIT INT TERM
# shellcheck disable=SC2086
"$sw" --no-huge -m 256 -l "${SWSWITCH_LCORE:-0}" --no-pci --file-prefix "$prefix" \
	--log-level swswitch,notice $vdevs -- --topo "$topo" --idle-exit 500 "$@" \
	> "$out/stats.json" 2> "$out/swswitch.log"
rc=$?

echo "replayed $in through $sw ($topo, $nports ports): exit $rc"
for p in $(seq 0 $((nports - 1))); do
	n=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, sys.argv[2]); import lcfvec; print(len(lcfvec.read_pcap(sys.argv[1])))' "$out/out_port$p.pcap" "$here")
	echo "  port $p: $n frame(s) out -> $out/out_port$p.pcap"
done
echo "  statistics: $out/stats.json; decode with:"
echo "  tshark -X lua_script:$root/lib/dissector/lcf.lua -r $out/out_port0.pcap"
exit $rc
