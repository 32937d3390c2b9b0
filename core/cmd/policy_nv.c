/* PolicyNV (Part 3 §23.9): a policy assertion on the contents of an NV index.
 * policyDigest = H(policyDigest || TPM_CC_PolicyNV || H(operandB || offset || operation) ||
 * nvIndex Name); a trial session only extends the digest. */
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

const struct cmd_def cmds_policy_nv[] = {
	{ .code = TPM_CC_PolicyNV, .name = "PolicyNV", .handles = 3,
	  .auth = { AUTH_USER, AUTH_NONE, AUTH_NONE },
	  .htype = { HK_OWNER | HK_PLATFORM | HK_NV, HK_NV, HK_SESSION },
	  .flags = CMD_PARAM_IN, .run = policy_nv },
	{ 0 },
};
