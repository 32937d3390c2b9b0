/* Commits for ECDAA and the two-phase key exchanges (see commit.h). */
#include <string.h>

#include "commit.h"
#include "scheme.h"
#include "txn.h"

static const char COMMIT_LABEL[] = "ECDAA Commit";

static bool slot_pending(const struct commit_state *s, uint64_t count)
{
	unsigned i = (unsigned)(count % COMMIT_SLOTS);

	return s->pending[i / 8] & (1u << (i % 8));
}

static void slot_set(struct commit_state *s, uint64_t count, bool on)
{
	unsigned i = (unsigned)(count % COMMIT_SLOTS);

	if (on)
		s->pending[i / 8] |= (uint8_t)(1u << (i % 8));
	else
		s->pending[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* A commit made or used after a Shutdown(STATE): the commit state that Shutdown saved must not
 * come back after a host reboot (startup.c), or a count used since would give its r again.
 * The saved one goes: such a Restart or Resume draws a new nonce. */
static void commit_changed(struct pqtpm_engine *e)
{
	struct commit_state *saved = &e->ps.ram_saved.commit;

	if (!e->ps.ram_saved.valid || !saved->nonce_set)
		return;
	crypto_wipe(saved, sizeof(*saved));
	engine_dirty(e);
}

/* Before a use that may change the commit state (commit_changed): a command that began
 * reading asks for the lock first (dispatch.c). */
static TPM_RC commit_writable(const struct pqtpm_engine *e)
{
	const struct commit_state *saved = &e->ps.ram_saved.commit;

	return e->ps.ram_saved.valid && saved->nonce_set ? txn_writable(e) : TPM_RC_SUCCESS;
}

/* r = KDFa(nonce, label, Name, count || attempt) of the order's bits until it lies in
 * [1, n - 1]. */
static TPM_RC derive_r(struct commit_state *s, uint16_t curve, const struct tpm2b_name *name,
		       uint64_t count, uint8_t *r)
{
	struct crypto_ecc_params p;
	uint8_t ctx[12], zero[CRYPTO_MAX_ECC_BYTES] = { 0 };
	struct wr w;

	TRY(crypto_ecc_params(curve, &p));
	if (!s->nonce_set) {
		TRY(crypto_random(s->nonce, sizeof(s->nonce)));
		s->nonce_set = true;
	}
	for (uint32_t attempt = 0; attempt < 64; attempt++) {
		wr_init(&w, ctx, sizeof(ctx));
		TRY(wr_u64(&w, count));
		TRY(wr_u32(&w, attempt));
		TRY(crypto_kdfa(TPM_ALG_SHA256, s->nonce, sizeof(s->nonce), COMMIT_LABEL,
				name ? name->b : NULL, name ? name->size : 0, ctx, sizeof(ctx),
				p.key_bits, r));
		if (memcmp(r, p.n, p.len) < 0 && memcmp(r, zero, p.len) != 0)
			return TPM_RC_SUCCESS;
	}
	crypto_wipe(r, p.len);
	return TPM_RC_NO_RESULT;
}

TPM_RC commit_new(struct pqtpm_engine *e, uint16_t curve, const struct tpm2b_name *name,
		  uint8_t *r, uint16_t *counter)
{
	struct commit_state *s = &e->commit;

	volatile_dirty(e);
	TRY(derive_r(s, curve, name, s->counter, r));
	commit_changed(e);
	slot_set(s, s->counter, true);
	*counter = (uint16_t)s->counter;
	s->counter++;
	return TPM_RC_SUCCESS;
}

/* The full count an outstanding counter stands for: the latest count below the next one
 * with these low 16 bits, no more than COMMIT_SLOTS back. */
static bool full_count(const struct commit_state *s, uint16_t counter, uint64_t *count)
{
	uint64_t c = (s->counter & ~(uint64_t)0xFFFF) | counter;

	if (c >= s->counter) {
		if (c < 0x10000)
			return false;
		c -= 0x10000;
	}
	if (s->counter - c > COMMIT_SLOTS || !slot_pending(s, c))
		return false;
	*count = c;
	return true;
}

TPM_RC commit_r(struct pqtpm_engine *e, uint16_t curve, const struct tpm2b_name *name,
		uint16_t counter, uint8_t *r)
{
	uint64_t count;

	if (!full_count(&e->commit, counter, &count))
		return TPM_RC_VALUE;
	volatile_dirty(e); /* the nonce, if a Startup(STATE) brought back counts without it */
	return derive_r(&e->commit, curve, name, count, r);
}

void commit_end(struct pqtpm_engine *e, uint16_t counter)
{
	uint64_t count;

	if (full_count(&e->commit, counter, &count)) {
		commit_changed(e);
		slot_set(&e->commit, count, false);
		volatile_dirty(e);
	}
}

/* k random in [1, n - 1] */
static TPM_RC random_scalar(uint16_t curve, uint8_t *k)
{
	uint8_t x[CRYPTO_MAX_ECC_BYTES], y[CRYPTO_MAX_ECC_BYTES];

	return crypto_ecc_generate(crypto_system_rng(), curve, k, x, y);
}

TPM_RC commit_sign_ecdaa(struct pqtpm_engine *e, const struct object *key,
			 const struct tpmt_scheme *scheme, const struct tpm2b_digest *digest,
			 struct tpmt_signature *sig)
{
	uint16_t curve = key->pub.curve_id;
	size_t len = crypto_ecc_bytes(curve);
	uint8_t r[CRYPTO_MAX_ECC_BYTES], d[CRYPTO_MAX_ECC_BYTES], k[CRYPTO_MAX_ECC_BYTES];
	uint8_t t[CRYPTO_MAX_DIGEST], tn[CRYPTO_MAX_ECC_BYTES], sv[CRYPTO_MAX_ECC_BYTES];
	struct crypto_hash_ctx h;
	TPM_RC rc;

	if (!key->has_sensitive)
		return TPM_RC_AUTH_UNAVAILABLE;
	if (len == 0 || crypto_hash_size(scheme->hash_alg) == 0)
		return TPM_RC_SCHEME;
	TRY(commit_writable(e));
	TRY(commit_r(e, curve, &key->name, scheme->count, r));
	rc = scheme_ecc_fixed(key->sens.sensitive.b, key->sens.sensitive.size, len, d);
	if (rc == TPM_RC_SUCCESS)
		rc = random_scalar(curve, k);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_start(&h, scheme->hash_alg);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, k, len);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_update(&h, digest->b, digest->size);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_hash_finish(&h, t);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_scalar_reduce(curve, t, crypto_hash_size(scheme->hash_alg), tn);
	if (rc == TPM_RC_SUCCESS)
		rc = crypto_ecc_scalar_muladd(curve, r, tn, d, sv);
	if (rc == TPM_RC_SUCCESS) {
		memset(sig, 0, sizeof(*sig));
		sig->sig_alg = TPM_ALG_ECDAA;
		sig->hash = scheme->hash_alg;
		memcpy(sig->r.b, k, len);
		memcpy(sig->s.b, sv, len);
		sig->r.size = sig->s.size = (uint16_t)len;
		commit_end(e, scheme->count);
	}
	crypto_wipe(r, sizeof(r));
	crypto_wipe(d, sizeof(d));
	crypto_wipe(k, sizeof(k));
	return rc;
}
