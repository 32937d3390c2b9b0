#!/bin/bash
# pqtpm-attest serve as clients drive it with curl: a challenge from GET /v1/challenge, a quote
# by pqtpm-attest with its nonce, POST /v1/verify (ECC P-256 and ML-DSA-65 AKs); the same
# challenge verified by a second serve process with the same key file, refused by one with
# another key; a forged and an expired challenge (made here with the key file) refused with the
# nonce check; malformed bodies, bodies over 1 MiB (declared and chunked), other paths and
# methods answered 400/404/405 with a JSON error while the servers keep serving; a key file
# others can read refused. Loopback only; every server started is stopped (SIGTERM, exit 0).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

A="$BUILD_DIR/bin/pqtpm-attest"
export PQTPM_STATE_DIR=$T/state
SERVE_PIDS=()

# shellcheck disable=SC2317 # run by the EXIT trap
_serve_cleanup() {
	local rc=$? p
	for p in "${SERVE_PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null || true
	done
	(exit "$rc")
	_lib_cleanup
}
trap _serve_cleanup EXIT

# serve_start NAME PORT KEY: a serve process on 127.0.0.1:PORT, up when it accepts connections
serve_start() {
	"$A" serve --port "$2" --key "$3" >"$T/serve_$1.log" 2>&1 &
	SERVE_PIDS+=($!)
	eval "PID_$1=$!"
	for _ in $(seq 1 100); do
		tcp_connects "$2" && { ok "serve $1 listens on port $2"; return 0; }
		sleep 0.1
	done
	bad "serve $1 does not listen on port $2"
	show_tail "$T/serve_$1.log"
}

# serve_stop NAME: SIGTERM, then it must exit 0 within 10 s
serve_stop() {
	local pid st=0
	eval "pid=\$PID_$1"
	kill -TERM "$pid"
	for _ in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		bad "serve $1 ignores SIGTERM"
	fi
	wait "$pid" || st=$?
	check_eq "serve $1 stops with exit status 0" 0 "$st"
}

# post PORT FILE [CURL ARGS]: POST /v1/verify; the body in $T/resp, the status printed
post() {
	local port=$1 file=$2
	shift 2
	curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/json' "$@" \
		--data-binary "@$file" "http://127.0.0.1:$port/v1/verify"
}

# challenge PORT: the nonce of a fresh challenge
challenge() {
	curl -sf "http://127.0.0.1:$1/v1/challenge" >"$T/challenge.json" &&
		jq -er .nonce "$T/challenge.json"
}

# request AK EVIDENCE OUT: the body of POST /v1/verify
request() {
	jq -n --slurpfile ev "$2" --arg ak "$(jq -r .public "$1")" \
		'{evidence: $ev[0], ak_public: $ak}' >"$3"
}

# quote_for AK NONCE EVIDENCE
quote_for() {
	run "quote with nonce ${2:0:16}..." "$A" quote --ak "$1" --nonce "$2" --pcrs sha256:0,7 \
		--out "$3"
}

pick_ports
P1=$PORT
P2=$((PORT + 1))
_PORT_TRIES=$((_PORT_TRIES + 7))
pick_ports
P3=$PORT

serve_start one "$P1" "$T/serve.key"
serve_start two "$P2" "$T/serve.key"
serve_start other "$P3" "$T/other.key"
check_eq "the key file is made 0600" 600 "$(stat -c %a "$T/serve.key")"
check_eq "the key file holds 32 bytes" 32 "$(stat -c %s "$T/serve.key")"
if command -v ss >/dev/null; then
	check_eq "listening on loopback only" "127.0.0.1:$P1" \
		"$(ss -Hltn "sport = :$P1" | awk '{print $4}')"
fi

for alg in ecc-p256 mldsa65; do
	run "ak create $alg" "$A" ak create --alg "$alg" --out "$T/ak_$alg.json"
	if ! n=$(challenge "$P1"); then
		bad "$alg: GET /v1/challenge"
		continue
	fi
	ok "$alg: GET /v1/challenge"
	check_eq "$alg: the nonce is 56 bytes of hex" 112 "${#n}"
	if jq -er '.expires_at | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")' \
		"$T/challenge.json" >/dev/null; then
		ok "$alg: expires_at is RFC 3339"
	else
		bad "$alg: expires_at is RFC 3339"
	fi
	quote_for "$T/ak_$alg.json" "$n" "$T/ev_$alg.json"
	request "$T/ak_$alg.json" "$T/ev_$alg.json" "$T/req_$alg.json"
	check_eq "$alg: POST /v1/verify answers 200" 200 "$(post "$P1" "$T/req_$alg.json")"
	check_eq "$alg: valid" true "$(jq -r .valid "$T/resp")"
	check_eq "$alg: the claims name the AK" "$(jq -r .name "$T/ak_$alg.json")" \
		"$(jq -r .claims.ak_name "$T/resp")"
	check_eq "$alg: the second serve process (same key) answers 200" 200 \
		"$(post "$P2" "$T/req_$alg.json")"
	check_eq "$alg: and finds the first one's challenge valid" true "$(jq -r .valid "$T/resp")"
	check_eq "$alg: a serve process of another key answers 200" 200 \
		"$(post "$P3" "$T/req_$alg.json")"
	check_eq "$alg: and refuses the challenge (nonce)" "false nonce" \
		"$(jq -r '"\(.valid) \([.failures[].check] | join(","))"' "$T/resp")"
done

# a forged challenge: another HMAC; an expired one, made here with the key
n=$(challenge "$P1")
# shellcheck disable=SC2034 # read as ${!what} below
forged=${n:0:110}$(printf '%02x' $(((0x${n:110:2} + 1) % 256)))
# shellcheck disable=SC2034
expired=$(python3 - "$T/serve.key" <<'PY'
import hashlib, hmac, os, struct, sys
key = open(sys.argv[1], "rb").read()
msg = os.urandom(16) + struct.pack(">Q", 1)  # expired at 1970-01-01T00:00:01Z
tag = hmac.new(key, b"pqtpm-attest serve challenge 1\0" + msg, hashlib.sha256).digest()
print((msg + tag).hex())
PY
)
for what in forged expired; do
	quote_for "$T/ak_ecc-p256.json" "${!what}" "$T/ev_$what.json"
	request "$T/ak_ecc-p256.json" "$T/ev_$what.json" "$T/req_$what.json"
	check_eq "a $what challenge: 200" 200 "$(post "$P1" "$T/req_$what.json")"
	check_eq "a $what challenge is refused (nonce, the only failure)" "false nonce" \
		"$(jq -r '"\(.valid) \([.failures[].check] | join(","))"' "$T/resp")"
done
if jq -r '.failures[0].detail' "$T/resp" | grep -q expired; then
	ok "the detail says expired"
else
	bad "the detail says expired"
fi

# malformed requests: 400 with a JSON error, and the server goes on
printf '{"evidence": ' >"$T/bad1"
printf '[1, 2]' >"$T/bad2"
jq -c '.ak_public = "!!"' "$T/req_ecc-p256.json" >"$T/bad3"
jq -c '.policy = 7' "$T/req_ecc-p256.json" >"$T/bad4"
printf '\xff\xfe{}' >"$T/bad5"
jq -c '.evidence.nonce = 1' "$T/req_ecc-p256.json" >"$T/bad6"
: >"$T/bad7"
for i in 1 2 3 4 5 7; do
	check_eq "malformed body $i: 400" 400 "$(post "$P1" "$T/bad$i")"
	if jq -er .error "$T/resp" >/dev/null; then
		ok "malformed body $i: a JSON error"
	else
		bad "malformed body $i: a JSON error"
	fi
done
check_eq "a nonce that is no string: 200" 200 "$(post "$P1" "$T/bad6")"
check_eq "a nonce that is no string: format and nonce" "false format,nonce" \
	"$(jq -r '"\(.valid) \([.failures[].check] | join(","))"' "$T/resp")"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >"$T/big"
check_eq "a body over 1 MiB: 400" 400 "$(post "$P1" "$T/big")"
if jq -er .error "$T/resp" >/dev/null; then
	ok "over 1 MiB: a JSON error"
else
	bad "over 1 MiB: a JSON error"
fi
check_eq "a chunked body over 1 MiB: 400" 400 \
	"$(post "$P1" "$T/big" -H 'Transfer-Encoding: chunked')"
check_eq "GET /v1/verify: 405" 405 \
	"$(curl -s -o "$T/resp" -w '%{http_code}' "http://127.0.0.1:$P1/v1/verify")"
check_eq "POST /v1/challenge: 405" 405 "$(curl -s -o "$T/resp" -w '%{http_code}' -d x \
	"http://127.0.0.1:$P1/v1/challenge")"
check_eq "another path: 404" 404 \
	"$(curl -s -o "$T/resp" -w '%{http_code}' "http://127.0.0.1:$P1/v2/anything")"
check_eq "still serving after all that" 200 "$(post "$P1" "$T/req_mldsa65.json")"
check_eq "and still valid" true "$(jq -r .valid "$T/resp")"

serve_stop one
serve_stop two
serve_stop other
SERVE_PIDS=()

chmod 644 "$T/serve.key"
expect_fail "a key file others can read is refused" "$A" serve --port "$P1" --key "$T/serve.key"
if grep -q "serve.key" "$T/err"; then
	ok "the message names the key file"
else
	bad "the message names the key file"
fi
expect_fail "--port 0 is refused" "$A" serve --port 0
expect_fail "--bind of a name is refused" "$A" serve --bind localhost --port "$P1"
run "serve --help" "$A" serve --help

finish
