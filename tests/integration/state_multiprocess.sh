#!/bin/bash
# One TPM per state directory, many processes: a server and openers of "embedded:DIR" (the
# client library in other processes, state_opener.c) on one directory.
#   - a PCR extended in any of them is read by all;
#   - a session context saved in one loads in another after a third opened;
#   - the server killed with -9 while two openers extend in a loop: they fail over (the
#     command in flight fails, the next one works) and lose nothing acknowledged: each PCR is
#     the hash chain of the acknowledged extends (plus, maybe, those that failed in flight);
#     a context saved before the kill loads after it;
#   - a server refuses to start while an opener owns the directory, naming its PID;
#   - 100 rounds of open-extend-close from fresh processes keep every extension.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

if [ "$TPM_IMPL" != pqtpm ]; then
	echo "SKIP: needs pqtpm-server"
	ok "skipped for $TPM_IMPL"
	finish
fi

OPENER=$BUILD_DIR/tests/state_opener
[ -x "$OPENER" ] || { bad "no $OPENER (make $OPENER)"; finish; }
STATE=$T/state
EMB="embedded:$STATE"
LOOPS=${STATE_LOOPS:-3000}
pcr_server() { # N: as the server reads it
	tpm2_pcrread "sha256:$1" 2>/dev/null | awk -v n="$1" '$1 == n":" {print tolower($2)}' |
		sed 's/^0x//'
}
# chain START DIGEST...: SHA-256 hash chain
chain() {
	python3 -c 'import hashlib, sys
v = bytes.fromhex(sys.argv[1])
for d in sys.argv[2:]:
    v = hashlib.sha256(v + bytes.fromhex(d)).digest()
print(v.hex())' "$@"
}
ZERO=$(printf '0%.0s' $(seq 64))
D1=$(printf '1%.0s' $(seq 64))
D2=$(printf '2%.0s' $(seq 64))

tpm_start "$STATE"
run "startup" tpm2_startup -c

# --- one PCR for all ---
run "an opener extends PCR 16" "$OPENER" "$EMB" extend 16 "$D1"
run "the server extends PCR 16" tpm2_pcrextend "16:sha256=$D2"
WANT=$(chain "$ZERO" "$D1" "$D2")
check_eq "the server reads both extends" "$WANT" "$(pcr_server 16)"
check_eq "another opener reads both extends" "$WANT" "$("$OPENER" "$EMB" read 16)"

# --- a saved context ---
run "an opener saves a session context" "$OPENER" "$EMB" save "$T/s1.ctx"
run "a third opener opens" "$OPENER" "$EMB" read 16
run "another opener loads the context" "$OPENER" "$EMB" load "$T/s1.ctx"
run "a context for after the kill" "$OPENER" "$EMB" save "$T/s2.ctx"

# --- the owner killed mid-command ---
# Both loops must be under way (clients of the server, neither finished) when it dies: a loaded
# machine may take seconds to start one, so each stops after 20 extends until the gate opens.
"$OPENER" "$EMB" loop 8 "$LOOPS" "$T/gate" >"$T/loop8" 2>"$T/loop8.err" &
L8=$!
"$OPENER" "$EMB" loop 9 "$LOOPS" "$T/gate" >"$T/loop9" 2>"$T/loop9.err" &
L9=$!
running=no
for _ in $(seq 3000); do
	if [ "$(wc -l <"$T/loop8")" -ge 20 ] && [ "$(wc -l <"$T/loop9")" -ge 20 ]; then
		running=yes
		break
	fi
	sleep 0.02
done
check_eq "both loops under way before the kill" yes "$running"
touch "$T/gate"
kill -KILL "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=
st8=0 st9=0
wait "$L8" || st8=$?
wait "$L9" || st9=$?
check_eq "loop 8 ran to its end" 0 "$st8"
check_eq "loop 9 ran to its end" 0 "$st9"
for n in 8 9; do
	log=$T/loop$n
	check_eq "loop $n: every extend answered" "$LOOPS" "$(wc -l <"$log")"
	fails=$(grep -c '^io' "$log" || true)
	if [ "$fails" -ge 1 ] && [ "$fails" -le 4 ]; then
		ok "loop $n: $fails extend(s) in flight failed over"
	else
		bad "loop $n: $fails extends failed (want 1 to 4)"
	fi
	# failing over: the command after a failed one works (the transport elected at once)
	if awk '$1 == "io" { if (prev == "io") bad = 1 } { prev = $1 } END { exit bad }' "$log"; then
		ok "loop $n: no two failures in a row"
	else
		bad "loop $n: two failures in a row"
	fi
	got=$("$OPENER" "$EMB" read "$n")
	# the PCR is the chain of the acknowledged extends, each failed one in or out
	if python3 - "$log" "$got" <<'EOF'; then
import hashlib, itertools, sys
lines = [l.split() for l in open(sys.argv[1])]
io = [i for i, l in enumerate(lines) if l[0] == "io"]
for keep in itertools.product([False, True], repeat=len(io)):
    v = bytes(32)
    kept = {i for i, k in zip(io, keep) if k}
    for i, l in enumerate(lines):
        if l[0] == "ok" or i in kept:
            v = hashlib.sha256(v + bytes.fromhex(l[2])).digest()
    if v.hex() == sys.argv[2]:
        sys.exit(0)
sys.exit(1)
EOF
		ok "loop $n: PCR $n holds every acknowledged extend"
	else
		bad "loop $n: PCR $n ($got) is not the chain of the acknowledged extends"
	fi
done
run "the context saved before the kill loads after it" "$OPENER" "$EMB" load "$T/s2.ctx"
check_eq "PCR 16 after the kill" "$WANT" "$("$OPENER" "$EMB" read 16)"

# --- a server while an opener owns the directory ---
mkfifo "$T/hold.in"
"$OPENER" "$EMB" hold "$T/hold.ready" <"$T/hold.in" &
HOLD=$!
exec 7>"$T/hold.in"
for _ in $(seq 250); do [ -s "$T/hold.ready" ] && break; sleep 0.02; done
check_eq "an opener owns the directory" ready "$(cat "$T/hold.ready" 2>/dev/null)"
pick_ports
st=0
timeout 20 env ASAN_OPTIONS="$ASAN_OPTIONS_SERVER" UBSAN_OPTIONS="$UBSAN_OPTIONS_SERVER" \
	"$SERVER_BIN" --state-dir "$STATE" --bind 127.0.0.1 --port "$PORT" \
	--platform-port $((PORT + 1)) >"$T/refused.log" 2>&1 </dev/null || st=$?
check_eq "the server refuses (exit status 1)" 1 "$st"
HOLD_PID=$(pgrep -x -f "$OPENER $EMB hold $T/hold.ready" || true)
if grep -q "in use by process $HOLD_PID" "$T/refused.log"; then
	ok "naming the opener's PID"
else
	bad "the refusal does not name $HOLD_PID"
	show_tail "$T/refused.log" 3
fi
check_eq "the owner serves the others meanwhile" "$WANT" "$("$OPENER" "$EMB" read 16)"
exec 7>&-
wait "$HOLD" || bad "the holding opener failed"

# --- 100 fresh processes, one extend each ---
DIGESTS=
fails=0
for i in $(seq 100); do
	d=$(printf '%064x' "$((i * 7919))")
	DIGESTS="$DIGESTS $d"
	"$OPENER" "$EMB" extend 10 "$d" || fails=$((fails + 1))
done
check_eq "100 open-extend-close rounds worked" 0 "$fails"
# shellcheck disable=SC2086
WANT10=$(chain "$ZERO" $DIGESTS)
check_eq "PCR 10 holds all 100 extends" "$WANT10" "$("$OPENER" "$EMB" read 10)"
tpm_start "$STATE"
check_eq "and a server started afterwards reads them" "$WANT10" "$(pcr_server 10)"
finish
