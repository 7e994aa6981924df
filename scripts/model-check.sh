#!/usr/bin/env bash
# SPIN model check of the LCF protocol (lib/model/, docs/MODEL.md).
#
#   scripts/model-check.sh           CI bounds (a few minutes, < 4 GB)
#   scripts/model-check.sh --deep    larger bounds, by hand (COLLAPSE compression)
#   scripts/model-check.sh --only NAME   one run of the chosen set
#   scripts/model-check.sh --shard K/N   the K-th (0-based) of N parts of the
#                                        set, for N processes to share it
#   scripts/model-check.sh --list        the names of the runs it would do
#
# Shards are balanced by each run's CPU seconds in lib/model/ci-costs.tsv
# (heaviest first onto the least loaded shard); a run not in that table is
# dealt by its position (every N-th from the K-th).
#
# Each run is exhaustive: a run that passes must report 0 errors and a
# completed search (no "Search not completed", no "max search depth too
# small"). Runs marked "violation" must find the named violation (they pin
# down bugs of earlier rules, docs/MODEL.md lists them); runs marked "known"
# report a documented counterexample (docs/MODEL.md) without failing the
# check.
#
# Most of its length is the table of runs (each with its -D flags, bounds
# and the result it must give), kept in one place.
#
# The verifier is compiled with -O0 (heavy qlock.pml runs at -O1, qalias.pml
# at -O2: pan_opt below): pan is bound by its state hash table,
# so optimising saves less search time than it costs to compile (gcc CPU
# time at -O0 / -O2: lcf.pml 9 / 61 s, qlock.pml 2.5 / 21 s, and
# qlock-threads.pml 4.4 s at -O0, 43 s at -O1; the 8.5 M-state new-switch
# search 109 s at -O0, 85 s at -O1, 87 s at -O2). It is compiled with
# clang when there is one ($PAN_CC): clang -O0 takes 5.5 s of CPU on
# new-switch's pan.c where gcc -O0 takes 18 s, and the compiles were
# about 45% of the CI set's CPU time.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODEL="$ROOT/lib/model"
DEEP=0
ONLY=""
SHARD_K=0
SHARD_N=1
NRUN=0
LIST=0
while [ $# -gt 0 ]; do
	case "$1" in
	--deep) DEEP=1 ;;
	--only) ONLY="$2"; shift ;;
	--list) LIST=1 ;;
	--shard)
		if ! [[ $2 =~ ^([0-9]+)/([1-9][0-9]*)$ ]] || ((BASH_REMATCH[1] >= BASH_REMATCH[2])); then
			echo "model-check: --shard K/N with 0 <= K < N, not '$2'" >&2; exit 2
		fi
		SHARD_K=${BASH_REMATCH[1]}; SHARD_N=${BASH_REMATCH[2]}; shift ;;
	-h|--help) sed -n 2,20p "$0"; exit 0 ;;
	*) echo "unknown argument: $1" >&2; exit 2 ;;
	esac
	shift
done
# SHARD_OF[name]: the shard of each run in the cost table
declare -A SHARD_OF=()
if ((SHARD_N > 1)) && [ -f "$MODEL/ci-costs.tsv" ]; then
	while read -r n k; do SHARD_OF[$n]=$k; done < <(
		awk '!/^#/ && NF == 2' "$MODEL/ci-costs.tsv" | sort -k2,2gr -k1,1 |
			awk -v N="$SHARD_N" '{ b = 0; for (i = 1; i < N; i++) if (load[i] < load[b]) b = i;
				load[b] += $2; print $1, b }')
fi
PAN_CC=${PAN_CC:-$(command -v clang || echo gcc)}
PAN_FAST_CC=${PAN_FAST_CC-$(command -v tcc)}
PAN_FAST_MAX=${PAN_FAST_MAX:-15}
PAN_OPT_MIN=${PAN_OPT_MIN:-25}
PAN_OPT_MODELS=${PAN_OPT_MODELS-qlock.pml:-O1 qalias.pml:-O2}
# OPT_BIG[name] / FAST_OK[name]: 1 when the run's cost in the table is at
# least $PAN_OPT_MIN / below $PAN_FAST_MAX (key "-": a run not in the
# table, cost 0); compared once here, not by an awk per run: a tiny run's
# CPU time is mostly its program starts.
declare -A OPT_BIG=() FAST_OK=()
while read -r n o f; do OPT_BIG[$n]=$o; FAST_OK[$n]=$f; done < <(
	awk -v m="$PAN_OPT_MIN" -v x="$PAN_FAST_MAX" 'BEGIN { print "-", (0 >= m), (0 < x) }
		!/^#/ && NF == 2 { print $1, ($2 >= m), ($2 < x) }' "$MODEL/ci-costs.tsv" 2>/dev/null)
# SPIN_CPP: spin's preprocessor (spin -P): tcc -E where there is tcc, one
# program start where spin's default (gcc -E) is a driver and cc1; both
# give byte-identical pan.[bchmt] for every run of the CI set. Empty:
# spin's default.
SPIN_CPP=${SPIN_CPP-${PAN_FAST_CC:+$PAN_FAST_CC -E -xc}}
SPIN_P=()
[ -z "$SPIN_CPP" ] || SPIN_P=("-P$SPIN_CPP")
for t in spin "$PAN_CC"; do
	command -v "$t" >/dev/null || { echo "model-check: $t not found" >&2; exit 2; }
done
WORK=$(mktemp -d "${TMPDIR:-/tmp}/model-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/.models" && cp "$MODEL"/*.pml "$WORK/.models"/ || exit 2
FAILED=0

# run NAME EXPECT(pass|violation:REGEX|known:REGEX) "SPIN -D flags" "cc flags" "pan flags"
run() {
	local name=$1 expect=$2 defs=$3 ccf=$4 panf=$5 d errs
	local -a defs_a ccf_a panf_a
	read -ra defs_a <<< "$defs"
	read -ra ccf_a <<< "$ccf"
	read -ra panf_a <<< "$panf"
	NRUN=$((NRUN + 1))
	if [ -n "${SHARD_OF[$name]+set}" ]; then
		((SHARD_OF[$name] == SHARD_K)) || return 0
	else
		(((NRUN - 1) % SHARD_N == SHARD_K)) || return 0
	fi
	[ -n "$ONLY" ] && [ "$ONLY" != "$name" ] && return 0
	if ((LIST)); then echo "$name"; return 0; fi
	d="$WORK/$name"
	# hard links to one copy of the models (spin and pan only read them)
	cp -al "$WORK/.models" "$d" || { echo "FAIL $name: cp"; FAILED=1; return; }
	# -DNOCOMP: the state is hashed and stored as it is, without pan's
	# byte-by-byte compress() (a quarter of the search's CPU at -O0);
	# the same states are stored (a padding byte that differed could only
	# add states, never merge two): new-switch 8,513,890 both ways, 87 ->
	# 75 CPU-s, 3.9 -> 4.3 GB. COLLAPSE compresses its own way, refuses it;
	# pan refuses it for a cycle search (-a, -l).
	[[ " $ccf " == *" -DCOLLAPSE "* || " $panf " == *" -a "* || " $panf " == *" -l "* ]] ||
		ccf_a+=(-DNOCOMP)
	local cc opt
	pan_cc "$name"; cc=$REPLY
	pan_opt "$name"; opt=$REPLY
	echo "=== $name: $defs"
	echo "    expect $expect; pan $cc $opt ${ccf_a[*]} $panf"
	if ! (cd "$d" && exec spin "${SPIN_P[@]}" -a "${defs_a[@]}" "${PML:-lcf.pml}" > spin.out 2>&1); then
		cat "$d/spin.out"; echo "FAIL $name: spin -a"; FAILED=1; return
	fi
	# the shell's own timer (no /usr/bin/time): wall, user, sys of the cc
	local TIMEFORMAT="%2R %2U %2S"
	if ! { time (cd "$d" && "$cc" "$opt" "${ccf_a[@]}" -o pan pan.c > cc.out 2>&1); } 2> "$d/cctime.out"; then
		cat "$d/cc.out"; echo "FAIL $name: $cc"; FAILED=1; return
	fi
	# glibc.malloc.hugetlb=1: malloc asks for transparent huge pages
	# (madvise), so the hash table and the stored states fault in 2 MB at
	# a time, not 4 KB: first touches (pan's emalloc memsets each chunk)
	# were a third of a NOCOMP search's CPU time on this VM, where a page
	# fault is dear. The same states; PAN_THP=0 turns it off.
	local tun=${GLIBC_TUNABLES:-}
	[ "${PAN_THP:-1}" = 0 ] || tun=${tun:+$tun:}glibc.malloc.hugetlb=1
	(cd "$d" && GLIBC_TUNABLES=$tun exec /usr/bin/time -f "%e %M %U %S" nice ./pan "${panf_a[@]}" > pan.out 2> time.out)
	# the bookkeeping below is bash's own (no sed/grep/awk per run)
	local -a pan_out time_out shown=() viol=()
	local l ce cu cs pe pm pu ps
	mapfile -t pan_out < "$d/pan.out"
	mapfile -t time_out < "$d/time.out"
	errs=""
	for l in "${pan_out[@]}"; do
		[[ $l =~ ^.*errors:\ ([0-9]*) ]] && errs+=${errs:+$'\n'}${BASH_REMATCH[1]}
		[[ $l =~ State-vector|depth\ reached|states,\ stored|total\ actual\ memory ]] && shown+=("    $l")
		[[ $l =~ assertion\ violated|acceptance\ cycle|invalid\ end\ state ]] && ((${#viol[@]} < 3)) && viol+=("    $l")
	done
	((${#shown[@]})) && printf '%s\n' "${shown[@]}"
	read -r pe pm pu ps <<< "${time_out[-1]:-}"
	read -r ce cu cs < "$d/cctime.out"
	cpu_sum "$pu" "$ps"; pu=$REPLY
	cpu_sum "$cu" "$cs"
	echo "    time $pe s, cpu $pu s, peak RSS $((${pm:-0} / 1024)) MB; cc $ce s, cpu $REPLY s"
	((${#viol[@]})) && printf '%s\n' "${viol[@]}"
	case "$expect" in
	pass)
		if [ "$errs" != 0 ]; then
			echo "FAIL $name: violation found; trail:"; trail "$d" "$defs"; FAILED=1
		elif has_re "Search not completed|max search depth too small|reached -DMEMLIM" "${pan_out[@]}"; then
			echo "FAIL $name: the search was not exhaustive"; FAILED=1
		else
			echo "ok   $name: no violation, exhaustive"
		fi ;;
	violation:*|known:*)
		local re=${expect#*:} tl
		if [ "${errs:-0}" != 0 ] && { has_re "$re" "${pan_out[@]}" ||
			{ trail "$d" "$defs" > /dev/null && mapfile -t tl < "$d/trail.txt" && has_re "$re" "${tl[@]}"; }; }; then
			trail "$d" "$defs"
			echo "ok   $name: the expected violation ($re) was found"
		else
			[ "${errs:-0}" != 0 ] && trail "$d" "$defs"
			if [ "${expect%%:*}" = known ]; then
				echo "NOTE $name: the known counterexample ($re) is no longer found: update docs/MODEL.md"
			else
				echo "FAIL $name: expected violation ($re) not found"; FAILED=1
			fi
		fi ;;
	esac
}

# pan_opt NAME: REPLY= the verifier's optimisation level ($PAN_OPT when set): the
# level $PAN_OPT_MODELS gives its model (MODEL:LEVEL ...) for a run that
# costs at least $PAN_OPT_MIN CPU seconds in the cost table, else -O0.
# clang -O2 of lcf.pml's pan takes 108 CPU-s (-O0: 6.5) for a search 15%
# faster: never worth it at CI bounds; qalias-fix-id1: cc 0.7 + search 80.5
# CPU-s at -O0, 3.2 + 51.3 at -O2; qlock-three: cc 16.9 + 23.0 at -O2,
# 6.8 + 19.2 at -O1; qlock-threads.pml: clang -O2 compiles in 89.5 CPU-s
# (-O0: 2.1), more than its heaviest search (81 s at -O0).
pan_opt() {
	local m
	if [ -n "${PAN_OPT:-}" ]; then
		REPLY=$PAN_OPT
		return
	fi
	for m in $PAN_OPT_MODELS; do
		if [ "${m%%:*}" = "${PML:-lcf.pml}" ] && ((${OPT_BIG[$1]:-${OPT_BIG[-]}})); then
			REPLY=${m#*:}
			return
		fi
	done
	REPLY=-O0
}

# pan_cc NAME: REPLY= the compiler of the run's verifier: tcc ($PAN_FAST_CC) for an
# -O0 run of less than $PAN_FAST_MAX CPU-s in the cost table, else $PAN_CC.
# tcc compiles lcf.pml's pan in 0.16 CPU-s (clang -O0: 4.6) into a
# verifier that searches 0-28% slower (the same states: pipe 532,641,
# old-two-writers 448,015, vohsw-reader 3,127,718), so it pays below
# about 20 CPU-s of search: 63 of the CI set's 81 runs, whose CPU time it
# halves (193 to 99 CPU-s, the same states in each).
pan_cc() {
	pan_opt "$1"
	if [ -n "$PAN_FAST_CC" ] && [ "$REPLY" = -O0 ] && ((${FAST_OK[$1]:-${FAST_OK[-]}})); then
		REPLY=$PAN_FAST_CC
	else
		REPLY=$PAN_CC
	fi
}

# has_re ERE LINE...: whether a line matches the extended regex (grep -qE)
has_re() {
	local re=$1 l
	shift
	for l; do [[ $l =~ $re ]] && return 0; done
	return 1
}

# cpu_sum A B: REPLY= A + B, two times of /usr/bin/time's N.NN form,
# printed as awk prints their sum (%.6g: 0.5, 2, 1.25)
cpu_sum() {
	local a=${1:-0} b=${2:-0} c
	[[ $a == *.* ]] || a=$a.00
	[[ $b == *.* ]] || b=$b.00
	c=$((10#${a%.*} * 100 + 10#${a#*.} + 10#${b%.*} * 100 + 10#${b#*.}))
	if ((c >= 1000000)); then
		REPLY=$(awk -v c="$c" 'BEGIN { print c / 100 }')
	elif ((c % 100 == 0)); then
		REPLY=$((c / 100))
	elif ((c % 10 == 0)); then
		REPLY=$((c / 100)).$((c % 100 / 10))
	else
		printf -v REPLY '%d.%02d' $((c / 100)) $((c % 100))
	fi
}

# trail DIR DEFS: the counterexample as messages (once; cached in trail.txt).
trail() {
	local d=$1 defs=$2
	if [ ! -s "$d/trail.txt" ]; then
		local -a defs_a
		read -ra defs_a <<< "$defs"
		(cd "$d" && spin "${SPIN_P[@]}" -t "${defs_a[@]}" "${PML:-lcf.pml}" 2>&1 | awk -f "$MODEL/trail.awk" > trail.txt)
	fi
	local -a t
	mapfile -t t < "$d/trail.txt"
	((${#t[@]} == 0)) || printf '    | %s\n' "${t[@]}"
}

SAFE="-DSAFETY -DMEMLIM=6000"
LIVE="-DMEMLIM=6000 -DNFAIR=3"
TWOW="-DSCRIPT -DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=0 -DDUP=1 -DDUPCH=1 -DMIG=2 -DREMOVES=0 -DINSW=0 -DEVMASK=6"

if [ $DEEP = 0 ]; then
	# OLD rules: the two-writer sequence (docs/MODEL.md) must be found.
	run old-two-writers "violation:SWMR VIOLATED" "$TWOW" "$SAFE" "-m10000 -w22"
	# OLD rules: a lost UNLOCK second pass leaks the lock (LAST-UNLOCK advanced on pass 1).
	run old-lost-unlock-pass "violation:lw\[0\] == 0|lw\[0\]==0" \
		"-DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=1 -DDUP=0 -DBADRS=1" "$SAFE" "-m10000 -w22"
	# NEW rules on the same bounds: new-remove-late-copy below (REMOVEs
	# allowed as well: a superset of new-two-writers, which is in --deep).
	# NEW rules, both blocks in the switch, every event type, loss, duplication,
	# reordering, seqs of both parities.
	run new-switch "pass" "-DNEW -DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=1 -DDUP=1 -DDUPCH=1" \
		"$SAFE" "-m10000 -w24"
	# Write-through writers (SABRes' dsm_write_object): a write event may
	# write its block home before its unlock (every write event both ways:
	# COLLAPSE, no seq skips; the blocks-at-home run is in --deep).
	run new-write-through-switch pass \
		"-DNEW -DWT -DEV0=2 -DEV1=1 -DSKIP=0 -DLOSS=1 -DDUP=1 -DDUPCH=1" \
		"$SAFE -DCOLLAPSE" "-m10000 -w24"
	# NEW rules with a lost UNLOCK second pass.
	run new-lost-unlock-pass pass "-DNEW -DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=1 -DDUP=0 -DBADRS=1" \
		"$SAFE" "-m10000 -w24"
	# An ABORT answered by the switch alone: a late copy that missed before
	# an ADD reaches the home after a REMOVE and holds its lock for good.
	MIGBACK="-DSCRIPT -DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=0 -DDUP=1 -DDUPCH=1 -DMIG=2 -DINSW=0 -DEVMASK=6"
	run abort-at-switch-remove-late-copy "violation:hw\[0\] == 0|hw\[0\]==0" \
		"-DNEW -DABORT_AT_SWITCH $MIGBACK" "$SAFE" "-m10000 -w24"
	# NEW rules (the ABORT goes on to the home): ADD, then REMOVE, late copies.
	run new-remove-late-copy pass "-DNEW $MIGBACK" "$SAFE" "-m10000 -w24"
	# NEW rules, three WRITE_MISSes of Y (WRITES3): a copy of a write event
	# the switch served and unlocked reaches the home after the REMOVE (it
	# missed before the ADD, or passes after the REMOVE on COUNT 0: not
	# over) and the home grants it: its lock is held for good (open; na-sim
	# --seed 3 --nodes 3 --threads 1 --switch-blocks 8 --events 120
	# --workload poll --blocks 1 --updaters all --hold WRITE_MISS:2
	# --hold-for 200ev --loss 0 --dup 0 --jitter-us 0 --max-rate 50000).
	run remove-late-copy-3w "known:hw\[0\] == 0|hw\[0\]==0" \
		"-DNEW -DWRITES3 ${MIGBACK/-DSKIP=1/-DSKIP=0}" "$SAFE" "-m10000 -w24"
	# PIPE diff write-back (docs/PIPE.md): the EVICT_MODIFIED's write-back is
	# a diff against the twin when the line became Modified with the home's
	# data; X in the switch, Y at home, every event type, a loss / a dup.
	PIPEB="-DNEW -DPIPE -DEV0=3 -DEV1=1 -DSKIP=0 -DDUP=0 -DINSW=1"
	run pipe pass "$PIPEB -DLOSS=1" "$SAFE" "-m10000 -w22"
	run pipe-dup pass "-DNEW -DPIPE -DEV0=2 -DEV1=1 -DSKIP=0 -DLOSS=1 -DDUP=1 -DDUPCH=1 -DINSW=1" \
		"$SAFE" "-m10000 -w22"
	# ... and a diff on every write-back (also after a Modified owner's
	# data): the home's copy is not the twin, the write-back corrupts it.
	run pipe-always "violation:DATA VIOLATED" "$PIPEB -DLOSS=0 -DPIPE_ALWAYS" "$SAFE" "-m10000 -w22"
	# Liveness (NEW): every requester finishes, weak fairness, FIFO network
	# with one loss, one duplication and one reordering.
	run new-live pass "-DNEW -DFIFO_NET -DLIVE -DEV=1 -DLOSS=1 -DDUP=1 -DREO=1" \
		"$LIVE" "-m100000 -w22 -a -f -N live"
	# Validate-on-hit (voh.pml, docs/VALIDATE.md): version reads, the
	# ReadQueue/UpdateQueue home, loss, duplication, reordering.
	PML=voh.pml run voh-one-reader pass "-DNRD=1 -DROPS=2 -DUPS=2 -DLOSS=1 -DDUP=1" \
		"$SAFE -DCOLLAPSE" "-m100000 -w22"
	PML=voh.pml run voh-two-readers pass "-DNRD=2 -DROPS=1 -DUPS=1 -DLOSS=1 -DDUP=1" \
		"$SAFE -DCOLLAPSE" "-m100000 -w24"
	# The TTL baseline (a copy served without the version read) reads stale.
	PML=voh.pml run voh-ttl-stale "violation:assertion violated" \
		"-DNRD=1 -DROPS=2 -DUPS=1 -DLOSS=0 -DDUP=0 -DTTL=1" "$SAFE" "-m100000 -w20"
	# Validate-on-hit for a switch-owned block (vohsw.pml): the switch's
	# VERSION register bumped by write grants, VERSION_READ, the copy
	# stamped with the version read before its fetch (writer bit clear, no
	# own write since); loss, duplication and reordering of VERSION_READ.
	PML=vohsw.pml run vohsw-reader pass "-DSELF=0 -DWOPS=3 -DROPS=3 -DLOSS=1 -DDUP=1" \
		"$SAFE -DCOLLAPSE" "-m100000 -w22"
	PML=vohsw.pml run vohsw-self pass "-DSELF=1 -DWOPS=2 -DROPS0=2 -DROPS=0 -DLOSS=1 -DDUP=1" \
		"$SAFE -DCOLLAPSE" "-m100000 -w22"
	# ... and each part of the rule is needed: no bump on WRITE_SHARED, a
	# copy stamped while the writer bit is set, own writes not dropping it.
	PML=vohsw.pml run vohsw-nobump-ws "violation:assertion violated" \
		"-DSELF=0 -DWOPS=2 -DROPS=2 -DNOBUMP_WS=1" "$SAFE" "-m100000 -w20"
	PML=vohsw.pml run vohsw-nobusy "violation:assertion violated" \
		"-DSELF=0 -DWOPS=2 -DROPS=3 -DNOBUSY=1" "$SAFE" "-m100000 -w20"
	PML=vohsw.pml run vohsw-nogen "violation:assertion violated" \
		"-DSELF=1 -DWOPS=2 -DROPS0=2 -DROPS=0 -DNOGEN=1" "$SAFE" "-m100000 -w20"
	# Queued locks (qlock.pml, docs/QUEUED-LOCKS.md): forward to the queue
	# holder, QXFER / QRELEASE, the holder's FIFO and Q_GRANT hand-over.
	QL="$SAFE -DCOLLAPSE"
	PML=qlock.pml run qlock-three pass "-DN=3 -DEV=1 -DLOSS=0 -DDUP=1 -DRETX=1" "$QL" "-m100000 -w22"
	PML=qlock.pml run qlock-loss pass "-DN=2 -DEV=1 -DLOSS=1 -DDUP=1 -DRETX=1" "$QL" "-m100000 -w22"
	PML=qlock.pml run qlock-two-events-dup pass "-DN=2 -DEV=2 -DLOSS=0 -DDUP=1 -DRETX=1" "$QL" "-m100000 -w22"
	PML=qlock.pml run qlock-two-events-lost-pass pass \
		"-DN=2 -DEV=2 -DLOSS=1 -DDUP=0 -DRETX=1 -DBADRS=1" "$QL" "-m100000 -w22"
	# QXFER/QRELEASE approved without comparing the count: a forward still on
	# its way reaches the old holder after the transfer.
	PML=qlock.pml run qlock-no-count "violation:seen\[me\]" \
		"-DN=3 -DEV=1 -DLOSS=0 -DDUP=0 -DRETX=0 -DNOCOUNT" "$QL" "-m100000 -w20"
	# QXFER that does not end the holder's event in LAST-UNLOCK: a late copy
	# of its request takes the lock for an event that is over.
	PML=qlock.pml run qlock-no-lu "violation:seen\[me\]|lockw==0" \
		"-DN=3 -DEV=1 -DLOSS=0 -DDUP=1 -DRETX=0 -DNOLU" "$QL" "-m100000 -w22"
	# Readers and the waiting writer (RD readers, RDEV read events each): a
	# write that meets readers waits at the switch (WAITING, QSTATE SWITCH,
	# QWAIT, polls, QGRANT, the `waiting` denial).
	QR="-DSAFETY -DMEMLIM=3000 -DCOLLAPSE"
	PML=qlock.pml run qlock-readers pass \
		"-DN=2 -DEV=2 -DLOSS=0 -DDUP=1 -DRETX=1 -DRD=1 -DRDEV=2" "$QR" "-m100000 -w22"
	PML=qlock.pml run qlock-readers-two pass \
		"-DN=2 -DEV=1 -DLOSS=0 -DDUP=1 -DRETX=1 -DRD=2 -DRDEV=2" "$QR" "-m100000 -w22"
	# (qlock-readers-loss, 37 s: --deep; loss with a waiting writer is in
	# qlock-readers-abort below)
	# A node that ends its waiting tenure before the QGRANT: denied
	# `waiting` while readers hold, approved once they are gone.
	PML=qlock.pml run qlock-readers-giveup pass \
		"-DN=2 -DEV=1 -DLOSS=0 -DDUP=1 -DRETX=1 -DRD=1 -DRDEV=1 -DGIVEUP" "$QR" "-m100000 -w22"
	# A requester whose QWAIT has not arrived gives its event up (ABORT,
	# lost and retransmitted like the rest): `passed` for the waiting
	# tenure, the node polls on and passes the tenure on at its QGRANT;
	# `aborted` marks the event over (a late copy: row 2 / the lock-taken
	# undo, never forwarded). Loss (a lost QWAIT), then duplication.
	PML=qlock.pml run qlock-readers-abort pass \
		"-DN=2 -DEV=1 -DLOSS=1 -DDUP=0 -DRETX=1 -DRD=1 -DRDEV=1 -DGIVEUPW=1" "$QR" "-m100000 -w22"
	PML=qlock.pml run qlock-readers-abort-dup pass \
		"-DN=2 -DEV=1 -DLOSS=0 -DDUP=1 -DRETX=1 -DRD=1 -DRDEV=1 -DGIVEUPW=1" "$QR" "-m100000 -w22"
	# ... and the ABORT of a waiting tenure answered `aborted` (the
	# SCOREBOARD alone: the waiter's copy was never counted): nobody polls,
	# the tenure and WAITING stay, the next writer is forwarded to it.
	PML=qlock.pml run qlock-readers-noabortw "violation:st\[n\]" \
		"-DN=2 -DEV=1 -DLOSS=1 -DDUP=0 -DRETX=1 -DRD=1 -DRDEV=1 -DGIVEUPW=1 -DNOABORTW" "$QR" "-m100000 -w20"
	# No row 4: the waiter's poll is forwarded to its own tenure, nobody
	# grants it (quiescence with the writers waiting).
	PML=qlock.pml run qlock-readers-nopoll "violation:st\[n\]" \
		"-DN=2 -DEV=1 -DLOSS=0 -DDUP=0 -DRETX=0 -DRD=1 -DRDEV=1 -DNOPOLL" "$QR" "-m100000 -w20"
	# No `waiting` denial: the ungranted tenure's QXFER is approved, its
	# queue's head is granted while a reader is inside.
	PML=qlock.pml run qlock-readers-nodeny "violation:readers==0" \
		"-DN=2 -DEV=1 -DLOSS=0 -DDUP=0 -DRETX=0 -DRD=1 -DRDEV=1 -DGIVEUP -DNODENY" "$QR" "-m100000 -w20"
	# A given-up tenure ends out of its thread's unlock order (qorder.pml):
	# node 0 gives its Y write up and goes on with reads of X; the rules
	# pass, and each of today's halves keeps its counterexample: QRELEASE's
	# second pass gated by LAST-UNLOCK (Y left locked), QXFER / QRELEASE
	# writing LAST-UNLOCK (an earlier unlock of X ignored), the waiting
	# writer's poll NACKed stale (its tenure never granted).
	QO="-DSAFETY -DMEMLIM=3000"
	PML=qorder.pml run qorder pass "-DEV0=2" "$QO" "-m100000"
	PML=qorder.pml run qorder-old-gate "violation:yw==0" "-DOLDLU -DRD1=0" "$QO" "-m100000"
	PML=qorder.pml run qorder-old-luw "violation:xrd==0" "-DOLDLUW -DRD1=0" "$QO" "-m100000"
	PML=qorder.pml run qorder-old-poll "violation:tst==5" "-DOLDPOLL -DRD1=1" "$QO" "-m100000"
	# The same at a home agent (HOME: one-step unlock and QRELEASE, no
	# waiting writer): passes; the home's earlier rule (QXFER / QRELEASE
	# against LAST-EXECUTED of unlocks) leaves Y locked (a stale QRELEASE
	# ignored after a later unlock).
	PML=qorder.pml run qorder-home pass "-DHOME -DEV0=2" "$QO" "-m100000"
	PML=qorder.pml run qorder-home-old "violation:tst==5" "-DOLDHOME -DEV0=2 -DRD1=0" "$QO" "-m100000"
	# The queue holder id's seq width (qalias.pml, IDW bits; the C and P4
	# keep 16): a delayed QRELEASE copy executes against its requester's
	# later tenure with the same id, a second writer is granted. Matched on
	# the whole seq it passes with one duplicate; with two, a copy denied
	# not_holder reopens QGATE for a second pass still pending (open).
	PML=qalias.pml run qalias-id1 "violation:holder==255" "-DIDW=1 -DEV=3 -DDUP=1" "$QO" "-m100000"
	PML=qalias.pml run qalias-full pass "-DFULL -DEV=3 -DDUP=1" "$QO" "-m100000"
	PML=qalias.pml run qalias-full-dup2 "violation:holder==255" "-DFULL -DEV=5 -DDUP=2" "$QO" "-m100000"
	# The fix (comment at the top of qalias.pml): the second pass carries
	# QGATE's epoch (TOKEN) and a QRELEASE 2^(IDW-1) seqs before the
	# requester's SCOREBOARD seq is stale (WIN), at a 1-bit id, in the C
	# and P4 stage order (GATEFIRST: a stale copy still opens QGATE).
	PML=qalias.pml run qalias-fix-id1 pass "-DIDW=1 -DWIN -DTOKEN -DGATEFIRST -DEPW=2 -DEV=4 -DDUP=3" "$QO" "-m100000"
	# The forward's tenure tag (qtag.pml, TW bits of the holder's seq; the
	# C and P4 keep 6): a forward that outlived its tenure is queued in
	# the holder thread's tenure 2^TW seqs later and it is handed to a
	# requester event that is over, which only acknowledged: Y locked for
	# good (-old). The rule: such a Q_GRANT is taken and ended by
	# QRELEASE (PHANTOM), not acknowledged while a tenure of that seq is
	# held here. A 2-bit tag, duplicated or lost forwards: --deep.
	QG="-DSAFETY -DMEMLIM=2000"
	PML=qtag.pml run qtag-old "violation:yw==0" "" "$QG" "-m100000"
	PML=qtag.pml run qtag pass "-DPHANTOM" "$QG" "-m100000"
	# The holder's end answered late (STALE: its timer fires while an end
	# or its answer is in flight): TRIM drops a forward of the holder's
	# own tenure on an earlier send's denial (REAL's ghost); the count up
	# to the highest FWD_CNT denied (UPTO) with the end kept (PIN) passes.
	QS="-DPHANTOM -DRESEND=4 -DSTALE=1 -DRETX0=0"
	PML=qtag.pml run qtag-stale-trim "violation:realb" "$QS -DTRIM -DREAL" "$QG" "-m100000"
	PML=qtag.pml run qtag-stale pass "$QS -DUPTO -DPIN" "$QG" "-m100000"
	# Several threads per node (qlock-threads.pml): node 0 has two threads,
	# per-thread holder slots, local hits, a NACKed seq retried or given up
	# (ABORT), local_wait_forward and pass_on. A late copy of a request
	# (DUPK=1: requests duplicated) and a NACK from outside the model
	# (NACKX=1: the home's "not home") for one copy of a queued request.
	QT="-DN=2 -DNT=2 -DOPS=1 -DDUP=1 -DDUPK=1"
	PML=qlock-threads.pml run qlock-threads pass "$QT -DNACKX=1" "$QL" "-m100000 -w22"
	PML=qlock-threads.pml run qlock-threads-two-ops pass \
		"-DN=2 -DNT=2 -DOPS=2 -DOPS1=1 -DDUP=0 -DNACKX=1" "$QL" "-m100000 -w22"
	# The busy claim released during a NACK's backoff: the Q_GRANT comes
	# while the thread backs off, the other local thread queues behind it.
	# Depth bound 300: the counterexample is at depth 248; the unbounded
	# search finds it after 3.5 M states (81 CPU-s), this one after 0.4 M (9.5).
	PML=qlock-threads.pml run qlock-threads-relbusy "violation:rst\[n\]" \
		"$QT -DNACKX=1 -DRELBUSY" "$QL" "-m300 -w22"
	# ... and the given-up event ended only at its thread's next miss: the
	# lock stays with it while the node's threads hit.
	PML=qlock-threads.pml run qlock-threads-lateq "violation:lockw==0" \
		"$QT -DRELBUSY -DLATEQ" "$QL" "-m100000 -w22"
	# A NACKed seq given up for a new seq of the same thread (na_req_event:
	# its type changed, WRITE_SHARED -> WRITE_MISS when the Shared copy went
	# in the backoff; the KV benchmark's rwlocks): a copy of the old seq
	# queued meanwhile is granted while the slot serves the new seq; a
	# passing slot takes the Q_GRANT and passes it on (pass_on). Twice
	# (NACKX=2): two seqs given up in a row, the first one's Q_GRANT comes.
	PML=qlock-threads.pml run qlock-threads-typechg pass \
		"-DN=2 -DNT=1 -DOPS=2 -DOPS1=1 -DDUP=1 -DDUPK=1 -DNACKX=1 -DTYPECHG" "$QL" "-m100000 -w22"
	# Two seqs given up in a row (NACKX 2, a superset of the run above) and
	# the kept slot (DUP 2) are in --deep.
	# Retry mode, two threads of one node (rthreads.pml): a refused
	# READ_MISS whose duplicate holds the read lock, a sibling's read putting
	# the node in COPYSET, the quarantine's re-sent copies refused by the
	# check. Today's rule leaks the lock; the check-refusal release holds.
	PML=rthreads.pml run rthreads-old "violation:invalid end state" "-DDUP=1 -DLOSS=1 -DR=2" "-DSAFETY" "-m10000 -w18"
	PML=rthreads.pml run rthreads pass "-DFIX -DDUP=2 -DLOSS=2 -DR=3" "-DSAFETY" "-m100000 -w18"
	# ... at a home lock (rlocal.pml): T1's refused WRITE_SHARED whose
	# duplicate holds the lock, sibling T2 evicting the one cache entry and
	# keeping it busy through refused retries. Today's rule: T1 waits
	# locally, its seq never ended (stuck); ended before a local wait,
	# passes (a hit, then a miss on another tag, included).
	PML=rlocal.pml run rlocal-old "violation:invalid end state" "-DDUP=1" "-DSAFETY" "-m10000 -w18"
	PML=rlocal.pml run rlocal pass "-DFIX -DHIT -DDUP=3 -DLOSS=2 -DR=4" "-DSAFETY" "-m100000 -w18"
	# Directory baseline (dircount.pml): refusals counted against copies
	# sent miss the network's duplicate; the home's ABORT does not.
	PML=dircount.pml run dircount-old "violation:wl *== *0" "-DDUP=1" "-DSAFETY" "-m10000 -w18"
	PML=dircount.pml run dircount pass "-DFIX -DDUP=3" "-DSAFETY" "-m10000 -w18"
	# Static and dynamic migration of one block (migmix.pml): the static
	# loop's ADD during a drain clears the holder's lock; not once a
	# draining block is skipped and counts no ACK.
	PML=migmix.pml run migmix-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=migmix.pml run migmix pass "-DFIX -DC=4" "-DSAFETY" "-m10000 -w18"
	# A migration's ADD copies duplicated (migdup.pml): a copy in flight
	# after its set's FAILs installs the block the home took back; not
	# with the home's hold (no copy sent, any set's OK counts) until
	# nothing is in flight. An OK lost in the hold: known.
	PML=migdup.pml run migdup-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=migdup.pml run migdup pass "-DFIX -DLOSS=1 -DFREE=2" "-DSAFETY" "-m10000 -w20"
	PML=migdup.pml run migdup-lostok "known:assertion violated" "-DFIX -DLOSSACK=1" "-DSAFETY" "-m10000 -w18"
	# A reader crashes holding the lock of a draining block (migcrash.pml):
	# the failure drain skips it, the migration drain gives up, the lock
	# stays; not once a draining block is drained and its entry forgotten.
	PML=migcrash.pml run migcrash-old "violation:invalid end state" "" "-DSAFETY" "-m10000 -w18"
	PML=migcrash.pml run migcrash-nomine "violation:invalid end state" "-DFIX -DNOMINE" "-DSAFETY" "-m10000 -w18"
	PML=migcrash.pml run migcrash pass "-DFIX" "-DSAFETY" "-m10000 -w18"
	# A node declared dead while the ADD of a block it cached is out
	# (migdead.pml): a copy sent after the declaration installs it in the
	# COPYSET; not once the drain clears it and no copy names a dead node.
	# A copy in flight at the declaration: not once the homes are declared
	# first and the switch evicts when none is in flight.
	PML=migdead.pml run migdead-old "violation:assertion violated" "-DQUIET" "-DSAFETY" "-m10000 -w18"
	PML=migdead.pml run migdead pass "-DFIX -DQUIET" "-DSAFETY" "-m10000 -w18"
	PML=migdead.pml run migdead-inflight pass "-DFIX -DHOMESFIRST" "-DSAFETY" "-m10000 -w18"
	# The declaration evicts a block an unanswered ADD installed and a write
	# moved on (migsettle.pml): the next copy re-installs the home's old
	# metadata; not once the drain stops the copies, waits them out,
	# REMOVEs and recovers the block from the caches, the switch evicting
	# after the homes' marks.
	PML=migsettle.pml run migsettle-old "violation:assertion violated" "-DOLD -DHOMESFIRST" "-DSAFETY" "-m10000 -w18"
	PML=migsettle.pml run migsettle-switchfirst "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=migsettle.pml run migsettle pass "-DHOMESFIRST -DCOPIES=4 -DWRITES=3" "-DSAFETY" "-m10000 -w18"
	# A switch restart while an ADD that installed the block (replies lost)
	# is unanswered, a write having moved the data on (migrestart.pml): a
	# re-sent copy installs the home's old metadata in the new switch;
	# not once an unanswered ADD is settled (copies waited out, REMOVE,
	# recovery from the caches), not re-sent; the REMOVE at once: a
	# duplicate in flight re-installs it. The settled copy's answer in
	# the hold decides (OK: the switch's; FAIL: home, no round); a
	# duplicate installed after the FAIL, its OK lost: the collision's
	# known hole (migdup-lostok).
	PML=migrestart.pml run migrestart-old "violation:assertion violated" "-DOLD" "-DSAFETY" "-m10000 -w18"
	PML=migrestart.pml run migrestart-nohold "violation:assertion violated" "-DNOHOLD" "-DSAFETY" "-m10000 -w18"
	PML=migrestart.pml run migrestart pass "-DCOPIES=4 -DWRITES=3 -DDUPS=2" "-DSAFETY" "-m10000 -w18"
	PML=migrestart.pml run migrestart-lostok "known:assertion violated" "-DLOSTOK" "-DSAFETY" "-m10000 -w18"
	# A settle's REMOVE answer taken for a later settle's (migorphan.pml):
	# a round on a block the switch holds, its writer's lock orphaned.
	PML=migorphan.pml run migorphan-old "violation:assertion violated" "-DOLD" "-DSAFETY" "-m10000 -w18"
	PML=migorphan.pml run migorphan pass "-DINCS=3 -DRMCOPIES=3" "-DSAFETY" "-m10000 -w18"
	# A settled ADD's second pass after its REMOVE's first (migpass.pml,
	# the test-migration --faults hang): the tag miss sends the block
	# into a round while the ADD installs it; not once a tag miss counts
	# only for a REMOVE sent after an answer of the removal.
	PML=migpass.pml run migpass-old "violation:assertion violated" "-DOLD" "-DSAFETY" "-m10000 -w18"
	PML=migpass.pml run migpass pass "-DRMCOPIES=3" "-DSAFETY" "-m10000 -w18"
	# A copy of an event a settle's round gave up, delayed past the
	# block's re-ADD (miglate.pml): it takes the lock nobody releases;
	# not once the given-up event is quarantined (ABORT until answered);
	# with no copy overtaking the requester's report, today's rule holds.
	PML=miglate.pml run miglate-old "violation:assertion violated" "-DOLD" "-DSAFETY" "-m10000 -w18"
	PML=miglate.pml run miglate-old-fifo pass "-DOLD -DFIFO -DCOPIES=3" "-DSAFETY" "-m10000 -w18"
	PML=miglate.pml run miglate pass "-DCOPIES=4" "-DSAFETY" "-m10000 -w18"
	# An executed event whose lock a round dropped (recpass.pml, na-sim
	# crash + migrate exit 3): its ABORT answered "a copy passed", every
	# re-sent copy replays a forward to a provider a writer invalidated;
	# not once the round turns that seq's decision into a NACK.
	PML=recpass.pml run recpass-old "violation:invalid end state" "-DOLD" "-DSAFETY" "-m10000 -w18"
	PML=recpass.pml run recpass pass "" "-DSAFETY" "-m10000 -w18"
	# The same with the switch's lock (crash sweep 71 run 73): the home
	# provided, kept its decision, the ABORT answered "passed", and the
	# re-ADDed block's switch NACKs every re-sent copy; not once every
	# reported unsettled seq the home executed gets a NACK decision.
	PML=recpass.pml run recpass-switch-old "violation:invalid end state" "-DSWITCH -DSWOLD" "-DSAFETY" "-m10000 -w18"
	PML=recpass.pml run recpass-switch pass "-DSWITCH -DLOSS=2 -DRS=3" "-DSAFETY" "-m10000 -w18"
	# The requester quarantined before the round, "a copy passed" (na-sim
	# restart 83 run 659): a round that begins and ends while it sleeps
	# leaves that answer standing; not once a round since voids it.
	PML=recpass.pml run recpass-early-old "violation:invalid end state" "-DEARLY -DNOGEN" "-DSAFETY" "-m10000 -w18"
	PML=recpass.pml run recpass-early pass "-DEARLY" "-DSAFETY" "-m10000 -w18"
	# SCOREBOARD rows reused (migrows.pml, the test-migration hang's
	# four orphaned reader locks): an event a round gave up ended with
	# neither an unlock nor an answered ABORT lets its thread's seq s+2
	# move the row of s on while s's lock counts; not once every dropped
	# event stays quarantined (ABORT until answered).
	PML=migrows.pml run migrows-old "violation:assertion violated" "-DOLD -DCOPIES=1" "-DSAFETY" "-m10000 -w18"
	PML=migrows.pml run migrows pass "-DCOPIES=1" "-DSAFETY" "-m10000 -w18"
	# The home-local path (homelocal.pml, issue 27 item 2): a requester on
	# its block's home sends straight to the home agent. Whenever the home
	# is local: starved once the block is in the switch; while the home
	# owns it, copy by copy: a wire copy of an event whose unlock went
	# local takes the switch lock after a later ADD; the event keeping the
	# wire once a copy went there passes.
	PML=homelocal.pml run homelocal-naive "violation:non-progress cycle" "-DNAIVE" "-DNP" "-m10000 -w18 -l -f"
	PML=homelocal.pml run homelocal-guard "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=homelocal.pml run homelocal pass "-DFIX" "-DSAFETY" "-m10000 -w20"
	# A recovery round against an invalidation already in flight
	# (recfreeze.pml): a copy executed after the sharer's report leaves
	# the rebuilt copyset naming a node without the data; dropped from
	# the report to DONE, passes; a copy older than the round, known.
	PML=recfreeze.pml run recfreeze-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=recfreeze.pml run recfreeze pass "-DFIX -DCOPIES=3" "-DSAFETY" "-m10000 -w18"
	PML=recfreeze.pml run recfreeze-late "known:assertion violated" "-DFIX -DLATE" "-DSAFETY" "-m10000 -w18"
	# A request sent once a recovery round has the node's report
	# (recsend.pml): granted after the rebuild, dropped as aborted, the
	# lock nobody's; not once the record refuses while a round holds it.
	PML=recsend.pml run recsend-old "violation:invalid end state" "" "-DSAFETY" "-m10000 -w18"
	PML=recsend.pml run recsend pass "-DFIX" "-DSAFETY" "-m10000 -w18"
	# A dead requester's orphan data (recorphan.pml): not written (no
	# report lists its event), memory stale; written whatever (-nocmp), an
	# old orphan overwrites a later write; written when current, neither.
	PML=recorphan.pml run recorphan-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=recorphan.pml run recorphan-nocmp "violation:assertion violated" "-DNOCMP" "-DSAFETY" "-m10000 -w18"
	PML=recorphan.pml run recorphan pass "-DFIX" "-DSAFETY" "-m10000 -w18"
	# ... and the requester re-admitted at the provider before its report:
	# the rejoin forgot the orphan record (-rejoin); kept aside until a
	# round on its block ends, reported only when current (-alias: the new
	# incarnation's seqs match it).
	PML=recorphan.pml run recorphan-rejoin "violation:assertion violated" "-DFIX -DREJOIN" "-DSAFETY" "-m10000 -w18"
	PML=recorphan.pml run recorphan-keep pass "-DFIX -DREJOIN -DKEEP" "-DSAFETY" "-m10000 -w18"
	PML=recorphan.pml run recorphan-alias "violation:assertion violated" "-DFIX -DREJOIN -DKEEP -DALIAS" "-DSAFETY" "-m10000 -w18"
	# The home's orphan-data slots (recslots.pml): the orphan's record
	# dropped when the slots are full of old ones, memory stale; headers
	# kept, slots freed for the orphan and its provider asked again, not.
	PML=recslots.pml run recslots-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=recslots.pml run recslots pass "-DFIX" "-DSAFETY" "-m10000 -w18"
	# A requester's UNSETTLED records (recunset.pml): its retries before
	# the round push the record of the event holding the lock at the
	# restart out of the ring, the orphan is not written; the lowest and
	# highest kept per block and a DIRTY seq between them matching, it is.
	PML=recunset.pml run recunset-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=recunset.pml run recunset-exact "violation:assertion violated" "-DFIX -DEXACT" "-DSAFETY" "-m10000 -w18"
	PML=recunset.pml run recunset pass "-DFIX" "-DSAFETY" "-m10000 -w18"
	# A late copy of a round's BEGIN (recround.pml): after the round's
	# DONE it starts the round again, which never ends; not when a BEGIN
	# not newer than the last round ended (serial arithmetic) is ignored.
	# RW 2: a copy more than M/2 rounds late aliases (-alias); the rejoin
	# forgets the last round of a restarted home (-noforget: it does not).
	PML=recround.pml run recround-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=recround.pml run recround pass "-DFIX -DNR=5 -DLATE=2" "-DSAFETY" "-m10000 -w18"
	PML=recround.pml run recround-alias "violation:assertion violated" "-DFIX -DNR=5 -DLATE=3" "-DSAFETY" "-m10000 -w18"
	PML=recround.pml run recround-restart pass "-DFIX -DRESTART -DLATE=2" "-DSAFETY" "-m10000 -w18"
	PML=recround.pml run recround-noforget "violation:invalid end state" "-DFIX -DRESTART -DNOFORGET" "-DSAFETY" "-m10000 -w18"
	# A round a home starts between a node's declaration and its drain
	# (recjoin.pml): it lists the node, whose new incarnation takes the
	# BEGIN and never gets DONE; not when the declared nodes are left out.
	PML=recjoin.pml run recjoin-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w18"
	PML=recjoin.pml run recjoin pass "-DFIX -DNR=3 -DLOSS=2" "-DSAFETY" "-m10000 -w18"
	# ... and a copy the node reported in the running round before it
	# died: rebuilt into the copyset unless the drain takes it out.
	PML=recjoin.pml run recjoin-hold "violation:assertion violated" "-DFIX -DHOLD" "-DSAFETY" "-m10000 -w18"
	PML=recjoin.pml run recjoin-holdfix pass "-DFIX -DHOLD -DFIX2 -DNR=3 -DLOSS=2" "-DSAFETY" "-m10000 -w18"
	# Queued mode across a restart (qrejoin.pml): the holder table keeps
	# the re-admitted node dead, a hand-over approved to its new event
	# sends no Q_GRANT; cleared at the rejoin, passes.
	PML=qrejoin.pml run qrejoin-old "violation:invalid end state" "" "-DSAFETY" "-m10000 -w18"
	PML=qrejoin.pml run qrejoin pass "-DFIX -DWD=3" "-DSAFETY" "-m10000 -w18"
	# ... and a round that takes the block while the thread's next event
	# waits for its ending tenure: the report waits for the thread, the
	# tenure for the round's end (ROUND); out of the event, passes.
	PML=qrejoin.pml run qrejoin-round-old "violation:invalid end state" "-DROUND" "-DSAFETY" "-m10000 -w18"
	PML=qrejoin.pml run qrejoin-round pass "-DROUND -DFIX" "-DSAFETY" "-m10000 -w18"
	# ... and a home forwarding to a dead holder's node: the new process's
	# slot with the old tenure's id queues it, its count never matches
	# (FWD); NACKed while the node is dead, passes.
	PML=qrejoin.pml run qrejoin-fwd-old "violation:invalid end state" "-DFWD" "-DSAFETY" "-m10000 -w18"
	PML=qrejoin.pml run qrejoin-fwd pass "-DFWD -DFIX" "-DSAFETY" "-m10000 -w18"
	# Validate-on-hit's fallback write (vohfall.pml): the VOH home serves
	# its memory and version under a Modified owner; the fixed rule
	# (refuse while locked or Modified, count home write grants) does not.
	PML=vohfall.pml run vohfall-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w16"
	PML=vohfall.pml run vohfall pass "-DFIX" "-DSAFETY" "-m10000 -w16"
	# A repeated VOH_READ of a granted read (vohdup.pml): answered from
	# memory and version after a coherence write, a stale copy validates;
	# refused unless unchanged since the grant, with every later copy
	# refused too (without: a lost FAIL leaves the reader re-sending).
	PML=vohdup.pml run vohdup-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w16"
	PML=vohdup.pml run vohdup-norefail "violation:invalid end state" "-DFIX -DNOREFAIL -DLOSS=2" "-DSAFETY" "-m10000 -w16"
	PML=vohdup.pml run vohdup pass "-DFIX -DLOSS=3 -DR=4" "-DSAFETY" "-m100000 -w18"
	# Three coherence writes, each written home before the next (the
	# requester's timers untimed: re-sends at any moment, so the ABORT
	# quarantine woken or asleep picks interleavings inside this set).
	PML=vohdup.pml run vohdup-w3 pass "-DFIX -DW=3 -DLOSS=3 -DR=4" "-DSAFETY" "-m100000 -w20"
	# The VOH home's record of a refused request (vohref.pml): a copy of
	# a READ refused while the block was away, granted once it is back,
	# holds the record for nobody and the thread's next READ is dropped;
	# with the refusal recorded and older seqs dropped, none.
	PML=vohref.pml run vohref-old "violation:invalid end state" "-DRS=1" "-DSAFETY" "-m100000 -w20"
	PML=vohref.pml run vohref pass "-DFIX -DRS=1" "-DSAFETY" "-m100000 -w20"
	# The VOH queues under a node failure (vohcrash.pml): a dead reader in
	# RQ holds the update for ever, a dead node's update holds UQ; not once
	# the failure drain ends every entry of the dead node's requesters.
	PML=vohcrash.pml run vohcrash-old "violation:invalid end state" "" "-DSAFETY" "-m10000 -w18"
	PML=vohcrash.pml run vohcrash-old-upd "violation:assertion violated" "-DDUPD" "-DSAFETY" "-m10000 -w18"
	PML=vohcrash.pml run vohcrash pass "-DFIX -DDUPD" "-DSAFETY" "-m10000 -w18"
	# A validate-on-hit update against the home's coherence pipeline
	# (vohupd.pml): a READ_MISS granted under an update keeps the old
	# value past the commit; not once the pipeline refuses meanwhile.
	PML=vohupd.pml run vohupd-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w16"
	PML=vohupd.pml run vohupd pass "-DFIX -DR=5" "-DSAFETY" "-m10000 -w16"
	# Requester incarnations and seq jumps (seqjump.pml, 3-bit seqs): a
	# parity not yet used is "after" every seq of the upper half (issue 28
	# item 8) unless a SCOREBOARD seq 0 is empty (EMPTY0); a restarted
	# requester's seqs are stale against its old LAST-UNLOCK; reset rows
	# with an old copy still in flight leak a lock; reset once the old
	# incarnation can send nothing more passes. Jumps that leave a row
	# stale for half the ring stay a counterexample (the agents' seqs are
	# consecutive).
	SJ="-DSAFETY"
	PML=seqjump.pml run seqjump-item8 "violation:refused" "-DEVEN=3" "$SJ" "-m10000"
	PML=seqjump.pml run seqjump-item8-fix pass "-DEVEN=7 -DEV=10 -DSEQW=4 -DEMPTY0" "$SJ" "-m10000"
	PML=seqjump.pml run seqjump-jumps "known:refused" "-DSTEP=3 -DEMPTY0" "$SJ" "-m10000"
	PML=seqjump.pml run seqjump-restart-old "violation:refused" "-DRESTART" "$SJ" "-m10000"
	PML=seqjump.pml run seqjump-restart-inflight "violation:lock" "-DRESTART -DRESET -DEMPTY0" "$SJ" "-m10000"
	PML=seqjump.pml run seqjump-restart pass "-DRESTART -DRESET -DDRAIN -DEMPTY0 -DEV=12 -DSEQW=4" "$SJ" "-m10000"
	# Re-admission of a restarted node at a survivor's home (rejoin.pml):
	# rows kept, the new seqs are stale; a dead node's copy executed after
	# the drain leaks the lock; dead mark drops + rows reset at the rejoin
	# pass; a copy older than the rejoin in flight is the known bound.
	PML=rejoin.pml run rejoin-old "violation:refused" "-DOLD" "$SJ" "-m10000"
	PML=rejoin.pml run rejoin-nofilter "violation:holder" "-DNOFILTER" "$SJ" "-m10000"
	PML=rejoin.pml run rejoin-inflight "known:holder" "-DNOSILENCE" "$SJ" "-m10000"
	PML=rejoin.pml run rejoin pass "-DSEQW=4 -DEV=9 -DEV0=9" "$SJ" "-m10000"
	# Write-backs of a switch-owned block (wbdup.pml): a late duplicate
	# segment, applied again after another node's write-back, loses it;
	# exactly once per (requester, seq, segment) holds; 3-bit seqs alias
	# over 7 events of a thread (known), 4 bits over 8 events do not.
	PML=wbdup.pml run wbdup-old "violation:assertion violated" "" "-DSAFETY" "-m10000 -w16"
	PML=wbdup.pml run wbdup pass "-DFIX -DEV0=2 -DEV1=2 -DDUP=2 -DLOSS=1" "-DSAFETY" "-m100000 -w18"
	PML=wbdup.pml run wbdup-alias "known:assertion violated" "-DFIX -DNN=1 -DEV0=8 -DSEQW=3" "-DSAFETY" "-m10000 -w16"
	PML=wbdup.pml run wbdup-width pass "-DFIX -DNN=1 -DEV0=8 -DSEQW=4" "-DSAFETY" "-m10000 -w16"
	# A non-home Modified owner writes a READ_MISS's block home itself under
	# the reader's identity (wbown.pml): the reader unlocks on the data and
	# every NA_WB_ACK; unlocking on the data alone leaves memory stale.
	PML=wbown.pml run wbown-early "violation:assertion violated" "-DEARLY -DLOSS=0 -DDUP=0" "-DSAFETY" "-m10000 -w16"
	PML=wbown.pml run wbown pass "" "-DSAFETY" "-m100000 -w18"
	# Two readers of a block Modified at its home (wbshare.pml): the home
	# writes memory from its copy for each, Shared or not; flagging
	# HOME_WRITTEN without writing leaves memory stale after an ABORT.
	PML=wbshare.pml run wbshare-wrong "violation:assertion violated" "-DWRONG" "-DSAFETY" "-m10000 -w16"
	PML=wbshare.pml run wbshare pass "-DEVR=3 -DEVW=3" "-DSAFETY" "-m100000 -w18"
	# VERSION's migration epoch (vohepoch.pml, issue 28 item 4): a stamp
	# of one stay validates in a later stay whose home-wide ADD seq agrees
	# in its low EW bits (the old rule; 3 epoch bits over 6 migrations do
	# not alias). The block's own ADD seq, its ADDs DELTA apart, a stamp
	# served for LIFE <= (2^EW / STEP - 1) * DELTA: passes; one tick looser
	# or without the lifetime: fails; a stay's 2^CW writes carrying into
	# the next stays' epochs: fails; the count saturating and a saturated
	# stamp not kept (the rule): passes; keeping that stamp: fails. A
	# per-block VERSION carried through the home passes and wraps only
	# after 2^(EW+CW) writes of the block (known).
	PML=vohepoch.pml run vohepoch-alias "violation:assertion violated" "-DCW=2" "-DSAFETY" "-m10000 -w16"
	VB="-DBLOCK -DEW=3 -DCW=2 -DSTEP=2 -DDELTA=1 -DMG=8 -DTK=4"
	PML=vohepoch.pml run vohepoch-block pass "$VB -DLIFE=3" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-block-life "violation:assertion violated" "$VB -DLIFE=4" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-block-nolife "violation:assertion violated" "$VB" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-block-carry "violation:assertion violated" "$VB -DLIFE=3 -DCW=1 -DWR=3" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-block-sat pass "$VB -DLIFE=3 -DCW=1 -DWR=3 -DSAT" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-block-sat2 pass "$VB -DLIFE=3 -DCW=2 -DWR=5 -DSAT" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-block-satstamp "violation:assertion violated" "$VB -DLIFE=3 -DCW=1 -DWR=3 -DSAT -DSATSTAMP" "-DSAFETY" "-m10000 -w16"
	# A home stamp (HSTAMP: the block's ADD set count above its home
	# version) comes round after 2^EW stays in the switch whose writes
	# the home version does not see: without a lifetime it validates a
	# stale copy; served for HLIFE <= (2^EW - 1) * DELTA, as a switch
	# stamp (na_voh_fresh): passes; one tick looser: fails.
	VH="-DBLOCK -DHSTAMP -DEW=2 -DCW=2 -DSTEP=2 -DDELTA=1 -DMG=10 -DTK=5 -DLIFE=1"
	PML=vohepoch.pml run vohepoch-home-nolife "violation:assertion violated" "$VH" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-home pass "$VH -DHLIFE=3" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-home-life "violation:assertion violated" "$VH -DHLIFE=4" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-width pass "-DCW=2 -DEW=3" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-fix pass "-DFIX -DCW=2 -DMG=8" "-DSAFETY" "-m10000 -w16"
	PML=vohepoch.pml run vohepoch-fix-wrap "known:assertion violated" "-DFIX -DEW=1 -DCW=1 -DWR=4 -DMG=4" "-DSAFETY" "-m10000 -w16"
	# Queued locks under a switch restart and a node crash (qfault.pml):
	# today's rows outlive the tenures the fault ended (a kept row waits
	# for ever; a GIVING row hands to the dead node); reset at the round's
	# BEGIN, dropped to a failed node: the runs pass.
	QF="-DSAFETY -DMEMLIM=2000"
	PML=qfault.pml run qfault-restart-old "violation:assertion violated" "-DRS=1 -DEV=1 -DOLD" "$QF" "-m100000"
	PML=qfault.pml run qfault-restart pass "-DRS=1 -DEV=1" "$QF" "-m100000"
	PML=qfault.pml run qfault-crash-old "violation:assertion violated" "-DCR=1 -DEV=1 -DOLD" "$QF" "-m100000"
	# A request copy sent before the round, delivered after the re-ADD
	# (FMAX: a tenure bounced for ever): it takes the free lock (-old).
	# The requester's ABORT quarantine (QUAR, na_req_quarantine) ends
	# that, but not a copy that overtakes and is forwarded into another
	# node's tenure (LATE): the tenure is handed to the given-up seq,
	# whose slot the round reset (-late, --deep). The rule: no ADD of a
	# rebuilt block until no copy sent before the reports can arrive
	# (RHOLD, NA_ADD_HOLD_NS as migdup.pml's hold; na_add_spaced): passes.
	PML=qfault.pml run qfault-restart-fmax-old "violation:assertion violated" "-DRS=1 -DEV=1 -DFMAX=12" "$QF" "-m100000"
	PML=qfault.pml run qfault-restart-hold pass "-DRS=1 -DEV=1 -DQUAR -DLATE=1 -DRHOLD -DFMAX=12" "$QF" "-m100000"
	PML=qfault.pml run qfault-crash pass "-DCR=1 -DEV=1" "$QF" "-m100000"
	# A home-owned block: the drain must take a tenure the dead node handed
	# over (its Q_GRANT may never have left), not only one it holds.
	PML=qfault.pml run qfault-home-old "violation:assertion violated" "-DCR=1 -DEV=1 -DHOME -DOLDHOME" "$QF" "-m100000"
	PML=qfault.pml run qfault-home pass "-DCR=1 -DEV=1 -DHOME" "$QF" "-m100000"
	# Three nodes, the crash while node 2 heads a queue (CRQ): a QXFER
	# naming the node declared dead approved strands the next waiter
	# (-old); refused as bad_next: passes (the free crash is --deep).
	PML=qfault.pml run qfault-home3-old "violation:assertion violated" "-DN=3 -DCR=1 -DEV=1 -DHOME -DCRQ -DOLDNEXT" "$QF" "-m100000"
	PML=qfault.pml run qfault-home3 pass "-DN=3 -DCR=1 -DEV=1 -DHOME -DCRQ" "$QF" "-m100000"
	# The drain's rule over tenure chains (qdrain.pml): a tenure handed
	# 1 -> 0 -> 2 carries node 1's read copy to node 2, whose write waits
	# for the dead node's ACK when the drain takes only tenures the dead
	# node held or handed over (-old); any handed-over tenure: passes.
	PML=qdrain.pml run qdrain-old "violation:assertion violated" "-DOLD -DEV1=2" "-DSAFETY" "-m100000 -w18"
	PML=qdrain.pml run qdrain pass "-DEV0=3 -DEV1=2 -DEV2=3" "-DSAFETY" "-m100000 -w18"
else
	SAFE="-DSAFETY -DCOLLAPSE -DMEMLIM=12000"
	LIVE="-DCOLLAPSE -DMEMLIM=12000 -DNFAIR=3"
	run old-switch "violation:SWMR VIOLATED" "-DEV=2 -DSKIP=1 -DLOSS=0 -DDUP=1 -DEVMASK=6" \
		"$SAFE" "-m10000 -w24"
	run new-switch-all-hops pass "-DNEW -DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=1 -DDUP=1" \
		"$SAFE" "-m10000 -w26"
	run new-lost-unlock-pass-dup pass \
		"-DNEW -DEV0=2 -DEV1=1 -DSKIP=1 -DLOSS=1 -DDUP=1 -DDUPCH=1 -DBADRS=1" "$SAFE" "-m10000 -w26"
	run new-migrate-add pass \
		"-DNEW -DEV0=2 -DEV1=1 -DSKIP=0 -DLOSS=0 -DDUP=1 -DDUPCH=1 -DMIG=2 -DREMOVES=0 -DINSW=0 -DEVMASK=6" \
		"$SAFE" "-m10000 -w26"
	run new-two-events-each pass "-DNEW -DEV=2 -DSKIP=1 -DLOSS=0 -DDUP=1 -DDUPCH=1 -DEVMASK=6" \
		"$SAFE" "-m10000 -w26"
	run new-two-writers pass "-DNEW $TWOW" "$SAFE" "-m10000 -w24"
	run new-write-through-home pass "-DNEW -DWT $TWOW" "$SAFE" "-m10000 -w24"
	PML=vohsw.pml run vohsw-both pass "-DSELF=1 -DWOPS=2 -DROPS0=2 -DROPS=1 -DLOSS=0 -DDUP=0" \
		"$SAFE" "-m100000 -w24"
	QL="$SAFE"
	PML=qlock.pml run qlock-three-loss pass "-DN=3 -DEV=1 -DLOSS=1 -DDUP=0 -DRETX=1" "$QL" "-m100000 -w26"
	PML=qlock.pml run qlock-readers-three pass \
		"-DN=3 -DEV=1 -DLOSS=0 -DDUP=1 -DRETX=1 -DRD=1 -DRDEV=1" "$QL" "-m100000 -w26"
	PML=qlock.pml run qlock-readers-loss pass \
		"-DN=2 -DEV=1 -DLOSS=1 -DDUP=1 -DRETX=1 -DRD=1 -DRDEV=2" "-DSAFETY -DMEMLIM=3000 -DCOLLAPSE" "-m100000 -w22"
	PML=qlock.pml run qlock-readers-lost-pass pass \
		"-DN=2 -DEV=2 -DLOSS=1 -DDUP=0 -DRETX=1 -DBADRS=1 -DRD=1 -DRDEV=1" "$QL" "-m100000 -w26"
	# Both requesters give their event up (GIVEUPW 2), a loss.
	PML=qlock.pml run qlock-readers-abort-both pass \
		"-DN=2 -DEV=1 -DLOSS=1 -DDUP=0 -DRETX=1 -DRD=1 -DRDEV=1 -DGIVEUPW=2" "$QL" "-m100000 -w24"
	PML=qlock-threads.pml run qlock-threads-qqueued pass \
		"-DN=2 -DNT=2 -DOPS=1 -DDUP=1 -DDUPK=1 -DNACKX=1 -DQQMSG" "$QL" "-m100000 -w24"
	PML=qlock-threads.pml run qlock-threads-typechg-threads pass \
		"-DN=2 -DNT=2 -DOPS=1 -DDUP=1 -DDUPK=1 -DNACKX=1 -DTYPECHG" "$QL" "-m100000 -w26"
	PML=qlock-threads.pml run qlock-threads-typechg-twice pass \
		"-DN=2 -DNT=1 -DOPS=2 -DOPS1=1 -DDUP=1 -DDUPK=1 -DNACKX=2 -DTYPECHG" "$QL" "-m100000 -w22"
	# Two duplicates of the request: one NACKed, one queued and handed the
	# lock, one forwarded to that tenure (counted: the thread's slot is
	# kept when it gives the seq up); the Q_GRANT then finds the kept slot.
	PML=qlock-threads.pml run qlock-threads-typechg-kept pass \
		"-DN=2 -DNT=1 -DOPS=1 -DOPS1=1 -DDUP=2 -DDUPK=1 -DNACKX=1 -DTYPECHG" "$QL" "-m100000 -w22"
	PML=homelocal.pml run homelocal-live pass "-DFIX" "-DNP" "-m10000 -w20 -l -f"
	PML=homelocal.pml run homelocal-ev3 pass "-DFIX -DEV=3 -DLOSS=1 -DRTX=2" "-DSAFETY" "-m10000 -w23"
	PML=migdup.pml run migdup-dup2 pass "-DFIX -DDUP=2 -DLOSS=1" "-DSAFETY -DMEMLIM=3000" "-m10000 -w22"
	PML=rlocal.pml run rlocal-deep pass "-DFIX -DHIT -DDUP=5 -DLOSS=3 -DR=7" "-DSAFETY" "-m100000 -w22"
	PML=recslots.pml run recslots-deep pass "-DFIX -DNP=4 -DLOSS=2" "-DSAFETY" "-m10000 -w20"
	PML=recunset.pml run recunset-deep pass "-DFIX -DK=4 -DNACKED=3 -DRETRY=6" "-DSAFETY" "-m10000 -w20"
	PML=vohdup.pml run vohdup-deep pass "-DFIX -DW=3 -DLOSS=4 -DR=6" "-DSAFETY" "-m100000 -w22"
	PML=wbown.pml run wbown-segs pass "-DSEGS=2 -DDUP=2" "-DSAFETY" "-m100000 -w22"
	PML=wbown.pml run wbown-ev pass "-DEV0=4 -DEV1=3" "-DSAFETY" "-m100000 -w22"
	PML=qalias.pml run qalias-fix-id2 pass "-DIDW=2 -DWIN -DTOKEN -DEPW=2 -DEV=5 -DDUP=3" \
		"-DSAFETY -DMEMLIM=12000" "-m100000"
	PML=qalias.pml run qalias-fix-full pass "-DFULL -DTOKEN -DEPW=2 -DEV=4 -DDUP=3" \
		"-DSAFETY -DMEMLIM=12000" "-m100000"
	PML=qfault.pml run qfault-restart-ev2 pass "-DRS=1 -DEV=2" "-DSAFETY -DMEMLIM=3000" "-m100000"
	PML=qtag.pml run qtag-tw2-old "violation:yw==0" "-DTW=2 -DEVH=5" "-DSAFETY -DMEMLIM=2000" "-m100000"
	PML=qtag.pml run qtag-tw2 pass "-DTW=2 -DEVH=5 -DPHANTOM" "-DSAFETY -DMEMLIM=2000" "-m100000"
	PML=qtag.pml run qtag-dup pass "-DPHANTOM -DDUP=1" "-DSAFETY -DMEMLIM=6000" "-m100000"
	PML=qtag.pml run qtag-loss pass "-DPHANTOM -DLOSS=1" "-DSAFETY -DMEMLIM=6000" "-m100000"
	# A late index past the later tenure's FWD_CNT: the end denied `count`
	# for good (-index, RESEND bounds the ending's sends; the C counts up to
	# FWD_CNT, UPTO); TRIM drops the indices past a denial's FWD_CNT that
	# the denied end carried (it takes the denial for the last send's).
	PML=qtag.pml run qtag-index "violation:yw==0" "-DPHANTOM -DRESEND=4" "-DSAFETY -DMEMLIM=2000" "-m100000"
	PML=qtag.pml run qtag-index-trim pass "-DPHANTOM -DRESEND=4 -DTRIM" "-DSAFETY -DMEMLIM=2000" "-m100000"
	# DUP 1 needs RESEND 6: at 4 a duplicated alias, queued again after the
	# trim, and the requesters' retransmissions use the ending's sends.
	PML=qtag.pml run qtag-index-trim-dup pass "-DPHANTOM -DRESEND=6 -DTRIM -DDUP=1" "-DSAFETY -DMEMLIM=8000" "-m100000"
	# UPTO and PIN at qtag-index's bounds; a duplicated QXFER_ACK (DUPA);
	# two late answers (STALE 2: 10.7 M states, 3.5 min);
	# UPTO alone under STALE: a QRELEASE's late approval taken for the
	# QXFER an aliasing copy made of the end, two holders (-nopin).
	PML=qtag.pml run qtag-index-upto pass "-DPHANTOM -DRESEND=4 -DUPTO -DPIN" "-DSAFETY -DMEMLIM=2000" "-m100000"
	PML=qtag.pml run qtag-stale-dupa pass "-DPHANTOM -DRESEND=4 -DDUPA=1 -DRETX0=0 -DUPTO -DPIN" "-DSAFETY -DMEMLIM=2000" "-m100000"
	PML=qtag.pml run qtag-stale2 pass "-DPHANTOM -DRESEND=4 -DSTALE=2 -DRETX0=0 -DUPTO -DPIN" "-DSAFETY -DMEMLIM=6000" "-m100000"
	PML=qtag.pml run qtag-stale-nopin "violation:holder" "-DPHANTOM -DRESEND=4 -DSTALE=1 -DRETX0=0 -DUPTO" "-DSAFETY -DMEMLIM=2000" "-m100000"
	# The late request copy across a restart (CI: qfault-restart-hold):
	# liveness under weak fairness (LIVE: BEGIN and the quarantine their
	# own processes), in order: -old a non-progress cycle, QUAR passes;
	# overtaking (LATE): only the re-ADD hold passes.
	PML=qfault.pml run qfault-restart-live-old "violation:non-progress cycle" "-DRS=1 -DEV=1 -DLIVE" \
		"-DNP -DNFAIR=3 -DMEMLIM=3000" "-m100000 -l -f"
	PML=qfault.pml run qfault-restart-quar-live pass "-DRS=1 -DEV=1 -DQUAR -DLIVE" \
		"-DNP -DNFAIR=4 -DMEMLIM=3000" "-m100000 -l -f"
	PML=qfault.pml run qfault-restart-late "violation:assertion violated" "-DRS=1 -DEV=1 -DQUAR -DLATE=1" \
		"-DSAFETY -DMEMLIM=2000" "-m100000"
	PML=qfault.pml run qfault-restart-hold-live pass "-DRS=1 -DEV=1 -DQUAR -DLATE=1 -DRHOLD -DLIVE" \
		"-DNP -DNFAIR=4 -DMEMLIM=3000" "-m100000 -l -f"
	PML=qfault.pml run qfault-restart-hold-ev2 pass "-DRS=1 -DEV=2 -DQUAR -DLATE=2 -DRHOLD -DFMAX=12" \
		"-DSAFETY -DMEMLIM=3000" "-m100000"
	PML=qfault.pml run qfault-crash-ev2 pass "-DCR=1 -DEV=2" "-DSAFETY -DMEMLIM=3000" "-m100000"
	PML=qfault.pml run qfault-home3-free pass "-DN=3 -DCR=1 -DEV=1 -DHOME" "-DSAFETY -DCOLLAPSE -DMEMLIM=3000" "-m100000"
	run new-live-deep pass "-DNEW -DFIFO_NET -DLIVE -DEV0=2 -DEV1=1 -DSKIP=0 -DLOSS=1 -DDUP=1 -DREO=1" \
		"$LIVE" "-m100000 -w26 -a -f -N live"
fi
if [ $FAILED != 0 ]; then
	echo "model-check: FAILED"
	exit 1
fi
echo "model-check: all runs as expected"
