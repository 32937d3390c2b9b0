/* Keys for unit tests (see keys.h). */
#include <string.h>

#include <CUnit/Basic.h>

#include "keys.h"

void key_template(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs)
{
	key_template_attrs(p, type, KEY_BASE | attrs);
}

void key_template_attrs(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs)
{
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->name_alg = TPM_ALG_SHA256;
	p->attributes = attrs;
	p->symmetric.alg = TPM_ALG_NULL;
	p->scheme.scheme = p->scheme.hash_alg = p->scheme.kdf = TPM_ALG_NULL;
	p->kdf.scheme = p->kdf.hash_alg = p->kdf.kdf = TPM_ALG_NULL;
	p->pre_hash = TPM_ALG_NULL;
	p->key_bits = 2048;
	p->curve_id = TPM_ECC_NIST_P256;
}

void key_storage_template(struct tpmt_public *p, TPM_ALG_ID type, uint32_t attrs)
{
	key_template_attrs(p, type, attrs);
	p->symmetric.alg = TPM_ALG_AES;
	p->symmetric.key_bits = 128;
	p->symmetric.mode = TPM_ALG_CFB;
}

TPM_RC key_primary_in(struct harness *h, TPM_HANDLE hierarchy, const struct tpmt_public *t, const char *auth,
			 const void *data, uint16_t dlen, struct key *k)
{
	struct tpmt_public want = *t;
	struct tpmt_ticket ticket;
	struct tpm2b_digest hash;
	struct cmdbuf b;
	struct rd rsp, sub;
	uint16_t size;
	TPM_RC rc;

	if (!data)
		want.attributes |= TPMA_OBJECT_SENSITIVEDATAORIGIN;
	cmd_begin(&b, TPM_CC_CreatePrimary);
	cmd_handle(&b, hierarchy);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, auth, data, dlen);
	wr_tpm2b_public(&b.params, &want);
	wr_tpm2b(&b.params, "", 0);
	wr_u32(&b.params, 0);
	rc = harness_run(h, &b, &rsp, &k->handle);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL(rd_tpm2b_public(&rsp, &k->pub), 0);
	CU_ASSERT_EQUAL(rd_sub(&rsp, &sub, &size), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, &hash), 0);
	CU_ASSERT_EQUAL(rd_ticket(&rsp, &ticket), 0);
	CU_ASSERT_EQUAL(rd_tpm2b_name(&rsp, &k->name), 0);
	return rc;
}

void key_primary(struct harness *h, const struct tpmt_public *t, const void *data, uint16_t dlen, struct key *k)
{
	CU_ASSERT_EQUAL_FATAL(key_primary_in(h, TPM_RH_OWNER, t, "", data, dlen, k), TPM_RC_SUCCESS);
}

TPM_RC key_create(struct harness *h, TPM_HANDLE parent, const struct tpmt_public *t,
		  const char *auth, const void *data, uint16_t dlen, struct tpm2b_private *priv,
		  struct tpmt_public *pub)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Create);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	cmd_sensitive(&b, auth, data, dlen);
	wr_tpm2b_public(&b.params, t);
	wr_u16(&b.params, 0);
	wr_u32(&b.params, 0);
	rc = harness_run(h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b(&r, priv->b, sizeof(priv->b), &priv->size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rd_tpm2b_public(&r, pub), TPM_RC_SUCCESS);
	return rc;
}

TPM_RC key_load(struct harness *h, TPM_HANDLE parent, const struct tpm2b_private *priv,
		const struct tpmt_public *pub, TPM_HANDLE *handle, struct tpm2b_name *name)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Load);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, priv->b, priv->size);
	wr_tpm2b_public(&b.params, pub);
	rc = harness_run(h, &b, &r, handle);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL_FATAL(rd_tpm2b_name(&r, name), TPM_RC_SUCCESS);
	return rc;
}
