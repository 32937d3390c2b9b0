#!/bin/bash
# The PKCS#11 module in a Python application: pkcs11_pykcs11.py (PyKCS11, Debian's
# python3-pykcs11) from a store without tokens to key pairs of every type, every listed
# mechanism, objects, attributes and errors; run twice, with the module on its embedded engine
# ($PQTPM_STATE_DIR) and over a pqtpm-server this script starts (tpm = mssim:... in a
# $PQTPM_PKCS11_CONF file). Each pass's checks are counted here.
set -eu
. "$(dirname "$0")/lib.sh"

MOD=$BUILD_DIR/lib/libpqtpm-pkcs11.so
# Debian's interpreter: python3-pykcs11 is installed for it (an interpreter of another origin
# earlier in PATH would not find it)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
sanitizer_preload "$MOD"

if ! "$PY" -c 'import PyKCS11' 2>"$T/err"; then
	bad "PyKCS11 is not installed for $PY (python3-pykcs11)"
	show_tail "$T/err"
	finish
fi

# pass NAME: the Python test with the environment set; its checks join ours
pass() {
	local what=$1 st=0 sum f
	timeout -k 5 120 "$PY" "$LIB_DIR/pkcs11_pykcs11.py" "$MOD" >"$T/py.out" 2>&1 </dev/null ||
		st=$?
	sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$T/py.out" | tail -n 1 || true)
	grep -vE '^[0-9]+ passed, [0-9]+ failed$' "$T/py.out" | sed -E "s/^(ok  |FAIL) /\\1 $what: /"
	if [ -z "$sum" ]; then
		bad "$what: the Python test stopped before its summary (exit $st)"
		return 0
	fi
	f=${sum#*, }
	f=${f%% *}
	PASS=$((PASS + ${sum%% *}))
	FAIL=$((FAIL + f))
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		bad "$what: exit status $st without a failed check"
	fi
	if grep -qE 'ERROR: [A-Za-z]+Sanitizer|runtime error:' "$T/py.out"; then
		bad "$what: a sanitizer report"
	fi
	return 0
}

export PQTPM_STATE_DIR=$T/state
unset PQTPM_PKCS11_CONF
pass embedded

tpm_start "$T/tpm"
unset PQTPM_STATE_DIR
export PQTPM_PKCS11_CONF=$T/pqtpm-pkcs11.conf
printf 'tpm = %s\nstore = %s\n' "$TCTI" "$T/store" >"$PQTPM_PKCS11_CONF"
pass mssim
check_eq "the store of the mssim pass is where the configuration says" yes \
	"$([ -s "$T/store/pkcs11.db" ] && echo yes || echo no)"
tpm_stop || true

finish
