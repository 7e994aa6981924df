#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Install the LCF Wireshark/tshark dissector (lib/dissector/lcf.lua) as a
# personal Lua plugin, so `tshark -r x.pcap` and Wireshark decode LCF frames
# (UDP port 7340; change it under Preferences > Protocols > LCF, or with
# `tshark -o lcf.udp_port:N`).
#
#   scripts/install-dissector.sh            copy into ~/.local/lib/wireshark/plugins
#   scripts/install-dissector.sh --link     symlink instead (follows the repository)
#   scripts/install-dissector.sh --print    only print the -X usage
#   scripts/install-dissector.sh --uninstall
#
# Without installing: tshark -X lua_script:lib/dissector/lcf.lua -r x.pcap
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
src="$here/lib/dissector/lcf.lua"
default_dir="$HOME/.local/lib/wireshark/plugins"
dest_dir="${LCF_DISSECTOR_DIR:-$default_dir}"
mode=copy
case "${1:-}" in
	--link) mode="link" ;;
	--print) mode=print ;;
	--uninstall) mode=uninstall ;;
	-h|--help) sed -n '3,14p' "$0"; exit 0 ;;
	"") ;;
	*) echo "install-dissector.sh: unknown option $1" >&2; exit 2 ;;
esac

[ -f "$src" ] || { echo "install-dissector.sh: $src not found" >&2; exit 1; }

case $mode in
print)
	echo "tshark -X lua_script:$src -r FILE.pcap [-T fields -e lcf.type ...]"
	exit 0 ;;
uninstall)
	rm -f "$dest_dir/lcf.lua"
	echo "removed $dest_dir/lcf.lua"
	exit 0 ;;
esac

mkdir -p "$dest_dir"
if [ "$mode" = link ]; then
	ln -sf "$src" "$dest_dir/lcf.lua"
else
	install -m 0644 "$src" "$dest_dir/lcf.lua"
fi
echo "installed $dest_dir/lcf.lua ($mode)"

if [ "$dest_dir" = "$default_dir" ] && command -v tshark >/dev/null 2>&1; then
	if tshark -G protocols 2>/dev/null | grep -q '	lcf$'; then
		echo "tshark now knows the lcf protocol: tshark -r FILE.pcap -Y lcf"
	else
		echo "warning: tshark does not list lcf; is Lua enabled in this build?" >&2
		echo "fallback: tshark -X lua_script:$src -r FILE.pcap" >&2
	fi
fi
