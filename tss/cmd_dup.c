/* Duplicate and Import.
 *
 * Duplicate's object is authorized in the DUP role, which only a policy session can fill (Part
 * 1 §19.2). The builder of tss_int.h carries passwords only, so this one command's
 * authorization area is written here: the caller's policy session with an empty nonce and an
 * empty HMAC, which is what a policy without PolicyAuthValue or PolicyPassword asks for
 * (Part 1 §19.6.5). The parameters still go through the builder's writers. */
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

/* Header, handles, one policy-session authorization, the parameters c collected. */
static TPM_RC assemble_policy(const struct tss_cmd *c, TPM_HANDLE session, struct wr *w)
{
	size_t auth_size = 4 + 2 + 1 + 2;

	TRY(wr_u16(w, TPM_ST_SESSIONS));
	TRY(wr_u32(w, 0));
	TRY(wr_u32(w, c->cc));
	for (unsigned i = 0; i < c->nhandles; i++)
		TRY(wr_u32(w, c->handle[i]));
	TRY(wr_u32(w, (uint32_t)auth_size));
	TRY(wr_u32(w, session));
	TRY(wr_u16(w, 0)); /* nonceCaller */
	TRY(wr_u8(w, TPMA_SESSION_CONTINUESESSION));
	TRY(wr_u16(w, 0)); /* hmac */
	TRY(wr_bytes(w, c->params, c->p.off));
	wr_patch_u32(w, 2, (uint32_t)w->off);
	return TPM_RC_SUCCESS;
}

/* Send c under the policy session; rsp reads the response parameters. */
static TPM_RC run_policy(struct tss_cmd *c, TPM_HANDLE session, struct rd *rsp)
{
	struct pqtpm_tss *t = c->t;
	uint32_t size, rc, psize;
	uint16_t tag;
	struct wr w;
	struct rd r;

	if (c->overflow)
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, t->cmd, sizeof(t->cmd));
	if (assemble_policy(c, session, &w) != TPM_RC_SUCCESS)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(pqtpm_tss_transmit(t, t->cmd, w.off, t->rsp, sizeof(t->rsp), &t->rsp_len));
	rd_init(&r, t->rsp, t->rsp_len);
	if (rd_u16(&r, &tag) || rd_u32(&r, &size) || rd_u32(&r, &rc) || tag != TPM_ST_SESSIONS ||
	    rd_u32(&r, &psize) || psize > rd_left(&r))
		return PQTPM_TSS_RC_MALFORMED;
	rd_init(rsp, r.buf + r.off, psize);
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_duplicate(struct pqtpm_tss *t, TPM_HANDLE object, TPM_HANDLE policy_session,
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
	tss_handle(&c, new_parent);
	tss_tpm2b(&c, key_in, key_len);
	sym_def(&c, sym_alg, sym_bits);
	TRY(run_policy(&c, policy_session, &r));
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
