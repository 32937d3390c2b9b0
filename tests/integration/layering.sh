#!/bin/bash
# The client library's layering: tss/ sources include only their own headers (tss/*.h),
# <pqtpm/*.h>, system headers, and core's bottom layer "marshal.h" and "crypto/*.h". Any other
# core header (types.h, engine_int.h ...) would carry the engine's acceptance rules or
# internals into a client of any TPM.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

cd "$ROOT_DIR"
n=0
for f in tss/*.[ch]; do
	while IFS= read -r line; do
		n=$((n + 1))
		inc=$(printf '%s' "$line" | sed -E 's/^[0-9]+:[[:space:]]*#[[:space:]]*include[[:space:]]*//')
		case $inc in
		'<pqtpm/'*'>' | '"marshal.h"' | '"crypto/'*'.h"') continue ;;
		'<'*'>') continue ;;
		'"'*'"')
			h=${inc#\"}
			h=${h%\"}
			case $h in */*) ;; *) [ -f "tss/$h" ] && continue ;; esac
			;;
		esac
		bad "$f:${line%%:*} includes $inc (tss/ may include its own headers, <pqtpm/*.h>," \
			"system headers, \"marshal.h\" and \"crypto/*.h\" only)"
	done < <(grep -nE '^[[:space:]]*#[[:space:]]*include' "$f" || true)
done
[ "$n" -gt 0 ] || bad "no #include found in tss/ (wrong directory?)"
[ "$FAIL" -gt 0 ] || ok "tss/: $n includes, all within the client library's layering"
finish
