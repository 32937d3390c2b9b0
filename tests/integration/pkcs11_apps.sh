#!/bin/bash
# The PKCS#11 module in real applications: OpenSSL through libengine-pkcs11-openssl signs with
# the token's RSA and EC keys (`openssl dgst -engine pkcs11 -keyform engine`; openssl verifies
# with the exported public keys) and decrypts OAEP; ssh (`-I module`) logs in with the token's
# key to an sshd of the test's own on 127.0.0.1, whose authorized_keys is `ssh-keygen -D`'s
# output, the PIN coming through SSH_ASKPASS. The sshd is stopped at the end, or at any exit.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
sanitizer_preload "$MOD"
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
P11="pkcs11-tool --module $MOD"
PIN=123456
U11="$P11 --token-label apps --login --pin $PIN"

SSHD_PID=
stop_sshd() {
	[ -n "$SSHD_PID" ] || return 0
	kill "$SSHD_PID" 2>/dev/null || true
	for _ in $(seq 1 50); do
		kill -0 "$SSHD_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$SSHD_PID" 2>/dev/null || true
	wait "$SSHD_PID" 2>/dev/null || true
	SSHD_PID=
}
# lib.sh's cleanup after ours, with the exit status it would have seen
on_exit() {
	local rc=$?
	stop_sshd
	(exit "$rc")
	_lib_cleanup
}
trap on_exit EXIT

run "pkcs11-tool --init-token" $P11 --init-token --label apps --so-pin so-secret
run "pkcs11-tool --init-pin" $P11 --token-label apps --login --login-type so \
	--so-pin so-secret --init-pin --pin $PIN
run "keygen RSA-2048" $U11 --keypairgen --key-type rsa:2048 --id 01 --label rsa \
	--usage-sign --usage-decrypt
run "keygen EC P-256" $U11 --keypairgen --key-type EC:prime256v1 --id 02 --label ec
run "export the RSA public key" $U11 --read-object --type pubkey --id 01 -o "$T/rsa.der"
run "as PEM" openssl pkey -pubin -inform DER -in "$T/rsa.der" -out "$T/rsa.pem"
run "list the public keys" $U11 --list-objects --type pubkey
point=$(awk '/EC_POINT: *0441/ { p = $2 } /label: *ec$/ { print substr(p, 5) }' "$T/out")
check_eq "an uncompressed P-256 point" 130 "${#point}"
echo "3059301306072a8648ce3d020106082a8648ce3d030107034200$point" | xxd -r -p >"$T/ec.der"
run "EC public key as PEM" openssl pkey -pubin -inform DER -in "$T/ec.der" -out "$T/ec.pem"

# ---- OpenSSL through the pkcs11 engine (libp11), told the module by its configuration ----
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
printf 'a message signed by OpenSSL with a key in the TPM' >"$T/msg"
URI="pkcs11:token=apps;pin-value=$PIN"
run "openssl dgst -sign with the RSA key" env OPENSSL_CONF="$T/openssl.cnf" \
	openssl dgst -engine pkcs11 -keyform engine -sha256 \
	-sign "$URI;object=rsa;type=private" -out "$T/s_rsa" "$T/msg"
run "openssl verifies it with the public key" openssl dgst -sha256 -verify "$T/rsa.pem" \
	-signature "$T/s_rsa" "$T/msg"
run "openssl dgst -sign with the EC key" env OPENSSL_CONF="$T/openssl.cnf" \
	openssl dgst -engine pkcs11 -keyform engine -sha256 \
	-sign "$URI;object=ec;type=private" -out "$T/s_ec" "$T/msg"
run "openssl verifies the ECDSA signature" openssl dgst -sha256 -verify "$T/ec.pem" \
	-signature "$T/s_ec" "$T/msg"
printf 'another message' >"$T/other"
expect_fail "the signature does not verify another message" openssl dgst -sha256 \
	-verify "$T/rsa.pem" -signature "$T/s_rsa" "$T/other"
head -c 32 /dev/urandom >"$T/plain"
run "openssl encrypts OAEP SHA-256 with the public key" openssl pkeyutl -encrypt -pubin \
	-inkey "$T/rsa.pem" -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
	-pkeyopt rsa_mgf1_md:sha256 -in "$T/plain" -out "$T/ct"
run "openssl pkeyutl -decrypt through the engine" env OPENSSL_CONF="$T/openssl.cnf" \
	openssl pkeyutl -engine pkcs11 -keyform engine -inkey "$URI;object=rsa;type=private" \
	-decrypt -pkeyopt rsa_padding_mode:oaep -pkeyopt rsa_oaep_md:sha256 \
	-pkeyopt rsa_mgf1_md:sha256 -in "$T/ct" -out "$T/pt"
run "the plaintext back" cmp "$T/plain" "$T/pt"

# ---- ssh with the module ----
run "ssh-keygen -D prints the token's public keys" ssh-keygen -D "$MOD"
cp "$T/out" "$T/authorized_keys"
check_eq "an RSA and an ECDSA key" "1 1" "$(grep -c '^ssh-rsa ' "$T/authorized_keys") \
$(grep -c '^ecdsa-sha2-nistp256 ' "$T/authorized_keys")"
chmod 600 "$T/authorized_keys"
run "a host key for the test's sshd" ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
# sshd as root wants its privilege-separation directory (Debian's service makes it at start)
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
pick_ports
SSH_PORT=$PORT
cat >"$T/sshd_config" <<CNF
Port $SSH_PORT
ListenAddress 127.0.0.1
HostKey $T/host_key
PidFile $T/sshd.pid
AuthorizedKeysFile $T/authorized_keys
StrictModes no
UsePAM no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
CNF
/usr/sbin/sshd -D -e -f "$T/sshd_config" 2>"$T/sshd.log" &
SSHD_PID=$!
for _ in $(seq 1 100); do
	tcp_connects "$SSH_PORT" && break
	kill -0 "$SSHD_PID" 2>/dev/null || break
	sleep 0.05
done
check_eq "sshd listens on 127.0.0.1:$SSH_PORT" yes \
	"$(tcp_connects "$SSH_PORT" && echo yes || echo no)"
printf '#!/bin/sh\necho %s\n' "$PIN" >"$T/askpass"
chmod 700 "$T/askpass"
SSH_OPTS=(-F /dev/null -p "$SSH_PORT" -o StrictHostKeyChecking=no
	-o UserKnownHostsFile="$T/known_hosts" -o PasswordAuthentication=no
	-o KbdInteractiveAuthentication=no -o ConnectTimeout=10)
ME=$(id -un)
run "ssh -I logs in with the token's key (PIN through SSH_ASKPASS)" \
	env SSH_ASKPASS="$T/askpass" SSH_ASKPASS_REQUIRE=force DISPLAY=none \
	ssh "${SSH_OPTS[@]}" -I "$MOD" "$ME@127.0.0.1" echo logged-in-through-pqtpm </dev/null
check_eq "the command ran on the server" logged-in-through-pqtpm "$(cat "$T/out")"
run "ssh -o PKCS11Provider= with the EC key alone" \
	env SSH_ASKPASS="$T/askpass" SSH_ASKPASS_REQUIRE=force DISPLAY=none \
	ssh "${SSH_OPTS[@]}" -o PKCS11Provider="$MOD" -o PubkeyAcceptedAlgorithms=ecdsa-sha2-nistp256 \
	"$ME@127.0.0.1" echo ecdsa </dev/null
check_eq "with ECDSA" ecdsa "$(cat "$T/out")"
check_eq "sshd accepted two logins by public key" 2 "$(grep -c 'Accepted publickey' "$T/sshd.log")"
# the keys sshd accepted are the token's (their fingerprints are in ssh-keygen -D's list)
ssh-keygen -lf "$T/authorized_keys" | awk '{ print $2 }' | sort >"$T/token_fps"
grep 'Accepted publickey' "$T/sshd.log" | grep -o 'SHA256:[A-Za-z0-9+/]*' | sort -u >"$T/used_fps"
check_eq "both token keys were the ones accepted (RSA, then ECDSA)" "$(cat "$T/token_fps")" \
	"$(cat "$T/used_fps")"
stop_sshd

finish
