#!/bin/bash
# The PKCS#11 module through real clients: pkcs11-tool (OpenSC) initializes a token and its
# user PIN, logs in, changes the PIN, counts wrong PINs (the TPM's dictionary-attack lockout,
# seen in the token flags); p11tool (GnuTLS) and p11-kit (through the module file) list the
# token; an application loading the module prints nothing and creates nothing until a token
# is initialized.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
P11="pkcs11-tool --module $MOD"
SO=so-secret
PIN=123456

run "pkcs11-tool -L lists one empty slot" $P11 -L
check_eq "the empty slot holds an uninitialized token" 1 "$(grep -c 'token state: *uninitialized' "$T/out")"
check_eq "loading the module printed nothing" "" "$(grep -i pqtpm "$T/err" || true)"
check_eq "nothing on disk before C_InitToken" no "$([ -e "$PQTPM_STATE_DIR" ] && echo yes || echo no)"

run "pkcs11-tool --init-token" $P11 --init-token --label alpha --so-pin $SO
run "pkcs11-tool -L after C_InitToken" $P11 -L
check_eq "the token is listed by its label" 1 "$(grep -c 'token label *: alpha' "$T/out")"
check_eq "a new empty slot appeared" 1 "$(grep -c 'token state: *uninitialized' "$T/out")"
check_eq "the store is 0600" 600 "$(stat -c %a "$PQTPM_STATE_DIR/pkcs11.db")"

run "pkcs11-tool --init-pin (SO login)" $P11 --token-label alpha --login --login-type so \
	--so-pin $SO --init-pin --pin $PIN
run "pkcs11-tool -T: user PIN initialized" $P11 -T
check_eq "flags say PIN initialized" 1 "$(grep -c 'token flags.*PIN initialized' "$T/out")"
run "user login (random bytes after it)" $P11 --token-label alpha --login --pin $PIN \
	--generate-random 16
run "pkcs11-tool --change-pin" $P11 --token-label alpha --login --pin $PIN --change-pin \
	--new-pin 654321
expect_fail "the old PIN is refused" $P11 --token-label alpha --login --pin $PIN \
	--generate-random 16
check_eq "CKR_PIN_INCORRECT" 1 "$(grep -c CKR_PIN_INCORRECT "$T/err")"
run "pkcs11-tool -T after one wrong PIN" $P11 -T
check_eq "user PIN count low" 1 "$(grep -c 'token flags.*user PIN count low' "$T/out")"
expect_fail "a second wrong PIN" $P11 --token-label alpha --login --pin 111111 --generate-random 8
run "pkcs11-tool -T: final try" $P11 -T
check_eq "user PIN final try" 1 "$(grep -c 'token flags.*final user PIN try' "$T/out")"
expect_fail "a third wrong PIN" $P11 --token-label alpha --login --pin 222222 --generate-random 8
expect_fail "locked: even the right PIN is refused" $P11 --token-label alpha --login \
	--pin 654321 --generate-random 8
check_eq "CKR_PIN_LOCKED" 1 "$(grep -c CKR_PIN_LOCKED "$T/err")"
run "pkcs11-tool -T: locked" $P11 -T
check_eq "user PIN locked" 1 "$(grep -c 'token flags.*user PIN locked' "$T/out")"

run "p11tool --list-tokens" p11tool --provider "$MOD" --list-tokens
check_eq "p11tool sees the token" 1 "$(grep -c 'Label: alpha' "$T/out")"

# p11-kit finds the module through a module file in the user's configuration (p11-kit reads
# no user configuration as root: then the check runs as nobody, in a home of its own)
U=$T/p11kit
mkdir -p "$U/home/.config/pkcs11/modules"
sed "s|@MODULE@|$MOD|" "$ROOT_DIR/conf/pqtpm.module" >"$U/home/.config/pkcs11/modules/pqtpm.module"
AS=()
if [ "$(id -u)" -eq 0 ]; then
	chmod 0711 "$T"
	chown -R nobody "$U"
	AS=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
fi
run "p11-kit list-modules" "${AS[@]}" env HOME="$U/home" PQTPM_STATE_DIR="$U/state" \
	p11-kit list-modules
check_eq "p11-kit loads the module from its module file" 1 \
	"$(grep -c 'library-description: pqtpm PKCS#11 module' "$T/out")"

finish
