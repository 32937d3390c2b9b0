/* Policy digests computed here, without a trial session (Part 3 §23: each assertion's
 * policyDigest update), for templates whose authPolicy is known in advance. */
#include <string.h>

#include "crypto/crypto.h"
#include "tss_int.h"

TPM_RC pqtpm_tss_policy_calc_start(TPM_ALG_ID hash, struct pqtpm_tss_digest *d)
{
	size_t n = crypto_hash_size(hash);

	if (n == 0)
		return PQTPM_TSS_RC_BAD_VALUE;
	memset(d->b, 0, sizeof(d->b));
	d->size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}

/* d = H(d || cc || a || b) */
static TPM_RC extend(struct pqtpm_tss_digest *d, TPM_ALG_ID hash, TPM_CC cc, const void *a,
		     size_t alen, const void *b, size_t blen)
{
	struct crypto_hash_ctx h;
	uint8_t code[4];
	struct wr w;

	if (crypto_hash_size(hash) != d->size)
		return PQTPM_TSS_RC_BAD_VALUE;
	wr_init(&w, code, sizeof(code));
	TRY(wr_u32(&w, cc));
	TRY(crypto_hash_start(&h, hash));
	TRY(crypto_hash_update(&h, d->b, d->size));
	TRY(crypto_hash_update(&h, code, sizeof(code)));
	TRY(crypto_hash_update(&h, a, alen));
	TRY(crypto_hash_update(&h, b, blen));
	return crypto_hash_finish(&h, d->b);
}

TPM_RC pqtpm_tss_policy_calc_command_code(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
					  TPM_CC cc)
{
	uint8_t code[4];
	struct wr w;

	wr_init(&w, code, sizeof(code));
	TRY(wr_u32(&w, cc));
	return extend(d, hash, TPM_CC_PolicyCommandCode, code, sizeof(code), NULL, 0);
}

/* PolicyPassword extends with TPM_CC_PolicyAuthValue too: the two give one digest. */
TPM_RC pqtpm_tss_policy_calc_auth_value(struct pqtpm_tss_digest *d, TPM_ALG_ID hash)
{
	return extend(d, hash, TPM_CC_PolicyAuthValue, NULL, 0, NULL, 0);
}

TPM_RC pqtpm_tss_policy_calc_pcr(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
				 const struct pqtpm_tss_pcr_select *sel, size_t nsel,
				 const struct pqtpm_tss_digest *pcr_digest)
{
	struct tss_cmd c; /* the selection written by the command builder's own writer */

	if (!sel || nsel == 0 || nsel > 16 || pcr_digest->size > sizeof(pcr_digest->b))
		return PQTPM_TSS_RC_BAD_VALUE;
	tss_begin(&c, NULL, 0);
	tss_pcr_selection(&c, sel, nsel);
	if (c.overflow)
		return PQTPM_TSS_RC_BAD_VALUE;
	return extend(d, hash, TPM_CC_PolicyPCR, c.params, c.p.off, pcr_digest->b,
		      pcr_digest->size);
}

TPM_RC pqtpm_tss_policy_calc_or(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
				const struct pqtpm_tss_digest *branches, size_t n)
{
	uint8_t all[8 * CRYPTO_MAX_DIGEST];
	size_t len = 0;

	if (!branches || n < 2 || n > 8)
		return PQTPM_TSS_RC_BAD_VALUE;
	for (size_t i = 0; i < n; i++) {
		if (branches[i].size > CRYPTO_MAX_DIGEST)
			return PQTPM_TSS_RC_BAD_VALUE;
		memcpy(all + len, branches[i].b, branches[i].size);
		len += branches[i].size;
	}
	TRY(pqtpm_tss_policy_calc_start(hash, d));
	return extend(d, hash, TPM_CC_PolicyOR, all, len, NULL, 0);
}

/* PolicyUpdate(TPM_CC_PolicySecret, authName, policyRef): H(H(d || cc || name) || ref) */
TPM_RC pqtpm_tss_policy_calc_secret(struct pqtpm_tss_digest *d, TPM_ALG_ID hash,
				    const struct pqtpm_tss_name *auth_name,
				    const struct pqtpm_tss_digest *policy_ref)
{
	struct crypto_hash_ctx h;

	if (auth_name->size > sizeof(auth_name->b))
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(extend(d, hash, TPM_CC_PolicySecret, auth_name->b, auth_name->size, NULL, 0));
	TRY(crypto_hash_start(&h, hash));
	TRY(crypto_hash_update(&h, d->b, d->size));
	if (policy_ref)
		TRY(crypto_hash_update(&h, policy_ref->b, policy_ref->size));
	return crypto_hash_finish(&h, d->b);
}
