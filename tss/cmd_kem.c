/* v1.85 ML-KEM: Encapsulate, Decapsulate; credentials: MakeCredential, ActivateCredential;
 * StartAuthSession salted with an ML-KEM key. */
#include <stdlib.h>

#include "crypto/crypto.h"
#include "crypto/mlkem.h"
#include "tss_int.h"
#include "types.h"

TPM_RC pqtpm_tss_encapsulate(struct pqtpm_tss *t, TPM_HANDLE key,
			     struct pqtpm_tss_digest *shared_secret,
			     struct pqtpm_tss_ciphertext *ct)
{
	struct tss_cmd c;
	struct rd r;

	tss_begin(&c, t, TPM_CC_Encapsulate);
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

/* Part 1's labeled KEM, the sender's side: (K, ct) = ML-KEM.Encaps(ek);
 * salt = KDFa(nameAlg, K, "SECRET", ct, ek, digest bits). */
static TPM_RC kem_salt(const struct tpmt_public *pub, uint8_t *ct, size_t *ctlen,
		       uint8_t *salt, size_t *salt_len)
{
	size_t dlen = crypto_hash_size(pub->name_alg);
	uint8_t m[32], k[MLKEM_SS_BYTES];
	TPM_RC rc;

	if (pub->type != TPM_ALG_MLKEM || dlen == 0)
		return PQTPM_TSS_RC_BAD_VALUE;
	rc = crypto_random(m, sizeof(m));
	if (rc == TPM_RC_SUCCESS && mlkem_encaps(pub->parameter_set, pub->unique.b, m, ct, k) != 0)
		rc = PQTPM_TSS_RC_BAD_VALUE;
	*ctlen = mlkem_ct_bytes(pub->parameter_set);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfa(pub->name_alg, k, sizeof(k), "SECRET", ct, *ctlen, pub->unique.b,
				 pub->unique.size, (uint32_t)dlen * 8, salt);
	*salt_len = dlen;
	crypto_wipe(m, sizeof(m));
	crypto_wipe(k, sizeof(k));
	return rc;
}

TPM_RC pqtpm_tss_start_kem_session(struct pqtpm_tss *t, TPM_HANDLE tpm_key,
				   const struct pqtpm_tss_public *key_pub, uint8_t type,
				   TPM_ALG_ID hash, TPM_HANDLE *session,
				   struct pqtpm_tss_digest *nonce_tpm,
				   struct pqtpm_tss_digest *session_key)
{
	uint8_t nonce[64], salt[64], ct[MLKEM_MAX_CT_BYTES];
	size_t dlen = crypto_hash_size(hash), ctlen = 0, salt_len = 0;
	struct tpmt_public *pub = malloc(sizeof(*pub)); /* up to 2.6 KB of key */
	struct tss_cmd c;
	struct rd r;
	TPM_RC rc;

	if (!pub)
		return PQTPM_TSS_RC_BAD_VALUE;
	rd_init(&r, key_pub->b, key_pub->size);
	rc = rd_public(&r, pub) || rd_left(&r) || dlen == 0 ? PQTPM_TSS_RC_BAD_VALUE
							   : TPM_RC_SUCCESS;
	if (rc == TPM_RC_SUCCESS)
		rc = kem_salt(pub, ct, &ctlen, salt, &salt_len);
	free(pub);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_random(nonce, dlen);
	if (rc == TPM_RC_SUCCESS) {
		tss_begin(&c, t, TPM_CC_StartAuthSession);
		tss_handle(&c, tpm_key);
		tss_handle(&c, TPM_RH_NULL);
		tss_tpm2b(&c, nonce, dlen);
		tss_tpm2b(&c, ct, ctlen); /* encryptedSalt */
		tss_u8(&c, type);
		tss_u16(&c, TPM_ALG_NULL);
		tss_u16(&c, hash);
		rc = tss_run(&c, &r, session);
	}
	if (rc == TPM_RC_SUCCESS)
		rc = tss_rd_tpm2b(&r, nonce_tpm->b, sizeof(nonce_tpm->b), &nonce_tpm->size);
	if (rc == TPM_RC_SUCCESS)
		rc = tss_rd_end(&r);
	/* unbound: sessionKey = KDFa(hash, salt, "ATH", nonceTPM, nonceCaller, digest bits) */
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_kdfa(hash, salt, salt_len, "ATH", nonce_tpm->b, nonce_tpm->size, nonce,
				 dlen, (uint32_t)dlen * 8, session_key->b);
	session_key->size = rc == TPM_RC_SUCCESS ? (uint16_t)dlen : 0;
	crypto_wipe(salt, sizeof(salt));
	return rc;
}
