/* Credentials (Part 1 §24): the verifier's MakeCredential, the attester's ActivateCredential,
 * proving that the AK of a Name lives in the TPM of an EK. */
#include <string.h>

#include <pqtpm/engine.h>

#include "attest_int.h"
#include "crypto/crypto.h"

/* MakeCredential is a public-key operation any TPM computes the same: a TPM of its own,
 * in memory and without state, does it for the verifier. */
TPM_RC pqtpm_attest_credential_make(const struct pqtpm_tss_public *ek_pub,
				    const struct pqtpm_tss_name *ak_name, const uint8_t *secret,
				    size_t len, struct pqtpm_tss_id_object *blob,
				    struct pqtpm_tss_ciphertext *enc)
{
	struct pqtpm_engine_config cfg = { .log_level = PQTPM_LOG_ERROR, .auto_startup = 1 };
	struct pqtpm_tss_digest cred;
	struct pqtpm_engine *e;
	struct pqtpm_tss_key ek;
	struct pqtpm_tss *t;
	TPM_RC rc;

	if (len == 0 || len > sizeof(cred.b))
		return PQTPM_TSS_RC_BAD_VALUE;
	if (pqtpm_engine_open(&e, &cfg, NULL, 0))
		return PQTPM_TSS_RC_IO;
	if (pqtpm_tss_open_engine(&t, e)) {
		pqtpm_engine_close(e);
		return PQTPM_TSS_RC_IO;
	}
	cred.size = (uint16_t)len;
	memcpy(cred.b, secret, len);
	rc = pqtpm_tss_load_public(t, TPM_RH_NULL, ek_pub, &ek);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_make_credential(t, ek.handle, &cred, ak_name, blob, enc);
	pqtpm_tss_close(t);
	pqtpm_engine_close(e);
	crypto_wipe(&cred, sizeof(cred)); /* the secret is the verifier's */
	return rc;
}

/* ActivateCredential: the AK (password, empty) through an HMAC session, the EK through its
 * policy session (ek_policy_session). */
TPM_RC pqtpm_attest_credential_activate(struct pqtpm_tss *t, const struct pqtpm_attest_ak *ak,
					const struct pqtpm_tss_id_object *blob,
					const struct pqtpm_tss_ciphertext *enc,
					struct pqtpm_tss_digest *secret)
{
	struct pqtpm_tss_session_params hp = { .type = TPM_SE_HMAC, .hash = TPM_ALG_SHA256 };
	struct pqtpm_tss_session *hs = NULL, *ps = NULL;
	TPM_HANDLE ek, key;
	TPM_RC rc;

	TRY(pqtpm_attest_ak_load(t, ak, &ek, &key));
	rc = pqtpm_tss_session_start(t, &hp, &hs);
	if (rc == TPM_RC_SUCCESS)
		rc = ek_policy_session(t, ak->ek_alg, &ps);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_use_sessions(t, hs, ps, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_activate_credential(t, key, "", ek, "", blob, enc, secret);
	pqtpm_tss_session_free(hs);
	pqtpm_tss_session_free(ps);
	pqtpm_tss_flush(t, key);
	pqtpm_tss_flush(t, ek);
	return rc;
}
