/* Helpers for the post-quantum command tests (see pq_util.h). */
#include <string.h>

#include "crypto/mlkem.h"
#include "keys.h"
#include "pq_util.h"

void pq_tmpl(struct tpmt_public *p, TPM_ALG_ID type, uint16_t set, uint32_t attrs)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->name_alg = TPM_ALG_SHA256;
	p->attributes = PQ_KEY_BASE | attrs;
	p->symmetric.alg = TPM_ALG_NULL;
	if ((attrs & PQ_STORAGE) == PQ_STORAGE) {
		p->symmetric.alg = TPM_ALG_AES;
		p->symmetric.key_bits = 128;
		p->symmetric.mode = TPM_ALG_CFB;
	}
	p->scheme.scheme = p->scheme.hash_alg = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->pre_hash = type == TPM_ALG_HASH_MLDSA ? TPM_ALG_SHA256 : TPM_ALG_NULL;
	p->parameter_set = set;
	p->key_bits = 2048;
	p->curve_id = TPM_ECC_NIST_P256;
}

TPM_RC pq_primary(struct harness *h, TPM_HANDLE hierarchy, const struct tpmt_public *t,
		  const char *auth, struct pq_key *k)
{
	struct tpm2b_digest hash;
	struct tpmt_ticket ticket;
	struct cmdbuf b;
	struct rd rsp, sub;
	uint16_t size;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hierarchy);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, auth, NULL, 0);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	rc = harness_run(h, &b, &rsp, &k->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_tpm2b_public(&rsp, &k->pub) || rd_sub(&rsp, &sub, &size) ||
	    rd_tpm2b_digest(&rsp, &hash) || rd_ticket(&rsp, &ticket) ||
	    rd_tpm2b_name(&rsp, &k->name))
		return TPM_RC_FAILURE;
	return rc;
}

TPM_RC pq_create_load(struct harness *h, TPM_HANDLE parent, const struct tpmt_public *t,
		      const char *auth, struct pq_key *k)
{
	struct tpm2b_private priv;
	TPM_RC rc;

	rc = key_create(h, parent, t, auth, NULL, 0, &priv, &k->pub);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	return key_load(h, parent, &priv, &k->pub, &k->handle, &k->name);
}

TPM_RC pq_load_public(struct harness *h, const struct tpmt_public *pub, struct pq_key *k)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_LoadExternal);
	wr_u16(&b.params, 0);
	wr_tpm2b_public(&b.params, pub);
	wr_u32(&b.params, TPM_RH_OWNER);
	rc = harness_run(h, &b, &rsp, &k->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	k->pub = *pub;
	return rd_tpm2b_name(&rsp, &k->name) ? TPM_RC_FAILURE : rc;
}

TPM_RC pq_flush(struct harness *h, TPM_HANDLE handle)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_FlushContext);
	wr_u32(&b.params, handle);
	return harness_run(h, &b, NULL, NULL);
}

TPM_RC pq_sign_start(struct harness *h, TPM_HANDLE key, const char *auth, const void *ctx,
		     uint16_t ctxlen, TPM_HANDLE *seq)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_SignSequenceStart);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	wr_tpm2b(&b.params, ctx, ctxlen);
	return harness_run(h, &b, NULL, seq);
}

TPM_RC pq_verify_start(struct harness *h, TPM_HANDLE key, const char *auth, const void *ctx,
		       uint16_t ctxlen, TPM_HANDLE *seq)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_VerifySequenceStart);
	cmd_handle(&b, key);
	wr_tpm2b(&b.params, auth, (uint16_t)strlen(auth));
	wr_u16(&b.params, 0); /* hint */
	wr_tpm2b(&b.params, ctx, ctxlen);
	return harness_run(h, &b, NULL, seq);
}

TPM_RC pq_update(struct harness *h, TPM_HANDLE seq, const char *auth, const void *data,
		 uint16_t len)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_SequenceUpdate);
	cmd_handle(&b, seq);
	cmd_auth_pw(&b, auth);
	wr_tpm2b(&b.params, data, len);
	return harness_run(h, &b, NULL, NULL);
}

TPM_RC pq_sign_complete(struct harness *h, TPM_HANDLE seq, const char *seq_auth,
			TPM_HANDLE key, const char *key_auth, const void *data, uint16_t len,
			struct tpmt_signature *sig)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_SignSequenceComplete);
	cmd_handle(&b, seq);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, seq_auth);
	cmd_auth_pw(&b, key_auth);
	wr_tpm2b(&b.params, data, len);
	rc = harness_run(h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_signature(&rsp, sig) || rd_left(&rsp))
		return TPM_RC_FAILURE;
	return rc;
}

TPM_RC pq_verify_complete(struct harness *h, TPM_HANDLE seq, const char *auth, TPM_HANDLE key,
			  const struct tpmt_signature *sig, struct tpmt_ticket *t)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_VerifySequenceComplete);
	cmd_handle(&b, seq);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, auth);
	wr_signature(&b.params, sig);
	rc = harness_run(h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_ticket(&rsp, t) || rd_left(&rsp))
		return TPM_RC_FAILURE;
	return rc;
}

TPM_RC pq_context_roundtrip(struct harness *h, TPM_HANDLE *handle)
{
	static struct tpms_context ctx;
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ContextSave);
	cmd_handle(&b, *handle);
	rc = harness_run(h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_context(&rsp, &ctx))
		return TPM_RC_FAILURE;
	TRY(pq_flush(h, *handle));
	cmd_begin(&b, TPM_CC_ContextLoad);
	wr_context(&b.params, &ctx);
	return harness_run(h, &b, NULL, handle);
}

TPM_RC pq_encapsulate(struct harness *h, TPM_HANDLE key, uint8_t ss[32], uint8_t *ct,
		      uint16_t *ctlen)
{
	struct cmdbuf b;
	struct rd rsp;
	uint16_t sslen;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Encapsulate);
	cmd_handle(&b, key);
	rc = harness_run(h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_tpm2b(&rsp, ss, 32, &sslen) || sslen != 32 ||
	    rd_tpm2b(&rsp, ct, MLKEM_MAX_CT_BYTES, ctlen) || rd_left(&rsp))
		return TPM_RC_FAILURE;
	return rc;
}

TPM_RC pq_decapsulate(struct harness *h, TPM_HANDLE key, const char *auth, const uint8_t *ct,
		      uint16_t ctlen, uint8_t ss[32])
{
	struct cmdbuf b;
	struct rd rsp;
	uint16_t sslen;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Decapsulate);
	cmd_handle(&b, key);
	cmd_auth_pw(&b, auth);
	wr_tpm2b(&b.params, ct, ctlen);
	rc = harness_run(h, &b, &rsp, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	if (rd_tpm2b(&rsp, ss, 32, &sslen) || sslen != 32 || rd_left(&rsp))
		return TPM_RC_FAILURE;
	return rc;
}
