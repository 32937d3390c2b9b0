/* Create with the caller's data (keys of a known value, sealed data objects), and Unseal. */
#include <string.h>

#include "crypto/crypto.h"
#include "tss_int.h"

/* outPrivate, outPublic; creationData, creationHash and creationTicket read past */
static TPM_RC rd_created(struct rd *r, struct pqtpm_tss_key *key)
{
	struct pqtpm_tss_ticket tk;
	struct tss_bytes b;

	TRY(tss_rd_tpm2b(r, key->priv.b, sizeof(key->priv.b), &key->priv.size));
	TRY(tss_rd_public(r, &key->pub));
	TRY(tss_rd_view2b(r, &b));
	TRY(tss_rd_view2b(r, &b));
	TRY(tss_rd_ticket(r, &tk));
	return tss_rd_end(r);
}

TPM_RC pqtpm_tss_create_data(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			     const struct pqtpm_tss_public *tmpl, const char *key_auth,
			     const uint8_t *data, size_t len, struct pqtpm_tss_key *key)
{
	size_t n = key_auth ? strlen(key_auth) : 0;
	struct tss_cmd c;
	struct rd r;
	TPM_RC rc;

	if (len > PQTPM_TSS_MAX_SEALED || n > sizeof(((struct pqtpm_tss_digest *)0)->b))
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, t, TPM_CC_Create);
	tss_param_enc(&c, TSS_ENC_IN | TSS_ENC_OUT);
	tss_handle(&c, parent);
	tss_auth(&c, parent_auth);
	/* TPM2B_SENSITIVE_CREATE: userAuth, then the data to seal */
	tss_u16(&c, (uint16_t)(2 + n + 2 + len));
	tss_tpm2b(&c, key_auth, n);
	tss_tpm2b(&c, data, len);
	tss_tpm2b(&c, tmpl->b, tmpl->size);
	tss_u16(&c, 0); /* outsideInfo */
	tss_u32(&c, 0); /* creationPCR */
	rc = tss_run(&c, &r, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = rd_created(&r, key);
	/* the parameters held the secret (and the response is read in place) */
	crypto_wipe(c.params, sizeof(c.params));
	if (rc != TPM_RC_SUCCESS)
		return rc;
	key->handle = 0;
	key->name.size = 0;
	return TPM_RC_SUCCESS;
}

TPM_RC pqtpm_tss_create_sealed(struct pqtpm_tss *t, TPM_HANDLE parent, const char *parent_auth,
			       const struct pqtpm_tss_public *tmpl, const char *key_auth,
			       const uint8_t *data, size_t len, struct pqtpm_tss_key *key)
{
	return pqtpm_tss_create_data(t, parent, parent_auth, tmpl, key_auth, data, len, key);
}

TPM_RC pqtpm_tss_unseal(struct pqtpm_tss *t, TPM_HANDLE object, const char *auth, uint8_t *out,
			size_t cap, size_t *len)
{
	uint8_t buf[PQTPM_TSS_MAX_SEALED];
	uint16_t size = 0;
	struct tss_cmd c;
	struct rd r;
	TPM_RC rc;

	tss_begin(&c, t, TPM_CC_Unseal);
	tss_param_enc(&c, TSS_ENC_OUT);
	tss_handle(&c, object);
	tss_auth(&c, auth);
	TRY(tss_run(&c, &r, NULL));
	rc = tss_rd_tpm2b(&r, buf, sizeof(buf), &size);
	if (rc == TPM_RC_SUCCESS)
		rc = tss_rd_end(&r);
	if (rc == TPM_RC_SUCCESS && size > cap)
		rc = PQTPM_TSS_RC_BAD_VALUE;
	if (rc == TPM_RC_SUCCESS) {
		memcpy(out, buf, size);
		*len = size;
	}
	crypto_wipe(buf, sizeof(buf));
	/* the response that held the data, and where it was read */
	crypto_wipe(t->rsp, t->rsp_len);
	crypto_wipe(c.params, sizeof(c.params));
	return rc;
}
