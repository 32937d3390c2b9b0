/* EKs and AKs in the TPM: made, loaded, kept in AK.json. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest_int.h"

TPM_RC pqtpm_attest_ek_create(struct pqtpm_tss *t, const char *ek_alg, struct pqtpm_tss_key *ek)
{
	struct pqtpm_tss_public tmpl;

	TRY(pqtpm_attest_ek_template(ek_alg, &tmpl, NULL));
	return pqtpm_tss_create_primary(t, TPM_RH_ENDORSEMENT, "", &tmpl, "", ek);
}

TPM_RC pqtpm_attest_ek_certificate(struct pqtpm_tss *t, const char *ek_alg, uint8_t *cert,
				   size_t cap, size_t *len)
{
	struct pqtpm_tss_nv_public pub;
	struct pqtpm_tss_public tmpl;
	struct pqtpm_tss_name name;
	TPM_HANDLE index;

	TRY(pqtpm_attest_ek_template(ek_alg, &tmpl, &index));
	TRY(pqtpm_tss_nv_read_public(t, index, &pub, &name));
	if (pub.data_size > cap)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(pqtpm_tss_nv_read(t, TPM_RH_OWNER, "", index, 0, cert, pub.data_size));
	*len = pub.data_size;
	return TPM_RC_SUCCESS;
}

/* The EK authorizes its use as a parent through its policy: PolicySecret(endorsement), and
 * in the high range the PolicyOR after it. The session is gone after the next command
 * (continueSession clear). */
TPM_RC ek_policy_session(struct pqtpm_tss *t, const char *ek_alg, struct pqtpm_tss_session **s)
{
	struct pqtpm_tss_session_params p = { .type = TPM_SE_POLICY };
	struct pqtpm_tss_digest branches[2];
	size_t n;
	TPM_RC rc;

	*s = NULL;
	TRY(ek_policy_branches(ek_alg, &p.hash, branches, &n));
	TRY(pqtpm_tss_session_start(t, &p, s));
	rc = pqtpm_tss_policy_secret(*s, TPM_RH_ENDORSEMENT, "");
	if (rc == TPM_RC_SUCCESS && n)
		rc = pqtpm_tss_policy_or(*s, branches, n);
	if (rc != TPM_RC_SUCCESS) {
		pqtpm_tss_session_free(*s);
		*s = NULL;
	}
	return rc;
}

/* The Name of the AK from its public area */
static TPM_RC name_of(struct pqtpm_attest_ak *ak)
{
	struct ak_public p;

	TRY(ak_public_parse(ak->pub.b, ak->pub.size, &p));
	return public_name(ak->pub.b, ak->pub.size, p.name_alg, &ak->name);
}

TPM_RC pqtpm_attest_ak_create(struct pqtpm_tss *t, const char *alg, const char *ek_alg,
			      struct pqtpm_attest_ak *ak)
{
	struct pqtpm_tss_session *s = NULL;
	struct pqtpm_tss_public tmpl;
	struct pqtpm_tss_key ek, key;
	TPM_RC rc;

	memset(ak, 0, sizeof(*ak));
	if (strlen(alg) >= sizeof(ak->alg) || strlen(ek_alg) >= sizeof(ak->ek_alg))
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(ak_template(alg, &tmpl));
	TRY(pqtpm_attest_ek_create(t, ek_alg, &ek));
	rc = ek_policy_session(t, ek_alg, &s);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_use_sessions(t, s, NULL, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_create(t, ek.handle, "", &tmpl, "", &key);
	pqtpm_tss_session_free(s);
	pqtpm_tss_flush(t, ek.handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	strcpy(ak->alg, alg);
	strcpy(ak->ek_alg, ek_alg);
	ak->pub = key.pub;
	ak->priv = key.priv;
	return name_of(ak);
}

TPM_RC pqtpm_attest_ak_load(struct pqtpm_tss *t, const struct pqtpm_attest_ak *ak,
			    TPM_HANDLE *ek_handle, TPM_HANDLE *ak_handle)
{
	struct pqtpm_tss_session *s = NULL;
	struct pqtpm_tss_key ek, key;
	TPM_RC rc;

	TRY(pqtpm_attest_ek_create(t, ak->ek_alg, &ek));
	memset(&key, 0, sizeof(key));
	key.pub = ak->pub;
	key.priv = ak->priv;
	rc = ek_policy_session(t, ak->ek_alg, &s);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_use_sessions(t, s, NULL, NULL);
	if (rc == TPM_RC_SUCCESS)
		rc = pqtpm_tss_load(t, ek.handle, "", &key);
	pqtpm_tss_session_free(s);
	if (rc != TPM_RC_SUCCESS) {
		pqtpm_tss_flush(t, ek.handle);
		return rc;
	}
	*ek_handle = ek.handle;
	*ak_handle = key.handle;
	return TPM_RC_SUCCESS;
}

static int set_blob(json_t *o, const char *key, const uint8_t *b, size_t len, bool hex)
{
	char *s = hex ? pqtpm_attest_hex(b, len) : pqtpm_attest_b64url(b, len);
	int rc;

	if (!s)
		return -1;
	rc = json_object_set_new(o, key, json_string(s));
	free(s);
	return rc;
}

json_t *pqtpm_attest_ak_json(const struct pqtpm_attest_ak *ak)
{
	char pem[PQTPM_ATTEST_MAX_PEM];
	json_t *o = json_object();
	size_t len;

	if (o && pqtpm_attest_public_pem(&ak->pub, pem, sizeof(pem), &len) == 0 &&
	    json_object_set_new(o, "public_pem", json_string(pem))) {
		json_decref(o);
		return NULL;
	}
	if (!o || json_object_set_new(o, "alg", json_string(ak->alg)) ||
	    json_object_set_new(o, "ek_alg", json_string(ak->ek_alg)) ||
	    set_blob(o, "public", ak->pub.b, ak->pub.size, false) ||
	    set_blob(o, "private", ak->priv.b, ak->priv.size, false) ||
	    set_blob(o, "name", ak->name.b, ak->name.size, true)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int get_string(const json_t *doc, const char *key, const char **out, char *msg,
		      size_t msglen)
{
	*out = json_string_value(json_object_get(doc, key));
	if (*out)
		return 0;
	snprintf(msg, msglen, "\"%s\" is missing or not a string", key);
	return -EINVAL;
}

int pqtpm_attest_ak_from_json(const json_t *doc, struct pqtpm_attest_ak *ak, char *msg,
			      size_t msglen)
{
	const char *alg, *ek_alg, *pub, *priv, *name;
	struct pqtpm_tss_public tmpl;
	struct pqtpm_tss_name want;
	size_t n;

	memset(ak, 0, sizeof(*ak));
	if (!json_is_object(doc)) {
		snprintf(msg, msglen, "not a JSON object");
		return -EINVAL;
	}
	if (get_string(doc, "alg", &alg, msg, msglen) ||
	    get_string(doc, "ek_alg", &ek_alg, msg, msglen) ||
	    get_string(doc, "public", &pub, msg, msglen) ||
	    get_string(doc, "private", &priv, msg, msglen) ||
	    get_string(doc, "name", &name, msg, msglen))
		return -EINVAL;
	if (ak_template(alg, &tmpl) || pqtpm_attest_ek_template(ek_alg, &tmpl, NULL) ||
	    strlen(alg) >= sizeof(ak->alg) || strlen(ek_alg) >= sizeof(ak->ek_alg)) {
		snprintf(msg, msglen, "unknown \"alg\" or \"ek_alg\"");
		return -EINVAL;
	}
	strcpy(ak->alg, alg);
	strcpy(ak->ek_alg, ek_alg);
	if (pqtpm_attest_unb64url(pub, ak->pub.b, sizeof(ak->pub.b), &n)) {
		snprintf(msg, msglen, "\"public\" is no base64url of at most %zu bytes",
			 sizeof(ak->pub.b));
		return -EINVAL;
	}
	ak->pub.size = (uint16_t)n;
	if (pqtpm_attest_unb64url(priv, ak->priv.b, sizeof(ak->priv.b), &n)) {
		snprintf(msg, msglen, "\"private\" is no base64url of at most %zu bytes",
			 sizeof(ak->priv.b));
		return -EINVAL;
	}
	ak->priv.size = (uint16_t)n;
	if (pqtpm_attest_unhex(name, want.b, sizeof(want.b), &n)) {
		snprintf(msg, msglen, "\"name\" is no hex Name");
		return -EINVAL;
	}
	want.size = (uint16_t)n;
	if (name_of(ak) != TPM_RC_SUCCESS) {
		snprintf(msg, msglen, "\"public\" is no TPMT_PUBLIC of an RSA, ECC or ML-DSA key");
		return -EINVAL;
	}
	if (want.size != ak->name.size || memcmp(want.b, ak->name.b, want.size) != 0) {
		snprintf(msg, msglen, "\"name\" is not the Name of \"public\"");
		return -EINVAL;
	}
	return 0;
}
