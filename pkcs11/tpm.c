/* TPM steps of tokens and PINs: the sealed objects that hold a token's wrapping secret (made,
 * unsealed, given a new PIN), the dictionary-attack state, random bytes; and the TPM_RC to
 * CK_RV conversion. The connections themselves are conn.c's. */
#include <stdio.h>
#include <string.h>

#include "p11.h"

CK_RV p11_rc(TPM_RC rc, const char *what)
{
	char text[256];
	TPM_RC base;

	if (rc == TPM_RC_SUCCESS)
		return CKR_OK;
	p11_log(P11_LOG_INFO, "%s: %s", what, pqtpm_tss_rc_decode(rc, text, sizeof(text)));
	if (rc == TPM_RC_LOCKOUT)
		return CKR_PIN_LOCKED;
	/* format one: the code without its parameter, handle or session number */
	base = (rc & TPM_RC_FMT1) ? (rc & 0xBFu) : rc;
	if (base == TPM_RC_AUTH_FAIL || base == TPM_RC_BAD_AUTH)
		return CKR_PIN_INCORRECT;
	if (rc == TPM_RC_MEMORY || rc == TPM_RC_OBJECT_MEMORY || rc == TPM_RC_SESSION_MEMORY)
		return CKR_DEVICE_MEMORY;
	return CKR_DEVICE_ERROR;
}

static void to_blob(struct p11_blob *dst, const uint8_t *b, size_t n)
{
	memcpy(dst->b, b, n);
	dst->len = n;
}

/* The sealed object's key from its two blobs, loaded under the storage key. */
static CK_RV load_sealed(struct p11_conn *c, const struct p11_blob *pub,
			 const struct p11_blob *priv, struct pqtpm_tss_key *key)
{
	if (pub->len > sizeof(key->pub.b) || priv->len > sizeof(key->priv.b)) {
		p11_log(P11_LOG_ERROR, "token store: a sealed object of a wrong size");
		return CKR_DEVICE_ERROR;
	}
	memcpy(key->pub.b, pub->b, pub->len);
	key->pub.size = (uint16_t)pub->len;
	memcpy(key->priv.b, priv->b, priv->len);
	key->priv.size = (uint16_t)priv->len;
	return p11_conn_rv(c, pqtpm_tss_load(c->t, c->storage, "", key), "Load of a sealed object");
}

static CK_RV seal_once(const char *pin, const char *secret, struct p11_blob *pub,
		   struct p11_blob *priv)
{
	/* DA-protected (no noDA): wrong PINs count toward the TPM's lockout */
	struct pqtpm_tss_template tmpl = {
		.type = TPM_ALG_KEYEDHASH,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_USERWITHAUTH,
	};
	struct pqtpm_tss_public tpub;
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_HANDLE parent;
	TPM_RC rc;
	CK_RV rv = p11_tpm(&t, &parent);

	if (rv != CKR_OK)
		return rv;
	rc = pqtpm_tss_template_public(&tmpl, &tpub);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create_sealed(t, parent, "", &tpub, pin, (const uint8_t *)secret,
					     strlen(secret), &key);
	if (rc != TPM_RC_SUCCESS)
		return p11_tpm_rv(rc, "Create of a sealed object");
	to_blob(pub, key.pub.b, key.pub.size);
	to_blob(priv, key.priv.b, key.priv.size);
	return CKR_OK;
}

CK_RV p11_conn_unseal(struct p11_conn *c, const char *pin, const struct p11_blob *pub,
		      const struct p11_blob *priv, char *secret)
{
	uint8_t buf[PQTPM_TSS_MAX_SEALED];
	struct pqtpm_tss_key key;
	size_t len = 0;
	CK_RV rv = load_sealed(c, pub, priv, &key);

	if (rv != CKR_OK)
		return rv;
	rv = p11_conn_rv(c, pqtpm_tss_unseal(c->t, key.handle, pin, buf, sizeof(buf), &len),
			 "Unseal");
	pqtpm_tss_flush(c->t, key.handle);
	if (rv == CKR_OK && len != P11_SECRET_LEN) {
		p11_log(P11_LOG_ERROR, "token store: a sealed secret of %zu bytes", len);
		rv = CKR_DEVICE_ERROR;
	}
	if (rv == CKR_OK) {
		memcpy(secret, buf, len);
		secret[len] = '\0';
	}
	explicit_bzero(buf, sizeof(buf));
	return rv;
}

static CK_RV unseal_once(const char *pin, const struct p11_blob *pub, const struct p11_blob *priv,
			 char *secret)
{
	struct pqtpm_tss *t;
	CK_RV rv = p11_tpm(&t, NULL);

	return rv == CKR_OK ? p11_conn_unseal(p11_conn_held(), pin, pub, priv, secret) : rv;
}

static CK_RV rewrap_pin_once(const char *old_pin, const char *new_pin, const struct p11_blob *pub,
			 struct p11_blob *priv)
{
	struct pqtpm_tss_private npriv;
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_HANDLE parent;
	CK_RV rv = p11_tpm(&t, &parent);

	if (rv == CKR_OK)
		rv = load_sealed(p11_conn_held(), pub, priv, &key);
	if (rv != CKR_OK)
		return rv;
	rv = p11_tpm_rv(pqtpm_tss_object_change_auth(t, key.handle, old_pin, parent, new_pin,
						     &npriv),
			"ObjectChangeAuth");
	pqtpm_tss_flush(t, key.handle);
	if (rv == CKR_OK)
		to_blob(priv, npriv.b, npriv.size);
	return rv;
}

static CK_RV da_once(uint32_t *failed, uint32_t *max_tries)
{
	struct pqtpm_tss *t;
	TPM_RC rc;
	CK_RV rv = p11_tpm(&t, NULL);

	if (rv != CKR_OK)
		return rv;
	rc = pqtpm_tss_get_property(t, TPM_PT_LOCKOUT_COUNTER, failed);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_get_property(t, TPM_PT_MAX_AUTH_FAIL, max_tries);
	return p11_tpm_rv(rc, "GetCapability (dictionary-attack state)");
}

CK_RV p11_conn_random(struct p11_conn *c, uint8_t *out, size_t len)
{
	CK_RV rv = CKR_OK;

	while (rv == CKR_OK && len) {
		uint16_t n = len > 32 ? 32 : (uint16_t)len;

		rv = p11_conn_rv(c, pqtpm_tss_get_random(c->t, out, n), "GetRandom");
		out += n;
		len -= n;
	}
	return rv;
}

static CK_RV random_once(uint8_t *out, size_t len)
{
	struct pqtpm_tss *t;
	CK_RV rv = p11_tpm(&t, NULL);

	return rv == CKR_OK ? p11_conn_random(p11_conn_held(), out, len) : rv;
}

CK_RV p11_tpm_seal(const char *pin, const char *secret, struct p11_blob *pub,
		   struct p11_blob *priv)
{
	CK_RV rv = seal_once(pin, secret, pub, priv);

	return p11_tpm_recover() ? seal_once(pin, secret, pub, priv) : rv;
}

CK_RV p11_tpm_unseal(const char *pin, const struct p11_blob *pub, const struct p11_blob *priv,
		     char *secret)
{
	CK_RV rv = unseal_once(pin, pub, priv, secret);

	return p11_tpm_recover() ? unseal_once(pin, pub, priv, secret) : rv;
}

CK_RV p11_tpm_rewrap_pin(const char *old_pin, const char *new_pin, const struct p11_blob *pub,
			 struct p11_blob *priv)
{
	CK_RV rv = rewrap_pin_once(old_pin, new_pin, pub, priv);

	return p11_tpm_recover() ? rewrap_pin_once(old_pin, new_pin, pub, priv) : rv;
}

CK_RV p11_tpm_da(uint32_t *failed, uint32_t *max_tries)
{
	CK_RV rv = da_once(failed, max_tries);

	return p11_tpm_recover() ? da_once(failed, max_tries) : rv;
}

CK_RV p11_tpm_random(uint8_t *out, size_t len)
{
	CK_RV rv = random_once(out, len);

	return p11_tpm_recover() ? random_once(out, len) : rv;
}
