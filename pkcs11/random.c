/* C_GenerateRandom from the TPM's GetRandom; C_SeedRandom into the TPM's generator
 * (StirRandom). */
#include "p11.h"

CK_RV C_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!RandomData && ulRandomLen)
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(p11_tpm_random(RandomData, ulRandomLen));
}

/* The seed in pieces of what one StirRandom takes. */
static CK_RV stir_once(const uint8_t *seed, size_t len)
{
	struct pqtpm_tss *t;
	CK_RV rv = p11_tpm(&t, NULL);

	while (rv == CKR_OK && len) {
		size_t n = len > PQTPM_TSS_MAX_STIR ? PQTPM_TSS_MAX_STIR : len;

		rv = p11_tpm_rv(pqtpm_tss_stir_random(t, seed, n), "StirRandom");
		seed += n;
		len -= n;
	}
	return rv;
}

static CK_RV stir(const uint8_t *seed, size_t len)
{
	CK_RV rv = stir_once(seed, len);

	return p11_tpm_recover() ? stir_once(seed, len) : rv;
}

CK_RV C_SeedRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed, CK_ULONG ulSeedLen)
{
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter();

	if (rv != CKR_OK)
		return rv;
	rv = p11_session_get(hSession, &s, &tok);
	if (rv != CKR_OK)
		return p11_done(rv);
	if (!pSeed && ulSeedLen)
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(stir(pSeed, ulSeedLen));
}
