#!/bin/bash
# The PKCS#11 module is a TPM client: pkcs11/ sources include only their own headers
# (pkcs11/*.h), <pqtpm/*.h> (the client library's API), p11-kit's <p11-kit/pkcs11.h> and system
# headers; no header of core/ (not even its bottom layer) and none of tss/'s internals.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$ROOT_DIR"
# what follows #include on a line that grep -n printed (no process per line)
include_re='^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*(.*)$'
n=0
for f in pkcs11/*.[ch]; do
	while IFS= read -r line; do
		n=$((n + 1))
		[[ $line =~ $include_re ]] && inc=${BASH_REMATCH[1]}
		case $inc in
		'<pqtpm/engine.h>' | '<pqtpm/tpm2.h>' | '<pqtpm/tss'*'.h>' | '<p11-kit/pkcs11.h>') ;;
		'<pqtpm/'*) bad "$f includes $inc (the module speaks TPM commands through tss only)" ;;
		'<'*'>') ;;
		'"'*'"')
			h=${inc#\"}
			h=${h%\"}
			[ -f "pkcs11/$h" ] || bad "$f includes \"$h\", not a header of pkcs11/"
			;;
		*) bad "$f: an include not understood: $inc" ;;
		esac
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include' "$f")
done
if [ "$n" -eq 0 ]; then
	bad "no include line found in pkcs11/"
else
	[ "$FAIL" -eq 0 ] && ok "pkcs11/: $n include lines, none of core/ or tss/ internals"
fi
finish
