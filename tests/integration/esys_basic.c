/* ESAPI through the stock tpm2-tss TCTI loader against a running TPM.
 *
 *   esys_basic [TCTI]     default: $PQTPM_TCTI, else mssim:host=127.0.0.1,port=2321
 *
 * Startup (TPM_RC_INITIALIZE accepted), GetRandom, Hash (known answer), CreatePrimary of an
 * ECC P-256 signing key (twice: same key), ReadPublic, Sign + VerifySignature (and a changed
 * digest is refused with TPM_RC_SIGNATURE), FlushContext (no transient handle left).
 * Prints `N passed, M failed`; exits 0 only if nothing failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

#include "common/esys_util.h"

static int marshal_public(const TPM2B_PUBLIC *pub, uint8_t *buf, size_t cap, size_t *len)
{
	*len = 0;
	return Tss2_MU_TPM2B_PUBLIC_Marshal(pub, buf, cap, len) == TSS2_RC_SUCCESS;
}

static int same_public(const TPM2B_PUBLIC *a, const TPM2B_PUBLIC *b)
{
	uint8_t ba[sizeof(TPM2B_PUBLIC)], bb[sizeof(TPM2B_PUBLIC)];
	size_t la, lb;

	return marshal_public(a, ba, sizeof(ba), &la) && marshal_public(b, bb, sizeof(bb), &lb) &&
	       la == lb && memcmp(ba, bb, la) == 0;
}

static const TPM2B_PUBLIC ecc_sign_template = {
	.publicArea = {
		.type = TPM2_ALG_ECC,
		.nameAlg = TPM2_ALG_SHA256,
		.objectAttributes = TPMA_OBJECT_SIGN_ENCRYPT | TPMA_OBJECT_FIXEDTPM |
				    TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN |
				    TPMA_OBJECT_USERWITHAUTH,
		.parameters.eccDetail = {
			.symmetric = { .algorithm = TPM2_ALG_NULL },
			.scheme = { .scheme = TPM2_ALG_ECDSA,
				    .details.ecdsa.hashAlg = TPM2_ALG_SHA256 },
			.curveID = TPM2_ECC_NIST_P256,
			.kdf = { .scheme = TPM2_ALG_NULL },
		},
	},
};

/* SHA-256("abc"), FIPS 180-2 */
static const uint8_t sha256_abc[32] = {
	0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
	0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
};

static void run(ESYS_CONTEXT *ctx)
{
	TSS2_RC rc;
	TPM2B_DIGEST *r1 = NULL, *r2 = NULL, *digest = NULL;
	TPMT_TK_HASHCHECK *hash_ticket = NULL;
	TPM2B_PUBLIC *pub = NULL, *pub2 = NULL, *rpub = NULL;
	TPM2B_NAME *name = NULL, *qname = NULL;
	TPMT_SIGNATURE *sig = NULL;
	TPMT_TK_VERIFIED *vt = NULL;
	ESYS_TR key = ESYS_TR_NONE, key2 = ESYS_TR_NONE;
	UINT32 n;

	rc = Esys_Startup(ctx, TPM2_SU_CLEAR);
	check(rc == TSS2_RC_SUCCESS || rc == TPM2_RC_INITIALIZE, "Startup(CLEAR): rc 0x%x", rc);

	rc = Esys_GetRandom(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, 32, &r1);
	if (check_rc(rc, "GetRandom(32)"))
		check(r1->size == 32, "GetRandom returned 32 bytes (got %u)", r1->size);
	rc = Esys_GetRandom(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, 32, &r2);
	if (check_rc(rc, "GetRandom(32) again") && r1)
		check(r2->size != r1->size || memcmp(r1->buffer, r2->buffer, r1->size) != 0,
		      "two GetRandom results differ");

	TPM2B_MAX_BUFFER abc = { .size = 3, .buffer = { 'a', 'b', 'c' } };
	rc = Esys_Hash(ctx, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &abc, TPM2_ALG_SHA256,
		       ESYS_TR_RH_NULL, &digest, &hash_ticket);
	if (check_rc(rc, "Hash(SHA-256, \"abc\")"))
		check(digest->size == 32 && memcmp(digest->buffer, sha256_abc, 32) == 0,
		      "SHA-256(\"abc\") known answer");

	rc = create_primary(ctx, ESYS_TR_RH_OWNER, &ecc_sign_template, "", &key, &pub);
	if (!check_rc(rc, "CreatePrimary(ECC P-256, ECDSA-SHA256)"))
		goto out;
	check(pub->publicArea.type == TPM2_ALG_ECC &&
	      pub->publicArea.unique.ecc.x.size == 32 && pub->publicArea.unique.ecc.y.size == 32,
	      "primary has a P-256 point (x %u, y %u bytes)", pub->publicArea.unique.ecc.x.size,
	      pub->publicArea.unique.ecc.y.size);

	rc = create_primary(ctx, ESYS_TR_RH_OWNER, &ecc_sign_template, "", &key2, &pub2);
	if (check_rc(rc, "CreatePrimary again"))
		check(same_public(pub, pub2), "same template, same primary key");
	if (key2 != ESYS_TR_NONE) {
		check_rc(Esys_FlushContext(ctx, key2), "FlushContext(second primary)");
		key2 = ESYS_TR_NONE;
	}

	rc = Esys_ReadPublic(ctx, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &rpub, &name,
			     &qname);
	if (check_rc(rc, "ReadPublic")) {
		check(same_public(pub, rpub), "ReadPublic returns the created public area");
		check(name->size == 34 && name->name[0] == 0x00 && name->name[1] == 0x0b,
		      "name is SHA-256 (size %u)", name->size);
	}

	TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_ECDSA,
				   .details.ecdsa.hashAlg = TPM2_ALG_SHA256 };
	TPMT_TK_HASHCHECK null_ticket = { .tag = TPM2_ST_HASHCHECK, .hierarchy = TPM2_RH_NULL };
	TPM2B_DIGEST msg = { .size = 32 };
	memcpy(msg.buffer, sha256_abc, 32);
	rc = Esys_Sign(ctx, key, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &msg, &scheme,
		       &null_ticket, &sig);
	if (!check_rc(rc, "Sign(ECDSA)"))
		goto flush;
	check(sig->sigAlg == TPM2_ALG_ECDSA && sig->signature.ecdsa.hash == TPM2_ALG_SHA256,
	      "signature is ECDSA-SHA256");
	check(sig->signature.ecdsa.signatureR.size > 0 && sig->signature.ecdsa.signatureR.size <= 32 &&
	      sig->signature.ecdsa.signatureS.size > 0 && sig->signature.ecdsa.signatureS.size <= 32,
	      "r and s are 1..32 bytes (%u, %u)", sig->signature.ecdsa.signatureR.size,
	      sig->signature.ecdsa.signatureS.size);

	rc = Esys_VerifySignature(ctx, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &msg, sig, &vt);
	if (check_rc(rc, "VerifySignature"))
		check(vt->tag == TPM2_ST_VERIFIED, "validation ticket is TPM_ST_VERIFIED");
	Esys_Free(vt);
	vt = NULL;

	msg.buffer[0] ^= 1;
	rc = Esys_VerifySignature(ctx, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &msg, sig, &vt);
	check((rc & ~(TPM2_RC_N_MASK | TPM2_RC_P)) == TPM2_RC_SIGNATURE,
	      "VerifySignature of another digest: TPM_RC_SIGNATURE (rc 0x%x %s)", rc,
	      Tss2_RC_Decode(rc));

	sig->signature.ecdsa.signatureS.buffer[0] ^= 0x80;
	msg.buffer[0] ^= 1;
	rc = Esys_VerifySignature(ctx, key, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &msg, sig, &vt);
	check(rc != TSS2_RC_SUCCESS, "VerifySignature of a changed signature fails (rc 0x%x %s)",
	      rc, Tss2_RC_Decode(rc));

flush:
	if (check_rc(Esys_FlushContext(ctx, key), "FlushContext(primary)"))
		key = ESYS_TR_NONE;
	/* 0x80000000: TPM2_TRANSIENT_FIRST, whose macro overflows int */
	if (handle_count(ctx, 0x80000000u, &n))
		check(n == 0, "no transient handles after FlushContext (%u)", n);
out:
	if (key != ESYS_TR_NONE)
		Esys_FlushContext(ctx, key);
	Esys_Free(r1);
	Esys_Free(r2);
	Esys_Free(digest);
	Esys_Free(hash_ticket);
	Esys_Free(pub);
	Esys_Free(pub2);
	Esys_Free(rpub);
	Esys_Free(name);
	Esys_Free(qname);
	Esys_Free(sig);
	Esys_Free(vt);
}

int main(int argc, char **argv)
{
	return esys_main(argc, argv, "esys_basic", run);
}
