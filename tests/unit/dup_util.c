/* Duplicate, Import and Rewrap as the duplication tests send them (see dup_util.h). */
#include <string.h>

#include <CUnit/Basic.h>

#include "dup_util.h"
#include "sessions.h"

void dup_policy(struct tpm2b_digest *d)
{
	d->size = SESS_DSIZE;
	sess_cc_policy(TPM_CC_Duplicate, d->b);
}

TPM_RC dup_duplicate(struct harness *h, TPM_HANDLE obj, const struct tpm2b_name *name,
		     TPM_HANDLE np, const struct tpm2b_name *np_name,
		     const struct tpm2b_data *key_in, const struct tpmt_sym_def *sym, bool session,
		     struct tpm2b_data *key_out, struct dup_blob *out)
{
	struct tpm2b_name names[2] = { *name };
	struct tpm2b_digest nonce_tpm;
	struct tpm2b_data kout;
	TPM_HANDLE s = 0;
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	if (np_name)
		names[1] = *np_name;
	else
		sess_handle_name(np, &names[1]);
	if (session) {
		CU_ASSERT_EQUAL_FATAL(sess_start(h, TPM_SE_POLICY, &s, &nonce_tpm), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(sess_policy_cc(h, s, TPM_CC_Duplicate), TPM_RC_SUCCESS);
	}
	cmd_begin(&b, TPM_CC_Duplicate);
	cmd_handle(&b, obj);
	cmd_handle(&b, np);
	wr_tpm2b(&b.params, key_in->b, key_in->size);
	wr_sym_def(&b.params, sym);
	if (session)
		sess_auth_policy(&b, s, &nonce_tpm, names);
	else
		cmd_auth_pw(&b, "");
	rc = harness_run(h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS) {
		if (session)
			CU_ASSERT_EQUAL(sess_flush(h, s), TPM_RC_SUCCESS);
		return rc;
	}
	memset(out, 0, sizeof(*out));
	CU_ASSERT_EQUAL(rd_tpm2b(&r, kout.b, sizeof(kout.b), &kout.size), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->dup.b, sizeof(out->dup.b), &out->dup.size),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->secret, sizeof(out->secret), &out->secret_len),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	out->key = key_in->size ? *key_in : kout;
	if (key_out)
		*key_out = kout;
	return rc;
}

TPM_RC dup_import(struct harness *h, TPM_HANDLE parent, const struct tpmt_public *pub,
		  const struct dup_blob *bl, const struct tpmt_sym_def *sym,
		  struct tpm2b_private *out)
{
	static const struct tpmt_sym_def aes128 = { TPM_ALG_AES, 128, TPM_ALG_CFB };
	static const struct tpmt_sym_def none = { TPM_ALG_NULL, 0, 0 };
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	if (!sym)
		sym = bl->key.size ? &aes128 : &none;
	cmd_begin(&b, TPM_CC_Import);
	cmd_handle(&b, parent);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, bl->key.b, bl->key.size);
	wr_tpm2b_public(&b.params, pub);
	wr_tpm2b(&b.params, bl->dup.b, bl->dup.size);
	wr_tpm2b(&b.params, bl->secret, bl->secret_len);
	wr_sym_def(&b.params, sym);
	rc = harness_run(h, &b, &r, NULL);
	if (rc == TPM_RC_SUCCESS) {
		CU_ASSERT_EQUAL(rd_tpm2b(&r, out->b, sizeof(out->b), &out->size), TPM_RC_SUCCESS);
		CU_ASSERT_EQUAL(rd_left(&r), 0);
	}
	return rc;
}

TPM_RC dup_rewrap(struct harness *h, TPM_HANDLE oldp, TPM_HANDLE np,
		  const struct tpm2b_name *name, const struct dup_blob *in, struct dup_blob *out)
{
	struct cmdbuf b;
	struct rd r;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_Rewrap);
	cmd_handle(&b, oldp);
	cmd_handle(&b, np);
	cmd_auth_pw(&b, "");
	wr_tpm2b(&b.params, in->dup.b, in->dup.size);
	wr_tpm2b_name(&b.params, name);
	wr_tpm2b(&b.params, in->secret, in->secret_len);
	rc = harness_run(h, &b, &r, NULL);
	if (rc != TPM_RC_SUCCESS)
		return rc;
	*out = *in;
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->dup.b, sizeof(out->dup.b), &out->dup.size),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b(&r, out->secret, sizeof(out->secret), &out->secret_len),
			TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_left(&r), 0);
	return rc;
}
