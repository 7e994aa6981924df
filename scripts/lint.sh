#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The checks every change passes before it lands (CI runs them):
#   1. no dependency cycle between files or directories (includes, and calls
#      from the objects in $BUILD: scripts/check-cycles.py)
#   2. clang-format: the C sources match .clang-format (DPDK's style)
#   3. cppcheck: warnings, portability and performance on lib/ swswitch/
#      node-agent/
#   4. shellcheck on every shell script
#
#   scripts/lint.sh              all four (BUILD, default build/, must exist
#                                for the call graph)
#   scripts/lint.sh --fix        rewrite the C sources with clang-format first
#
# Exits 1 when a check fails, 2 when a tool is missing. Takes ~15 s.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
fix=0
case "${1:-}" in
--fix) fix=1 ;;
-h | --help)
	sed -n 3,16p "$0"
	exit 0
	;;
"") ;;
*)
	echo "lint.sh: unknown argument $1" >&2
	exit 2
	;;
esac
for t in "$CLANG_FORMAT" cppcheck shellcheck python3; do
	command -v "$t" >/dev/null || {
		echo "lint.sh: $t not found (scripts/setup.sh installs it)" >&2
		exit 2
	}
done

failed=()
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok   $name"
	else
		echo "FAIL $name"
		failed+=("$name")
	fi
}

mapfile -t csrc < <(git ls-files 'lib/*.[ch]' 'swswitch/*.[ch]' 'node-agent/*.[ch]')
mapfile -t shsrc < <(git ls-files '*.sh' .ci/run)

if [ -d "$BUILD" ]; then
	check "no file or directory cycle (includes, calls)" \
		python3 scripts/check-cycles.py --build "$BUILD"
else
	check "no file or directory cycle (includes only: no $BUILD yet)" \
		python3 scripts/check-cycles.py
fi

[ $fix = 1 ] && "$CLANG_FORMAT" -i "${csrc[@]}"
check "clang-format (${#csrc[@]} files; scripts/lint.sh --fix rewrites them)" \
	"$CLANG_FORMAT" --dry-run --Werror "${csrc[@]}"

cppcheck_all() {
	local -a incs
	mapfile -t incs < <(find lib swswitch node-agent -type d -printf '-I%p\n')
	# DPDK's headers need its build's cache line size; macros of other
	# system headers are in scripts/cppcheck.cfg.
	cppcheck --quiet --error-exitcode=1 --inline-suppr --std=c11 -j2 \
		--enable=warning,portability,performance \
		--suppress=missingIncludeSystem \
		--library=scripts/cppcheck.cfg \
		"${incs[@]}" -I/usr/include/dpdk \
		-D__x86_64__ -DRTE_ARCH_X86_64 -DRTE_CACHE_LINE_SIZE=64 \
		lib swswitch node-agent
}
check "cppcheck (warning, portability, performance)" cppcheck_all

check "shellcheck (${#shsrc[@]} scripts)" shellcheck -x "${shsrc[@]}"

if ((${#failed[@]})); then
	echo "lint: FAILED: ${failed[*]}"
	exit 1
fi
echo "lint: clean"
