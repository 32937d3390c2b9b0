/* Sessions: StartAuthSession (Part 3 §11.1) with salt and bind, the session key (Part 1
 * §19.6.11), the thread's sessions for its next command, flush and free (see tss.h). */
#include <stdlib.h>
#include <string.h>

#include "crypto/crypto.h"
#include "tss_int.h"

/* The calling thread's sessions for its next command on `t` (pqtpm_tss_use_sessions). */
static _Thread_local struct {
	struct pqtpm_tss *t;
	struct pqtpm_tss_session *s[3];
	unsigned n;
} pending;

/* Starting, flushing and freeing a session leave the thread's sessions for the next command
 * function's command: these hold them aside (minus a session being freed). */
static void hold(unsigned *n)
{
	*n = pending.n;
	pending.n = 0;
}

static void release(unsigned n, const struct pqtpm_tss_session *gone)
{
	pending.n = n;
	for (unsigned i = 0; i < n; i++)
		if (pending.s[i] == gone)
			pending.n = 0;
}

static TPM_RC check_params(const struct pqtpm_tss_session_params *p, TPM_ALG_ID hash)
{
	if (p->type != TPM_SE_HMAC && p->type != TPM_SE_POLICY && p->type != TPM_SE_TRIAL)
		return PQTPM_TSS_RC_BAD_VALUE;
	if (crypto_hash_size(hash) == 0 || (p->salt_key && !p->salt_pub))
		return PQTPM_TSS_RC_BAD_VALUE;
	switch (p->sym) {
	case 0:
	case TPM_ALG_NULL:
	case TPM_ALG_XOR:
		return TPM_RC_SUCCESS;
	default: /* a block cipher in CFB: AES, Camellia, TDES */
		return crypto_sym_supported(p->sym, p->sym_bits) ? TPM_RC_SUCCESS
								 : PQTPM_TSS_RC_BAD_VALUE;
	}
}

/* sessionKey = KDFa(authHash, bindAuth || salt, "ATH", nonceTPM, nonceCaller); empty when the
 * session is neither bound nor salted. */
static TPM_RC session_key(struct pqtpm_tss_session *s, const uint8_t *salt, size_t salt_len)
{
	uint8_t secret[TSS_MAX_AUTH + CRYPTO_MAX_DIGEST];
	size_t n = 0;
	TPM_RC rc;

	s->key.size = 0;
	if (!s->bound && salt_len == 0)
		return TPM_RC_SUCCESS;
	if (s->bound) {
		memcpy(secret, s->bind_auth.b, s->bind_auth.size);
		n = s->bind_auth.size;
	}
	memcpy(secret + n, salt, salt_len);
	n += salt_len;
	rc = crypto_kdfa(s->hash, secret, n, "ATH", s->nonce_tpm.b, s->nonce_tpm.size,
			 s->nonce_caller.b, s->nonce_caller.size, (uint32_t)s->dsize * 8, s->key.b);
	crypto_wipe(secret, sizeof(secret));
	if (rc == TPM_RC_SUCCESS)
		s->key.size = s->dsize;
	return rc;
}

static TPM_RC start(struct pqtpm_tss_session *s, const struct pqtpm_tss_session_params *p)
{
	uint8_t salt[CRYPTO_MAX_DIGEST], enc[PQTPM_TSS_MAX_SECRET];
	size_t salt_len = 0, enc_len = 0;
	struct tss_cmd c;
	struct rd r;
	TPM_RC rc;

	if (s->bound) {
		TRY(tss_name_get(s->t, p->bind, &s->bind_name));
		TRY(tss_auth_value(&s->bind_auth, p->bind_auth));
	}
	if (p->salt_key)
		TRY(tss_secret_make(p->salt_pub, "SECRET", salt, &salt_len, enc, &enc_len));
	s->nonce_caller.size = s->dsize;
	rc = crypto_random(s->nonce_caller.b, s->dsize);
	if (rc == TPM_RC_SUCCESS) {
		tss_begin(&c, s->t, TPM_CC_StartAuthSession);
		tss_handle(&c, p->salt_key ? p->salt_key : TPM_RH_NULL);
		tss_handle(&c, s->bound ? p->bind : TPM_RH_NULL);
		tss_tpm2b(&c, s->nonce_caller.b, s->nonce_caller.size);
		tss_tpm2b(&c, enc, enc_len);
		tss_u8(&c, s->type);
		tss_u16(&c, s->sym);
		if (s->sym != TPM_ALG_NULL)
			tss_u16(&c, s->sym_bits);
		if (crypto_sym_block(s->sym) != 0)
			tss_u16(&c, TPM_ALG_CFB);
		tss_u16(&c, s->hash);
		rc = tss_run(&c, &r, &s->handle);
	}
	if (rc == TPM_RC_SUCCESS)
		rc = tss_rd_tpm2b(&r, s->nonce_tpm.b, sizeof(s->nonce_tpm.b), &s->nonce_tpm.size);
	if (rc == TPM_RC_SUCCESS)
		rc = tss_rd_end(&r);
	if (rc == TPM_RC_SUCCESS)
		rc = session_key(s, salt, salt_len);
	crypto_wipe(salt, sizeof(salt));
	return rc;
}

TPM_RC pqtpm_tss_session_start(struct pqtpm_tss *t, const struct pqtpm_tss_session_params *p,
			       struct pqtpm_tss_session **out)
{
	TPM_ALG_ID hash = p && p->hash ? p->hash : TPM_ALG_SHA256;
	struct pqtpm_tss_session *s;
	unsigned held;
	TPM_RC rc;

	if (!out)
		return PQTPM_TSS_RC_BAD_VALUE;
	*out = NULL;
	if (!t || !p)
		return PQTPM_TSS_RC_BAD_VALUE;
	TRY(check_params(p, hash));
	s = calloc(1, sizeof(*s));
	if (!s)
		return PQTPM_TSS_RC_IO;
	hold(&held);
	s->t = t;
	s->type = p->type;
	s->attrs = p->attrs;
	s->hash = hash;
	s->dsize = (uint16_t)crypto_hash_size(hash);
	s->sym = p->sym ? p->sym : TPM_ALG_NULL;
	s->sym_bits = s->sym == TPM_ALG_XOR ? hash : p->sym_bits; /* XOR's "keyBits" is a hash */
	s->bound = p->bind != 0 && p->bind != TPM_RH_NULL;
	rc = start(s, p);
	if (rc != TPM_RC_SUCCESS && s->handle)
		pqtpm_tss_flush(t, s->handle);
	release(held, NULL);
	if (rc != TPM_RC_SUCCESS) {
		crypto_wipe(s, sizeof(*s));
		free(s);
		return rc;
	}
	*out = s;
	return TPM_RC_SUCCESS;
}

void pqtpm_tss_session_set_attrs(struct pqtpm_tss_session *s, uint8_t attrs)
{
	if (s)
		s->attrs = attrs;
}

TPM_HANDLE pqtpm_tss_session_handle(const struct pqtpm_tss_session *s)
{
	return s ? s->handle : 0;
}

TPM_RC pqtpm_tss_session_flush(struct pqtpm_tss_session *s)
{
	TPM_RC rc = TPM_RC_SUCCESS;
	unsigned held;

	if (!s)
		return PQTPM_TSS_RC_BAD_VALUE;
	hold(&held);
	if (s->handle)
		rc = pqtpm_tss_flush(s->t, s->handle);
	if (rc == TPM_RC_SUCCESS)
		s->handle = 0;
	release(held, s);
	return rc;
}

void pqtpm_tss_session_free(struct pqtpm_tss_session *s)
{
	if (!s)
		return;
	if (s->handle)
		pqtpm_tss_session_flush(s);
	else
		release(pending.n, s);
	crypto_wipe(s, sizeof(*s));
	free(s);
}

TPM_RC pqtpm_tss_use_sessions(struct pqtpm_tss *t, struct pqtpm_tss_session *s1,
			      struct pqtpm_tss_session *s2, struct pqtpm_tss_session *s3)
{
	struct pqtpm_tss_session *s[3] = { s1, s2, s3 };
	unsigned n = 0;

	pending.n = 0;
	while (n < 3 && s[n])
		n++;
	for (unsigned i = 0; i < 3; i++) {
		if (i >= n && s[i])
			return PQTPM_TSS_RC_BAD_VALUE; /* a gap */
		if (i < n && (s[i]->t != t || s[i]->handle == 0))
			return PQTPM_TSS_RC_BAD_VALUE;
		for (unsigned j = 0; j < i && i < n; j++)
			if (s[j] == s[i])
				return PQTPM_TSS_RC_BAD_VALUE;
	}
	pending.t = t;
	memcpy(pending.s, s, sizeof(s));
	pending.n = n;
	return TPM_RC_SUCCESS;
}

void tss_use_take(struct pqtpm_tss *t, struct tss_use *u)
{
	memset(u, 0, sizeof(*u));
	u->decrypt = u->encrypt = -1;
	if (pending.t != t || pending.n == 0)
		return;
	memcpy(u->s, pending.s, sizeof(u->s));
	u->n = pending.n;
	pending.n = 0;
}

void tss_use_wipe(struct tss_use *u)
{
	crypto_wipe(u, sizeof(*u));
}
