/* Duplicate and Import. Duplicate's object is authorized in the DUP role, which only a policy
 * session can fill (Part 1 §19.2): the caller gives it with pqtpm_tss_use_sessions. */
#include <string.h>

#include "tss_int.h"

/* TPMT_SYM_DEF_OBJECT: AES in CFB mode or TPM_ALG_NULL */
static void sym_def(struct tss_cmd *c, TPM_ALG_ID alg, uint16_t bits)
{
	alg = alg ? alg : TPM_ALG_NULL;
	tss_u16(c, alg);
	if (alg != TPM_ALG_NULL) {
		tss_u16(c, bits);
		tss_u16(c, TPM_ALG_CFB);
	}
}

TPM_RC pqtpm_tss_duplicate(struct pqtpm_tss *t, TPM_HANDLE object, const char *object_auth,
			   TPM_HANDLE new_parent, const uint8_t *key_in, size_t key_len,
			   TPM_ALG_ID sym_alg, uint16_t sym_bits, struct pqtpm_tss_duplicate *out)
{
	struct tss_cmd c;
	struct rd r;

	if (key_len > sizeof(out->key.b))
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_Duplicate);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, object);
	tss_auth(&c, object_auth);
	tss_handle(&c, new_parent);
	tss_tpm2b(&c, key_in, key_len);
	sym_def(&c, sym_alg, sym_bits);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, out->key.b, sizeof(out->key.b), &out->key.size));
	TRY(tss_rd_tpm2b(&r, out->dup.b, sizeof(out->dup.b), &out->dup.size));
	TRY(tss_rd_tpm2b(&r, out->seed.b, sizeof(out->seed.b), &out->seed.size));
	TRY(tss_rd_end(&r));
	/* encryptionKeyOut is empty when the caller gave the key: the blob needs it either way */
	if (key_len && out->key.size == 0) {
		memcpy(out->key.b, key_in, key_len);
		out->key.size = (uint16_t)key_len;
	}
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_import(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			const struct pqtpm_tss_public *pub, const struct pqtpm_tss_duplicate *in,
			TPM_ALG_ID sym_alg, uint16_t sym_bits, struct pqtpm_tss_private *priv)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Import);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, parent);
	tss_auth(&c, parent_auth);
	tss_tpm2b(&c, in->key.b, in->key.size);
	tss_tpm2b(&c, pub->b, pub->size);
	tss_tpm2b(&c, in->dup.b, in->dup.size);
	tss_tpm2b(&c, in->seed.b, in->seed.size);
	sym_def(&c, sym_alg, sym_bits);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, priv->b, sizeof(priv->b), &priv->size));
	return tss_rd_end(&r);
}
