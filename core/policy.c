/* Policy session helpers (see policy.h). */
#include <string.h>

#include "nv/nv.h"
#include "policy.h"

static void be32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

TPM_RC policy_session(struct cmd *c, unsigned slot, struct session **out)
{
	struct session *s = session_find(c->client, c->handle[slot]);

	if (!s)
		return TPM_RC_REFERENCE_H0 + slot;
	if (s->type == TPM_SE_HMAC)
		return TPM_RC_AUTH_TYPE;
	*out = s;
	return TPM_RC_SUCCESS;
}

TPM_RC policy_extend(struct session *s, TPM_CC cc, const void *data, size_t len)
{
	struct crypto_hash_ctx h;
	uint8_t code[4];

	be32(code, cc);
	TRY(crypto_hash_start(&h, s->auth_hash));
	TRY(crypto_hash_update(&h, s->policy_digest.b, s->policy_digest.size));
	TRY(crypto_hash_update(&h, code, sizeof(code)));
	if (len)
		TRY(crypto_hash_update(&h, data, len));
	return crypto_hash_finish(&h, s->policy_digest.b);
}

TPM_RC policy_update(struct session *s, TPM_CC cc, const struct tpm2b_name *name,
		     const struct tpm2b_digest *ref, const struct tpm2b_digest *cp_hash,
		     uint64_t timeout)
{
	struct crypto_hash_ctx h;

	TRY(policy_extend(s, cc, name->b, name->size));
	TRY(crypto_hash_start(&h, s->auth_hash));
	TRY(crypto_hash_update(&h, s->policy_digest.b, s->policy_digest.size));
	if (ref->size)
		TRY(crypto_hash_update(&h, ref->b, ref->size));
	TRY(crypto_hash_finish(&h, s->policy_digest.b));
	if (cp_hash && cp_hash->size)
		s->cp_hash = *cp_hash;
	if (timeout && (s->timeout == 0 || timeout < s->timeout))
		s->timeout = timeout;
	return TPM_RC_SUCCESS;
}

/* TPM_EO (Part 2 §6.8) */
enum eo {
	EO_EQ, EO_NEQ, EO_SIGNED_GT, EO_UNSIGNED_GT, EO_SIGNED_LT, EO_UNSIGNED_LT,
	EO_SIGNED_GE, EO_UNSIGNED_GE, EO_SIGNED_LE, EO_UNSIGNED_LE, EO_BITSET, EO_BITCLEAR,
};

bool policy_eo_holds(uint16_t op, const uint8_t *a, const uint8_t *b, size_t n)
{
	int u = 0, sgn;

	for (size_t i = 0; i < n && u == 0; i++)
		u = (a[i] > b[i]) - (a[i] < b[i]);
	/* Signed, as the reference implementation orders them and as the TPMs built on it
	 * (libtpms, IBM's simulator) do: the negative one is smaller; two negatives compare in
	 * the reverse of their unsigned order (docs/pq-decisions.md). */
	sgn = u;
	if (n && (a[0] ^ b[0]) & 0x80)
		sgn = (a[0] & 0x80) ? -1 : 1;
	else if (n && (a[0] & 0x80))
		sgn = -u;
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
		for (size_t i = 0; i < n; i++)
			if ((a[i] & b[i]) != b[i])
				return false;
		return true;
	case EO_BITCLEAR:
		for (size_t i = 0; i < n; i++)
			if (a[i] & b[i])
				return false;
		return true;
	}
	return false;
}

static bool same_digest(const struct tpm2b_digest *d, const uint8_t *b, size_t len)
{
	return d->size == len && memcmp(d->b, b, len) == 0;
}

/* nameHash = H(names of the command's handles) (Part 3 PolicyNameHash) */
static TPM_RC check_name_hash(struct cmd *c, const struct session *s, unsigned n)
{
	struct crypto_hash_ctx h;
	uint8_t d[MAX_DIGEST_SIZE];

	TRY(crypto_hash_start(&h, s->auth_hash));
	for (unsigned i = 0; i < c->def->handles; i++) {
		struct tpm2b_name name;

		TRY(entity_name(c, i, &name));
		TRY(crypto_hash_update(&h, name.b, name.size));
	}
	TRY(crypto_hash_finish(&h, d));
	if (!same_digest(&s->name_hash, d, crypto_hash_size(s->auth_hash)))
		return rc_session(TPM_RC_POLICY_FAIL, n);
	return TPM_RC_SUCCESS;
}

/* templateHash = H(inPublic's content), inPublic being the second parameter of the three
 * creation commands (Part 3 PolicyTemplate). */
static TPM_RC check_template(struct cmd *c, const struct session *s, unsigned n,
			     const uint8_t *params, size_t plen)
{
	TPM_CC cc = c->def->code;
	const uint8_t *tmpl;
	uint8_t d[MAX_DIGEST_SIZE];
	uint16_t size;
	struct rd r;

	if (cc != TPM_CC_Create && cc != TPM_CC_CreatePrimary && cc != TPM_CC_CreateLoaded)
		return rc_session(TPM_RC_POLICY_FAIL, n);
	rd_init(&r, params, plen);
	/* inSensitive, whose content may be encrypted but whose size is not, then inPublic */
	if (rd_u16(&r, &size) != TPM_RC_SUCCESS || rd_view(&r, size, &tmpl) != TPM_RC_SUCCESS ||
	    rd_u16(&r, &size) != TPM_RC_SUCCESS || rd_view(&r, size, &tmpl) != TPM_RC_SUCCESS)
		return rc_session(TPM_RC_POLICY_FAIL, n);
	TRY(crypto_hash(s->auth_hash, tmpl, size, d));
	if (!same_digest(&s->template_hash, d, crypto_hash_size(s->auth_hash)))
		return rc_session(TPM_RC_POLICY_FAIL, n);
	return TPM_RC_SUCCESS;
}

TPM_RC policy_check_use(struct cmd *c, const struct session *s, unsigned slot, unsigned n,
			const uint8_t *params, size_t plen)
{
	enum auth_role role = c->def->auth[slot];

	if (s->need_pp && !c->e->phys_presence)
		return rc_session(TPM_RC_PP, n);
	if (s->timeout && engine_clock_ms(c->e) > s->timeout)
		return rc_session(TPM_RC_EXPIRED, n);
	/* Part 1 §19.2: an ADMIN or DUP role takes a policy naming the command */
	if ((role == AUTH_ADMIN || role == AUTH_DUP) && s->command_code != c->def->code)
		return rc_session(TPM_RC_POLICY_FAIL, n);
	/* PolicySecret proves knowledge of the authValue: a policy without it proves nothing */
	if (c->def->code == TPM_CC_PolicySecret && !s->need_auth_value && !s->need_password)
		return rc_session(TPM_RC_MODE, n);
	if (s->name_hash.size)
		TRY(check_name_hash(c, s, n));
	if (s->template_hash.size)
		TRY(check_template(c, s, n, params, plen));
	/* PolicyNvWritten: an NV index, written or not as asserted (before this command) */
	if (s->check_nv_written &&
	    (!c->nv[slot] || !!(c->nv[slot]->pub.attributes & TPMA_NV_WRITTEN) != s->nv_written_state))
		return rc_session(TPM_RC_POLICY_FAIL, n);
	return TPM_RC_SUCCESS;
}
