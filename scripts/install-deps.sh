#!/bin/sh
# Installs the Debian packages pqtpm builds and tests with; does nothing when all are present.
# Uses sudo when not root. A fresh machine needs `apt-get update` once (done here if needed).
set -eu

PKGS="build-essential pkg-config libwolfssl-dev libcunit1-dev libjansson-dev \
libtss2-dev libtss2-tcti-mssim0 libtss2-tcti-swtpm0 tpm2-tools swtpm swtpm-tools \
clang libclang-rt-14-dev valgrind faketime"
# the PKCS#11 module (its token store, the p11-kit header) and the clients its tests drive
PKGS="$PKGS libsqlite3-dev libp11-kit-dev p11-kit opensc gnutls-bin"
# attestation tests (attest_ek.sh, attest_cli.sh): openssl, jq, python3 for the DER helpers
PKGS="$PKGS openssl jq python3"
# tpm2-pytss's ESAPI and FAPI classes (pytss_checks.sh), with the cryptography it checks against
PKGS="$PKGS python3-tpm2-pytss python3-cryptography"
# pqtpm-attest serve (attest/serve/) and its test (attest_serve.sh): libmicrohttpd, curl
PKGS="$PKGS libmicrohttpd-dev curl"
# the PKCS#11 module in real applications (pkcs11_apps.sh): ssh with PKCS11Provider, OpenSSL's engine
PKGS="$PKGS openssh-client openssh-server libengine-pkcs11-openssl"
# the module in a Python application (pkcs11_pykcs11.sh); the store's integrity check
# (pkcs11_store_crash.sh)
PKGS="$PKGS python3-pykcs11 sqlite3"
# `install-deps.sh bench` (make bench): gnuplot as well, for the report's plot, and SoftHSMv2,
# the PKCS#11 module p11_bench measures ours against.
[ "${1:-}" = bench ] && PKGS="$PKGS gnuplot-nox softhsm2"
# `install-deps.sh conformance` (make conformance): tpm2-abrmd and its TCTI, which the peer
# suite runs behind.
[ "${1:-}" = conformance ] && PKGS="$PKGS tpm2-abrmd libtss2-tcti-tabrmd0"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' \
		|| missing="$missing $p"
done
# Node.js and npm (for the cross-checks) may come from elsewhere; Debian's only if absent.
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# An empty package list means apt-get update never ran on this machine.
if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial)" ]; then
	$SUDO apt-get update -q
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing || {
	$SUDO apt-get update -q
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $missing
}
