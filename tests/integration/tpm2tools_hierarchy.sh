#!/bin/bash
# tpm2-tools, hierarchies: changeauth (owner, endorsement, lockout), clear (platform and
# lockout): auth values go back to empty, the owner seed changes, owner persistent keys go.
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

K=$T/k
mkdir -p "$K"

tpm_start
run "startup clear" tpm2_startup -c

run "createprimary before changeauth" tpm2_createprimary -C o -G ecc256 -c "$K/p0.ctx"
run "readpublic it" tpm2_readpublic -c "$K/p0.ctx" -o "$K/p0.pub"

run "changeauth owner" tpm2_changeauth -c owner newpass
run "createprimary with the new owner auth" tpm2_createprimary -C o -P newpass -G ecc256 -c "$K/p1.ctx"
expect_rc "createprimary without owner auth (TPM_RC_BAD_AUTH)" "0x9a2|0x98e" \
	tpm2_createprimary -C o -G ecc256 -c "$K/px.ctx"
expect_rc "createprimary with a wrong owner auth" "0x9a2|0x98e" \
	tpm2_createprimary -C o -P wrongpass -G ecc256 -c "$K/px.ctx"
run "changeauth owner again (old auth given)" tpm2_changeauth -c owner -p newpass newpass2
expect_rc "old owner auth no longer works" "0x9a2|0x98e" \
	tpm2_createprimary -C o -P newpass -G ecc256 -c "$K/px.ctx"
run "new owner auth works" tpm2_createprimary -C o -P newpass2 -G ecc256 -c "$K/p2.ctx"

run "changeauth endorsement" tpm2_changeauth -c endorsement epass
run "createprimary in endorsement with its auth" tpm2_createprimary -C e -P epass -G ecc256 -c "$K/e1.ctx"
expect_rc "createprimary in endorsement without auth" "0x9a2|0x98e" \
	tpm2_createprimary -C e -G ecc256 -c "$K/ex.ctx"

# A persistent owner key, to see Clear remove it.
P=0x81000201
run "persist an owner key" tpm2_evictcontrol -C o -P newpass2 -c "$K/p2.ctx" "$P"
run "getcap handles-persistent" tpm2_getcap handles-persistent
if grep -qi "$P" "$T/out"; then ok "$P listed"; else bad "$P listed"; fi

# Clear through the platform hierarchy (empty platform auth).
run "clear -c p" tpm2_clear -c p
run "createprimary with empty owner auth after clear" tpm2_createprimary -C o -G ecc256 -c "$K/p3.ctx"
expect_rc "the old owner auth is gone" "0x9a2|0x98e" \
	tpm2_createprimary -C o -P newpass2 -G ecc256 -c "$K/px.ctx"
run "createprimary in endorsement with empty auth after clear" tpm2_createprimary -C e -G ecc256 -c "$K/e2.ctx"
run "readpublic new owner primary" tpm2_readpublic -c "$K/p3.ctx" -o "$K/p3.pub"
if [ -s "$K/p3.pub" ] && ! cmp -s "$K/p0.pub" "$K/p3.pub"; then
	ok "owner seed changed: same template, other key"
else
	bad "owner seed changed: same template, other key"
fi
run "getcap handles-persistent after clear" tpm2_getcap handles-persistent
if grep -qi "$P" "$T/out"; then bad "$P removed by clear"; else ok "$P removed by clear"; fi

# Clear through lockout, with a lockout auth set.
run "changeauth lockout" tpm2_changeauth -c lockout lpass
run "clear -c l with lockout auth" tpm2_clear -c l lpass
run "lockout auth empty after clear" tpm2_changeauth -c lockout lpass2
run "clear -c l with the new lockout auth" tpm2_clear -c l lpass2

# Platform auth: set it, then the platform hierarchy needs it; reset it with itself.
run "changeauth platform" tpm2_changeauth -c platform ppass
expect_rc "clear -c p without platform auth" "0x9a2|0x98e" tpm2_clear -c p
run "clear -c p with platform auth" tpm2_clear -c p ppass
run "changeauth platform back to empty" tpm2_changeauth -c platform -p ppass

# Last, as it locks lockout out: one wrong lockout auth is a DA failure (TPM_RC_AUTH_FAIL),
# after which lockout is refused even with the right auth (TPM_RC_LOCKOUT).
run "changeauth lockout for the DA check" tpm2_changeauth -c lockout lpass3
expect_rc "clear with a wrong lockout auth (TPM_RC_AUTH_FAIL)" 0x98e tpm2_clear -c l wrong
expect_rc "lockout refused after a failure (TPM_RC_LOCKOUT)" 0x921 tpm2_clear -c l lpass3
run "owner hierarchy unaffected by lockout" tpm2_createprimary -C o -G ecc256 -c "$K/p4.ctx"

finish
