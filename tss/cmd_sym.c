/* EncryptDecrypt2 (any length, in pieces of PQTPM_TSS_MAX_BUFFER with the IV carried on),
 * HMAC, Hash, HashSequenceStart, HMAC_Start, SequenceComplete. SequenceUpdate is in
 * cmd_sign.c. */
#include "crypto/crypto.h"
#include "tss_int.h"

#define MAX_IV 16 /* TPM2B_IV: MAX_SYM_BLOCK_SIZE */

/* outData of exactly len bytes, then ivOut of the IV's size */
static TPM_RC rd_crypted(struct rd *r, uint8_t *out, size_t len, uint8_t *iv, size_t iv_len)
{
	uint16_t n;

	TRY(tss_rd_tpm2b(r, out, len, &n));
	if (n != len)
		return PQTPM_TSS_RC_MALFORMED;
	TRY(tss_rd_tpm2b(r, iv, iv_len, &n));
	if (n != iv_len)
		return PQTPM_TSS_RC_MALFORMED;
	return tss_rd_end(r);
}

/* One EncryptDecrypt2 of at most PQTPM_TSS_MAX_BUFFER bytes; iv replaced by ivOut. */
static TPM_RC encrypt_decrypt_once(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
				   int decrypt, TPM_ALG_ID mode, uint8_t *iv, size_t iv_len,
				   const uint8_t *in, size_t len, uint8_t *out)
{
	struct tss_cmd c;
	struct rd r;
	TPM_RC rc;

	tss_begin(&c, t, TPM_CC_EncryptDecrypt2);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, in, len);
	tss_u8(&c, decrypt ? 1 : 0);
	tss_u16(&c, mode ? mode : TPM_ALG_NULL);
	tss_tpm2b(&c, iv, iv_len);
	rc = tss_run(&c, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = rd_crypted(&r, out, len, iv, iv_len);
	/* plaintext was in the command or is in the response */
	crypto_wipe(c.params, c.p.off);
	crypto_wipe(t->cmd, sizeof(t->cmd));
	crypto_wipe(t->rsp, t->rsp_len);
	return rc;
}

TPM_RC pqtpm_tss_encrypt_decrypt(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
				 int decrypt, TPM_ALG_ID mode, uint8_t *iv, size_t iv_len,
				 const uint8_t *in, size_t len, uint8_t *out)
{
	size_t done = 0;

	if (iv_len > MAX_IV)
		return PQTPM_TSS_RC_BAD_VALUE;
	do {
		size_t n = len - done < PQTPM_TSS_MAX_BUFFER ? len - done : PQTPM_TSS_MAX_BUFFER;

		TRY(encrypt_decrypt_once(t, key, key_auth, decrypt, mode, iv, iv_len, in + done, n,
					 out + done));
		done += n;
	} while (done < len);
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_hmac(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
		      TPM_ALG_ID hash, const uint8_t *data, size_t len,
		      struct pqtpm_tss_digest *out)
{
	struct tss_cmd c;
	struct rd r;

	if (len > PQTPM_TSS_MAX_BUFFER)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_HMAC);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, data, len);
	tss_u16(&c, hash ? hash : TPM_ALG_NULL);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, out->b, sizeof(out->b), &out->size));
	return tss_rd_end(&r);
}

/* A TPMT_TK_HASHCHECK into validation, or read past it when NULL. */
static TPM_RC rd_validation(struct rd *r, struct pqtpm_tss_ticket *validation)
{
	struct pqtpm_tss_ticket ignored;

	return tss_rd_ticket(r, validation ? validation : &ignored);
}

TPM_RC pqtpm_tss_hash(struct pqtpm_tss *t, TPM_ALG_ID hash, const uint8_t *data, size_t len,
		      TPM_HANDLE hierarchy, struct pqtpm_tss_digest *out,
		      struct pqtpm_tss_ticket *validation)
{
	struct tss_cmd c;
	struct rd r;

	if (len > PQTPM_TSS_MAX_BUFFER)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_Hash);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_tpm2b(&c, data, len);
	tss_u16(&c, hash);
	tss_u32(&c, hierarchy);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, out->b, sizeof(out->b), &out->size));
	TRY(rd_validation(&r, validation));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_hash_sequence_start(struct pqtpm_tss *t, const char *seq_auth,
				     TPM_ALG_ID hash, TPM_HANDLE *seq)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_HashSequenceStart);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_tpm2b_str(&c, seq_auth);
	tss_u16(&c, hash ? hash : TPM_ALG_NULL);
	TRY(tss_run(&c, &r, seq));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_hmac_start(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			    const char *seq_auth, TPM_ALG_ID hash, TPM_HANDLE *seq)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_HMAC_Start);
	tss_param_enc(&c, TSS_ENC_IN);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b_str(&c, seq_auth);
	tss_u16(&c, hash ? hash : TPM_ALG_NULL);
	TRY(tss_run(&c, &r, seq));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_sequence_complete(struct pqtpm_tss *t, TPM_HANDLE seq, const char *seq_auth,
				   const uint8_t *data, size_t len, TPM_HANDLE hierarchy,
				   struct pqtpm_tss_digest *result,
				   struct pqtpm_tss_ticket *validation)
{
	struct tss_cmd c;
	struct rd r;

	if (len > PQTPM_TSS_MAX_BUFFER)
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_SequenceComplete);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, seq);
	tss_auth(&c, seq_auth);
	tss_tpm2b(&c, data, len);
	tss_u32(&c, hierarchy);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, result->b, sizeof(result->b), &result->size));
	TRY(rd_validation(&r, validation));
	return tss_rd_end(&r);
}
