/* C_GenerateRandom from the TPM's GetRandom; C_SeedRandom into the TPM's generator
 * (StirRandom); both outside the module lock. */
#include "p11.h"

struct random_step {
	uint8_t *out;
	size_t len;
};

static CK_RV random_step(struct p11_conn *c, void *arg)
{
	struct random_step *st = arg;

	return p11_conn_random(c, st->out, st->len);
}

CK_RV C_GenerateRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR RandomData, CK_ULONG ulRandomLen)
{
	struct random_step st = { RandomData, ulRandomLen };
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!RandomData && ulRandomLen)
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(p11_unlocked(NULL, random_step, &st));
}

struct seed_step {
	const uint8_t *seed;
	size_t len;
};

/* The seed in pieces of what one StirRandom takes. */
static CK_RV seed_step(struct p11_conn *c, void *arg)
{
	struct seed_step *st = arg;
	const uint8_t *seed = st->seed;
	size_t len = st->len;
	CK_RV rv = CKR_OK;

	while (rv == CKR_OK && len) {
		size_t n = len > PQTPM_TSS_MAX_STIR ? PQTPM_TSS_MAX_STIR : len;

		rv = p11_conn_rv(c, pqtpm_tss_stir_random(c->t, seed, n), "StirRandom");
		seed += n;
		len -= n;
	}
	return rv;
}

CK_RV C_SeedRandom(CK_SESSION_HANDLE hSession, CK_BYTE_PTR pSeed, CK_ULONG ulSeedLen)
{
	struct seed_step st = { pSeed, ulSeedLen };
	struct p11_session *s;
	struct p11_token *tok;
	CK_RV rv = p11_enter_session(hSession, &s, &tok);

	if (rv != CKR_OK)
		return rv;
	if (!pSeed && ulSeedLen)
		return p11_done(CKR_ARGUMENTS_BAD);
	return p11_done(p11_unlocked(NULL, seed_step, &st));
}
