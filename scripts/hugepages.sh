#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# Reserve 2 MB hugepages for swswitch and mount hugetlbfs. Tests run with
# --no-huge; hugepages are needed for benchmarks and for capture with
# dpdk-dumpcap, which attaches as a DPDK secondary process and so needs the
# primary's memory in shared hugepage files.
#
# usage: scripts/hugepages.sh [PAGES]     reserve PAGES (default 256 = 512 MB)
#        scripts/hugepages.sh release     give them back (unmounts nothing)
set -eu

SYSFS=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
MNT=/dev/hugepages

if [ "$(id -u)" -ne 0 ]; then
	echo "hugepages.sh: must run as root" >&2
	exit 1
fi
if [ ! -w "$SYSFS" ]; then
	echo "hugepages.sh: $SYSFS not writable (no 2 MB hugepage support?)" >&2
	exit 1
fi

case "${1:-256}" in
release)
	echo 0 > "$SYSFS"
	echo "hugepages: released"
	exit 0
	;;
*[!0-9]*)
	echo "usage: $0 [PAGES|release]" >&2
	exit 2
	;;
esac

want=${1:-256}
echo "$want" > "$SYSFS"
got=$(cat "$SYSFS")
if [ "$got" -lt "$want" ]; then
	echo "hugepages.sh: asked for $want pages, kernel gave $got (memory is fragmented; retry after echo 3 > /proc/sys/vm/drop_caches)" >&2
	exit 1
fi

if ! grep -qs " $MNT hugetlbfs " /proc/mounts; then
	mkdir -p "$MNT"
	mount -t hugetlbfs -o pagesize=2M nodev "$MNT"
fi
echo "hugepages: $got x 2 MB reserved, hugetlbfs on $MNT"
