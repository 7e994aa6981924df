#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# An N-node swswitch cluster on one machine (docs/CLUSTER.md):
#   - one network namespace per node (sw-n<id>) holding the node end of a veth
#     pair, named eth0, with the node's MAC and IP/24 from the topology;
#   - the switch end of each pair (swcl-p<port>) in the root namespace, one
#     swswitch port each, in DPDK port order (net_af_packet or net_af_xdp);
#   - swswitch itself, logging to the run directory.
#
#   cluster.sh up TOPO [--swswitch PATH] [--pmd af_packet|af_xdp] [--force]
#                      [--lcores L] [--eal "EAL ARGS"] [--sw-args "ARGS"]
#                      [--no-static-arp] [--no-wait] [--pin]
#                      (--pin, or $SWCL_PIN=1: swswitch's lcore is the last
#                       CPU this process may use, `exec` runs the nodes on
#                       the others, and swswitch's scheduling group gets the
#                       caller's autogroup nice: DPDK's dedicated lcore;
#                       $SWCL_LCORES: default for --lcores, 0;
#                       $SWCL_QPAIRS: af_packet queue pairs per port, 1;
#                       $SWCL_FRAMECNT: af_packet ring frames per queue, 8192;
#                       give --sw-args "--workers N" SWCL_QPAIRS=N;
#                       $SWSWITCH_TEST_ARGS: more swswitch options, after
#                       --sw-args; scripts/test.sh sets --idle-sleep-us)
#   cluster.sh restart-switch [--down SEC] [--kill-only | --start-only]
#                      (SIGKILL swswitch, wait SEC (default 0), start it
#                       again, empty, with the same command line)
#   cluster.sh down
#   cluster.sh status
#   cluster.sh exec NODE CMD...
#
# `up` is idempotent (a healthy cluster of the same topology is left alone;
# --force rebuilds it) and always starts by removing what a previous run left
# (namespaces, veths, a stale swswitch). `down` always cleans, whatever state
# it finds. Needs root, iproute2, ethtool, python3.
set -euo pipefail

# $SWCL_ID (one lowercase letter or digit, default empty) names a second,
# independent cluster on the same machine: sw<ID>-n0, swcl<ID>-p0, ...
ID=${SWCL_ID:-}
[[ $ID =~ ^[a-z0-9]?$ ]] || { echo "cluster: error: SWCL_ID must be one lowercase letter or digit" >&2; exit 1; }
NS_PREFIX=sw$ID-n         # namespaces: sw-n0, sw-n1, ...
SW_IF_PREFIX=swcl$ID-p    # switch ends (root namespace): swcl-p0, ...
TMP_IF_PREFIX=swcl$ID-n   # node ends before they move into their namespace
GAP_IF_PREFIX=swcl$ID-g   # placeholder ports for gaps in the port numbering
BR_NAME=swcl$ID-br        # diagnostic Linux bridge (--l2-bridge only)
RUN_DIR=${SWCL_RUN_DIR:-/tmp/swswitch-cluster$ID}
FILE_PREFIX=swcl$ID       # DPDK --file-prefix

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)

log() { printf 'cluster: %s\n' "$*" >&2; }
die() { printf 'cluster: error: %s\n' "$*" >&2; exit 1; }

usage() {
	sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
}

need_root() {
	[ "$(id -u)" = 0 ] || die "must run as root (network namespaces, veths)"
}

find_swswitch() {
	local c
	local b=${BUILD:-build}
	[[ $b = /* ]] || b=$repo/$b
	for c in "${SWSWITCH:-}" "$b/swswitch/swswitch" \
		"$(command -v swswitch 2>/dev/null || true)"; do
		if [ -n "$c" ] && [ -x "$c" ]; then
			echo "$c"
			return 0
		fi
	done
	return 1
}

# topo_nodes FILE -> lines "id mac ip port", sorted by port
# topo_meta FILE  -> "lcf_port switch_mac switch_ip"
topo_py() {
	python3 - "$@" <<'EOF'
import json, sys
what, path = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        t = json.load(f)
    nodes = t["nodes"]
    if what == "nodes":
        seen = set()
        for n in sorted(nodes, key=lambda n: int(n["port"])):
            nid, port = int(n["id"]), int(n["port"])
            if port in seen:
                sys.exit("topology %s: two nodes on port %d" % (path, port))
            seen.add(port)
            if not (0 <= nid < 32 and 0 <= port < 32):
                sys.exit("topology %s: node id/port out of range" % path)
            print(nid, n["mac"], n["ip"], port)
    else:
        sw = t.get("switch", {})
        print(int(t.get("lcf_port", 7340)), sw.get("mac", "-"), sw.get("ip", "-"))
except (OSError, ValueError, KeyError, TypeError) as e:
    sys.exit("topology %s: %s" % (path, e))
EOF
}

# ---- teardown ---------------------------------------------------------------

# Alive and not a zombie (a killed swswitch whose parent is gone may linger
# as one until init reaps it).
pid_alive() {
	[ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null &&
		[ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]
}

# Is $1 a swswitch process (so we never signal a recycled pid)?
is_swswitch_pid() {
	pid_alive "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q 'swswitch'
}

stop_swswitch() {
	local pid
	[ -f "$RUN_DIR/swswitch.pid" ] || return 0
	pid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
	if is_swswitch_pid "$pid"; then
		log "stopping swswitch (pid $pid, SIGINT)"
		kill -INT "$pid" 2>/dev/null || true
		for _ in $(seq 1 50); do
			pid_alive "$pid" || break
			sleep 0.1
		done
		if pid_alive "$pid"; then
			log "swswitch still running: SIGTERM"
			kill -TERM "$pid" 2>/dev/null || true
			for _ in $(seq 1 30); do
				pid_alive "$pid" || break
				sleep 0.1
			done
		fi
		if pid_alive "$pid"; then
			log "swswitch still running: SIGKILL"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.2
		fi
	fi
	rm -f "$RUN_DIR/swswitch.pid"
}

our_netns() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${NS_PREFIX}[0-9]+\$" || true; }
our_links() {
	ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
		grep -E "^(${SW_IF_PREFIX}|${TMP_IF_PREFIX}|${GAP_IF_PREFIX})[0-9a-z]+\$|^${BR_NAME}\$" || true
}

# Kill the processes left inside one of our namespaces (by pid).
kill_ns_procs() {
	local ns=$1 pids p
	pids=$(ip netns pids "$ns" 2>/dev/null || true)
	[ -n "$pids" ] || return 0
	log "$ns: stopping processes $(echo "$pids" | tr '\n' ' ')"
	for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
	for _ in $(seq 1 30); do
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		[ -n "$pids" ] || return 0
		sleep 0.1
	done
	for p in $pids; do kill -KILL "$p" 2>/dev/null || true; done
	sleep 0.1
}

do_down() {
	local ns l
	need_root
	stop_swswitch
	for ns in $(our_netns); do
		kill_ns_procs "$ns"
		ip netns del "$ns" 2>/dev/null || log "cannot delete netns $ns"
	done
	for l in $(our_links); do
		ip link del "$l" 2>/dev/null || true
	done
	rm -f "$RUN_DIR/state" "$RUN_DIR/bridge" "$RUN_DIR/pin"
	# DPDK runtime files of our file prefix (no hugepages are used)
	rm -rf "/var/run/dpdk/$FILE_PREFIX" 2>/dev/null || true
	if [ -n "$(our_netns)" ] || [ -n "$(our_links)" ]; then
		die "leftovers remain: netns [$(our_netns | tr '\n' ' ')] links [$(our_links | tr '\n' ' ')]"
	fi
}

# ---- bring-up ---------------------------------------------------------------

offloads_off() {  # offloads_off [NS] DEV  (NS "-" = root namespace)
	local ns=$1 dev=$2 pre=()
	[ "$ns" != - ] && pre=(ip netns exec "$ns")
	# The kernel leaves UDP checksums to the NIC (CHECKSUM_PARTIAL) on a
	# veth; through af_packet they would reach the other node unfinished.
	"${pre[@]}" ethtool -K "$dev" tx off rx off >/dev/null 2>&1 || true
	"${pre[@]}" ethtool -K "$dev" tso off gso off gro off >/dev/null 2>&1 || true
}

sysctl_ns() {  # sysctl_ns NS KEY=VALUE
	ip netns exec "$1" sysctl -qw "$2" >/dev/null 2>&1 || true
}

healthy() {  # healthy TOPO -> 0 when the running cluster is of TOPO and alive
	local topo=$1 pid id mac ip port
	[ -f "$RUN_DIR/state" ] || return 1
	[ "$(sed -n 's/^topo=//p' "$RUN_DIR/state")" = "$(readlink -f "$topo")" ] || return 1
	if [ ! -f "$RUN_DIR/bridge" ]; then
		pid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
		is_swswitch_pid "$pid" || return 1
	fi
	while read -r id mac ip port; do
		ip netns exec "${NS_PREFIX}$id" ip link show eth0 >/dev/null 2>&1 || return 1
		ip link show "${SW_IF_PREFIX}$port" >/dev/null 2>&1 || return 1
	done < <(topo_py nodes "$topo")
	return 0
}

do_up() {
	local topo="" swbin="" pmd=af_packet force=0 lcores=${SWCL_LCORES:-0} eal="" swargs=""
	local static_arp=1 wait=1 bridge=0 pin=${SWCL_PIN:-0}
	while [ $# -gt 0 ]; do
		case $1 in
		--swswitch) swbin=$2; shift 2 ;;
		--pmd) pmd=$2; shift 2 ;;
		--force) force=1; shift ;;
		--lcores) lcores=$2; shift 2 ;;
		--eal) eal=$2; shift 2 ;;
		--sw-args) swargs=$2; shift 2 ;;
		--no-static-arp) static_arp=0; shift ;;
		--no-wait) wait=0; shift ;;
		--pin) pin=1; shift ;;
		--l2-bridge) bridge=1; shift ;;   # diagnostic only, see CLUSTER.md
		-h|--help) usage; exit 0 ;;
		-*) die "up: unknown option $1" ;;
		*) [ -z "$topo" ] || die "up: one topology only"; topo=$1; shift ;;
		esac
	done
	need_root
	[ -n "$topo" ] || die "up: TOPO is required (e.g. topo/demo4.json)"
	[ -f "$topo" ] || die "up: no such topology file: $topo"
	case $pmd in af_packet|af_xdp) ;; *) die "up: --pmd must be af_packet or af_xdp" ;; esac
	local nodes meta
	nodes=$(topo_py nodes "$topo") || die "up: bad topology"
	meta=$(topo_py meta "$topo") || die "up: bad topology"
	[ -n "$nodes" ] || die "up: topology has no nodes"
	if [ $bridge = 0 ]; then
		if [ -z "$swbin" ]; then
			swbin=$(find_swswitch) || die "up: swswitch not found; build it (meson setup build && ninja -C build) or pass --swswitch PATH"
		fi
		[ -x "$swbin" ] || die "up: not executable: $swbin"
	fi

	if [ $force = 0 ] && healthy "$topo"; then
		log "already up ($(readlink -f "$topo")); nothing to do (--force rebuilds)"
		return 0
	fi

	# Self-cleaning: whatever a previous (crashed) run left goes first.
	do_down
	mkdir -p "$RUN_DIR"
	rm -f "$RUN_DIR"/swswitch.log "$RUN_DIR"/swswitch.out "$RUN_DIR"/swswitch-stats.json
	trap 'log "up failed: cleaning"; do_down; exit 1' ERR INT TERM

	local sw_mac sw_ip
	read -r _ sw_mac sw_ip <<<"$meta"
	local id mac ip port ns maxport=-1
	while read -r id mac ip port; do
		ns=${NS_PREFIX}$id
		ip netns add "$ns"
		ip link add "${SW_IF_PREFIX}$port" type veth peer name "${TMP_IF_PREFIX}$id"
		ip link set "${TMP_IF_PREFIX}$id" netns "$ns"
		ip -n "$ns" link set "${TMP_IF_PREFIX}$id" name eth0
		sysctl_ns "$ns" net.ipv6.conf.all.disable_ipv6=1
		sysctl_ns "$ns" net.ipv6.conf.default.disable_ipv6=1
		sysctl_ns "$ns" net.ipv6.conf.eth0.disable_ipv6=1
		# A request to the node's own home block crosses the switch and
		# comes back with the node's own source IP; without accept_local
		# the kernel drops it as a martian.
		sysctl_ns "$ns" net.ipv4.conf.all.accept_local=1
		sysctl_ns "$ns" net.ipv4.conf.eth0.accept_local=1
		sysctl_ns "$ns" net.ipv4.conf.all.rp_filter=0
		sysctl_ns "$ns" net.ipv4.conf.eth0.rp_filter=0
		ip -n "$ns" link set eth0 address "$mac"
		ip -n "$ns" addr add "$ip/24" dev eth0
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 up
		offloads_off "$ns" eth0
		sysctl -qw "net.ipv6.conf.${SW_IF_PREFIX}$port.disable_ipv6=1" >/dev/null 2>&1 || true
		ip link set "${SW_IF_PREFIX}$port" promisc on
		ip link set "${SW_IF_PREFIX}$port" up
		offloads_off - "${SW_IF_PREFIX}$port"
		[ "$port" -gt "$maxport" ] && maxport=$port
	done <<<"$nodes"

	# Static neighbours: every node knows every other node's and the
	# switch's MAC, so no ARP has to cross the switch (--no-static-arp
	# leaves ARP to swswitch's L2 flooding).
	if [ $static_arp = 1 ]; then
		local id2 mac2 ip2
		while read -r id mac ip port; do
			while read -r id2 mac2 ip2 _; do
				[ "$id2" = "$id" ] && continue
				ip -n "${NS_PREFIX}$id" neigh replace "$ip2" lladdr "$mac2" dev eth0 nud permanent
			done <<<"$nodes"
			if [ "$sw_mac" != "-" ] && [ "$sw_ip" != "-" ]; then
				ip -n "${NS_PREFIX}$id" neigh replace "$sw_ip" lladdr "$sw_mac" dev eth0 nud permanent
			fi
		done <<<"$nodes"
	fi

	# DPDK port p = p-th vdev: fill gaps in the port numbering with unused
	# veths so that port ids match the topology.
	local vdevs=() p dev
	for p in $(seq 0 "$maxport"); do
		dev=${SW_IF_PREFIX}$p
		if ! ip link show "$dev" >/dev/null 2>&1; then
			dev=${GAP_IF_PREFIX}$p
			ip link add "$dev" type veth peer name "${GAP_IF_PREFIX}x$p"
			ip link set "$dev" up
			ip link set "${GAP_IF_PREFIX}x$p" up
		fi
		if [ "$pmd" = af_xdp ]; then
			vdevs+=(--vdev "net_af_xdp$p,iface=$dev,start_queue=0,queue_count=1")
		else
			# The PMD's default ring (512 frames) overflows in the kernel,
			# where neither swswitch nor its PMD counts it, whenever a
			# loaded machine deschedules swswitch for ~60 ms at the
			# tests' 8,000 frames/s; 8,192 frames (16 MiB) ride out 1 s.
			vdevs+=(--vdev "net_af_packet$p,iface=$dev,qpairs=${SWCL_QPAIRS:-1},framecnt=${SWCL_FRAMECNT:-8192}")
		fi
	done

	{
		echo "topo=$(readlink -f "$topo")"
		echo "pmd=$pmd"
		echo "swswitch=${swbin:-none}"
		echo "nodes=$(echo "$nodes" | awk '{print $1}' | tr '\n' ' ')"
	} >"$RUN_DIR/state"

	if [ $bridge = 1 ]; then
		# Diagnostic plumbing test: a plain Linux bridge instead of
		# swswitch (no coherence pipeline!).
		ip link add "$BR_NAME" type bridge
		for p in $(seq 0 "$maxport"); do
			ip link set "${SW_IF_PREFIX}$p" master "$BR_NAME" 2>/dev/null || true
		done
		ip link set "$BR_NAME" up
		touch "$RUN_DIR/bridge"
		log "up with a Linux bridge (diagnostic, no swswitch)"
	else
		if [ "$pin" = 1 ]; then
			lcores=$(pin_cpus) || exit 1
			log "pinned: swswitch on CPU $lcores, the nodes on $(cat "$RUN_DIR/pin")"
		else
			rm -f "$RUN_DIR/pin"
		fi
		# shellcheck disable=SC2054
		local cmd=("$swbin" --no-huge --no-pci -m 512 -l "$lcores" --file-prefix "$FILE_PREFIX"
			--log-level=pmd.net.af_packet,warning "${vdevs[@]}")
		# shellcheck disable=SC2206
		[ -n "$eal" ] && cmd+=($eal)
		cmd+=(-- --topo "$(readlink -f "$topo")" --stats-file "$RUN_DIR/swswitch-stats.json")
		# shellcheck disable=SC2206
		[ -n "$swargs" ] && cmd+=($swargs)
		# shellcheck disable=SC2206
		[ -n "${SWSWITCH_TEST_ARGS:-}" ] && cmd+=($SWSWITCH_TEST_ARGS)
		# Each AF_XDP queue fills its fill ring (2048) from swswitch's
		# packet pool at start-up: 4 ports exhaust the default 8191.
		if [ "$pmd" = af_xdp ] && [[ $swargs != *--mbufs* ]]; then
			cmd+=(--mbufs $((8192 * (maxport + 2))))
		fi
		echo "${cmd[*]}" >"$RUN_DIR/swswitch.cmd"
		printf '%q ' "${cmd[@]}" >"$RUN_DIR/swswitch.argv"
		log "starting: ${cmd[*]}"
		# AF_XDP sockets pin their UMEM: lift the locked-memory limit.
		if [ "$pmd" = af_xdp ]; then
			ulimit -l unlimited 2>/dev/null || log "cannot raise RLIMIT_MEMLOCK (ulimit -l $(ulimit -l))"
		fi
		setsid "${cmd[@]}" >"$RUN_DIR/swswitch.out" 2>"$RUN_DIR/swswitch.log" </dev/null &
		echo $! >"$RUN_DIR/swswitch.pid"
		[ "$pin" = 1 ] && pin_group $!
	fi

	if [ $wait = 1 ]; then
		wait_ready "$nodes" || { tail -20 "$RUN_DIR/swswitch.log" >&2 || true; false; }
	fi
	trap - ERR INT TERM
	log "up: $(echo "$nodes" | wc -l) nodes, run dir $RUN_DIR"
}

# Ready when the first node reaches every other node through the switch.
wait_ready() {
	local nodes=$1 first ip ok pid
	first=$(echo "$nodes" | head -1 | awk '{print $1}')
	for _ in $(seq 1 300); do
		if [ ! -f "$RUN_DIR/bridge" ]; then
			pid=$(cat "$RUN_DIR/swswitch.pid")
			pid_alive "$pid" || { log "swswitch exited during start-up"; return 1; }
		fi
		ok=1
		while read -r _ _ ip _; do
			ip netns exec "${NS_PREFIX}$first" ping -c1 -W1 -q "$ip" >/dev/null 2>&1 || { ok=0; break; }
		done < <(echo "$nodes" | tail -n +2)
		if [ $ok = 1 ]; then
			return 0
		fi
		sleep 0.2
	done
	log "nodes cannot reach each other through the switch after 60 s"
	return 1
}

# Switch failure (docs/FAULTS.md): SIGKILL, then a new swswitch with the same
# command line and ports; it starts with empty registers, as a rebooted
# Tofino would.
do_restart_switch() {
	local down=0 kill=1 start=1 pid nodes
	while [ $# -gt 0 ]; do
		case $1 in
		--down) down=$2; shift 2 ;;
		--kill-only) start=0; shift ;;
		--start-only) kill=0; shift ;;
		*) die "restart-switch: unknown option $1" ;;
		esac
	done
	need_root
	if [ ! -f "$RUN_DIR/swswitch.argv" ] || [ ! -f "$RUN_DIR/state" ]; then
		die "restart-switch: no cluster with a swswitch is up"
	fi
	if [ $kill = 1 ]; then
		pid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
		is_swswitch_pid "$pid" || die "restart-switch: swswitch is not running"
		kill -KILL "$pid"
		for _ in $(seq 1 100); do
			pid_alive "$pid" || break
			sleep 0.05
		done
		pid_alive "$pid" && die "restart-switch: swswitch (pid $pid) survived SIGKILL"
		rm -f "$RUN_DIR/swswitch.pid"
		log "swswitch killed (pid $pid, SIGKILL)"
	fi
	[ $start = 1 ] || return 0
	sleep "$down"
	echo "--- restart $(date -u +%FT%TZ)" >>"$RUN_DIR/swswitch.log"
	# The array, not `eval ... &`: $! must be swswitch itself (a backgrounded
	# eval is a subshell, whose pid `down` would not recognise and kill).
	local -a argv
	local try
	eval "argv=($(cat "$RUN_DIR/swswitch.argv"))"
	nodes=$(topo_py nodes "$(sed -n 's/^topo=//p' "$RUN_DIR/state")")
	# Right after a SIGKILL, EAL sometimes cannot map its memzone list yet
	# ("Cannot init memzone") and exits: start again, up to three times.
	for try in 1 2 3; do
		setsid "${argv[@]}" >"$RUN_DIR/swswitch.out" \
			2>>"$RUN_DIR/swswitch.log" </dev/null &
		echo $! >"$RUN_DIR/swswitch.pid"
		[ -f "$RUN_DIR/pin" ] && pin_group $!
		wait_ready "$nodes" && break
		if [ $try = 3 ] || pid_alive "$(cat "$RUN_DIR/swswitch.pid")"; then
			tail -20 "$RUN_DIR/swswitch.log" >&2 || true
			return 1
		fi
		sleep 0.5
	done
	log "swswitch restarted (pid $(cat "$RUN_DIR/swswitch.pid")), empty"
}

do_status() {
	local ns pid rc=0
	echo "run dir: $RUN_DIR"
	if [ -f "$RUN_DIR/state" ]; then
		sed 's/^/  /' "$RUN_DIR/state"
	else
		echo "  (no cluster state)"
		rc=1
	fi
	pid=$(cat "$RUN_DIR/swswitch.pid" 2>/dev/null || true)
	if [ -f "$RUN_DIR/bridge" ]; then
		echo "switch: Linux bridge $BR_NAME (diagnostic)"
	elif is_swswitch_pid "$pid"; then
		echo "swswitch: running, pid $pid"
	else
		echo "swswitch: not running"
		rc=1
	fi
	echo "namespaces:"
	for ns in $(our_netns); do
		printf '  %-8s %s  procs: %s\n' "$ns" \
			"$(ip -n "$ns" -br addr show eth0 2>/dev/null | tr -s ' ')" \
			"$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
	done
	echo "switch ports:"
	ip -br link show 2>/dev/null | grep -E "^(${SW_IF_PREFIX}|${GAP_IF_PREFIX})" | sed 's/^/  /' || true
	return $rc
}

do_exec() {
	[ $# -ge 2 ] || die "exec NODE CMD..."
	local node=$1
	shift
	need_root
	ip netns list | awk '{print $1}' | grep -qx "${NS_PREFIX}$node" ||
		die "exec: no namespace ${NS_PREFIX}$node (is the cluster up?)"
	if [ -f "$RUN_DIR/pin" ]; then
		exec taskset -c "$(cat "$RUN_DIR/pin")" ip netns exec "${NS_PREFIX}$node" "$@"
	fi
	exec ip netns exec "${NS_PREFIX}$node" "$@"
}

# --pin: a busy-polling lcore that shares a CPU with the nodes gets a
# time slice, and every frame through the switch waits for it (ICMP RTTs
# of milliseconds on 2 CPUs). Give swswitch the last CPU this process may
# use (printed) and record the others for `exec`.
pin_cpus() {
	local cpus
	cpus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0)))))')
	# shellcheck disable=SC2206
	local -a list=($cpus)
	[ ${#list[@]} -ge 2 ] || die "up: --pin needs 2 CPUs or more (this process may use: $cpus)"
	echo "${list[-1]}"
	unset 'list[-1]'
	local IFS=,
	echo "${list[*]}" >"$RUN_DIR/pin"
}

# setsid puts swswitch in a scheduling group (autogroup) of its own, which
# gets a fair share against every other group whatever its nice value:
# give it the caller's group nice so that a benchmark that raised its own
# priority raises the switch's too.
pin_group() {
	local nice
	[ -w "/proc/$1/autogroup" ] || return 0
	nice=$(sed -n 's/.* nice //p' /proc/self/autogroup 2>/dev/null) || return 0
	if [ -n "$nice" ]; then
		echo "$nice" >"/proc/$1/autogroup" 2>/dev/null || true
	fi
}

action=${1:-}
[ $# -gt 0 ] && shift
case $action in
up) do_up "$@" ;;
down) do_down; log "down" ;;
restart-switch) do_restart_switch "$@" ;;
status) do_status ;;
exec) do_exec "$@" ;;
-h|--help|help) usage ;;
*) usage >&2; exit 2 ;;
esac
