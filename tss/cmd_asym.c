/* Sign, VerifySignature, RSA_Encrypt, RSA_Decrypt, ECDH_KeyGen, ECDH_ZGen. */
#include "crypto/crypto.h"
#include "tss_int.h"

#define MAX_LABEL 64 /* TPM2B_DATA: sizeof(TPMT_HA) */

/* TPMT_SIG_SCHEME and TPMT_RSA_DECRYPT: the scheme, then its hash unless it has none. */
static void scheme(struct tss_cmd *c, TPM_ALG_ID alg, TPM_ALG_ID hash)
{
	alg = alg ? alg : TPM_ALG_NULL;
	tss_u16(c, alg);
	if (alg != TPM_ALG_NULL && alg != TPM_ALG_RSAES && alg != TPM_ALG_MLDSA)
		tss_u16(c, hash);
}

/* TPM2B_ECC_POINT */
static void ecc_point(struct tss_cmd *c, const struct pqtpm_tss_ecc_point *p)
{
	tss_u16(c, (uint16_t)(2 + p->x_size + 2 + p->y_size));
	tss_tpm2b(c, p->x, p->x_size);
	tss_tpm2b(c, p->y, p->y_size);
}

static TPM_RC rd_ecc_point(struct rd *r, struct pqtpm_tss_ecc_point *p)
{
	struct rd sub;
	uint16_t size;

	if (rd_sub(r, &sub, &size))
		return PQTPM_TSS_RC_MALFORMED;
	TRY(tss_rd_tpm2b(&sub, p->x, sizeof(p->x), &p->x_size));
	TRY(tss_rd_tpm2b(&sub, p->y, sizeof(p->y), &p->y_size));
	return tss_rd_end(&sub);
}

/* Z, then (KeyGen) the ephemeral public point; the response that held Z is wiped. */
static TPM_RC rd_points(struct pqtpm_tss *t, struct rd *r, struct pqtpm_tss_ecc_point *z,
			struct pqtpm_tss_ecc_point *pub)
{
	TPM_RC rc = rd_ecc_point(r, z);

	if (rc == TPM_RC_SUCCESS && pub)
		rc = rd_ecc_point(r, pub);
	if (rc == TPM_RC_SUCCESS)
		rc = tss_rd_end(r);
	crypto_wipe(t->rsp, t->rsp_len);
	return rc;
}

TPM_RC pqtpm_tss_sign(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
		      const uint8_t *digest, size_t dlen, TPM_ALG_ID sig_scheme,
		      TPM_ALG_ID scheme_hash, const struct pqtpm_tss_ticket *validation,
		      struct pqtpm_tss_signature *sig)
{
	struct tss_cmd c;
	struct rd r;

	if (dlen > 64)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_Sign);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, digest, dlen);
	scheme(&c, sig_scheme, scheme_hash);
	if (validation) {
		tss_bytes(&c, validation->b, validation->size);
	} else { /* the NULL Ticket */
		tss_u16(&c, TPM_ST_HASHCHECK);
		tss_u32(&c, TPM_RH_NULL);
		tss_u16(&c, 0);
	}
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_signature(&r, sig));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_verify_signature(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *digest,
				  size_t dlen, const struct pqtpm_tss_signature *sig,
				  struct pqtpm_tss_ticket *validation)
{
	struct tss_cmd c;
	struct rd r;

	if (dlen > 64)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_VerifySignature);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_tpm2b(&c, digest, dlen);
	tss_bytes(&c, sig->b, sig->size);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_ticket(&r, validation));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_rsa_encrypt(struct pqtpm_tss *t, TPM_HANDLE key, const uint8_t *msg,
			     size_t len, TPM_ALG_ID enc_scheme, TPM_ALG_ID scheme_hash,
			     const uint8_t *label, size_t label_len, uint8_t *out, size_t cap,
			     size_t *out_len)
{
	struct tss_cmd c;
	struct rd r;
	uint16_t n;

	if (len > PQTPM_TSS_MAX_RSA || label_len > MAX_LABEL)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_RSA_Encrypt);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_tpm2b(&c, msg, len);
	scheme(&c, enc_scheme, scheme_hash);
	tss_tpm2b(&c, label, label_len);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, out, cap, &n));
	*out_len = n;
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_rsa_decrypt(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			     const uint8_t *ct, size_t len, TPM_ALG_ID enc_scheme,
			     TPM_ALG_ID scheme_hash, const uint8_t *label, size_t label_len,
			     uint8_t *out, size_t cap, size_t *out_len)
{
	struct tss_cmd c;
	struct rd r;
	uint16_t n;
	TPM_RC rc;

	if (len > PQTPM_TSS_MAX_RSA || label_len > MAX_LABEL)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_RSA_Decrypt);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, ct, len);
	scheme(&c, enc_scheme, scheme_hash);
	tss_tpm2b(&c, label, label_len);
	TRY(tss_run(&c, &r, NULL));
	rc = tss_rd_tpm2b(&r, out, cap, &n);
	if (rc == TPM_RC_SUCCESS) {
		*out_len = n;
		rc = tss_rd_end(&r);
	}
	crypto_wipe(t->rsp, t->rsp_len); /* the plaintext */
	return rc;
}

TPM_RC pqtpm_tss_ecdh_keygen(struct pqtpm_tss *t, TPM_HANDLE key,
			     struct pqtpm_tss_ecc_point *z, struct pqtpm_tss_ecc_point *pub)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_ECDH_KeyGen);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, key);
	TRY(tss_run(&c, &r, NULL));
	return rd_points(t, &r, z, pub);
}

TPM_RC pqtpm_tss_ecdh_zgen(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			   const struct pqtpm_tss_ecc_point *in, struct pqtpm_tss_ecc_point *z)
{
	struct tss_cmd c;
	struct rd r;

	if (in->x_size > sizeof(in->x) || in->y_size > sizeof(in->y))
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_ECDH_ZGen);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	ecc_point(&c, in);
	TRY(tss_run(&c, &r, NULL));
	return rd_points(t, &r, z, NULL);
}
