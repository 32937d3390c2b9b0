/* See tss_peer.h. */
#include <string.h>

#include <pqtpm/tss.h>

#include "tss_peer.h"

static struct pqtpm_tss *t;
static struct pqtpm_tss_session *s;

int peer_open(const char *tcti)
{
	return pqtpm_tss_open_tcti(&t, tcti);
}

void peer_close(void)
{
	pqtpm_tss_close(t);
	t = NULL;
}

uint32_t peer_session_start(uint32_t salt, uint32_t bind, const char *bind_auth)
{
	static struct pqtpm_tss_public pub;
	struct pqtpm_tss_name name;
	struct pqtpm_tss_session_params p = {
		.type = TPM_SE_HMAC, .hash = TPM_ALG_SHA256, .salt_key = salt, .salt_pub = &pub,
		.bind = bind, .bind_auth = bind_auth, .sym = TPM_ALG_AES, .sym_bits = 128,
		.attrs = TPMA_SESSION_CONTINUESESSION | TPMA_SESSION_DECRYPT |
			 TPMA_SESSION_ENCRYPT,
	};
	TPM_RC rc = pqtpm_tss_read_public(t, salt, &pub, &name);

	return rc ? rc : pqtpm_tss_session_start(t, &p, &s);
}

void peer_session_end(void)
{
	pqtpm_tss_session_free(s);
	s = NULL;
}

static void storage_template(struct pqtpm_tss_public *out)
{
	struct pqtpm_tss_template tm = {
		.type = TPM_ALG_ECC,
		.attributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
			      TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
			      TPMA_OBJECT_NODA | TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT,
	};

	pqtpm_tss_template_public(&tm, out);
}

uint32_t peer_create(uint32_t parent, const char *parent_auth, const char *auth, uint8_t *priv,
		     size_t *priv_len, uint8_t *pub, size_t *pub_len)
{
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key k;
	TPM_RC rc;

	storage_template(&tmpl);
	rc = pqtpm_tss_use_sessions(t, s, NULL, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create(t, parent, parent_auth, &tmpl, auth, &k);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	memcpy(priv, k.priv.b, k.priv.size);
	*priv_len = k.priv.size;
	memcpy(pub, k.pub.b, k.pub.size);
	*pub_len = k.pub.size;
	return TPM_RC_SUCCESS;
}

uint32_t peer_load_use(uint32_t parent, const char *parent_auth, const uint8_t *priv,
		       size_t priv_len, const uint8_t *pub, size_t pub_len, const char *auth)
{
	static struct pqtpm_tss_public tmpl;
	static struct pqtpm_tss_key k, child;
	TPM_RC rc;

	if (priv_len > sizeof(k.priv.b) || pub_len > sizeof(k.pub.b))
		return PQTPM_TSS_RC_BAD_VALUE;
	memcpy(k.priv.b, priv, priv_len);
	k.priv.size = (uint16_t)priv_len;
	memcpy(k.pub.b, pub, pub_len);
	k.pub.size = (uint16_t)pub_len;
	storage_template(&tmpl);
	rc = pqtpm_tss_use_sessions(t, s, NULL, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_load(t, parent, parent_auth, &k);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	rc = pqtpm_tss_use_sessions(t, s, NULL, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create(t, k.handle, auth, &tmpl, "", &child);
	pqtpm_tss_flush(t, k.handle);
	return rc;
}
