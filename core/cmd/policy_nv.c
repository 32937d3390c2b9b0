/* The policy assertions on the contents of an NV index (Part 3 §23.9, §23.22):
 * PolicyNV: policyDigest = H(policyDigest || TPM_CC_PolicyNV || H(operandB || offset ||
 * operation) || nvIndex Name);
 * PolicyAuthorizeNV: the index holds a TPMT_HA, the policy its owner approves; when the
 * session's digest is that policy, it starts over as H(0...0 || TPM_CC_PolicyAuthorizeNV ||
 * nvIndex Name).
 * Both read the index as NV_Read would (authHandle authorized by dispatch); a trial session
 * only extends the digest. */
#include <string.h>

#include "nv/nv.h"
#include "policy.h"

static TPM_RC policy_nv(struct cmd *c)
{
	const struct nv_index *idx = c->nv[1];
	struct tpm2b_digest operand;
	struct crypto_hash_ctx h;
	struct tpm2b_name name;
	struct session *s;
	uint16_t offset, op;
	uint8_t data[MAX_DIGEST_SIZE], args[MAX_DIGEST_SIZE + 4], digest[MAX_DIGEST_SIZE];
	uint8_t code[4] = { (uint8_t)(TPM_CC_PolicyNV >> 24), (uint8_t)(TPM_CC_PolicyNV >> 16),
			    (uint8_t)(TPM_CC_PolicyNV >> 8), (uint8_t)TPM_CC_PolicyNV };
	size_t dlen;

	TRY(policy_session(c, 2, &s));
	TRYP(1, rd_tpm2b_digest(&c->in, &operand));
	TRYP(2, rd_u16(&c->in, &offset));
	TRYP(3, rd_u16(&c->in, &op));
	TRY(cmd_params_done(c));
	if (op > POLICY_EO_MAX)
		return rc_param(TPM_RC_VALUE, 3);
	if (s->type != TPM_SE_TRIAL) {
		TRY(nv_read_access(c, idx));
		if (offset > idx->pub.size)
			return rc_param(TPM_RC_VALUE, 2);
		if (idx->pub.size - offset < operand.size)
			return rc_param(TPM_RC_SIZE, 1);
		nv_read_data(c->e, idx, offset, operand.size, data);
		if (!policy_eo_holds(op, data, operand.b, operand.size))
			return TPM_RC_POLICY;
	}
	memcpy(args, operand.b, operand.size);
	args[operand.size] = (uint8_t)(offset >> 8);
	args[operand.size + 1] = (uint8_t)offset;
	args[operand.size + 2] = (uint8_t)(op >> 8);
	args[operand.size + 3] = (uint8_t)op;
	dlen = crypto_hash_size(s->auth_hash);
	TRY(crypto_hash(s->auth_hash, args, operand.size + 4u, digest));
	TRY(nv_name(&idx->pub, &name));
	TRY(crypto_hash_start(&h, s->auth_hash));
	TRY(crypto_hash_update(&h, s->policy_digest.b, s->policy_digest.size));
	TRY(crypto_hash_update(&h, code, sizeof(code)));
	TRY(crypto_hash_update(&h, digest, dlen));
	TRY(crypto_hash_update(&h, name.b, name.size));
	return crypto_hash_finish(&h, s->policy_digest.b);
}

#define TPMT_HA_MAX (2 + MAX_DIGEST_SIZE)

/* The policy in the index: a TPMT_HA (hashAlg, then a digest of its size) at offset 0, as
 * the reference unmarshals it from the first bytes. */
static TPM_RC check_authorized_nv(struct cmd *c, const struct nv_index *idx,
				  const struct session *s)
{
	uint8_t buf[TPMT_HA_MAX], digest[MAX_DIGEST_SIZE];
	uint16_t n = idx->pub.size < sizeof(buf) ? idx->pub.size : (uint16_t)sizeof(buf);
	TPM_ALG_ID alg;
	size_t dsize;
	struct rd r;

	TRY(nv_read_access(c, idx));
	nv_read_data(c->e, idx, 0, n, buf);
	rd_init(&r, buf, n);
	if (rd_u16(&r, &alg) != TPM_RC_SUCCESS)
		return TPM_RC_INSUFFICIENT;
	dsize = crypto_hash_size(alg);
	if (dsize == 0)
		return TPM_RC_HASH;
	if (rd_bytes(&r, digest, dsize) != TPM_RC_SUCCESS)
		return TPM_RC_INSUFFICIENT;
	if (alg != s->auth_hash)
		return TPM_RC_HASH;
	if (s->policy_digest.size != dsize || memcmp(digest, s->policy_digest.b, dsize) != 0)
		return TPM_RC_VALUE;
	return TPM_RC_SUCCESS;
}

static TPM_RC policy_authorize_nv(struct cmd *c)
{
	const struct nv_index *idx = c->nv[1];
	struct tpm2b_name name;
	struct session *s;

	TRY(policy_session(c, 2, &s));
	TRY(cmd_params_done(c));
	if (s->type != TPM_SE_TRIAL)
		TRY(check_authorized_nv(c, idx, s));
	TRY(nv_name(&idx->pub, &name));
	memset(s->policy_digest.b, 0, s->policy_digest.size);
	return policy_extend(s, TPM_CC_PolicyAuthorizeNV, name.b, name.size);
}

const struct cmd_def cmds_policy_nv[] = {
	{ .code = TPM_CC_PolicyNV, .name = "PolicyNV", .handles = 3,
	  .auth = { AUTH_USER, AUTH_NONE, AUTH_NONE },
	  .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV, HK_SESSION },
	  .flags = CMD_PARAM_IN, .run = policy_nv },
	{ .code = TPM_CC_PolicyAuthorizeNV, .name = "PolicyAuthorizeNV", .handles = 3,
	  .auth = { AUTH_USER, AUTH_NONE, AUTH_NONE },
	  .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV, HK_SESSION }, .run = policy_authorize_nv },
	{ 0 },
};
