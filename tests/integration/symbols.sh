#!/bin/bash
# Symbol hygiene of the shared libraries: libpqtpm.so exports pqtpm_engine_*, pqtpm_client_*
# and pqtpm_log* only, libpqtpm-tss.so pqtpm_tss_* only, libpqtpm-pkcs11.so its three PKCS#11
# entry points only (nm -D --defined-only; symbols the
# linker defines itself are allowed). Then a program linked against the two .so files (not the
# archives) runs a GetRandom through the in-process engine: the exports are enough.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

LINKER_DEFINED='^(_init|_fini|_edata|_end|__bss_start)$'

# check_exports LIB REGEX: every defined dynamic symbol of LIB matches REGEX.
check_exports() {
	local lib=$1 allowed=$2 n extra
	if [ ! -f "$lib" ]; then
		bad "$(basename "$lib") not built ($lib missing)"
		return
	fi
	nm -D --defined-only "$lib" | awk '{ print $NF }' | sed 's/@.*//' >"$T/syms"
	n=$(grep -Evc "$LINKER_DEFINED" "$T/syms" || true)
	extra=$(grep -Ev "$LINKER_DEFINED" "$T/syms" | grep -Ev "$allowed" || true)
	if [ "$n" -eq 0 ]; then
		bad "$(basename "$lib") exports nothing"
	elif [ -n "$extra" ]; then
		bad "$(basename "$lib") exports $(echo "$extra" | wc -l) symbol(s) outside its API:" \
			"$(echo "$extra" | head -n 20 | tr '\n' ' ')"
	else
		ok "$(basename "$lib") exports its API only ($n symbols)"
	fi
}

check_exports "$BUILD_DIR/lib/libpqtpm.so" '^pqtpm_(engine|client|log)'
check_exports "$BUILD_DIR/lib/libpqtpm-tss.so" '^pqtpm_tss_'
check_exports "$BUILD_DIR/lib/libpqtpm-pkcs11.so" '^C_(GetFunctionList|GetInterfaceList|GetInterface)$'

prog=$BUILD_DIR/tests/shared/getrandom
if [ ! -x "$prog" ]; then
	bad "shared/getrandom not built ($prog missing)"
elif ! ldd "$prog" | grep -q 'libpqtpm-tss\.so' || ! ldd "$prog" | grep -q 'libpqtpm\.so'; then
	bad "shared/getrandom is not linked against both shared libraries: $(ldd "$prog" | tr '\n' ' ')"
else
	run "GetRandom through libpqtpm-tss.so and libpqtpm.so" "$prog"
fi
finish
