/* Session audit through the stock tpm2-tss ESAPI over the mssim TCTI.
 *
 *   esys_audit [TCTI]     default: $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321
 *
 * An HMAC session salted with an ECC P-256 primary audits GetRandom (audit-only session) and
 * PCR_Extend (next to a password authorization); ESAPI checks every response HMAC, the
 * audit digest H(old || cpHash || rpHash) is recomputed here from the commands' parameters
 * and results, and GetSessionAuditDigest reports it in a TPMS_ATTEST signed by an ECDSA key
 * (signature checked with VerifySignature over the digest computed here). auditExclusive:
 * a second connection's GetRandom ends the exclusivity (TPM_RC_EXCLUSIVE), auditReset starts
 * the digest over and makes it exclusive again, and ContextSave/ContextLoad of the session
 * keep both. A wrong endorsement auth is refused.
 * Prints `N passed, M failed`; exits 0 only if nothing failed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "common/esys_util.h"

#define PCR_TEST 16
#define DSIZE 32

static uint8_t expect[DSIZE];

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static void sha256(const uint8_t *data, size_t len, uint8_t out[DSIZE])
{
	if (crypto_hash(TPM2_ALG_SHA256, data, len, out) != 0)
		check(0, "crypto_hash");
}

/* cpHash = H(cc || handle names || params), rpHash = H(0 || cc || rparams); then
 * expect = H(expect || cpHash || rpHash), from zeros if reset. */
static void audit(TPM2_CC cc, const uint8_t *names, size_t nlen, const uint8_t *params,
		  size_t plen, const uint8_t *rparams, size_t rlen, int reset)
{
	uint8_t buf[1024], cat[3 * DSIZE];

	put32(buf, cc);
	if (nlen) /* memcpy from NULL is undefined even for 0 bytes */
		memcpy(buf + 4, names, nlen);
	memcpy(buf + 4 + nlen, params, plen);
	sha256(buf, 4 + nlen + plen, cat + DSIZE);
	put32(buf, 0);
	put32(buf + 4, cc);
	if (rlen)
		memcpy(buf + 8, rparams, rlen);
	sha256(buf, 8 + rlen, cat + 2 * DSIZE);
	if (reset)
		memset(expect, 0, DSIZE);
	memcpy(cat, expect, DSIZE);
	sha256(cat, sizeof(cat), expect);
}

/* GetRandom(16) audited by s; the expected digest follows */
static TSS2_RC audited_random(ESYS_CONTEXT *ctx, ESYS_TR s, TPMA_SESSION attrs)
{
	TPM2B_DIGEST *out = NULL;
	uint8_t params[2] = { 0, 16 }, rparams[2 + 16];
	TSS2_RC rc;

	rc = Esys_TRSess_SetAttributes(ctx, s, attrs, 0xff);
	if (rc == TSS2_RC_SUCCESS)
		rc = Esys_GetRandom(ctx, s, ESYS_TR_NONE, ESYS_TR_NONE, 16, &out);
	if (rc == TSS2_RC_SUCCESS) {
		rparams[0] = (uint8_t)(out->size >> 8);
		rparams[1] = (uint8_t)out->size;
		memcpy(rparams + 2, out->buffer, out->size < 16 ? out->size : 16);
		audit(TPM2_CC_GetRandom, NULL, 0, params, sizeof(params), rparams,
		      2 + (out->size < 16 ? out->size : 16), attrs & TPMA_SESSION_AUDITRESET);
	}
	Esys_Free(out);
	return rc;
}

/* PCR_Extend(16) with a password, audited by s in the second slot */
static TSS2_RC audited_extend(ESYS_CONTEXT *ctx, ESYS_TR pcr, ESYS_TR s)
{
	TPML_DIGEST_VALUES d = { .count = 1 };
	uint8_t params[128], name[4];
	size_t off = 0;
	TSS2_RC rc;

	d.digests[0].hashAlg = TPM2_ALG_SHA256;
	memset(d.digests[0].digest.sha256, 0x3c, DSIZE);
	rc = Esys_TRSess_SetAttributes(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION,
				       0xff);
	if (rc == TSS2_RC_SUCCESS)
		rc = Esys_PCR_Extend(ctx, pcr, ESYS_TR_PASSWORD, s, ESYS_TR_NONE, &d);
	if (rc == TSS2_RC_SUCCESS &&
	    Tss2_MU_TPML_DIGEST_VALUES_Marshal(&d, params, sizeof(params), &off) == 0) {
		put32(name, PCR_TEST);
		audit(TPM2_CC_PCR_Extend, name, 4, params, off, NULL, 0, 0);
	}
	return rc;
}

/* GetSessionAuditDigest signed by key; the digest and exclusivity checked, the signature
 * verified (by the TPM) over the SHA-256 of the attestation computed here. */
static void report(ESYS_CONTEXT *ctx, ESYS_TR key, ESYS_TR s, int exclusive, const char *when)
{
	TPM2B_DATA qualifying = { .size = 4, .buffer = { 1, 2, 3, 4 } };
	TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_NULL };
	TPM2B_ATTEST *info = NULL;
	TPMT_SIGNATURE *sig = NULL;
	TPMT_TK_VERIFIED *ticket = NULL;
	TPMS_ATTEST a;
	TPM2B_DIGEST d = { .size = DSIZE };
	size_t off = 0;
	TSS2_RC rc;

	rc = Esys_GetSessionAuditDigest(ctx, ESYS_TR_RH_ENDORSEMENT, key, s, ESYS_TR_PASSWORD,
					ESYS_TR_PASSWORD, ESYS_TR_NONE, &qualifying, &scheme, &info,
					&sig);
	if (!check_rc(rc, "GetSessionAuditDigest %s", when))
		return;
	memset(&a, 0, sizeof(a));
	rc = Tss2_MU_TPMS_ATTEST_Unmarshal(info->attestationData, info->size, &off, &a);
	if (check_rc(rc, "%s: TPMS_ATTEST unmarshals", when)) {
		const TPMS_SESSION_AUDIT_INFO *sa = &a.attested.sessionAudit;

		check(a.magic == TPM2_GENERATED_VALUE && a.type == TPM2_ST_ATTEST_SESSION_AUDIT &&
			      off == info->size,
		      "%s: magic and type TPM_ST_ATTEST_SESSION_AUDIT", when);
		check(a.extraData.size == 4 && memcmp(a.extraData.buffer, qualifying.buffer, 4) == 0,
		      "%s: extraData is the qualifyingData", when);
		check(sa->sessionDigest.size == DSIZE &&
			      memcmp(sa->sessionDigest.buffer, expect, DSIZE) == 0,
		      "%s: sessionDigest is the digest computed here", when);
		check(sa->exclusiveSession == (exclusive ? TPM2_YES : TPM2_NO),
		      "%s: exclusiveSession %s", when, exclusive ? "YES" : "NO");
	}
	sha256(info->attestationData, info->size, d.buffer);
	check(sig->sigAlg == TPM2_ALG_ECDSA, "%s: an ECDSA signature", when);
	rc = Esys_VerifySignature(ctx, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &d, sig,
				  &ticket);
	check_rc(rc, "%s: the signature verifies", when);
	Esys_Free(ticket);
	Esys_Free(info);
	Esys_Free(sig);
}

static const TPM2B_PUBLIC ecdsa_key = {
	.publicArea = {
		.type = TPM2_ALG_ECC,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
				    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
				    TPMA_OBJECT_NODA | TPMA_OBJECT_SIGN_ENCRYPT,
		.parameters.eccDetail = {
			.symmetric = { .algorithm = TPM2_ALG_NULL },
			.scheme = { .scheme = TPM2_ALG_ECDSA,
				    .details.ecdsa.hashAlg = TPM2_ALG_SHA256 },
			.curveID = TPM2_ECC_NIST_P256,
			.kdf = { .scheme = TPM2_ALG_NULL },
		},
	},
};

static void run(ESYS_CONTEXT *ctx, ESYS_CONTEXT *other)
{
	TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_NULL };
	ESYS_TR salt = ESYS_TR_NONE, key = ESYS_TR_NONE, s = ESYS_TR_NONE, pcr = ESYS_TR_PCR16;
	TPM2B_DATA qualifying = { 0 };
	TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_NULL };
	TPM2B_AUTH wrong = { .size = 5, .buffer = "wrong" }, empty = { 0 };
	TPM2B_ATTEST *info = NULL;
	TPMT_SIGNATURE *sig = NULL;
	TPM2B_DIGEST *rnd = NULL;
	TPMS_CONTEXT *saved = NULL;
	TSS2_RC rc;

	rc = Esys_Startup(ctx, TPM2_SU_CLEAR);
	check(rc == TSS2_RC_SUCCESS || rc == TPM2_RC_INITIALIZE, "Startup(CLEAR): rc 0x%x", rc);
	if (!check_rc(create_primary(ctx, ESYS_TR_RH_NULL, &ecc_storage, "", &salt, NULL),
		      "ECC P-256 primary (salt key)") ||
	    !check_rc(create_primary(ctx, ESYS_TR_RH_OWNER, &ecdsa_key, "", &key, NULL),
		      "ECDSA P-256 signing primary"))
		goto out;
	rc = Esys_StartAuthSession(ctx, salt, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				   ESYS_TR_NONE, NULL, TPM2_SE_HMAC, &sym, TPM2_ALG_SHA256, &s);
	if (!check_rc(rc, "salted HMAC session"))
		goto out;

	check_rc(audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION),
		 "GetRandom audited (audit-only session)");
	check_rc(audited_extend(ctx, pcr, s), "PCR_Extend: password + audit session");
	check_rc(audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
						TPMA_SESSION_AUDITEXCLUSIVE),
		 "GetRandom with auditExclusive: still exclusive");
	report(ctx, key, s, 1, "after three commands");

	/* GetSessionAuditDigest itself was not audited: exclusivity is over */
	rc = audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
					    TPMA_SESSION_AUDITEXCLUSIVE);
	check(rc == TPM2_RC_EXCLUSIVE, "auditExclusive after an unaudited command: rc 0x%x "
	      "(want TPM_RC_EXCLUSIVE 0x121)", rc);
	check_rc(audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
						TPMA_SESSION_AUDITRESET | TPMA_SESSION_AUDITEXCLUSIVE),
		 "auditReset: the digest starts over, exclusive again");
	report(ctx, key, s, 1, "after auditReset");

	/* another connection's command ends the exclusivity */
	check_rc(audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
						TPMA_SESSION_AUDITRESET),
		 "auditReset again");
	rc = Esys_GetRandom(other, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, 8, &rnd);
	check_rc(rc, "GetRandom on a second connection");
	Esys_Free(rnd);
	rc = audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
					    TPMA_SESSION_AUDITEXCLUSIVE);
	check(rc == TPM2_RC_EXCLUSIVE, "auditExclusive after another connection's command: "
	      "rc 0x%x (want 0x121)", rc);

	/* ContextSave / ContextLoad keep the digest and the exclusivity */
	check_rc(audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
						TPMA_SESSION_AUDITRESET),
		 "auditReset before ContextSave");
	rc = Esys_ContextSave(ctx, s, &saved);
	if (check_rc(rc, "ContextSave of the audit session")) {
		s = ESYS_TR_NONE;
		rc = Esys_ContextLoad(ctx, saved, &s);
		check_rc(rc, "ContextLoad of the audit session");
	}
	Esys_Free(saved);
	if (s == ESYS_TR_NONE)
		goto out;
	check_rc(audited_random(ctx, s, TPMA_SESSION_AUDIT | TPMA_SESSION_CONTINUESESSION |
						TPMA_SESSION_AUDITEXCLUSIVE),
		 "auditExclusive after ContextSave/ContextLoad");
	report(ctx, key, s, 1, "after ContextSave/ContextLoad");

	/* the privacy administrator's authorization is checked */
	Esys_TR_SetAuth(ctx, ESYS_TR_RH_ENDORSEMENT, &wrong);
	rc = Esys_GetSessionAuditDigest(ctx, ESYS_TR_RH_ENDORSEMENT, key, s, ESYS_TR_PASSWORD,
					ESYS_TR_PASSWORD, ESYS_TR_NONE, &qualifying, &scheme, &info,
					&sig);
	check(rc == (TPM2_RC_BAD_AUTH | TPM2_RC_S | TPM2_RC_1),
	      "GetSessionAuditDigest with a wrong endorsement auth: rc 0x%x (want 0x9a2)", rc);
	Esys_TR_SetAuth(ctx, ESYS_TR_RH_ENDORSEMENT, &empty);
	Esys_Free(info);
	Esys_Free(sig);
out:
	flush(ctx, &s);
	flush(ctx, &key);
	flush(ctx, &salt);
}

int main(int argc, char **argv)
{
	const char *conf = tcti_conf(argc, argv);
	TSS2_TCTI_CONTEXT *tcti = NULL, *tcti2 = NULL;
	ESYS_CONTEXT *ctx = NULL, *other = NULL;

	printf("esys_audit: TCTI %s\n", conf);
	if (esys_connect(conf, "", &tcti, &ctx) &&
	    esys_connect(conf, " (a second connection)", &tcti2, &other))
		run(ctx, other);
	esys_disconnect(&tcti2, &other);
	esys_disconnect(&tcti, &ctx);
	return finish();
}
