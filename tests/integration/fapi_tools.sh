#!/bin/bash
# FAPI (tpm2-tss's Feature API) end to end with the tss2_* tools, under the default server
# configuration: getinfo, provision, keys of the ECC and RSA profiles, sign/verify, PCR
# extend/read, quote/verifyquote, NV (ordinary, counter, bits), policies (PolicyPassword,
# PolicyAuthValue, PolicyPCR, PolicyNV, PolicyOR, PolicyAuthorize) on sealed data and keys,
# duplication to another parent, encrypt/decrypt, delete. Provisioning checks the EK against
# its certificate: the TPM's own (NV 0x01C0000A ECC, 0x01C00002 RSA), verified by openssl
# against the manufacturer CA (pqtpm-server --export-ca) and given to FAPI as ek_cert_file
# (FAPI's own chain check wants the issuer from an AIA URL, and it cannot parse the ML-KEM
# certificate in the range it scans with the OpenSSL 3.0 it links, docs/attestation.md).
set -eu
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

F=$T/fapi
mkdir -p "$F"
printf '0123456789abcdef0123456789abcdef' >"$F/digest"     # FAPI signs a 32-byte digest
printf '1123456789abcdef0123456789abcdef' >"$F/digest.bad"
printf 'qualifying data' >"$F/nonce"
printf 'other data' >"$F/nonce.bad"
head -c 48 /dev/urandom >"$F/secret"
printf 'sealpw\n' >"$F/sealpw"
printf 'keypw\n' >"$F/keypw"
cat >"$F/pol_password.json" <<'EOF'
{ "description": "the object's password", "policy": [ { "type": "POLICYPASSWORD" } ] }
EOF
cat >"$F/pol_authvalue.json" <<'EOF'
{ "description": "the object's auth value", "policy": [ { "type": "POLICYAUTHVALUE" } ] }
EOF
cat >"$F/pol_nv.json" <<'EOF'
{ "description": "the counter is past 0", "policy": [ { "type": "POLICYNV",
  "nvPath": "/nv/Owner/counter", "operandB": "0000000000000000", "operation": "UNSIGNED_GT" } ] }
EOF
cat >"$F/pol_pcr15.json" <<'EOF'
{ "description": "PCR 15 as after a reset", "policy": [ { "type": "POLICYPCR", "pcrs": [
  { "pcr": 15, "hashAlg": "TPM2_ALG_SHA256", "digest": "0000000000000000000000000000000000000000000000000000000000000000" } ] } ] }
EOF
cat >"$F/pol_or.json" <<'EOF'
{ "description": "a password or PCR 15 as after a reset", "policy": [ { "type": "POLICYOR",
  "branches": [
  { "name": "password", "description": "password", "policy": [ { "type": "POLICYPASSWORD" } ] },
  { "name": "pcr", "description": "PCR 15", "policy": [ { "type": "POLICYPCR", "pcrs": [
    { "pcr": 15, "hashAlg": "TPM2_ALG_SHA256", "digest": "0000000000000000000000000000000000000000000000000000000000000000" } ] } ] }
  ] } ] }
EOF
cat >"$F/pol_authorize.json" <<'EOF'
{ "description": "what the authority key signs", "policy": [ { "type": "POLICYAUTHORIZE",
  "keyPath": "/HS/SRK/authority", "policyRef": "0102" } ] }
EOF
cat >"$F/pol_dup.json" <<'EOF'
{ "description": "duplication to the new parent", "policy": [
  { "type": "POLICYDUPLICATIONSELECT", "newParentPath": "/ext/newparent" } ] }
EOF
printf '\001\002' >"$F/policy_ref"
printf '2\n' >"$F/branch2"
cat >"$F/pol_pcr.json" <<'EOF'
{ "description": "PCR 16 as after a reset", "policy": [ { "type": "POLICYPCR", "pcrs": [
  { "pcr": 16, "hashAlg": "TPM2_ALG_SHA256",
    "digest": "0000000000000000000000000000000000000000000000000000000000000000" } ] } ] }
EOF

# A FAPI configuration for profile $1 with its keystores and event log under $2 and the EK
# certificate of NV index $3, checked against the CA first; the TPM is the server tpm_start
# started last, on state directory $4.
fapi_config() {
	mkdir -p "$2/user" "$2/system" "$2/log"
	run "export the CA ($1)" "${BUILD_DIR:-build}/bin/pqtpm-server" --state-dir "$4" \
		--export-ca "$2/ca.pem"
	run "read the EK certificate ($1)" tpm2_nvread "$3" -C o -o "$2/ek.der"
	run "EK certificate to PEM ($1)" openssl x509 -inform DER -in "$2/ek.der" -out "$2/ek.pem"
	run "openssl verify the EK certificate ($1)" openssl verify -CAfile "$2/ca.pem" \
		-partial_chain -purpose any "$2/ek.pem"
	cat >"$2/fapi-config.json" <<EOF
{
  "profile_name": "$1",
  "profile_dir": "/etc/tpm2-tss/fapi-profiles/",
  "user_dir": "$2/user",
  "system_dir": "$2/system",
  "tcti": "$TCTI",
  "system_pcrs": [],
  "log_dir": "$2/log",
  "ek_cert_file": "file://$2/ek.pem"
}
EOF
	export TSS2_FAPICONF=$2/fapi-config.json
}

# Whether the getinfo JSON, white space removed, has this text.
info_has() {
	if tr -d ' \n\t' <"$F/info.json" | grep -qF -- "$2"; then ok "$1"; else bad "$1"; fi
}

same_file() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then ok "$1"; else bad "$1"; fi
}

# --- ECC profile (P_ECCP256SHA256) on a fresh TPM
tpm_start "$T/state-ecc"
run "startup clear" tpm2_startup -c
fapi_config P_ECCP256SHA256 "$F/ecc" 0x01C0000A "$T/state-ecc"

run "getinfo" tss2_getinfo -o "$F/info.json"
info_has "getinfo lists ECC" '"alg":"ECC"'
# the v1.85 commands stay discoverable in the command list: SignDigest, Decapsulate
info_has "getinfo's command list has SignDigest (0x1a6)" '"commandIndex":422,'
info_has "getinfo's command list has Decapsulate (0x1a8)" '"commandIndex":424,'
info_has "getinfo: TPM_PT_MAX_COMMAND_SIZE 8192" '"property":"MAX_COMMAND_SIZE","value":8192'

run "provision" tss2_provision
run "the EK's certificate in FAPI's keystore" tss2_getcertificate -p /HE/EK -o "$F/fapi_ek.pem"
same_file "FAPI keeps the TPM's ECC EK certificate" "$F/ecc/ek.pem" "$F/fapi_ek.pem"
run "createkey sign (ECC)" tss2_createkey -p /HS/SRK/sign -t sign -a ""
run "sign (ECC)" tss2_sign -p /HS/SRK/sign -d "$F/digest" -o "$F/sig" -k "$F/sign.pem" -f
run "verifysignature (ECC)" tss2_verifysignature -p /HS/SRK/sign -d "$F/digest" -i "$F/sig"
expect_fail "verifysignature of another digest fails" \
	tss2_verifysignature -p /HS/SRK/sign -d "$F/digest.bad" -i "$F/sig"
run "signature over the digest checks with openssl" openssl pkeyutl -verify -pubin \
	-inkey "$F/sign.pem" -in "$F/digest" -sigfile "$F/sig"

# PCR_Event through FAPI: PCR 16 (SHA-256) = SHA-256(0^32 || SHA-256(data))
run "pcrextend 16" tss2_pcrextend -x 16 -i "$F/digest"
run "pcrread 16" tss2_pcrread -x 16 -o "$F/pcr16" -l "$F/pcrlog.json" -f
check_eq "PCR 16 is the extended value" \
	"$(sha256_of_hex "$(printf '%064d' 0)$(sha256_hex "$F/digest")")" "$(hex_of "$F/pcr16")"

run "createkey attestation key" tss2_createkey -p /HS/SRK/ak -t sign,restricted -a ""
run "quote PCR 16" tss2_quote -p /HS/SRK/ak -x 16 -Q "$F/nonce" -q "$F/quote.json" \
	-o "$F/quote.sig" -l "$F/quote.log" -f
run "verifyquote" tss2_verifyquote -k /HS/SRK/ak -Q "$F/nonce" -q "$F/quote.json" \
	-i "$F/quote.sig" -l "$F/quote.log"
expect_fail "verifyquote with other qualifying data fails" tss2_verifyquote -k /HS/SRK/ak \
	-Q "$F/nonce.bad" -q "$F/quote.json" -i "$F/quote.sig" -l "$F/quote.log"

run "createnv 64 bytes" tss2_createnv -p /nv/Owner/data -s 64 -a ""
run "nvwrite" tss2_nvwrite -p /nv/Owner/data -i "$F/secret"
run "nvread" tss2_nvread -p /nv/Owner/data -o "$F/nv.out" -f
head -c 48 "$F/nv.out" >"$F/nv.head"
same_file "nvread gives back what nvwrite wrote" "$F/secret" "$F/nv.head"
run "createnv counter" tss2_createnv -p /nv/Owner/counter -t counter -a ""
run "nvincrement" tss2_nvincrement -p /nv/Owner/counter
run "nvread counter" tss2_nvread -p /nv/Owner/counter -o "$F/ctr" -f
check_eq "counter is 1" 0000000000000001 "$(hex_of "$F/ctr")"
run "createnv bits" tss2_createnv -p /nv/Owner/bits -t bitfield -a ""
run "nvsetbits 0x5" tss2_nvsetbits -p /nv/Owner/bits -i 0x5
run "nvread bits" tss2_nvread -p /nv/Owner/bits -o "$F/bits" -f
check_eq "bits are 0x5" 0000000000000005 "$(hex_of "$F/bits")"

run "import PolicyPassword" tss2_import -p /policy/password -i "$F/pol_password.json"
run "createseal under PolicyPassword" tss2_createseal -p /HS/SRK/seal -P /policy/password \
	-a sealpw -i "$F/secret"
run "unseal with the password" tss2_unseal -p /HS/SRK/seal -o "$F/unsealed" -f <"$F/sealpw"
same_file "unsealed data is the sealed data" "$F/secret" "$F/unsealed"

run "import PolicyNV" tss2_import -p /policy/nv -i "$F/pol_nv.json"
run "createseal under PolicyNV" tss2_createseal -p /HS/SRK/nvseal -P /policy/nv -a "" \
	-i "$F/secret"
run "unseal: the counter is past 0" tss2_unseal -p /HS/SRK/nvseal -o "$F/nvunsealed" -f
same_file "PolicyNV-sealed data comes back" "$F/secret" "$F/nvunsealed"

run "import PolicyOR" tss2_import -p /policy/or -i "$F/pol_or.json"
run "createseal under PolicyOR" tss2_createseal -p /HS/SRK/orseal -P /policy/or -a "" \
	-i "$F/secret"
run "unseal through the PCR branch" tss2_unseal -p /HS/SRK/orseal -o "$F/orunsealed" -f \
	<"$F/branch2"
same_file "PolicyOR-sealed data comes back" "$F/secret" "$F/orunsealed"

run "createkey policy authority" tss2_createkey -p /HS/SRK/authority -t sign -a ""
run "import PolicyAuthorize" tss2_import -p /policy/authorize -i "$F/pol_authorize.json"
run "createseal under PolicyAuthorize" tss2_createseal -p /HS/SRK/authseal \
	-P /policy/authorize -a "" -i "$F/secret"
run "import the PCR 15 policy to approve" tss2_import -p /policy/pcr15 -i "$F/pol_pcr15.json"
run "authorizepolicy: the authority signs the PCR 15 policy" tss2_authorizepolicy \
	--keyPath=/HS/SRK/authority --policyPath=/policy/pcr15 --policyRef="$F/policy_ref"
run "unseal through the approved policy" tss2_unseal -p /HS/SRK/authseal \
	-o "$F/authunsealed" -f
same_file "PolicyAuthorize-sealed data comes back" "$F/secret" "$F/authunsealed"

# Duplicate (PolicyDuplicationSelect) to another parent, Import under it
run "createkey new parent" tss2_createkey -p /HS/SRK/newparent -t restricted,decrypt,noda -a ""
run "exportkey the new parent's public key" tss2_exportkey -p /HS/SRK/newparent \
	-o "$F/newparent.json" -f
run "import it as an external key" tss2_import -p /ext/newparent -i "$F/newparent.json"
run "import PolicyDuplicationSelect" tss2_import -p /policy/dup -i "$F/pol_dup.json"
run "createkey exportable" tss2_createkey -p /HS/SRK/dupkey -t sign,exportable -P /policy/dup \
	-a ""
run "exportkey: Duplicate to the new parent" tss2_exportkey -p /HS/SRK/dupkey \
	-e /ext/newparent -o "$F/dup.json" -f
run "import the duplicate: Import under the new parent" tss2_import -p /dupkey -i "$F/dup.json"
run "list" tss2_list -o "$F/list"
if tr ':' '\n' <"$F/list" | grep -qx '/P_ECCP256SHA256/HS/SRK/newparent/dupkey'; then
	ok "the duplicate is a key under the new parent"
else
	bad "the duplicate is a key under the new parent"
fi

run "delete sealed object" tss2_delete -p /HS/SRK/seal
expect_fail "unseal of a deleted object fails" tss2_unseal -p /HS/SRK/seal -o "$F/gone" -f
run "delete NV index" tss2_delete -p /nv/Owner/data
expect_fail "nvread of a deleted index fails" tss2_nvread -p /nv/Owner/data -o "$F/gone" -f
run "tpm2_getcap handles-nv-index" tpm2_getcap handles-nv-index
# besides the EK certificates of manufacturing (0x01C0xxxx, core/endorse)
nv_left=$(grep 0x "$T/out" | grep -vic 0x1c0 || true)
check_eq "two FAPI indices left (counter, bits)" 2 "$nv_left"
tpm_stop

# --- RSA profile (P_RSA2048SHA256) on another fresh TPM
tpm_start "$T/state-rsa"
run "startup clear (RSA TPM)" tpm2_startup -c
fapi_config P_RSA2048SHA256 "$F/rsa" 0x01C00002 "$T/state-rsa"
run "provision (RSA)" tss2_provision
run "createkey sign (RSA)" tss2_createkey -p /HS/SRK/sign -t sign -a ""
run "sign (RSA)" tss2_sign -p /HS/SRK/sign -d "$F/digest" -o "$F/rsig" -f
run "verifysignature (RSA)" tss2_verifysignature -p /HS/SRK/sign -d "$F/digest" -i "$F/rsig"
expect_fail "verifysignature (RSA) of another digest fails" \
	tss2_verifysignature -p /HS/SRK/sign -d "$F/digest.bad" -i "$F/rsig"
run "createkey decrypt (RSA)" tss2_createkey -p /HS/SRK/dec -t decrypt -a ""
run "encrypt" tss2_encrypt -p /HS/SRK/dec -i "$F/secret" -o "$F/enc" -f
run "decrypt" tss2_decrypt -p /HS/SRK/dec -i "$F/enc" -o "$F/dec" -f
same_file "decrypt gives the plaintext back" "$F/secret" "$F/dec"

run "import PolicyAuthValue" tss2_import -p /policy/authvalue -i "$F/pol_authvalue.json"
run "createkey under PolicyAuthValue" tss2_createkey -p /HS/SRK/polsign -t sign \
	-P /policy/authvalue -a keypw
run "sign under PolicyAuthValue" tss2_sign -p /HS/SRK/polsign -d "$F/digest" \
	-o "$F/psig" -f <"$F/keypw"
run "verify the policy key's signature" tss2_verifysignature -p /HS/SRK/polsign \
	-d "$F/digest" -i "$F/psig"

run "import PolicyPCR" tss2_import -p /policy/pcr -i "$F/pol_pcr.json"
run "createseal under PolicyPCR" tss2_createseal -p /HS/SRK/pcrseal -P /policy/pcr -a "" \
	-i "$F/secret"
run "unseal while PCR 16 holds" tss2_unseal -p /HS/SRK/pcrseal -o "$F/pcrunsealed" -f
same_file "PCR-sealed data comes back" "$F/secret" "$F/pcrunsealed"
run "pcrextend 16 (RSA TPM)" tss2_pcrextend -x 16 -i "$F/digest"
expect_rc "unseal after PCR 16 changed: TPM_RC_VALUE (PolicyPCR)" 0x1c4 \
	tss2_unseal -p /HS/SRK/pcrseal -o "$F/gone" -f
run "delete the key" tss2_delete -p /HS/SRK/sign
expect_fail "sign with a deleted key fails" tss2_sign -p /HS/SRK/sign -d "$F/digest" \
	-o "$F/gone" -f

finish
