/* PolicyNV (Part 3 §23.9): a policy assertion on the contents of an NV index.
 * policyDigest = H(policyDigest || TPM_CC_PolicyNV || H(operandB || offset || operation) ||
 * nvIndex Name); a trial session only extends the digest. */
#include <string.h>

#include "nv/nv.h"
#include "policy.h"

enum { EO_EQ, EO_NEQ, EO_SIGNED_GT, EO_UNSIGNED_GT, EO_SIGNED_LT, EO_UNSIGNED_LT,
       EO_SIGNED_GE, EO_UNSIGNED_GE, EO_SIGNED_LE, EO_UNSIGNED_LE, EO_BITSET, EO_BITCLEAR };

/* TPM_EO: a (the index data) op b (operandB), n big-endian bytes. PolicyCounterTimer has the
 * same comparison in cmd/policy.c; one of the two should call the other's. */
static bool holds(uint16_t op, const uint8_t *a, const uint8_t *b, size_t n)
{
	int u = 0, sgn;
	bool all = true;

	for (size_t i = 0; i < n && u == 0; i++)
		u = (a[i] > b[i]) - (a[i] < b[i]);
	sgn = u;
	if (n && (a[0] ^ b[0]) & 0x80) /* the negative one is smaller */
		sgn = (a[0] & 0x80) ? -1 : 1;
	switch (op) {
	case EO_EQ: return u == 0;
	case EO_NEQ: return u != 0;
	case EO_SIGNED_GT: return sgn > 0;
	case EO_UNSIGNED_GT: return u > 0;
	case EO_SIGNED_LT: return sgn < 0;
	case EO_UNSIGNED_LT: return u < 0;
	case EO_SIGNED_GE: return sgn >= 0;
	case EO_UNSIGNED_GE: return u >= 0;
	case EO_SIGNED_LE: return sgn <= 0;
	case EO_UNSIGNED_LE: return u <= 0;
	case EO_BITSET:
	case EO_BITCLEAR:
		for (size_t i = 0; i < n; i++)
			all &= op == EO_BITSET ? (a[i] & b[i]) == b[i] : (a[i] & b[i]) == 0;
		return all;
	}
	return false;
}

/* The index's bytes at offset (a counter as its current value, nv/orderly.c). */
static void index_bytes(struct cmd *c, const struct nv_index *idx, uint16_t offset, uint16_t n,
			uint8_t *out)
{
	const uint8_t *data = nv_data(c->e->ps.nv, idx);
	uint8_t counter[8];

	if (nv_type(idx->pub.attributes) == TPM_NT_COUNTER) {
		uint64_t v = nv_counter_value(c->e, idx);

		for (int i = 7; i >= 0; i--, v >>= 8)
			counter[i] = (uint8_t)v;
		data = counter;
	}
	memcpy(out, data + offset, n);
}

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
	if (op > EO_BITCLEAR)
		return rc_param(TPM_RC_VALUE, 3);
	if (s->type != TPM_SE_TRIAL) {
		TRY(nv_read_access(c, idx));
		if (offset > idx->pub.size)
			return rc_param(TPM_RC_VALUE, 2);
		if (idx->pub.size - offset < operand.size)
			return rc_param(TPM_RC_SIZE, 1);
		index_bytes(c, idx, offset, operand.size, data);
		if (!holds(op, data, operand.b, operand.size))
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
