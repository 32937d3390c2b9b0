#!/bin/bash
# Crash test: 1,000 NV writes (and counter increments) through the server while a second loop
# kills it with SIGKILL at random moments. After each kill the server is started again on the
# same state directory: the state file must load every time, and the index must hold the last
# acknowledged value or the one in flight when the server died, never anything else; the
# counter never goes below the acknowledged count. Loopback only, bounded (NV_CRASH_WRITES,
# default 1000; the whole script stays under SCRIPT_TIMEOUT), every server stopped at the end.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

WRITES=${NV_CRASH_WRITES:-1000}
IDX=0x1500100
CNT=0x1500101
STATE=$T/state
mkdir -p "$STATE"

u64_file() { printf '%016x' "$1" | xxd -r -p >"$2"; }

# The index value as a decimal number, or empty.
read_u64() {
	rm -f "$T/v"
	timeout 20 tpm2_nvread "$1" -C o -s 8 -o "$T/v" >/dev/null 2>&1 || true
	[ -s "$T/v" ] && printf '%d' "0x$(hex_of "$T/v")"
}

# The killer: while armed, SIGKILL the server whose pid is in $T/pid after a random pause.
killer() {
	# ends with the run file, or when the script is gone ($T removed by its cleanup)
	while [ -e "$T/run" ]; do
		sleep "0.$(printf '%02d' $((RANDOM % 40 + 5)))"
		[ -e "$T/armed" ] || continue
		pid=$(cat "$T/pid" 2>/dev/null || true)
		if [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; then
			echo x >>"$T/kills"
		fi
	done
}

start_server() {
	tpm_start "$STATE" || return 1
	echo "$SERVER_PID" >"$T/pid"
	if grep -qi 'refus\|corrupt\|checksum\|truncated' "$SERVER_LOG"; then
		bad "state file refused after a kill"
		show_tail "$SERVER_LOG"
		return 1
	fi
}

# The server died (killed): reap it without counting its exit status as a failure.
reap_server() {
	rm -f "$T/armed"
	if [ -n "$SERVER_PID" ]; then
		kill -KILL "$SERVER_PID" 2>/dev/null || true
		wait "$SERVER_PID" 2>/dev/null || true
		check_sanitizer_log "$SERVER_LOG" || true
	fi
	SERVER_PID=
}

start_server
run "startup" tpm2_startup -c
run "nvdefine data index" tpm2_nvdefine $IDX -C o -s 8 -a "ownerread|ownerwrite"
run "nvdefine counter" tpm2_nvdefine $CNT -C o -s 8 -a "nt=counter|ownerread|ownerwrite"
u64_file 0 "$T/w"
run "first write" tpm2_nvwrite $IDX -C o -i "$T/w"
run "first increment" tpm2_nvincrement $CNT -C o

acked=0   # last value acknowledged by the server
count=1   # increments acknowledged
tried=1   # increments attempted
restarts=0
lost=0
: >"$T/kills"
touch "$T/run" "$T/armed"
killer &
KILLER=$!

deadline=$((SECONDS + ${NV_CRASH_SECONDS:-400}))
i=1
while [ "$i" -le "$WRITES" ] && [ "$SECONDS" -lt "$deadline" ]; do
	u64_file "$i" "$T/w"
	if timeout 20 tpm2_nvwrite $IDX -C o -i "$T/w" >/dev/null 2>&1; then
		acked=$i
		if [ $((i % 4)) -eq 0 ]; then
			tried=$((tried + 1))
			if timeout 20 tpm2_nvincrement $CNT -C o >/dev/null 2>&1; then
				count=$tried
			fi
		fi
		i=$((i + 1))
		continue
	fi
	# The write failed: the server must be dead; anything else is a failure.
	rm -f "$T/armed"
	sleep 0.05
	if kill -0 "$SERVER_PID" 2>/dev/null; then
		bad "write $i failed with the server alive"
		tail -n 5 "$T/err" 2>/dev/null || true
		break
	fi
	reap_server
	start_server || break
	restarts=$((restarts + 1))
	if ! timeout 20 tpm2_startup -c >/dev/null 2>&1; then
		bad "startup after restart $restarts"
		break
	fi
	v=$(read_u64 $IDX)
	if [ "$v" = "$acked" ]; then
		: # the write in flight did not land
	elif [ "$v" = "$i" ]; then
		acked=$i # it landed before the kill
		i=$((i + 1))
	else
		bad "after restart $restarts: index holds '${v}', acknowledged $acked, in flight $i"
		lost=$((lost + 1))
		break
	fi
	c=$(read_u64 $CNT)
	if [ -z "$c" ] || [ "$c" -lt "$count" ] || [ "$c" -gt "$tried" ]; then
		bad "after restart $restarts: counter '${c}', acknowledged $count, tried $tried"
		lost=$((lost + 1))
		break
	fi
	count=$c
	tried=$c
	touch "$T/armed"
done
rm -f "$T/run" "$T/armed"
kill "$KILLER" 2>/dev/null || true
wait "$KILLER" 2>/dev/null || true

kills=$(wc -l <"$T/kills")
echo "writes acknowledged: $acked of $WRITES, kills: $kills, restarts: $restarts"
if [ "$lost" -eq 0 ] && [ "$acked" -ge "$WRITES" ]; then
	ok "$WRITES writes, every acknowledged value kept through $restarts restarts"
elif [ "$lost" -eq 0 ]; then
	bad "only $acked of $WRITES writes done in time"
fi
[ "$restarts" -gt 0 ] && ok "the server was killed and restarted ($restarts times)" ||
	bad "the server was never killed"

# The last word: a clean server on the state loads it and has the last value.
if [ -z "$SERVER_PID" ] || ! kill -0 "$SERVER_PID" 2>/dev/null; then
	reap_server
	start_server
	run "startup after the last kill" tpm2_startup -c
fi
check_eq "final value" "$acked" "$(read_u64 $IDX)"
finish
