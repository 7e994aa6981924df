#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Compile lib/p4/lcf.p4 for every supported Tofino target and size with the
# open Tofino back end of p4c (p4c-barefoot, then the assembler bfas), and
# print the stages each gress uses. docs/TOFINO.md says which compiler commit
# and options the committed results came from.
#
#   lib/p4/compile.sh [--out DIR] [--only tofino|tofino2] [--ways N]
#                     [--queue 0|1] [--keep]
#
#   --ways N      LCF_WAYS instead of each target's largest that fits
#   --queue 0|1   LCF_QUEUE instead of each target's (0: retry mode only;
#                 the queued lock mode does not fit yet, docs/TOFINO.md)
#
#   P4C_BAREFOOT  the compiler (default: p4c-barefoot on PATH)
#   BFAS          the assembler (default: bfas beside P4C_BAREFOOT, or on PATH)
#   P4C_INCLUDE   extra include directories, colon-separated (a build tree's
#                 p4include when the compiler is not installed)
#
# Without a compiler it prints "compiler not installed, skipped" and exits 0
# (CI has none). Exit 1 when any configuration fails to compile or assemble.
set -u

here=$(cd "$(dirname "$0")" && pwd)

# target:arch:ways:queue -- the largest number of ways that fits each
# target, and LCF_QUEUE (docs/TOFINO.md, Stages; docs/TOFINO-RESOURCES.md).
configs="tofino:tna:2:0 tofino2:t2na:8:0"

usage() {
	sed -n '4,22p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

out=""
only=""
ways=""
queue=""
keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--only) only=${2:?--only needs tofino or tofino2}; shift 2 ;;
	--ways) ways=${2:?--ways needs a number}; shift 2 ;;
	--queue) queue=${2:?--queue needs 0 or 1}; shift 2 ;;
	--keep) keep=1; shift ;;
	-h | --help) usage 0 ;;
	*) echo "compile.sh: unknown option '$1'" >&2; usage 2 ;;
	esac
done
case $only in "" | tofino | tofino2) ;; *)
	echo "compile.sh: --only: unknown target '$only' (tofino, tofino2)" >&2
	exit 2
	;;
esac
case $ways in "" | [1-9] | 1[0-9]) ;; *)
	echo "compile.sh: --ways: '$ways' is not 1..19" >&2
	exit 2
	;;
esac
case $queue in "" | 0 | 1) ;; *)
	echo "compile.sh: --queue: '$queue' is not 0 or 1" >&2
	exit 2
	;;
esac

p4c=${P4C_BAREFOOT:-$(command -v p4c-barefoot || true)}
if [ -z "$p4c" ] || [ ! -x "$p4c" ]; then
	echo "compile.sh: compiler not installed, skipped" \
		"(set P4C_BAREFOOT to p4c-barefoot; docs/TOFINO.md, Compiling)"
	exit 0
fi
bfas=${BFAS:-}
if [ -z "$bfas" ]; then
	bfas=$(dirname "$(readlink -f "$p4c")")/../bf-asm/bfas
	[ -x "$bfas" ] || bfas=$(dirname "$p4c")/bfas
	[ -x "$bfas" ] || bfas=$(command -v bfas || true)
fi
if [ -z "$bfas" ] || [ ! -x "$bfas" ]; then
	echo "compile.sh: assembler bfas not found (set BFAS)" >&2
	exit 1
fi

if [ -z "$out" ]; then
	out=$(mktemp -d)
	[ "$keep" -eq 1 ] || trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out" || exit 1
echo "compiler: $p4c ($("$p4c" --version 2>&1 | grep -m1 -i version))"

pass=0
fail=0
for c in $configs; do
	IFS=: read -r target arch w q <<<"$c"
	# bf-p4c's driver defines __TARGET_TOFINO__ (1, 2); p4c-barefoot alone
	# does not
	gen=1
	extra=()
	if [ "$target" = tofino2 ]; then
		gen=2
		# the IP option stack's CLOTs reach bfas without their lengths
		# ("No length for clot 9"): fields in PHV instead
		extra+=(--no-clot)
	fi
	IFS=: read -ra incs <<<"${P4C_INCLUDE:-}"
	for i in "${incs[@]}"; do
		[ -n "$i" ] && extra+=(-I "$i")
	done
	[ -n "$only" ] && [ "$only" != "$target" ] && continue
	[ -n "$ways" ] && w=$ways
	[ -n "$queue" ] && q=$queue
	name="$target LCF_WAYS=$w LCF_QUEUE=$q"
	dir="$out/$target-w$w-q$q"
	rm -rf "$dir"
	mkdir -p "$dir"
	echo
	echo "=== $target ($arch), LCF_WAYS=$w, LCF_QUEUE=$q ==="
	t0=$SECONDS
	# -g: logs/resources.json and the per-stage logs the resource report reads
	if ! "$p4c" --std p4-16 --target "$target" --arch "$arch" -g \
		"${extra[@]}" \
		-I "$here" -D__TARGET_TOFINO__="$gen" -DLCF_WAYS="$w" -DLCF_QUEUE="$q" -o "$dir" \
		--bf-rt-schema "$dir/bf-rt.json" "$here/lcf.p4" \
		>"$dir/compile.log" 2>&1; then
		grep -E "error|Error|ERROR" "$dir/compile.log" | head -40
		echo "FAIL $name: compile errors ($dir/compile.log)"
		fail=$((fail + 1))
		continue
	fi
	bfa=$(find "$dir" -name 'lcf.bfa' | head -1)
	if [ -z "$bfa" ] || ! "$bfas" --target "$target" -o "$(dirname "$bfa")" \
		"$bfa" >"$dir/bfas.log" 2>&1; then
		tail -20 "$dir/bfas.log" 2>/dev/null
		echo "FAIL $name: assembler ($dir/bfas.log)"
		fail=$((fail + 1))
		continue
	fi
	python3 "$here/tofino_resources.py" --stages "$dir" ||
		echo "(no stage summary: $dir)"
	echo "ok   $name compiled and assembled in $((SECONDS - t0)) s ($dir)"
	pass=$((pass + 1))
done
echo
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
