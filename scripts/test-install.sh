#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# libdsm as a user gets it: `meson install` into a staging directory, then
# node-agent/apps/example/dsm_counter.c compiled and linked with nothing but
# `pkg-config --cflags --libs libdsm` (shared library, and --static), and
# the shared build run on a 2-node namespace cluster: both nodes must print
# the counter's total.
#
#   scripts/test-install.sh [--keep DIR]     (root: network namespaces)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
keep=""
while [ $# -gt 0 ]; do
	case "$1" in
	--keep)
		keep=$2
		shift
		;;
	-h | --help)
		sed -n 3,10p "$0"
		exit 0
		;;
	*)
		echo "test-install.sh: unknown argument $1" >&2
		exit 2
		;;
	esac
	shift
done
# shellcheck source=scripts/cluster_test_lib.sh
. "$here/cluster_test_lib.sh"
cluster_test_setup install

stage=$work/stage
meson install -C "$build_dir" --destdir "$stage" --quiet >"$work/install.log"
pc=$(find "$stage" -name libdsm.pc | head -1)
if [ -n "$pc" ]; then
	pass "meson install: $(find "$stage" -name 'libdsm.so*' -o -name libdsm.a -o -name dsm.h | wc -l) files, ${pc#"$stage"}"
else
	fail "meson install: no libdsm.pc"
	exit 1
fi
# The .pc names the real prefix; the sysroot maps it into the stage.
export PKG_CONFIG_PATH=${pc%/*} PKG_CONFIG_SYSROOT_DIR=$stage
src=$repo/node-agent/apps/example/dsm_counter.c
read -ra flags <<<"$(pkg-config --cflags --libs libdsm)"
# --static: libdsm.a itself, then what it needs (-ldsm named once, static)
sflags=()
for f in $(pkg-config --static --cflags --libs libdsm); do
	[ "$f" = -ldsm ] || sflags+=("$f")
done
if cc -std=c11 -Wall -Wextra -Werror -o "$work/dsm_counter" "$src" "${flags[@]}"; then
	pass "built against the installed shared library: cc ... ${flags[*]}"
else
	fail "build against the installed shared library"
fi
if cc -std=c11 -Wall -Wextra -Werror -o "$work/dsm_counter_static" "$src" \
	"${sflags[@]}" -Wl,-Bstatic -ldsm -Wl,-Bdynamic "${sflags[@]}"; then
	pass "built against the installed static library (pkg-config --static)"
else
	fail "build against the installed static library"
fi
libdir=${pc%/pkgconfig/*}
export LD_LIBRARY_PATH=$libdir
if "$work/dsm_counter" --help >/dev/null; then
	pass "the installed build runs (--help)"
else
	fail "the installed build does not run"
fi

topo=$repo/topo/demo4.json
"$cluster" up "$topo" >"$work/cluster.log" 2>&1 || {
	fail "cluster up"
	tail "$work/cluster.log"
	exit 1
}
for n in 0 1; do
	"$cluster" exec "$n" env LD_LIBRARY_PATH="$libdir" "$work/dsm_counter" \
		--topo "$topo" --node "$n" --nodes 2 --count 200 \
		>"$work/c$n.out" 2>"$work/c$n.log" &
	eval "pid$n=$!"
done
# shellcheck disable=SC2154 # pid0, pid1 are set by the eval above
for n in 0 1; do
	p=pid$n
	if timeout 60 tail --pid="${!p}" -f /dev/null && wait "${!p}" &&
		grep -q "counter 400$" "$work/c$n.out"; then
		pass "node $n: $(cat "$work/c$n.out")"
	else
		fail "node $n: $(cat "$work/c$n.out") $(tail -3 "$work/c$n.log")"
	fi
done
echo "---- $(($(date +%s) - start_ts))s, $failures failure(s)"
[ "$failures" = 0 ]
