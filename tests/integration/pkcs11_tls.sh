#!/bin/bash
# TLS with the token's keys through OpenSSL's pkcs11 engine (libengine-pkcs11-openssl): for an
# RSA-2048 and an EC P-256 key made on the token, `openssl req -x509 -engine pkcs11` makes a
# self-signed certificate whose key is the token's (openssl verifies its signature), which
# pkcs11-tool stores on the token and reads back; `openssl s_server` on 127.0.0.1 serves with
# the token's key (engine) and that certificate, and `openssl s_client` completes a TLS 1.3 and
# a TLS 1.2 handshake (RSA: RSA-PSS in 1.3, PKCS#1 v1.5 asked for in 1.2), the peer
# certificate being the token's. Each s_server takes two connections (-naccept) and is
# stopped at any exit.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
sanitizer_preload "$MOD"
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
P11="pkcs11-tool --module $MOD"
PIN=123456
U11="$P11 --token-label tls --login --pin $PIN"

TLS_PID=
stop_tls() {
	[ -n "$TLS_PID" ] || return 0
	kill "$TLS_PID" 2>/dev/null || true
	for _ in $(seq 1 50); do
		kill -0 "$TLS_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$TLS_PID" 2>/dev/null || true
	wait "$TLS_PID" 2>/dev/null || true
	TLS_PID=
}
# lib.sh's cleanup after ours, with the exit status it would have seen
on_exit() {
	local rc=$?
	stop_tls
	(exit "$rc")
	_lib_cleanup
}
trap on_exit EXIT

ENGINE=$(find /usr/lib -name pkcs11.so -path '*engines-3*' | head -n 1)
check_eq "libengine-pkcs11-openssl is installed" yes "$([ -n "$ENGINE" ] && echo yes || echo no)"
cat >"$T/openssl.cnf" <<CNF
openssl_conf = init
[init]
engines = engines
[engines]
pkcs11 = pkcs11
[pkcs11]
engine_id = pkcs11
dynamic_path = $ENGINE
MODULE_PATH = $MOD
init = 0
CNF
URI="pkcs11:token=tls;pin-value=$PIN"

run "pkcs11-tool --init-token" $P11 --init-token --label tls --so-pin so-secret
run "pkcs11-tool --init-pin" $P11 --token-label tls --login --login-type so --so-pin so-secret \
	--init-pin --pin $PIN
run "keygen RSA-2048" $U11 --keypairgen --key-type rsa:2048 --id 01 --label rsa
run "keygen EC P-256" $U11 --keypairgen --key-type EC:prime256v1 --id 02 --label ec

# The token's public key as DER (SubjectPublicKeyInfo) in $T/NAME.spki: RSA as pkcs11-tool
# exports it, EC from its CKA_EC_POINT in a P-256 SPKI (pkcs11-tool 0.23 exports no EC SPKI).
token_spki() {
	local name=$1 id=$2 point
	if [ "$name" = rsa ]; then
		run "$name: export the public key" $U11 --read-object --type pubkey --id "$id" \
			-o "$T/$name.spki"
		return 0
	fi
	run "$name: list the public key" $U11 --list-objects --type pubkey --id "$id"
	point=$(sed -n 's/^ *EC_POINT: *0441//p' "$T/out")
	echo "3059301306072a8648ce3d020106082a8648ce3d030107034200$point" | xxd -r -p \
		>"$T/$name.spki"
}

sha_of_spki() {
	openssl pkey -pubin -inform "$2" -in "$1" -outform DER 2>/dev/null | sha256sum | cut -c1-64
}

# serve NAME: s_server with the token's key NAME and the certificate read back from the token,
# for two connections; sets TLS_PID and TLS_PORT. Returns 1 if it does not listen.
serve() {
	local name=$1 try
	for try in 1 2 3; do
		pick_ports || return 1
		TLS_PORT=$PORT
		env OPENSSL_CONF="$T/openssl.cnf" openssl s_server -engine pkcs11 -keyform engine \
			-key "$URI;object=$name;type=private" -cert "$T/$name.back.pem" \
			-accept "127.0.0.1:$TLS_PORT" -naccept 2 -www </dev/null \
			>"$T/s_server.$name.log" 2>&1 &
		TLS_PID=$!
		for _ in $(seq 1 100); do
			grep -q '^ACCEPT' "$T/s_server.$name.log" && return 0
			kill -0 "$TLS_PID" 2>/dev/null || break
			sleep 0.05
		done
		echo "s_server did not start (try $try, port $TLS_PORT):"
		show_tail "$T/s_server.$name.log" 10
		stop_tls
	done
	return 1
}

# handshake NAME VERSION SIGTYPE CLIENT-OPTIONS...: one s_client connection that must complete
# the handshake at VERSION with the peer's signature of SIGTYPE, verifying the token's
# certificate, which must be the peer's
handshake() {
	local name=$1 ver=$2 sig=$3 what
	shift 3
	what="$name: TLS $ver"
	run "$what: s_client completes the handshake" openssl s_client \
		-connect "127.0.0.1:$TLS_PORT" "-tls${ver/./_}" -CAfile "$T/$name.back.pem" \
		-verify_return_error "$@"
	check_eq "$what: the protocol" "TLSv$ver" \
		"$(sed -n 's/^New, \(TLSv[0-9.]*\), Cipher is .*/\1/p' "$T/out")"
	check_eq "$what: the server signed with its key ($sig)" "$sig" \
		"$(sed -n 's/^Peer signature type: //p' "$T/out")"
	check_eq "$what: the certificate verified" yes \
		"$(grep -q '^ *Verify return code: 0 (ok)' "$T/out" && echo yes || echo no)"
	sed -n '/^-----BEGIN CERTIFICATE-----/,/^-----END CERTIFICATE-----/p' "$T/out" \
		>"$T/peer.pem"
	check_eq "$what: the peer's certificate is the token's" \
		"$(openssl x509 -in "$T/$name.back.pem" -outform DER | sha256sum)" \
		"$(openssl x509 -in "$T/peer.pem" -outform DER 2>/dev/null | sha256sum)"
}

tls() {
	local name=$1 id=$2 sig=$3
	shift 3
	token_spki "$name" "$id"
	run "$name: openssl req -x509 with the token's key" env OPENSSL_CONF="$T/openssl.cnf" \
		openssl req -new -x509 -engine pkcs11 -keyform engine \
		-key "$URI;object=$name;type=private" -subj "/CN=pqtpm $name" -days 2 -sha256 \
		-addext basicConstraints=critical,CA:TRUE -out "$T/$name.pem"
	check_eq "$name: the certificate's key is the token's" "$(sha_of_spki "$T/$name.spki" DER)" \
		"$(openssl x509 -in "$T/$name.pem" -pubkey -noout | sha_of_spki /dev/stdin PEM)"
	run "$name: openssl verifies the self-signature" openssl verify -CAfile "$T/$name.pem" \
		"$T/$name.pem"
	run "$name: as DER" openssl x509 -in "$T/$name.pem" -outform DER -out "$T/$name.der"
	run "$name: pkcs11-tool stores it on the token" $U11 --write-object "$T/$name.der" \
		--type cert --id "$id" --label "$name"
	run "$name: and reads it back" $P11 --token-label tls --read-object --type cert --id "$id" \
		-o "$T/$name.back.der"
	run "$name: the same bytes" cmp "$T/$name.der" "$T/$name.back.der"
	run "$name: as PEM" openssl x509 -inform DER -in "$T/$name.back.der" -out "$T/$name.back.pem"
	if ! serve "$name"; then
		bad "$name: s_server with the token's key listens on 127.0.0.1"
		return 0
	fi
	ok "$name: s_server with the token's key listens on 127.0.0.1:$TLS_PORT"
	handshake "$name" 1.3 "$sig" </dev/null
	handshake "$name" 1.2 "${sig%-PSS}" "$@" </dev/null
	# two connections taken: s_server ends by itself
	for _ in $(seq 1 100); do
		kill -0 "$TLS_PID" 2>/dev/null || break
		sleep 0.05
	done
	check_eq "$name: s_server finished both handshakes" 2 \
		"$(sed -n 's/^ *\([0-9]*\) server accepts that finished$/\1/p' "$T/s_server.$name.log")"
	stop_tls
}

# TLS 1.3 signs RSA with PSS; in 1.2 the client asks for PKCS#1 v1.5 (the engine's CKM_RSA_PKCS)
tls rsa 01 RSA-PSS -sigalgs RSA+SHA256
tls ec 02 ECDSA
run "the token lists both certificates" $P11 --token-label tls --list-objects --type cert
check_eq "labelled rsa and ec" "ec rsa" \
	"$(sed -n 's/^ *label: *//p' "$T/out" | sort | tr '\n' ' ' | sed 's/ $//')"

finish
