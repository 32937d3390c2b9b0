/* The TPM: one connection per process, opened at first use (never in C_Initialize, so that an
 * unreachable TPM costs nothing until a token is used), and the token's storage key, a primary
 * ECC P-256 key of the owner hierarchy (the same key each time: it is derived from the
 * owner's seed, so nothing about it is stored). */
#include <stdio.h>
#include <string.h>

#include "p11.h"

static struct pqtpm_tss *conn;
static TPM_HANDLE storage_key;
static bool lost; /* the transport failed: the connection and every handle on it are gone */

static CK_RV storage_primary(void)
{
	struct pqtpm_tss_template tmpl = {
		.type = TPM_ALG_ECC,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
		.curve = TPM_ECC_NIST_P256,
		.sym_bits = 128,
	};
	struct pqtpm_tss_public pub;
	struct pqtpm_tss_key key;
	TPM_RC rc;

	rc = pqtpm_tss_template_public(&tmpl, &pub);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create_primary(conn, TPM_RH_OWNER, p11.conf.owner_auth, &pub, "",
					      &key);
	if (rc != TPM_RC_SUCCESS)
		return p11_tpm_rv(rc, "the storage key (CreatePrimary)");
	storage_key = key.handle;
	return CKR_OK;
}

CK_RV p11_tpm(struct pqtpm_tss **t, TPM_HANDLE *storage)
{
	TPM_RC rc;
	int err;

	if (!conn) {
		err = pqtpm_tss_open_tcti(&conn, p11.conf.tpm);
		if (err != 0) {
			p11_log(P11_LOG_ERROR, "%s: cannot reach the TPM (%s)", p11.conf.tpm,
				strerror(-err));
			conn = NULL;
			return CKR_DEVICE_ERROR;
		}
		rc = pqtpm_tss_power_on(conn) == 0 ? pqtpm_tss_startup(conn, TPM_SU_CLEAR)
						    : PQTPM_TSS_RC_IO;
		if (rc != TPM_RC_SUCCESS) {
			p11_tpm_close();
			return p11_tpm_rv(rc, "Startup");
		}
	}
	if (!storage_key && storage_primary() != CKR_OK) {
		p11_tpm_close();
		return CKR_DEVICE_ERROR;
	}
	*t = conn;
	if (storage)
		*storage = storage_key;
	return CKR_OK;
}

void p11_tpm_close(void)
{
	if (conn && storage_key)
		pqtpm_tss_flush(conn, storage_key);
	pqtpm_tss_close(conn);
	conn = NULL;
	storage_key = 0;
}

bool p11_tpm_recover(void)
{
	if (!lost)
		return false;
	lost = false;
	p11_tpm_forget();
	p11_objects_unloaded();
	p11_log(P11_LOG_INFO, "%s: the connection was lost, opening it again", p11.conf.tpm);
	return true;
}

void p11_tpm_forget(void)
{
	/* the library lets a child close its copy without touching the parent's connection */
	pqtpm_tss_close(conn);
	conn = NULL;
	storage_key = 0;
}

CK_RV p11_tpm_rv(TPM_RC rc, const char *what)
{
	char text[256];
	TPM_RC base;

	if (rc == TPM_RC_SUCCESS)
		return CKR_OK;
	p11_log(P11_LOG_INFO, "%s: %s", what, pqtpm_tss_rc_decode(rc, text, sizeof(text)));
	if (rc == PQTPM_TSS_RC_IO)
		lost = true;
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
static CK_RV load_sealed(struct pqtpm_tss *t, TPM_HANDLE parent, const struct p11_blob *pub,
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
	return p11_tpm_rv(pqtpm_tss_load(t, parent, "", key), "Load of a sealed object");
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

static CK_RV unseal_once(const char *pin, const struct p11_blob *pub, const struct p11_blob *priv,
		     char *secret)
{
	uint8_t buf[PQTPM_TSS_MAX_SEALED];
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_HANDLE parent;
	size_t len = 0;
	CK_RV rv = p11_tpm(&t, &parent);

	if (rv == CKR_OK)
		rv = load_sealed(t, parent, pub, priv, &key);
	if (rv != CKR_OK)
		return rv;
	rv = p11_tpm_rv(pqtpm_tss_unseal(t, key.handle, pin, buf, sizeof(buf), &len), "Unseal");
	pqtpm_tss_flush(t, key.handle);
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

static CK_RV rewrap_pin_once(const char *old_pin, const char *new_pin, const struct p11_blob *pub,
			 struct p11_blob *priv)
{
	struct pqtpm_tss_private npriv;
	struct pqtpm_tss_key key;
	struct pqtpm_tss *t;
	TPM_HANDLE parent;
	CK_RV rv = p11_tpm(&t, &parent);

	if (rv == CKR_OK)
		rv = load_sealed(t, parent, pub, priv, &key);
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

static CK_RV random_once(uint8_t *out, size_t len)
{
	struct pqtpm_tss *t;
	CK_RV rv = p11_tpm(&t, NULL);

	while (rv == CKR_OK && len) {
		uint16_t n = len > 32 ? 32 : (uint16_t)len;

		rv = p11_tpm_rv(pqtpm_tss_get_random(t, out, n), "GetRandom");
		out += n;
		len -= n;
	}
	return rv;
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
