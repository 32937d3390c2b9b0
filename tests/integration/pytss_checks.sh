#!/bin/bash
# tpm2-pytss (Debian's python3-tpm2-pytss, its ESAPI and FAPI classes) against the server: what
# tpm2-pytss's own suite showed pqtpm doing differently from the reference implementation, as
# checks of our own (helpers/pytss_checks.py says which): TPM_RC_PP with its session number,
# the TPM2B_PRIVATE layout with its IV, key wrapping and credentials against pytss's software
# versions, a few response codes, trial policies on unwritten indices, FAPI key blobs.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3 # Debian's, where python3-tpm2-pytss is installed
if ! "$PY" -c 'import tpm2_pytss' 2>/dev/null; then
	bad "python3-tpm2-pytss is not installed (scripts/install-deps.sh)"
	finish
fi

tpm_start
st=0
"$PY" "$LIB_DIR/helpers/pytss_checks.py" "$TCTI" >"$T/checks" 2>"$T/checks.err" || st=$?
while IFS= read -r line; do
	case $line in
	"ok   "*) ok "${line#ok   }" ;;
	"FAIL "*) bad "${line#FAIL }" ;;
	esac
done <"$T/checks"
if [ "$st" -ne 0 ] && ! grep -q '^FAIL ' "$T/checks"; then
	bad "pytss_checks.py exit status $st"
	show_tail "$T/checks.err" 30
fi
finish
