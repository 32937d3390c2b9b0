#!/bin/bash
# The client library's layering: tss/ sources (and attest/'s, TPM clients too) include only
# their own folder's headers, <pqtpm/*.h>, system headers, and core's bottom layer
# "marshal.h" and "crypto/*.h". Any other
# core header (types.h, engine_int.h ...) would carry the engine's acceptance rules or
# internals into a client of any TPM.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$ROOT_DIR"
# what follows #include on a line that grep -n printed (no process per line)
include_re='^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*(.*)$'
# check_folder DIR WHAT: DIR's sources keep to the client library's layering
check_folder() {
	local dir=$1 what=$2 f line inc h n=0
	for f in "$dir"/*.[ch]; do
		while IFS= read -r line; do
			n=$((n + 1))
			[[ $line =~ $include_re ]] && inc=${BASH_REMATCH[1]}
			case $inc in
			'<pqtpm/'*'>' | '"marshal.h"' | '"crypto/'*'.h"') continue ;;
			'<'*'>') continue ;;
			'"'*'"')
				h=${inc#\"}
				h=${h%\"}
				case $h in */*) ;; *) [ -f "$dir/$h" ] && continue ;; esac
				;;
			esac
			bad "$f:${line%%:*} includes $inc ($dir/ may include its own headers, <pqtpm/*.h>," \
				"system headers, \"marshal.h\" and \"crypto/*.h\" only)"
		done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$f" || true)
	done
	[ "$n" -gt 0 ] || bad "no #include found in $dir/ (wrong directory?)"
	[ "$FAIL" -gt 0 ] || ok "$dir/: $n includes, all within $what's layering"
}
check_folder tss "the client library"
# the attestation layer is a TPM client too (ARCHITECTURE.md): the same rule
check_folder attest "the attestation library"
check_folder attest/cli "pqtpm-attest"
finish
