#!/bin/bash
# Crash test: 1,000 NV writes (each followed by a counter increment) through the server while
# a second loop kills it with SIGKILL at random moments. After each kill the server is started
# again on the same state directory: the state file must load every time, and the index must
# hold the last acknowledged value or the one in flight when the server died, never anything
# else; the counter holds the acknowledged increments, or one more (the one in flight). The
# writes come from helpers/nv_writer.c (raw MSSIM, built here), which prints what the server
# acknowledged. Loopback only, bounded (NV_CRASH_WRITES, default 1000; NV_CRASH_SECONDS),
# every server stopped at the end. On a disk with fast flushes 1,000 writes can finish before
# the killer's first pause ends: the writes then go on, 1,000 at a time, until the server has
# been killed NV_CRASH_KILLS times (default 3). A kill and a new server are no reboot: resetCount
# never moves.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

WRITES=${NV_CRASH_WRITES:-1000}
KILLS=${NV_CRASH_KILLS:-3}
IDX=0x1500100
CNT=0x1500101
STATE=$T/state
mkdir -p "$STATE"
WRITER=$T/nv_writer
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -o "$WRITER" "$LIB_DIR/helpers/nv_writer.c"

# The index value as a decimal number, or empty.
read_u64() {
	rm -f "$T/v"
	timeout 20 tpm2_nvread "$1" -C o -s 8 -o "$T/v" >/dev/null 2>&1 || true
	[ -s "$T/v" ] && printf '%d' "0x$(hex_of "$T/v")"
}

# The killer: while armed, SIGKILL the server whose pid is in $T/pid after a random pause
# (10 ms to 1.2 s, in 10 ms steps, each checking the run file). It ends with the run file, or
# when the script is gone ($T removed).
killer() {
	local n
	while [ -e "$T/run" ]; do
		n=$((RANDOM % 120 + 1))
		while [ "$n" -gt 0 ] && [ -e "$T/run" ]; do
			sleep 0.01
			n=$((n - 1))
		done
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

# resetCount: a kill and a new server are no reboot, so it never moves (docs/state-directory.md)
reset_count() {
	timeout 20 tpm2_readclock 2>/dev/null | awk '/reset_count/ {print $2}'
}

start_server
run "startup" tpm2_startup -c
RESETS=$(reset_count)
run "nvdefine data index" tpm2_nvdefine $IDX -C o -s 8 -a "ownerread|ownerwrite"
run "nvdefine counter" tpm2_nvdefine $CNT -C o -s 8 -a "nt=counter|ownerread|ownerwrite"
run "write 0" "$WRITER" "$PORT" $IDX $CNT 0 0

acked=0 # last value the server acknowledged
count=1 # increments acknowledged (the counter's value)
restarts=0
lost=0
: >"$T/kills"
touch "$T/run"
killer &
KILLER=$!

deadline=$((SECONDS + ${NV_CRASH_SECONDS:-300}))
target=$WRITES # the writer's last value; raised while the server has not been killed enough
while [ "$SECONDS" -lt "$deadline" ]; do
	if [ "$acked" -ge "$target" ]; then
		[ "$restarts" -ge "$KILLS" ] && break
		target=$((target + WRITES))
	fi
	touch "$T/armed"
	st=0
	"$WRITER" "$PORT" $IDX $CNT $((acked + 1)) "$target" >"$T/acks" 2>"$T/werr" || st=$?
	rm -f "$T/armed"
	last=$(awk '$1 == "w" { v = $2 } END { print v }' "$T/acks")
	[ -n "$last" ] && acked=$last
	count=$((count + $(grep -c '^i$' "$T/acks" || true)))
	[ "$st" -eq 0 ] && continue
	if [ "$st" -ne 3 ]; then
		bad "writer failed (status $st): $(cat "$T/werr")"
		break
	fi
	# The connection broke: the server must be dead.
	sleep 0.02
	if kill -0 "$SERVER_PID" 2>/dev/null; then
		bad "connection lost with the server alive"
		break
	fi
	reap_server
	if ! start_server; then
		bad "the state file did not load after kill $((restarts + 1))"
		show_tail "$SERVER_LOG"
		break
	fi
	restarts=$((restarts + 1))
	if ! timeout 20 tpm2_startup -c >/dev/null 2>&1; then
		bad "startup after restart $restarts"
		break
	fi
	r=$(reset_count)
	if [ "$r" != "$RESETS" ]; then
		bad "after restart $restarts: resetCount '${r}', was $RESETS (a kill is no reboot)"
		lost=1
		break
	fi
	v=$(read_u64 $IDX)
	c=$(read_u64 $CNT)
	if [ "$v" = "$((acked + 1))" ]; then
		acked=$v # the write in flight landed before the kill
		c_max=$count
	elif [ "$v" = "$acked" ]; then
		c_max=$((count + 1))
	else
		bad "after restart $restarts: index holds '${v}', acknowledged $acked"
		lost=1
		break
	fi
	# the increment in flight after an acknowledged write may have landed
	c_max=$((count + 1))
	if [ -z "$c" ] || [ "$c" -lt "$count" ] || [ "$c" -gt "$c_max" ]; then
		bad "after restart $restarts: counter '${c}', acknowledged $count"
		lost=1
		break
	fi
	count=$c
done
rm -f "$T/run" "$T/armed"
kill "$KILLER" 2>/dev/null || true
wait "$KILLER" 2>/dev/null || true

kills=$(wc -l <"$T/kills")
echo "writes acknowledged: $acked (at least $WRITES), kills: $kills, restarts: $restarts"
if [ "$lost" -eq 0 ] && [ "$acked" -ge "$WRITES" ]; then
	ok "$acked writes: every acknowledged value kept through $restarts kills and restarts"
elif [ "$lost" -eq 0 ]; then
	bad "only $acked of $WRITES writes done in time"
fi
if [ "$restarts" -ge "$KILLS" ]; then
	ok "the server was killed and restarted $restarts times"
else
	bad "the server was killed $restarts times, not $KILLS"
fi

# The last word: the server on the state (restarted if the last kill took it) has it all.
if [ -z "$SERVER_PID" ] || ! kill -0 "$SERVER_PID" 2>/dev/null; then
	reap_server
	start_server
	run "startup after the last kill" tpm2_startup -c
fi
check_eq "resetCount as at the start" "$RESETS" "$(reset_count)"
check_eq "final value" "$acked" "$(read_u64 $IDX)"
check_eq "final counter" "$count" "$(read_u64 $CNT)"
finish
