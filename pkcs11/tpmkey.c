/* Steps on a connection (p11_unlocked): a key created under the storage key, a digest computed
 * by the TPM (TPM2_Hash, hash sequences). Loading keys is conn.c's. */
#include <string.h>

#include "p11.h"

CK_RV p11_conn_hash(struct p11_conn *c, TPM_ALG_ID hash, const uint8_t *data, size_t len,
		    uint8_t *out, size_t *out_len)
{
	struct pqtpm_tss_digest d;
	TPM_HANDLE seq = 0;
	TPM_RC rc;

	if (len <= PQTPM_TSS_MAX_BUFFER) {
		rc = pqtpm_tss_hash(c->t, hash, data, len, TPM_RH_NULL, &d, NULL);
	} else {
		rc = pqtpm_tss_hash_sequence_start(c->t, "", hash, &seq);
		while (rc == TPM_RC_SUCCESS && len > PQTPM_TSS_MAX_BUFFER) {
			rc = pqtpm_tss_sequence_update(c->t, seq, "", data, PQTPM_TSS_MAX_BUFFER);
			data += PQTPM_TSS_MAX_BUFFER;
			len -= PQTPM_TSS_MAX_BUFFER;
		}
		if (rc == TPM_RC_SUCCESS)
			rc = pqtpm_tss_sequence_complete(c->t, seq, "", data, len, TPM_RH_NULL, &d,
							 NULL);
		/* a sequence not completed stays loaded (a failed command changes nothing) */
		if (rc != TPM_RC_SUCCESS && seq)
			pqtpm_tss_flush(c->t, seq);
	}
	if (rc != TPM_RC_SUCCESS)
		return p11_conn_rv(c, rc, "Hash");
	memcpy(out, d.b, d.size);
	*out_len = d.size;
	return CKR_OK;
}

CK_RV p11_conn_create_key(struct p11_conn *c, const struct pqtpm_tss_public *tmpl,
			  const char *auth, struct p11_blob *pub, struct p11_blob *priv)
{
	struct pqtpm_tss_key key;
	CK_RV rv = p11_conn_rv(c, pqtpm_tss_create(c->t, c->storage, "", tmpl, auth, &key),
			       "Create");

	if (rv != CKR_OK)
		return rv;
	memcpy(pub->b, key.pub.b, key.pub.size);
	pub->len = key.pub.size;
	memcpy(priv->b, key.priv.b, key.priv.size);
	priv->len = key.priv.size;
	explicit_bzero(&key.priv, sizeof(key.priv));
	return CKR_OK;
}
