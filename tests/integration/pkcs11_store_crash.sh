#!/bin/bash
# The token store survives kill -9 at any moment without losing an object whose creation
# returned CKR_OK. A writer of ours (helpers/p11_store_writer.c, built here) makes token
# objects, data objects and P-256 key pairs, one for each byte the test gives it, and prints
# each label the moment C_CreateObject / C_GenerateKeyPair returned CKR_OK. A round lets it
# make N objects (N varied), gives it one more and kills it with SIGKILL after a delay varied
# from round to round (0 to 20 ms: the kill lands at start-up, in the TPM, in the store's
# transaction, between them, or after the object was acknowledged). Two rounds have two writers making
# objects at once: the first is killed (the process running the embedded TPM, or the other's
# client) while both write, the second must go on, then is killed too. After each round a
# fresh process finds every object acknowledged so far (the key pairs sign and verify) and the
# database passes SQLite's PRAGMA integrity_check (sqlite3's CLI).
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
sanitizer_preload "$MOD"
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
PIN=123456
WRITER=$T/p11_store_writer
ACKS=$T/acks
: >"$ACKS"

# every writer still running is killed at any exit
WPIDS=""
on_exit() {
	local rc=$? p
	for p in $WPIDS; do
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	(exit "$rc")
	_lib_cleanup
}
trap on_exit EXIT

# shellcheck disable=SC2046 # the include flags are separate words
run "build the writer" "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -I "$ROOT_DIR/pkcs11" \
	$(pkg-config --cflags p11-kit-1) -o "$WRITER" "$LIB_DIR/helpers/p11_store_writer.c" -ldl
run "a token" pkcs11-tool --module "$MOD" --init-token --label crash --so-pin so-secret
run "its user PIN" pkcs11-tool --module "$MOD" --token-label crash --login --login-type so \
	--so-pin so-secret --init-pin --pin $PIN

# start TAG: a writer in the background paced through a FIFO (its descriptor in GO), its
# acknowledgements in $T/TAG.out; sets WPID
start() {
	mkfifo "$T/$1.go"
	"$WRITER" "$MOD" $PIN write "$1" 1000 <"$T/$1.go" >"$T/$1.out" 2>"$T/$1.err" &
	WPID=$!
	WPIDS="$WPIDS $WPID"
	exec {GO}>"$T/$1.go"
}

# give FD K: K more objects to make
give() {
	head -c "$2" /dev/zero >&"$1"
}

acked() {
	wc -l <"$T/$1.out"
}

# wait_acks TAG PID N: until TAG acknowledged N objects (at most 30 s); 1 if it did not
wait_acks() {
	local _
	for _ in $(seq 1 1500); do
		[ "$(acked "$1")" -lt "$3" ] || return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.02
	done
	bad "writer $1 acknowledged $(acked "$1") of $3 objects and $(kill -0 "$2" 2>/dev/null &&
		echo 'is stuck' || echo 'ended')"
	show_tail "$T/$1.err"
	return 1
}

# kill9 TAG PID FD DELAY: one more object to make, SIGKILL DELAY seconds later; its
# acknowledgements join the others
kill9() {
	local st=0 fd=$3 k p rest
	k=$(($(acked "$1") + 1))
	give "$fd" 1
	sleep "$4"
	kill -9 "$2" 2>/dev/null || true
	wait "$2" 2>/dev/null || st=$?
	exec {fd}>&-
	rest=""
	for p in $WPIDS; do
		[ "$p" = "$2" ] || rest="$rest $p"
	done
	WPIDS=$rest
	check_eq "writer $1 killed by SIGKILL $4 s after object $k was asked for ($(acked "$1") \
acknowledged)" 137 "$st"
	cat "$T/$1.out" >>"$ACKS"
}

# verify WHAT: a new process finds every object acknowledged so far; SQLite checks the file
verify() {
	run "$1: a new process opens the token" "$WRITER" "$MOD" $PIN check <"$ACKS"
	check_eq "$1: every acknowledged object is there, whole" "checked $(wc -l <"$ACKS")" \
		"$(tail -n 1 "$T/out")"
	grep '^missing' "$T/out" | head -n 5 | sed 's/^/     /' || true
	run "$1: PRAGMA integrity_check" sqlite3 "$PQTPM_STATE_DIR/pkcs11.db" \
		'PRAGMA integrity_check;'
	check_eq "$1: the database is whole" ok "$(cat "$T/out")"
}

# N:DELAY, N objects then the kill DELAY into the next (every third object is a key pair)
for round in 0:0 1:0.002 3:0.01 5:0.02; do
	n=${round%:*}
	start "one$n"
	give "$GO" "$n"
	wait_acks "one$n" "$WPID" "$n" || true
	kill9 "one$n" "$WPID" "$GO" "${round#*:}"
	verify "one writer killed after $n"
done

# two writers: the first killed while both make objects, the second goes on, then is killed
for round in 3:0.003:2 5:0.008:3; do
	IFS=: read -r n d more <<<"$round"
	start "twoA$n"
	pa=$WPID ga=$GO
	start "twoB$n"
	pb=$WPID gb=$GO
	give "$ga" "$n"
	give "$gb" "$n"
	if wait_acks "twoA$n" "$pa" "$n" && wait_acks "twoB$n" "$pb" "$n"; then
		give "$gb" 1
		kill9 "twoA$n" "$pa" "$ga" "$d"
		give "$gb" "$more"
		wait_acks "twoB$n" "$pb" $((n + 1 + more)) &&
			ok "the second writer went on after the first was killed ($((n + 1 + more)) objects)"
		kill9 "twoB$n" "$pb" "$gb" "$d"
	else
		kill9 "twoA$n" "$pa" "$ga" 0
		kill9 "twoB$n" "$pb" "$gb" 0
	fi
	verify "two writers killed ($n each, then $more more)"
done
check_eq "objects acknowledged in all (from 32 on)" yes \
	"$([ "$(wc -l <"$ACKS")" -ge 32 ] && echo yes || echo no)"

finish
