/* Keys in the TPM: created under the storage key, loaded once when first used, public keys
 * loaded alone to verify with; digests computed by the TPM (TPM2_Hash, hash sequences). */
#include <string.h>

#include "p11.h"

static CK_RV hash_once(TPM_ALG_ID hash, const uint8_t *data, size_t len, uint8_t *out,
		   size_t *out_len)
{
	struct pqtpm_tss_digest d;
	struct pqtpm_tss *t;
	TPM_HANDLE seq;
	TPM_RC rc;
	CK_RV rv = p11_tpm(&t, NULL);

	if (rv != CKR_OK)
		return rv;
	if (len <= PQTPM_TSS_MAX_BUFFER) {
		rc = pqtpm_tss_hash(t, hash, data, len, TPM_RH_NULL, &d, NULL);
	} else {
		rc = pqtpm_tss_hash_sequence_start(t, "", hash, &seq);
		while (rc == TPM_RC_SUCCESS && len > PQTPM_TSS_MAX_BUFFER) {
			rc = pqtpm_tss_sequence_update(t, seq, "", data, PQTPM_TSS_MAX_BUFFER);
			data += PQTPM_TSS_MAX_BUFFER;
			len -= PQTPM_TSS_MAX_BUFFER;
		}
		if (rc == TPM_RC_SUCCESS)
			rc = pqtpm_tss_sequence_complete(t, seq, "", data, len, TPM_RH_NULL, &d,
							 NULL);
		else
			pqtpm_tss_flush(t, seq);
	}
	if (rc != TPM_RC_SUCCESS)
		return p11_tpm_rv(rc, "Hash");
	memcpy(out, d.b, d.size);
	*out_len = d.size;
	return CKR_OK;
}

static CK_RV create_key_once(const struct pqtpm_tss_public *tmpl, const char *auth,
			 struct p11_blob *pub, struct p11_blob *priv)
{
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_HANDLE parent;
	CK_RV rv = p11_tpm(&t, &parent);

	if (rv != CKR_OK)
		return rv;
	rv = p11_tpm_rv(pqtpm_tss_create(t, parent, "", tmpl, auth, &key), "Create");
	if (rv != CKR_OK)
		return rv;
	memcpy(pub->b, key.pub.b, key.pub.size);
	pub->len = key.pub.size;
	memcpy(priv->b, key.priv.b, key.priv.size);
	priv->len = key.priv.size;
	return CKR_OK;
}

/* The TPM's object slots are full: let go of every loaded key (they load again on use). */
static void unload_all(void)
{
	size_t i;

	for (i = 0; i < P11_MAX_OBJECTS; i++)
		if (p11_objects[i] && p11_objects[i]->loaded) {
			p11_tpm_flush(p11_objects[i]->loaded);
			p11_objects[i]->loaded = 0;
		}
}

CK_RV p11_tpm_load(struct p11_object *o, TPM_HANDLE *h)
{
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_HANDLE parent;
	TPM_RC rc;
	CK_RV rv;

	if (o->loaded) {
		*h = o->loaded;
		return CKR_OK;
	}
	if (!o->tpm_pub || !o->tpm_priv || o->tpm_pub->len > sizeof(key.pub.b) ||
	    o->tpm_priv->len > sizeof(key.priv.b))
		return CKR_KEY_TYPE_INCONSISTENT;
	rv = p11_tpm(&t, &parent);
	if (rv != CKR_OK)
		return rv;
	memcpy(key.pub.b, o->tpm_pub->b, o->tpm_pub->len);
	key.pub.size = (uint16_t)o->tpm_pub->len;
	memcpy(key.priv.b, o->tpm_priv->b, o->tpm_priv->len);
	key.priv.size = (uint16_t)o->tpm_priv->len;
	rc = pqtpm_tss_load(t, parent, "", &key);
	if (rc == TPM_RC_OBJECT_MEMORY) {
		unload_all();
		rc = pqtpm_tss_load(t, parent, "", &key);
	}
	explicit_bzero(&key.priv, sizeof(key.priv));
	if (rc != TPM_RC_SUCCESS)
		return p11_tpm_rv(rc, "Load");
	o->loaded = key.handle;
	*h = key.handle;
	return CKR_OK;
}

CK_RV p11_tpm_load_public(const struct p11_blob *pub, TPM_HANDLE *h)
{
	struct pqtpm_tss_public p;
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_RC rc;
	CK_RV rv = p11_tpm(&t, NULL);

	if (rv != CKR_OK)
		return rv;
	if (pub->len > sizeof(p.b))
		return CKR_KEY_TYPE_INCONSISTENT;
	memcpy(p.b, pub->b, pub->len);
	p.size = (uint16_t)pub->len;
	rc = pqtpm_tss_load_public(t, TPM_RH_NULL, &p, &key);
	if (rc == TPM_RC_OBJECT_MEMORY) {
		unload_all();
		rc = pqtpm_tss_load_public(t, TPM_RH_NULL, &p, &key);
	}
	if (rc != TPM_RC_SUCCESS)
		return p11_tpm_rv(rc, "LoadExternal");
	*h = key.handle;
	return CKR_OK;
}

void p11_tpm_flush(TPM_HANDLE h)
{
	struct pqtpm_tss *t;

	if (p11_tpm(&t, NULL) == CKR_OK)
		pqtpm_tss_flush(t, h);
}

CK_RV p11_tpm_hash(TPM_ALG_ID hash, const uint8_t *data, size_t len, uint8_t *out,
		   size_t *out_len)
{
	CK_RV rv = hash_once(hash, data, len, out, out_len);

	return p11_tpm_recover() ? hash_once(hash, data, len, out, out_len) : rv;
}

CK_RV p11_tpm_create_key(const struct pqtpm_tss_public *tmpl, const char *auth,
			 struct p11_blob *pub, struct p11_blob *priv)
{
	CK_RV rv = create_key_once(tmpl, auth, pub, priv);

	return p11_tpm_recover() ? create_key_once(tmpl, auth, pub, priv) : rv;
}
