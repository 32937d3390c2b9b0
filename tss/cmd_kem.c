/* v1.85 ML-KEM: Encapsulate, Decapsulate; credentials: MakeCredential, ActivateCredential;
 * StartAuthSession salted with an ML-KEM key. */
#include "tss_int.h"

TPM_RC pqtpm_tss_encapsulate(struct pqtpm_tss *t, TPM_HANDLE key,
			     struct pqtpm_tss_digest *shared_secret,
			     struct pqtpm_tss_ciphertext *ct)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Encapsulate);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, key);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, shared_secret->b, sizeof(shared_secret->b), &shared_secret->size));
	TRY(tss_rd_tpm2b(&r, ct->b, sizeof(ct->b), &ct->size));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_decapsulate(struct pqtpm_tss *t, TPM_HANDLE key, const char *key_auth,
			     const struct pqtpm_tss_ciphertext *ct,
			     struct pqtpm_tss_digest *shared_secret)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Decapsulate);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, ct->b, ct->size);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, shared_secret->b, sizeof(shared_secret->b), &shared_secret->size));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_make_credential(struct pqtpm_tss *t, TPM_HANDLE key,
				 const struct pqtpm_tss_digest *credential,
				 const struct pqtpm_tss_name *object_name,
				 struct pqtpm_tss_id_object *blob,
				 struct pqtpm_tss_ciphertext *secret)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_MakeCredential);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, key);
	tss_tpm2b(&c, credential->b, credential->size);
	tss_tpm2b(&c, object_name->b, object_name->size);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, blob->b, sizeof(blob->b), &blob->size));
	TRY(tss_rd_tpm2b(&r, secret->b, sizeof(secret->b), &secret->size));
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_activate_credential(struct pqtpm_tss *t, TPM_HANDLE activate,
				     const char *activate_auth, TPM_HANDLE key,
				     const char *key_auth, const struct pqtpm_tss_id_object *blob,
				     const struct pqtpm_tss_ciphertext *secret,
				     struct pqtpm_tss_digest *credential)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_ActivateCredential);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, activate);
	tss_handle(&c, key);
	tss_auth(&c, activate_auth);
	tss_auth(&c, key_auth);
	tss_tpm2b(&c, blob->b, blob->size);
	tss_tpm2b(&c, secret->b, secret->size);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, credential->b, sizeof(credential->b), &credential->size));
	return tss_rd_end(&r);
}

/* A session salted with an ML-KEM key, handed over to the caller: the TPM's session stays,
 * the library's object goes (session.c does the work). */
TPM_RC pqtpm_tss_start_kem_session(struct pqtpm_tss *t, TPM_HANDLE tpm_key,
				   const struct pqtpm_tss_public *key_pub, uint8_t type,
				   TPM_ALG_ID hash, TPM_HANDLE *session,
				   struct pqtpm_tss_digest *nonce_tpm,
				   struct pqtpm_tss_digest *session_key)
{
	struct pqtpm_tss_session_params p = {
		.type = type, .hash = hash, .salt_key = tpm_key, .salt_pub = key_pub
	};
	struct pqtpm_tss_session *s;
	uint16_t key_type;
	struct rd r;

	rd_init(&r, key_pub->b, key_pub->size);
	if (rd_u16(&r, &key_type) || key_type != TPM_ALG_MLKEM)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(pqtpm_tss_session_start(t, &p, &s));
	*session = s->handle;
	*nonce_tpm = s->nonce_tpm;
	*session_key = s->key;
	s->handle = 0; /* the caller's now */
	pqtpm_tss_session_free(s);
	return TPM_RC_SUCCESS;
}
