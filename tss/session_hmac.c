/* Session HMACs (Part 1 §19.6): cpHash and rpHash, the command HMACs of the authorization
 * area, the response HMACs checked, nonces rolled, sessions that ended marked. */
#include <string.h>

#include "crypto/crypto.h"
#include "tss_int.h"

static unsigned entries(const struct tss_use *u, const struct tss_cmd *c)
{
	return u->n > c->nauth ? u->n : c->nauth;
}

size_t tss_session_hmac_key(const struct pqtpm_tss_session *s,
			    const struct pqtpm_tss_digest *auth, uint8_t *key)
{
	size_t n = s->key.size;

	memcpy(key, s->key.b, n);
	if (auth) {
		memcpy(key + n, auth->b, auth->size);
		n += auth->size;
	}
	return n;
}

static bool same_name(const struct pqtpm_tss_name *a, const struct pqtpm_tss_name *b)
{
	return a->size == b->size && memcmp(a->b, b->b, a->size) == 0;
}

/* Bound to the entity it authorizes: the same Name and authValue (Part 1 §19.6.11). */
static bool bound_to(const struct pqtpm_tss_session *s, const struct pqtpm_tss_name *name,
		     const struct pqtpm_tss_digest *auth)
{
	return s->bound && same_name(&s->bind_name, name) && s->bind_auth.size == auth->size &&
	       crypto_ct_equal(s->bind_auth.b, auth->b, auth->size);
}

TPM_RC tss_auth_value(struct pqtpm_tss_digest *d, const char *auth)
{
	size_t n = auth ? strlen(auth) : 0;

	if (n > TSS_MAX_AUTH)
		return PQTPM_TSS_RC_BAD_VALUE;
	memcpy(d->b, auth ? auth : "", n);
	d->size = (uint16_t)n;
	return TPM_RC_SUCCESS;
}

TPM_RC tss_use_prepare(struct tss_use *u, const struct tss_cmd *c,
		       const struct pqtpm_tss_name *names)
{
	if (c->nauth > c->nhandles)
		return PQTPM_TSS_RC_BAD_VALUE; /* authorized handles come first */
	for (unsigned k = 0; k < u->n; k++) {
		struct pqtpm_tss_session *s = u->s[k];

		if (s->handle == 0 || s->t != c->t)
			return PQTPM_TSS_RC_BAD_VALUE;
		u->authorizes[k] = k < c->nauth;
		if (u->authorizes[k]) {
			TRY(tss_auth_value(&u->auth[k], c->auth[k]));
			u->auth_in_hmac[k] = s->type == TPM_SE_HMAC
						     ? !bound_to(s, &names[k], &u->auth[k])
						     : s->need_auth_value;
		}
		if (s->attrs & TPMA_SESSION_DECRYPT) {
			if (u->decrypt >= 0 || s->sym == TPM_ALG_NULL || !(c->enc & TSS_ENC_IN))
				return PQTPM_TSS_RC_BAD_VALUE;
			u->decrypt = (int)k;
		}
		if (s->attrs & TPMA_SESSION_ENCRYPT) {
			if (u->encrypt >= 0 || s->sym == TPM_ALG_NULL || !(c->enc & TSS_ENC_OUT))
				return PQTPM_TSS_RC_BAD_VALUE;
			u->encrypt = (int)k;
		}
		s->nonce_caller.size = s->dsize;
		TRY(crypto_random(s->nonce_caller.b, s->dsize));
	}
	return TPM_RC_SUCCESS;
}

static TPM_RC cp_hash(TPM_ALG_ID alg, const struct tss_cmd *c,
		      const struct pqtpm_tss_name *names, const uint8_t *params, size_t plen,
		      uint8_t *out)
{
	struct crypto_hash_ctx h;
	uint8_t code[4];
	struct wr w;

	wr_init(&w, code, sizeof(code));
	TRY(wr_u32(&w, c->cc));
	TRY(crypto_hash_start(&h, alg));
	TRY(crypto_hash_update(&h, code, sizeof(code)));
	for (unsigned i = 0; i < c->nhandles; i++)
		TRY(crypto_hash_update(&h, names[i].b, names[i].size));
	TRY(crypto_hash_update(&h, params, plen));
	return crypto_hash_finish(&h, out);
}

static TPM_RC rp_hash(TPM_ALG_ID alg, TPM_CC cc, const uint8_t *params, size_t plen,
		      uint8_t *out)
{
	struct crypto_hash_ctx h;
	uint8_t head[8];
	struct wr w;

	wr_init(&w, head, sizeof(head));
	TRY(wr_u32(&w, TPM_RC_SUCCESS));
	TRY(wr_u32(&w, cc));
	TRY(crypto_hash_start(&h, alg));
	TRY(crypto_hash_update(&h, head, sizeof(head)));
	TRY(crypto_hash_update(&h, params, plen));
	return crypto_hash_finish(&h, out);
}

/* HMAC(sessionKey || authValue, pHash || newer || older || extra... || attrs) */
static TPM_RC session_hmac(const struct pqtpm_tss_session *s, const struct pqtpm_tss_digest *auth,
			   const uint8_t *p_hash, const struct pqtpm_tss_digest *newer,
			   const struct pqtpm_tss_digest *older,
			   const struct pqtpm_tss_digest *const *extra, unsigned nextra,
			   uint8_t attrs, uint8_t *out)
{
	uint8_t key[2 * CRYPTO_MAX_DIGEST + TSS_MAX_AUTH];
	size_t klen = tss_session_hmac_key(s, auth, key);
	struct crypto_hmac_ctx h;
	TPM_RC rc = crypto_hmac_start(&h, s->hash, key, klen);

	crypto_wipe(key, sizeof(key));
	TRY(rc);
	TRY(crypto_hmac_update(&h, p_hash, s->dsize));
	TRY(crypto_hmac_update(&h, newer->b, newer->size));
	TRY(crypto_hmac_update(&h, older->b, older->size));
	for (unsigned i = 0; i < nextra; i++)
		TRY(crypto_hmac_update(&h, extra[i]->b, extra[i]->size));
	TRY(crypto_hmac_update(&h, &attrs, 1));
	rc = crypto_hmac_finish(&h, out);
	crypto_wipe(&h, sizeof(h));
	return rc;
}

static TPM_RC write_password(const char *pw, struct wr *w)
{
	size_t n = pw ? strlen(pw) : 0;

	if (n > TSS_MAX_AUTH)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(wr_u32(w, TPM_RS_PW));
	TRY(wr_u16(w, 0));
	TRY(wr_u8(w, TPMA_SESSION_CONTINUESESSION));
	return wr_tpm2b(w, pw ? pw : "", (uint16_t)n);
}

static TPM_RC write_session(struct tss_use *u, unsigned k, const uint8_t *cp, struct wr *w)
{
	const struct pqtpm_tss_session *s = u->s[k];
	const struct pqtpm_tss_digest *extra[2];
	uint8_t hmac[CRYPTO_MAX_DIGEST];
	unsigned nextra = 0;
	TPM_RC rc;

	TRY(wr_u32(w, s->handle));
	TRY(wr_tpm2b(w, s->nonce_caller.b, s->nonce_caller.size));
	TRY(wr_u8(w, s->attrs));
	if (s->type != TPM_SE_HMAC && s->need_password && u->authorizes[k])
		return wr_tpm2b(w, u->auth[k].b, u->auth[k].size); /* PolicyPassword: in clear */
	/* Part 1 §19.6.5: the first session's HMAC also covers the nonceTPM of the decrypt and
	 * encrypt sessions after it (once if one session does both) */
	if (k == 0) {
		if (u->decrypt > 0 && u->decrypt != u->encrypt)
			extra[nextra++] = &u->s[u->decrypt]->nonce_tpm;
		if (u->encrypt > 0)
			extra[nextra++] = &u->s[u->encrypt]->nonce_tpm;
	}
	rc = session_hmac(s, u->auth_in_hmac[k] ? &u->auth[k] : NULL, cp, &s->nonce_caller,
			  &s->nonce_tpm, extra, nextra, s->attrs, hmac);
	if (rc == TPM_RC_SUCCESS)
		rc = wr_tpm2b(w, hmac, s->dsize);
	crypto_wipe(hmac, sizeof(hmac));
	return rc;
}

TPM_RC tss_use_write_area(struct tss_use *u, const struct tss_cmd *c,
			  const struct pqtpm_tss_name *names, const uint8_t *params, size_t plen,
			  struct wr *w)
{
	uint8_t cp[CRYPTO_MAX_DIGEST];

	for (unsigned k = 0; k < entries(u, c); k++) {
		if (k >= u->n) {
			TRY(write_password(c->auth[k], w));
			continue;
		}
		TRY(cp_hash(u->s[k]->hash, c, names, params, plen, cp));
		TRY(write_session(u, k, cp, w));
	}
	return TPM_RC_SUCCESS;
}

/* One session's response entry: nonceTPM taken, HMAC checked. */
static bool check_session(struct tss_use *u, const struct tss_cmd *c, unsigned k,
			  const struct pqtpm_tss_digest *nonce, uint8_t attrs,
			  const struct pqtpm_tss_digest *hmac, const uint8_t *params, size_t plen)
{
	struct pqtpm_tss_session *s = u->s[k];
	const struct pqtpm_tss_digest *auth = u->auth_in_hmac[k] ? &u->auth[k] : NULL;
	struct pqtpm_tss_digest after;
	uint8_t rp[CRYPTO_MAX_DIGEST], expect[CRYPTO_MAX_DIGEST];
	bool ok;

	s->nonce_tpm = *nonce;
	if (s->type != TPM_SE_HMAC && s->need_password && u->authorizes[k])
		return true; /* PolicyPassword: no response HMAC (Part 1 §19.6.13) */
	if (k == 0 && c->auth_after && auth) {
		if (tss_auth_value(&after, c->auth_after) != TPM_RC_SUCCESS)
			return false;
		auth = &after;
	}
	/* an empty key (no session key, no authValue) may answer with an empty HMAC */
	if (hmac->size == 0 && s->key.size == 0 && !(auth && auth->size))
		ok = true;
	else
		ok = rp_hash(s->hash, c->cc, params, plen, rp) == TPM_RC_SUCCESS &&
		     session_hmac(s, auth, rp, &s->nonce_tpm, &s->nonce_caller, NULL, 0, attrs,
				  expect) == TPM_RC_SUCCESS &&
		     hmac->size == s->dsize && crypto_ct_equal(hmac->b, expect, s->dsize);
	crypto_wipe(&after, sizeof(after));
	crypto_wipe(expect, sizeof(expect));
	return ok;
}

TPM_RC tss_use_check_area(struct tss_use *u, const struct tss_cmd *c, const uint8_t *params,
			  size_t plen, struct rd *area)
{
	struct pqtpm_tss_digest nonce, hmac;
	bool ok = true;
	uint8_t attrs;

	for (unsigned k = 0; k < entries(u, c); k++) {
		if (tss_rd_tpm2b(area, nonce.b, sizeof(nonce.b), &nonce.size) ||
		    rd_u8(area, &attrs) || tss_rd_tpm2b(area, hmac.b, sizeof(hmac.b), &hmac.size))
			return PQTPM_TSS_RC_MALFORMED;
		if (k >= u->n)
			continue;
		ok &= check_session(u, c, k, &nonce, attrs, &hmac, params, plen);
		/* the TPM forgets a session used without continueSession, and starts a policy
		 * session over after it authorized (Part 1 §19.7.1) */
		if (!(u->s[k]->attrs & TPMA_SESSION_CONTINUESESSION))
			u->s[k]->handle = 0;
		if (u->authorizes[k])
			u->s[k]->need_password = u->s[k]->need_auth_value = false;
	}
	crypto_wipe(&hmac, sizeof(hmac));
	if (rd_left(area))
		return PQTPM_TSS_RC_MALFORMED;
	return ok ? TPM_RC_SUCCESS : PQTPM_TSS_RC_RESPONSE_HMAC;
}
