#!/bin/sh
# Builds a static wolfCrypt with SP math (RSA 2048/3072/4096 and ECC P-256/384/521 in
# single-precision code with x86-64 assembly, BMI2/ADX and AVX2 chosen at run time), AES-NI and
# the AVX SHA-2 code, from Debian's own wolfssl source package. `make WOLFSSL=sp` calls it.
#
#   scripts/build-wolfssl-sp.sh [PREFIX]        PREFIX defaults to build/wolfssl-sp
#   -> PREFIX/include/wolfssl/...   the package's headers, with an options.h for this build
#      PREFIX/lib/libwolfssl.a      PIC, wolfSSL symbols hidden (they do not leak out of
#                                   libpqtpm.so and cannot clash with the system libwolfssl)
#
# Source: apt-get source --download-only, through a private apt configuration (the system's
# deb lines turned into deb-src lines, lists and caches in a temp folder): nothing under /etc
# or /var changes and no root is needed. The version of the installed libwolfssl-dev is taken
# when the archive still has it, else the newest. The package files are kept in
# build/wolfssl-src/ (WOLFSSL_SP_CACHE), so later builds work offline. dpkg-source unpacks it
# with Debian's patches (dpkg-dev comes with build-essential).
#
# No autotools: the compiler flags below are those that wolfSSL 5.5.4's configure produces for
#   --enable-cryptonly --enable-static --disable-shared --with-pic --enable-sp=yes
#   --enable-sp-asm --enable-sp-math-all --enable-intelasm --enable-keygen --enable-aescfb
#   --enable-aesofb --enable-aesctr --enable-camellia --enable-des3 --enable-rsapss
#   --enable-fpecc --enable-harden --enable-compkey --enable-sha3 --enable-shake256
#   --disable-chacha --disable-poly1305 --disable-dh --disable-aesgcm --disable-pwdbased
#   --disable-pkcs12 --disable-md5
#   CFLAGS="-DWOLFSSL_PUBLIC_MP -DWC_RSA_NO_PADDING -DWOLFSSL_PSS_LONG_SALT -DHAVE_AES_ECB
#           -DWOLFSSL_DES_ECB"
# (what core/crypto uses: public mp_* API, key generation, raw RSA, PSS, AES direct/ECB/CFB/
# OFB/CTR, Camellia and TDES blocks (TPM_ALG_CAMELLIA, TPM_ALG_TDES: the modes are ours),
# SHA-1/2, Hash_DRBG, wc_ecc_fp_free, wc_ecc_point_is_on_curve (compkey); the unit tests
# cross-check our Keccak against SHA-3/SHAKE256), and the same wolfcrypt/src files that its
# Makefile compiles. autogen + configure alone take ~2.5 minutes here; this build needs ~20 s of
# CPU (about 15 s on an idle 2-core machine, with the download).
#
# Idempotent: a stamp (source version + this script's hash) skips a build that is current.
# Concurrent callers serialize on PREFIX.lock. x86-64 only.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=${1:-$ROOT/build/wolfssl-sp}
case $PREFIX in /*) ;; *) PREFIX=$(pwd)/$PREFIX ;; esac
CACHE=${WOLFSSL_SP_CACHE:-$ROOT/build/wolfssl-src}
CC=${CC:-cc}
AR=${AR:-ar}
JOBS=$(nproc 2>/dev/null || echo 2)
UPSTREAM=5.5.4 # the version the flags below were taken from

log() { echo "build-wolfssl-sp: $*" >&2; }
die() { log "$*"; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "x86-64 only (this machine is $(uname -m))"

# ---- flags (see the header) ----
# Everything here also goes into options.h, so that pqtpm sees the structs as they are built.
DEFINES="HAVE_THREAD_LS NO_DO178 WOLFSSL_X86_64_BUILD ERROR_QUEUE_PER_THREAD
TFM_TIMING_RESISTANT ECC_TIMING_RESISTANT WC_RSA_BLINDING
WOLFSSL_AES_OFB WOLFSSL_AES_DIRECT WOLFSSL_AES_CFB WOLFSSL_AES_COUNTER HAVE_AES_ECB
WOLFSSL_AESNI USE_INTEL_SPEEDUP WOLFSSL_USE_ALIGN HAVE_CAMELLIA WOLFSSL_DES_ECB
WOLFSSL_SHA224 WOLFSSL_SHA512 WOLFSSL_SHA384 WOLFSSL_SHA3 WOLFSSL_NO_SHAKE128 WOLFSSL_SHAKE256
NO_DSA NO_DH NO_MD4 NO_MD5 NO_RC4 NO_PSK NO_PKCS12 NO_PWDBASED NO_OLD_TLS
WOLFSSL_NO_TLS12 WOLFCRYPT_ONLY HAVE_TLS_EXTENSIONS HAVE_SUPPORTED_CURVES
HAVE_ENCRYPT_THEN_MAC WOLFSSL_BASE64_ENCODE HAVE_DH_DEFAULT_PARAMS
HAVE_ECC TFM_ECC256 ECC_SHAMIR FP_ECC HAVE_COMP_KEY HAVE_ECC384 HAVE_ECC521
WC_RSA_PSS WOLFSSL_PSS_LONG_SALT WC_RSA_NO_PADDING WOLFSSL_KEY_GEN WOLFSSL_PUBLIC_MP
HAVE_HASHDRBG WC_NO_ASYNC_THREADING
WOLFSSL_SP_MATH_ALL WOLFSSL_SP_X86_64 WOLFSSL_HAVE_SP_RSA WOLFSSL_SP_4096
WOLFSSL_SP_LARGE_CODE WOLFSSL_HAVE_SP_ECC WOLFSSL_SP_384 WOLFSSL_SP_521
WOLFSSL_SP_ASM WOLFSSL_SP_X86_64_ASM"
# The assembly files get configure's AM_CCASFLAGS only.
AS_DEFINES="NDEBUG WOLFSSL_X86_64_BUILD WOLFSSL_HAVE_SP_RSA WOLFSSL_SP_4096 WOLFSSL_HAVE_SP_ECC
WOLFSSL_SP_384 WOLFSSL_SP_521 WOLFSSL_SP_ASM WOLFSSL_SP_X86_64_ASM WOLFSSL_PUBLIC_MP
WC_RSA_NO_PADDING WOLFSSL_PSS_LONG_SALT HAVE_AES_ECB"
SOURCES="aes.c aes_asm.S aes_gcm_asm.S asn.c camellia.c coding.c cpuid.c des3.c ecc.c error.c
hash.c hmac.c kdf.c logging.c memory.c random.c rsa.c sha.c sha256.c sha256_asm.S sha3.c sha3_asm.S
sha512.c sha512_asm.S
signature.c sp_int.c sp_x86_64.c sp_x86_64_asm.S wc_encrypt.c wc_port.c wolfmath.c"
# -maes: configure's, for the AES-NI intrinsics in aes.c (used only when CPUID says so).
# No HAVE_VISIBILITY: WOLFSSL_API stays empty, so with -fvisibility=hidden every symbol is
# hidden; linking against the archive is unaffected.
CFLAGS_LIB="-O2 -g -fPIC -fvisibility=hidden -pthread -maes -fwrapv -DBUILDING_WOLFSSL
-DHAVE_CONFIG_H -DNDEBUG"

SELF_HASH=$(sha256sum "$0" | cut -d' ' -f1)

# ---- lock, and skip when current ----
mkdir -p "$(dirname "$PREFIX")" "$CACHE"
exec 9>"$PREFIX.lock"
flock 9 2>/dev/null || true

newest_dsc() { ls "$CACHE"/wolfssl_*.dsc 2>/dev/null | sort -V | tail -n 1; }

stamp_ok() {
	dsc=$(newest_dsc)
	[ -n "$dsc" ] && [ -f "$PREFIX/lib/libwolfssl.a" ] && [ -f "$PREFIX/.stamp" ] &&
		[ "$(cat "$PREFIX/.stamp")" = "$(basename "$dsc") $SELF_HASH" ]
}
if stamp_ok; then
	exit 0
fi

START=$(date +%s)

# ---- fetch the source package once ----
fetch() {
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	mkdir -p "$tmp/parts" "$tmp/lists/partial" "$tmp/cache" "$tmp/dl"
	: >"$tmp/sources.list"
	# one-line sources: deb -> deb-src (existing deb-src lines would only be duplicates)
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f" >>"$tmp/sources.list"
	done
	# deb822 sources: a stanza whose Types has deb gets Types: deb-src
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		sed -E '/^Types:/{/[[:space:]]deb([[:space:]]|$)/s/.*/Types: deb-src/}' "$f" \
			>"$tmp/parts/$(basename "$f")"
	done
	set -- -o Dir::Etc::SourceList="$tmp/sources.list" \
		-o Dir::Etc::SourceParts="$tmp/parts" \
		-o Dir::State::Lists="$tmp/lists" \
		-o Dir::Cache="$tmp/cache" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
	# as root apt would hand the download to _apt, who cannot write to our temp folder
	[ "$(id -u)" -ne 0 ] || set -- "$@" -o APT::Sandbox::User=root
	log "fetching Debian's wolfssl source package (private apt configuration)"
	apt-get -q "$@" update >"$tmp/update.log" 2>&1 ||
		{ cat "$tmp/update.log" >&2; die "apt-get update (private lists) failed"; }
	want=$(dpkg-query -W -f='${Version}' libwolfssl-dev 2>/dev/null || true)
	ok=""
	if [ -n "$want" ]; then
		(cd "$tmp/dl" && apt-get -q "$@" source --download-only "wolfssl=$want") \
			>"$tmp/source.log" 2>&1 && ok=1
	fi
	if [ -z "$ok" ]; then
		rm -f "$tmp/dl"/*
		(cd "$tmp/dl" && apt-get -q "$@" source --download-only wolfssl) \
			>"$tmp/source.log" 2>&1 ||
			{ cat "$tmp/source.log" >&2; die "apt-get source wolfssl failed"; }
	fi
	ls "$tmp"/dl/wolfssl_*.dsc >/dev/null 2>&1 || die "no .dsc downloaded"
	mv "$tmp"/dl/* "$CACHE"/
	rm -rf "$tmp"
	trap - EXIT
}
[ -n "$(newest_dsc)" ] || fetch
DSC=$(newest_dsc)
VERSION=$(sed -n 's/^Version: //p' "$DSC" | head -n 1)
case $VERSION in
$UPSTREAM-*) ;;
*) log "warning: wolfssl $VERSION; these flags were checked against $UPSTREAM" ;;
esac
log "building wolfCrypt (SP math, x86-64 asm) from wolfssl $VERSION"

# ---- unpack and compile in a fresh folder beside PREFIX ----
WORK="$PREFIX.work"
rm -rf "$WORK" "$PREFIX.new"
mkdir -p "$WORK/obj"
dpkg-source -x "$DSC" "$WORK/src" >"$WORK/dpkg-source.log" 2>&1 ||
	{ cat "$WORK/dpkg-source.log" >&2; die "dpkg-source -x failed"; }

# What configure would have put in config.h (wolfSSL's own sources read it).
cat >"$WORK/config.h" <<'EOF'
#define HAVE_C___ATOMIC 1
#define HAVE_PTHREAD 1
#define HAVE___UINT128_T 1
#define HAVE_GMTIME_R 1
#define HAVE_ERRNO_H 1
#define HAVE_LIMITS_H 1
#define HAVE_STRINGS_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_UINTPTR_T 1
#define SIZEOF_LONG 8
#define SIZEOF_LONG_LONG 8
#define SIZEOF_TIME_T 8
#define TLS _Thread_local
EOF

# options.h: every define the library is built with, as configure writes it.
OPT="$WORK/src/wolfssl/options.h"
{
	echo "/* wolfssl options.h for pqtpm's SP build (scripts/build-wolfssl-sp.sh), $VERSION */"
	echo "#ifndef WOLFSSL_OPTIONS_H"
	echo "#define WOLFSSL_OPTIONS_H"
	echo "#ifdef __cplusplus"
	echo "extern \"C\" {"
	echo "#endif"
	for d in $DEFINES; do
		printf '#undef  %s\n#define %s\n' "$d" "$d"
	done
	echo "#ifdef __cplusplus"
	echo "}"
	echo "#endif"
	echo "#endif"
} >"$OPT"

DFLAGS=""
for d in $DEFINES; do DFLAGS="$DFLAGS -D$d"; done
ASFLAGS=""
for d in $AS_DEFINES; do ASFLAGS="$ASFLAGS -D$d"; done

for s in $SOURCES; do
	[ -f "$WORK/src/wolfcrypt/src/$s" ] || die "wolfcrypt/src/$s missing from wolfssl $VERSION"
done
# one compiler per core; xargs exits non-zero if any of them fails
export CC WORK ASFLAGS DFLAGS CFLAGS_LIB
# shellcheck disable=SC2016,SC2086
printf '%s\n' $SOURCES | xargs -P "$JOBS" -n 1 sh -c '
	s=$1 in="$WORK/src/wolfcrypt/src/$1" o="$WORK/obj/${1%.*}.o"
	case $s in
	*.S) exec $CC -O2 -fPIC -DHAVE_CONFIG_H -I"$WORK" -I"$WORK/src" -DBUILDING_WOLFSSL \
		$ASFLAGS -c "$in" -o "$o" ;;
	*) exec $CC $CFLAGS_LIB -I"$WORK" -I"$WORK/src" $DFLAGS -c "$in" -o "$o" ;;
	esac' sh || die "compiling wolfCrypt failed"

# ---- install into PREFIX (replaced as a whole) ----
mkdir -p "$PREFIX.new/lib" "$PREFIX.new/include"
"$AR" rcs "$PREFIX.new/lib/libwolfssl.a" "$WORK"/obj/*.o
cp -R "$WORK/src/wolfssl" "$PREFIX.new/include/"
find "$PREFIX.new/include" -type f ! -name '*.h' -delete
echo "$(basename "$DSC") $SELF_HASH" >"$PREFIX.new/.stamp"
rm -rf "$PREFIX"
mv "$PREFIX.new" "$PREFIX"
rm -rf "$WORK"
log "done in $(($(date +%s) - START)) s: $PREFIX/lib/libwolfssl.a"
