/* CreatePrimary, Create, Load, LoadExternal (public part), ReadPublic, FlushContext,
 * ContextSave, ContextLoad, StartAuthSession (unsalted, unbound). */
#include <string.h>

#include "tss_int.h"

/* TPM2B_SENSITIVE_CREATE with userAuth and no data */
static void sensitive_create(struct tss_cmd *c, const char *auth)
{
	size_t n = auth ? strlen(auth) : 0;

	tss_u16(c, (uint16_t)(2 + n + 2));
	tss_tpm2b(c, auth, n);
	tss_u16(c, 0);
}

static void public_param(struct tss_cmd *c, const struct pqtpm_tss_public *p)
{
	tss_tpm2b(c, p->b, p->size);
}

/* creationData, creationHash, creationTicket: read past */
static TPM_RC skip_creation(struct rd *r)
{
	struct pqtpm_tss_ticket t;
	struct tss_bytes b;

	TRY(tss_rd_view2b(r, &b));
	TRY(tss_rd_view2b(r, &b));
	return tss_rd_ticket(r, &t);
}

TPM_RC pqtpm_tss_create_primary(struct pqtpm_tss *t, TPM_HANDLE hierarchy,
				const char *hierarchy_auth, const struct pqtpm_tss_public *tmpl,
				const char *key_auth, struct pqtpm_tss_key *key)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_CreatePrimary);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, hierarchy);
	tss_auth(&c, hierarchy_auth);
	sensitive_create(&c, key_auth);
	public_param(&c, tmpl);
	tss_u16(&c, 0); /* outsideInfo */
	tss_u32(&c, 0); /* creationPCR */
	TRY(tss_run(&c, &r, &key->handle));
	TRY(tss_rd_public(&r, &key->pub));
	TRY(skip_creation(&r));
	TRY(tss_rd_tpm2b(&r, key->name.b, sizeof(key->name.b), &key->name.size));
	key->priv.size = 0;
	tss_name_put(t, key->handle, &key->name);
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_create(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			const struct pqtpm_tss_public *tmpl, const char *key_auth,
			struct pqtpm_tss_key *key)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Create);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, parent);
	tss_auth(&c, parent_auth);
	sensitive_create(&c, key_auth);
	public_param(&c, tmpl);
	tss_u16(&c, 0);
	tss_u32(&c, 0);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_tpm2b(&r, key->priv.b, sizeof(key->priv.b), &key->priv.size));
	TRY(tss_rd_public(&r, &key->pub));
	TRY(skip_creation(&r));
	key->handle = 0;
	key->name.size = 0;
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_load(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
		      struct pqtpm_tss_key *key)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Load);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, parent);
	tss_auth(&c, parent_auth);
	tss_tpm2b(&c, key->priv.b, key->priv.size);
	public_param(&c, &key->pub);
	TRY(tss_run(&c, &r, &key->handle));
	TRY(tss_rd_tpm2b(&r, key->name.b, sizeof(key->name.b), &key->name.size));
	tss_name_put(t, key->handle, &key->name);
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_load_public(struct pqtpm_tss *t, TPM_HANDLE hierarchy,
			     const struct pqtpm_tss_public *pub, struct pqtpm_tss_key *key)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_LoadExternal);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_u16(&c, 0); /* no sensitive part */
	public_param(&c, pub);
	tss_u32(&c, hierarchy);
	TRY(tss_run(&c, &r, &key->handle));
	TRY(tss_rd_tpm2b(&r, key->name.b, sizeof(key->name.b), &key->name.size));
	tss_name_put(t, key->handle, &key->name);
	if (pub != &key->pub)
		key->pub = *pub;
	key->priv.size = 0;
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_read_public(struct pqtpm_tss *t, TPM_HANDLE handle,
			     struct pqtpm_tss_public *pub, struct pqtpm_tss_name *name)
{
	struct pqtpm_tss_name qn;
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_ReadPublic);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, handle);
	TRY(tss_run(&c, &r, NULL));
	TRY(tss_rd_public(&r, pub));
	TRY(tss_rd_tpm2b(&r, name->b, sizeof(name->b), &name->size));
	TRY(tss_rd_tpm2b(&r, qn.b, sizeof(qn.b), &qn.size));
	tss_name_put(t, handle, name);
	return tss_rd_end(&r);
}

TPM_RC pqtpm_tss_flush(struct pqtpm_tss *t, TPM_HANDLE handle)
{
	struct tss_cmd c;

	tss_begin(&c, t, TPM_CC_FlushContext);
	tss_u32(&c, handle);
	tss_name_drop(t, handle);
	return tss_run(&c, NULL, NULL);
}

TPM_RC pqtpm_tss_start_auth_session(struct pqtpm_tss *t, uint8_t type, TPM_ALG_ID hash,
				    TPM_HANDLE *session, struct pqtpm_tss_digest *nonce_tpm)
{
	uint8_t nonce[32];
	struct tss_cmd c;
	struct rd r;

	TRY(pqtpm_tss_get_random(t, nonce, sizeof(nonce)));
	tss_begin(&c, t, TPM_CC_StartAuthSession);
	tss_handle(&c, TPM_RH_NULL);
	tss_handle(&c, TPM_RH_NULL);
	tss_tpm2b(&c, nonce, sizeof(nonce));
	tss_u16(&c, 0); /* encryptedSalt */
	tss_u8(&c, type);
	tss_u16(&c, TPM_ALG_NULL);
	tss_u16(&c, hash);
	TRY(tss_run(&c, &r, session));
	TRY(tss_rd_tpm2b(&r, nonce_tpm->b, sizeof(nonce_tpm->b), &nonce_tpm->size));
	return tss_rd_end(&r);
}

/* TPMS_CONTEXT: sequence, savedHandle, hierarchy, contextBlob; kept as marshalled. */
TPM_RC pqtpm_tss_context_save(struct pqtpm_tss *t, TPM_HANDLE handle,
			      struct pqtpm_tss_saved *saved)
{
	uint64_t sequence;
	uint32_t saved_handle, hierarchy;
	uint16_t blob;
	struct tss_cmd c;
	struct rd r, sub;
	size_t n;

	tss_begin(&c, t, TPM_CC_ContextSave);
	tss_handle(&c, handle);
	TRY(tss_run(&c, &r, NULL));
	n = rd_left(&r);
	if (rd_u64(&r, &sequence) || rd_u32(&r, &saved_handle) || rd_u32(&r, &hierarchy) ||
	    rd_sub(&r, &sub, &blob) || rd_left(&r) || n > sizeof(saved->b))
		return PQTPM_TSS_RC_MALFORMED;
	memcpy(saved->b, r.buf, n);
	saved->size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_context_load(struct pqtpm_tss *t, const struct pqtpm_tss_saved *saved,
			      TPM_HANDLE *handle)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_ContextLoad);
	tss_bytes(&c, saved->b, saved->size);
	TRY(tss_run(&c, &r, handle));
	return tss_rd_end(&r);
}
