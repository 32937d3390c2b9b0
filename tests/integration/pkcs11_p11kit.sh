#!/bin/bash
# The PKCS#11 module behind p11-kit: pkcs11-tool signs through p11-kit-proxy.so (the module
# enabled by a module file in the test's own user configuration, never /etc), and through
# `p11-kit server` + p11-kit-client.so (remoting over a unix socket of the test); openssl
# verifies every signature with the public key exported from the token.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
PROXY=/usr/lib/x86_64-linux-gnu/p11-kit-proxy.so
CLIENT=/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so
sanitizer_preload "$MOD"
unset PQTPM_PKCS11_CONF
SO=so-secret
PIN=123456

# p11-kit reads no user configuration as root: then every client runs as nobody, in a home of
# its own (the token's state directory is nobody's too)
U=$T/p11kit
mkdir -p "$U/home/.config/pkcs11/modules" "$U/run"
chmod 0700 "$U/run"
# a copy of the module where nobody reads it (the checkout may lie under a directory that only
# root enters, as `mktemp -d` makes them)
cp "$MOD" "$U/libpqtpm-pkcs11.so"
MOD=$U/libpqtpm-pkcs11.so
printf 'module: %s\ncritical: no\n' "$MOD" >"$U/home/.config/pkcs11/modules/pqtpm.module"
printf 'a message to sign' >"$U/msg"
openssl dgst -sha256 -binary "$U/msg" >"$U/msg.sha256"
AS=()
if [ "$(id -u)" -eq 0 ]; then
	chmod 0711 "$T"
	chown -R nobody "$U"
	AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
export HOME=$U/home XDG_RUNTIME_DIR=$U/run PQTPM_STATE_DIR=$U/state
P11=("${AS[@]}" pkcs11-tool --module "$MOD")
UP=(--token-label alpha --login --pin "$PIN")

SERVER_P11KIT=
p11kit_stop() {
	[ -n "$SERVER_P11KIT" ] || return 0
	kill -TERM "$SERVER_P11KIT" 2>/dev/null || true
	for _ in $(seq 1 100); do
		kill -0 "$SERVER_P11KIT" 2>/dev/null || break
		sleep 0.05
	done
	kill -KILL "$SERVER_P11KIT" 2>/dev/null || true
	wait "$SERVER_P11KIT" 2>/dev/null || true
	SERVER_P11KIT=
}
# lib.sh's exit handler after ours, with the script's exit status
# shellcheck disable=SC2154 # _st is set by the trap itself
trap '_st=$?; p11kit_stop; (exit $_st); _lib_cleanup' EXIT

run "a token" "${P11[@]}" --init-token --label alpha --so-pin $SO
run "its user PIN" "${P11[@]}" --token-label alpha --login --login-type so --so-pin $SO \
	--init-pin --pin $PIN
run "keygen RSA-2048" "${P11[@]}" "${UP[@]}" --keypairgen --key-type rsa:2048 --id 01 --label rsa
run "keygen EC P-256" "${P11[@]}" "${UP[@]}" --keypairgen --key-type EC:prime256v1 --id 02 \
	--label ec
run "export the RSA public key" "${P11[@]}" "${UP[@]}" --read-object --type pubkey --id 01 \
	-o "$U/rsa.der"
run "RSA public key as PEM" openssl pkey -pubin -inform DER -in "$U/rsa.der" -out "$T/rsa.pem"
run "read the EC point" "${P11[@]}" "${UP[@]}" --list-objects --type pubkey --id 02
point=$(sed -n 's/^ *EC_POINT: *0441//p' "$T/out")
check_eq "an uncompressed P-256 point" 130 "${#point}"
echo "3059301306072a8648ce3d020106082a8648ce3d030107034200$point" | xxd -r -p >"$T/ec.der"
run "EC public key as PEM" openssl pkey -pubin -inform DER -in "$T/ec.der" -out "$T/ec.pem"

# sign_verify WHAT MODULE: SHA256-RSA-PKCS and ECDSA of a SHA-256 digest through MODULE (the
# mechanisms p11-kit 0.24's remoting knows, see docs/pkcs11.md), each verified by openssl
sign_verify() {
	local what=$1 m=$2
	shift 2
	run "$what: SHA256-RSA-PKCS" "${AS[@]}" "$@" pkcs11-tool --module "$m" "${UP[@]}" --sign \
		--id 01 -m SHA256-RSA-PKCS -i "$U/msg" -o "$U/$what.rsa.sig"
	run "$what: openssl verifies the RSA signature" openssl dgst -sha256 -verify "$T/rsa.pem" \
		-signature "$U/$what.rsa.sig" "$U/msg"
	run "$what: ECDSA of a SHA-256 digest" "${AS[@]}" "$@" pkcs11-tool --module "$m" "${UP[@]}" \
		--sign --id 02 -m ECDSA --signature-format openssl -i "$U/msg.sha256" \
		-o "$U/$what.ec.sig"
	run "$what: openssl verifies the ECDSA signature" openssl dgst -sha256 -verify "$T/ec.pem" \
		-signature "$U/$what.ec.sig" "$U/msg"
}

run "p11-kit-proxy.so lists the token" "${AS[@]}" pkcs11-tool --module "$PROXY" -L
check_eq "by its label" 1 "$(grep -c 'token label *: alpha' "$T/out")"
sign_verify proxy "$PROXY"
run "through the proxy: ECDSA-SHA256" "${AS[@]}" pkcs11-tool --module "$PROXY" "${UP[@]}" \
	--sign --id 02 -m ECDSA-SHA256 --signature-format openssl -i "$U/msg" -o "$U/proxy.ec2.sig"
run "openssl verifies it" openssl dgst -sha256 -verify "$T/ec.pem" -signature "$U/proxy.ec2.sig" \
	"$U/msg"

# p11-kit server in the foreground (its pid is the one we stop); it prints the socket's address
"${AS[@]}" p11-kit server --foreground --sh --provider "$MOD" "pkcs11:token=alpha" \
	>"$T/p11kit-server.out" 2>"$T/p11kit-server.err" &
SERVER_P11KIT=$!
addr=
for _ in $(seq 1 100); do
	addr=$(sed -n 's/^P11_KIT_SERVER_ADDRESS=\([^;]*\);.*/\1/p' "$T/p11kit-server.out")
	[ -z "$addr" ] || break
	kill -0 "$SERVER_P11KIT" 2>/dev/null || break
	sleep 0.05
done
case $addr in
unix:path=*)
	ok "p11-kit server gives its address"
	run "p11-kit-client.so lists the token" "${AS[@]}" env P11_KIT_SERVER_ADDRESS="$addr" \
		pkcs11-tool --module "$CLIENT" -L
	check_eq "by its label" 1 "$(grep -c 'token label *: alpha' "$T/out")"
	sign_verify remote "$CLIENT" env P11_KIT_SERVER_ADDRESS="$addr"
	;;
*)
	bad "p11-kit server gives its address (got '$addr')"
	show_tail "$T/p11kit-server.err"
	;;
esac
p11kit_stop

finish
