#!/bin/bash
# The client library is a client of any TPM 2.0: the same command checks (tss_conformance.c)
# against pqtpm-server over MSSIM and against Debian's swtpm over its own protocol. Each check
# of the program counts here as one, tagged with the TPM it ran on; a check the TPM does not
# have (swtpm 0.7.1 and the v1.85 post-quantum commands) is printed and counted as skipped,
# never as passed. On pqtpm the post-quantum checks must run (PQTPM_EXPECT_PQ=1).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

PROG=$BUILD_DIR/tests/tss_conformance
SKIPPED=0

# The program's lines into ok/bad of this script; its exit status must agree with them.
against() {
	local impl=$1 expect_pq=$2 log=$T/conformance-$1.log st=0 line failed=0
	TPM_IMPL=$impl
	if ! tpm_start "$T/state-$impl"; then
		bad "[$impl] server did not start"
		return 0
	fi
	PQTPM_EXPECT_PQ=$expect_pq timeout -k 5 "$CMD_TIMEOUT" "$PROG" "$TCTI" \
		>"$log" 2>&1 </dev/null || st=$?
	while IFS= read -r line; do
		case $line in
		"ok   "*) ok "[$impl] ${line#ok   }" ;;
		"FAIL "*)
			bad "[$impl] ${line#FAIL }"
			failed=1
			;;
		"skip "*)
			echo "skip [$impl] ${line#skip }"
			SKIPPED=$((SKIPPED + 1))
			;;
		*" passed, "*" failed" | *" skipped") ;;
		*) echo "     [$impl] $line" ;;
		esac
	done <"$log"
	if [ "$st" -ne 0 ] && [ "$failed" -eq 0 ]; then
		bad "[$impl] tss_conformance exit status $st"
	fi
	check_sanitizer_log "$log" || true
	tpm_stop || true
}

if [ ! -x "$PROG" ]; then
	bad "tss_conformance not built ($PROG)"
	finish
fi
against pqtpm 1
if command -v swtpm >/dev/null && command -v swtpm_ioctl >/dev/null; then
	against swtpm 0
else
	bad "swtpm is not installed (Debian package swtpm)"
fi
echo "$SKIPPED skipped"
finish
