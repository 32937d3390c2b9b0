/* Sessions as the client sees them (see sessions.h). */
#include <string.h>

#include <CUnit/Basic.h>

#include "crypto/crypto.h"
#include "sessions.h"

void sess_be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

void sess_sha256(const void *a, size_t alen, const void *b, size_t blen, const void *c,
		 size_t clen, uint8_t out[SESS_DSIZE])
{
	struct crypto_hash_ctx ctx;

	CU_ASSERT_EQUAL(crypto_hash_start(&ctx, TPM_ALG_SHA256), TPM_RC_SUCCESS);
	crypto_hash_update(&ctx, a, alen);
	crypto_hash_update(&ctx, b, blen);
	crypto_hash_update(&ctx, c, clen);
	crypto_hash_finish(&ctx, out);
}

void sess_policy_extend(uint8_t d[SESS_DSIZE], TPM_CC cc, const void *data, size_t len)
{
	uint8_t code[4];

	sess_be32(code, cc);
	sess_sha256(d, SESS_DSIZE, code, 4, data, len, d);
}

void sess_cc_policy(TPM_CC code, uint8_t out[SESS_DSIZE])
{
	uint8_t buf[SESS_DSIZE + 8] = { 0 };

	sess_be32(buf + SESS_DSIZE, TPM_CC_PolicyCommandCode);
	sess_be32(buf + SESS_DSIZE + 4, code);
	CU_ASSERT_EQUAL(crypto_hash(TPM_ALG_SHA256, buf, sizeof(buf), out), TPM_RC_SUCCESS);
}

TPM_RC sess_start(struct harness *h, uint8_t type, TPM_HANDLE *handle,
		  struct tpm2b_digest *nonce_tpm)
{
	uint8_t nonce[SESS_DSIZE];
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	CU_ASSERT_EQUAL(crypto_random(nonce, sizeof(nonce)), TPM_RC_SUCCESS);
	cmd_begin(&b, TPM_CC_StartAuthSession);
	cmd_handle(&b, TPM_RH_NULL);
	cmd_handle(&b, TPM_RH_NULL);
	wr_tpm2b(&b.params, nonce, sizeof(nonce));
	wr_u16(&b.params, 0);
	wr_u8(&b.params, type);
	wr_u16(&b.params, TPM_ALG_NULL);
	wr_u16(&b.params, TPM_ALG_SHA256);
	rc = harness_run(h, &b, &rsp, handle);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, nonce_tpm), TPM_RC_SUCCESS);
	return rc;
}

TPM_RC sess_flush(struct harness *h, TPM_HANDLE handle)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_FlushContext);
	wr_u32(&b.params, handle);
	return harness_run(h, &b, NULL, NULL);
}

TPM_RC sess_policy_cc(struct harness *h, TPM_HANDLE s, TPM_CC code)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyCommandCode);
	cmd_handle(&b, s);
	wr_u32(&b.params, code);
	return harness_run(h, &b, NULL, NULL);
}

TPM_RC sess_policy_counter_timer(struct harness *h, TPM_HANDLE s, const uint8_t *operand,
				 uint16_t len, uint16_t offset, uint16_t op)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_PolicyCounterTimer);
	cmd_handle(&b, s);
	wr_tpm2b(&b.params, operand, len);
	wr_u16(&b.params, offset);
	wr_u16(&b.params, op);
	return harness_run(h, &b, NULL, NULL);
}

void sess_policy_digest(struct harness *h, TPM_HANDLE s, uint8_t out[SESS_DSIZE])
{
	struct tpm2b_digest d;
	struct cmdbuf b;
	struct rd rsp;

	cmd_begin(&b, TPM_CC_PolicyGetDigest);
	cmd_handle(&b, s);
	CU_ASSERT_EQUAL_FATAL(harness_run(h, &b, &rsp, NULL), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL(rd_tpm2b_digest(&rsp, &d), TPM_RC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(d.size, SESS_DSIZE);
	memcpy(out, d.b, SESS_DSIZE);
}

void sess_handle_name(TPM_HANDLE handle, struct tpm2b_name *name)
{
	name->size = 4;
	sess_be32(name->b, handle);
}

void sess_cp_hash(TPM_CC cc, const struct tpm2b_name *names, unsigned n, const void *params,
		  size_t plen, uint8_t out[SESS_DSIZE])
{
	struct crypto_hash_ctx c;
	uint8_t code[4];

	sess_be32(code, cc);
	CU_ASSERT_EQUAL(crypto_hash_start(&c, TPM_ALG_SHA256), TPM_RC_SUCCESS);
	crypto_hash_update(&c, code, 4);
	for (unsigned i = 0; i < n; i++)
		crypto_hash_update(&c, names[i].b, names[i].size);
	crypto_hash_update(&c, params, plen);
	crypto_hash_finish(&c, out);
}

void sess_hmac(const uint8_t *key, size_t keylen, const char *auth,
	       const uint8_t p_hash[SESS_DSIZE], const struct tpm2b_digest *newer,
	       const struct tpm2b_digest *older, uint8_t attrs, uint8_t out[SESS_DSIZE])
{
	uint8_t k[128];
	size_t n = keylen, alen = auth ? strlen(auth) : 0;
	struct crypto_hmac_ctx c;

	CU_ASSERT_FATAL(keylen + alen <= sizeof(k));
	if (keylen)
		memcpy(k, key, keylen);
	if (alen) {
		memcpy(k + n, auth, alen);
		n += alen;
	}
	CU_ASSERT_EQUAL(crypto_hmac_start(&c, TPM_ALG_SHA256, k, n), TPM_RC_SUCCESS);
	crypto_hmac_update(&c, p_hash, SESS_DSIZE);
	crypto_hmac_update(&c, newer->b, newer->size);
	crypto_hmac_update(&c, older->b, older->size);
	crypto_hmac_update(&c, &attrs, 1);
	crypto_hmac_finish(&c, out);
}

void sess_auth_policy(struct cmdbuf *b, TPM_HANDLE s, const struct tpm2b_digest *nonce_tpm,
		      const struct tpm2b_name *names)
{
	struct tpm2b_digest nonce = { .size = SESS_DSIZE };
	uint8_t cp[SESS_DSIZE], mac[SESS_DSIZE], attrs = 0;

	CU_ASSERT_EQUAL(crypto_random(nonce.b, nonce.size), TPM_RC_SUCCESS);
	sess_cp_hash(b->cc, names, b->nhandles, b->param_buf, b->params.off, cp);
	sess_hmac(NULL, 0, NULL, cp, &nonce, nonce_tpm, attrs, mac);
	wr_u32(&b->auth, s);
	wr_tpm2b(&b->auth, nonce.b, nonce.size);
	wr_u8(&b->auth, attrs);
	wr_tpm2b(&b->auth, mac, SESS_DSIZE);
	b->nauth = 1;
}

TPM_RC sess_context_save(struct harness *h, TPM_HANDLE handle, struct tpms_context *ctx)
{
	struct cmdbuf b;
	struct rd rsp;
	TPM_RC rc;

	cmd_begin(&b, TPM_CC_ContextSave);
	cmd_handle(&b, handle);
	rc = harness_run(h, &b, &rsp, NULL);
	if (rc == TPM_RC_SUCCESS)
		CU_ASSERT_EQUAL(rd_context(&rsp, ctx), TPM_RC_SUCCESS);
	return rc;
}

TPM_RC sess_context_load(struct harness *h, const struct tpms_context *ctx, TPM_HANDLE *out)
{
	struct cmdbuf b;

	cmd_begin(&b, TPM_CC_ContextLoad);
	wr_context(&b.params, ctx);
	return harness_run(h, &b, NULL, out);
}
